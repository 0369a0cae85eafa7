"""Nested subgame solving of off-tree bets: the alternative to action translation.

Noam Brown and Tuomas Sandholm, "Safe and nested subgame solving for imperfect-information
games" (NIPS 2017), section "Nested subgame solving": when the opponent takes an action the
blueprint's betting abstraction does not hold, solve a subgame that contains the actual
action instead of mapping it to a nearby abstract one.

Everything lives in the game's full tree (every legal amount, exact cards), which is small
for no-limit Kuhn and Leduc. The player's *current tree* is a set of full-tree nodes
(``keep``): at first the blueprint's abstract tree (embedded by betting string), grown by every
re-solve. Its *current strategy* is a policy over the full tree's rows: the blueprint's rows
on its nodes, the re-solves' rows below the off-tree actions.

**The re-solve.** When the opponent at full-tree decision ``d`` (a node of the current tree)
takes an action whose child ``c`` is not in it, the subgame is rooted at ``d``: the
opponent's decision that the off-tree action comes from, with the current tree's actions
there plus the actual amount, and below every action the abstraction's sizes computed at the
real state (``BetSpec.raises``, as the translated agent sizes its own bets). It is rooted
there, not at the start of the betting round, because between the round's start and ``d`` the
player may have acted already: re-solving those decisions would change its strategy where it
has already played, so the range it actually holds would not be the range the re-solve
assumes. At ``d`` the player's range is exactly its current strategy's reach. The ranges come
from the current strategy, and the opponent's alternative values at ``d`` are its
counterfactual best-response values against the current strategy *in the current tree* (what
the blueprint granted it). The subgame is solved by ``subgame.methods.solve_family``:
``resolve`` (the CFR-D gadget), ``maxmargin``, or ``unsafe``; the re-solved rows are kept only
below ``c`` (the on-tree siblings keep the current strategy, as no re-solve happens when the
opponent stays on the tree). A later off-tree action below ``c`` is re-solved the same way
from the new current strategy (nested), using the opponent's strategy from the previous
re-solve for its range.

**Safety** (what the tests check). With ``resolve`` solved exactly, every opponent hand's
value at ``d`` in the subgame is at most its alternative value; so in the current tree grown
by ``c`` the opponent's best-response value at ``d`` is at most what it was before, up to the
re-solve's tolerance: the off-tree action gains the opponent nothing over the blueprint.
Translation carries no such bound.
"""

from __future__ import annotations

import numpy as np

from cfrlab.engine import build_tree_for, get_engine, model_for_game
from cfrlab.errors import CfrlabError
from cfrlab.games.state import State
from cfrlab.strategy import Strategy
from cfrlab.subgame.cut import blueprint_of
from cfrlab.subgame.local import Family, _round_blocks, backward, family_sigma, forward
from cfrlab.subgame.methods import Ranges, normalized, solve_family
from cfrlab.tree.bets import parse_bets
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD

NESTED_METHODS = ("resolve", "maxmargin", "unsafe")
MAX_FULL_NODES = 200_000


class NestedSolver:
    """A blueprint played in the full tree, re-solving at off-tree opponent actions (module
    docstring). ``policy`` (the current strategy, full-tree rows) and ``keep`` (the current
    tree) grow with each ``resolve``; ``catch_up(betting, seat)`` re-solves every off-tree
    opponent action on the path to a betting string."""

    def __init__(self, blueprint: Strategy, method: str = "resolve", iterations: int = 300) -> None:
        self.method = check_nested_method(method)
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or not 1 <= iterations <= 1_000_000:
            raise CfrlabError(f"iterations must be a whole number 1 to 1,000,000, got {iterations!r}")
        self.iterations = int(iterations)
        game = blueprint.game if isinstance(blueprint, Strategy) else None
        if game is None:
            raise CfrlabError(f"a blueprint is a Strategy, got {type(blueprint).__name__}")
        if game.is_limit:
            raise CfrlabError(f"{game.name or 'this game'} is a limit game: nested re-solving of off-tree bets "
                              "is for no-limit games")
        if blueprint.tree.bets == "fullgame":
            raise CfrlabError("the blueprint holds every legal amount: no bet is off its tree")
        bp = blueprint_of(blueprint)  # 2 players, lossless cards
        self.game, self.blueprint = game, blueprint
        self.spec = parse_bets(blueprint.tree.bets, game)
        self.tree = build_tree_for(game)  # the full tree
        if self.tree.num_nodes > MAX_FULL_NODES:
            raise CfrlabError(f"the full tree of {game.name or 'this game'} has {self.tree.num_nodes:,} nodes: "
                              f"nested re-solving here needs at most {MAX_FULL_NODES:,}")
        self.model = model_for_game(game)
        if str(self.model.hash) != str(bp.model.hash):
            raise CfrlabError("the blueprint's exact-card model is not the full game's")
        self.engine = get_engine(self.tree, self.model)
        self.offsets = np.asarray(self.engine.row_offset, dtype=np.int64)
        self.keep, self.policy = embed(bp, self.tree, self.offsets)
        self.resolves = 0
        self._states: dict[int, State] = {}

    # -- the full tree and the abstraction at real states ------------------------------------
    def state_at(self, n: int) -> State:
        """The rules' state at full-tree node ``n`` (its betting replayed)."""
        st = self._states.get(n)
        if st is None:
            q = int(self.tree.parent[n])
            if q < 0:
                st = State(self.game, seed=0)
            elif self.tree.kind[q] == CHANCE:
                st = self.state_at(q)
            else:
                st = self.state_at(q).clone().apply(self.tree.action_text(q, int(self.tree.action[n])))
            self._states[n] = st
        return st

    def abstract_children(self, n: int, extra=None) -> list[int]:
        """The children of decision ``n`` the abstraction holds at its real state (fold, call,
        the spec's raise amounts), plus the raise amounts ``extra(state)`` if given."""
        F = self.tree
        st = self.state_at(n)
        amounts = set(self.spec.raises(st))
        if extra is not None:
            amounts |= set(extra(st))
        return [int(c) for c in F.children(n) if F.action[c] < 2 or int(F.raise_to[c]) in amounts]

    def closure(self, c: int) -> list[int]:
        """``c`` and the nodes below it reached through the abstraction's actions."""
        F, out, todo = self.tree, [], [c]
        while todo:
            n = todo.pop()
            out.append(n)
            k = F.kind[n]
            if k == DECISION:
                todo.extend(self.abstract_children(n))
            elif k == CHANCE:
                todo.extend(int(x) for x in F.children(n))
        return out

    # -- the re-solve ---------------------------------------------------------------------------
    def family(self, keep: np.ndarray, root: int) -> Family:
        return family_of(self, keep, root)

    def resolve(self, d: int, c: int) -> None:
        """Re-solve at the opponent's decision ``d`` after its off-tree action to child ``c``
        (module docstring); afterwards ``c``'s subtree is in the current tree."""
        F = self.tree
        if F.kind[d] != DECISION or int(F.parent[c]) != d:
            raise CfrlabError(f"node {c} is not an action of decision {d}")
        if not self.keep[d]:
            raise CfrlabError(f"decision {d} ({F.betting[d]!r}) is not on the current tree")
        if self.keep[c]:
            return
        opp = int(F.player[d])
        me = 1 - opp
        whole = self.family(self.keep, 0)
        sigma = sigma_of(whole, self.policy, self.offsets)
        reach = forward(whole, sigma, root_reach(whole))
        loc = int(np.searchsorted(whole.nodes, d))
        at = reach[loc]
        alt = backward(whole, sigma, reach, opp, "br")[loc]
        new = self.keep.copy()
        new[self.closure(c)] = True
        fam = self.family(new, d)
        weight = cf_weight(fam, at[me], opp)
        avg = solve_family(fam, self.method, me, Ranges((at[0], at[1]), alt, weight), self.iterations,
                           average=(0, 1))
        lo, hi = c, int(self.engine.subtree_end[c])
        for m, a in avg.items():
            n = int(fam.nodes[m])
            if lo <= n < hi:
                pol, _ = normalized(a, fam.legal[m])
                dd = int(F.decision[n])
                self.policy[self.offsets[dd]:self.offsets[dd + 1]] = pol[0].reshape(-1, pol.shape[-1])
        self.keep = new
        self.resolves += 1

    def catch_up(self, betting: str, seat: int) -> int:
        """Re-solve every off-tree action of the opponent of ``seat`` on the path to the full
        tree's node of ``betting``; returns that node."""
        n = self.tree.node_of_betting.get(betting)
        if n is None:
            raise CfrlabError(f"betting {betting!r} is not a node of {self.game.name or 'this game'}")
        path = []
        x = int(n)
        while x > 0:
            path.append(x)
            x = int(self.tree.parent[x])
        for c in reversed(path):
            q = int(self.tree.parent[c])
            if self.tree.kind[q] == DECISION and int(self.tree.player[q]) != seat and not self.keep[c]:
                self.resolve(q, c)
        return int(n)

    def strategy(self) -> Strategy:
        """The current strategy as a full-game Strategy (a copy)."""
        return Strategy.from_policy(self.game, self.policy.copy(), tree=self.tree, model=self.model,
                                    algorithm=f"nested-{self.method}",
                                    extra={"abstract_bets": self.blueprint.tree.bets,
                                           "abstract_algorithm": self.blueprint.algorithm})

    # -- the agent written out against an opponent's set of actions ------------------------------
    def tabulate(self, opponent_children) -> np.ndarray:
        """Re-solve at every off-tree opponent action reachable when the opponent (each seat)
        may take ``opponent_children(node)`` (full-tree children) and the player follows its
        current strategy's support; returns the policy (the solver's own, grown)."""
        def resolved(n: int):
            kids = opponent_children(n)
            for c in kids:
                if not self.keep[c]:
                    self.resolve(n, c)
            return kids

        for seat in (0, 1):
            reachable(self.tree, seat, self.support, resolved)
        return self.policy

    def support(self, n: int, policy: np.ndarray | None = None) -> list[int]:
        """The children of decision ``n`` the policy plays with some hand."""
        return support(self.tree, self.offsets, self.policy if policy is None else policy, n)


def check_nested_method(method: str) -> str:
    m = str(method).strip().lower()
    if m not in NESTED_METHODS:
        raise CfrlabError(f"unknown nested subgame method {method!r}: choose one of {', '.join(NESTED_METHODS)}")
    return m


def reachable(F, player: int, own_children, opponent_children) -> np.ndarray:
    """bool[N]: the nodes of the full tree ``F`` reached from the root when ``player``'s
    decisions lead to ``own_children(n)``, the other seat's to ``opponent_children(n)`` and chance
    to every child; the nodes are visited in preorder, each call made as its node is reached
    (so a call may change what the later ones answer)."""
    keep = np.zeros(F.num_nodes, dtype=bool)
    keep[0] = True
    for n in range(F.num_nodes):
        if not keep[n] or F.kind[n] >= FOLD:
            continue
        if F.kind[n] == CHANCE:
            keep[F.children(n)] = True
        elif int(F.player[n]) == player:
            keep[own_children(n)] = True
        else:
            keep[opponent_children(n)] = True
    return keep


def support(tree, offsets: np.ndarray, policy: np.ndarray, n: int) -> list[int]:
    d = int(tree.decision[n])
    used = policy[offsets[d]:offsets[d + 1]].max(axis=0) > 0
    return [int(c) for c in tree.children(n) if used[tree.action[c]]]


def embed(bp, F, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(keep, policy): the blueprint's abstract tree as full-tree nodes (same betting strings)
    and its rows in the full tree's layout (columns matched by amount; off-tree rows call)."""
    A = bp.tree
    keep = np.zeros(F.num_nodes, dtype=bool)
    policy = np.zeros((int(offsets[-1]), F.num_actions))
    policy[:, 1] = 1.0
    aoff = bp.engine.row_offset
    for n in range(A.num_nodes):
        f = F.node_of_betting.get(A.betting[n])
        if f is None:
            raise CfrlabError(f"the blueprint's node {A.betting[n]!r} is not in the full game")
        keep[f] = True
        if A.kind[n] != DECISION:
            continue
        col = {int(A.action[c]): int(F.action[F.node_of_betting[A.betting[c]]]) for c in A.children(n)}
        da, df = int(A.decision[n]), int(F.decision[f])
        rows = bp.policy[aoff[da]:aoff[da + 1]]
        block = np.zeros((len(rows), F.num_actions))
        for a, b in col.items():
            block[:, b] = rows[:, a]
        policy[offsets[df]:offsets[df + 1]] = block
    return keep, policy


def family_of(h, keep: np.ndarray, root: int) -> Family:
    """The kept nodes of ``root``'s subtree (``keep`` is closed under parents) as a subgame
    family of one root over every board of the root's round; ``fam.nodes`` maps local ids to
    full-tree nodes."""
    F, e = h.tree, h.engine
    end = int(e.subtree_end[root])
    nodes = np.flatnonzero(keep[root:end]).astype(np.int64) + root
    local = {int(n): i for i, n in enumerate(nodes)}
    children = [[local[int(c)] for c in F.children(int(n)) if keep[c]] if F.kind[n] < FOLD else []
                for n in nodes]
    cols = [[int(F.action[nodes[c]]) for c in kids] for kids in children]
    kind = F.kind[nodes].copy()
    legal = np.zeros((len(nodes), F.num_actions), dtype=bool)
    for m in np.flatnonzero(kind == DECISION):
        legal[m, cols[m]] = True
    rnd = int(F.round[root])
    rounds = _round_blocks(h, rnd, (0, int(e.num_blocks(rnd))))
    fam = Family(np.array([root]), np.array([0]), kind, F.player[nodes].copy(), F.round[nodes].astype(np.int64),
                 F.action[nodes].copy(), children, F.decision[nodes].astype(np.int64)[None],
                 e.node_u[nodes][None], legal, cols, rounds)
    fam.nodes = nodes
    return fam


def sigma_of(fam: Family, policy: np.ndarray, offsets: np.ndarray) -> dict:
    """The family's decisions' rows of ``policy`` as CFR tables [children, 1, nb, H]."""
    return family_sigma(fam, policy, np.asarray(offsets))


def root_reach(fam: Family) -> tuple:
    rb = fam.rounds[int(fam.rnd[0])]
    return np.ones((1, rb.nb, rb.H)), np.ones((1, rb.nb, rb.H))


def cf_weight(fam: Family, other_reach: np.ndarray, p: int) -> np.ndarray:
    """Player p's counterfactual weight of each state at the family's root: chance times the
    other player's reach (``subgame.cut._weights``)."""
    rb = fam.rounds[int(fam.rnd[0])]
    Fb = rb.fold_at()
    out = np.empty_like(other_reach)
    for b in range(rb.nb):
        g = Fb[b % len(Fb)]
        out[:, b] = other_reach[:, b] @ g if p == 1 else other_reach[:, b] @ g.T
    return out


def restricted_best_response(h, policy: np.ndarray, opponent: int, opponent_children) -> float:
    """Seat ``opponent``'s best-response value (chips per game) against the other seat's rows
    of ``policy`` (full-tree layout) when the opponent may take only ``opponent_children(node)``
    and the player plays its rows' support: exact, the real game restricted that way."""
    F = h.tree
    offsets = np.asarray(h.engine.row_offset, dtype=np.int64)
    keep = reachable(F, 1 - opponent, lambda n: support(F, offsets, policy, n), opponent_children)
    fam = family_of(h, keep, 0)
    sigma = sigma_of(fam, policy, offsets)
    for m in sigma:  # the responder's own rows do not matter; make them well defined
        if int(fam.player[m]) == opponent:
            sigma[m] = np.full_like(sigma[m], 1.0 / len(sigma[m]))
    reach = forward(fam, sigma, root_reach(fam))
    return float(backward(fam, sigma, reach, opponent, "br")[0].sum())


def restricted_exploitability(h, policy: np.ndarray, opponent_children) -> float:
    """(BR of seat 1 against seat 0's rows + BR of seat 0 against seat 1's) / 2 in the real
    game restricted to ``opponent_children`` for the responder (chips per game)."""
    return 0.5 * sum(restricted_best_response(h, policy, o, opponent_children) for o in (0, 1))


def pot_fraction_children(solver: NestedSolver, fractions: str):
    """``opponent_children`` for the evaluation: the abstraction's sizes at the real state plus
    the bet spec ``fractions`` (e.g. ``"0.5p"``) at every decision (None: the abstraction)."""
    if fractions is None:
        return solver.abstract_children
    extra = parse_bets(fractions, solver.game)
    return lambda n: solver.abstract_children(n, extra.raises)
