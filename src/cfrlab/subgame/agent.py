"""An agent that plays a blueprint and re-solves each subgame it reaches (``subgame:`` agents).

Before the subgame's round it plays the blueprint's row for its cards, as a strategy agent
does (same rows, same draws from its generator). At its first decision of that round in a
hand it re-solves the subgame once, on the actual board and the public history so far, for
its own seat, and plays the re-solved strategy's rows for its hand until the hand ends.

* A game whose real cards enumerate (Leduc, reduced decks): the blueprint is cut once at
  creation (``cut``) and the subgame is the cut's root on the board's block, re-solved as
  ``resolve_root`` does (every board block of later rounds kept, for turn or flop subgames).
* A game too large to enumerate (heads-up limit hold'em): the last round only, built directly
  on the board (``river.river_subgame``); ``reach`` needs the blueprint's gifts, which come
  from a walk of the whole game, and is refused.

``iterations`` CFR+ iterations per re-solve, cut short at ``seconds`` (0: no limit) so that an
ACPC client answers within its time limit; play is deterministic given the seed whenever the
iterations finish within the budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from cfrlab.abstraction import LosslessModel
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.games.agent import StrategyBackedAgent
from cfrlab.games.matchstate import MatchState
from cfrlab.strategy import Strategy
from cfrlab.subgame.cut import blueprint_of, check_game, cut
from cfrlab.subgame.local import families
from cfrlab.subgame.methods import normalized, solve_family
from cfrlab.subgame.resolve import _ranges, check_iterations, check_method, subgame_round
from cfrlab.subgame.river import river_subgame
from cfrlab.tree.betting_tree import CHANCE

ACTIONS = "fcr"
DEFAULT_SECONDS = 2.0


@dataclass
class Solved:
    """One hand's re-solve: {decision index: (rows float64[n, A], reached bool[n], the state of
    the first row)}, the iterations run, and (on a board of real cards) the own hand's row."""

    key: tuple
    rows: dict
    iterations: int
    seconds: float
    hand: int | None = None


class SubgameAgent(StrategyBackedAgent):
    """Plays ``strategy`` (a 2-player blueprint) and re-solves the subgames starting at ``round``
    ("river"/"last", "turn", "flop" or a number) by ``method`` (unsafe, resolve, maxmargin,
    reach) with ``iterations`` of CFR+ in at most ``seconds`` (0: no limit) per subgame."""

    def __init__(self, strategy: Strategy, round: int | str = "river", method: str = "resolve", *,
                 iterations: int = 300, seconds: float = DEFAULT_SECONDS, name: str | None = None) -> None:
        if not isinstance(strategy, Strategy):
            raise CfrlabError(f"a blueprint is a Strategy, got {type(strategy).__name__}")
        game = strategy.game
        check_game(game)
        self.method = check_method(method)
        self.iterations = check_iterations(iterations)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < 1e6:
            raise CfrlabError(f"the time budget must be 0 (no limit) or a positive number of seconds, got {seconds!r}")
        self.seconds = float(seconds)
        self.round = subgame_round(game, round)
        self.strategy, self.tree, self.model = strategy, strategy.tree, strategy.model
        self.offsets = np.asarray(strategy.row_offset, dtype=np.int64)
        self.name = name or f"{strategy.name}+{self.method}"
        self.cut = None
        if _enumerates(game):
            self.cut = cut(blueprint_of(strategy), self.round)
        else:
            if self.round != game.num_rounds - 1:
                raise CfrlabError(f"{game.name or 'this game'} is too large to enumerate: re-solving "
                                  "takes its last round (river) only")
            if self.method == "reach":
                raise CfrlabError(f"reach subgame solving needs the blueprint's gifts from a walk of the whole "
                                  f"game, too large in {game.name or 'this game'}; use resolve, maxmargin or unsafe")
        self._solved: Solved | None = None
        self.log: list[tuple[int, float]] = []  # (iterations, seconds) of each re-solve

    def begin_match(self, game: GameDef, seed: int | None = None) -> None:
        super().begin_match(game, seed)
        self._solved = None

    # -- rows --------------------------------------------------------------------------------
    def distribution(self, view: MatchState) -> np.ndarray:
        """The row played at this view: the blueprint's before the subgame, the re-solve's in it."""
        return self._row(view)[1]

    def _row(self, view: MatchState) -> tuple[int, np.ndarray]:
        node = self.strategy.node_of(view.betting_string())
        rnd = int(self.tree.round[node])
        d = int(self.tree.decision[node])
        if rnd >= self.round:
            row = self._resolved_row(view, node, rnd, d)
            if row is not None:
                return node, row
        state = int(self.model.state_of(view.position, view.my_cards, view.visible_board(), rnd))
        return node, self.strategy.policy[self.offsets[d] + state]

    def _resolved_row(self, view: MatchState, node: int, rnd: int, d: int) -> np.ndarray | None:
        root = self._root(node)
        board = view.visible_board()
        nb = self.game.total_board_cards(self.round)
        key = (view.hand_number, view.position, root, tuple(board[:nb]), tuple(view.my_cards))
        if self._solved is None or self._solved.key != key:
            self._solved = self._solve(key, root, view)
        got = self._solved.rows.get(d)
        if got is None:
            return None
        rows, reached, first = got
        if self.cut is not None:
            k = self.cut.blueprint.model.state_of(view.position, view.my_cards, board, rnd) - first
        else:
            k = self._solved.hand
        return rows[k] if reached[k] else None  # a row the re-solve never reached: the blueprint's

    def _root(self, node: int) -> int:
        """The decision node starting the subgame's round above ``node``."""
        tree, n = self.tree, int(node)
        while int(tree.round[n]) > self.round or tree.kind[tree.parent[n]] != CHANCE:
            n = int(tree.parent[n])
        return n

    # -- re-solving --------------------------------------------------------------------------
    def _solve(self, key: tuple, root: int, view: MatchState) -> Solved:
        t0 = time.perf_counter()
        deadline = t0 + self.seconds if self.seconds > 0 else None
        p = view.position
        info: dict = {}
        if self.cut is not None:
            rows = self._solve_cut(root, view, p, deadline, info)
            hand = None
        else:
            rows, hand = self._solve_board(root, view, p, deadline, info)
        dt = time.perf_counter() - t0
        self.log.append((info.get("iterations", 0), dt))
        return Solved(key, rows, info.get("iterations", 0), dt, hand)

    def _solve_cut(self, root: int, view: MatchState, p: int, deadline, info) -> dict:
        c = self.cut
        bp = c.blueprint
        k = c.root_index(root)
        state = bp.model.state_of(p, view.my_cards, view.visible_board(), self.round)
        block = int(state) // int(bp.model.block_size[self.round])
        (fam,) = families(bp, self.round, c.roots[[k]], (block, block + 1))
        fam.index = np.array([k])
        avg = solve_family(fam, self.method, p, _ranges(c, fam, self.method, 1 - p), self.iterations,
                           deadline=deadline, info=info)
        return self._rows(fam, avg, p)

    def _solve_board(self, root: int, view: MatchState, p: int, deadline, info) -> tuple[dict, int]:
        sub = river_subgame(self.strategy, root, view.visible_board(), 1 - p)
        hand = sub.hand_index(view.my_cards)
        avg = solve_family(sub.family, self.method, p, sub.ranges, self.iterations,
                           deadline=deadline, info=info)
        return self._rows(sub.family, avg, p), hand

    @staticmethod
    def _rows(fam, avg: dict, p: int) -> dict:
        out = {}
        for lm, a in avg.items():
            if fam.player[lm] != p:
                continue
            rb = fam.rounds[int(fam.rnd[lm])]
            pol, reached = normalized(a, fam.legal[lm])
            out[int(fam.decision[0, lm])] = (pol[0].reshape(rb.nb * rb.H, -1), reached[0].reshape(-1),
                                             rb.first * rb.H)
        return out

    # -- acting ------------------------------------------------------------------------------
    def act(self, view: MatchState) -> str:
        node, probs = self._row(view)
        return draw_action(self.tree, self.rng, node, probs, view)


def draw_action(tree, rng, node: int, probs: np.ndarray, view: MatchState) -> str:
    """An action drawn from ``probs`` (the tree's columns at ``node``) among the legal ones: its
    ACPC text (a raise's amount in a no-limit tree); a call when none has weight."""
    if tree.num_actions != 3:  # a no-limit tree: columns are raise sizes
        legal = np.flatnonzero(tree.legal[int(tree.decision[node])])
        p = probs[legal]
        if p.sum() <= 0:
            return "c"
        a = int(legal[int(rng.choice(len(legal), p=p / p.sum()))])
        return tree.action_text(node, a)
    legal = [ACTIONS.index(a[0]) for a in view.legal_actions()]
    p = np.array([probs[a] if a in legal else 0.0 for a in range(3)])
    total = p.sum()
    if total <= 0:
        return "c"
    return ACTIONS[int(rng.choice(3, p=p / total))]


def _enumerates(game: GameDef) -> bool:
    """Whether the game's lossless model can be built (its real cards enumerate)."""
    try:
        LosslessModel(game)
    except CfrlabError:
        return False
    return True


__all__ = ["SubgameAgent", "draw_action"]
