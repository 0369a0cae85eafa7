"""Lossless private states (hole cards + board) and their joint chance tables, by enumeration.

A player's private state at round r is (board sequence up to r, own hole cards). States are
grouped in **blocks**, one per board sequence (the public cards), and numbered

    state = block * H_r + k,    H_r = C(m_r, numHoleCards),  m_r = deck size - board cards so far

where k is the lexicographic index of the hole cards among the m_r cards left after the board
(both players use the same numbering). Boards are numbered lexicographically round by round,
so ``block_parent(r)[b] = b // C(m_{r-1}, numBoardCards[r])``.

Because every deal is equally likely, the joint table of round r is block diagonal with one
shared block: ``P_r = c_r * blockdiag(C_r, ..., C_r)`` where ``C_r[k0, k1] = 1`` when the two
hole sets are disjoint and ``c_r = 1 / (B_r * H_r * C(m_r - h, h))``. The showdown table W has
one block per final board: ``c * sign(strength0 - strength1) * C``.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from itertools import combinations
from math import comb

import numpy as np

from cfrlab.cards.cards import card_text, deck
from cfrlab.cards.evaluator import rank_hand
from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef

DENSE_LIMIT = 2048  # fold_matrix / showdown_matrix are dense up to this many states, else CSR
MAX_STATES = 5_000_000  # refuse decks whose lossless state count is out of reach


def _combos(m: int, k: int) -> np.ndarray:
    """All k-subsets of range(m) in lexicographic order, shape (C(m, k), k)."""
    out = np.array(list(combinations(range(m), k)), dtype=np.int64)
    return out.reshape(comb(m, k), k)


def _rank_table(m: int, k: int) -> np.ndarray:
    """table[p0, ..., pk-1] = lexicographic index of the sorted subset (p0 < ... < pk-1)."""
    table = np.full((m,) * k if k else (1,), -1, dtype=np.int64)
    cs = _combos(m, k)
    if k:
        table[tuple(cs.T)] = np.arange(len(cs))
    else:
        table[0] = 0
    return table


class LosslessModel:
    """ChanceModel (docs/ENGINE.md) of an enumerable 2-player game: hole cards + board.

    Beyond the contract it exposes the block structure the engine uses for speed and for
    public chance sampling: ``num_blocks[r]``, ``block_size[r]``, ``block_parent(r)``,
    ``fold_blocks(r)`` and ``showdown_blocks()``.
    """

    def __init__(self, game: GameDef) -> None:
        if game.num_players != 2:
            raise CfrlabError(f"lossless states need a 2-player game, got {game.num_players} players")
        self.game = game
        self._cards = np.array(deck(game.num_ranks, game.num_suits), dtype=np.int64)
        D, h, R = len(self._cards), game.num_hole_cards, game.num_rounds
        self._boards: list[np.ndarray] = []  # per round (B_r, nb_r) deck positions
        self._rest: list[np.ndarray] = []  # per round (B_r, m_r) deck positions left, ascending
        self._hole_local = []  # per round (H_r, h) positions within the rest
        self.num_blocks: tuple[int, ...]
        self.block_size: tuple[int, ...]
        self._new_combos: list[int] = []
        boards = np.zeros((1, 0), dtype=np.int64)
        blocks, sizes = [], []
        for r in range(R):
            nb = game.num_board_cards[r]
            rest_prev = self._rest_of(boards, D)
            m_prev = rest_prev.shape[1]
            new = _combos(m_prev, nb)  # new board cards as positions within the previous rest
            self._new_combos.append(len(new))
            if nb:
                picked = rest_prev[:, new]  # (B_prev, C, nb)
                boards = np.concatenate(
                    [np.repeat(boards, len(new), axis=0), picked.reshape(-1, nb)], axis=1)
            rest = self._rest_of(boards, D)
            m = rest.shape[1]
            if m < 2 * h:
                raise CfrlabError("the deck is too small for two players' hole cards")
            H = comb(m, h)
            if len(boards) * H > MAX_STATES:
                raise CfrlabError(
                    f"round {r} would have {len(boards) * H:,} lossless private states; "
                    "this game is too large to enumerate (use a bucketed abstraction)")
            self._boards.append(boards)
            self._rest.append(rest)
            self._hole_local.append(_combos(m, h))
            blocks.append(len(boards))
            sizes.append(H)
        self.num_blocks = tuple(blocks)
        self.block_size = tuple(sizes)
        self.num_states = tuple(b * s for b, s in zip(blocks, sizes))
        self.parent = [self._parent_map(r) for r in range(R)]

    # -- enumeration helpers --------------------------------------------------------------
    @staticmethod
    def _rest_of(boards: np.ndarray, D: int) -> np.ndarray:
        used = np.zeros((len(boards), D), dtype=bool)
        if boards.shape[1]:
            np.put_along_axis(used, boards, True, axis=1)
        return np.nonzero(~used)[1].reshape(len(boards), -1)

    def _hole_positions(self, r: int) -> np.ndarray:
        """(B_r, H_r, h) deck positions of every state's hole cards."""
        rest = self._rest[r]
        return rest[:, self._hole_local[r]]

    def _parent_map(self, r: int) -> np.ndarray:
        if r == 0:
            return np.full(self.num_states[0], -1, dtype=np.int32)
        pb = np.arange(self.num_blocks[r]) // self._new_combos[r]
        pos = self._hole_positions(r)  # (B, H, h)
        pboards = self._boards[r - 1][pb]  # (B, nb_prev)
        below = (pboards[:, None, None, :] < pos[..., None]).sum(axis=-1)
        local = pos - below  # positions within the parent's rest
        table = _rank_table(self._rest[r - 1].shape[1], self.game.num_hole_cards)
        k_parent = table[tuple(np.moveaxis(local, -1, 0))]
        return (pb[:, None] * self.block_size[r - 1] + k_parent).reshape(-1).astype(np.int32)

    # -- block structure (engine fast path) -----------------------------------------------
    def block_parent(self, r: int) -> np.ndarray:
        """int32[B_r]: the round r-1 block (board sequence) each round-r block extends (-1 at r=0)."""
        if r == 0:
            return np.full(self.num_blocks[0], -1, dtype=np.int32)
        return (np.arange(self.num_blocks[r]) // self._new_combos[r]).astype(np.int32)

    @cached_property
    def _disjoint(self) -> list[np.ndarray]:
        out = []
        for r in range(self.game.num_rounds):
            loc = self._hole_local[r]
            m = self._rest[r].shape[1]
            onehot = np.zeros((len(loc), m), dtype=np.int64)
            np.put_along_axis(onehot, loc, 1, axis=1)
            out.append((onehot @ onehot.T) == 0)
        return out

    def _pair_weight(self, r: int) -> float:
        """Probability of one (board sequence, hole0, hole1) combination at round r."""
        m, h = self._rest[r].shape[1], self.game.num_hole_cards
        return 1.0 / (self.num_blocks[r] * comb(m, h) * comb(m - h, h))

    def fold_blocks(self, r: int) -> tuple[np.ndarray, int]:
        """(blocks float64[1, H_r, H_r], B_r): P_r is block diagonal with this block B_r times."""
        blk = self._disjoint[r].astype(np.float64) * self._pair_weight(r)
        return blk[None], self.num_blocks[r]

    @cached_property
    def strength(self) -> np.ndarray:
        """int64[num_states[-1]]: showdown rank (rank_hand) of each final-round state."""
        R = self.game.num_rounds - 1
        holes = self._hole_positions(R)
        boards = self._boards[R]
        B, H = holes.shape[:2]
        out = np.empty((B, H), dtype=np.int64)
        cards = self._cards
        for b in range(B):
            board = [int(c) for c in cards[boards[b]]]
            for k in range(H):
                out[b, k] = rank_hand([int(c) for c in cards[holes[b, k]]] + board)
        return out.reshape(-1)

    def showdown_blocks(self) -> tuple[np.ndarray, int]:
        """(blocks float64[B, H, H], B) on the last round: W is block diagonal with these."""
        R = self.game.num_rounds - 1
        B, H = self.num_blocks[R], self.block_size[R]
        s = self.strength.reshape(B, H)
        sign = np.sign(s[:, :, None] - s[:, None, :]).astype(np.float64)
        return sign * self._disjoint[R][None] * self._pair_weight(R), B

    # -- ChanceModel contract --------------------------------------------------------------
    @staticmethod
    def _assemble(blocks: np.ndarray, B: int):
        K, H, _ = blocks.shape
        n = B * H
        if n <= DENSE_LIMIT:
            out = np.zeros((n, n))
            for b in range(B):
                out[b * H:(b + 1) * H, b * H:(b + 1) * H] = blocks[b % K]
            return out
        import scipy.sparse as sp

        return sp.block_diag([blocks[b % K] for b in range(B)], format="csr")

    def fold_matrix(self, r: int):
        """P_r (n_r x n_r): joint probability of the two players' round-r states."""
        return self._assemble(*self.fold_blocks(r))

    def showdown_matrix(self):
        """W on the last round: sum over deals of P(deal) * (+1 if 0 wins, -1 if 1 wins)."""
        return self._assemble(*self.showdown_blocks())

    @cached_property
    def hash(self) -> str:
        return hashlib.sha256(("cfrlab-lossless-v1\n" + self.game.to_text()).encode()).hexdigest()

    def _position_of(self, card: int) -> int:
        where = np.flatnonzero(self._cards == int(card))
        if not len(where):
            raise CfrlabError(f"{card_text(int(card))} is not in this game's deck")
        return int(where[0])

    def state_of(self, position: int, hole, board, round: int) -> int:
        """Private state at `round` of a player holding `hole` with ACPC-ordered `board`."""
        del position  # both players share the numbering
        g = self.game
        nb = g.total_board_cards(round)
        if len(hole) != g.num_hole_cards or len(board) < nb:
            raise CfrlabError(f"round {round} needs {g.num_hole_cards} hole card(s) and {nb} board card(s)")
        block, start = 0, 0
        seen: list[int] = []
        for r in range(round + 1):
            cnt = g.num_board_cards[r]
            rest = [p for p in range(len(self._cards)) if p not in seen]
            new = sorted(rest.index(self._position_of(c)) for c in board[start:start + cnt])
            block = block * self._new_combos[r] + int(_rank_table(len(rest), cnt)[tuple(new)] if cnt else 0)
            seen += [self._position_of(c) for c in board[start:start + cnt]]
            start += cnt
        rest = [p for p in range(len(self._cards)) if p not in seen]
        try:
            local = sorted(rest.index(self._position_of(c)) for c in hole)
        except ValueError:
            raise CfrlabError("hole cards overlap the board") from None
        if len(set(local)) != len(local):
            raise CfrlabError("repeated hole card")
        k = int(_rank_table(len(rest), g.num_hole_cards)[tuple(local)])
        return block * self.block_size[round] + k

    def deal_states(self, deal) -> np.ndarray:
        """int32[2, R]: each player's state per round for a deal (holes by position, then board)."""
        g = self.game
        h = g.num_hole_cards
        holes = [list(deal[0:h]), list(deal[h:2 * h])]
        board = list(deal[2 * h:])
        out = np.empty((2, g.num_rounds), dtype=np.int32)
        for r in range(g.num_rounds):
            for p in range(2):
                out[p, r] = self.state_of(p, holes[p], board, r)
        return out

    def state_cards(self, r: int, s: int) -> tuple[list[int], list[int]]:
        """(hole card ids, board card ids in ACPC order) of state s at round r."""
        b, k = divmod(int(s), self.block_size[r])
        hole = self._cards[self._rest[r][b, self._hole_local[r][k]]]
        board = self._cards[self._boards[r][b]]
        return [int(c) for c in hole], [int(c) for c in board]

    def describe_state(self, r: int, s: int) -> str:
        """Human text: hole cards, then ``|`` and the board by round (``"Ks|Qh"``, ``"AsKd|2c3d4h/5s"``)."""
        hole, board = self.state_cards(r, s)
        text = "".join(card_text(c) for c in hole)
        if not board:
            return text
        parts, start = [], 0
        for rr in range(r + 1):
            cnt = self.game.num_board_cards[rr]
            if cnt:
                parts.append("".join(card_text(c) for c in board[start:start + cnt]))
            start += cnt
        return text + "|" + "/".join(parts)
