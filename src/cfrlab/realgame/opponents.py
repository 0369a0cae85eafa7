"""What the real-game best response asks of the strategy it plays against: batch queries.

A ``BatchPolicy`` answers, for a round and a real board, the private state of every hand at
once (``states``), and holds the action table those states index: ``policy`` float64[rows, 3]
(fold, call, raise) with ``row_offset[d]`` the first row of decision node d, so the
distribution of hand i at decision d on that board is ``policy[row_offset[d] + states[i]]``.
Both seats play the same table (a strategy is a profile).

* ``StrategyPolicy``: a strategy file's policy read through its chance model: bucket
  sequences of an abstraction (suit-symmetric: the abstraction indexes canonical hands), or
  lossless hole + board states (not assumed symmetric).
* ``TablePolicy``: card-independent agents (the built-in bots): one row per decision node.
* A Python agent opts in by defining ``batch_policy(tree) -> BatchPolicy``.

``suit_symmetric`` tells the walk whether suit-isomorphic boards may share one computation.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from cfrlab.abstraction import BUCKETED, LOSSLESS
from cfrlab.errors import CfrlabError
from cfrlab.games.agent import Agent, has_table
from cfrlab.realgame import _kernels as K
from cfrlab.strategy import Strategy


@runtime_checkable
class BatchPolicy(Protocol):
    kind: str
    suit_symmetric: bool
    policy: np.ndarray
    row_offset: np.ndarray

    def states(self, round: int, board, deck, valid) -> np.ndarray: ...




_NONE = np.zeros(0, np.int64)


class StrategyPolicy:
    """A policy table in a chance model's private states (bucketed or lossless)."""

    def __init__(self, model, policy: np.ndarray, row_offset: np.ndarray) -> None:
        if model.kind not in (BUCKETED, LOSSLESS):
            raise CfrlabError(f"a {model.kind} chance model does not map real cards to its "
                              "states; the real-game best response needs bucketed or lossless")
        self.model = model
        self.kind = str(model.kind)
        self.suit_symmetric = model.kind == BUCKETED
        self.policy = np.ascontiguousarray(policy, dtype=np.float64)
        self.row_offset = np.ascontiguousarray(row_offset, dtype=np.int64)
        if model.kind == BUCKETED:
            self._lookup = model._lookup  # the state-lookup tables (``StateLookup``)
        self._before_last = (None, None)  # (board, states) of the last query of round R - 2

    @classmethod
    def from_strategy(cls, strategy: Strategy) -> StrategyPolicy:
        return cls(strategy.model, strategy.policy, strategy.row_offset)

    def states(self, round: int, board, deck, valid) -> np.ndarray:
        H = deck.num_hands
        board = np.asarray(board, dtype=np.int64)
        if self.kind == BUCKETED:
            out = np.zeros(H, dtype=np.int64)
            R = self._lookup.R
            seen, prev = self._before_last
            if (R > 1 and round == R - 1 and seen is not None
                    and np.array_equal(board[:len(seen)], seen)):
                # the walk asks for every last-round board below the board it asked for
                # just before: the states so far are known, only the last round is new
                K.bucket_states(deck.hands, board, valid, round, self._lookup, prev, out)
                return out
            K.bucket_states(deck.hands, board, valid, round, self._lookup, _NONE, out)
            if R > 1 and round == R - 2:
                self._before_last = (board.copy(), out.copy())
            return out
        # lossless: state = board block * H_r + index of the hole among the cards left
        m = self.model
        hands = deck.hands[valid]
        out = np.zeros(H, dtype=np.int64)
        if len(hands):
            bpos = np.broadcast_to(board, (len(hands), len(board)))
            out[valid] = m.hole_states(hands, bpos, round)  # deck positions = local ids
        return out


class TablePolicy:
    """An agent whose action distribution depends on the betting only."""

    kind = "table"
    suit_symmetric = True

    def __init__(self, policy: np.ndarray, row_offset: np.ndarray) -> None:
        self.policy = np.ascontiguousarray(policy, dtype=np.float64)
        self.row_offset = np.ascontiguousarray(row_offset, dtype=np.int64)

    def states(self, round: int, board, deck, valid) -> np.ndarray:
        return np.zeros(deck.num_hands, dtype=np.int64)


def batch_policy_of(opponent, tree) -> BatchPolicy:
    """A ``BatchPolicy`` for a Strategy, a BatchPolicy, or an agent that is card-independent
    (a built-in bot) or implements ``batch_policy(tree)``."""
    if isinstance(opponent, Strategy):
        if opponent.game.to_text() != tree.game.to_text():
            raise CfrlabError("the strategy was made for another game")
        return StrategyPolicy.from_strategy(opponent)
    if isinstance(opponent, BatchPolicy):
        return opponent
    bp = opponent.batch_policy(tree) if isinstance(opponent, Agent) else None
    if bp is not None:
        return bp
    fp = opponent.fast_policy(tree) if isinstance(opponent, Agent) and has_table(opponent) else None
    if fp is not None:
        if fp.states is None:
            return TablePolicy(fp.policy, np.asarray(fp.offsets, dtype=np.int64))
        if fp.model is not None and fp.model.kind in (BUCKETED, LOSSLESS):
            return StrategyPolicy(fp.model, fp.policy, fp.offsets)
    name = getattr(opponent, "name", type(opponent).__name__)
    raise CfrlabError(
        f"{name}: the real-game best response needs batch queries; give the agent a method "
        "batch_policy(tree) returning an object with policy (float64[rows, 3]), row_offset "
        "(first row of each decision node), suit_symmetric, and states(round, board, deck, "
        "valid) -> int64 state of every hand on that board (cfrlab.realgame.BatchPolicy)")
