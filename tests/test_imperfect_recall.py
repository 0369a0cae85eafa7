"""Imperfect-recall abstractions solved by public chance sampling over real hole pairs.

Oracle: an imperfect-recall abstraction that forgets nothing (its round-r bucket is the
perfect-recall bucket sequence) gives the perfect-recall solver's regrets, averages and
real-game values to 1e-12."""

from __future__ import annotations

import numpy as np
import pytest
from test_metrics import holdem

from cfrlab import api
from cfrlab.abstraction import _bucket_kernels as BK
from cfrlab.abstraction import perfect_recall
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketMaps, BucketSpec
from cfrlab.abstraction.metrics import metric_indexers
from cfrlab.agents.matches import play_match
from cfrlab.engine.models import build_tree_for
from cfrlab.errors import CfrlabError
from cfrlab.realgame import real_best_response
from cfrlab.solvers import make_solver
from cfrlab.strategy import Strategy


def forget_nothing(pr: BucketedModel) -> BucketedModel:
    """The imperfect-recall model whose bucket of every round is ``pr``'s bucket sequence:
    earlier rounds share its ordered-class tables, the last round is a table over river
    (hole | board) classes (a 2-round game: the sequence is a function of that class)."""
    g = pr.game
    R = g.num_rounds
    rx = metric_indexers(g)[-1]
    reps = rx.unindex_local(np.arange(rx.size, dtype=np.int64))
    river = np.array([BK.one_player_states(np.ascontiguousarray(h), R - 1, pr._lookup)[R - 1]
                      for h in reps], dtype=np.int32)
    spec = BucketSpec.kmeans(R, "-".join(str(s) for s in pr.num_states), "emd", bins=2)
    maps = BucketMaps(spec, dict(pr.maps.params), list(pr.maps.state),
                      np.arange(pr.num_states[-1], dtype=np.int32)[None, :], list(pr.masses),
                      np.zeros((1, 1), dtype=np.int64), river=river)
    return BucketedModel(g, maps, [], None, river)


@pytest.fixture(scope="module")
def two_round():
    g = holdem(4, 3, "0 3")
    pr = BucketedModel.build(g, BucketSpec.make(2, "3-4"), use_cache=False)
    return g, pr, forget_nothing(pr)


def test_forgetting_nothing_gives_the_perfect_recall_results(two_round):
    g, pr, ir = two_round
    assert perfect_recall(pr) and not perfect_recall(ir) and ir.parent is None
    assert ir.num_states == pr.num_states
    deals = np.array([[51, 50, 47, 46, 43, 42, 49]], dtype=np.int64)  # As Ah Ks Kh / Qs Qh Ad
    assert (ir.deal_states_batch(deals) == pr.deal_states_batch(deals)).all()
    tree = build_tree_for(g)
    a = make_solver(tree, pr, "pcs", seed=7)
    b = make_solver(tree, ir, "pcs", seed=7)
    a.iterate(60)
    b.iterate(60)
    assert np.abs(a.regret).max() > 0
    np.testing.assert_allclose(b.regret, a.regret, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.avg, a.avg, rtol=0, atol=1e-12)
    sa = Strategy.from_policy(g, a.average_policy(), tree=tree, model=pr)
    sb = Strategy.from_policy(g, b.average_policy(), tree=tree, model=ir)
    ra, rb = real_best_response(sa), real_best_response(sb)
    assert rb.exploitability == pytest.approx(ra.exploitability, abs=1e-12)
    np.testing.assert_allclose(rb.br, ra.br, rtol=0, atol=1e-12)


def test_imperfect_recall_solve_is_measured_in_the_real_game(two_round):
    g, _, _ = two_round
    ir = BucketedModel.build(g, BucketSpec.make(2, "3-3", history=False, recall="imperfect"),
                             use_cache=False)
    r = api.solve(g, "pcs", abstraction=ir, iterations=40, seed=3)
    assert r.game_value is None  # no abstract game value under imperfect recall
    real = real_best_response(r.strategy).exploitability
    assert r.exploitability_chips == pytest.approx(real, abs=1e-12)
    # a forgetful strategy is worse than nothing only if the solve is broken: it beats folding
    assert 0 < real < 1.0
    for alg in ("cfr", "cs"):
        with pytest.raises(CfrlabError, match="perfect-recall"):
            make_solver(build_tree_for(g), ir, alg, seed=1)
    with pytest.raises(CfrlabError, match="perfect recall"):
        api.solve(g, "lp", abstraction=ir)


def test_imperfect_recall_strategy_file_plays(two_round, tmp_path):
    g, _, ir = two_round
    ir_path = tmp_path / "ir.npz"
    ir.save(ir_path)
    loaded = BucketedModel.load(ir_path, g)
    assert loaded.hash == ir.hash
    r = api.solve(g, "pcs", abstraction=loaded, iterations=20, seed=1)
    spath = tmp_path / "s.npz"
    r.strategy.save(spath)
    s = Strategy.load(spath)
    assert s.model.hash == ir.hash
    d = [51, 50, 47, 46, 43, 42, 49]
    state = s.model.state_of(0, d[0:2], d[4:7], 1)  # the agent's state: the current bucket
    assert state == ir.deal_states_batch(np.array([d]))[0, 0, 1]
    m = play_match(g, s, "always-call", 50, seed=1)
    assert m.overall() is not None
