"""Numba kernels of the bucketing: canonical boards, class facts, percentile assignment.

Cards are deck-local ids (``cfrlab.cards.isomorphism``). Suit permutations are rows of
``perms`` int64[P, S] (every permutation of the deck's suits); a card c maps to
``(c // S) * S + perm[c % S]``.

Kernels take the bundles of ``_metrics_kernels`` (``Indexer``, ``Unindexer``,
``IndexScratch``, ``FinalDeal``) and ``StateLookup`` (below); ``FinalBoards`` (parents,
children, child_parent) lists the last round's canonical boards as ``final_boards`` gives
them (parents int64[N, max(nb, 1)], children int64[Q, k] sorted by child_parent).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.abstraction._metrics_kernels import (
    final_board_holes,
    final_scratch,
    first_child,
    index_scratch,
    next_child,
    rest_of,
    run_end,
)
from cfrlab.cards.kernels import (
    index_one as _index_one,
)
from cfrlab.cards.kernels import (
    multiplicity_into,
)
from cfrlab.cards.kernels import (
    unindex_one as _unindex_one,
)
from cfrlab.config import NUMBA_CACHE

# Everything the state-lookup kernels read (``BucketedModel.lookup``): every round's ordered
# indexer and state table packed end to end, the last round's metric indexer, the hsnum table
# and the bucket table, with the deck and bucket shapes.
StateLookup = namedtuple("StateLookup", "R totals num_ranks num_suits colex g_all g_off k_all k_off o_all o_off t_all t_off m_gsz m_key m_off hs last B history perfect")
FinalBoards = namedtuple("FinalBoards", "parents children child_parent")


@njit(cache=NUMBA_CACHE, parallel=True)
def ordered_class_facts(num_classes, ux, mx, px, has_parent, midx, pidx, weight):
    """For every class of the ordered ``Unindexer`` ux (hole | board by round): its metric
    class (``Indexer`` mx: hole | board as one set), its parent class (``Indexer`` px: one
    round fewer) and its multiplicity. Outputs int64/int32 arrays of length num_classes."""
    u_ranks, S, u_gsz, u_code, u_offset, u_subsets = ux
    _, _, m_gsz, m_key, m_offset, m_colex = mx
    _, _, p_gsz, p_key, p_offset, p_colex = px
    ncards = 0
    for j in range(u_gsz.shape[0]):
        ncards += u_gsz[j]
    pcards = ncards - u_gsz[u_gsz.shape[0] - 1]
    nchunks = 64
    for ch in prange(nchunks):
        hand = np.empty(ncards, np.int64)
        sidx = np.zeros(S, np.int64)
        work = np.zeros((3, u_gsz.shape[0]), np.int64)
        masks_m = np.zeros((S, m_gsz.shape[0]), np.int64)
        masks_p = np.zeros((S, max(p_gsz.shape[0], 1)), np.int64)
        codes = np.zeros(S, np.int64)
        order = np.zeros(S, np.int64)
        pat = np.zeros(S, np.int64)
        for i in range(ch * num_classes // nchunks, (ch + 1) * num_classes // nchunks):
            _unindex_one(i, u_ranks, S, u_gsz, u_code, u_offset, u_subsets, hand, sidx, work)
            midx[i] = _index_one(hand, u_ranks, S, m_gsz, m_key, m_offset, m_colex, masks_m,
                                 codes, sidx, order)
            if has_parent:
                pidx[i] = _index_one(hand[:pcards], u_ranks, S, p_gsz, p_key, p_offset, p_colex,
                                     masks_p, codes, sidx, order)
            weight[i] = multiplicity_into(hand, S, u_gsz, pat)


@njit(cache=NUMBA_CACHE)
def _mass(weight, order, i, j):
    """Total weight of the items order[i:j]."""
    m = np.int64(0)
    for t in range(i, j):
        m += weight[order[t]]
    return m


@njit(cache=NUMBA_CACHE)
def percentile_assign(order, group, key, weight, B, out):
    """Percentile buckets: items sorted by (group, key) in `order`; within each group a run
    of equal keys with mass m after mass a (of the group's M) gets bucket
    min(B - 1, B * (2a + m) // (2M)) (the run's midpoint; equal keys never split)."""
    n = order.shape[0]
    i = 0
    while i < n:
        j = run_end(group, order, i, n)
        M = _mass(weight, order, i, j)
        a = np.int64(0)
        p = i
        while p < j:
            q = run_end(key, order, p, j)
            m = _mass(weight, order, p, q)
            if M > 0:
                b = (B * (2 * a + m)) // (2 * M)
            else:
                b = 0
            b = min(b, B - 1)
            for t in range(p, q):
                out[order[t]] = b
            a += m
            p = q
        i = j


@njit(cache=NUMBA_CACHE)
def hole_states(rest, m, hand, ix, scratch, table, states):
    """states[k] = table[class of (hole pair k over rest[:m] | hand[2:])] under the
    ``Indexer`` ix; hand[:2] is overwritten."""
    num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex = ix
    masks, codes, sidx, order = scratch
    k = 0
    for x in range(m):
        for y in range(x + 1, m):
            hand[0] = rest[x]
            hand[1] = rest[y]
            states[k] = table[_index_one(hand, num_ranks, num_suits, gsz, cfg_key, cfg_offset,
                                         colex, masks, codes, sidx, order)]
            k += 1


@njit(cache=NUMBA_CACHE)
def board_hole_states(board, nb, D, ix, scratch, table, rest, hand, states):
    """``hole_states`` of every hole pair on board[:nb] (rest receives the board's rest)."""
    m = rest_of(board, nb, D, rest)
    for q in range(nb):
        hand[2 + q] = board[q]
    hole_states(rest, m, hand, ix, scratch, table, states)
    return m


@njit(cache=NUMBA_CACHE, parallel=True)
def hole_states_on_boards(boards, nb, D, ix, table, out):
    """out[b, k] = table[ordered class of (hole pair k over the board's rest | board b)]
    (``Indexer`` ix). boards int64[N, max(nb, 1)] local; out int32[N, C(D - nb, 2)]."""
    N = boards.shape[0]
    nchunks = 64
    for ch in prange(nchunks):
        rest = np.empty(D, np.int64)
        hand = np.empty(2 + nb, np.int64)
        scratch = index_scratch(ix.num_suits, ix.gsz.shape[0])
        for b in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            board_hole_states(boards[b], nb, D, ix, scratch, table, rest, hand, out[b])


@njit(cache=NUMBA_CACHE, parallel=True)
def last_round_histogram(boards, pweight, orbit, fd, group_of_hole, num_groups, max_hs,
                         nthreads):
    """hist[g, v] = mass of (final board, hole) with group g (the hole's group on the parent
    board, group_of_hole[parent, pair]) and hsnum v (``FinalBoards`` boards, ``FinalDeal``
    fd)."""
    parents, children, child_parent = boards
    Q = children.shape[0]
    H = fd.pa.shape[0]
    hists = np.zeros((nthreads, num_groups, max_hs + 1), np.int64)
    for th in prange(nthreads):
        fs = final_scratch(fd)
        hsnum, pid = fs.hsnum, fs.pid
        for q in range(th * Q // nthreads, (th + 1) * Q // nthreads):
            p = child_parent[q]
            w = pweight[p] * orbit[q]
            final_board_holes(parents[p], children[q], fd, fs)
            for h in range(H):
                hists[th, group_of_hole[p, pid[h]], hsnum[h]] += w
    return hists.sum(axis=0)


@njit(cache=NUMBA_CACHE, inline="always")
def last_bucket(last, history, prev_state, hsnum):
    """The last round's bucket of a hole with this state on the round before and hsnum."""
    return last[prev_state if history else 0, hsnum]


@njit(cache=NUMBA_CACHE)
def _player_states(hand, upto, lookup, scratch, out):
    """out[r] for r <= upto: one player's states; hand = hole then board (local cards).
    Rounds before the last: the ordered-class table of round r (packed in the *_all arrays,
    round r at [*_off[r], *_off[r+1])); the last round: last[group, hsnum] on top of the
    round before's state. ``StateLookup`` lookup, ``IndexScratch`` scratch (masks of 8
    groups)."""
    R, totals, num_ranks, num_suits, colex = (lookup.R, lookup.totals, lookup.num_ranks,
                                              lookup.num_suits, lookup.colex)
    g_all, g_off, k_all, k_off = lookup.g_all, lookup.g_off, lookup.k_all, lookup.k_off
    o_all, o_off, t_all, t_off = lookup.o_all, lookup.o_off, lookup.t_all, lookup.t_off
    masks, codes, sidx, order = scratch
    top = min(upto, R - 2)
    for r in range(top + 1):
        idx = _index_one(hand[:2 + totals[r]], num_ranks, num_suits,
                         g_all[g_off[r]:g_off[r + 1]], k_all[k_off[r]:k_off[r + 1]],
                         o_all[o_off[r]:o_off[r + 1]], colex, masks, codes, sidx, order)
        out[r] = t_all[t_off[r] + idx]
    if upto == R - 1:
        out[R - 1] = _last_state(hand, np.int64(out[R - 2]) if R > 1 else np.int64(0), lookup,
                                 scratch)


@njit(cache=NUMBA_CACHE, inline="always")
def _last_state(hand, prev, lookup, scratch):
    """The last round's state of a hand (hole then board) whose state on the round before is
    ``prev`` (``_player_states``' last step, for callers that already know ``prev``)."""
    lk = lookup
    masks, codes, sidx, order = scratch
    idx = _index_one(hand[:2 + lk.totals[lk.R - 1]], lk.num_ranks, lk.num_suits, lk.m_gsz,
                     lk.m_key, lk.m_off, lk.colex, masks, codes, sidx, order)
    b = last_bucket(lk.last, lk.history, prev, lk.hs[idx])
    return prev * lk.B + b if lk.perfect else b


@njit(cache=NUMBA_CACHE, parallel=True)
def deal_states_rows(local, lookup, out):
    """out[i, p, r] for deals local int64[N, 4 + board] (holes by position, then board);
    ``lookup`` is a ``StateLookup``."""
    R = lookup.R
    N = local.shape[0]
    nbf = lookup.totals[R - 1]
    nchunks = 32
    for ch in prange(nchunks):
        hand = np.empty(2 + nbf, np.int64)
        scratch = index_scratch(lookup.num_suits, 8)
        row = np.empty(R, np.int64)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            for q in range(nbf):
                hand[2 + q] = local[i, 4 + q]
            for p in range(2):
                hand[0] = local[i, 2 * p]
                hand[1] = local[i, 2 * p + 1]
                _player_states(hand, R - 1, lookup, scratch, row)
                for r in range(R):
                    out[i, p, r] = row[r]


@njit(cache=NUMBA_CACHE)
def one_player_states(hand, upto, lookup):
    """States of one player up to round `upto` (int64[R]; entries past upto unset)."""
    row = np.zeros(lookup.R, np.int64)
    _player_states(hand, upto, lookup, index_scratch(lookup.num_suits, 8), row)
    return row


@njit(cache=NUMBA_CACHE, parallel=True)
def last_round_histogram_sets(sets, weight, splits, fd, ix, prev_table, G, max_hs, nthreads):
    """hist[g, v] as ``last_round_histogram``, enumerating boards of the round before as
    canonical *sets* of fd.nb cards (weight = raw sets in the class) and every way ``splits``
    (int64[P, nb], positions inside the set) orders a set into rounds: a final board's hand
    strengths are computed once and serve every ordering, whose hole states come from the
    ordered ``Indexer`` ix and prev_table."""
    nb, k, D = fd.nb, fd.k, fd.D
    N = sets.shape[0]
    P = splits.shape[0]
    mB = D - nb
    HB = mB * (mB - 1) // 2
    H = fd.pa.shape[0]
    hists = np.zeros((nthreads, G, max_hs + 1), np.int64)
    for th in prange(nthreads):
        fs = final_scratch(fd)
        hsnum, pid = fs.hsnum, fs.pid
        rest2 = np.empty(D, np.int64)
        hand = np.empty(2 + nb, np.int64)
        st = np.empty((P, HB), np.int64)
        comb = np.empty(max(k, 1), np.int64)
        child = np.empty(max(k, 1), np.int64)
        scratch = index_scratch(ix.num_suits, ix.gsz.shape[0])
        hist = hists[th]
        for i in range(th * N // nthreads, (th + 1) * N // nthreads):
            w = weight[i]
            rest_of(sets[i], nb, D, rest2)
            for s in range(P):
                for q in range(nb):
                    hand[2 + q] = sets[i, splits[s, q]]
                hole_states(rest2, mB, hand, ix, scratch, prev_table, st[s])
            more = first_child(comb, k, rest2, child)
            while more:
                final_board_holes(sets[i], child, fd, fs)
                for h in range(H):
                    v = hsnum[h]
                    p_ = pid[h]
                    for s in range(P):
                        hist[st[s, p_], v] += w
                more = next_child(comb, k, mB, rest2, child)
    return hists.sum(axis=0)
