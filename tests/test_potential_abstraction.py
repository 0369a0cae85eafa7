"""Potential-aware buckets: the greedy transport against an exact LP, the histograms over
next-round clusters against direct enumeration, k-means on sparse histograms at its fixed
point, and the built model (deterministic, the OCHS build's river, refusals)."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
from test_metrics import holdem

from cfrlab.abstraction import kmeans as KM
from cfrlab.abstraction import potential as PA
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.abstraction.metrics import metric_indexers
from cfrlab.abstraction.sizes import check_build
from cfrlab.errors import CfrlabError


def _ground(rng, K):
    """Distances between K random points of the plane (a metric)."""
    pts = rng.random((K, 2))
    return np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(axis=2))


def test_greedy_transport_is_feasible_so_never_below_the_exact_emd():
    rng = np.random.default_rng(0)
    gaps = []
    for _ in range(40):
        K = int(rng.integers(2, 9))
        dist = _ground(rng, K)
        p = rng.random(K) * (rng.random(K) < 0.6)
        p[rng.integers(K)] += 0.1
        q = rng.random(K) + 0.01
        exact = PA.exact_emd(p, q, dist)
        greedy = PA.greedy_emd(p, q, dist)
        assert greedy >= exact - 1e-12
        gaps.append(greedy - exact)
        # a point mass has one transport only: exact
        one = np.zeros(K)
        one[rng.integers(K)] = 1.0
        assert PA.greedy_emd(one, q, dist) == pytest.approx(PA.exact_emd(one, q, dist), abs=1e-12)
        assert PA.greedy_emd(q, q, dist) == 0.0
    assert max(gaps) < 0.5 and np.mean(gaps) < 0.1  # an approximation, not a different distance


def test_on_a_line_the_greedy_transport_of_neighbouring_bins_is_the_1d_emd():
    # ground |i - j| / K on K bins: moving mass one bin at a time is optimal, and greedy finds it
    K = 6
    dist = np.abs(np.arange(K)[:, None] - np.arange(K)[None, :]) / K
    p = np.array([0, 2, 0, 0, 1, 0.0])
    q = np.array([0, 0, 2, 0, 0, 1.0])
    assert PA.greedy_emd(p, q, dist) == pytest.approx(KM.emd(p, q), abs=1e-12)


@pytest.fixture(scope="module")
def small():
    return holdem(4, 3)  # 12 cards, board 0/3/1/1


def test_next_round_histograms_equal_direct_enumeration(small):
    g = small
    ixs = metric_indexers(g)
    rng = np.random.default_rng(3)
    for r in (0, 1, 2):
        K = 5
        labels = rng.integers(0, K, ixs[r + 1].size)
        H = PA.next_round_histograms(g, r, labels, K)
        assert np.allclose(H.mass.sum(axis=1), 1.0)
        reps = ixs[r].unindex_local(np.arange(ixs[r].size, dtype=np.int64))
        knew = 3 if r == 0 else 1
        for i in range(0, len(reps), max(1, len(reps) // 8)):
            hand = [int(c) for c in reps[i]]
            rest = [c for c in range(g.deck_size) if c not in hand]
            want = np.zeros(K)
            for more in combinations(rest, knew):
                want[labels[ixs[r + 1].index_local(np.array([hand + list(more)]))[0]]] += 1
            want /= want.sum()
            n = int(H.nnz[i])
            got = np.zeros(K)
            got[H.lab[i, :n]] = H.mass[i, :n]
            assert (np.diff(H.lab[i, :n]) > 0).all()
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    with pytest.raises(CfrlabError, match="rounds before the last"):
        PA.next_round_histograms(g, 3, labels, 5)


def test_kmeans_on_sparse_histograms_stops_at_its_fixed_point():
    rng = np.random.default_rng(4)
    K, N = 7, 300
    ground = PA.ground_of(_ground(rng, K))
    dense = rng.random((N, K)) * (rng.random((N, K)) < 0.4)
    dense[np.arange(N), rng.integers(0, K, N)] += 0.2
    dense /= dense.sum(axis=1, keepdims=True)
    m = int((dense > 0).sum(axis=1).max())
    lab = np.zeros((N, m), np.int32)
    mass = np.zeros((N, m))
    nnz = np.zeros(N, np.int32)
    for i in range(N):
        nz = np.flatnonzero(dense[i])
        lab[i, :len(nz)], mass[i, :len(nz)], nnz[i] = nz, dense[i, nz], len(nz)
    pts = PA.SparsePoints(PA.Sparse(lab, mass, nnz), ground)
    w = rng.integers(1, 4, N).astype(float)
    labels, C = KM.kmeans_points(pts, w, 5, seed=9)
    again = KM.kmeans_points(pts, w, 5, seed=9)
    assert (labels == again[0]).all() and (C == again[1]).all()
    for j in range(5):  # each center is its members' weighted mean histogram
        sel = labels == j
        np.testing.assert_allclose(C[j], (w[sel, None] * dense[sel]).sum(0) / w[sel].sum(),
                                   atol=1e-12)
    for i in range(0, N, 7):  # each point sits with its nearest center (by the greedy EMD)
        d = [PA.greedy_emd(dense[i], C[j], ground.dist) for j in range(5)]
        assert labels[i] == int(np.argmin(d))
    G = PA.potential_ground(C, ground)
    assert (np.diag(G.dist) == 0).all() and (G.dist == G.dist.T).all()
    assert G.dist[0, 1] == pytest.approx(min(PA.greedy_emd(C[0], C[1], ground.dist),
                                             PA.greedy_emd(C[1], C[0], ground.dist)), abs=1e-12)


def test_potential_model_builds_deterministically_with_the_ochs_river(small, tmp_path):
    g = small
    spec = BucketSpec.kmeans(4, "4-5-5-5", "ochs", seed=2, bins=8, opp_clusters=3, earlier="pa")
    assert "potential-aware" in spec.label() and BucketSpec.from_dict(spec.to_dict()) == spec
    a = BucketedModel.build(g, spec, use_cache=False)
    b = BucketedModel.build(g, spec, use_cache=False)
    assert a.hash == b.hash and a.num_states == (4, 5, 5, 5)
    for m in a.masses:
        assert m.sum() == pytest.approx(1.0) and (m > 0).all()
    ochs = BucketedModel.build(g, BucketSpec.kmeans(4, "4-5-5-5", "ochs", seed=2, bins=8,
                                                    opp_clusters=3), use_cache=False)
    assert (a.maps.river == ochs.maps.river).all()  # the same last round, built first
    assert a.hash != ochs.hash
    path = tmp_path / "pa.npz"
    a.save(path)
    assert BucketedModel.load(path, g).spec == spec
    # a hand-strength river instead: its centres' ground is their EMD (L1 on cumulative rows)
    hs = BucketedModel.build(g, BucketSpec.kmeans(4, "3-4-4-6", "emd", seed=2, bins=8,
                                                  earlier="pa"), use_cache=False)
    assert hs.num_states == (3, 4, 4, 6) and all((m > 0).all() for m in hs.masses)


def test_potential_refusals_one_line(small):
    with pytest.raises(CfrlabError, match="last round takes emd or ochs"):
        BucketSpec((((("pa", 3),),) * 4), "kmeans", False, "imperfect", 0, 10, 0)
    with pytest.raises(CfrlabError, match="earlier rounds' k-means feature is emd or pa"):
        BucketSpec.kmeans(4, 3, earlier="ochs")
    spec = BucketSpec.kmeans(4, "4-5-5-5", "ochs", bins=8, opp_clusters=3, earlier="pa")
    est = KM.kmeans_estimate(small, spec)
    assert est["phases"]["k-means round 2"] > 0
    with pytest.raises(CfrlabError, match=r"needs about .* more than the 1\.0 kB available") as e:
        check_build(small, spec, 1024)
    assert "\n" not in str(e.value)


def test_cli_builds_a_potential_abstraction(small, tmp_path):
    from typer.testing import CliRunner

    from cfrlab.cli.main import app

    game_file = tmp_path / "small.game"
    game_file.write_text(small.to_text())
    out = tmp_path / "pa.npz"
    runner = CliRunner()
    res = runner.invoke(app, ["abstract", "build", str(game_file), "--kind", "potential",
                              "--buckets", "3-4-4-4", "--bins", "8", "--opp-clusters", "2",
                              "--seed", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["abstract", "info", str(out), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["num_states"] == [3, 4, 4, 4]
    res = runner.invoke(app, ["abstract", "build", str(game_file), "--kind", "potent",
                              "--out", str(tmp_path / "x.npz")])
    assert res.exit_code != 0  # the entry point prints the error's one line
    assert "percentile, kmeans, ochs or potential" in str(res.exception)


def test_pruned_nearest_equals_measuring_every_center_ties_included():
    rng = np.random.default_rng(6)
    K, N, k = 9, 400, 12
    ground = PA.ground_of(_ground(rng, K))
    dense = rng.random((N, K)) * (rng.random((N, K)) < 0.3)
    dense[np.arange(N), rng.integers(0, K, N)] += 0.3
    dense /= dense.sum(axis=1, keepdims=True)
    m = int((dense > 0).sum(axis=1).max())
    lab, mass, nnz = np.zeros((N, m), np.int32), np.zeros((N, m)), np.zeros(N, np.int32)
    for i in range(N):
        nz = np.flatnonzero(dense[i])
        lab[i, :len(nz)], mass[i, :len(nz)], nnz[i] = nz, dense[i, nz], len(nz)
    pts = PA.SparsePoints(PA.Sparse(lab, mass, nnz), ground)
    C = rng.random((k, K)) * (rng.random((k, K)) < 0.5) + 1e-3 * (rng.random((k, K)) < 0.2)
    C[:, 0] += 0.01
    C[7] = C[3]  # a tie: the first of the two wins
    C /= C.sum(axis=1, keepdims=True)
    every = np.empty((N, k))
    for j in range(k):
        pts.distances_to(C, j, every[:, j])
    for hint in (None, rng.integers(-1, k, N)):
        got, dist = np.empty(N, np.int64), np.empty(N)
        pts.nearest(C, got, dist, hint)
        assert (got == every.argmin(axis=1)).all() and (dist == every.min(axis=1)).all()
    assert (every[:, 3] == every[:, 7]).all() and not (got == 7).any()


class _Cycling:
    """Points whose assignment alternates between two labelings whatever the centers."""

    def __init__(self, stop_on_cycle):
        self.n, self.dim, self.squared, self.stop_on_cycle = 4, 1, True, stop_on_cycle
        self.passes = 0

    def take(self, pick):
        return self

    def row(self, i):
        return np.array([float(i)])

    def distances_to(self, C, j, out):
        out[:] = np.abs(np.arange(4.0) - C[j, 0])

    def nearest(self, C, labels, dist, hint=None):
        self.passes += 1
        labels[:] = [0, 0, 1, 1] if self.passes % 2 else [0, 1, 1, 1]
        dist[:] = 0.0

    def centers(self, w, labels, C, wsum):
        pass


def test_a_greedy_distance_stops_at_a_repeated_labeling_an_exact_one_runs_on():
    cyc = _Cycling(True)
    labels, _ = KM.kmeans_points(cyc, np.ones(4), 2, seed=0, iterations=50)
    assert cyc.passes == 3 and list(labels) == [0, 1, 1, 1]  # pass 3 repeats pass 1
    plain = _Cycling(False)
    KM.kmeans_points(plain, np.ones(4), 2, seed=0, iterations=50)
    assert plain.passes == 50
