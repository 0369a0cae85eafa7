"""Bucketing of card sequences, as Johanson describes them ("Robust Strategies and Counter-Strategies", MSc thesis, 2007, section 2.5.5;
Zinkevich 2007, section 4.1): per round a metric (E[HS] or E[HS^2]), uniform ranges or
percentiles (equal probability mass), optional nesting (E[HS^2] sets each split by E[HS]),
history bucketing (each round's buckets formed separately within every previous bucket
sequence) and perfect or imperfect recall.

What is bucketed. Rounds before the last: every canonical class of the *ordered* indexer
(hole | flop | turn ..., ``seq_indexers``), weighted by how many card sequences it stands
for, so that percentiles are equal masses of card sequences. Its metric comes from the
round's (hole | board) metric class. The last round's metric depends only on the exact
integer hand strength ``hsnum`` (``cfrlab.abstraction.metrics``), so the last round is
bucketed from a histogram of mass by (state on the round before, hsnum), gathered over every
canonical final board; its bucket is a table ``last[group, hsnum]``.

States. Perfect recall: a round-r state is the bucket sequence, numbered
``state_r = state_{r-1} * B_r + bucket_r`` (so the parent map is ``s // B_r``). Imperfect
recall: a state is the round's bucket alone (buckets are then formed without history).

Percentile rule, exact and deterministic: inside a group, classes sorted by the metric (an
exact integer); a run of equal metric values holding mass m after mass a of the group's M
goes to bucket ``min(B - 1, floor(B * (a + m / 2) / M))``. Equal values never split.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import numba
import numpy as np

from cfrlab.abstraction import _bucket_kernels as BK
from cfrlab.abstraction import _metrics_kernels as MK
from cfrlab.abstraction.metrics import MetricTables, board_totals, check_holdem_style
from cfrlab.cards.isomorphism import DeckMap, HandIndexer, round_groups, suit_permutations
from cfrlab.cards.kernels import board_children
from cfrlab.errors import CfrlabError

Progress = Callable[[str], None]
METHODS = ("percentile", "uniform", "kmeans")
RECALLS = ("perfect", "imperfect")
# k-means features: HS histograms (EMD), opponent-cluster HS, histograms over the next round's
# clusters (potential-aware, ``cfrlab.abstraction.potential``)
KMEANS_METRICS = ("emd", "ochs", "pa")


@dataclass(frozen=True)
class BucketSpec:
    """How to bucket each round. ``levels[r]`` is a tuple of (metric, count) applied in turn
    (one level: plain bucketing; two: nested); round r has the product of the counts."""

    levels: tuple[tuple[tuple[str, int], ...], ...]
    method: str = "percentile"
    history: bool = True
    recall: str = "perfect"
    # k-means only (``cfrlab.abstraction.kmeans``): seed of the k-means++ draws, histogram
    # bins, clusters of opponent preflop hands (OCHS)
    seed: int = 0
    bins: int = 0
    opp_clusters: int = 0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise CfrlabError(f"bucketing method must be one of {', '.join(METHODS)}")
        if self.recall not in RECALLS:
            raise CfrlabError(f"recall must be one of {', '.join(RECALLS)}")
        if self.method == "kmeans":
            self._check_kmeans()
            return
        if self.recall == "imperfect" and self.history:
            raise CfrlabError("imperfect recall forgets earlier buckets, so it buckets every "
                              "round without history (history off)")
        for lv in self.levels:
            if not lv:
                raise CfrlabError("every round needs at least one bucketing level")
            for metric, count in lv:
                if metric not in ("ehs", "ehs2"):
                    raise CfrlabError(f"unknown metric {metric!r} (choose ehs or ehs2)")
                if count < 1:
                    raise CfrlabError("bucket counts must be >= 1")

    def _check_kmeans(self) -> None:
        if self.recall != "imperfect" or self.history:
            raise CfrlabError("k-means buckets are imperfect recall without history (each round "
                              "clusters the hands of that round)")
        R = len(self.levels)
        for r, lv in enumerate(self.levels):
            if len(lv) != 1 or lv[0][0] not in KMEANS_METRICS or lv[0][1] < 1:
                raise CfrlabError("k-means rounds take one level: emd, ochs or pa with a count "
                                  ">= 1")
            if lv[0][0] == "ochs" and r != R - 1:
                raise CfrlabError("OCHS buckets are for the last round only (earlier rounds: emd "
                                  "or pa)")
            if lv[0][0] == "pa" and r == R - 1:
                raise CfrlabError("potential-aware buckets look at the next round, so the last "
                                  "round takes emd or ochs")
        if self.bins < 2 or self.bins > 1000:
            raise CfrlabError(f"histogram bins must be between 2 and 1000, got {self.bins}")
        uses_ochs = self.levels[-1][0][0] == "ochs"
        if uses_ochs and not 1 <= self.opp_clusters <= 1000:
            raise CfrlabError(f"OCHS needs 1 to 1000 opponent clusters, got {self.opp_clusters}")
        if not 0 <= self.seed < 2**63:
            raise CfrlabError(f"the k-means seed is a whole number >= 0, got {self.seed}")

    @classmethod
    def kmeans(cls, num_rounds: int, buckets=8, river: str = "ochs", seed: int = 0,
               bins: int = 50, opp_clusters: int = 8, earlier: str = "emd") -> BucketSpec:
        """Distribution-aware imperfect-recall buckets: k-means with the earth mover's distance
        on hand-strength histograms every round, the last round ``river`` ("ochs": k-means on
        hand strength against ``opp_clusters`` clusters of opponent preflop hands, or "emd").
        ``earlier="pa"``: the rounds before the last potential-aware instead, on histograms
        over the next round's clusters (``cfrlab.abstraction.potential``)."""
        counts = parse_counts(buckets, num_rounds)
        if river not in ("emd", "ochs"):
            raise CfrlabError(f"the last round's k-means feature is emd or ochs, got {river!r}")
        if earlier not in ("emd", "pa"):
            raise CfrlabError(f"the earlier rounds' k-means feature is emd or pa, got {earlier!r}")
        levels = tuple((((earlier if r < num_rounds - 1 else river), c),)
                       for r, c in enumerate(counts))
        return cls(levels, "kmeans", False, "imperfect", int(seed), int(bins),
                   int(opp_clusters) if river == "ochs" else 0)

    @classmethod
    def make(cls, num_rounds: int, buckets=5, metric: str = "ehs2", nested=None,
             method: str = "percentile", history: bool = True, recall: str = "perfect"
             ) -> BucketSpec:
        """``buckets``: an int or one count per round ("5", "8-8-8-8", (10, 10, 10, 10));
        ``nested``: "6x2" = E[HS^2] sets each split in 2 by E[HS] (every round)."""
        if nested is not None:
            n_out, n_in = parse_nested(nested)
            levels = tuple(((("ehs2", n_out), ("ehs", n_in))) for _ in range(num_rounds))
        else:
            counts = parse_counts(buckets, num_rounds)
            levels = tuple(((metric, c),) for c in counts)
        return cls(levels, method, history, recall)

    @property
    def counts(self) -> tuple[int, ...]:
        out = []
        for lv in self.levels:
            n = 1
            for _, c in lv:
                n *= c
            out.append(n)
        return tuple(out)

    @property
    def num_states(self) -> tuple[int, ...]:
        if self.recall == "imperfect":
            return self.counts
        out, n = [], 1
        for c in self.counts:
            n *= c
            out.append(n)
        return tuple(out)

    def to_dict(self) -> dict:
        out = {"levels": [[list(x) for x in lv] for lv in self.levels], "method": self.method,
               "history": self.history, "recall": self.recall}
        if self.method == "kmeans":  # percentile specs keep the keys (and hashes) they had
            out.update({"seed": self.seed, "bins": self.bins, "opp_clusters": self.opp_clusters})
        return out

    @classmethod
    def from_dict(cls, d: dict) -> BucketSpec:
        levels = tuple(tuple((str(m), int(c)) for m, c in lv) for lv in d["levels"])
        extra = {}
        if d["method"] == "kmeans":
            try:
                extra = {k: int(d[k]) for k in ("seed", "bins", "opp_clusters")}
            except (KeyError, TypeError, ValueError):
                raise CfrlabError("a k-means spec needs whole numbers seed, bins and "
                                  "opp_clusters") from None
        return cls(levels, d["method"], bool(d["history"]), d["recall"], **extra)

    def label(self) -> str:
        per = []
        for lv in self.levels:
            per.append("x".join(str(c) for _, c in lv))
        metrics = sorted({m for lv in self.levels for m, _ in lv})
        if self.method == "kmeans":
            ochs = f", OCHS vs {self.opp_clusters} opponent clusters" if self.opp_clusters else ""
            pa = ", potential-aware (pa) before the last round" if "pa" in metrics else ""
            return (f"k-means {'/'.join(metrics)} {'-'.join(per)}, {self.bins} bins{ochs}{pa}, "
                    f"seed {self.seed}, imperfect recall")
        return (f"{'/'.join(metrics)} {self.method} {'-'.join(per)}, "
                f"{'history' if self.history else 'no history'}, {self.recall} recall")


def parse_counts(buckets, num_rounds: int) -> tuple[int, ...]:
    if isinstance(buckets, int):
        buckets = (buckets,)
    if isinstance(buckets, str):
        # counts (ASCII digits) between single separators: "-3" is no count, not 3-3-3-3
        if not re.fullmatch(r"[0-9]+(?:\s*[-,/\s]\s*[0-9]+)*", buckets.strip(), re.ASCII):
            raise CfrlabError(f"bad bucket counts {buckets!r}: positive whole numbers, one or one per "
                              f"round (e.g. 5 or {'-'.join(['8'] * num_rounds)})")
        parts = re.split(r"\s*[-,/\s]\s*", buckets.strip())
    else:
        parts = list(buckets)
    try:
        counts = tuple(int(p) for p in parts)
    except ValueError:
        raise CfrlabError(f"bad bucket counts {buckets!r} (e.g. 5 or 8-8-8-8)") from None
    if any(c < 1 for c in counts):
        raise CfrlabError(f"bad bucket counts {buckets!r}: each is at least 1")
    if len(counts) == 1:
        counts = counts * num_rounds
    if len(counts) != num_rounds:
        raise CfrlabError(f"give one bucket count or {num_rounds} (one per round), got {len(counts)}")
    return counts


def parse_nested(nested) -> tuple[int, int]:
    if isinstance(nested, str):
        m = re.fullmatch(r"\s*([0-9]+)\s*[xX*]\s*([0-9]+)\s*", nested)
        if not m:
            raise CfrlabError(f"bad nested spec {nested!r} (e.g. 6x2)")
        return int(m.group(1)), int(m.group(2))
    a, b = nested
    return int(a), int(b)


def seq_indexers(game) -> list[HandIndexer]:
    """Per round the ordered (hole | each round's new board cards) indexer."""
    return [HandIndexer(game.num_ranks, game.num_suits, round_groups(2, game.num_board_cards, r))
            for r in range(game.num_rounds)]


def canonical_boards(game, r: int) -> tuple[np.ndarray, np.ndarray]:
    """(boards int64[N, cards], weight int64[N]): canonical ordered boards of round r (each
    round's new cards a group) and how many boards each stands for. Round 0: one empty board."""
    if r == 0 or board_totals(game)[r] == 0:
        return np.zeros((1, 0), dtype=np.int64), np.ones(1, dtype=np.int64)
    ix = HandIndexer(game.num_ranks, game.num_suits, game.num_board_cards[1:r + 1])
    reps = ix.unindex_local(np.arange(ix.size, dtype=np.int64))
    return reps, ix.multiplicity_local(reps)


def final_boards(game) -> dict:
    """The last round's canonical boards grouped under the round before's: ``parents``
    (boards, weight), ``children`` (new cards), ``orbit``, ``child_parent`` (sorted)."""
    R = game.num_rounds
    pr = max(R - 2, 0)
    parents, pweight = canonical_boards(game, pr)
    k = game.num_board_cards[R - 1] if R > 1 else 0
    gsz = np.array([g for g in game.num_board_cards[1:pr + 1] if g] or [0], dtype=np.int64)
    if parents.shape[1] == 0:
        gsz = np.zeros(0, dtype=np.int64)
    children, orbit, cparent = board_children(parents, gsz, suit_permutations(game.num_suits), k,
                                               game.deck_size, game.num_suits)
    return {"parents": parents, "pweight": pweight, "children": children, "orbit": orbit,
            "child_parent": cparent, "k": k, "nb": parents.shape[1]}


def final_kernel_args(game, fb: dict) -> tuple[BK.FinalBoards, MK.FinalDeal]:
    """The ``final_boards`` dict as the kernels take it: (``FinalBoards``, ``FinalDeal``);
    parents of no cards become one column of zeros."""
    parents = fb["parents"] if fb["nb"] else np.zeros((len(fb["parents"]), 1), dtype=np.int64)
    deck = DeckMap(game.num_ranks, game.num_suits)
    return (BK.FinalBoards(parents, fb["children"], fb["child_parent"]),
            MK.final_deal(fb["nb"], fb["k"], deck.size, deck.to_global))


@dataclass
class BucketMaps:
    """A bucketing of one deck: ``state[r]`` (r < last) maps each class of
    ``seq_indexers[r]`` to its state; ``last[g, hsnum]`` is the last round's bucket of a hole
    in group g (its state on the round before under history, else 0) with that hsnum;
    ``masses[r]`` (float64, sums to 1) is each state's probability."""

    spec: BucketSpec
    params: dict
    state: list[np.ndarray]
    last: np.ndarray
    masses: list[np.ndarray]
    hist: np.ndarray = field(repr=False)  # int64[num_states[R-2] or 1, max_hs+1]
    # k-means: the last round's bucket per river (hole | board) class, read in place of the
    # hand-strength table (``last`` is then the identity row)
    river: np.ndarray | None = field(default=None, repr=False)


def _sort_order(group: np.ndarray, key: np.ndarray) -> np.ndarray:
    gmax, kmax = int(group.max(initial=0)), int(key.max(initial=0))
    gb, kb = max(gmax.bit_length(), 1), max(kmax.bit_length(), 1)
    if gb + kb <= 62:
        return np.argsort((group.astype(np.int64) << kb) | key)
    return np.lexsort((key, group))


def assign_levels(levels, group: np.ndarray, keys: dict, dens: dict, weight: np.ndarray,
                  method: str) -> np.ndarray:
    """Bucket (int64) of every item: levels applied in turn, each within the previous ones."""
    cur = group.astype(np.int64)
    total = np.zeros(len(group), dtype=np.int64)
    for metric, count in levels:
        key = keys[metric]
        out = np.empty(len(group), dtype=np.int64)
        if method == "percentile":
            BK.percentile_assign(_sort_order(cur, key), cur, key, weight, count, out)
        else:
            np.minimum((count * key) // dens[metric], count - 1, out=out)
        total = total * count + out
        cur = cur * count + out
    return total


def build_buckets(game, spec: BucketSpec, metrics: MetricTables,
                  progress: Progress | None = None) -> BucketMaps:
    """Bucket every round of the game's deck (see the module docstring)."""
    check_holdem_style(game)
    R = game.num_rounds
    if len(spec.levels) != R:
        raise CfrlabError(f"the bucket spec has {len(spec.levels)} rounds, the game {R}")
    if spec.num_states[-1] >= 2**31:
        raise CfrlabError("too many bucket sequences (over 2**31)")
    say = progress or (lambda s: None)
    deck = DeckMap(game.num_ranks, game.num_suits)
    sixs = seq_indexers(game)
    counts = spec.counts
    states: list[np.ndarray] = []
    masses: list[np.ndarray] = []
    prev = None
    for r in range(R - 1):
        t0 = time.perf_counter()
        u, m = sixs[r], metrics.indexers[r]
        p = sixs[r - 1] if r else u
        n = u.size
        midx = np.empty(n, dtype=np.int64)
        pidx = np.zeros(n, dtype=np.int64)
        weight = np.empty(n, dtype=np.int64)
        BK.ordered_class_facts(n, MK.Unindexer(*u.unindex_args), MK.Indexer(*m.index_args),
                               MK.Indexer(*p.index_args), r > 0, midx, pidx, weight)
        s1, s2 = metrics.sums(r)
        keys = {"ehs": s1[midx], "ehs2": s2[midx]}
        del midx
        dens = {"ehs": metrics.den1[r], "ehs2": metrics.den2[r]}
        parent_state = prev[pidx] if r else np.zeros(n, dtype=np.int64)
        group = parent_state if spec.history else np.zeros(n, dtype=np.int64)
        bucket = assign_levels(spec.levels[r], group, keys, dens, weight, spec.method)
        del keys
        st = parent_state * counts[r] + bucket if spec.recall == "perfect" else bucket
        dtype = np.int16 if spec.num_states[r] < 2**15 else np.int32
        states.append(st.astype(dtype))
        mass = np.bincount(st, weights=weight, minlength=spec.num_states[r])
        masses.append(mass / mass.sum())
        prev = st
        say(f"buckets round {r}: {n:,} classes -> {spec.num_states[r]:,} states "
            f"({time.perf_counter() - t0:.1f} s)")
    t0 = time.perf_counter()
    hist = last_round_hist(game, states, metrics, deck,
                           spec.num_states[R - 2] if R > 1 else 1)
    last, mass = last_round_buckets(spec, hist, metrics)
    masses.append(mass / mass.sum())
    say(f"buckets round {R - 1}: histogram of {hist.shape[0]:,} x {hist.shape[1]:,} "
        f"({time.perf_counter() - t0:.1f} s)")
    return BucketMaps(spec, dict(metrics.params), states, last, masses, hist)


def round_splits(group_sizes) -> np.ndarray:
    """int64[P, n]: every way to order a set of n = sum(group_sizes) cards into rounds
    (positions inside the set; each round's positions ascending)."""
    n = sum(group_sizes)
    out = []

    def rec(left, sizes, acc):
        if not sizes:
            out.append(acc)
            return
        for grp in combinations(left, sizes[0]):
            rec([x for x in left if x not in grp], sizes[1:], acc + list(grp))
    rec(list(range(n)), list(group_sizes), [])
    return np.array(out, dtype=np.int64).reshape(len(out), n)


def last_round_hist(game, states: list[np.ndarray], metrics: MetricTables, deck: DeckMap,
                    num_groups: int) -> np.ndarray:
    """int64[num_groups, max_hs + 1]: mass of (final board, hole) by (the hole's state on the
    round before, hsnum). Boards of the round before are enumerated as canonical card sets
    and every ordering of a set into rounds shares the set's hand strengths."""
    R = game.num_rounds
    max_hs = metrics.den1[-1]
    if R == 1:
        fb = final_boards(game)
        group = np.zeros((1, deck.size * (deck.size - 1) // 2), dtype=np.int32)
        boards, fd = final_kernel_args(game, fb)
        return BK.last_round_histogram(boards, fb["pweight"], fb["orbit"], fd, group, 1, max_hs,
                                       numba.get_num_threads())
    sizes = [b for b in game.num_board_cards[1:R - 1] if b]
    nb = sum(sizes)
    if nb:
        ix = HandIndexer(game.num_ranks, game.num_suits, (nb,))
        sets = ix.unindex_local(np.arange(ix.size, dtype=np.int64))
        weight = ix.multiplicity_local(sets)
    else:
        sets, weight = np.zeros((1, 1), dtype=np.int64), np.ones(1, dtype=np.int64)
    splits = round_splits(sizes) if nb else np.zeros((1, 0), dtype=np.int64)
    fd = MK.final_deal(nb, game.num_board_cards[R - 1], deck.size, deck.to_global)
    ix = MK.Indexer(*seq_indexers(game)[R - 2].index_args)
    return BK.last_round_histogram_sets(sets, weight, splits, fd, ix,
                                        states[R - 2].astype(np.int32), num_groups, max_hs,
                                        numba.get_num_threads())


def last_round_buckets(spec: BucketSpec, hist: np.ndarray, metrics: MetricTables
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(last int32[groups, max_hs + 1], mass per last-round state) from the histogram."""
    B = spec.counts[-1]
    G, V = hist.shape
    den1 = metrics.den1[-1]
    rows = hist if spec.history else hist.sum(axis=0, keepdims=True)
    g_idx, v_idx = np.nonzero(rows)
    w = rows[g_idx, v_idx]
    v = v_idx.astype(np.int64)
    keys = {"ehs": v, "ehs2": v * v}
    dens = {"ehs": den1, "ehs2": den1 * den1}
    bucket = assign_levels(spec.levels[-1], g_idx.astype(np.int64), keys, dens, w, spec.method)
    last = np.zeros(rows.shape, dtype=np.int32)
    last[g_idx, v_idx] = bucket
    # bins no hand reaches take the bucket of the next reachable bin (tables stay monotone)
    for g in range(rows.shape[0]):
        nz = np.flatnonzero(rows[g])
        if len(nz):
            pos = np.searchsorted(nz, np.arange(V)).clip(max=len(nz) - 1)
            last[g] = last[g, nz[pos]]
    if spec.recall == "perfect":
        gl = np.arange(G) if spec.history else np.zeros(G, dtype=np.int64)
        st = np.arange(G)[:, None] * B + last[gl]
        mass = np.bincount(st.ravel(), weights=hist.ravel().astype(np.float64),
                           minlength=spec.num_states[-1])
    else:
        mass = np.bincount(last[0], weights=hist.sum(axis=0).astype(np.float64), minlength=B)
    return last, mass
