"""Numba kernels of the exact hand-strength metrics (plain arrays; see ``metrics``).

Cards are deck-local ids (``cfrlab.cards.isomorphism``); ``to_global`` maps them to ACPC ids
for the evaluator. A board's *rest* is the ascending array of local cards not on it; the
hole pairs over a rest of m cards are numbered lexicographically by positions
(``pair_tables(m)`` gives ``pa``, ``pb``; ``pair_id(x, y, m)`` the inverse).

River hand strength is kept as the exact integer ``hsnum = 2 * wins + ties`` against the
``C(m - 2, 2)`` opponent hands left; earlier rounds keep exact integer sums of ``hsnum`` and
``hsnum**2`` over every final board (as a set) that completes the board.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.cards.kernels import (
    CARD_BIT,
    CARD_KEY,
    KEY_INIT,
    rank_cards,
)
from cfrlab.cards.kernels import (
    index_one as _index_one,
)
from cfrlab.cards.kernels import (
    lookup as _lookup,
)
from cfrlab.cards.kernels import (
    unindex_one as _unindex_one,
)
from cfrlab.config import NUMBA_CACHE


def pair_tables(m: int) -> tuple[np.ndarray, np.ndarray]:
    """(pa, pb) int64[C(m, 2)]: the positions of hole pair k over m cards, lexicographic."""
    a, b = np.triu_indices(m, 1)
    return a.astype(np.int64), b.astype(np.int64)


@njit(cache=NUMBA_CACHE, inline="always")
def pair_id(x, y, m):
    """Lexicographic number of the pair x < y over m positions."""
    return x * (2 * m - x - 1) // 2 + (y - x - 1)


@njit(cache=NUMBA_CACHE)
def board_key(cards_g, n):
    """(key, bits) of the first n global cards, for ``_lookup`` after adding hole cards."""
    key = KEY_INIT
    bits = np.int64(0)
    for i in range(n):
        key += CARD_KEY[cards_g[i]]
        bits |= CARD_BIT[cards_g[i]]
    return key, bits


@njit(cache=NUMBA_CACHE)
def ranks_on_board(bkey, bbits, rest_g, pa, pb, H, ranks):
    """ranks[k] = evaluator rank of hole pair k (over rest_g) plus the board, k < H."""
    for k in range(H):
        a = rest_g[pa[k]]
        b = rest_g[pb[k]]
        ranks[k] = _lookup(bkey + CARD_KEY[a] + CARD_KEY[b], bbits | CARD_BIT[a] | CARD_BIT[b])


@njit(cache=NUMBA_CACHE)
def hs_sweep(ranks, pa, pb, H, m, less_c, grp_c, hsnum):
    """hsnum[k] = 2 * wins + ties of pair k against every disjoint pair (exact card removal).

    Pairs are swept in rank order; ``less_c[x]`` counts the weaker pairs holding position x,
    so the weaker disjoint pairs of (a, b) are ``less - less_c[a] - less_c[b]``.
    """
    keys = np.empty(H, np.int64)  # rank and pair number packed: one plain sort, no indirection
    for k in range(H):
        keys[k] = (ranks[k] << 20) | k
    keys.sort()
    order = keys & 0xFFFFF
    for x in range(m):
        less_c[x] = 0
        grp_c[x] = 0
    less = 0
    i = 0
    while i < H:
        r = ranks[order[i]]
        j = i
        while j < H and ranks[order[j]] == r:
            k = order[j]
            grp_c[pa[k]] += 1
            grp_c[pb[k]] += 1
            j += 1
        g = j - i
        for q in range(i, j):
            k = order[q]
            a = pa[k]
            b = pb[k]
            wins = less - less_c[a] - less_c[b]
            ties = g - grp_c[a] - grp_c[b] + 1  # the pair itself is in both card counts
            hsnum[k] = 2 * wins + ties
        for q in range(i, j):
            k = order[q]
            less_c[pa[k]] += 1
            less_c[pb[k]] += 1
            grp_c[pa[k]] = 0
            grp_c[pb[k]] = 0
        less += g
        i = j
    return order


@njit(cache=NUMBA_CACHE)
def rest_of(board, nb, D, rest):
    """Ascending local cards not among board[:nb]; returns how many."""
    used = np.int64(0)
    for i in range(nb):
        used |= np.int64(1) << board[i]
    m = 0
    for c in range(D):
        if not (used >> c) & 1:
            rest[m] = c
            m += 1
    return m


@njit(cache=NUMBA_CACHE, parallel=True)
def last_round_table(boards, to_global, D, num_ranks, num_suits, gsz, cfg_key, cfg_offset,
                     colex, out):
    """River table: out[index(hole | board)] = hsnum for every hole on every board row.

    boards int64[N, bf] (local; one row per canonical final board set, or any cover of the
    classes); out uint16/int32[size of the (2 | bf) indexer].
    """
    N, bf = boards.shape
    m = D - bf
    H = m * (m - 1) // 2
    pa = np.empty(H, np.int64)
    pb = np.empty(H, np.int64)
    k = 0
    for x in range(m):
        for y in range(x + 1, m):
            pa[k] = x
            pb[k] = y
            k += 1
    nchunks = 64
    for ch in prange(nchunks):
        rest = np.empty(D, np.int64)
        rest_g = np.empty(D, np.int64)
        bg = np.empty(max(bf, 1), np.int64)
        ranks = np.empty(H, np.int64)
        hsnum = np.empty(H, np.int64)
        less_c = np.empty(m, np.int64)
        grp_c = np.empty(m, np.int64)
        hand = np.empty(2 + bf, np.int64)
        masks = np.zeros((num_suits, gsz.shape[0]), np.int64)
        codes = np.zeros(num_suits, np.int64)
        sidx = np.zeros(num_suits, np.int64)
        order = np.zeros(num_suits, np.int64)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            rest_of(boards[i], bf, D, rest)
            for q in range(m):
                rest_g[q] = to_global[rest[q]]
            for q in range(bf):
                bg[q] = to_global[boards[i, q]]
                hand[2 + q] = boards[i, q]
            bkey, bbits = board_key(bg, bf)
            ranks_on_board(bkey, bbits, rest_g, pa, pb, H, ranks)
            hs_sweep(ranks, pa, pb, H, m, less_c, grp_c, hsnum)
            for kk in range(H):
                hand[0] = rest[pa[kk]]
                hand[1] = rest[pb[kk]]
                idx = _index_one(hand, num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex,
                                 masks, codes, sidx, order)
                out[idx] = hsnum[kk]


@njit(cache=NUMBA_CACHE)
def _next_combo(c, k, n):
    """Advance the ascending k-combination c of range(n); False when it was the last."""
    i = k - 1
    while i >= 0 and c[i] == n - k + i:
        i -= 1
    if i < 0:
        return False
    c[i] += 1
    for j in range(i + 1, k):
        c[j] = c[j - 1] + 1
    return True


@njit(cache=NUMBA_CACHE, parallel=True)
def rollout_sums(boards, nb, knew, to_global, D, num_ranks, num_suits, gsz, cfg_key,
                 cfg_offset, colex, out1, out2):
    """Round before the last: out1/out2[index(hole | board)] = sum over every set of `knew`
    final cards of hsnum and hsnum**2. boards int64[N, max(nb, 1)] local (nb used)."""
    N = boards.shape[0]
    mB = D - nb
    HB = mB * (mB - 1) // 2
    mf = mB - knew
    Hf = mf * (mf - 1) // 2
    pa = np.empty(Hf, np.int64)
    pb = np.empty(Hf, np.int64)
    k = 0
    for x in range(mf):
        for y in range(x + 1, mf):
            pa[k] = x
            pb[k] = y
            k += 1
    nchunks = 64
    for ch in prange(nchunks):
        rest = np.empty(D, np.int64)
        frest_g = np.empty(D, np.int64)
        posmap = np.empty(D, np.int64)
        bg = np.empty(nb + knew, np.int64)
        ranks = np.empty(Hf, np.int64)
        hsnum = np.empty(Hf, np.int64)
        less_c = np.empty(mf, np.int64)
        grp_c = np.empty(mf, np.int64)
        s1 = np.empty(HB, np.int64)
        s2 = np.empty(HB, np.int64)
        comb = np.empty(max(knew, 1), np.int64)
        innew = np.zeros(D, np.bool_)
        hand = np.empty(2 + nb, np.int64)
        masks = np.zeros((num_suits, gsz.shape[0]), np.int64)
        codes = np.zeros(num_suits, np.int64)
        sidx = np.zeros(num_suits, np.int64)
        order = np.zeros(num_suits, np.int64)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            rest_of(boards[i], nb, D, rest)
            for q in range(nb):
                bg[q] = to_global[boards[i, q]]
                hand[2 + q] = boards[i, q]
            s1[:] = 0
            s2[:] = 0
            for j in range(knew):
                comb[j] = j
            more = True
            while more:
                for j in range(knew):
                    innew[comb[j]] = True
                    bg[nb + j] = to_global[rest[comb[j]]]
                f = 0
                for x in range(mB):
                    if not innew[x]:
                        posmap[f] = x
                        frest_g[f] = to_global[rest[x]]
                        f += 1
                for j in range(knew):
                    innew[comb[j]] = False
                bkey, bbits = board_key(bg, nb + knew)
                ranks_on_board(bkey, bbits, frest_g, pa, pb, Hf, ranks)
                hs_sweep(ranks, pa, pb, Hf, mf, less_c, grp_c, hsnum)
                for kk in range(Hf):
                    p = pair_id(posmap[pa[kk]], posmap[pb[kk]], mB)
                    h = hsnum[kk]
                    s1[p] += h
                    s2[p] += h * h
                more = _next_combo(comb, knew, mB)
            for kk in range(HB):
                x = kk  # decode the pair from its number
                a = 0
                while x >= mB - 1 - a:
                    x -= mB - 1 - a
                    a += 1
                b = a + 1 + x
                hand[0] = rest[a]
                hand[1] = rest[b]
                idx = _index_one(hand, num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex,
                                 masks, codes, sidx, order)
                out1[idx] = s1[kk]
                out2[idx] = s2[kk]


@njit(cache=NUMBA_CACHE, parallel=True)
def earlier_sums(num_classes, nb, knew, divisor, D, u_ranks, u_suits, u_gsz, u_code, u_offset,
                 u_subsets, n_gsz, n_key, n_offset, n_colex, next1, next2, out1, out2):
    """Earlier rounds: for every class (hole | nb board cards) of the `u_*` indexer, sum the
    next round's table over every set of `knew` new cards (indexed by the `n_*` indexer), and
    divide by `divisor` = C(final - nb, knew) so the result sums over final boards once."""
    nchunks = 64
    for ch in prange(nchunks):
        hand = np.empty(2 + nb, np.int64)
        nxt = np.empty(2 + nb + knew, np.int64)
        used = np.zeros(D, np.bool_)
        rest = np.empty(D, np.int64)
        comb = np.empty(knew, np.int64)
        sidx = np.zeros(u_suits, np.int64)
        work = np.zeros((3, u_gsz.shape[0]), np.int64)
        masks = np.zeros((u_suits, n_gsz.shape[0]), np.int64)
        codes = np.zeros(u_suits, np.int64)
        order = np.zeros(u_suits, np.int64)
        for i in range(ch * num_classes // nchunks, (ch + 1) * num_classes // nchunks):
            _unindex_one(i, u_ranks, u_suits, u_gsz, u_code, u_offset, u_subsets, hand, sidx,
                         work)
            used[:] = False
            for q in range(2 + nb):
                used[hand[q]] = True
                nxt[q] = hand[q]
            m = 0
            for c in range(D):
                if not used[c]:
                    rest[m] = c
                    m += 1
            for j in range(knew):
                comb[j] = j
            t1 = np.int64(0)
            t2 = np.int64(0)
            more = True
            while more:
                for j in range(knew):
                    nxt[2 + nb + j] = rest[comb[j]]
                idx = _index_one(nxt, u_ranks, u_suits, n_gsz, n_key, n_offset, n_colex, masks,
                                 codes, sidx, order)
                t1 += next1[idx]
                t2 += next2[idx]
                more = _next_combo(comb, knew, m)
            out1[i] = t1 // divisor
            out2[i] = t2 // divisor


@njit(cache=NUMBA_CACHE)
def direct_sums(hole, board, bf, D, to_global):
    """(sum hsnum, sum hsnum**2, number of final boards) for one hole and board (local cards)
    by plain enumeration of every completing board and every opponent pair."""
    nb = board.shape[0]
    used = np.zeros(D, np.bool_)
    used[hole[0]] = True
    used[hole[1]] = True
    for i in range(nb):
        used[board[i]] = True
    rest = np.empty(D, np.int64)
    m = 0
    for c in range(D):
        if not used[c]:
            rest[m] = c
            m += 1
    knew = bf - nb
    comb = np.arange(max(knew, 1))
    full = np.empty(bf + 2, np.int64)
    for i in range(nb):
        full[i] = to_global[board[i]]
    s1 = np.int64(0)
    s2 = np.int64(0)
    n = np.int64(0)
    inb = np.zeros(D, np.bool_)
    more = True
    while more:
        for j in range(knew):
            full[nb + j] = to_global[rest[comb[j]]]
            inb[rest[comb[j]]] = True
        full[bf] = to_global[hole[0]]
        full[bf + 1] = to_global[hole[1]]
        mine = rank_cards(full)
        h = 0
        for x in range(m):
            if inb[rest[x]]:
                continue
            for y in range(x + 1, m):
                if inb[rest[y]]:
                    continue
                full[bf] = to_global[rest[x]]
                full[bf + 1] = to_global[rest[y]]
                theirs = rank_cards(full)
                if mine > theirs:
                    h += 2
                elif mine == theirs:
                    h += 1
        for j in range(knew):
            inb[rest[comb[j]]] = False
        s1 += h
        s2 += h * h
        n += 1
        more = knew > 0 and _next_combo(comb, knew, m)
    return s1, s2, n
