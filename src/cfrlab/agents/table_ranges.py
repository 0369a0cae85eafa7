"""``RangePolicy`` (``cfrlab.agents.ranges``) of the agents whose play is a table: the bots and
strategies whose betting tree holds the real actions.

* ``BettingRange``: a card-independent agent (always-fold, always-call, always-raise, probe,
  random): one path, and every hand's row is the agent's distribution at the state
  (``distribution(state) -> (actions, probabilities)``, a view broadcast over the hands, so
  the random bot's every raise amount of a no-limit game costs one row).
* ``TreeRange``: a ``Strategy`` played as it is (``StrategyAgent``): the path is the
  strategy's tree node (its DECISION node, chance nodes skipped), the rows are the policy's
  rows for every hand's private state on the board (the chance model maps a batch of deals at
  once). An action the tree does not hold (an off-tree raise) is refused: such an opponent
  needs action translation, whose range policy follows its own paths.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb

import numpy as np

from cfrlab.agents.ranges import hands
from cfrlab.cards.cards import deck
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, State
from cfrlab.strategy import Strategy
from cfrlab.tree import CHANCE, DECISION

Distribution = Callable[[State], tuple[list[str], np.ndarray]]


class BettingRange:
    """The range policy of an agent whose play depends on the betting only."""

    def __init__(self, game: GameDef, distribution: Distribution) -> None:
        self.num_hands = comb(game.num_ranks * game.num_suits, game.num_hole_cards)
        self.distribution = distribution

    def root(self, position: int) -> list[tuple[None, float]]:
        return [(None, 1.0)]

    def probs(self, path, state: State, board) -> tuple[list[str], np.ndarray]:
        actions, p = self.distribution(state)
        return actions, np.broadcast_to(np.asarray(p, dtype=np.float64), (self.num_hands, len(actions)))

    def advance(self, path, state: State, action: str) -> list[tuple[None, float]]:
        return [(None, 1.0)]


def hand_states(model, game: GameDef, r: int, board) -> np.ndarray:
    """int64[H]: the private state in round r of every hand of ``ranges.hands(game)`` on
    ``board`` (ACPC ids), -1 for hands that meet it; vectorized through the chance model's
    ``deal_states_batch``: each hand is completed by filler cards (the other seat's hand and
    the board to come), which a round-r state does not read."""
    h = game.num_hole_cards
    cards = np.array(hands(game), dtype=np.int64).reshape(-1, h)
    full = np.array(sorted(deck(game.num_ranks, game.num_suits)), dtype=np.int64)
    b = np.array([int(c) for c in board], dtype=np.int64)
    valid = ~np.isin(cards, b).any(axis=1)
    mine = cards[valid]
    need = h + game.total_board_cards() - len(b)  # the other hand and the board to come
    cand = full[~np.isin(full, b)][:need + h]
    keep = ~(cand[None, :, None] == mine[:, None, :]).any(axis=2)
    fill = cand[np.argsort(~keep, axis=1, kind="stable")[:, :need]]
    deals = np.concatenate([mine, fill[:, :h], np.broadcast_to(b, (len(mine), len(b))), fill[:, h:]], axis=1)
    out = np.full(len(cards), -1, dtype=np.int64)
    if len(mine):
        out[valid] = np.asarray(model.deal_states_batch(deals))[:, 0, r]
    return out


class TreeRange:
    """The range policy of ``strategy`` played as it is (greedy: each row's most likely
    action, ties to the first column), in ``game`` (its own game)."""

    def __init__(self, strategy: Strategy, game: GameDef, greedy: bool = False) -> None:
        if strategy.game.to_text() != game.to_text():
            raise CfrlabError(f"the strategy is for {strategy.game.name or 'another game'}, not for "
                              f"{game.name or 'this game'}")
        self.game, self.tree, self.model = game, strategy.tree, strategy.model
        self.policy = strategy.policy
        self.offsets = np.asarray(strategy.row_offset, dtype=np.int64)
        self.greedy = bool(greedy)
        self.cards = np.array(hands(game), dtype=np.int64).reshape(-1, game.num_hole_cards)
        self.deck = np.array(sorted(deck(game.num_ranks, game.num_suits)), dtype=np.int64)
        self._states: dict[tuple, np.ndarray] = {}
        self._moves: dict[int, tuple[list[str], np.ndarray]] = {}

    def _settle(self, node: int) -> int:
        """The node where the tree next decides (chance nodes skipped)."""
        tree = self.tree
        while int(tree.kind[node]) == CHANCE:
            node = int(tree.child[tree.first_child[node]])
        return node

    def root(self, position: int) -> list[tuple[int, float]]:
        return [(self._settle(0), 1.0)]

    def moves(self, node: int) -> tuple[list[str], np.ndarray]:
        """(ACPC actions, their columns) at decision ``node``."""
        got = self._moves.get(node)
        if got is None:
            cols = np.flatnonzero(self.tree.legal[int(self.tree.decision[node])])
            got = ([self.tree.action_text(node, int(c)) for c in cols], cols)
            self._moves[node] = got
        return got

    def hand_states(self, r: int, board) -> np.ndarray:
        """int64[H]: every hand's private state in round r on ``board`` (ACPC ids; hands that
        meet it: 0)."""
        key = (r, tuple(int(c) for c in board))
        got = self._states.get(key)
        if got is None:
            got = self._states[key] = np.maximum(hand_states(self.model, self.game, r, key[1]), 0)
        return got

    def probs(self, node: int, state: State, board) -> tuple[list[str], np.ndarray]:
        actions, cols = self.moves(node)
        d = int(self.tree.decision[node])
        rows = self.policy[self.offsets[d] + self.hand_states(int(self.tree.round[node]), board)]
        p = rows[:, cols]
        if self.greedy:
            one = np.zeros_like(p)
            one[np.arange(len(p)), np.argmax(p, axis=1)] = 1.0
            p = one
        return actions, p

    def advance(self, node: int, state: State, action: str) -> list[tuple[int, float]]:
        if int(self.tree.kind[node]) != DECISION:
            raise CfrlabError(f"the strategy's tree has no decision at {state.betting_string()!r}")
        actions, cols = self.moves(node)
        if action not in actions:
            raise CfrlabError(
                f"{action!r} after {state.betting_string()!r} is not an action of the strategy's "
                f"betting tree ({self.tree.bets}): an off-tree action needs action translation")
        child = self.tree.child_by_action(node, int(cols[actions.index(action)]))
        return [(self._settle(child), 1.0)]
