"""Potential-aware imperfect-recall buckets, after Ganzfried and Sandholm ("Potential-aware
imperfect-recall abstraction with earth mover's distance in imperfect-information games",
AAAI 2014).

A distribution-aware round (``kmeans``, metric ``emd``) clusters hands by their histogram of
*final* hand strength; a potential-aware round clusters them by their histogram over the
*next round's clusters*: for each card (or flop) still to come, which next-round bucket the
hand lands in. The rounds are built from the last backwards: the last round as its spec says
(OCHS, or the river hand strength), then each earlier round on histograms over the buckets
just built. The earth mover's distance between two such histograms needs a ground distance
between next-round clusters: the distance between their centers (Euclidean between OCHS
centers, L1 between cumulative hand-strength histograms, and for a potential-aware round the
same transport distance between its centers, one level down).

The transport is a greedy approximation in the manner of the paper's
(``_potential_kernels.greedy_emd``): rank by rank, every entry of the hand's histogram ships
its mass to the nearest of the center's clusters (by ground distance from its own) that still
has mass to take. Its cost is that of a feasible transport, so it is
never below the exact EMD (``exact_emd``, a linear program, checks it in the tests), and it is
exact when the hand's mass sits on one cluster. Points are sparse (a hand reaches at most
as many clusters as it has completions); centers are dense weighted means.
"""

from __future__ import annotations

from collections import namedtuple
from math import comb

import numpy as np

from cfrlab.abstraction import _metrics_kernels as MK
from cfrlab.abstraction import _potential_kernels as PK
from cfrlab.abstraction.metrics import board_totals, check_holdem_style, metric_indexers
from cfrlab.errors import CfrlabError

Sparse = namedtuple("Sparse", "lab mass nnz")  # int32[N, m], float64[N, m], int32[N]
Ground = namedtuple("Ground", "dist order")  # float64[K, K]; int64[K, K]: nearest first


def ground_of(dist: np.ndarray) -> Ground:
    """A ``Ground`` from a (K, K) distance matrix: each row's clusters nearest first (ties by
    index, so the order is the same everywhere)."""
    d = np.ascontiguousarray(dist, dtype=np.float64)
    return Ground(d, np.ascontiguousarray(np.argsort(d, axis=1, kind="stable"), dtype=np.int64))


def center_ground(C: np.ndarray, l1: bool) -> Ground:
    """Ground distances between the centers of a round clustered by L1 (EMD on cumulative
    histograms) or squared L2 (then Euclidean: a distance, not its square)."""
    C = np.asarray(C, dtype=np.float64)
    diff = C[:, None, :] - C[None, :, :]
    d = np.abs(diff).sum(axis=2) if l1 else np.sqrt((diff * diff).sum(axis=2))
    return ground_of(d)


def supports(C: np.ndarray, ground: Ground, first: int = 0, count: int | None = None):
    """The supports of centers ``first`` to ``first + count`` of C (``center_supports``)."""
    count = len(C) - first if count is None else count
    return PK.center_supports(C, ground.order, first, count)


def potential_ground(C: np.ndarray, ground: Ground) -> Ground:
    """Ground distances between the centers of a potential-aware round (histograms over the
    next round's clusters, whose ground is ``ground``): the greedy transport between them."""
    C = np.ascontiguousarray(C, dtype=np.float64)
    out = np.empty((len(C), len(C)))
    PK.center_distances(C, ground.dist, supports(C, ground), out)
    return ground_of(out)


def next_completions(game, r: int) -> int:
    """Ways to deal round r + 1's new board cards to a round-r hand (``kmeans.completions``
    counts the final boards instead)."""
    totals = board_totals(game)
    return comb(game.deck_size - 2 - totals[r], totals[r + 1] - totals[r])


def next_round_histograms(game, r: int, next_labels: np.ndarray, K: int) -> Sparse:
    """Per canonical (hole | board) class of round r, its histogram over the ``K`` clusters of
    round r + 1 (``next_labels``: the cluster of each of that round's classes; int32, as a
    build keeps them, is read without a copy), sparse."""
    check_holdem_style(game)
    if not 0 <= r < game.num_rounds - 1:
        raise CfrlabError(f"potential-aware histograms are for rounds before the last, not {r}")
    ixs = metric_indexers(game)
    totals = board_totals(game)
    ix, nx = ixs[r], ixs[r + 1]
    ncomp = next_completions(game, r)
    m = min(ncomp, K)
    lab = np.zeros((ix.size, m), dtype=np.int32)
    mass = np.zeros((ix.size, m))
    nnz = np.zeros(ix.size, dtype=np.int32)
    PK.next_histograms(ix.size, totals[r], totals[r + 1] - totals[r], game.deck_size,
                       MK.Unindexer(*ix.unindex_args), MK.Indexer(*nx.index_args),
                       np.ascontiguousarray(next_labels, dtype=np.int32), lab, mass, nnz)
    return Sparse(lab, mass, nnz)


def bytes_per_class(game, r: int, K: int) -> int:
    """Memory of one class's sparse histogram at round r over K next-round clusters."""
    return min(next_completions(game, r), K) * (4 + 8) + 4


class SparsePoints:
    """Sparse histograms as k-means points (``kmeans.kmeans_points``), greedy EMD."""

    squared = False  # k-means++ draws by the distance squared
    stop_on_cycle = True  # a greedy transport: Lloyd passes may cycle among a few points

    def __init__(self, pts: Sparse, ground: Ground):
        self.pts, self.ground = pts, ground
        self.n = len(pts.nnz)
        self.dim = len(ground.dist)

    def take(self, pick: np.ndarray) -> SparsePoints:
        p = self.pts
        return SparsePoints(Sparse(np.ascontiguousarray(p.lab[pick]),
                                   np.ascontiguousarray(p.mass[pick]),
                                   np.ascontiguousarray(p.nnz[pick])), self.ground)

    def row(self, i: int) -> np.ndarray:
        out = np.zeros(self.dim)
        n = int(self.pts.nnz[i])
        out[self.pts.lab[i, :n]] = self.pts.mass[i, :n]
        return out

    def distances_to(self, C, j, out) -> None:
        PK.sparse_distances_to(self.pts, C, j, self.ground.dist, supports(C, self.ground, j, 1),
                               out)

    def nearest(self, C, labels, dist, hint=None) -> None:
        sup = supports(C, self.ground)
        mind = PK.nearest_support(C, self.ground.dist, sup)
        hint = np.full(self.n, -1, np.int64) if hint is None else hint
        PK.sparse_nearest(self.pts, C, self.ground.dist, sup, mind, hint, labels, dist)

    def centers(self, w, labels, C, wsum) -> None:
        PK.sparse_centers(self.pts, w, labels, C, wsum)


def greedy_emd(p, q, dist) -> float:
    """The greedy transport cost from histogram p to histogram q (each normalised to mass 1)
    over the ground distance matrix ``dist`` (module docstring)."""
    p, q = _normalised(p), _normalised(q)
    if p.shape != q.shape or dist.shape != (len(p), len(p)):
        raise CfrlabError("greedy_emd takes two histograms over the same clusters and their "
                          "(K, K) ground distances")
    g = ground_of(dist)
    lab = np.flatnonzero(p).astype(np.int32)
    C = q[None, :]
    K = len(p)
    return float(PK.greedy_emd(lab, p[lab], len(lab), C, 0, 0, g.dist, supports(C, g),
                               np.empty(K), np.empty(K)))


def exact_emd(p, q, dist) -> float:
    """The exact earth mover's distance by a linear program (HiGHS): small histograms only."""
    from scipy.optimize import linprog

    p, q = _normalised(p), _normalised(q)
    K = len(p)
    A = np.zeros((2 * K, K * K))
    for i in range(K):
        A[i, i * K:(i + 1) * K] = 1.0  # row i ships p[i]
        A[K + i, i::K] = 1.0  # column i receives q[i]
    res = linprog(np.asarray(dist, dtype=np.float64).ravel(), A_eq=A, b_eq=np.concatenate([p, q]),
                  bounds=(0, None), method="highs")
    if res.status != 0:
        raise CfrlabError(f"the transport LP failed: {res.message}")
    return float(res.fun)


def _normalised(h) -> np.ndarray:
    h = np.asarray(h, dtype=np.float64)
    if h.ndim != 1 or h.sum() <= 0 or (h < 0).any():
        raise CfrlabError("a histogram is a non-empty 1-D array of masses >= 0")
    return h / h.sum()
