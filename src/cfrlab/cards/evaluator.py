"""Poker hand evaluation with ACPC semantics (higher is better, equal values tie).

Rank scale (shared by every function here and by the numba kernels in ``_eval_kernels``)::

    rank = category << 20 | k0 << 16 | k1 << 12 | k2 << 8 | k3 << 4 | k4

``category`` is 0 high card .. 8 straight flush (``CATEGORY_NAMES``); ``k0..k4`` are the
card ranks (0 = deuce .. 12 = ace) that break ties inside the category, most significant
first (pair rank then kickers, and so on; a straight stores only its top card, 3 for the
wheel A-2-3-4-5). Hands of 5, 6 and 7 cards are on one scale: a hand's rank is the rank of
its best five cards. Hands of 2..4 cards use only the rank categories (pairs, two pair, trips,
quads, then kickers). A one-card hand (Kuhn) is just the card's rank, so decks with more than
13 ranks work there. Ranks are comparable between hands with the same number of cards
(ACPC compares nothing else).

From numba code call the kernels directly: ``_eval_kernels.rank5/rank6/rank7(c0, ...)``,
``rank_cards(int array)`` and ``hand_category(rank)``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numba
import numpy as np

from cfrlab.cards import _eval_kernels as _k
from cfrlab.errors import CfrlabError

CATEGORY_NAMES = _k.CATEGORY_NAMES


_KEY_INIT = int(_k.KEY_INIT)
_FLUSH_BITS = int(_k.FLUSH_BITS)


class HandError(CfrlabError, ValueError):
    """Cards that do not form a hand the evaluator takes (count, repeats, ids)."""


__all__ = [
    "CATEGORY_NAMES",
    "HandError",
    "category_name",
    "hand_category",
    "random_hands",
    "rank7_batch",
    "rank_batch",
    "rank_hand",
    "seven_card_category_counts",
]


def hand_category(rank):
    """Category of a rank (int or int array): 0 high card .. 8 straight flush."""
    if isinstance(rank, np.ndarray):
        return rank >> _k.CATEGORY_SHIFT
    return int(rank) >> _k.CATEGORY_SHIFT


def category_name(rank: int) -> str:
    """Name of a rank's category, e.g. ``"two_pair"``."""
    return CATEGORY_NAMES[hand_category(rank)]


@functools.cache
def _python_tables() -> tuple[list[int], ...]:
    """The kernels' tables as Python lists: one hand from Python is faster without numba's call."""
    return tuple(
        t.tolist()
        for t in (_k.CARD_KEY, _k.CARD_BIT, _k.RANK_TABLE, _k.HI_BASE, _k.LO_INDEX, _k.FLUSH_TABLE)
    )


def rank_hand(cards: Sequence[int]) -> int:
    """Rank of a hand of 1..7 distinct card ids (ACPC semantics, see the module docstring).

    Same lookup as the kernels, in plain Python (about 1 microsecond per hand).
    """
    ids = list(map(int, cards))
    n = len(ids)
    if n == 1 and ids[0] >= 0:
        return ids[0] >> 2
    if not 2 <= n <= 7 or len(set(ids)) != n or min(ids) < 0 or max(ids) > 51:
        raise HandError(f"rank_hand takes 1 to 7 distinct card ids 0..51, got {ids}")
    card_key, card_bit, rank_table, hi_base, lo_index, flush_table = _python_tables()
    key = _KEY_INIT
    for c in ids:
        key += card_key[c]
    flush = key & _FLUSH_BITS
    if not flush:
        return rank_table[hi_base[(key >> _k.HI_SHIFT) & 0xFFFF] + lo_index[key & 0xFFFF]]
    bits = 0
    for c in ids:
        bits |= card_bit[c]
    suit = (flush.bit_length() - _k.SUIT_SHIFT - 4) // 4  # only one suit can hold 5 of 7
    return flush_table[(bits >> (16 * suit)) & 0x1FFF]


def _check_cards(cards, width: int | None) -> np.ndarray:
    arr = np.ascontiguousarray(cards)
    if arr.dtype.kind not in "iu":
        raise HandError(f"cards must be an integer array, got dtype {arr.dtype}")
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= 7 or (width and arr.shape[1] != width):
        want = f"(N, {width})" if width else "(N, k) with 1 <= k <= 7"
        raise HandError(f"cards must have shape {want}, got {arr.shape}")
    if arr.size and (arr.max() > 51 or (arr.dtype.kind == "i" and arr.min() < 0)):
        raise HandError("card ids must be 0..51")
    return arr


def rank7_batch(cards, parallel: bool = False) -> np.ndarray:
    """Ranks (int32[N]) of the 7-card hands in the rows of ``cards`` (int array (N, 7)).

    Each row must hold 7 distinct ids 0..51 (ids are checked, repeats are not). uint8 input is
    the fastest. ``parallel=True`` splits the rows over the numba threads.
    """
    arr = _check_cards(cards, 7)
    out = np.empty(arr.shape[0], np.int32)
    if parallel:
        _k.rank7_rows_parallel(arr, out)
    else:
        _k.rank7_rows(arr, out)
    return out


def rank_batch(cards) -> np.ndarray:
    """Ranks (int32[N]) of the k-card hands in the rows of ``cards`` (int array (N, k), 1..7)."""
    arr = _check_cards(cards, None)
    if arr.shape[1] == 7:
        return rank7_batch(arr)
    out = np.empty(arr.shape[0], np.int32)
    _k.rank_rows(arr, out)
    return out


def seven_card_category_counts(num_threads: int | None = None) -> dict[str, int]:
    """Evaluate all 133,784,560 seven-card hands; category name -> number of hands."""
    workers = int(num_threads or numba.get_num_threads())
    counts = _k.count_seven_card_categories(max(1, workers))
    return {name: int(n) for name, n in zip(CATEGORY_NAMES, counts)}


def random_hands(num_hands: int, num_cards: int = 7, seed: int = 0) -> np.ndarray:
    """uint8[num_hands, num_cards]: uniform random hands of distinct cards, seeded."""
    if not 1 <= num_cards <= 52:
        raise HandError("num_cards must be 1..52")
    return _k.random_hands(int(num_hands), int(num_cards), int(seed))
