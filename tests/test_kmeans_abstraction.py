"""Distribution-aware buckets: EMD, k-means, hand-strength histograms and OCHS against
direct computations on small decks."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy.stats import wasserstein_distance
from test_metrics import holdem

from cfrlab.abstraction import _kmeans_kernels as KK
from cfrlab.abstraction import kmeans as KM
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.abstraction.metrics import denominators, last_round_table, metric_indexers
from cfrlab.abstraction.sizes import check_build
from cfrlab.cards.isomorphism import DeckMap
from cfrlab.errors import CfrlabError


def test_emd_equals_the_wasserstein_distance_and_the_kernel_l1():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(2, 12))
        a, b = rng.integers(0, 9, n).astype(float), rng.integers(0, 9, n).astype(float)
        a[0] += 1
        b[-1] += 1
        centers = (np.arange(n) + 0.5) / n
        want = wasserstein_distance(centers, centers, a, b)
        assert KM.emd(a, b) == pytest.approx(want, abs=1e-12)
        X = KM.cumulative(np.stack([a, b]))
        out = np.empty(2)
        KK.distances_to(X, X, 1, True, out)  # the k-means kernel's L1 on cumulative rows
        assert out[0] == pytest.approx(want, abs=1e-12) and out[1] == 0.0


def test_kmeans_is_deterministic_with_a_seed_and_refuses_too_many_clusters():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(c, 0.1, (40, 3)) for c in (0.0, 1.0, 2.0)])
    w = rng.integers(1, 5, len(X)).astype(float)
    la, ca = KM.kmeans(X, w, 3, seed=5, l1=False)
    lb, cb = KM.kmeans(X, w, 3, seed=5, l1=False)
    assert (la == lb).all() and (ca == cb).all()
    assert len(set(la[:40])) == len(set(la[40:80])) == len(set(la[80:])) == 1  # three blobs
    assert len(set(la)) == 3
    with pytest.raises(CfrlabError, match="121 clusters asked for only 120 points"):
        KM.kmeans(X, w, 121, seed=0, l1=True)
    # more clusters than distinct points: refused, not empty clusters
    with pytest.raises(CfrlabError, match="4 clusters asked for only 3 distinct points"):
        KM.kmeans(np.repeat(X[[0, 40, 80]], 10, axis=0), np.ones(30), 4, seed=0, l1=True)


def test_kmeans_on_a_sample_fits_there_and_labels_every_point_by_its_nearest_center():
    rng = np.random.default_rng(2)
    X = np.concatenate([rng.normal(c, 0.1, (200, 3)) for c in (0.0, 1.0, 2.0)])
    w = rng.integers(1, 5, len(X)).astype(float)
    full = KM.kmeans(X, w, 3, seed=5, l1=False, fit_points=len(X))
    assert (full[0] == KM.kmeans(X, w, 3, seed=5, l1=False)[0]).all()  # no sample below the cap
    la, ca = KM.kmeans(X, w, 3, seed=5, l1=False, fit_points=60)
    lb, cb = KM.kmeans(X, w, 3, seed=5, l1=False, fit_points=60)
    assert (la == lb).all() and (ca == cb).all()  # the sample is seeded
    pick = np.sort(np.random.default_rng([5, 1]).choice(len(X), size=60, replace=False))
    _, c_sample = KM.kmeans(X[pick], w[pick], 3, seed=5, l1=False)
    assert (ca == c_sample).all()  # the centers are the sample's own k-means
    d = ((X[:, None, :] - ca[None, :, :]) ** 2).sum(axis=2)
    assert (la == d.argmin(axis=1)).all()  # every point to its nearest center
    assert len(set(la[:200])) == len(set(la[200:400])) == len(set(la[400:])) == 1
    assert len(set(la)) == 3


def test_the_ochs_round_estimate_holds_no_histograms():
    g = holdem(4, 3)
    spec = BucketSpec.kmeans(g.num_rounds, "3-4-4-4", "ochs", seed=1, bins=50, opp_clusters=2)
    emd = BucketSpec.kmeans(g.num_rounds, "3-4-4-4", "emd", seed=1, bins=50)
    river = metric_indexers(g)[-1].size
    a = KM.kmeans_estimate(g, spec)["phases"]["k-means round 3"]
    b = KM.kmeans_estimate(g, emd)["phases"]["k-means round 3"]
    assert b - a == river * (4 * 50 + 8 * 50 - 8 * 2) + 16 * 4 * (50 - 2)


@pytest.fixture(scope="module")
def small():
    g = holdem(4, 3)  # 12 cards, board 0/3/1/1
    return g, last_round_table(g, use_cache=False)


def test_histograms_equal_direct_enumeration(small):
    g, hs = small
    deck = DeckMap(g.num_ranks, g.num_suits)
    ixs = metric_indexers(g)
    den = denominators(g)[0][-1]
    bins = 7
    for r in (0, 1, 2):
        H = KM.hs_histograms(g, r, hs, bins)
        assert (H.sum(axis=1) == KM.completions(g, r)).all()
        reps = ixs[r].unindex_local(np.arange(ixs[r].size, dtype=np.int64))
        for i in range(0, len(reps), max(1, len(reps) // 6)):
            hand = [int(c) for c in reps[i]]
            rest = [c for c in range(deck.size) if c not in hand]
            want = np.zeros(bins, dtype=np.int64)
            for more in combinations(rest, 5 - (len(hand) - 2)):
                v = int(hs[ixs[-1].index_local(np.array([hand + list(more)]))[0]])
                want[min(bins - 1, v * bins // den)] += 1
            assert (H[i] == want).all()


def test_ochs_equals_enumeration(small):
    g, _ = small
    ixs = metric_indexers(g)
    opp = np.arange(ixs[0].size) % 3  # any map of preflop classes to 3 clusters
    O = KM.ochs_values(g, opp)
    deck = DeckMap(g.num_ranks, g.num_suits)
    reps = ixs[-1].unindex_local(np.arange(ixs[-1].size, dtype=np.int64))
    for i in range(0, len(reps), 97):
        cards = [int(x) for x in deck.to_global[reps[i]]]
        want = KM.direct_ochs(g, cards[:2], cards[2:], opp)
        np.testing.assert_allclose(O[i], want, rtol=0, atol=1e-12)


def test_kmeans_model_builds_deterministically_and_round_trips(small, tmp_path):
    g, _ = small
    spec = BucketSpec.kmeans(4, "4-5-5-5", "ochs", seed=2, bins=8, opp_clusters=3)
    a = BucketedModel.build(g, spec, use_cache=False)
    b = BucketedModel.build(g, spec, use_cache=False)
    assert a.hash == b.hash and a.num_states == (4, 5, 5, 5)
    for m in a.masses:
        assert m.sum() == pytest.approx(1.0) and (m > 0).all()
    path = tmp_path / "k.npz"
    a.save(path)
    again = BucketedModel.load(path, g)
    assert again.hash == a.hash and again.spec == spec
    d = [51, 50, 47, 46, 43, 42, 49, 39, 38]  # As Ah / Ks Kh / Qs Qh Ad / Js / Jh
    st = again.deal_states(d)
    ix = metric_indexers(g)[-1]
    assert st[0, 3] == a.maps.river[ix.index([51, 50, 43, 42, 49, 39, 38])]
    with pytest.raises(CfrlabError, match="no joint tables"):
        a.fold_matrix(0)


def test_refusals_one_line(small):
    g, _ = small
    with pytest.raises(CfrlabError, match="20 clusters asked for only 16 points"):
        BucketedModel.build(g, BucketSpec.kmeans(4, "20-5-5-5", "emd", bins=4), use_cache=False)
    with pytest.raises(CfrlabError, match="round 3: 9 clusters asked for only 8 distinct points"):
        BucketedModel.build(g, BucketSpec.kmeans(4, "4-5-5-9", "emd", bins=8), use_cache=False)
    spec = BucketSpec.kmeans(4, "4-5-5-5", "ochs", bins=50, opp_clusters=8)
    with pytest.raises(CfrlabError, match=r"needs about .* more than the 1\.0 kB available") as e:
        check_build(g, spec, 1024)
    assert "\n" not in str(e.value)
    with pytest.raises(CfrlabError, match="imperfect recall"):
        BucketSpec((((("emd", 3),),) * 4), "kmeans", True, "imperfect", 0, 10, 0)
