"""The chance model of a spot: the two ranges with exact cards (docs/ENGINE.md's contract).

A player's private state is a combo of the **live** set: every combo with a positive weight in
either range (both players share one numbering, as the engine needs; a combo outside a
player's range is a state that player never holds: its rows carry no weight). On the spot's
first street the joint table is

    P[s0, s1] = w0[s0] * w1[s1] * [the two combos share no card] / Z

with Z making it sum to 1: the game's chance is "each player's hand drawn from its range, card
removal included", the convention of postflop solvers. ``w_p`` is the range of the tree's
player p (position p: the OOP player's range when ``p == spot.oop_position``).

Rounds are the game's (0 preflop .. 3 river). The spot's tree starts at ``spot.street``, so the
earlier rounds only need tables of the right size: the same n states, stored as n blocks of
one zero (nothing is reached there). A river spot has one block of n x n on the river; a turn
spot's river round has one block of n states per river card c not on the board (state
``c_index * n + k``, parent ``k``), with

    P_river[c][s0, s1] = P[s0, s1] * [c in neither combo] / 44

(44 cards are left once the turn board and both combos are out, each as likely). The showdown
table W is the river table times the sign of the hand-rank difference on the full board
(``cfrlab.cards`` evaluator). Tables are dense per block: n^2 doubles (n = 1,081 live combos,
every combo, is 9.3 MB); the engine keeps two copies of each (P^T and P: the ranges differ, so
the tables are not symmetric). No suit isomorphism: every river card is its own block.

Only full-width walks read these tables correctly: the earlier rounds' one-zero blocks are not
board blocks, so public chance sampling (``pcs``) does not apply (``solve_spot`` refuses it).
"""

from __future__ import annotations

import hashlib
from functools import cached_property

import numpy as np

from cfrlab.abstraction.model import SPOT, assemble_blocks
from cfrlab.cards.cards import card_text, cards_text
from cfrlab.cards.evaluator import rank7_batch
from cfrlab.cards.ranges import COMBOS, combo_text
from cfrlab.errors import CfrlabError
from cfrlab.spot.config import Spot

DECK = 52
TURN, RIVER = 2, 3


class SpotModel:
    """ChanceModel of a turn or river spot (module docstring).

    ``combos`` int64[n]: the live combos (indices of ``cfrlab.cards.ranges``), state k of the
    spot's first street is ``combos[k]``; ``weights`` float64[2, n]: each tree player's range
    on them; ``river_cards`` the river cards of a turn spot (one block each), empty on the river.
    """

    kind = SPOT

    def __init__(self, spot: Spot) -> None:
        self.spot = spot
        self.game = spot.tree_game()
        self.street = spot.street
        self.board = tuple(int(c) for c in spot.board)
        ranges = [spot.ranges[0 if p == spot.oop_position else 1] for p in (0, 1)]
        self.combos = np.flatnonzero((ranges[0] > 0) | (ranges[1] > 0)).astype(np.int64)
        self.weights = np.stack([r[self.combos] for r in ranges])
        n = len(self.combos)
        self.n = n
        cards = COMBOS[self.combos].astype(np.int64)
        self._cards = cards
        # card_mask[k, c]: combo k holds card c
        self._card_mask = np.zeros((n, DECK), dtype=bool)
        self._card_mask[np.arange(n)[:, None], cards] = True
        used = self._card_mask.astype(np.float64)
        self._disjoint = (used @ used.T) == 0
        joint = self.weights[0][:, None] * self.weights[1][None, :] * self._disjoint
        mass = float(joint.sum())
        if mass <= 0:
            raise CfrlabError("the two ranges have no pair of combos without a shared card")
        self.mass = mass  # sum of w0 * w1 over card-disjoint pairs
        self.joint = joint / mass  # P of the spot's first street
        on_board = np.zeros(DECK, dtype=bool)
        on_board[list(self.board)] = True
        self.river_cards = (np.flatnonzero(~on_board).astype(np.int64) if self.street == TURN
                            else np.zeros(0, dtype=np.int64))
        self._runouts = {self.street: [()]}
        for r in range(self.street + 1, RIVER + 1):
            self._runouts[r] = [ex + (c,) for ex in self._runouts[r - 1] for c in range(DECK)
                                if not on_board[c] and c not in ex]
        R = self.game.num_rounds
        self.num_states = tuple(n * len(self._runouts.get(r, [()])) for r in range(R))
        self.parent = [np.full(n, -1, dtype=np.int32)] + [self._state_parent(r) for r in range(1, R)]

    def _state_parent(self, r: int) -> np.ndarray:
        """State (block, k) of round r extends state (its block's parent, k) of round r-1."""
        if r <= self.street:
            return np.arange(self.n, dtype=np.int32)
        blocks = self.block_parent(r).astype(np.int64)
        return (blocks[:, None] * self.n + np.arange(self.n)[None, :]).reshape(-1).astype(np.int32)

    def block_extras(self, r: int) -> list[tuple[int, ...]]:
        """The cards dealt after the spot's board, per block of round r (r >= the street)."""
        return self._runouts[r]

    # -- blocks (engine fast path: kind SPOT is block structured) ---------------------------
    def _blocks_of(self, r: int) -> int:
        return len(self._runouts[r]) if r >= self.street else self.n

    def block_parent(self, r: int) -> np.ndarray:
        """int32[B_r]: the round r-1 block each round-r block extends (module docstring)."""
        B = self._blocks_of(r)
        if r == 0:
            return np.full(B, -1, dtype=np.int32)
        if r <= self.street:
            return np.arange(B, dtype=np.int32) if r < self.street else np.zeros(B, dtype=np.int32)
        index = {ex: i for i, ex in enumerate(self._runouts[r - 1])}
        return np.array([index[ex[:-1]] for ex in self._runouts[r]], dtype=np.int32)

    def _runout_block(self, extras: tuple[int, ...]) -> np.ndarray:
        """P on the board plus ``extras``: each dealt card is one of the cards left once the
        board so far and both combos are out, each as likely."""
        live = ~self._card_mask[:, list(extras)].any(axis=1)
        scale = 1.0
        for i in range(len(extras)):
            scale /= DECK - len(self.board) - i - 4
        return self.joint * (live[:, None] & live[None, :]) * scale

    def fold_blocks(self, r: int) -> tuple[np.ndarray, int]:
        """(blocks float64[K, H, H], B_r): round r's P, block diagonal."""
        if r < self.street:
            return np.zeros((1, 1, 1)), self.n
        runs = self._runouts[r]
        return np.stack([self._runout_block(ex) for ex in runs]), len(runs)

    @cached_property
    def strength(self) -> np.ndarray:
        """int32[B, n]: each live combo's hand rank on each final board (-1 where it meets the
        board: such combos have no weight there)."""
        boards = [self.board + ex for ex in self._runouts[RIVER]]
        out = np.full((len(boards), self.n), -1, dtype=np.int32)
        for b, board in enumerate(boards):
            ok = ~self._card_mask[:, list(board)].any(axis=1)
            hands = np.concatenate([self._cards[ok], np.tile(board, (int(ok.sum()), 1))], axis=1)
            out[b, ok] = rank7_batch(hands.astype(np.uint8))
        return out

    def showdown_blocks(self) -> tuple[np.ndarray, int]:
        """(blocks float64[B, n, n], B) on the river: P times the sign of rank0 - rank1."""
        fold, B = self.fold_blocks(self.game.num_rounds - 1)
        s = self.strength.astype(np.int64)
        sign = np.sign(s[:, :, None] - s[:, None, :]).astype(np.float64)
        return fold * sign, B

    # -- ChanceModel contract ----------------------------------------------------------------
    def fold_matrix(self, r: int):
        """P_r as a sparse matrix (the LP and tests read it)."""
        return assemble_blocks(*self.fold_blocks(r))

    def showdown_matrix(self):
        """W as a sparse matrix."""
        return assemble_blocks(*self.showdown_blocks())

    @cached_property
    def hash(self) -> str:
        h = hashlib.sha256(b"cfrlab-spot-v1\n")
        h.update(self.game.to_text().encode())
        h.update(repr((self.board, self.spot.oop_position)).encode())
        h.update(self.combos.tobytes() + np.ascontiguousarray(self.weights).tobytes())
        return h.hexdigest()

    def state_combo(self, r: int, s: int) -> int:
        """The combo (``cfrlab.cards.ranges`` index) of state s at round r."""
        return int(self.combos[int(s) % self.n])

    def state_board(self, r: int, s: int) -> tuple[int, ...]:
        """The board cards known at round r in state s."""
        if r > self.street:
            return self.board + self._runouts[r][int(s) // self.n]
        return self.board

    def describe_state(self, r: int, s: int) -> str:
        """``"AhKh/QsJh2h/Td/9c"``-like text: the combo, then the board by street."""
        board = self.state_board(r, s)
        parts = [cards_text(board[:3]).replace(" ", "")] + [card_text(c) for c in board[3:]]
        return combo_text(self.state_combo(r, s)) + "/" + "/".join(parts)

    def reach_weights(self, player: int, r: int | None = None) -> np.ndarray:
        """float64[num_states[r]]: the probability of each of ``player``'s (tree position)
        states at round r (default: the spot's first street) in the spot's chance: the marginal
        of P_r, card removal against the other range included."""
        joint = self.joint if player == 0 else self.joint.T
        if r is None or r <= self.street:
            return joint.sum(axis=1)
        out = []
        for ex in self._runouts[r]:
            live = ~self._card_mask[:, list(ex)].any(axis=1)
            out.append((joint @ live) * live / np.prod([DECK - len(self.board) - i - 4
                                                         for i in range(len(ex))]))
        return np.concatenate(out)

    def own_bytes(self) -> int:
        """Bytes the model keeps (its first street's P and card masks)."""
        return self.joint.nbytes + self._disjoint.nbytes + self._card_mask.nbytes

    def table_bytes(self) -> int:
        """Bytes of the engine's copies of the tables (P^T and P, W^T and -W per block)."""
        per = self.n * self.n * 8
        later = sum(len(self._runouts[r]) for r in range(self.street, RIVER + 1))
        return 2 * later * per + 2 * len(self._runouts[RIVER]) * per  # P^T, P per block; W^T, -W
