"""Numba kernels of potential-aware bucketing (``cfrlab.abstraction.potential``).

A point is a hand's histogram over the next round's clusters, stored sparse: row i holds
``nnz[i]`` (cluster, mass) entries in ``lab[i]`` / ``mass[i]``, masses summing to 1. A center
is dense (one mass per next-round cluster). Distances are the greedy transport of Ganzfried
and Sandholm's approximate earth mover's distance: every entry sends its mass to the center's
clusters nearest to its own first (``order[j]``: the next-round clusters by ground distance
from j), rank by rank over all entries at once. The result is the cost of a feasible
transport, so never below the exact EMD, and exact when the point is one cluster's mass.

Bundles: ``Sparse`` (lab int32[N, m], mass float64[N, m], nnz int32[N]) and ``Ground``
(dist float64[K, K], order int64[K, K]) from ``cfrlab.abstraction.potential``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.abstraction._metrics_kernels import index_scratch, start_completions
from cfrlab.cards.kernels import index_one as _index_one
from cfrlab.cards.kernels import next_combination as _next_combo
from cfrlab.config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE, parallel=True)
def next_histograms(num_classes, nb, knew, ncomp, D, ux, nx, labels, lab, mass, nnz):
    """Row i: the next round's clusters (``labels`` of the ``Indexer`` nx's classes) that the
    completions (knew more board cards) of class i of the ``Unindexer`` ux (hole | nb board
    cards) reach, each with its share of the ``ncomp`` completions; entries by cluster,
    ascending."""
    u_suits, u_gsz = ux[1], ux[2]
    n_ranks, n_suits, n_gsz, n_key, n_offset, n_colex = nx
    nchunks = 64
    for ch in prange(nchunks):
        hand = np.empty(2 + nb, np.int64)
        nxt = np.empty(2 + nb + knew, np.int64)
        used = np.zeros(D, np.bool_)
        rest = np.empty(D, np.int64)
        comb = np.empty(max(knew, 1), np.int64)
        work = np.zeros((3, u_gsz.shape[0]), np.int64)
        masks, codes, sidx, order = index_scratch(u_suits, n_gsz.shape[0])
        seen = np.empty(ncomp, np.int64)
        for i in range(ch * num_classes // nchunks, (ch + 1) * num_classes // nchunks):
            m = start_completions(i, ux, nb, knew, D, hand, nxt, used, rest, comb, sidx, work)
            total = 0
            more = True
            while more:
                for j in range(knew):
                    nxt[2 + nb + j] = rest[comb[j]]
                idx = _index_one(nxt, n_ranks, n_suits, n_gsz, n_key, n_offset, n_colex, masks,
                                 codes, sidx, order)
                seen[total] = labels[idx]
                total += 1
                more = knew > 0 and _next_combo(comb, knew, m)
            seen[:total].sort()
            e = 0
            a = 0
            while a < total:
                b = a
                while b < total and seen[b] == seen[a]:
                    b += 1
                lab[i, e] = seen[a]
                mass[i, e] = (b - a) / total
                e += 1
                a = b
            nnz[i] = e


@njit(cache=NUMBA_CACHE)
def greedy_emd(plab, pmass, n, C, k, ground, rem, used, touched):
    """The greedy transport cost from the sparse point (``plab``/``pmass``, n entries) to
    center row k of C; ``rem`` (>= n), ``used`` (K, all zero) and ``touched`` (K) are scratch,
    ``used`` left all zero again."""
    dist, order = ground
    K = C.shape[1]
    left = 0
    for e in range(n):
        rem[e] = pmass[e]
        if rem[e] > 0.0:
            left += 1
    cost = 0.0
    nt = 0
    for rank in range(K):
        for e in range(n):
            r = rem[e]
            if r <= 0.0:
                continue
            j = plab[e]
            t = order[j, rank]
            avail = C[k, t] - used[t]
            if avail <= 0.0:
                continue
            amt = min(avail, r)
            if used[t] == 0.0:
                touched[nt] = t
                nt += 1
            used[t] += amt
            cost += amt * dist[j, t]
            if r - amt <= 1e-12:  # masses sum to 1 on both sides: rounding leaves crumbs
                rem[e] = 0.0
                left -= 1
            else:
                rem[e] = r - amt
        if left == 0:
            break
    for x in range(nt):
        used[touched[x]] = 0.0
    return cost


@njit(cache=NUMBA_CACHE, parallel=True)
def sparse_nearest(pts, C, ground, labels, dist):
    """labels[i] = the center nearest to point i by ``greedy_emd`` (the first on ties),
    dist[i] that distance."""
    lab, mass, nnz = pts
    N = nnz.shape[0]
    K = C.shape[1]
    nchunks = 64
    for ch in prange(nchunks):
        rem = np.empty(lab.shape[1])
        used = np.zeros(K)
        touched = np.empty(K, np.int64)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            best = np.inf
            bj = 0
            for j in range(C.shape[0]):
                d = greedy_emd(lab[i], mass[i], nnz[i], C, j, ground, rem, used, touched)
                if d < best:
                    best = d
                    bj = j
            labels[i] = bj
            dist[i] = best


@njit(cache=NUMBA_CACHE, parallel=True)
def sparse_distances_to(pts, C, j, ground, out):
    """out[i] = ``greedy_emd`` of point i to center j."""
    lab, mass, nnz = pts
    N = nnz.shape[0]
    K = C.shape[1]
    nchunks = 64
    for ch in prange(nchunks):
        rem = np.empty(lab.shape[1])
        used = np.zeros(K)
        touched = np.empty(K, np.int64)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            out[i] = greedy_emd(lab[i], mass[i], nnz[i], C, j, ground, rem, used, touched)


@njit(cache=NUMBA_CACHE)
def sparse_centers(pts, w, labels, C, wsum):
    """C[j] = the w-weighted mean histogram of the points labelled j (dense); rows of empty
    clusters are kept. Sequential: the same sums on every run."""
    lab, mass, nnz = pts
    k, K = C.shape
    acc = np.zeros((k, K))
    wsum[:] = 0.0
    for i in range(nnz.shape[0]):
        j = labels[i]
        wsum[j] += w[i]
        for e in range(nnz[i]):
            acc[j, lab[i, e]] += w[i] * mass[i, e]
    for j in range(k):
        if wsum[j] > 0.0:
            for t in range(K):
                C[j, t] = acc[j, t] / wsum[j]


@njit(cache=NUMBA_CACHE, parallel=True)
def center_distances(C, ground, out):
    """out[a, b]: the ground distance between this round's centers for the round before,
    the smaller greedy transport of the two directions (both are feasible transports)."""
    k, K = C.shape
    for a in prange(k):
        lab = np.empty(K, np.int64)
        mass = np.empty(K)
        rem = np.empty(K)
        used = np.zeros(K)
        touched = np.empty(K, np.int64)
        n = 0
        for t in range(K):
            if C[a, t] > 0.0:
                lab[n] = t
                mass[n] = C[a, t]
                n += 1
        for b in range(k):
            out[a, b] = 0.0 if a == b else greedy_emd(lab, mass, n, C, b, ground, rem, used,
                                                       touched)
    # the two directions: rows were filled in parallel; the min makes it symmetric
    for a in range(k):
        for b in range(a + 1, k):
            m = min(out[a, b], out[b, a])
            out[a, b] = m
            out[b, a] = m
