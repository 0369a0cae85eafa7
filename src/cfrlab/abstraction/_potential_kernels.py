"""Numba kernels of potential-aware bucketing (``cfrlab.abstraction.potential``).

A point is a hand's histogram over the next round's clusters, stored sparse: row i holds
``nnz[i]`` (cluster, mass) entries in ``lab[i]`` / ``mass[i]``, masses summing to 1. A center
is dense (one mass per next-round cluster). Distances are a greedy transport in the manner
of Ganzfried and Sandholm's approximate earth mover's distance: rank by rank, every entry of
the point ships its mass to the nearest cluster (by the ground distance from its own) where
the center still has mass to take. The result is the cost of a feasible transport, so never
below the exact EMD, and exact when the point is one cluster's mass.

Bundles: ``Sparse`` (lab int32[N, m], mass float64[N, m], nnz int32[N]) from
``cfrlab.abstraction.potential``; the centers' supports (``center_supports``: soff, tgt,
off, srt).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.abstraction._metrics_kernels import completion_indices, completion_scratch
from cfrlab.cards.kernels import binom
from cfrlab.config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE, parallel=True)
def next_histograms(num_classes, nb, knew, D, ux, nx, labels, lab, mass, nnz):
    """Row i: the next round's clusters (``labels`` of the ``Indexer`` nx's classes) that the
    completions (knew more board cards) of class i of the ``Unindexer`` ux (hole | nb board
    cards) reach, each with its share of the completions; entries by cluster, ascending."""
    nchunks = 64
    ncomp = binom(D - 2 - nb, knew)
    for ch in prange(nchunks):
        cs = completion_scratch(ux, nx, nb, knew, D)
        idx = np.empty(ncomp, np.int64)
        seen = np.empty(ncomp, np.int64)
        for i in range(ch * num_classes // nchunks, (ch + 1) * num_classes // nchunks):
            total = completion_indices(i, ux, nx, nb, knew, D, cs, idx)
            for x in range(total):
                seen[x] = labels[idx[x]]
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


@njit(cache=NUMBA_CACHE, parallel=True)
def center_supports(C, order, first, count):
    """(soff, tgt, off, srt): the supports of centers ``first`` to ``first + count`` of C,
    each one's clusters of positive mass (by index: ``tgt[soff[c]:soff[c + 1]]``) and, for
    every cluster j, the support's positions sorted by ground distance from j (the order of
    ``order[j]``): ``srt[off[c] + j * S + rank]``, S the support's size. A transport then
    walks only clusters with mass to take: a center of ~40 clusters of 625 costs ~40 ranks,
    not hundreds."""
    K = C.shape[1]
    size = np.zeros(count, np.int64)
    for c in range(count):
        for t in range(K):
            if C[first + c, t] > 0.0:
                size[c] += 1
    soff = np.zeros(count + 1, np.int64)
    off = np.zeros(count + 1, np.int64)
    for c in range(count):
        soff[c + 1] = soff[c] + size[c]
        off[c + 1] = off[c] + K * size[c]
    tgt = np.empty(soff[count], np.int64)
    srt = np.empty(off[count], np.int32)
    for c in prange(count):
        pos = np.full(K, -1, np.int64)
        S = 0
        for t in range(K):
            if C[first + c, t] > 0.0:
                tgt[soff[c] + S] = t
                pos[t] = S
                S += 1
        for j in range(K):
            q = off[c] + j * S
            for x in range(K):
                s = pos[order[j, x]]
                if s >= 0:
                    srt[q] = s
                    q += 1
    return soff, tgt, off, srt


@njit(cache=NUMBA_CACHE)
def greedy_emd(plab, pmass, n, C, c, k, dist, sup, cap, rem):
    """The greedy transport cost from the sparse point (``plab``/``pmass``, n entries) to row
    k of C, whose support is entry c of ``sup`` (``center_supports``): rank by rank, every
    entry with mass left ships it to its next-nearest support cluster with mass left.
    ``cap`` (>= the support) and ``rem`` (>= n) are scratch."""
    soff, tgt, off, srt = sup
    s0 = soff[c]
    S = soff[c + 1] - s0
    for s in range(S):
        cap[s] = C[k, tgt[s0 + s]]
    left = 0
    for e in range(n):
        rem[e] = pmass[e]
        if rem[e] > 0.0:
            left += 1
    cost = 0.0
    for rank in range(S):
        for e in range(n):
            r = rem[e]
            if r <= 0.0:
                continue
            j = plab[e]
            s = srt[off[c] + j * S + rank]
            avail = cap[s]
            if avail <= 0.0:
                continue
            amt = min(avail, r)
            cap[s] = avail - amt
            cost += amt * dist[j, tgt[s0 + s]]
            if r - amt <= 1e-12:  # masses sum to 1 on both sides: rounding leaves crumbs
                rem[e] = 0.0
                left -= 1
            else:
                rem[e] = r - amt
        if left == 0:
            break
    return cost


@njit(cache=NUMBA_CACHE, parallel=True)
def nearest_support(C, dist, sup):
    """mind[c, j]: the ground distance from cluster j to the nearest cluster of center c's
    support. Every unit of a point's mass at j travels at least that far to center c, so
    sum_e mass[e] * mind[c, lab[e]] bounds the exact EMD, and so the greedy one, from below."""
    soff, tgt, off, srt = sup
    k, K = C.shape
    mind = np.zeros((k, K))
    for c in prange(k):
        S = soff[c + 1] - soff[c]
        for j in range(K):
            mind[c, j] = dist[j, tgt[soff[c] + srt[off[c] + j * S]]] if S > 0 else np.inf
    return mind


@njit(cache=NUMBA_CACHE, parallel=True)
def sparse_nearest(pts, C, dist, sup, mind, hint, labels, out):
    """labels[i] = the center nearest to point i by ``greedy_emd`` (the first on ties),
    out[i] that distance; ``sup``: the supports of every center. The point's ``hint`` center
    (its last label, or -1) is measured first; a center whose lower bound (``mind``) already
    exceeds the best distance found cannot win and is skipped (the same labels as measuring
    every center: the bound never exceeds the greedy distance)."""
    lab, mass, nnz = pts
    N = nnz.shape[0]
    k, K = C.shape
    nchunks = 64
    for ch in prange(nchunks):
        rem = np.empty(lab.shape[1])
        cap = np.empty(K)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            li, mi, n = lab[i], mass[i], nnz[i]
            best = np.inf
            bj = -1
            h = hint[i]
            if h >= 0:
                best = greedy_emd(li, mi, n, C, h, h, dist, sup, cap, rem)
                bj = h
            for j in range(k):
                if j == h:
                    continue
                lb = 0.0
                for e in range(n):
                    lb += mi[e] * mind[j, li[e]]
                if lb > best or (lb == best and j > bj):
                    continue
                d = greedy_emd(li, mi, n, C, j, j, dist, sup, cap, rem)
                if d < best or (d == best and j < bj):
                    best = d
                    bj = j
            labels[i] = bj
            out[i] = best


@njit(cache=NUMBA_CACHE, parallel=True)
def sparse_distances_to(pts, C, j, dist, sup, out):
    """out[i] = ``greedy_emd`` of point i to center j (``sup``: its support alone)."""
    lab, mass, nnz = pts
    N = nnz.shape[0]
    K = C.shape[1]
    nchunks = 64
    for ch in prange(nchunks):
        rem = np.empty(lab.shape[1])
        cap = np.empty(K)
        for i in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            out[i] = greedy_emd(lab[i], mass[i], nnz[i], C, 0, j, dist, sup, cap, rem)


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
def center_distances(C, dist, sup, out):
    """out[a, b]: the ground distance between this round's centers for the round before,
    the smaller greedy transport of the two directions (both are feasible transports)."""
    k, K = C.shape
    for a in prange(k):
        lab = np.empty(K, np.int64)
        mass = np.empty(K)
        rem = np.empty(K)
        cap = np.empty(K)
        n = 0
        for t in range(K):
            if C[a, t] > 0.0:
                lab[n] = t
                mass[n] = C[a, t]
                n += 1
        for b in range(k):
            out[a, b] = 0.0 if a == b else greedy_emd(lab, mass, n, C, b, b, dist, sup, cap, rem)
    for a in range(k):  # rows were filled in parallel; the min of the two makes it symmetric
        for b in range(a + 1, k):
            m = min(out[a, b], out[b, a])
            out[a, b] = m
            out[b, a] = m
