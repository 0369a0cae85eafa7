"""An agent that searches as it plays (``search:`` agents): the depth-limited solves of
``subgame.depth`` run live, one board at a time.

At the first decision of a hand the agent takes its seat's solve of the game's root (the same
for every hand; solved once and kept). When play crosses that solve's depth, at the next
round's start below one of its leaves, the agent solves again on the board it sees, from its
own range there and the opponent's values the previous solve grants (``Solve.below``), and so on
to the end of the hand. Solves do not depend on the agent's own cards, so each (seat, path of
leaves and boards) is solved once and kept for later hands.

The rows it plays are those ``depth_limited_strategy(..., nested=True)`` writes out for every
situation at once (each board is independent in those solves; tested), so its exploitability
is that strategy's. With ``continual`` it also solves again at each of its own decisions
(continual re-solving; ``depth_limited_strategy(..., continual=True)``); with ``nets`` (value
networks, ``cfrlab.deep.cfvnet``) the leaves take the networks' values (DeepStack's). ``iterations`` CFR+
iterations a solve, cut short at ``seconds`` (0: no limit); play is deterministic given the
seed when the iterations finish within the budget.
"""

from __future__ import annotations

import time

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.games.agent import StrategyBackedAgent
from cfrlab.games.matchstate import MatchState
from cfrlab.strategy import Strategy
from cfrlab.subgame.agent import _enumerates, draw_action
from cfrlab.subgame.cut import blueprint_of, check_game
from cfrlab.subgame.depth import (
    DEFAULT_FACTOR,
    check_depth,
    continuations,
    root_family,
    root_ranges,
    solve_depth,
)
from cfrlab.subgame.local import families
from cfrlab.subgame.methods import Ranges, normalized
from cfrlab.subgame.resolve import check_iterations, check_method
from cfrlab.subgame.valuenet import ValueNets
from cfrlab.tree.betting_tree import CHANCE, DECISION


class SearchAgent(StrategyBackedAgent):
    """Plays ``strategy`` (a 2-player blueprint) by depth-limited search (module docstring)."""

    def __init__(self, strategy: Strategy, *, depth: int = 1, k: int = 4, factor: float = DEFAULT_FACTOR,
                 method: str = "resolve", iterations: int = 300, seconds: float = 0.0,
                 continual: bool = False, actions: int | None = None, nets: list | None = None,
                 name: str | None = None) -> None:
        if not isinstance(strategy, Strategy):
            raise CfrlabError(f"a blueprint is a Strategy, got {type(strategy).__name__}")
        game = strategy.game
        check_game(game, later_round=False)
        if not _enumerates(game):
            raise CfrlabError(f"search needs the real cards of {game.name or 'this game'} to enumerate "
                              "(Leduc, reduced decks); no-limit hold'em search is not built yet")
        self.depth, self.k, self.factor = check_depth(depth, k, factor)
        self.actions = None if actions is None else check_depth(actions, 1, factor, "actions")[0]
        self.method = check_method(method)
        self.iterations = check_iterations(iterations)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < 1e6:
            raise CfrlabError(f"the time budget must be 0 (no limit) or a positive number of seconds, got {seconds!r}")
        self.seconds = float(seconds)
        self.continual = bool(continual)
        self.strategy, self.tree = strategy, strategy.tree
        self.bp = blueprint_of(strategy, later_round=False)
        self.conts = continuations(self.bp, self.k, self.factor)
        self.values = ValueNets(self.bp, {n.round: n for n in nets}) if nets else None
        self._root = root_family(self.bp)
        self.name = name or f"{strategy.name}+search"
        self._solves: dict[tuple, object] = {}  # (seat, (node, block), ...) -> Solve
        self.log: list[tuple[int, float]] = []  # (iterations, seconds) of each solve
        if self.seconds > 0:  # a budget that cannot hold one iteration of the first solve is refused
            t0 = time.perf_counter()
            solve_depth(self.bp, self._root, root_ranges(self._root), "unsafe", 0, self.depth, self.conts, 1,
                        actions=self.actions, values=self.values)
            one = time.perf_counter() - t0
            if one > self.seconds:
                raise CfrlabError(f"a time budget of {self.seconds:g} s is below one iteration of the first "
                                  f"solve ({one:.3g} s measured, leaf values included): give more time or 0 "
                                  "(no limit)")

    def distribution(self, view: MatchState) -> np.ndarray:
        return self._row(view)[1]

    # -- the solve covering a node -------------------------------------------------------------
    def _path(self, node: int) -> list[int]:
        """The nodes from the root's child down to ``node`` (its ancestors, then itself)."""
        tree, n, out = self.tree, int(node), []
        while n > 0:
            out.append(n)
            n = int(tree.parent[n])
        return out[::-1]

    def _solve(self, key: tuple, fam, ranges: Ranges, method: str, p: int):
        got = self._solves.get(key)
        if got is None:
            t0 = time.perf_counter()
            deadline = t0 + self.seconds if self.seconds > 0 else None
            info: dict = {}
            got = solve_depth(self.bp, fam, ranges, method, p, self.depth, self.conts, self.iterations,
                              both=True, deadline=deadline, info=info, actions=self.actions, values=self.values)
            self._solves[key] = got
            self.log.append((info.get("iterations", self.iterations), time.perf_counter() - t0))
        return got

    def _covering(self, view: MatchState, node: int):
        """The solve ``node``'s rows come from, solving the chain down to it: past a solve's depth
        the next round's start on the board seen, and with ``continual`` each own decision."""
        p, bp, tree = view.position, self.bp, self.tree
        key: tuple = (p,)
        sol = self._solve(key, self._root, root_ranges(self._root), "unsafe", p)
        board = view.visible_board()
        for x in self._path(node):
            root = int(sol.fam.roots[0])
            r = int(tree.round[x])
            if tree.kind[tree.parent[x]] == CHANCE and r >= int(sol.fam.rnd[0]) + self.depth:
                child, ranges = sol.below()[x - root]
                state = int(bp.model.state_of(p, view.my_cards, board, r))
                b = state // int(bp.model.block_size[r])  # the board's block among all of round r
                (one,) = families(bp, r, np.array([x]), (b, b + 1))
                i = b - child.rounds[r].first  # among the blocks below the previous solve's board
                cut = Ranges(tuple(v[:, i:i + 1] for v in ranges.reach), ranges.alt[:, i:i + 1],
                             ranges.weight[:, i:i + 1])
                key = (*key, x, b)
                sol = self._solve(key, one, cut, self.method, p)
            elif tree.kind[x] == DECISION and (x - root) in sol.leaves.values():  # a depth in actions
                sub, ranges = sol.below()[x - root]
                key = (*key, x, "leaf")
                sol = self._solve(key, sub, ranges, self.method, p)
            elif self.continual and tree.kind[x] == DECISION and int(tree.player[x]) == p and x != root:
                sub, ranges = sol.at(x - root)
                key = (*key, x)
                sol = self._solve(key, sub, ranges, self.method, p)
        return sol

    def _row(self, view: MatchState) -> tuple[int, np.ndarray]:
        node = self.strategy.node_of(view.betting_string())
        rnd = int(self.tree.round[node])
        sol = self._covering(view, node)
        d = int(self.tree.decision[node])
        short_id = int(np.flatnonzero(sol.short.decision[0] == d)[0])  # the node in the solve's tree
        a = sol.avg.get(short_id)
        state = int(self.bp.model.state_of(view.position, view.my_cards, view.visible_board(), rnd))
        if a is not None:
            rb = sol.short.rounds[rnd]
            pol, reached = normalized(a, sol.short.legal[short_id])
            k = state - rb.first * rb.H
            if reached[0].reshape(-1)[k]:
                return node, pol[0].reshape(rb.nb * rb.H, -1)[k]
        return node, self.bp.policy[int(self.bp.engine.row_offset[d]) + state]  # never reached: the blueprint's

    def act(self, view: MatchState) -> str:
        node, probs = self._row(view)
        return draw_action(self.tree, self.rng, node, probs, view)


__all__ = ["SearchAgent"]
