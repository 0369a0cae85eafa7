"""The real-game best response's *policy*, from the real-game walk (``walk.Walker``).

CFR-BR needs, every iteration, the opponent's pure best response at every real information
set (``cfrbr``). The lossless engine's best response gives it but walks the real game as one
matrix game per round (seconds per seat on the 24-card deck cut to two rounds); the walk of
``walk`` gives both seats' best-response values in a fraction of that. ``PolicyWalker`` is that
walk against an opponent written on real cards (a lossless ``StrategyPolicy``) that also
records, at every decision and every hand, the action whose value is the maximum: the actor's
best response there, ties (to rounding) to the lowest action (fold, call, raise) as the
engine's. Every real
information set is a (decision, lossless state) pair and so one (board, hand) of the walk, so
every board is walked (no suit classes) and each row is written once.

The walk's values and the engine's agree to rounding (their sums run in other orders); an
action whose value ties another's to rounding may be picked differently, so the iterates agree
with the engine's path exactly wherever no two actions tie (tests/test_cfrbr.py).
"""

from __future__ import annotations

import numpy as np

from cfrlab.realgame import _kernels as K
from cfrlab.realgame.hands import first_round_units
from cfrlab.realgame.opponents import StrategyPolicy
from cfrlab.realgame.walk import Walker
from cfrlab.tree import DECISION


class PolicyWalker(Walker):
    """The real-game walk against a policy on real cards (``policy`` float64[rows, 3] in the
    lossless model's rows, ``row_offset`` its decisions' first rows) that also returns both
    seats' pure best responses: ``respond()`` -> (BR value of seat 0, of seat 1, in chips;
    int8[rows]: at each row, the action of the best response of the row's player)."""

    def __init__(self, game, tree, lm, policy: np.ndarray, row_offset: np.ndarray) -> None:
        super().__init__(game, tree, StrategyPolicy(lm, policy, row_offset))
        self.best = np.zeros(len(policy), dtype=np.int8)
        self._dec_nodes = [np.flatnonzero(seg.kind == DECISION) for seg in self.rounds]
        self.units = first_round_units(game, self.deck, False)
        self._orders: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        # a tie to rounding: far below any real difference (a value is at most the largest
        # stake times the number of hands)
        self.tol = 1e-12 * float(np.abs(tree.spent).max()) * self.H

    def set_policy(self, policy: np.ndarray) -> None:
        """Walk against another policy of the same rows."""
        self.opp.policy = self.policy = np.ascontiguousarray(policy, dtype=np.float64)
        self.table = K.OpponentTable(self.policy, self.row_offset)
        self._root_reach = None

    def _pass(self, r, full, board, in_reach, out_vals, scale, chance_reach, chance_vals):
        if not full:
            super()._pass(r, full, board, in_reach, out_vals, scale, chance_reach, chance_vals)
            return
        board = np.asarray(board, dtype=np.int64)
        valid = self.deck.valid(board)
        states = np.ascontiguousarray(self.opp.states(r, board, self.deck, valid), dtype=np.int64)
        if r == self.R - 1:  # the boards' rank orders do not change with the policy: kept
            key = tuple(board.tolist())
            got = self._orders.get(key)
            if got is None:
                got = self._orders[key] = self._showdown_order(board, valid)
            order, grp_end = got
        else:
            order = grp_end = np.zeros(0, dtype=np.int64)
        seg = self.rounds[r]
        best = np.zeros((len(seg.kind), self.H), dtype=np.int8)
        flow = K.Flow(in_reach, out_vals, float(scale), chance_reach, chance_vals)
        K.round_pass(True, self.segments[r], K.BoardHands(valid, self.cards, self.deck.num_hole,
                                                          self.deck.size, states),
                     self.table, flow, (order, grp_end), self.tol, best)
        dn = self._dec_nodes[r]
        idx = np.flatnonzero(valid)
        rows = self.row_offset[seg.dec[dn]][:, None] + states[idx][None, :]
        self.best[rows] = best[dn][:, idx]

    def respond(self) -> tuple[float, float, np.ndarray]:
        total = None
        for u in self.units:  # every board its own unit, summed in order
            v = self.unit_values(u)
            total = v if total is None else total + v
        b0, b1, _ = self.finish(total)
        return b0, b1, self.best
