"""Distribution-aware imperfect-recall buckets, as Johanson, Burch, Valenzano and Bowling
evaluate them ("Evaluating state-space abstractions in extensive-form games", AAMAS 2013):

- rounds before the last: k-means on each hand's *histogram of final hand strength* (the
  river HS against a uniformly random opponent, over every completing board; ``bins``
  equal-width bins on [0, 1]) with the earth mover's distance, which for 1-D histograms of
  equal-width bins is the L1 distance between their cumulative forms times the bin width;
- the last round: k-means on *opponent-cluster hand strength* (OCHS): the hand strength
  against each of ``opp_clusters`` clusters of opponent preflop hands (those clusters are
  themselves k-means/EMD clusters of the preflop classes), squared L2 distance; or EMD on the
  (one-point) histogram of the river HS.

Points are the canonical (hole | board as a set) classes of the round, weighted by how many
hands each stands for. k-means++ seeding draws from ``numpy.random.default_rng(seed)``; the
assignment and update steps are numba kernels whose results do not depend on the thread
count, so a build with a fixed seed is the same everywhere. Iterations stop when no point
changes cluster, or after ``KMEANS_ITERATIONS``.

The model stores each round's bucket per ordered class (rounds before the last, like the
percentile buckets) and, on the last round, a bucket per river class in place of the
hand-strength table (``BucketMaps.river``). Its state is the round's bucket alone
(imperfect recall), so it is solved by public chance sampling over real hole pairs.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from itertools import combinations
from math import comb

import numba
import numpy as np

from cfrlab.abstraction import _bucket_kernels as BK
from cfrlab.abstraction import _kmeans_kernels as KK
from cfrlab.abstraction import _metrics_kernels as MK
from cfrlab.abstraction import potential as PA
from cfrlab.abstraction.buckets import BucketMaps, BucketSpec, seq_indexers
from cfrlab.abstraction.metrics import (
    board_totals,
    check_holdem_style,
    denominators,
    metric_indexers,
)
from cfrlab.cards.cards import deck
from cfrlab.cards.evaluator import rank_batch
from cfrlab.cards.isomorphism import DeckMap, HandIndexer
from cfrlab.errors import CfrlabError

Progress = Callable[[str], None]
KMEANS_ITERATIONS = 100
# Rounds with more canonical classes than this fit their centers on a seeded uniform sample
# of this many (weights kept), then every class takes its nearest center: full HULHE's
# 123 million river classes would otherwise cost hours per Lloyd pass series.
FIT_POINTS = 2_000_000


# -- distances --------------------------------------------------------------------------
def emd(a, b) -> float:
    """Earth mover's distance between two histograms of equal-width bins on [0, 1] (each
    normalised to mass 1): sum over bins of |CDF_a - CDF_b| times the bin width."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.sum() <= 0 or b.sum() <= 0:
        raise CfrlabError("emd takes two non-empty histograms of the same bins")
    return float(np.abs(np.cumsum(a / a.sum()) - np.cumsum(b / b.sum())).sum() / len(a))


def cumulative(hists: np.ndarray) -> np.ndarray:
    """Each row normalised and accumulated, divided by the bin count: the L1 distance of two
    rows is then their EMD."""
    h = np.asarray(hists, dtype=np.float64)
    tot = h.sum(axis=1, keepdims=True)
    tot[tot == 0] = 1.0
    return np.cumsum(h / tot, axis=1) / h.shape[1]


# -- k-means ----------------------------------------------------------------------------
class DensePoints:
    """Rows of a matrix as k-means points: L1 (EMD on cumulative histograms) or squared L2.
    ``potential.SparsePoints`` has the same methods for histograms over next-round clusters."""

    def __init__(self, X: np.ndarray, l1: bool):
        self.X, self.l1 = np.ascontiguousarray(X, dtype=np.float64), bool(l1)
        self.n, self.dim = self.X.shape
        self.squared = not self.l1  # squared L2 is already the square k-means++ draws by
        self.stop_on_cycle = False  # exact Lloyd passes cannot cycle; files stay as they were

    def take(self, pick: np.ndarray) -> DensePoints:
        return DensePoints(self.X[pick], self.l1)

    def row(self, i: int) -> np.ndarray:
        return self.X[i]

    def distances_to(self, C, j, out) -> None:
        KK.distances_to(self.X, C, j, self.l1, out)

    def nearest(self, C, labels, dist, hint=None) -> None:
        KK.nearest(self.X, C, self.l1, labels, dist)

    def centers(self, w, labels, C, wsum) -> None:
        KK.weighted_centers(self.X, w, labels, C, wsum)


def kmeans(X: np.ndarray, weight: np.ndarray, k: int, seed: int, l1: bool,
           iterations: int = KMEANS_ITERATIONS, what: str = "k-means",
           fit_points: int = FIT_POINTS, progress: Progress | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """(labels int64[n], centers float64[k, d]) of weighted k-means on the rows of X with
    k-means++ seeding (``default_rng(seed)``): L1 distance (``l1``; EMD on cumulative
    histograms) or squared L2 (``kmeans_points``)."""
    return kmeans_points(DensePoints(X, l1), weight, k, seed, iterations, what, fit_points,
                         progress)


def kmeans_points(pts, weight: np.ndarray, k: int, seed: int,
                  iterations: int = KMEANS_ITERATIONS, what: str = "k-means",
                  fit_points: int = FIT_POINTS, progress: Progress | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(labels int64[n], centers float64[k, dim]) of weighted k-means on ``pts``
    (``DensePoints`` or ``potential.SparsePoints``) with k-means++ seeding
    (``default_rng(seed)``). Centers are weighted means. More clusters than points is
    refused. With more than ``fit_points`` points the centers are fitted on a uniform sample
    of that many (drawn from ``default_rng([seed, 1])``, weights kept) and every point then
    takes its nearest center. ``progress`` hears of each Lloyd pass after the first 10 s
    (how many points moved). Points with ``stop_on_cycle`` (a greedy, not exact, distance)
    also stop when a pass gives labels an earlier pass gave: the passes are deterministic, so
    they would repeat that cycle until the pass limit."""
    w = np.ascontiguousarray(weight, dtype=np.float64)
    n = pts.n
    if k > n:
        raise CfrlabError(f"{what}: {k:,} clusters asked for only {n:,} points (hands); "
                          "ask for at most that many buckets")
    if k < 1:
        raise CfrlabError(f"{what}: at least one cluster")
    if n > fit_points >= k:
        pick = np.sort(np.random.default_rng([seed, 1]).choice(n, size=fit_points, replace=False))
        _, C = kmeans_points(pts.take(pick), w[pick], k, seed, iterations, what, fit_points,
                             progress)
        labels = np.empty(n, dtype=np.int64)
        pts.nearest(C, labels, np.empty(n))
        return labels, C
    rng = np.random.default_rng(seed)
    C = np.empty((k, pts.dim))
    first = int(rng.choice(n, p=w / w.sum()))
    C[0] = pts.row(first)
    best = np.empty(n)
    pts.distances_to(C, 0, best)
    d = np.empty(n)
    for j in range(1, k):
        # D^2 sampling: the distance (L1, EMD, or the L2 norm) squared, times the weight
        p = w * (best if pts.squared else best * best)
        tot = p.sum()
        if not tot > 0:  # every point already is a center: only j distinct points
            raise CfrlabError(f"{what}: {k:,} clusters asked for only {j:,} distinct points; "
                              "ask for at most that many buckets")
        pick = int(rng.choice(n, p=p / tot))
        C[j] = pts.row(pick)
        pts.distances_to(C, j, d)
        np.minimum(best, d, out=best)
    labels = np.full(n, -1, dtype=np.int64)
    new = np.empty(n, dtype=np.int64)
    dist = np.empty(n)
    wsum = np.empty(k)
    t0 = time.perf_counter()
    seen = set()
    for it in range(iterations):
        pts.nearest(C, new, dist, labels)  # the last labels: a hint, not a constraint
        if np.array_equal(new, labels):
            break
        if pts.stop_on_cycle:  # labels seen before: the passes repeat from here on, forever
            key = hashlib.sha256(new.tobytes()).digest()
            if key in seen:
                break
            seen.add(key)
        if progress is not None and time.perf_counter() - t0 > 10:
            progress(f"{what}: pass {it + 1}, {int((new != labels).sum()):,} of {n:,} points "
                     f"moved ({time.perf_counter() - t0:.0f} s)")
        labels[:] = new
        pts.centers(w, labels, C, wsum)
    return labels, C


# -- features ---------------------------------------------------------------------------
def hs_histograms(game, r: int, hs: np.ndarray, bins: int) -> np.ndarray:
    """int32[classes of round r, bins]: per (hole | board) class of round r, how many
    completing final boards put its river HS in each bin (``hs``: the river hsnum table)."""
    check_holdem_style(game)
    deck = DeckMap(game.num_ranks, game.num_suits)
    totals = board_totals(game)
    ixs = metric_indexers(game)
    ix, rx = ixs[r], ixs[-1]
    den = denominators(game)[0][-1]
    out = np.zeros((ix.size, bins), dtype=np.int32)
    KK.hs_histograms(ix.size, totals[r], totals[-1] - totals[r], deck.size,
                     MK.Unindexer(*ix.unindex_args), MK.Indexer(*rx.index_args), hs, den, out)
    return out


def ochs_values(game, opp_cluster: np.ndarray) -> np.ndarray:
    """float64[river classes, K]: each river (hole | board) class's hand strength against
    each cluster of opponent hole pairs (``opp_cluster[preflop class]`` in 0..K-1)."""
    check_holdem_style(game)
    deck = DeckMap(game.num_ranks, game.num_suits)
    bf = board_totals(game)[-1]
    ixs = metric_indexers(game)
    K = int(opp_cluster.max()) + 1
    boards = (HandIndexer(game.num_ranks, game.num_suits, (bf,)).unindex_local(
        np.arange(HandIndexer(game.num_ranks, game.num_suits, (bf,)).size, dtype=np.int64)))
    pa, pb = MK.pair_tables(deck.size - bf)
    out = np.zeros((ixs[-1].size, K))
    KK.ochs_table(boards, deck.size, np.ascontiguousarray(deck.to_global, dtype=np.int64), pa, pb,
                  MK.Indexer(*ixs[-1].index_args), MK.Indexer(*ixs[0].index_args),
                  np.ascontiguousarray(opp_cluster, dtype=np.int64), out)
    return out


def class_weights(ix: HandIndexer) -> np.ndarray:
    """How many hands (hole and board as sets) each class of ``ix`` holds."""
    return ix.multiplicity_local(ix.unindex_local(np.arange(ix.size, dtype=np.int64)))


# -- sizes ------------------------------------------------------------------------------
def kmeans_estimate(game, spec: BucketSpec) -> dict:
    """Peak bytes of a k-means build by formula (features, their cumulative form, the
    labels and distances of every class of the largest round, the centers), and the file."""
    ixs = metric_indexers(game)
    sizes = [ix.size for ix in ixs]
    R = game.num_rounds
    seq = [ix.size for ix in seq_indexers(game)[:R - 1]]
    river_table = 2 * sizes[-1]  # the river hsnum table stays loaded
    phases = {}
    for r in range(R):
        metric, k = spec.levels[r][0]
        if metric == "pa":  # sparse histograms, the next round's labels, ground distances
            K = spec.levels[r + 1][0][1]
            per_class = PA.bytes_per_class(game, r, K) + 8 * 4
            sample = FIT_POINTS if sizes[r] > FIT_POINTS else 0  # the fitted sample's copy
            phases[f"k-means round {r}"] = (river_table + (sizes[r] + sample) * per_class
                                            + 4 * sizes[r + 1] + 16 * K * K + 8 * k * K)
            continue
        d = spec.opp_clusters if metric == "ochs" else spec.bins
        counts = 0 if metric == "ochs" else 4 * spec.bins  # OCHS needs no histograms
        per_class = counts + 8 * d + 8 * 4  # counts, features, weight/labels/distances
        phases[f"k-means round {r}"] = river_table + sizes[r] * per_class + 16 * k * d
    maps = sum(4 * s for s in seq) + 4 * sizes[-1]
    peak = max(phases.values()) + maps
    return {"peak": peak, "phase": max(phases, key=phases.get), "phases": phases,
            "file": maps, "threads": numba.get_num_threads()}


# -- building ---------------------------------------------------------------------------
def build_kmeans_buckets(game, spec: BucketSpec, hs: np.ndarray,
                         progress: Progress | None = None) -> BucketMaps:
    """The ``BucketMaps`` of a k-means spec (module docstring); ``hs`` is the river hsnum
    table (``metrics.last_round_table``)."""
    check_holdem_style(game)
    R = game.num_rounds
    if len(spec.levels) != R:
        raise CfrlabError(f"the bucket spec has {len(spec.levels)} rounds, the game {R}")
    say = progress or (lambda s: None)
    ixs = metric_indexers(game)
    sixs = seq_indexers(game)
    for r, lv in enumerate(spec.levels):  # every count checked before minutes of work
        if lv[0][1] > ixs[r].size:
            raise CfrlabError(f"k-means round {r}: {lv[0][1]:,} clusters asked for only "
                              f"{ixs[r].size:,} points (canonical hands); ask for at most that many")
        if r == R - 1 and lv[0][0] != "ochs" and lv[0][1] > spec.bins:
            raise CfrlabError(f"k-means round {r}: {lv[0][1]:,} clusters asked for only "
                              f"{spec.bins:,} distinct points (river hand strength in "
                              f"{spec.bins:,} bins); ask for at most that many, or more bins")
    states, masses = [None] * (R - 1), [None] * R
    river = None
    pre_hist = None
    # potential-aware rounds need the next round's clusters: then the rounds go backwards,
    # each leaving its labels and the ground distances between its centers
    potential = any(lv[0][0] == "pa" for lv in spec.levels)
    nxt_labels, ground = None, None
    for r in (range(R - 1, -1, -1) if potential else range(R)):
        t0 = time.perf_counter()
        metric, k = spec.levels[r][0]
        w = class_weights(ixs[r])
        if metric == "pa":
            K = spec.levels[r + 1][0][1]
            pts = PA.SparsePoints(PA.next_round_histograms(game, r, nxt_labels, K), ground)
            labels, C = kmeans_points(pts, w, k, spec.seed + r, what=f"k-means round {r}",
                                      progress=say)
            del pts
            ground = PA.potential_ground(C, ground) if _pa_before(spec, r) else None
            feature = f"potential-aware over {K:,} next-round clusters"
        else:
            if metric == "ochs":
                if pre_hist is None:
                    pre_hist = hs_histograms(game, 0, hs, spec.bins)
                opp, _ = kmeans(cumulative(pre_hist), class_weights(ixs[0]), spec.opp_clusters,
                                spec.seed, True, what="OCHS opponent clusters")
                X, l1 = ochs_values(game, opp), False
            elif r == R - 1:  # one-point histograms: the cumulative form of the river HS
                X, l1 = cumulative(_one_hot(hs, denominators(game)[0][-1], spec.bins)), True
            else:
                # going backwards, round 0's histograms exist already for the OCHS clusters
                reuse = r == 0 and pre_hist is not None
                h = pre_hist if reuse else hs_histograms(game, r, hs, spec.bins)
                if r == 0:
                    pre_hist = h
                X, l1 = cumulative(h), True
            labels, C = kmeans(X, w, k, spec.seed + r, l1, what=f"k-means round {r}", progress=say)
            del X
            ground = PA.center_ground(C, l1) if _pa_before(spec, r) else None
            feature = metric
        nxt_labels = labels.astype(np.int32) if potential else None
        dtype = np.int16 if k < 2**15 else np.int32
        mass = np.bincount(labels, weights=w.astype(np.float64), minlength=k)
        masses[r] = mass / mass.sum()
        if r < R - 1:
            states[r] = _ordered_states(sixs[r], ixs[r], r, labels).astype(dtype)
        else:
            river = labels.astype(np.int32)
        fit = f", centers fitted on {FIT_POINTS:,} sampled" if ixs[r].size > FIT_POINTS else ""
        say(f"k-means round {r} ({feature}): {ixs[r].size:,} hands -> {k:,} buckets{fit} "
            f"({time.perf_counter() - t0:.1f} s)")
    last = np.arange(spec.counts[-1], dtype=np.int32)[None, :]  # bucket = the river table's
    params = {"num_ranks": game.num_ranks, "num_suits": game.num_suits, "hole": 2,
              "boards": board_totals(game), "kmeans_iterations": KMEANS_ITERATIONS}
    return BucketMaps(spec, params, states, last, masses, np.zeros((1, 1), dtype=np.int64),
                      river=river)


def _pa_before(spec: BucketSpec, r: int) -> bool:
    """Whether round r - 1 is potential-aware (and so needs round r's ground distances)."""
    return r > 0 and spec.levels[r - 1][0][0] == "pa"


def _one_hot(hs: np.ndarray, den: int, bins: int) -> np.ndarray:
    out = np.zeros((len(hs), bins), dtype=np.int32)
    out[np.arange(len(hs)), np.minimum(bins - 1, hs.astype(np.int64) * bins // den)] = 1
    return out


def _ordered_states(u: HandIndexer, m: HandIndexer, r: int, labels: np.ndarray) -> np.ndarray:
    """Each ordered class (hole | flop | turn ...) of round r takes its (hole | board set)
    class's bucket."""
    n = u.size
    midx = np.empty(n, dtype=np.int64)
    pidx = np.zeros(n, dtype=np.int64)
    weight = np.empty(n, dtype=np.int64)
    BK.ordered_class_facts(n, MK.Unindexer(*u.unindex_args), MK.Indexer(*m.index_args),
                           MK.Indexer(*u.index_args), False, midx, pidx, weight)
    return labels[midx]


def direct_ochs(game, hole, board, opp_cluster: np.ndarray) -> np.ndarray:
    """OCHS of ACPC hole cards on a final board by plain enumeration of every opponent hand
    (the evaluator's ranks; no sweep): the independent twin tests use."""
    K = int(opp_cluster.max()) + 1
    pre = metric_indexers(game)[0]
    rest = [c for c in deck(game.num_ranks, game.num_suits) if c not in hole and c not in board]
    opps = np.array(list(combinations(rest, 2)), dtype=np.int64)
    mine = rank_batch(np.array([list(hole) + list(board)], dtype=np.int64))[0]
    theirs = rank_batch(np.concatenate([opps, np.broadcast_to(board, (len(opps), len(board)))],
                                       axis=1))
    cl = opp_cluster[pre.index(opps)]
    out = np.full(K, 0.5)
    for c in range(K):
        sel = cl == c
        if sel.any():
            t = theirs[sel]
            out[c] = ((t < mine).sum() + 0.5 * (t == mine).sum()) / sel.sum()
    return out


def completions(game, r: int) -> int:
    """Completing final boards of a round-r hand (a histogram's total count)."""
    totals = board_totals(game)
    return comb(game.deck_size - 2 - totals[r], totals[-1] - totals[r])
