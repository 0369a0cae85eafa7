"""Bucketing: the percentile rule against a slow twin, and the seeds' bucketing properties."""

from __future__ import annotations

import numpy as np
import pytest
from test_metrics import holdem

from cfrlab.abstraction import _bucket_kernels as BK
from cfrlab.abstraction.buckets import BucketSpec, assign_levels, build_buckets, seq_indexers
from cfrlab.abstraction.metrics import metric_tables
from cfrlab.errors import CfrlabError


def slow_percentile(group, key, weight, B):
    out = np.zeros(len(group), dtype=np.int64)
    for g in set(group.tolist()):
        idx = [i for i in range(len(group)) if group[i] == g]
        M = sum(int(weight[i]) for i in idx)
        before = 0
        for v in sorted({int(key[i]) for i in idx}):
            run = [i for i in idx if key[i] == v]
            m = sum(int(weight[i]) for i in run)
            for i in run:
                out[i] = min(B - 1, (B * (2 * before + m)) // (2 * M))
            before += m
    return out


def test_percentile_rule_matches_slow_twin():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 300))
        group = rng.integers(0, 4, n)
        key = rng.integers(0, 20, n)  # many ties
        weight = rng.integers(1, 25, n)
        B = int(rng.integers(1, 9))
        out = np.empty(n, dtype=np.int64)
        order = np.lexsort((key, group))
        BK.percentile_assign(order, group, key, weight, B, out)
        assert (out == slow_percentile(group, key, weight, B)).all()


def test_spec_parsing_and_errors():
    s = BucketSpec.make(4, 5)
    assert s.counts == (5, 5, 5, 5) and s.num_states == (5, 25, 125, 625)
    assert BucketSpec.make(4, "8-8-8-8").counts == (8,) * 4
    n = BucketSpec.make(4, nested="6x2")
    assert n.counts == (12,) * 4 and n.levels[0] == (("ehs2", 6), ("ehs", 2))
    imp = BucketSpec.make(4, 10, history=False, recall="imperfect")
    assert imp.num_states == (10,) * 4
    assert BucketSpec.from_dict(n.to_dict()) == n
    for bad in (lambda: BucketSpec.make(4, 5, recall="imperfect"),
                lambda: BucketSpec.make(4, "5-5"),
                lambda: BucketSpec.make(4, 5, metric="hs"),
                lambda: BucketSpec.make(4, nested="6by2"),
                lambda: BucketSpec.make(4, 5, method="kmeans")):
        with pytest.raises(CfrlabError):
            bad()


@pytest.fixture(scope="module")
def small():
    g = holdem(5, 4)
    return g, metric_tables(g)


def _class_view(g, mt, maps, r):
    """(state, parent state, metric ehs, metric ehs2, weight) of every ordered class."""
    u = seq_indexers(g)[r]
    reps = u.unindex_local(np.arange(u.size))
    weight = u.multiplicity_local(reps)
    m = mt.indexers[r]
    midx = m.index_local(reps)
    s1, s2 = mt.sums(r)
    parent = (maps.state[r - 1][seq_indexers(g)[r - 1].index_local(reps[:, :-g.num_board_cards[r]])]
              if r else np.zeros(u.size, dtype=np.int64))
    return maps.state[r].astype(np.int64), parent.astype(np.int64), s1[midx], s2[midx], weight


def test_history_percentile_buckets(small):
    g, mt = small
    spec = BucketSpec.make(4, 4)
    maps = build_buckets(g, spec, mt)
    for r in range(3):
        state, parent, _, e2, w = _class_view(g, mt, maps, r)
        bucket = state % 4
        assert (state // 4 == parent).all()  # perfect recall numbering
        for p in np.unique(parent):
            sel = parent == p
            # buckets follow the metric inside each parent: ranges do not overlap
            for b in range(3):
                lo, hi = e2[sel & (bucket == b)], e2[sel & (bucket == b + 1)]
                if len(lo) and len(hi):
                    assert lo.max() < hi.min()
            # equal masses up to the weight of one run of equal metric values
            M = w[sel].sum()
            runs = max(w[sel & (e2 == v)].sum() for v in np.unique(e2[sel]))
            for b in range(4):
                assert abs(w[sel & (bucket == b)].sum() - M / 4) <= runs
    for r in range(4):
        assert maps.masses[r].sum() == pytest.approx(1.0)
    # last round: monotone in hand strength inside every group
    assert (np.diff(maps.last, axis=1) >= 0).all()
    for row, lastrow in zip(maps.hist, maps.last):
        if row.sum():
            mass = np.bincount(lastrow, weights=row, minlength=4)
            assert np.abs(mass - row.sum() / 4).max() <= row.max()


def test_no_history_and_nested_and_uniform(small):
    g, mt = small
    flat = build_buckets(g, BucketSpec.make(4, 3, history=False), mt)
    for r in range(1, 3):
        state, _, e1, e2, _ = _class_view(g, mt, flat, r)
        bucket = state % 3
        for v in np.unique(e2)[:200]:  # same metric value -> same bucket, whatever the history
            assert len(np.unique(bucket[e2 == v])) == 1
    nested = build_buckets(g, BucketSpec.make(4, nested="2x3"), mt)
    state, parent, e1, e2, _ = _class_view(g, mt, nested, 1)
    b = state % 6
    outer, inner = b // 3, b % 3
    for p in np.unique(parent):
        sel = parent == p
        if (sel & (outer == 0)).any() and (sel & (outer == 1)).any():
            assert e2[sel & (outer == 0)].max() < e2[sel & (outer == 1)].min()
        for o in range(2):
            s = sel & (outer == o)
            for i in range(2):
                lo, hi = e1[s & (inner == i)], e1[s & (inner == i + 1)]
                if len(lo) and len(hi):
                    assert lo.max() < hi.min()
    uni = build_buckets(g, BucketSpec.make(4, 5, metric="ehs", method="uniform"), mt)
    state, _, e1, _, _ = _class_view(g, mt, uni, 2)
    expect = np.minimum(5 * e1 // mt.den1[2], 4)
    assert (state % 5 == expect).all()


def test_assign_levels_uniform_edges():
    group = np.zeros(4, dtype=np.int64)
    keys = {"ehs": np.array([0, 49, 50, 100])}
    out = assign_levels((("ehs", 2),), group, keys, {"ehs": 100}, np.ones(4, np.int64), "uniform")
    assert out.tolist() == [0, 0, 1, 1]
