"""Depth-limited solving: a subgame solved only to a depth, its leaves valued by continuation
strategies among which the opponent chooses.

Noam Brown, Tuomas Sandholm and Brandon Amos, "Depth-Limited Solving for Imperfect-Information
Games" (NeurIPS 2018). Below a leaf the searcher plays the blueprint and the opponent one of
``k`` continuation strategies, picked at the leaf for each of its private states: the
blueprint, then the blueprint biased toward folding, calling and raising (each action of the
kind has its probability multiplied by ``factor``, the row renormalized). The opponent's pick
is a decision like any other in the re-solve (regret matching+), so the searcher's strategy
above the leaves must hold up against every continuation, not only the blueprint's: with
``k = 1`` it is a best response to the blueprint below the depth, which an opponent who
deviates there punishes.

The leaf values are exact: for each leaf, continuation and player, the linear map from the
other player's reach to the player's counterfactual values below the leaf, computed once by
walking the leaf's subtree with one lane per private state of the other player
(``leaf_tables``). A leaf is the chance node that closes round ``root round + depth - 1``; a
depth that reaches past the last round leaves none, and the solve is the full re-solve.

The root is a round start of a blueprint's tree with its ranges: the game's root (round 0,
both ranges are chance's, method ``unsafe``) or a later round's roots cut from the blueprint
(``subgame.cut``) with any of ``METHODS``. Each player's strategy comes from its own
depth-limited solve (it is the searcher there); rows below the leaves stay the blueprint's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cfrlab.engine import exploitability
from cfrlab.engine.kernels import regret_match
from cfrlab.errors import CfrlabError
from cfrlab.strategy import Strategy
from cfrlab.subgame.cut import Blueprint, blueprint_of, cut
from cfrlab.subgame.local import LEAF, Family, _down, _up, backward, families, family_sigma, forward
from cfrlab.subgame.methods import Ranges, normalized, solve_family
from cfrlab.subgame.nested import cf_weight, family_of
from cfrlab.subgame.resolve import _ranges, _write, check_iterations, check_method
from cfrlab.tree.betting_tree import CHANCE, DECISION

BIASES = ("blueprint", "fold", "call", "raise")
DEFAULT_FACTOR = 5.0


@dataclass
class DepthResult:
    """A depth-limited re-solve: ``strategy`` is the combined strategy in exact cards (each
    seat's rows above the leaves from its own solve, the blueprint's elsewhere)."""

    strategy: Strategy
    blueprint: Strategy
    method: str
    round: int
    depth: int
    k: int
    factor: float
    iterations: int
    leaves: int  # leaves of the first solve's truncated families (each seat's solve has them)
    seconds: float
    solves: list = field(default_factory=list)  # (round, seconds) of every solve, leaf tables included

    def seconds_per_solve(self) -> dict[int, float]:
        """{round: mean seconds} of one seat's solve of one public subgame starting at that round
        (every board of it, leaf tables included): an upper bound on what an agent searching
        there spends at that decision point, where it solves the one board it sees."""
        out: dict[int, list] = {}
        for r, t in self.solves:
            out.setdefault(r, []).append(t)
        return {r: float(np.mean(t)) for r, t in sorted(out.items())}

    def exploitability(self) -> float:
        s = self.strategy
        return float(exploitability(s.tree, s.model, s.policy))

    def blueprint_exploitability(self) -> float:
        b = self.blueprint
        return float(exploitability(b.tree, b.model, b.policy))


def check_depth(depth, k, factor, depth_name: str = "depth") -> tuple[int, int, float]:
    for name, v in ((depth_name, depth), ("k", k)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or int(v) < 1:
            raise CfrlabError(f"{name} must be a whole number of at least 1, got {v!r}")
    if int(k) > len(BIASES):
        raise CfrlabError(f"k is at most {len(BIASES)} ({', '.join(BIASES)}), got {k}")
    try:
        f = float(factor)
    except (TypeError, ValueError):
        raise CfrlabError(f"the biasing factor must be a number, got {factor!r}") from None
    if not np.isfinite(f) or f <= 1.0:
        raise CfrlabError(f"the biasing factor must be a finite number above 1, got {factor!r}")
    return int(depth), int(k), f


def biased(policy: np.ndarray, legal: np.ndarray, kind: str, factor: float) -> np.ndarray:
    """``policy`` rows with the probability of every ``kind`` action (fold: column 0, call:
    column 1, raise: the columns after) multiplied by ``factor`` and the rows renormalized over
    their legal columns."""
    if kind == "blueprint":
        return policy
    scale = np.ones(policy.shape[1])
    scale[{"fold": slice(0, 1), "call": slice(1, 2), "raise": slice(2, None)}[kind]] = factor
    out = np.where(legal, policy, 0.0) * scale
    tot = out.sum(axis=1, keepdims=True)
    uni = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
    return np.where(tot > 0, out / np.where(tot > 0, tot, 1.0), uni)


def continuations(bp: Blueprint, k: int, factor: float) -> list[np.ndarray]:
    """The first ``k`` of ``BIASES`` as full policies in the blueprint's rows."""
    legal = bp.engine.legal[bp.engine.decision_of_row]
    return [biased(bp.policy, legal, kind, factor) for kind in BIASES[:k]]


# -- the truncated family -------------------------------------------------------------------
def _ends(fam: Family) -> np.ndarray:
    """end[m]: one past the last local node of m's subtree (the family is in preorder)."""
    end = np.arange(1, fam.size + 1)
    for m in range(fam.size - 1, -1, -1):
        for c in fam.children[m]:
            end[m] = max(end[m], end[c])
    return end


def truncate(fam: Family, depth: int, actions: int | None = None) -> tuple[Family, dict[int, int]]:
    """(family, leaves): ``fam`` with the subtree of every chance node closing round
    ``root round + depth - 1`` replaced by a ``LEAF`` node, and with ``actions``, of every
    decision node reached after that many actions from the root (whichever comes first);
    ``leaves`` maps each leaf's id in the new family to its id in ``fam``."""
    last = int(fam.rnd[0]) + depth - 1
    end = _ends(fam)
    acts = np.zeros(fam.size, dtype=np.int64)  # actions taken from the root to each node
    for m in range(fam.size):
        for c in fam.children[m]:
            acts[c] = acts[m] + (fam.kind[m] == DECISION)
    keep = np.ones(fam.size, dtype=bool)
    cut_at = []
    m = 0
    while m < fam.size:
        deep = actions is not None and m > 0 and fam.kind[m] == DECISION and acts[m] >= actions
        if (fam.kind[m] == CHANCE and fam.rnd[m] >= last) or deep:
            cut_at.append(m)
            keep[m + 1:end[m]] = False
            m = int(end[m])
        else:
            m += 1
    new = np.cumsum(keep) - 1
    nodes = np.flatnonzero(keep)
    kind = fam.kind[nodes].copy()
    leaves = {int(new[m]): int(m) for m in cut_at}
    kind[list(leaves)] = LEAF
    children = [[] if int(new[m]) in leaves else [int(new[c]) for c in fam.children[m]] for m in nodes]
    cols = [[] if int(new[m]) in leaves else fam.cols[m] for m in nodes]
    out = Family(fam.roots, fam.index, kind, fam.player[nodes], fam.rnd[nodes], fam.action[nodes], children,
                 fam.decision[:, nodes], fam.util[:, nodes], fam.legal[nodes], cols, fam.rounds)
    out.source = nodes  # each node's local id in ``fam``
    return out, leaves


def _subtree(fam: Family, m: int, end: int, lanes: int = 1) -> Family:
    """The subtree of local node m (its nodes m .. end-1) for every root, each root repeated
    ``lanes`` times."""
    rep = np.repeat(np.arange(len(fam.roots)), lanes)
    sl = slice(m, end)
    return Family(fam.roots[rep] + m, fam.index[rep], fam.kind[sl], fam.player[sl], fam.rnd[sl], fam.action[sl],
                  [[c - m for c in kids] for kids in fam.children[sl]], fam.decision[rep][:, sl],
                  fam.util[rep][:, sl], fam.legal[sl], fam.cols[sl], fam.rounds)


def entry(fam: Family, m: int) -> int:
    """Where the values of leaf m (local id in ``fam``) are taken: the next round's start below a
    chance node, the node itself at a decision (a depth in actions)."""
    return int(fam.children[m][0]) if fam.kind[m] == CHANCE else int(m)


def leaf_tables(bp: Blueprint, fam: Family, leaves: dict[int, int], conts: list[np.ndarray],
                searcher: int) -> dict[int, np.ndarray]:
    """{leaf: float64[k, 2, G, nb, H, H]} at each leaf's ``entry`` (the next round's start below
    a chance node; nb, H its boards and states): for continuation j and player i, ``T[j, i, g, b, x, y]``
    is player i's counterfactual value in state x (root g, board b) per unit of the other
    player's reach in state y, when the searcher plays the blueprint and the opponent
    continuation j."""
    end = _ends(fam)
    G = len(fam.roots)
    out = {}
    for leaf, m in leaves.items():
        c = entry(fam, m)
        rb = fam.rounds[int(fam.rnd[c])]
        H, nb = rb.H, rb.nb
        sub = _subtree(fam, c, int(end[c]), H)
        ones = np.ones((G * H, nb, H))
        lanes = np.broadcast_to(np.eye(H)[None, :, None, :], (G, H, nb, H)).reshape(G * H, nb, H)
        T = np.empty((len(conts), 2, G, nb, H, H))
        for j, cont in enumerate(conts):
            sigma = family_sigma(sub, {p: (bp.policy if p == searcher else cont) for p in (0, 1)},
                                 bp.engine.row_offset)
            for i in (0, 1):
                reach = (ones, lanes) if i == 0 else (lanes, ones)
                v = backward(sub, sigma, forward(sub, sigma, reach), i, "value")[0]
                T[j, i] = v.reshape(G, H, nb, H).transpose(0, 2, 3, 1)
        out[leaf] = T
    return out


class LeafPlaces:
    """Where a depth-limited family's leaves (``leaves``: truncated id -> id in ``fam``) take
    their values: each leaf's round and its ``entry``'s, and the deal between them."""

    def __init__(self, fam: Family, leaves: dict[int, int], searcher: int) -> None:
        self.s, self.o = searcher, 1 - searcher
        self.rb = {m: (fam.rounds[int(fam.rnd[lm])], fam.rounds[int(fam.rnd[entry(fam, lm)])])
                   for m, lm in leaves.items()}
        self.dealt = {m: bool(fam.kind[lm] == CHANCE) for m, lm in leaves.items()}  # cards come below it

    def down(self, m: int, x: np.ndarray) -> np.ndarray:
        return _down(x, self.rb[m][1]) if self.dealt[m] else x

    def up(self, m: int, v: np.ndarray) -> np.ndarray:
        return _up(v, self.rb[m][1], self.rb[m][0]) if self.dealt[m] else v


class Leaves(LeafPlaces):
    """The leaves of a depth-limited family in a solve (``leaves``: truncated id -> id in
    ``fam``): their tables (``leaf_tables``, at each leaf's ``entry``) and the opponent's pick of
    a continuation at each leaf, per opponent state there (regret matching+)."""

    def __init__(self, fam: Family, leaves: dict[int, int], tables: dict[int, np.ndarray], searcher: int) -> None:
        super().__init__(fam, leaves, searcher)
        self.tables = tables
        self.regret = {m: np.zeros((T.shape[0], *self._shape(m))) for m, T in tables.items()}
        self.fixed: int | None = None  # a continuation forced everywhere (evaluation)

    def _shape(self, m: int) -> tuple:
        rb = self.rb[m][0]
        return (self.tables[m].shape[2], rb.nb, rb.H)

    def pick(self, m: int) -> np.ndarray:
        """float64[k, G, nb, H]: the opponent's distribution over continuations at leaf m."""
        if self.fixed is not None:
            out = np.zeros_like(self.regret[m])
            out[self.fixed] = 1.0
            return out
        return regret_match(self.regret[m], axis=0)

    def below(self, m: int, i: int, other_reach: np.ndarray) -> np.ndarray:
        """float64[k, G, nb', H']: player i's values at the next round's start under each
        continuation, from the other player's reach at the leaf."""
        return np.einsum("jgbxy,gby->jgbx", self.tables[m][:, i], self.down(m, other_reach))

    def value(self, m: int, i: int, reach, mode: str) -> np.ndarray:
        q = self.pick(m)
        if i == self.s:
            T = self.tables[m][:, i]
            v = sum(np.einsum("gbxy,gby->gbx", T[j], self.down(m, reach[self.o] * q[j])) for j in range(len(q)))
            return self.up(m, v)
        w = np.stack([self.up(m, x) for x in self.below(m, i, reach[self.s])])
        if mode == "br":
            return w.max(axis=0)
        v = (q * w).sum(axis=0)
        if mode == "cfr" and self.fixed is None:
            self.regret[m] = np.maximum(self.regret[m] + w - v[None], 0.0)
        return v

    def opponent_values(self, m: int, searcher_reach: np.ndarray, opponent_reach: np.ndarray) -> np.ndarray:
        """float64[G, nb', H']: the opponent's counterfactual values at the next round's start
        when it picks, in each of its states at the leaf, the continuation that is best for it
        against the searcher's reach ``searcher_reach`` (what the next re-solve must grant it;
        its own reach does not change them)."""
        w = self.below(m, self.o, searcher_reach)
        best = np.stack([self.up(m, x) for x in w]).argmax(axis=0)  # [G, nb, H] at the leaf
        j = self.down(m, best.astype(np.float64)).astype(np.int64)  # each state's parent's pick
        return np.take_along_axis(w, j[None], axis=0)[0]


def root_family(bp: Blueprint) -> Family:
    """The whole game as one family rooted at the game's root (every board)."""
    return family_of(bp, np.ones(bp.tree.num_nodes, dtype=bool), 0)


def root_ranges(fam: Family) -> Ranges:
    """The game root's ranges: both players reach it with every hand (chance is in the fold and
    showdown tables)."""
    rb = fam.rounds[int(fam.rnd[0])]
    ones = np.ones((1, rb.nb, rb.H))
    return Ranges((ones, ones), np.zeros_like(ones), ones)


def depth_limited_strategy(blueprint: Strategy, *, round: int = 0, depth: int = 1, k: int = 4,
                           factor: float = DEFAULT_FACTOR, method: str = "unsafe",
                           iterations: int = 300, nested: bool = False,
                           next_method: str = "resolve", continual: bool = False,
                           actions: int | None = None, values=None) -> DepthResult:
    """Depth-limited re-solve of every subgame starting at ``round`` (0: the whole game from its
    root) of the 2-player ``blueprint``, to ``depth`` rounds, with ``k`` continuation
    strategies biased by ``factor`` at the leaves, by ``iterations`` of CFR+ per seat
    (module docstring). Round 0 is re-solved ``unsafe`` (the root's ranges are chance's);
    later rounds take any of ``METHODS``.

    ``nested``: the search agent. Each seat re-solves again at every leaf it reaches, from its
    own range there and the opponent's values under its best continuation against it
    (``next_method``: a gadget, or ``unsafe`` with the opponent's range from the solve), to
    ``depth`` rounds again, down to the end of the game; the rows of every round are then the
    search's and none is the blueprint's.

    ``continual`` (implies ``nested``): continual re-solving (Moravčík et al., "DeepStack:
    Expert-level artificial intelligence in heads-up no-limit poker"): each seat also solves
    again at every one of its own decisions, rooted there, from its range under the previous
    solve and the opponent's best-response counterfactual values there (the gadget of
    ``next_method``); a node's rows are those of the solve rooted at it. With a depth past the
    end of the game its leaves are exact (the rest is solved).

    ``values``: the leaves valued by counterfactual value networks (``subgame.valuenet.ValueNets``
    of this blueprint's game, DeepStack's leaf values) instead of the k continuations."""
    depth, k, factor = check_depth(depth, k, factor)
    if actions is not None:
        actions = check_depth(actions, 1, factor, "actions")[0]
    m = check_method(method)
    nm = check_method(next_method)
    n = check_iterations(iterations)
    if isinstance(round, bool) or not isinstance(round, (int, np.integer)):
        raise CfrlabError(f"round must be a whole number, got {round!r}")
    t0 = time.perf_counter()
    bp = blueprint_of(blueprint, later_round=round != 0)
    R = bp.tree.game.num_rounds
    if not 0 <= round < R:
        raise CfrlabError(f"round must be 0 to {R - 1} (0 is the first round), got {round}")
    if round == 0:
        if m != "unsafe":
            raise CfrlabError(f"the game's root has no blueprint values to be safe against: round 0 is "
                              f"re-solved 'unsafe', not {m!r}")
        work = [(root_family(bp), None)]
    else:
        c = cut(bp, round)
        B = int(bp.engine.num_blocks(round))
        work = [(fam, c) for fam in families(bp, round, c.roots, (0, B))]
    conts = continuations(bp, k, factor)
    policy = bp.policy.copy()
    if values is not None and getattr(values, "bp", None) is not None and \
            values.bp.tree.game.to_text() != bp.tree.game.to_text():
        raise CfrlabError("the value networks are for another game than the blueprint's")
    step = _Step(bp, depth, conts, n, policy, nm if (nested or continual) else None, bool(continual), actions,
                 values)
    leaves = 0  # of the first solves' truncated families (each seat's solve has the same)
    for fam, c in work:
        for p in (0, 1):
            sol = step.solve(fam, root_ranges(fam) if c is None else _ranges(c, fam, m, 1 - p), m, p)
            leaves += len(sol.leaves) if p == 0 else 0
    seconds = time.perf_counter() - t0
    src = bp.strategy
    lifted = src if src.model is bp.model else Strategy.from_policy(
        src.game, bp.policy, tree=bp.tree, model=bp.model, algorithm=src.algorithm,
        extra={"lifted_from": str(src.model.kind)})
    combined = Strategy.from_policy(
        src.game, policy, tree=bp.tree, model=bp.model, algorithm="depth-limited",
        params={"blueprint": src.algorithm, "method": m, "round": round, "depth": depth, "k": k,
                "factor": factor, "iterations": n, "nested": bool(nested or continual), "next_method": nm,
                "continual": bool(continual), "actions": actions,
                "leaf_values": "continuations" if values is None else "networks"},
        iterations=n, seconds=seconds)
    return DepthResult(combined, lifted, m, round, depth, k, factor, n, leaves, seconds, step.solves)


@dataclass
class Solve:
    """One seat's depth-limited solve of a family: the truncated family, its leaves (new id ->
    id in ``fam``) and their tables, and the average strategies (``solve_family``'s)."""

    fam: Family
    ranges: Ranges
    player: int
    short: Family
    leaves: dict
    tabs: Leaves | None
    avg: dict
    _below: dict | None = None
    _reach: tuple | None = None
    _br: list | None = None

    def _walk(self):
        """(sigma, reach): the solve's average strategies and the reach they give every node."""
        if self._reach is None:
            short = self.short
            sigma = {lm: np.moveaxis(normalized(a, short.legal[lm])[0][..., short.cols[lm]], -1, 0)
                     for lm, a in self.avg.items()}
            self._reach = (sigma, forward(short, sigma, self.ranges.reach))
        return self._reach

    def below(self) -> dict[int, tuple[Family, Ranges]]:
        """{each leaf's ``entry`` (local id in ``fam``): (its subtree's family, the ranges the
        next solve starts from)}: the seat's own reach under its average strategy, and the
        opponent's values under its best continuation against it (with its reach under the
        solve's average, for an unsafe next solve)."""
        if self._below is not None:
            return self._below
        p, o, fam = self.player, 1 - self.player, self.fam
        _sigma, reach = self._walk()
        end = _ends(fam)
        out = {}
        for leaf, m in self.leaves.items():
            c = entry(fam, m)
            child = _subtree(fam, c, int(end[c]))
            mine, theirs = self.tabs.down(leaf, reach[leaf][p]), self.tabs.down(leaf, reach[leaf][o])
            alt = self.tabs.opponent_values(leaf, reach[leaf][p], reach[leaf][o])
            pair = (mine, theirs) if p == 0 else (theirs, mine)
            out[c] = (child, Ranges(pair, alt, cf_weight(child, mine, o)))
        self._below = out
        return out

    def at(self, d: int) -> tuple[Family, Ranges]:
        """The subgame rooted at node d (local id in ``fam``, inside the solve's depth) and the
        ranges a re-solve there starts from: the seat's reach at d under the solve's average,
        the opponent's best-response counterfactual values there against it (continual
        re-solving's gadget values)."""
        p, o, fam, short = self.player, 1 - self.player, self.fam, self.short
        sigma, reach = self._walk()
        if self._br is None:
            self._br = backward(short, sigma, reach, o, "br", None, None if self.tabs is None else self.tabs.value)
        i = int(np.searchsorted(short.source, d))
        sub = _subtree(fam, d, int(_ends(fam)[d]))
        mine, theirs = reach[i][p], reach[i][o]
        pair = (mine, theirs) if p == 0 else (theirs, mine)
        return sub, Ranges(pair, self._br[i], cf_weight(sub, mine, o))

    def frontier(self) -> tuple[list[int], list[int]]:
        """(own decisions, leaves) first reached below the root, local ids in ``short``: the
        places where continual re-solving solves again (a leaf's next round is solved by
        ``below``)."""
        short, p = self.short, self.player
        own, leaves, stack = [], [], [c for c in short.children[0]]
        while stack:
            m = stack.pop()
            if short.kind[m] == LEAF:
                leaves.append(m)
            elif short.kind[m] == DECISION and short.player[m] == p:
                own.append(m)
            else:
                stack.extend(short.children[m])
        return sorted(own), sorted(leaves)


def solve_depth(bp: Blueprint, fam: Family, ranges: Ranges, method: str, p: int, depth: int, conts: list,
                iterations: int, both: bool = False, deadline: float | None = None,
                info: dict | None = None, actions: int | None = None, values=None) -> Solve:
    """Seat p's depth-limited solve of ``fam`` from ``ranges`` (``both``: keep the opponent's
    average too, which ``Solve.below`` needs; ``actions``: a depth in actions as well;
    ``values``: leaves valued by ``values.leaves(fam, leaves, p)``, e.g. value networks
    (``subgame.valuenet.ValueNets``), instead of the continuations ``conts``)."""
    short, leaves = truncate(fam, depth, actions)
    if not leaves:
        tabs = None
    elif values is not None:
        tabs = values.leaves(fam, leaves, p)
    else:
        tabs = Leaves(fam, leaves, leaf_tables(bp, fam, leaves, conts, p), p)
    avg = solve_family(short, method, p, ranges, iterations, average=(0, 1) if both else (p,), leaves=tabs,
                       deadline=deadline, info=info)
    return Solve(fam, ranges, p, short, leaves, tabs, avg)


@dataclass
class _Step:
    """One seat's depth-limited solves of a family, and with ``next_method`` of the subgames
    below its leaves, written into ``policy`` (``depth_limited_strategy``)."""

    bp: Blueprint
    depth: int
    conts: list
    iterations: int
    policy: np.ndarray  # written in place: the seat's rows the solves reach
    next_method: str | None
    every_decision: bool = False
    actions: int | None = None
    values: object | None = None  # leaf values other than the continuations (solve_depth)
    solves: list = field(default_factory=list)

    def solve(self, fam: Family, ranges: Ranges, method: str, p: int) -> Solve:
        t0 = time.perf_counter()
        nested = self.next_method is not None
        sol = solve_depth(self.bp, fam, ranges, method, p, self.depth, self.conts, self.iterations, nested,
                          actions=self.actions, values=self.values)
        self.solves.append((int(fam.rnd[0]), (time.perf_counter() - t0) / len(fam.roots)))
        for lm, a in sol.avg.items():
            if sol.short.player[lm] == p:
                _write(self.bp, sol.short, lm, a, self.policy)
        if not nested:
            return sol
        if not self.every_decision:
            for child, start in sol.below().values():
                self.solve(child, start, self.next_method, p)
            return sol
        own, leaves = sol.frontier()  # the rows below are overwritten by the solves there
        for m in own:
            sub, start = sol.at(int(sol.short.source[m]))
            self.solve(sub, start, self.next_method, p)
        nxt = sol.below()
        for m in leaves:
            child, start = nxt[entry(sol.fam, sol.leaves[m])]
            self.solve(child, start, self.next_method, p)
        return sol
