"""Numba kernels of the hand evaluator (plain integers and arrays, callable from njit code).

Rank scale (see ``cfrlab.cards.evaluator``): ``category << 20 | five 4-bit tie-break ranks``,
higher is better; 5-, 6- and 7-card hands share it (a hand's rank is its best five's rank).

How a hand is looked up. Each card id ``c = rank*4 + suit`` has a 64-bit key ``CARD_KEY[c]``:
the rank's multiplier (``RANK_MULT``) in the "lo" half (bits 0..15, ranks 2..7) or the "hi"
half (bits 16..31, ranks 8..A), plus ``1 << (32 + 4*suit)``. Summing a hand's keys with
``KEY_INIT`` gives two half keys that each identify a multiset of ranks (the multipliers keep
every sum of <= 7 cards, each rank <= 4 times, distinct) and four 4-bit suit counters that
start at 3, so bit 3 of a counter is set exactly when that suit holds 5 or more cards.

* No flush: a minimal perfect hash, ``RANK_TABLE[HI_BASE[hi] + LO_INDEX[lo]]``. ``LO_INDEX``
  numbers the lo multisets by size (those of <= j cards come first) and ``HI_BASE`` reserves,
  for each hi multiset of h cards, one slot per lo multiset of <= 7 - h cards: 76,155 slots,
  one per rank multiset of <= 7 cards, each holding that multiset's best-five value.
* Flush (5..7 cards): the 13-bit rank mask of the flush suit (from the OR of ``CARD_BIT``,
  16 bits per suit) indexes ``FLUSH_TABLE`` (flush or straight flush). With at most 7 cards a
  flush always beats whatever the other cards make.

The tables (about 0.9 MB, of which about 0.35 MB is touched) are built by the kernels below at
import in a few milliseconds once numba has cached the compiled code.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.config import NUMBA_CACHE

CATEGORY_NAMES = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
)
NUM_CATEGORIES = 9
CATEGORY_SHIFT = 20

# Greedy search: each the smallest value > the previous one keeping the sums of all multisets
# of <= 7 cards (each rank <= 4 times) distinct. Ranks 0..5 use the first six ("lo" half, sums
# < 2**14), ranks 6..12 all seven ("hi" half, sums < 2**16, stored from bit HI_SHIFT).
RANK_MULT = np.array([1, 5, 24, 112, 521, 2247, 9244], dtype=np.int64)
LO_RANKS = 6
HI_SHIFT = 16
MAX_CARDS = 7
SUIT_SHIFT = 32
KEY_INIT = np.int64(0x3333 << SUIT_SHIFT)
FLUSH_BITS = np.int64(0x8888 << SUIT_SHIFT)
HALF_MASK = np.int64((1 << HI_SHIFT) - 1)


# ----------------------------------------------------------------------------- table build


@njit(cache=NUMBA_CACHE)
def _pack(category, k0, k1, k2, k3, k4):
    return np.int32((category << 20) | (k0 << 16) | (k1 << 12) | (k2 << 8) | (k3 << 4) | k4)


@njit(cache=NUMBA_CACHE)
def _straight_top(mask):
    """Top rank of the best straight in a 13-bit rank mask, -1 if none (wheel top = 3)."""
    for top in range(12, 3, -1):
        run = 0x1F << (top - 4)
        if mask & run == run:
            return top
    if mask & 0x100F == 0x100F:
        return 3
    return -1


@njit(cache=NUMBA_CACHE)
def _flush_value(mask):
    """Value of the best five of the cards of one suit given by a 13-bit rank mask (>= 5 bits)."""
    top = _straight_top(mask)
    if top >= 0:
        return _pack(8, top, 0, 0, 0, 0)
    k = np.zeros(5, np.int64)
    n = 0
    for r in range(12, -1, -1):
        if n < 5 and (mask >> r) & 1:
            k[n] = r
            n += 1
    return _pack(5, k[0], k[1], k[2], k[3], k[4])


@njit(cache=NUMBA_CACHE)
def _kickers(counts, ex0, ex1, out, start):
    """Write card ranks, high to low and one per card, skipping ranks ex0/ex1, into out[start:5]."""
    i = start
    for r in range(12, -1, -1):
        if r == ex0 or r == ex1:
            continue
        for _ in range(counts[r]):
            if i < 5:
                out[i] = r
                i += 1


@njit(cache=NUMBA_CACHE)
def _multiset_value(counts):
    """Best value of a rank multiset (counts[13], at most 7 cards) ignoring flushes.

    Fewer than five cards give rank categories only (no straight is possible).
    """
    quad = -1
    trip = -1
    trip2 = -1
    pair = -1
    pair2 = -1
    mask = 0
    for r in range(12, -1, -1):
        c = counts[r]
        if c > 0:
            mask |= 1 << r
        if c >= 4 and quad < 0:
            quad = r
        elif c >= 3:
            if trip < 0:
                trip = r
            elif trip2 < 0:
                trip2 = r
        elif c == 2:
            if pair < 0:
                pair = r
            elif pair2 < 0:
                pair2 = r
    k = np.zeros(5, np.int64)
    if quad >= 0:
        k[0] = quad
        _kickers(counts, quad, -1, k, 1)
        return _pack(7, k[0], k[1], 0, 0, 0)
    if trip >= 0 and (trip2 >= 0 or pair >= 0):
        second = max(pair, trip2)
        return _pack(6, trip, second, 0, 0, 0)
    top = _straight_top(mask)
    if top >= 0:
        return _pack(4, top, 0, 0, 0, 0)
    if trip >= 0:
        k[0] = trip
        _kickers(counts, trip, -1, k, 1)
        return _pack(3, k[0], k[1], k[2], 0, 0)
    if pair2 >= 0:
        k[0] = pair
        k[1] = pair2
        _kickers(counts, pair, pair2, k, 2)
        return _pack(2, k[0], k[1], k[2], 0, 0)
    if pair >= 0:
        k[0] = pair
        _kickers(counts, pair, -1, k, 1)
        return _pack(1, k[0], k[1], k[2], k[3], 0)
    _kickers(counts, -1, -1, k, 0)
    return _pack(0, k[0], k[1], k[2], k[3], k[4])


@njit(cache=NUMBA_CACHE)
def _rank_multisets(num_ranks, max_cards):
    """Every multiset of at most max_cards cards over num_ranks ranks (each rank <= 4 times).

    Returns counts int8[M, num_ranks], ordered by number of cards (stable), so the multisets
    with at most j cards are the first ones.
    """
    cap = 1
    for _ in range(num_ranks):
        cap *= 5
    cap = min(cap, 200_000)
    counts = np.zeros((cap, num_ranks), np.int8)
    total = np.zeros(cap, np.int64)
    m = 1  # row 0: the empty multiset
    for r in range(num_ranks):
        j = m  # rows [0, m) hold the multisets over ranks < r; extend each by 1..4 copies of r
        for c in range(1, 5):
            for i in range(m):
                if total[i] + c <= max_cards:
                    counts[j, :] = counts[i, :]
                    counts[j, r] = c
                    total[j] = total[i] + c
                    j += 1
        m = j
    order = np.argsort(total[:m], kind="mergesort")
    return counts[order], total[order]


@njit(cache=NUMBA_CACHE)
def _half_index(counts, mult):
    """Key of each multiset row (sum of counts * mult) -> row number; int32[max key + 1], -1 unused."""
    m = counts.shape[0]
    keys = np.zeros(m, np.int64)
    for i in range(m):
        for r in range(counts.shape[1]):
            keys[i] += counts[i, r] * mult[r]
    index = np.full(keys.max() + 1, -1, np.int32)
    for i in range(m):
        if index[keys[i]] != -1:
            raise ValueError("rank multipliers do not give distinct sums")
        index[keys[i]] = i
    return keys, index


@njit(cache=NUMBA_CACHE)
def _build_tables(mult):
    """Card keys, CARD_BIT, FLUSH_TABLE and the two-half minimal perfect hash of rank multisets."""
    card_key = np.empty(52, np.int64)
    card_bit = np.empty(52, np.int64)
    for c in range(52):
        r = c >> 2
        half = mult[r] if r < LO_RANKS else mult[r - LO_RANKS] << HI_SHIFT
        card_key[c] = half + (np.int64(1) << (SUIT_SHIFT + 4 * (c & 3)))
        card_bit[c] = np.int64(1) << (16 * (c & 3) + r)
    flush = np.zeros(1 << 13, np.int32)
    for m in range(1 << 13):
        bits = 0
        for r in range(13):
            bits += (m >> r) & 1
        if bits >= 5:
            flush[m] = _flush_value(m)
    lo, lo_total = _rank_multisets(LO_RANKS, MAX_CARDS)
    hi, hi_total = _rank_multisets(13 - LO_RANKS, MAX_CARDS)
    _lo_keys, lo_index = _half_index(lo, mult)
    hi_keys, _ = _half_index(hi, mult)  # (raises if two multisets share a key)
    # lo multisets with at most j cards: the first num_lo[j] rows of lo
    num_lo = np.zeros(MAX_CARDS + 1, np.int64)
    for t in lo_total:
        num_lo[t:] += 1
    # Index arrays span every 16-bit half key and the table has a tail of spare slots, so any
    # hand of <= 7 ids in 0..51 (even with repeated cards) reads inside the arrays.
    hi_base = np.zeros(1 << HI_SHIFT, np.int32)
    lo_full = np.zeros(1 << HI_SHIFT, np.int32)
    lo_full[: lo_index.shape[0]] = np.maximum(lo_index, 0)
    base = 0
    for h in range(hi.shape[0]):
        hi_base[hi_keys[h]] = base
        base += num_lo[MAX_CARDS - hi_total[h]]
    table = np.full(base + lo.shape[0], -1, np.int32)
    counts = np.zeros(13, np.int8)
    for h in range(hi.shape[0]):
        counts[LO_RANKS:] = hi[h]
        for lo_row in range(num_lo[MAX_CARDS - hi_total[h]]):
            counts[:LO_RANKS] = lo[lo_row]
            table[hi_base[hi_keys[h]] + lo_row] = _multiset_value(counts)
    return card_key, card_bit, flush, lo_full, hi_base, table


CARD_KEY, CARD_BIT, FLUSH_TABLE, LO_INDEX, HI_BASE, RANK_TABLE = _build_tables(RANK_MULT)


# ----------------------------------------------------------------------------- evaluation


@njit(cache=NUMBA_CACHE, inline="always")
def _lookup(key, suit_bits):
    """Rank of a hand from its key sum (KEY_INIT included) and OR of CARD_BIT (flush case only)."""
    f = key & FLUSH_BITS
    if f == 0:
        return RANK_TABLE[HI_BASE[(key >> HI_SHIFT) & HALF_MASK] + LO_INDEX[key & HALF_MASK]]
    s = 0
    while (f >> (SUIT_SHIFT + 3 + 4 * s)) & 1 == 0:
        s += 1
    return FLUSH_TABLE[(suit_bits >> (16 * s)) & 0x1FFF]


@njit(cache=NUMBA_CACHE)
def rank5(c0, c1, c2, c3, c4):
    """Rank of five card ids (0..51, distinct)."""
    key = KEY_INIT + CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3] + CARD_KEY[c4]
    if key & FLUSH_BITS == 0:
        return _lookup(key, 0)
    bits = CARD_BIT[c0] | CARD_BIT[c1] | CARD_BIT[c2] | CARD_BIT[c3] | CARD_BIT[c4]
    return _lookup(key, bits)


@njit(cache=NUMBA_CACHE)
def rank6(c0, c1, c2, c3, c4, c5):
    """Rank of six card ids: the rank of the best five."""
    key = KEY_INIT + CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3] + CARD_KEY[c4]
    key += CARD_KEY[c5]
    if key & FLUSH_BITS == 0:
        return _lookup(key, 0)
    bits = CARD_BIT[c0] | CARD_BIT[c1] | CARD_BIT[c2] | CARD_BIT[c3] | CARD_BIT[c4]
    return _lookup(key, bits | CARD_BIT[c5])


@njit(cache=NUMBA_CACHE)
def rank7(c0, c1, c2, c3, c4, c5, c6):
    """Rank of seven card ids: the rank of the best five."""
    key = KEY_INIT + CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3] + CARD_KEY[c4]
    key += CARD_KEY[c5] + CARD_KEY[c6]
    if key & FLUSH_BITS == 0:
        return _lookup(key, 0)
    bits = CARD_BIT[c0] | CARD_BIT[c1] | CARD_BIT[c2] | CARD_BIT[c3] | CARD_BIT[c4]
    return _lookup(key, bits | CARD_BIT[c5] | CARD_BIT[c6])


@njit(cache=NUMBA_CACHE)
def rank_cards(cards):
    """Rank of 1..7 distinct card ids (1-d int array) with ACPC semantics.

    One card: its rank (any deck size). 2..4 cards: rank categories only. 5..7: best five.
    """
    n = cards.shape[0]
    if n == 1:
        return np.int32(cards[0] >> 2)
    key = KEY_INIT
    bits = np.int64(0)
    for i in range(n):
        key += CARD_KEY[cards[i]]
        bits |= CARD_BIT[cards[i]]
    return _lookup(key, bits)


@njit(cache=NUMBA_CACHE)
def hand_category(rank):
    """Category of a rank value: 0 high card .. 8 straight flush."""
    return rank >> CATEGORY_SHIFT


# ----------------------------------------------------------------------------- batches


@njit(cache=NUMBA_CACHE)
def rank7_rows(cards, out):
    """out[i] = rank7 of row i of cards (N, 7); one thread."""
    for i in range(cards.shape[0]):
        h = cards[i]
        out[i] = rank7(h[0], h[1], h[2], h[3], h[4], h[5], h[6])


@njit(cache=NUMBA_CACHE, parallel=True)
def rank7_rows_parallel(cards, out):
    """rank7_rows split over the numba threads."""
    for i in prange(cards.shape[0]):
        h = cards[i]
        out[i] = rank7(h[0], h[1], h[2], h[3], h[4], h[5], h[6])


@njit(cache=NUMBA_CACHE)
def rank_rows(cards, out):
    """out[i] = rank_cards(cards[i]) for a (N, k) array, 1 <= k <= 7."""
    for i in range(cards.shape[0]):
        out[i] = rank_cards(cards[i])


@njit(cache=NUMBA_CACHE)
def _enumerate_from(c0, c1, out):
    """Add the category counts of every 7-card hand whose two lowest cards are c0 < c1 to out."""
    counts = np.zeros(NUM_CATEGORIES, np.int64)  # local: no cache line shared between threads
    k1 = KEY_INIT + CARD_KEY[c0] + CARD_KEY[c1]
    b1 = CARD_BIT[c0] | CARD_BIT[c1]
    for c2 in range(c1 + 1, 48):
        k2 = k1 + CARD_KEY[c2]
        b2 = b1 | CARD_BIT[c2]
        for c3 in range(c2 + 1, 49):
            k3 = k2 + CARD_KEY[c3]
            b3 = b2 | CARD_BIT[c3]
            for c4 in range(c3 + 1, 50):
                k4 = k3 + CARD_KEY[c4]
                b4 = b3 | CARD_BIT[c4]
                for c5 in range(c4 + 1, 51):
                    k5 = k4 + CARD_KEY[c5]
                    b5 = b4 | CARD_BIT[c5]
                    for c6 in range(c5 + 1, 52):
                        r = _lookup(k5 + CARD_KEY[c6], b5 | CARD_BIT[c6])
                        counts[r >> CATEGORY_SHIFT] += 1
    out += counts


@njit(cache=NUMBA_CACHE, parallel=True)
def count_seven_card_categories(num_workers):
    """Category counts (int64[9]) over all C(52,7) hands; (c0, c1) prefixes dealt round-robin."""
    pairs = np.empty((1326, 2), np.int64)
    n = 0
    for c0 in range(46):
        for c1 in range(c0 + 1, 47):
            pairs[n, 0] = c0
            pairs[n, 1] = c1
            n += 1
    partial = np.zeros((num_workers, NUM_CATEGORIES), np.int64)
    for w in prange(num_workers):
        for p in range(w, n, num_workers):
            _enumerate_from(pairs[p, 0], pairs[p, 1], partial[w])
    return partial.sum(axis=0)


@njit(cache=NUMBA_CACHE)
def random_hands(num_hands, num_cards, seed):
    """uint8[num_hands, num_cards] of distinct card ids per row, uniform, seeded."""
    np.random.seed(seed)
    out = np.empty((num_hands, num_cards), np.uint8)
    deck = np.arange(52).astype(np.uint8)
    for i in range(num_hands):
        for j in range(num_cards):  # partial Fisher-Yates
            k = np.random.randint(j, 52)
            t = deck[j]
            deck[j] = deck[k]
            deck[k] = t
            out[i, j] = deck[j]
    return out
