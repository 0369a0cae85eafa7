"""The chance model of an enumerable N-player game: every deal, by round.

A round-r *prefix* is what the cards have said by round r: every player's hole cards and the
board up to round r. All deals are equally likely and every round-r prefix has the same number
of completions, so prefixes of one round are equally likely too (weight ``1 / n_r``).

Per round r:

- ``prefix_cards[r]`` int32[n_r, L_r]: hole cards by position (each sorted), then the board by round;
- ``state[r]`` int32[P, n_r]: each player's private state there (its hole cards and the board
  so far), numbered 0 .. ``num_states[r] - 1`` in sorted order of (hole, board);
- ``parent[r]`` int32[n_r]: the round r-1 prefix it extends (-1 in round 0);

and ``strength`` int32[P, n_last]: each player's showdown rank on the final prefixes.

A player's information set at a public node is (node, private state), so a strategy is
``policy[rows, 3]`` with rows ``row_offset[d] : row_offset[d + 1]`` = the acting player's
``num_states[round(d)]`` states at decision d: the layout of the 2-player engine.
"""

from __future__ import annotations

import hashlib
from collections import namedtuple
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from cfrlab.abstraction.model import NPLAYER
from cfrlab.cards import card_rank, card_text, deck, rank_hand
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef

MAX_DEALS = 4_000_000  # enumerated deals (hole combinations x boards) at most

# the kernels' view: flat arrays, rounds concatenated (pre_off[r] .. pre_off[r + 1])
DealArrays = namedtuple("DealArrays", "pre_off state ppar strength")


@dataclass(frozen=True, eq=False)
class Deals:
    game: GameDef
    num_states: tuple[int, ...]
    prefix_cards: list[np.ndarray]
    state: list[np.ndarray]
    parent: list[np.ndarray]
    strength: np.ndarray
    state_keys: list[list[tuple[tuple[int, ...], tuple[int, ...]]]]  # per round: (hole, board) of each state
    index: list[dict[tuple[tuple[int, ...], tuple[int, ...]], int]]
    arrays: DealArrays

    @property
    def num_prefixes(self) -> tuple[int, ...]:
        return tuple(len(p) for p in self.parent)

    kind = NPLAYER  # what strategy files record as their model kind

    def state_of(self, position: int, hole, board, round: int) -> int:
        """As a chance model answers it (``ChanceModel.state_of``): every position's states
        are numbered alike."""
        return self.state_index(hole, board, round)

    def state_index(self, hole, board, rnd: int) -> int:
        """Private state of a player holding ``hole`` with board ``board`` (all cards up to ``rnd``)."""
        key = (tuple(sorted(int(c) for c in hole)), _board_key(self.game, board, rnd))
        try:
            return self.index[rnd][key]
        except KeyError:
            raise CfrlabError(f"no private state {describe_cards(self.game, *key, rnd)} in round {rnd + 1}") from None

    def describe_state(self, rnd: int, s: int) -> str:
        hole, board = self.state_keys[rnd][s]
        return describe_cards(self.game, hole, board, rnd)

    @property
    def hash(self) -> str:
        return model_hash(self.game)


def model_hash(game: GameDef) -> str:
    return hashlib.sha256(("cfrlab-nplayer-lossless-v1\n" + game.to_text()).encode()).hexdigest()


def _board_key(game: GameDef, board, rnd: int) -> tuple[int, ...]:
    """The board up to ``rnd`` with each round's cards sorted (their order within a round is no news)."""
    out: list[int] = []
    start = 0
    b = [int(c) for c in board]
    if len(b) != game.total_board_cards(rnd):
        raise CfrlabError(f"round {rnd + 1} shows {game.total_board_cards(rnd)} board card(s), got {len(b)}")
    for r in range(rnd + 1):
        k = game.num_board_cards[r]
        out.extend(sorted(b[start:start + k]))
        start += k
    return tuple(out)


def describe_cards(game: GameDef, hole, board, rnd: int) -> str:
    text = "".join(card_text(c) for c in hole)
    if not board:
        return text
    parts, start = [], 0
    for r in range(rnd + 1):
        k = game.num_board_cards[r]
        if k:
            parts.append("".join(card_text(c) for c in board[start:start + k]))
        start += k
    return text + "/" + "/".join(parts)  # ACPC's view of one player: hole, then each round's board


def _strength(cards: list[int]) -> int:
    return card_rank(cards[0]) if len(cards) == 1 else rank_hand(cards)


def build_deals(game: GameDef, *, max_deals: int = MAX_DEALS) -> Deals:
    """Enumerate the game's deals (refused above ``max_deals``) into per-round prefix tables."""
    total = game.num_deals
    if total > max_deals:
        raise CfrlabError(f"{game.name or 'this game'} has {total:,} deals; the N-player engine enumerates "
                          f"at most {max_deals:,} (a smaller deck or fewer players)")
    P, H, R = game.num_players, game.num_hole_cards, game.num_rounds
    cards = deck(game.num_ranks, game.num_suits)

    # every deal as (holes by position, boards by round), in lexicographic enumeration order
    deals: list[tuple[int, ...]] = []

    def holes(rest: list[int], p: int, acc: tuple[int, ...]) -> None:
        if p == P:
            boards(rest, 0, acc)
            return
        for h in combinations(rest, H):
            hs = set(h)
            holes([c for c in rest if c not in hs], p + 1, acc + h)

    def boards(rest: list[int], r: int, acc: tuple[int, ...]) -> None:
        if r == R:
            deals.append(acc)
            return
        for b in combinations(rest, game.num_board_cards[r]):
            bs = set(b)
            boards([c for c in rest if c not in bs], r + 1, acc + b)

    holes(list(cards), 0, ())
    hole_len = P * H
    prefix_cards, states, parents, keys_out, index_out = [], [], [], [], []
    prev_index: dict[tuple[int, ...], int] = {}
    for r in range(R):
        L = hole_len + game.total_board_cards(r)
        pre_index: dict[tuple[int, ...], int] = {}
        pres: list[tuple[int, ...]] = []
        for d in deals:
            k = d[:L]
            if k not in pre_index:
                pre_index[k] = len(pres)
                pres.append(k)
        keys = sorted({(tuple(sorted(pre[p * H:(p + 1) * H])), _board_key(game, pre[hole_len:], r))
                       for pre in pres for p in range(P)})
        idx = {k: i for i, k in enumerate(keys)}
        st = np.empty((P, len(pres)), np.int32)
        par = np.full(len(pres), -1, np.int32)
        Lprev = hole_len + (game.total_board_cards(r - 1) if r > 0 else 0)
        for x, pre in enumerate(pres):
            board = _board_key(game, pre[hole_len:], r)
            for p in range(P):
                st[p, x] = idx[(tuple(sorted(pre[p * H:(p + 1) * H])), board)]
            if r > 0:
                par[x] = prev_index[pre[:Lprev]]
        prefix_cards.append(np.array(pres, np.int32).reshape(len(pres), L))
        states.append(st)
        parents.append(par)
        keys_out.append(keys)
        index_out.append(idx)
        prev_index = pre_index
    last = prefix_cards[-1]
    strength = np.empty((P, len(last)), np.int32)
    for x, pre in enumerate(last.tolist()):
        board = pre[hole_len:]
        for p in range(P):
            strength[p, x] = _strength(pre[p * H:(p + 1) * H] + board)
    pre_off = np.zeros(R + 1, np.int64)
    pre_off[1:] = np.cumsum([len(p) for p in parents])
    arrays = DealArrays(pre_off, np.ascontiguousarray(np.concatenate(states, axis=1)),
                        np.concatenate(parents).astype(np.int32), strength)
    return Deals(game, tuple(len(k) for k in keys_out), prefix_cards, states, parents, strength,
                 keys_out, index_out, arrays)
