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

from cfrlab.abstraction.model import LOSSLESS, assemble_blocks
from cfrlab.cards import rank_hand
from cfrlab.cards.cards import card_text, deck
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


def _lex_rank_int(rel: list[int], m: int) -> int:
    """Lexicographic index of the sorted subset `rel` of range(m) (see LosslessModel._lex_rank)."""
    k = len(rel)
    return comb(m, k) - 1 - sum(comb(m - 1 - c, k - i) for i, c in enumerate(rel))


class LosslessModel:
    """ChanceModel (docs/ENGINE.md) of an enumerable 2-player game: hole cards + board.

    Beyond the contract it exposes the block structure the engine uses for speed and for
    public chance sampling: ``num_blocks[r]``, ``block_size[r]``, ``block_parent(r)``,
    ``fold_blocks(r)`` and ``showdown_blocks()``.
    """

    kind = LOSSLESS

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
            # h*h comparisons of H x H, not an H x m x H product (minutes for a 4,000-card deck)
            loc = self._hole_local[r]
            free = np.ones((len(loc), len(loc)), dtype=bool)
            for i in range(loc.shape[1]):
                for j in range(loc.shape[1]):
                    free &= loc[:, i, None] != loc[None, :, j]
            out.append(free)
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
    def fold_matrix(self, r: int):
        """P_r (n_r x n_r): joint probability of the two players' round-r states."""
        return assemble_blocks(*self.fold_blocks(r), DENSE_LIMIT)

    def showdown_matrix(self):
        """W on the last round: sum over deals of P(deal) * (+1 if 0 wins, -1 if 1 wins)."""
        return assemble_blocks(*self.showdown_blocks(), DENSE_LIMIT)

    @cached_property
    def hash(self) -> str:
        return hashlib.sha256(("cfrlab-lossless-v1\n" + self.game.to_text()).encode()).hexdigest()

    @cached_property
    def _pos_of_card(self) -> np.ndarray:
        table = np.full(int(self._cards.max()) + 1, -1, dtype=np.int64)
        table[self._cards] = np.arange(len(self._cards))
        return table

    @cached_property
    def _binom(self) -> np.ndarray:
        D = len(self._cards)
        return np.array([[comb(a, b) for b in range(8)] for a in range(D + 1)], dtype=np.int64)

    def _lex_rank(self, rel: np.ndarray, m: int) -> np.ndarray:
        """Lexicographic index of sorted subsets ``rel`` (n, k) of range(m):
        C(m, k) - 1 - sum_i C(m - 1 - c_i, k - i)."""
        n, k = rel.shape
        if k == 0:
            return np.zeros(n, dtype=np.int64)
        rel = np.sort(rel, axis=1)
        terms = self._binom[m - 1 - rel, k - np.arange(k)[None, :]]
        return self._binom[m, k] - 1 - terms.sum(axis=1)

    def _positions(self, cards) -> np.ndarray:
        cards = np.asarray(cards, dtype=np.int64)
        table = self._pos_of_card
        bad = (cards < 0) | (cards >= len(table))
        pos = np.where(bad, -1, table[np.clip(cards, 0, len(table) - 1)])
        if np.any(pos < 0):
            c = int(cards[pos < 0].flat[0])
            raise CfrlabError(f"{card_text(c) if c >= 0 else c} is not in this game's deck")
        return pos

    def hole_states(self, hole_pos: np.ndarray, board_pos: np.ndarray, round: int) -> np.ndarray:
        """States at `round` for hole positions (n, h) and ACPC-ordered board positions (n, >= nb)."""
        g = self.game
        n = len(hole_pos)
        block = np.zeros(n, dtype=np.int64)
        start = 0
        for r in range(round + 1):
            cnt = g.num_board_cards[r]
            new = board_pos[:, start:start + cnt]
            prev = board_pos[:, :start]
            rel = new - (prev[:, None, :] < new[:, :, None]).sum(axis=2)
            block = block * self._new_combos[r] + self._lex_rank(rel, len(self._cards) - start)
            start += cnt
        seen = board_pos[:, :start]
        rel = hole_pos - (seen[:, None, :] < hole_pos[:, :, None]).sum(axis=2)
        return block * self.block_size[round] + self._lex_rank(rel, len(self._cards) - start)

    def _check_cards(self, hole_pos: np.ndarray, board_pos: np.ndarray) -> None:
        both = np.concatenate([hole_pos, board_pos], axis=1)
        srt = np.sort(both, axis=1)
        if np.any(srt[:, 1:] == srt[:, :-1]):
            raise CfrlabError("a card appears twice (hole cards overlap each other or the board)")

    def state_of(self, position: int, hole, board, round: int) -> int:
        """Private state at `round` of a player holding `hole` with ACPC-ordered `board`."""
        del position  # both players share the numbering
        g = self.game
        nb = g.total_board_cards(round)
        if len(hole) != g.num_hole_cards or len(board) < nb:
            raise CfrlabError(f"round {round} needs {g.num_hole_cards} hole card(s) and {nb} board card(s)")
        table = self._pos_of_card
        try:
            hp = [int(table[int(c)]) if 0 <= int(c) < len(table) else -1 for c in hole]
            bp = [int(table[int(c)]) if 0 <= int(c) < len(table) else -1 for c in list(board)[:nb]]
        except (TypeError, ValueError):
            raise CfrlabError(f"bad cards {hole!r} {board!r}") from None
        if min(hp + bp) < 0:
            bad = next(c for c, q in zip(list(hole) + list(board), hp + bp) if q < 0)
            raise CfrlabError(f"{card_text(int(bad)) if int(bad) >= 0 else bad} is not in this game's deck")
        if len(set(hp + bp)) != len(hp) + len(bp):
            raise CfrlabError("a card appears twice (hole cards overlap each other or the board)")
        # the same numbering as _states, in plain integers (one state, no array overhead)
        D = len(self._cards)
        block, start = 0, 0
        for r in range(round + 1):
            cnt = g.num_board_cards[r]
            prev = bp[:start]
            rel = sorted(q - sum(1 for x in prev if x < q) for q in bp[start:start + cnt])
            block = block * self._new_combos[r] + _lex_rank_int(rel, D - start)
            start += cnt
        rel = sorted(q - sum(1 for x in bp if x < q) for q in hp)
        return block * self.block_size[round] + _lex_rank_int(rel, D - start)

    def deal_states_batch(self, deals) -> np.ndarray:
        """int32[n, 2, R] for ACPC-ordered deals int[n, 2h + board] (holes by position, then board)."""
        g = self.game
        h = g.num_hole_cards
        pos = self._positions(deals)
        if pos.ndim != 2 or pos.shape[1] < 2 * h + g.total_board_cards():
            raise CfrlabError(f"a deal needs {2 * h + g.total_board_cards()} cards")
        board = pos[:, 2 * h:2 * h + g.total_board_cards()]
        self._check_cards(pos[:, :2 * h], board)
        out = np.empty((len(pos), 2, g.num_rounds), dtype=np.int32)
        for r in range(g.num_rounds):
            for p in range(2):
                out[:, p, r] = self.hole_states(pos[:, p * h:(p + 1) * h], board, r)
        return out

    def deal_states(self, deal) -> np.ndarray:
        """int32[2, R]: each player's state per round for a deal (holes by position, then board)."""
        return self.deal_states_batch([list(deal)])[0]

    def state_cards(self, r: int, s: int) -> tuple[list[int], list[int]]:
        """(hole card ids, board card ids in ACPC order) of state s at round r."""
        b, k = divmod(int(s), self.block_size[r])
        hole = self._cards[self._rest[r][b, self._hole_local[r][k]]]
        board = self._cards[self._boards[r][b]]
        return [int(c) for c in hole], [int(c) for c in board]

    def describe_state(self, r: int, s: int) -> str:
        """Human text as ACPC writes one player's view: hole cards, then ``/`` and the board of
        each round (``"Ks/Qh"``, ``"AsKd/2c3d4h/5s"``)."""
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
        return text + "/" + "/".join(parts)
