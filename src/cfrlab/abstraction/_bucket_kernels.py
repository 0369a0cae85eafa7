"""Numba kernels of the bucketing: canonical boards, class facts, percentile assignment.

Cards are deck-local ids (``cfrlab.cards.isomorphism``). Suit permutations are rows of
``perms`` int64[P, S] (every permutation of the deck's suits); a card c maps to
``(c // S) * S + perm[c % S]``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.abstraction._metrics_kernels import (
    board_key,
    hs_sweep,
    pair_id,
    ranks_on_board,
    rest_of,
)
from cfrlab.cards.kernels import (
    index_one as _index_one,
)
from cfrlab.cards.kernels import (
    unindex_one as _unindex_one,
)
from cfrlab.config import NUMBA_CACHE

# Everything the state-lookup kernels read (``BucketedModel.lookup``): every round's ordered
# indexer and state table packed end to end, the last round's metric indexer, the hsnum table
# and the bucket table, with the deck and bucket shapes.
StateLookup = namedtuple("StateLookup", "R totals num_ranks num_suits colex g_all g_off k_all k_off o_all o_off t_all t_off m_gsz m_key m_off hs last B history perfect")


@njit(cache=NUMBA_CACHE)
def _sorted_image(cards, start, n, perm, S, D, out):
    """Code of the sorted image of cards[start:start+n] under perm (base-D digits)."""
    for i in range(n):
        c = cards[start + i]
        out[i] = (c // S) * S + perm[c % S]
    out[:n].sort()
    code = np.int64(0)
    for i in range(n):
        code = code * D + out[i]
    return code


@njit(cache=NUMBA_CACHE)
def child_boards(parents, gsz, perms, k, D, S):
    """Canonical children of each parent board: the sets of k new cards, one per orbit of the
    parent's stabilizer (the suit permutations mapping each parent group onto itself).

    parents int64[N, n] (local cards, groups of sizes gsz; n may be 0). Returns
    (children int64[Q, k], orbit int64[Q], parent int64[Q]): orbit = how many k-sets the
    child stands for, so a child's weight is its parent's weight times orbit.
    """
    N, n = parents.shape
    ident = np.arange(S)
    P = perms.shape[0]
    m = D - n
    maxc = 1
    for i in range(k):
        maxc = maxc * (m - i) // (i + 1)
    children = np.empty((N * maxc, k), np.int64)
    orbit = np.empty(N * maxc, np.int64)
    parent = np.empty(N * maxc, np.int64)
    buf = np.empty(max(n, k) + 1, np.int64)
    stab = np.empty(P, np.int64)
    rest = np.empty(D, np.int64)
    comb = np.empty(k, np.int64)
    cards = np.empty(k, np.int64)
    q = 0
    for b in range(N):
        ns = 0
        for p in range(P):
            ok = True
            start = 0
            for j in range(gsz.shape[0]):
                g = gsz[j]
                if _sorted_image(parents[b], start, g, perms[p], S, D, buf) != _sorted_image(
                        parents[b], start, g, ident, S, D, buf):
                    ok = False
                    break
                start += g
            if ok:
                stab[ns] = p
                ns += 1
        mm = rest_of(parents[b], n, D, rest)
        for i in range(k):
            comb[i] = i
        more = True
        while more:
            for i in range(k):
                cards[i] = rest[comb[i]]
            own = _sorted_image(cards, 0, k, ident, S, D, buf)
            canonical = True
            fixed = 0
            for t in range(ns):
                img = _sorted_image(cards, 0, k, perms[stab[t]], S, D, buf)
                if img < own:
                    canonical = False
                    break
                if img == own:
                    fixed += 1
            if canonical:
                for i in range(k):
                    children[q, i] = cards[i]
                orbit[q] = ns // fixed
                parent[q] = b
                q += 1
            # next combination
            i = k - 1
            while i >= 0 and comb[i] == mm - k + i:
                i -= 1
            if i < 0:
                more = False
            else:
                comb[i] += 1
                for j in range(i + 1, k):
                    comb[j] = comb[j - 1] + 1
    return children[:q].copy(), orbit[:q].copy(), parent[:q].copy()


@njit(cache=NUMBA_CACHE, parallel=True)
def ordered_class_facts(num_classes, u_ranks, u_suits, u_gsz, u_code, u_offset, u_subsets,
                        m_gsz, m_key, m_offset, m_colex, p_gsz, p_key, p_offset, p_colex,
                        has_parent, midx, pidx, weight):
    """For every class of the ordered indexer u (hole | board by round): its metric class
    (indexer m: hole | board as one set), its parent class (indexer p: one round fewer) and
    its multiplicity. Outputs int64/int32 arrays of length num_classes."""
    ncards = 0
    for j in range(u_gsz.shape[0]):
        ncards += u_gsz[j]
    pcards = ncards - u_gsz[u_gsz.shape[0] - 1]
    nchunks = 64
    for ch in prange(nchunks):
        hand = np.empty(ncards, np.int64)
        sidx = np.zeros(u_suits, np.int64)
        work = np.zeros((3, u_gsz.shape[0]), np.int64)
        masks_m = np.zeros((u_suits, m_gsz.shape[0]), np.int64)
        masks_p = np.zeros((u_suits, max(p_gsz.shape[0], 1)), np.int64)
        codes = np.zeros(u_suits, np.int64)
        order = np.zeros(u_suits, np.int64)
        pat = np.zeros(u_suits, np.int64)
        for i in range(ch * num_classes // nchunks, (ch + 1) * num_classes // nchunks):
            _unindex_one(i, u_ranks, u_suits, u_gsz, u_code, u_offset, u_subsets, hand, sidx,
                         work)
            midx[i] = _index_one(hand, u_ranks, u_suits, m_gsz, m_key, m_offset, m_colex,
                                 masks_m, codes, sidx, order)
            if has_parent:
                pidx[i] = _index_one(hand[:pcards], u_ranks, u_suits, p_gsz, p_key, p_offset,
                                     p_colex, masks_p, codes, sidx, order)
            # multiplicity: S! / prod over identical per-suit patterns of count!
            for s in range(u_suits):
                pat[s] = 0
            pos = 0
            for j in range(u_gsz.shape[0]):
                for _ in range(u_gsz[j]):
                    c = hand[pos]
                    pat[c % u_suits] |= np.int64(1) << (13 * j + c // u_suits)
                    pos += 1
            pat.sort()
            num = 1
            for t in range(2, u_suits + 1):
                num *= t
            run = 1
            for s in range(1, u_suits + 1):
                if s < u_suits and pat[s] == pat[s - 1]:
                    run += 1
                else:
                    for t in range(2, run + 1):
                        num //= t
                    run = 1
            weight[i] = num


@njit(cache=NUMBA_CACHE)
def percentile_assign(order, group, key, weight, B, out):
    """Percentile buckets: items sorted by (group, key) in `order`; within each group a run
    of equal keys with mass m after mass a (of the group's M) gets bucket
    min(B - 1, B * (2a + m) // (2M)) (the run's midpoint; equal keys never split)."""
    n = order.shape[0]
    i = 0
    while i < n:
        g = group[order[i]]
        j = i
        M = np.int64(0)
        while j < n and group[order[j]] == g:
            M += weight[order[j]]
            j += 1
        a = np.int64(0)
        p = i
        while p < j:
            kv = key[order[p]]
            q = p
            m = np.int64(0)
            while q < j and key[order[q]] == kv:
                m += weight[order[q]]
                q += 1
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


@njit(cache=NUMBA_CACHE, parallel=True)
def hole_states_on_boards(boards, nb, D, u_ranks, u_suits, u_gsz, u_key, u_offset, u_colex,
                          table, out):
    """out[b, k] = table[ordered class of (hole pair k over the board's rest | board b)].
    boards int64[N, max(nb, 1)] local; out int32[N, C(D - nb, 2)]."""
    N = boards.shape[0]
    m = D - nb
    nchunks = 64
    for ch in prange(nchunks):
        rest = np.empty(D, np.int64)
        hand = np.empty(2 + nb, np.int64)
        masks = np.zeros((u_suits, u_gsz.shape[0]), np.int64)
        codes = np.zeros(u_suits, np.int64)
        sidx = np.zeros(u_suits, np.int64)
        order = np.zeros(u_suits, np.int64)
        for b in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            rest_of(boards[b], nb, D, rest)
            for q in range(nb):
                hand[2 + q] = boards[b, q]
            k = 0
            for x in range(m):
                for y in range(x + 1, m):
                    hand[0] = rest[x]
                    hand[1] = rest[y]
                    out[b, k] = table[_index_one(hand, u_ranks, u_suits, u_gsz, u_key,
                                                 u_offset, u_colex, masks, codes, sidx,
                                                 order)]
                    k += 1


@njit(cache=NUMBA_CACHE)
def final_board_holes(parent_board, nb, child, k, D, to_global, pa, pb, H, rest, frest_g,
                      posmap, bg, ranks, hsnum, less_c, grp_c, pid):
    """Ranks and hsnum of every hole pair on parent_board + child; pid[k'] = the pair's
    number over the parent's rest. Returns the pairs in rank order. Scratch passed in."""
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
def last_round_histogram(parents, nb, pweight, children, orbit, child_parent, k, D, to_global,
                         group_of_hole, num_groups, max_hs, nthreads):
    """hist[g, v] = mass of (final board, hole) with group g (the hole's group on the parent
    board, group_of_hole[parent, pair]) and hsnum v. Children sorted by parent."""
    Q = children.shape[0]
    mB = D - nb
    mf = mB - k
    H = mf * (mf - 1) // 2
    pa = np.empty(H, np.int64)
    pb = np.empty(H, np.int64)
    t = 0
    for x in range(mf):
        for y in range(x + 1, mf):
            pa[t] = x
            pb[t] = y
            t += 1
    hists = np.zeros((nthreads, num_groups, max_hs + 1), np.int64)
    for th in prange(nthreads):
        rest = np.empty(D, np.int64)
        frest_g = np.empty(D, np.int64)
        posmap = np.empty(D, np.int64)
        bg = np.empty(nb + k, np.int64)
        ranks = np.empty(H, np.int64)
        hsnum = np.empty(H, np.int64)
        less_c = np.empty(mf, np.int64)
        grp_c = np.empty(mf, np.int64)
        pid = np.empty(H, np.int64)
        for q in range(th * Q // nthreads, (th + 1) * Q // nthreads):
            p = child_parent[q]
            w = pweight[p] * orbit[q]
            final_board_holes(parents[p], nb, children[q], k, D, to_global, pa, pb, H, rest,
                              frest_g, posmap, bg, ranks, hsnum, less_c, grp_c, pid)
            for h in range(H):
                hists[th, group_of_hole[p, pid[h]], hsnum[h]] += w
    return hists.sum(axis=0)


@njit(cache=NUMBA_CACHE)
def _player_states(hand, upto, R, totals, num_ranks, num_suits, colex, g_all, g_off, k_all,
                   k_off, o_all, o_off, t_all, t_off, m_gsz, m_key, m_off, hs, last, B, history,
                   perfect, out, masks, codes, sidx, order):
    """out[r] for r <= upto: one player's states; hand = hole then board (local cards).
    Rounds before the last: the ordered-class table of round r (packed in the *_all arrays,
    round r at [*_off[r], *_off[r+1])); the last round: last[group, hsnum] on top of the
    round before's state."""
    top = min(upto, R - 2)
    for r in range(top + 1):
        idx = _index_one(hand[:2 + totals[r]], num_ranks, num_suits,
                         g_all[g_off[r]:g_off[r + 1]], k_all[k_off[r]:k_off[r + 1]],
                         o_all[o_off[r]:o_off[r + 1]], colex, masks, codes, sidx, order)
        out[r] = t_all[t_off[r] + idx]
    if upto == R - 1:
        prev = np.int64(out[R - 2]) if R > 1 else np.int64(0)
        idx = _index_one(hand[:2 + totals[R - 1]], num_ranks, num_suits, m_gsz, m_key, m_off,
                         colex, masks, codes, sidx, order)
        g = prev if history else 0
        b = last[g, hs[idx]]
        out[R - 1] = prev * B + b if perfect else b


@njit(cache=NUMBA_CACHE, parallel=True)
def deal_states_rows(local, lookup, out):
    """out[i, p, r] for deals local int64[N, 4 + board] (holes by position, then board);
    ``lookup`` is a ``StateLookup``."""
    (R, totals, num_ranks, num_suits, colex, g_all, g_off, k_all, k_off, o_all, o_off, t_all,
     t_off, m_gsz, m_key, m_off, hs, last, B, history, perfect) = lookup
    N = local.shape[0]
    nbf = totals[R - 1]
    nchunks = 32
    for ch in prange(nchunks):
        hand = np.empty(2 + nbf, np.int64)
        masks = np.zeros((num_suits, 8), np.int64)
        codes = np.zeros(num_suits, np.int64)
        sidx = np.zeros(num_suits, np.int64)
        order = np.zeros(num_suits, np.int64)
        row = np.empty(R, np.int64)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            for q in range(nbf):
                hand[2 + q] = local[i, 4 + q]
            for p in range(2):
                hand[0] = local[i, 2 * p]
                hand[1] = local[i, 2 * p + 1]
                _player_states(hand, R - 1, R, totals, num_ranks, num_suits, colex, g_all, g_off,
                               k_all, k_off, o_all, o_off, t_all, t_off, m_gsz, m_key, m_off, hs,
                               last, B, history, perfect, row, masks, codes, sidx, order)
                for r in range(R):
                    out[i, p, r] = row[r]


@njit(cache=NUMBA_CACHE)
def one_player_states(hand, upto, lookup):
    """States of one player up to round `upto` (int64[R]; entries past upto unset)."""
    (R, totals, num_ranks, num_suits, colex, g_all, g_off, k_all, k_off, o_all, o_off, t_all,
     t_off, m_gsz, m_key, m_off, hs, last, B, history, perfect) = lookup
    masks = np.zeros((num_suits, 8), np.int64)
    codes = np.zeros(num_suits, np.int64)
    sidx = np.zeros(num_suits, np.int64)
    order = np.zeros(num_suits, np.int64)
    row = np.zeros(R, np.int64)
    _player_states(hand, upto, R, totals, num_ranks, num_suits, colex, g_all, g_off, k_all,
                   k_off, o_all, o_off, t_all, t_off, m_gsz, m_key, m_off, hs, last, B,
                   history, perfect, row, masks, codes, sidx, order)
    return row


@njit(cache=NUMBA_CACHE, parallel=True)
def last_round_histogram_sets(sets, nb, weight, splits, k, D, to_global, u_ranks, u_suits, u_gsz,
                              u_key, u_offset, u_colex, prev_table, G, max_hs, nthreads):
    """hist[g, v] as ``last_round_histogram``, enumerating boards of the round before as
    canonical *sets* of nb cards (weight = raw sets in the class) and every way ``splits``
    (int64[P, nb], positions inside the set) orders a set into rounds: a final board's hand
    strengths are computed once and serve every ordering, whose hole states come from the
    ordered indexer u and prev_table."""
    N = sets.shape[0]
    P = splits.shape[0]
    mB = D - nb
    HB = mB * (mB - 1) // 2
    mf = mB - k
    H = mf * (mf - 1) // 2
    pa = np.empty(H, np.int64)
    pb = np.empty(H, np.int64)
    t = 0
    for x in range(mf):
        for y in range(x + 1, mf):
            pa[t] = x
            pb[t] = y
            t += 1
    hists = np.zeros((nthreads, G, max_hs + 1), np.int64)
    for th in prange(nthreads):
        rest = np.empty(D, np.int64)
        rest2 = np.empty(D, np.int64)
        frest_g = np.empty(D, np.int64)
        posmap = np.empty(D, np.int64)
        bg = np.empty(nb + k, np.int64)
        ranks = np.empty(H, np.int64)
        hsnum = np.empty(H, np.int64)
        less_c = np.empty(mf, np.int64)
        grp_c = np.empty(mf, np.int64)
        pid = np.empty(H, np.int64)
        hand = np.empty(2 + nb, np.int64)
        st = np.empty((P, HB), np.int64)
        comb = np.empty(max(k, 1), np.int64)
        child = np.empty(max(k, 1), np.int64)
        masks = np.zeros((u_suits, u_gsz.shape[0]), np.int64)
        codes = np.zeros(u_suits, np.int64)
        sidx = np.zeros(u_suits, np.int64)
        order = np.zeros(u_suits, np.int64)
        hist = hists[th]
        for i in range(th * N // nthreads, (th + 1) * N // nthreads):
            w = weight[i]
            rest_of(sets[i], nb, D, rest2)
            for s in range(P):
                for q in range(nb):
                    hand[2 + q] = sets[i, splits[s, q]]
                kk = 0
                for x in range(mB):
                    for y in range(x + 1, mB):
                        hand[0] = rest2[x]
                        hand[1] = rest2[y]
                        st[s, kk] = prev_table[_index_one(hand, u_ranks, u_suits, u_gsz, u_key,
                                                          u_offset, u_colex, masks, codes,
                                                          sidx, order)]
                        kk += 1
            for j in range(k):
                comb[j] = j
            more = True
            while more:
                for j in range(k):
                    child[j] = rest2[comb[j]]
                final_board_holes(sets[i], nb, child, k, D, to_global, pa, pb, H, rest, frest_g,
                                  posmap, bg, ranks, hsnum, less_c, grp_c, pid)
                for h in range(H):
                    v = hsnum[h]
                    p_ = pid[h]
                    for s in range(P):
                        hist[st[s, p_], v] += w
                j = k - 1
                while j >= 0 and comb[j] == mB - k + j:
                    j -= 1
                if j < 0:
                    more = False
                else:
                    comb[j] += 1
                    for jj in range(j + 1, k):
                        comb[jj] = comb[jj - 1] + 1
    return hists.sum(axis=0)
