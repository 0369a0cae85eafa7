"""Built-in rule bots: always-fold, always-call, always-raise (Teddy), probe, random, value.

Each bot is an ``Agent`` (the slow, generic path: any ACPC game, reads a ``MatchState``)
and, for 2-player limit games, also a policy table for the fast match kernel
(``fast_policy(tree)``): a ``FastPolicy`` whose rows give the bot's action distribution at
each decision node. The two forms make the same decisions; the match tests check it hand
by hand.

* ``always-fold``: folds when facing a bet, checks when checking is free.
* ``always-call``: checks or calls.
* ``always-raise`` (``teddy``): raises whenever raising is legal, else calls.
* ``probe``: never folds; calls and raises with equal probability (Johanson 2007, 4.3).
* ``random``: every legal action with equal probability (no-limit: the raise amount is
  uniform between the minimum and all-in).
* ``value``: bets for value by immediate hand strength HS (the share of the opponent's
  possible holdings its hand beats now, ties half): raises when HS >= ``raise_at``, checks
  or calls when HS >= ``call_at``, otherwise folds to a bet (checks when free).
  Defaults 0.75 / 0.40; ``value:0.8,0.5`` sets both.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from cfrlab.agents.table_ranges import BettingRange
from cfrlab.cards.cards import deck
from cfrlab.cards.kernels import (
    hand_strength,
    strength_class,
    value_bot_states,
)
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.games.agent import Agent, FastPolicy
from cfrlab.games.matchstate import MatchState

# -- the generic (slow-path) bots -----------------------------------------------------------


def _min_raise(view: MatchState) -> str | None:
    for a in view.legal_actions():
        if a.startswith("r"):
            return a
    return None


def _row(legal: np.ndarray, prefer: int) -> np.ndarray:
    """One policy row: action `prefer` if legal, else call (always legal)."""
    row = np.zeros(3)
    row[prefer if legal[prefer] else 1] = 1.0
    return row


class _TableBot(Agent):
    """A bot whose limit-game play is one row per decision node, built from ``legal``."""

    def rows(self, legal: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def fast_policy(self, tree) -> FastPolicy:
        legal = np.asarray(tree.legal, dtype=bool)
        pol = np.array([self.rows(row) for row in legal], dtype=np.float64).reshape(-1, 3)
        return FastPolicy(pol, np.arange(len(legal), dtype=np.int64))

    def distribution(self, state) -> tuple[list[str], np.ndarray]:  # pragma: no cover - abstract
        """The actions ``act`` may take at ``state`` (a ``games.State`` or a ``MatchState``)
        and their probabilities, whatever the cards."""
        raise NotImplementedError

    def range_policy(self, game: GameDef) -> BettingRange:
        """The bot for every hand at once (``cfrlab.agents.table_ranges.BettingRange``)."""
        return BettingRange(game, self.distribution)


class _AlwaysBot(_TableBot):
    """Plays its action ``kind`` (f, c or r: the smallest raise) whenever it is legal, else
    checks or calls."""

    kind = "c"
    fast_policy = _TableBot.fast_policy  # act below plays exactly these rows (has_table)

    def act(self, view: MatchState) -> str:
        if self.kind == "c":  # always legal: no need to list the legal actions
            return "c"
        for a in view.legal_actions():
            if a[0] == self.kind:
                return a
        return "c"

    def rows(self, legal):
        return _row(legal, "fcr".index(self.kind))

    def distribution(self, state):
        if self.kind != "c":
            for a in state.legal_actions():
                if a[0] == self.kind:
                    return [a], np.ones(1)
        return ["c"], np.ones(1)


class AlwaysFold(_AlwaysBot):
    name = "always-fold"
    kind = "f"


class AlwaysCall(_AlwaysBot):
    name = "always-call"
    kind = "c"


class AlwaysRaise(_AlwaysBot):
    name = "always-raise"
    kind = "r"


class Probe(_TableBot):
    name = "probe"

    fast_policy = _TableBot.fast_policy  # act below plays exactly these rows (has_table)

    def act(self, view: MatchState) -> str:
        r = _min_raise(view)
        if r is None or self.rng.random() < 0.5:
            return "c"
        return r

    def rows(self, legal):
        return np.array([0.0, 0.5, 0.5]) if legal[2] else np.array([0.0, 1.0, 0.0])

    def distribution(self, state):
        r = _min_raise(state)
        return (["c"], np.ones(1)) if r is None else (["c", r], np.array([0.5, 0.5]))


class RandomBot(_TableBot):
    name = "random"

    fast_policy = _TableBot.fast_policy  # act below plays exactly these rows (has_table)

    def act(self, view: MatchState) -> str:
        legal = view.legal_actions()
        kinds = sorted({a[0] for a in legal}, key="fcr".index)
        kind = kinds[int(self.rng.integers(len(kinds)))]
        if kind != "r":
            return kind
        if view.game.is_limit:
            return "r"
        lo, hi = view.raise_range()
        return f"r{int(self.rng.integers(lo, hi + 1))}"

    def rows(self, legal):
        return legal.astype(np.float64) / legal.sum()

    def distribution(self, state):
        legal = state.legal_actions()
        kinds = sorted({a[0] for a in legal}, key="fcr".index)
        share = 1.0 / len(kinds)
        actions = [k for k in kinds if k != "r"]
        probs = np.full(len(actions), share)
        if "r" in kinds:  # limit: one raise; no-limit: every amount equally likely
            amounts = ("r",) if state.game.is_limit else _raise_texts(*state.raise_range())
            actions += amounts
            probs = np.concatenate([probs, np.full(len(amounts), share / len(amounts))])
        return actions, probs


@lru_cache(maxsize=64)
def _raise_texts(lo: int, hi: int) -> tuple[str, ...]:
    """Every no-limit raise action from ``lo`` to ``hi`` (HUNL: up to 19,901 of them)."""
    return tuple(f"r{x}" for x in range(lo, hi + 1))


# -- the bet-for-value bot ------------------------------------------------------------------


@lru_cache(maxsize=16)
def _holdings(num_ranks: int, num_suits: int, num_hole: int):
    """(combos int16[M, H], combo_id int32[K, K]) for the value bot's strength kernels."""
    if num_hole not in (1, 2):
        raise CfrlabError(f"the value bot handles games with 1 or 2 hole cards, not {num_hole}")
    cards = deck(num_ranks, num_suits)
    combos = np.array(list(combinations(cards, num_hole)), dtype=np.int16).reshape(-1, num_hole)
    size = max(cards) + 1
    combo_id = np.full((size, size), -1, dtype=np.int32)
    for m, row in enumerate(combos):
        a, b = int(row[0]), int(row[-1])
        combo_id[a, b] = combo_id[b, a] = m
    combos.setflags(write=False)
    combo_id.setflags(write=False)
    return combos, combo_id


@lru_cache(maxsize=16)
def _preflop_hs(num_ranks: int, num_suits: int, num_hole: int) -> np.ndarray:
    combos, _ = _holdings(num_ranks, num_suits, num_hole)
    empty = np.zeros(0, dtype=np.int64)
    hs = np.array([hand_strength(row.astype(np.int64), empty, combos) for row in combos])
    hs.setflags(write=False)
    return hs


class ValueBot(Agent):
    """Raise strong hands, call middling ones, fold weak ones (thresholds on HS)."""

    name = "value"

    def __init__(self, raise_at: float = 0.75, call_at: float = 0.40) -> None:
        if not 0.0 <= call_at <= raise_at <= 1.0:
            raise CfrlabError(f"value bot thresholds need 0 <= call <= raise <= 1, got raise {raise_at}, call {call_at}")
        self.raise_at = float(raise_at)
        self.call_at = float(call_at)
        if (self.raise_at, self.call_at) != (0.75, 0.40):
            self.name = f"value:{self.raise_at:g},{self.call_at:g}"

    def strength(self, game: GameDef, hole, board) -> float:
        if not board:
            combos, combo_id = _holdings(game.num_ranks, game.num_suits, game.num_hole_cards)
            m = combo_id[hole[0], hole[-1]]
            return float(_preflop_hs(game.num_ranks, game.num_suits, game.num_hole_cards)[m])
        combos, _ = _holdings(game.num_ranks, game.num_suits, game.num_hole_cards)
        return float(hand_strength(np.asarray(hole, np.int64), np.asarray(board, np.int64), combos))

    def act(self, view: MatchState) -> str:
        hs = self.strength(view.game, view.my_cards, view.visible_board())
        cls = strength_class(hs, self.raise_at, self.call_at)
        legal = view.legal_actions()
        if cls == 2:
            return _min_raise(view) or "c"
        if cls == 1 or "f" not in legal:
            return "c"
        return "f"

    def fast_policy(self, tree) -> FastPolicy:
        game = tree.game
        legal = np.asarray(tree.legal, dtype=bool)
        rows = [np.stack([_row(lg, 0), _row(lg, 1), _row(lg, 2)]) for lg in legal]
        pol = np.concatenate(rows).astype(np.float64) if rows else np.zeros((0, 3))
        combos, combo_id = _holdings(game.num_ranks, game.num_suits, game.num_hole_cards)
        pre = _preflop_hs(game.num_ranks, game.num_suits, game.num_hole_cards)
        board_end = np.array([game.total_board_cards(r) for r in range(game.num_rounds)], dtype=np.int64)
        raise_at, call_at, hole = self.raise_at, self.call_at, game.num_hole_cards

        def states(deals: np.ndarray) -> np.ndarray:
            return value_bot_states(deals, hole, board_end, combos, combo_id, pre, raise_at, call_at)

        def card_class(hole_cards, board) -> int:
            return int(strength_class(self.strength(game, hole_cards, board), raise_at, call_at))

        return FastPolicy(pol, 3 * np.arange(len(legal), dtype=np.int64), states,
                          card_class=card_class)


BOTS: dict[str, type[Agent]] = {
    "always-fold": AlwaysFold,
    "always-call": AlwaysCall,
    "always-raise": AlwaysRaise,
    "teddy": AlwaysRaise,
    "probe": Probe,
    "random": RandomBot,
    "value": ValueBot,
}
