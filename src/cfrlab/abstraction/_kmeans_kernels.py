"""Numba kernels of distribution-aware bucketing (``cfrlab.abstraction.kmeans``).

- ``hs_histograms``: per canonical (hole | board) class of a round, the histogram of the
  final (river) hand strength over every completing board, read from the river's exact
  hsnum table (``cfrlab.abstraction.metrics``);
- ``ochs_table``: per canonical river class, the hand strength against every cluster of
  opponent hole pairs (wins + ties / 2 over the disjoint opponent pairs of that cluster), by
  one rank sweep per board with per-card counts by cluster (card removal exact);
- ``nearest`` / ``distances_to`` / ``weighted_centers``: the k-means steps, L1 (the earth
  mover's distance on cumulative histograms) or squared L2.

Cards are deck-local ids; bundles (``Indexer``, ``Unindexer``) as in ``_metrics_kernels``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.abstraction._metrics_kernels import (
    board_key,
    completion_indices,
    completion_scratch,
    index_scratch,
    ranks_on_board,
    rest_of,
)
from cfrlab.cards.kernels import binom
from cfrlab.cards.kernels import index_one as _index_one
from cfrlab.config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE, parallel=True)
def hs_histograms(num_classes, nb, knew, D, ux, rx, hs, den, out):
    """out[i, b] = number of completions (knew more board cards) of class i of the
    ``Unindexer`` ux (hole | nb board cards) whose river hsnum falls in bin b of
    ``out.shape[1]`` equal-width bins over [0, den] (the last bin closed); ``rx`` indexes
    hole | final board, ``hs`` its hsnum table."""
    bins = out.shape[1]
    nchunks = 64
    ncomp = binom(D - 2 - nb, knew)
    for ch in prange(nchunks):
        cs = completion_scratch(ux, rx, nb, knew, D)
        idx = np.empty(ncomp, np.int64)
        for i in range(ch * num_classes // nchunks, (ch + 1) * num_classes // nchunks):
            for x in range(completion_indices(i, ux, rx, nb, knew, D, cs, idx)):
                out[i, min(bins - 1, np.int64(hs[idx[x]]) * bins // den)] += 1


@njit(cache=NUMBA_CACHE, parallel=True)
def ochs_table(boards, D, to_global, pa, pb, rx, px, opp_cluster, out):
    """out[index(hole | board), c] = hand strength of the hole against the opponent pairs of
    cluster c (``opp_cluster[preflop class]``) on every board row (int64[N, bf], local
    cards; one per canonical final board set): (wins + ties / 2) / pairs, 0.5 when no
    disjoint pair of that cluster exists. ``rx``: the river (hole | board) ``Indexer``,
    ``px`` the preflop one; ``pa``/``pb`` the pair tables over the D - bf cards left."""
    N, bf = boards.shape
    K = out.shape[1]
    H = pa.shape[0]
    r_ranks, r_suits, r_gsz, r_key, r_off, r_colex = rx
    p_ranks, p_suits, p_gsz, p_key, p_off, p_colex = px
    nchunks = 64
    for ch in prange(nchunks):
        rest = np.empty(D, np.int64)
        rest_g = np.empty(D, np.int64)
        bg = np.empty(max(bf, 1), np.int64)
        ranks = np.empty(H, np.int64)
        cl = np.empty(H, np.int64)
        keys = np.empty(H, np.int64)
        tot = np.zeros(K)
        tot_c = np.zeros((D, K))
        below = np.zeros(K)
        below_c = np.zeros((D, K))
        grp = np.zeros(K)
        grp_c = np.zeros((D, K))
        hand = np.empty(2 + bf, np.int64)
        two = np.empty(2, np.int64)
        masks, codes, sidx, order = index_scratch(r_suits, r_gsz.shape[0])
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            m = rest_of(boards[i], bf, D, rest)
            for q in range(bf):
                bg[q] = to_global[boards[i, q]]
                hand[2 + q] = boards[i, q]
            for x in range(m):
                rest_g[x] = to_global[rest[x]]
            bkey, bbits = board_key(bg, bf)
            ranks_on_board(bkey, bbits, rest_g, pa, pb, H, ranks)
            tot[:] = 0.0
            tot_c[:, :] = 0.0
            below[:] = 0.0
            below_c[:, :] = 0.0
            for k in range(H):
                two[0] = rest[pa[k]]
                two[1] = rest[pb[k]]
                c = opp_cluster[_index_one(two, p_ranks, p_suits, p_gsz, p_key, p_off, p_colex,
                                           masks, codes, sidx, order)]
                cl[k] = c
                tot[c] += 1.0
                tot_c[pa[k], c] += 1.0
                tot_c[pb[k], c] += 1.0
                keys[k] = (ranks[k] << 20) | k
            keys.sort()
            j = 0
            while j < H:
                r = ranks[keys[j] & 0xFFFFF]
                e = j
                while e < H and ranks[keys[e] & 0xFFFFF] == r:
                    k = keys[e] & 0xFFFFF
                    grp[cl[k]] += 1.0
                    grp_c[pa[k], cl[k]] += 1.0
                    grp_c[pb[k], cl[k]] += 1.0
                    e += 1
                for q in range(j, e):
                    k = keys[q] & 0xFFFFF
                    a, b = pa[k], pb[k]
                    hand[0] = rest[a]
                    hand[1] = rest[b]
                    idx = _index_one(hand, r_ranks, r_suits, r_gsz, r_key, r_off, r_colex, masks,
                                     codes, sidx, order)
                    for c in range(K):
                        own = 1.0 if cl[k] == c else 0.0  # the pair itself is in both card counts
                        n = tot[c] - tot_c[a, c] - tot_c[b, c] + own
                        if n <= 0.0:
                            out[idx, c] = 0.5
                            continue
                        wins = below[c] - below_c[a, c] - below_c[b, c]
                        ties = grp[c] - grp_c[a, c] - grp_c[b, c] + own
                        out[idx, c] = (wins + 0.5 * ties) / n
                for q in range(j, e):
                    k = keys[q] & 0xFFFFF
                    c = cl[k]
                    below[c] += 1.0
                    below_c[pa[k], c] += 1.0
                    below_c[pb[k], c] += 1.0
                    grp[c] = 0.0
                    grp_c[pa[k], c] = 0.0
                    grp_c[pb[k], c] = 0.0
                j = e


@njit(cache=NUMBA_CACHE, inline="always")
def _dist(X, i, C, j, l1):
    s = 0.0
    for q in range(X.shape[1]):
        d = X[i, q] - C[j, q]
        s += abs(d) if l1 else d * d
    return s


@njit(cache=NUMBA_CACHE, parallel=True)
def nearest(X, C, l1, labels, dist):
    """labels[i] = the nearest row of C to row i of X (the first on ties), dist[i] its
    distance (L1, or squared L2)."""
    n = X.shape[0]
    k = C.shape[0]
    for i in prange(n):
        best = np.inf
        bj = 0
        for j in range(k):
            d = _dist(X, i, C, j, l1)
            if d < best:
                best = d
                bj = j
        labels[i] = bj
        dist[i] = best


@njit(cache=NUMBA_CACHE, parallel=True)
def distances_to(X, C, j, l1, out):
    """out[i] = distance of row i of X to row j of C (L1, or squared L2)."""
    for i in prange(X.shape[0]):
        out[i] = _dist(X, i, C, j, l1)


@njit(cache=NUMBA_CACHE)
def weighted_centers(X, w, labels, C, wsum):
    """C[j] = the w-weighted mean of the rows labelled j; rows of empty clusters are kept
    (wsum[j] = 0). Sequential: the sums are the same on every run."""
    k, d = C.shape
    acc = np.zeros((k, d))
    wsum[:] = 0.0
    for i in range(X.shape[0]):
        j = labels[i]
        wi = w[i]
        wsum[j] += wi
        for q in range(d):
            acc[j, q] += wi * X[i, q]
    for j in range(k):
        if wsum[j] > 0.0:
            for q in range(d):
                C[j, q] = acc[j, q] / wsum[j]
