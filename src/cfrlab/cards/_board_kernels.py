"""Hand ranking on boards for kernels of other packages (realgame's best responses and LBR):
a hand's evaluator key and flush bits once, then its rank on any board in one lookup; the rank of
every hand on every completion of a board; a showdown between two hands. Cards are a deck's
local ids mapped to ACPC ids by ``to_global`` where the caller works in a reduced deck.

``HandKeys`` (built by ``hand_key_table``) bundles a deck's hands for the kernels that rank
them: ``hands`` int64[H, h] (local ids), ``hands_g`` the same in ACPC ids, ``to_global``
int64[D] (local id -> ACPC id), ``hkey`` / ``hbits`` int64[H] each hand's evaluator key sum
and flush bits (``hand_keys``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.cards._eval_kernels import CARD_BIT, CARD_KEY, KEY_INIT, _lookup, rank_cards
from cfrlab.cards._iso_kernels import next_combination
from cfrlab.config import NUMBA_CACHE

HandKeys = namedtuple("HandKeys", "hands hands_g to_global hkey hbits")


@njit(cache=NUMBA_CACHE)
def hand_keys(hands_g, hkey, hbits):
    """Evaluator key sums and flush bits of every hand (ACPC ids ``hands_g`` (H, h))."""
    for j in range(hands_g.shape[0]):
        k = np.int64(0)
        b = np.int64(0)
        for q in range(hands_g.shape[1]):
            k += CARD_KEY[hands_g[j, q]]
            b |= CARD_BIT[hands_g[j, q]]
        hkey[j] = k
        hbits[j] = b


def hand_key_table(hands: np.ndarray, to_global: np.ndarray) -> HandKeys:
    """The ``HandKeys`` of the hands ``hands`` (local ids) of a deck mapped by ``to_global``."""
    hands = np.ascontiguousarray(hands, dtype=np.int64)
    to_global = np.ascontiguousarray(to_global, dtype=np.int64)
    hands_g = np.ascontiguousarray(to_global[hands])
    hkey = np.zeros(len(hands), dtype=np.int64)
    hbits = np.zeros(len(hands), dtype=np.int64)
    hand_keys(hands_g, hkey, hbits)
    return HandKeys(hands, hands_g, to_global, hkey, hbits)


@njit(cache=NUMBA_CACHE)
def add_card_keys(cards, to_global, key, bits):
    """(key, bits) with the evaluator keys added and the flush bits or-ed of ``cards`` (local
    ids, mapped by ``to_global``)."""
    for q in range(cards.shape[0]):
        g = to_global[cards[q]]
        key += CARD_KEY[g]
        bits |= CARD_BIT[g]
    return key, bits


@njit(cache=NUMBA_CACHE)
def rank_of_key(key, bits, ncards, single):
    """Rank of a hand from its key sum (KEY_INIT included) and bits; a one-card hand (Kuhn)
    ranks by its card's rank (``single``: its ACPC id)."""
    if ncards == 1:
        return np.int64(single >> 2)
    return np.int64(_lookup(key, bits))



@njit(cache=NUMBA_CACHE)
def showdown_sign(a_g, b_g, board_g):
    """+1 if the hand ``a_g`` beats ``b_g`` on ``board_g`` (ACPC ids), -1 if it loses, 0 tie."""
    h = a_g.shape[0]
    nb = board_g.shape[0]
    x = np.empty(h + nb, dtype=np.int64)
    y = np.empty(h + nb, dtype=np.int64)
    for q in range(nb):
        x[h + q] = board_g[q]
        y[h + q] = board_g[q]
    for q in range(h):
        x[q] = a_g[q]
        y[q] = b_g[q]
    ra = rank_cards(x)
    rb = rank_cards(y)
    return 1 if ra > rb else (-1 if ra < rb else 0)


@njit(cache=NUMBA_CACHE)
def rank_hands(hands_g, board_g, ok, out):
    """out[j] = rank of hand j with the board (ACPC ids) for hands with ok[j], else -1."""
    H, h = hands_g.shape
    nb = board_g.shape[0]
    x = np.empty(h + nb, dtype=np.int64)
    for q in range(nb):
        x[h + q] = board_g[q]
    for j in range(H):
        if not ok[j]:
            out[j] = -1
            continue
        for q in range(h):
            x[q] = hands_g[j, q]
        out[j] = rank_cards(x)


NO_RANK = np.int32(2**31 - 1)  # a hand that meets the board: never beaten, never tied


@njit(cache=NUMBA_CACHE)
def cards_left(used):
    """The cards c with ``used[c]`` False, ascending."""
    rest = np.empty(used.shape[0], dtype=np.int64)
    n = 0
    for c in range(used.shape[0]):
        if not used[c]:
            rest[n] = c
            n += 1
    return rest[:n]


@njit(cache=NUMBA_CACHE)
def board_completions(known, k, D, comps):
    """comps[c]: every set of ``k`` cards (local ids, ascending) missing the board ``known``,
    in lexicographic order; returns their number."""
    used = np.zeros(D, dtype=np.bool_)
    for q in range(known.shape[0]):
        used[known[q]] = True
    rest = cards_left(used)
    idx = np.arange(max(k, 1))
    m = 0
    while True:
        for q in range(k):
            comps[m, q] = rest[idx[q]]
        m += 1
        if not next_combination(idx, k, rest.shape[0]):
            return m


@njit(cache=NUMBA_CACHE, parallel=True)
def board_ranks(known, comps, m, keys, ranks):
    """The rank of every hand of ``keys`` (``HandKeys``) on each completion ``comps[:m]`` of
    the board ``known`` (``ranks[c, j]``; ``NO_RANK`` for a hand that meets the board),
    completions split over the numba threads. Shared by both seats of a deal: the responder's
    equity is then one comparison per (completion, hand) (``equity_from_ranks``)."""
    hands, hands_g, to_global, hkey, hbits = keys
    H, h = hands.shape
    k = comps.shape[1] if m > 0 else 0
    nk = known.shape[0]
    ncards = h + nk + k
    kb, bb = add_card_keys(known, to_global, KEY_INIT, np.int64(0))
    blocked = np.zeros(H, dtype=np.bool_)  # hands that meet the known board
    for j in range(H):
        for a in range(h):
            for q in range(nk):
                if known[q] == hands[j, a]:
                    blocked[j] = True
    for c in prange(m):
        key, bits = add_card_keys(comps[c], to_global, kb, bb)
        for j in range(H):
            meet = blocked[j]
            for a in range(h):
                x = hands[j, a]
                for q in range(k):
                    if comps[c, q] == x:
                        meet = True
            if meet:
                ranks[c, j] = NO_RANK
            else:
                ranks[c, j] = rank_of_key(key + hkey[j], bits | hbits[j], ncards, hands_g[j, 0])
