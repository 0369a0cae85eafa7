"""Numba kernels of the exact hand-strength metrics (plain arrays; see ``metrics``).

Cards are deck-local ids (``cfrlab.cards.isomorphism``); ``to_global`` maps them to ACPC ids
for the evaluator. A board's *rest* is the ascending array of local cards not on it; the
hole pairs over a rest of m cards are numbered lexicographically by positions
(``pair_tables(m)`` gives ``pa``, ``pb``; ``pair_id(x, y, m)`` the inverse).

River hand strength is kept as the exact integer ``hsnum = 2 * wins + ties`` against the
``C(m - 2, 2)`` opponent hands left; earlier rounds keep exact integer sums of ``hsnum`` and
``hsnum**2`` over every final board (as a set) that completes the board.

Kernels take their arrays in named bundles (namedtuples, typed tuples to numba), built once
by the Python caller:

- ``Indexer``: a canonical indexer's ``index_args`` (num_ranks, num_suits, gsz, cfg_key,
  cfg_offset, colex); ``Unindexer``: its ``unindex_args`` (num_ranks, num_suits, gsz,
  cfg_code, cfg_offset, subsets). ``IndexScratch`` (masks, codes, sidx, order): the work
  arrays of one index call (``index_scratch``).
- ``FinalDeal``: how the last round's boards are laid out: a board of the round before
  holds ``nb`` cards and the last round adds ``k`` (deck of ``D`` cards, ``to_global``
  local -> ACPC ids); ``pa``, ``pb`` are the hole pairs over the ``D - nb - k`` cards left
  (``pair_tables``; built by ``final_deal``). ``FinalScratch``: the work arrays of
  ``final_board_holes`` (``final_scratch``; ``hsnum``, ``pid``, ``rest``, ``frest_g`` are
  its results).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.cards.kernels import (
    CARD_BIT,
    CARD_KEY,
    KEY_INIT,
    binom,
    rank_cards,
    rest_of,
)
from cfrlab.cards.kernels import (
    index_one as _index_one,
)
from cfrlab.cards.kernels import (
    lookup as _lookup,
)
from cfrlab.cards.kernels import next_combination as _next_combo  # the next k-subset, lexicographic
from cfrlab.cards.kernels import (
    unindex_one as _unindex_one,
)
from cfrlab.config import NUMBA_CACHE

Indexer = namedtuple("Indexer", "num_ranks num_suits gsz cfg_key cfg_offset colex")
Unindexer = namedtuple("Unindexer", "num_ranks num_suits gsz cfg_code cfg_offset subsets")
IndexScratch = namedtuple("IndexScratch", "masks codes sidx order")
CompletionScratch = namedtuple("CompletionScratch", "hand nxt used rest comb work index")
FinalDeal = namedtuple("FinalDeal", "nb k D to_global pa pb")
FinalScratch = namedtuple("FinalScratch", "rest frest_g posmap bg ranks hsnum less_c grp_c pid")


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


def final_deal(nb: int, k: int, D: int, to_global: np.ndarray) -> FinalDeal:
    """The ``FinalDeal`` of boards of nb cards completed by k more from a deck of D cards."""
    pa, pb = pair_tables(D - nb - k)
    return FinalDeal(nb, k, D, np.ascontiguousarray(to_global, dtype=np.int64), pa, pb)


@njit(cache=NUMBA_CACHE)
def index_scratch(num_suits, groups):
    """Work arrays of ``_index_one`` for hands of up to `groups` card groups."""
    return IndexScratch(np.zeros((num_suits, groups), np.int64), np.zeros(num_suits, np.int64),
                        np.zeros(num_suits, np.int64), np.zeros(num_suits, np.int64))


@njit(cache=NUMBA_CACHE)
def final_scratch(fd):
    """Work arrays of ``final_board_holes`` for the ``FinalDeal`` fd."""
    D = fd.D
    H = fd.pa.shape[0]
    mf = D - fd.nb - fd.k
    return FinalScratch(np.empty(D, np.int64), np.empty(D, np.int64), np.empty(D, np.int64),
                        np.empty(max(fd.nb + fd.k, 1), np.int64), np.empty(H, np.int64),
                        np.empty(H, np.int64), np.empty(mf, np.int64), np.empty(mf, np.int64),
                        np.empty(H, np.int64))


@njit(cache=NUMBA_CACHE)
def final_board_holes(parent_board, child, fd, fs):
    """Ranks and hsnum of every hole pair on parent_board + child (``FinalDeal`` fd);
    fs.pid[t] = pair t's number over the parent's rest (fs.rest). Returns the pairs in rank
    order. ``FinalScratch`` fs receives the results."""
    nb, k, D, to_global, pa, pb = fd  # bundles are unpacked before any loop (see below)
    rest, frest_g, posmap, bg, ranks, hsnum, less_c, grp_c, pid = fs
    H = pa.shape[0]
    mB = rest_of(parent_board, nb, D, rest)
    for q in range(nb):
        bg[q] = to_global[parent_board[q]]
    for j in range(k):
        bg[nb + j] = to_global[child[j]]
    f = 0
    for x in range(mB):
        c = rest[x]
        isnew = False
        for j in range(k):
            if child[j] == c:
                isnew = True
        if not isnew:
            posmap[f] = x
            frest_g[f] = to_global[c]
            f += 1
    bkey, bbits = board_key(bg, nb + k)
    ranks_on_board(bkey, bbits, frest_g, pa, pb, H, ranks)
    order = hs_sweep(ranks, pa, pb, H, f, less_c, grp_c, hsnum)
    for t in range(H):
        pid[t] = pair_id(posmap[pa[t]], posmap[pb[t]], mB)
    return order


@njit(cache=NUMBA_CACHE, parallel=True)
def last_round_table(boards, ix, fd, out):
    """River table: out[index(hole | board)] = hsnum for every hole on every board row
    (``Indexer`` ix of hole | board as one set; ``FinalDeal`` fd with nb = board cards, k = 0).

    boards int64[N, bf] (local; one row per canonical final board set, or any cover of the
    classes); out uint16/int32[size of the (2 | bf) indexer].

    Bundles are unpacked into locals before the loops: a field read inside a loop costs a
    reference count update per read (30% slower index loops).
    """
    N, bf = boards.shape
    pa, pb = fd.pa, fd.pb
    num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex = ix
    H = pa.shape[0]
    nchunks = 64
    for ch in prange(nchunks):
        fs = final_scratch(fd)
        rest, hsnum = fs.rest, fs.hsnum
        child = np.empty(0, np.int64)
        hand = np.empty(2 + bf, np.int64)
        masks, codes, sidx, order = index_scratch(num_suits, gsz.shape[0])
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            final_board_holes(boards[i], child, fd, fs)  # k = 0: pair t is pair t of the rest
            for q in range(bf):
                hand[2 + q] = boards[i, q]
            for kk in range(H):
                hand[0] = rest[pa[kk]]
                hand[1] = rest[pb[kk]]
                idx = _index_one(hand, num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex,
                                 masks, codes, sidx, order)
                out[idx] = hsnum[kk]


@njit(cache=NUMBA_CACHE)
def first_combo(c, k):
    """The first ascending k-combination (0, 1, ..., k - 1) into c."""
    for j in range(k):
        c[j] = j


@njit(cache=NUMBA_CACHE)
def first_child(comb, k, rest, child):
    """Start enumerating the sets of k cards of rest: comb = positions, child = the cards.
    Returns True (there is always a first set, empty when k = 0)."""
    first_combo(comb, k)
    for j in range(k):
        child[j] = rest[comb[j]]
    return True


@njit(cache=NUMBA_CACHE)
def next_child(comb, k, m, rest, child):
    """The next set of k cards among rest[:m] into child; False after the last."""
    if not _next_combo(comb, k, m):
        return False
    for j in range(k):
        child[j] = rest[comb[j]]
    return True


@njit(cache=NUMBA_CACHE, inline="always")
def run_end(values, order, i, n):
    """End of the run of equal values[order[t]] that starts at t = i (at most n)."""
    v = values[order[i]]
    j = i + 1
    while j < n and values[order[j]] == v:
        j += 1
    return j


@njit(cache=NUMBA_CACHE, parallel=True)
def rollout_sums(boards, ix, fd, out1, out2):
    """Round before the last: out1/out2[index(hole | board)] = sum over every set of fd.k
    final cards of hsnum and hsnum**2 (``Indexer`` ix of hole | board as one set).
    boards int64[N, max(nb, 1)] local (nb = fd.nb used)."""
    N = boards.shape[0]
    nb, knew, D = fd.nb, fd.k, fd.D
    mB = D - nb
    HB = mB * (mB - 1) // 2
    Hf = fd.pa.shape[0]
    num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex = ix
    nchunks = 64
    for ch in prange(nchunks):
        fs = final_scratch(fd)
        hsnum, pid = fs.hsnum, fs.pid
        rest = np.empty(D, np.int64)
        s1 = np.empty(HB, np.int64)
        s2 = np.empty(HB, np.int64)
        comb = np.empty(max(knew, 1), np.int64)
        child = np.empty(max(knew, 1), np.int64)
        hand = np.empty(2 + nb, np.int64)
        masks, codes, sidx, order = index_scratch(num_suits, gsz.shape[0])
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            rest_of(boards[i], nb, D, rest)
            for q in range(nb):
                hand[2 + q] = boards[i, q]
            s1[:] = 0
            s2[:] = 0
            more = first_child(comb, knew, rest, child)
            while more:
                final_board_holes(boards[i], child, fd, fs)
                for kk in range(Hf):
                    p = pid[kk]
                    h = hsnum[kk]
                    s1[p] += h
                    s2[p] += h * h
                more = next_child(comb, knew, mB, rest, child)
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


@njit(cache=NUMBA_CACHE)
def completion_scratch(ux, nx, nb, knew, D):
    """Work arrays of ``completion_indices`` (one set per thread)."""
    return CompletionScratch(np.empty(2 + nb, np.int64), np.empty(2 + nb + knew, np.int64),
                             np.zeros(D, np.bool_), np.empty(D, np.int64),
                             np.empty(max(knew, 1), np.int64),
                             np.zeros((3, ux.gsz.shape[0]), np.int64),
                             index_scratch(ux.num_suits, nx.gsz.shape[0]))


@njit(cache=NUMBA_CACHE)
def completion_indices(i, ux, nx, nb, knew, D, cs, out):
    """The ``Indexer`` nx's index of every completion (knew more board cards, lexicographic)
    of class i of the ``Unindexer`` ux (hole | nb board cards) into out[:count]; returns
    count. ``cs``: ``completion_scratch``."""
    masks, codes, sidx, order = cs.index
    hand, nxt, rest, comb = cs.hand, cs.nxt, cs.rest, cs.comb
    _unindex_one(i, ux.num_ranks, ux.num_suits, ux.gsz, ux.cfg_code, ux.cfg_offset, ux.subsets,
                 hand, sidx, cs.work)
    cs.used[:] = False
    for q in range(2 + nb):
        cs.used[hand[q]] = True
        nxt[q] = hand[q]
    m = 0
    for c in range(D):
        if not cs.used[c]:
            rest[m] = c
            m += 1
    first_combo(comb, knew)
    count = 0
    more = True
    while more:
        for j in range(knew):
            nxt[2 + nb + j] = rest[comb[j]]
        out[count] = _index_one(nxt, nx.num_ranks, nx.num_suits, nx.gsz, nx.cfg_key,
                                nx.cfg_offset, nx.colex, masks, codes, sidx, order)
        count += 1
        more = knew > 0 and _next_combo(comb, knew, m)
    return count


@njit(cache=NUMBA_CACHE, parallel=True)
def earlier_sums(num_classes, nb, knew, divisor, D, ux, nx, next1, next2, out1, out2):
    """Earlier rounds: for every class (hole | nb board cards) of the ``Unindexer`` ux, sum the
    next round's table over every set of `knew` new cards (indexed by the ``Indexer`` nx), and
    divide by `divisor` = C(final - nb, knew) so the result sums over final boards once."""
    nchunks = 64
    ncomp = binom(D - 2 - nb, knew)
    for ch in prange(nchunks):
        cs = completion_scratch(ux, nx, nb, knew, D)
        idx = np.empty(ncomp, np.int64)
        for i in range(ch * num_classes // nchunks, (ch + 1) * num_classes // nchunks):
            n = completion_indices(i, ux, nx, nb, knew, D, cs, idx)
            t1 = np.int64(0)
            t2 = np.int64(0)
            for x in range(n):
                t1 += next1[idx[x]]
                t2 += next2[idx[x]]
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
