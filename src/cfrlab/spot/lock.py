"""Node locking: fix a node's strategy, for every combo, some hand classes or one action mix
for the whole range, and solve the rest of the spot around it (docs/spots.md, "Node locking").

A ``Lock`` names a decision node by its path (``cfrlab.spot.report``; ``*`` for the river card
locks a turn spot's river node on every river), a default ``strategy`` (action frequencies,
``"b10"`` or ``"x 70%, b10 30%"``) and ``hands``: range text -> strategy for those combos (a
later entry wins). Combos neither covers stay free. ``resolve_locks`` turns locks into policy
rows and their fixed strategies.

``LockedSolver`` is the engine's CFR solver (same tables, update rules and terminal products)
with the locked rows of the current strategy overwritten before every pass of every
iteration: the walk's regret matching would otherwise rebuild them from their regrets between
the two alternating passes. So it drives the engine's compiled stages one pass at a time
(``forward`` under the fixed sigma, ``terminals``, ``backward`` updating regrets and
averages) instead of its fused iteration loop; with no locked row it computes exactly what
``CFRSolver`` does. The average strategy's locked rows are the lock (every term of their sums
is). (The counter-strategy solver's fixed rows, ``cfrlab.counter``, are three-column limit
kernels that solve two restricted games side by side: not this.)

Exploitability with locks is measured in the locked game (``locked_best_response``): a
player's best response keeps its locked rows, so a solve converges to 0 there while a
locked node off the equilibrium leaves the unlocked game's exploitability above 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from cfrlab.cards.ranges import combo_text, parse_range
from cfrlab.engine import kernels as K
from cfrlab.engine import row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.fileio import not_regular
from cfrlab.solvers.cfr import PRESETS, CFRSolver
from cfrlab.spot.report import SpotReader, action_token, parse_path, path_text
from cfrlab.tree.betting_tree import CHANCE, FOLD, SHOWDOWN

_PART = re.compile(r"^(\S+)(?:\s+([0-9.]+(?:[eE][-+]?[0-9]+)?)\s*(%?))?$")
TOLERANCE = 1e-9  # frequencies must sum to 1 within this


@dataclass(frozen=True)
class Lock:
    """A locked node (module docstring)."""

    node: str
    strategy: str | None = None
    hands: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def as_dict(self) -> dict:
        out: dict = {"node": self.node}
        if self.strategy is not None:
            out["strategy"] = self.strategy
        if self.hands:
            out["hands"] = dict(self.hands)
        return out

    @classmethod
    def from_dict(cls, d) -> Lock:
        """A lock from its TOML table / JSON object: ``node``, ``strategy``, ``hands``."""
        if not isinstance(d, dict):
            raise CfrlabError(f"a lock is a table (node, strategy, hands), got {d!r}")
        unknown = [k for k in d if k not in ("node", "strategy", "hands")]
        if unknown:
            raise CfrlabError(f"a lock has an unknown setting {unknown[0]!r} (settings: node, strategy, hands)")
        node = d.get("node", "")
        strategy = d.get("strategy")
        hands = d.get("hands", {})
        if not isinstance(node, str):
            raise CfrlabError(f"a lock's node is an action path such as 'x b10', got {node!r}")
        if strategy is not None and not isinstance(strategy, str):
            raise CfrlabError(f"a lock's strategy is text such as 'x 70%, b10 30%', got {strategy!r}")
        if not isinstance(hands, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in hands.items()):
            raise CfrlabError("a lock's hands map range text to a strategy, such as {AA = 'b10'}")
        if strategy is None and not hands:
            raise CfrlabError(f"the lock at {node or 'the root'!r} gives neither a strategy nor hands")
        return cls(node, strategy, tuple(hands.items()))


def load_locks(path) -> tuple[Lock, ...]:
    """The ``[[lock]]`` tables of a TOML file."""
    from pathlib import Path

    import tomllib

    p = Path(path)
    foreign = not_regular(p)
    if foreign is not None:  # a FIFO would block the read forever
        raise CfrlabError(f"{p}: cannot read the lock file ({foreign})")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CfrlabError(f"{p}: no such lock file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CfrlabError(f"{p}: cannot read the lock file ({e.__class__.__name__})") from None
    except tomllib.TOMLDecodeError as e:
        raise CfrlabError(f"{p}: not a TOML file ({' '.join(str(e).split())})") from None
    unknown = [k for k in data if k != "lock"]
    if unknown or not isinstance(data.get("lock"), list) or not data["lock"]:
        raise CfrlabError(f"{p}: a lock file holds [[lock]] tables (node, strategy, hands)")
    try:
        return tuple(Lock.from_dict(d) for d in data["lock"])
    except CfrlabError as e:
        raise CfrlabError(f"{p}: {e}") from None


def parse_strategy(text: str, actions: list[str], where: str) -> np.ndarray:
    """Frequencies over ``actions`` (tokens at the node) of ``"b10"`` or ``"x 70%, b10 0.3"``."""
    out = np.zeros(len(actions))
    parts = [s.strip() for s in str(text).split(",") if s.strip()]
    if not parts:
        raise CfrlabError(f"{where}: the strategy is empty")
    for part in parts:
        m = _PART.match(part)
        if m is None:
            raise CfrlabError(f"{where}: {part!r} is not an action and a frequency (such as 'b10 30%')")
        tok, num, pct = m.group(1).lower(), m.group(2), m.group(3)
        if tok == "c" and "c" not in actions and "x" in actions:
            tok = "x"
        if tok not in actions:
            raise CfrlabError(f"{where}: {m.group(1)!r} is not an action there (actions: {', '.join(actions)})")
        try:
            f = 1.0 if num is None else float(num) / (100.0 if pct else 1.0)
        except ValueError:
            raise CfrlabError(f"{where}: {part!r} has no number for its frequency") from None
        if not 0.0 <= f <= 1.0:
            raise CfrlabError(f"{where}: the frequency of {tok} is from 0 to 100%, got {num}{pct}")
        out[actions.index(tok)] += f
    if abs(out.sum() - 1.0) > TOLERANCE:
        raise CfrlabError(f"{where}: the frequencies sum to {out.sum():.6g}, not 100%")
    return out / out.sum()


@dataclass
class LockedRows:
    """Policy rows fixed by locks: ``rows`` int64[k] and their strategies float64[k, A]."""

    rows: np.ndarray
    strategy: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)


def resolve_locks(sol_like, locks) -> LockedRows:
    """The policy rows of ``locks`` on a spot's tree and model (``sol_like`` has ``spot``,
    ``tree`` and ``model``: a ``SpotSolution`` or a ``Frame``)."""
    tree, model = sol_like.tree, sol_like.model
    off = row_offsets(tree, model)
    A = tree.num_actions
    fixed: dict[int, np.ndarray] = {}
    for lk in locks:
        ref = parse_path(sol_like, lk.node)
        n, r = ref.node, int(tree.round[ref.node])
        at = path_text(sol_like, ref)
        where = f"the lock at {repr(at) if at else 'the root'}"
        cols = np.flatnonzero(tree.legal[tree.decision[n]])
        actions = [action_token(tree, n, int(c)) for c in cols]
        states = np.arange(model.num_states[r])
        if ref.card is not None:
            states = np.array([s for s in states if model.state_board(r, int(s))[-1] == ref.card], dtype=np.int64)
        combo = np.array([model.state_combo(r, int(s)) for s in states], dtype=np.int64)
        chosen: dict[int, np.ndarray] = {}
        if lk.strategy is not None:
            row = _row(parse_strategy(lk.strategy, actions, where), cols, A)
            chosen.update({int(s): row for s in states})
        for hands, text in lk.hands:
            w = _hand_set(hands, where)
            row = _row(parse_strategy(text, actions, f"{where}, {hands}"), cols, A)
            chosen.update({int(s): row for s, c in zip(states, combo) if w[c]})
        for s, row in chosen.items():
            fixed[int(off[tree.decision[n]]) + s] = row
    rows = np.array(sorted(fixed), dtype=np.int64)
    strat = np.array([fixed[int(x)] for x in rows]).reshape(len(rows), A)
    return LockedRows(rows, strat)


def _row(freq: np.ndarray, cols: np.ndarray, A: int) -> np.ndarray:
    out = np.zeros(A)
    out[cols] = freq
    return out


def _hand_set(text: str, where: str) -> np.ndarray:
    try:
        w = parse_range(text)
    except CfrlabError as e:
        raise CfrlabError(f"{where}: {e}") from None
    if ((w > 0) & (w < 1)).any():
        raise CfrlabError(f"{where}: a lock's hands take no weights ({text!r})")
    return w > 0


class LockedSolver(CFRSolver):
    """A full-width CFR-family solver whose ``locked`` rows play a fixed strategy (module
    docstring)."""

    def __init__(self, tree, model, algorithm: str, locked: LockedRows) -> None:
        params = PRESETS[algorithm]
        if params.sampling != "full":
            raise CfrlabError(f"locked nodes are solved by a full-width CFR variant, not {algorithm!r}")
        super().__init__(tree, model, algorithm, params)
        self.locked = locked
        e, lay = self.engine, self._layout
        self._walk = K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off)
        self._ops = K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, self._opbuf32, e.opint, e.opc)
        self._view = K.full_view(e.num_states)
        self._br_dummy = np.zeros(1, dtype=np.int8)
        self._reader = None  # a SpotReader for the locked best responses, built once


    def _set_sigma(self) -> None:
        """sigma = regret matching (on regret + predicted regret when predictive), locks in."""
        e = self.engine
        base = self.regret + self._pred if self.params.predictive else self.regret
        K.normalize_rows(base, e.legal, e.decision_of_row, self._sigma)
        self._sigma[self.locked.rows] = self.locked.strategy

    def _run_uniforms(self, n: int, uniforms: np.ndarray) -> None:
        tables = K.SolverTables(self.regret, self._pred, self.avg, self._sigma)
        passes = ((True, False), (False, True)) if self.rule.alternating else ((True, True),)
        for _ in range(int(n)):
            t = self.iterations + 1
            for trav in passes:
                self._set_sigma()
                K.forward(self._walk, self._view, tables, self._reach, -1)
                for i in (0, 1):
                    if trav[i]:
                        K.terminals(self._ops, self._view, i, self._reach, self._values)
                K.backward(self._walk, self._view, tables, self._reach, self._values, np.array(trav),
                           K.MODE_CFR, self.rule, t, self._br_dummy)
            self.iterations += 1

    def average_policy(self, out: np.ndarray | None = None) -> np.ndarray:
        out = super().average_policy(out)
        out[self.locked.rows] = self.locked.strategy
        return out

    def best_responses(self, policy: np.ndarray) -> tuple[float, float]:
        """(BR0, BR1) in chips against ``policy`` in the locked game."""
        if self._reader is None:
            self._reader = SpotReader(Frame(self.model.spot, self.tree, self.model, policy))
        self._reader.policy = policy
        return tuple(locked_best_response(self._reader, p, self.locked) for p in (0, 1))

    def exploitability(self, average: bool = True) -> float:
        pol = self.average_policy() if average else self.current_policy()
        pol[self.locked.rows] = self.locked.strategy
        return 0.5 * sum(self.best_responses(pol))


# -- best responses that keep the locks --------------------------------------------------------
def locked_best_response(reader, player: int, locked: LockedRows) -> float:
    """``player``'s best-response value (chips of zero-sum winnings) against ``reader``'s policy
    when its locked rows keep their strategy: a plain walk of the tree over the chance model's
    tables (``cfrlab.spot.report.SpotReader``), max over actions at its free rows."""
    free = np.ones(reader.policy.shape[0], dtype=bool)
    free[locked.rows] = False
    tree = reader.tree

    def walk(n: int, pi_opp: np.ndarray) -> np.ndarray:
        r = int(tree.round[n])
        kind = tree.kind[n]
        if kind == FOLD:
            u = float(tree.spent[n, 1 - player]) if tree.player[n] == 1 - player else -float(tree.spent[n, player])
            return u * reader._against(player, r, pi_opp)
        if kind == SHOWDOWN:
            w, wt = reader._showdown
            return float(tree.spent[n].min()) * ((w if player == 0 else wt) @ pi_opp)
        if kind == CHANCE:
            c = int(tree.children(n)[0])
            r1 = int(tree.round[c])
            return reader._collapse(r1, walk(c, reader._expand(r1, pi_opp)))
        rows = reader._rows(n, r)
        kids = tree.children(n)
        if tree.player[n] != player:
            return sum(walk(int(c), pi_opp * rows[:, int(tree.action[c])]) for c in kids)
        vals = np.stack([walk(int(c), pi_opp) for c in kids])  # [children, states]
        sig = rows[:, [int(tree.action[c]) for c in kids]].T
        d = int(tree.decision[n])
        start = int(reader.row_offset[d])
        mine = free[start:start + vals.shape[1]]
        return np.where(mine, vals.max(axis=0), (sig * vals).sum(axis=0))

    r0 = int(tree.round[0])
    return float(walk(0, np.ones(reader.model.num_states[r0])).sum())


class Frame:
    """What ``SpotReader`` and ``resolve_locks`` read of a solution: the spot, its tree and
    model, and a policy (None where none is read)."""

    def __init__(self, spot, tree, model, policy) -> None:
        self.spot, self.tree, self.model, self.policy = spot, tree, model, policy



def lock_walk(solver, sol_like, locks) -> None:
    """Apply ``locks`` to a flop spot's walk (``cfrlab.spot.fast.FastSolver.lock``), as
    ``walk_locks`` resolves them."""
    for (n, b), (hands, fixed) in walk_locks(solver.game, sol_like, locks).items():
        solver.lock(n, hands, fixed, b)


def walk_locks(game, sol_like, locks) -> dict:
    """(node, board) -> (bool[H] locked hands, float64[A, H] their strategy) of ``locks`` on a
    flop spot's walk game, checked before any table exists: each lock's node on its board (a
    turn or river node on the cards its path names), its strategy per hand of the acting player
    (the later entry wins, hands neither covers stay free). A board that suit symmetry solves
    together with others (Kd with Kc on Ks 7h 2h) is refused: locking it would lock them all;
    solved without isomorphism, every board is its own."""
    tree, g = sol_like.tree, game
    out: dict = {}
    for lk in locks:
        ref = parse_path(sol_like, lk.node)
        n = ref.node
        at = path_text(sol_like, ref)
        where = f"the lock at {repr(at) if at else 'the root'}"
        L = len(ref.cards)
        b = g.canonical(tuple(ref.cards))[0] if L else 0  # its only real board: no suit permutation
        shared = int(g.preimages(L)[b]) - 1 if L else 0
        if shared:
            raise CfrlabError(f"{where}: suit symmetry solves this board together with {shared} "
                              f"other(s) (the same up to a suit permutation); lock it on a spot solved "
                              f"without suit isomorphism")
        p = int(tree.player[n])
        cols = np.flatnonzero(tree.legal[tree.decision[n]])
        actions = [action_token(tree, n, int(c)) for c in cols]
        hands, fixed = out.get((n, b), (np.zeros(len(g.hands[p]), dtype=bool), np.zeros((len(cols), len(g.hands[p])))))
        if lk.strategy is not None:
            hands[:] = True
            fixed[:] = parse_strategy(lk.strategy, actions, where)[:, None]
        for text, s in lk.hands:
            w = _hand_set(text, where)[g.hands[p]]
            hands |= w
            fixed[:, w] = parse_strategy(s, actions, f"{where}, {text}")[:, None]
        # the suit permutations keeping this board must keep the lock, or the boards below,
        # solved once per suit class, would be solved for a reach that is not theirs
        for gi in g.levels[L].stab[b]:
            m = g.hmap[p][gi]
            if not (np.array_equal(hands[m], hands) and np.array_equal(fixed[:, m], fixed)):
                h = int(np.flatnonzero((hands[m] != hands) | (fixed[:, m] != fixed).any(axis=0))[0])
                raise CfrlabError(f"{where}: the lock treats {combo_text(int(g.hands[p][h]))} and "
                                  f"{combo_text(int(g.hands[p][m[h]]))} differently, which suit symmetry solves "
                                  f"as one hand on this board; lock them alike, or solve without suit isomorphism")
        out[(n, b)] = (hands, fixed)
    return out
