"""Hold'em in a card abstraction: the vector engine on bucketed models (reduced decks).

Oracles: the sequence-form LP (an independent exact solver on the same abstract game), and
a plain tree walk over every deal (tests/naive.py) whose information sets are the abstract
ones (player, bucket sequence, betting) and whose showdowns use its own hand evaluator, so it
checks the abstraction's joint tables as well as the engine's walk.
"""

from __future__ import annotations

from functools import lru_cache

import naive
import numpy as np
import pytest
from game_texts import holdem_text
from typer.testing import CliRunner

from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.cli.main import app
from cfrlab.engine import load_abstraction, model_kind
from cfrlab.engine.values import (
    best_response_values,
    expected_value,
    exploitability,
    uniform_policy,
)
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.experiments.synthetic import SyntheticBucketModel
from cfrlab.games import parse_game
from cfrlab.solvers import make_solver
from cfrlab.solvers.lp import solve_lp
from cfrlab.strategy import Strategy
from cfrlab.tree import build_tree


def small_holdem(ranks=4, suits=2, boards="0 2 1", raises="2 2 2"):
    return parse_game(holdem_text(ranks, suits, boards, raises), name=f"holdem-{ranks}x{suits}")


@lru_cache(maxsize=4)
def case(buckets: int = 2, raises: str = "2 2 2"):
    g = small_holdem(raises=raises)
    model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, buckets), use_cache=False)
    return g, build_tree(g), model


def abstract_naive(game, tree, model, policy, monkeypatch):
    """Patch naive's information-set key to (player, bucket sequence, betting) and return the
    engine policy as a dict over those keys."""
    memo: dict = {}

    def key(g, node, deal):
        p = node.player
        k = (p, deal[p], naive.visible_board(g, deal[2], node.round), node.round)
        s = memo.get(k)
        if s is None:
            s = memo[k] = int(model.state_of(p, list(deal[p]), list(k[2]), node.round))
        return (p, s, node.betting)

    monkeypatch.setattr(naive, "infoset_key", key)
    ro = make_solver(tree, model, "cfr+").row_offset
    table = {}
    for betting, node in tree.node_of_betting.items():
        d = int(tree.decision[node])
        if d < 0:
            continue
        p, r = int(tree.player[node]), int(tree.round[node])
        for s in range(model.num_states[r]):
            table[(p, s, betting)] = policy[int(ro[d]) + s]
    return table


def test_lp_value_and_exploitability_agree_with_the_engine():
    # two buckets per round (2, 4 and 8 bucket sequences): the LP takes 0.7 s (5 s at three)
    _g, tree, model = case(2)
    policy, value = solve_lp(tree, model)
    assert abs(expected_value(tree, model, policy, policy) - value) < 1e-6
    assert exploitability(tree, model, policy) < 1e-6
    for alg in ("cfr+", "dcfr", "pcfr+"):
        s = make_solver(tree, model, alg)
        s.iterate(300)
        avg = s.average_policy()
        e = exploitability(tree, model, avg)
        assert e < 5e-3  # 300 iterations: near the LP solution (which is exact)
        # the value of any profile is within its exploitability of the game value
        assert abs(expected_value(tree, model, avg, avg) - value) <= 2 * e + 1e-9


@pytest.mark.slow
def test_vector_best_response_and_value_equal_a_brute_force_walk_over_every_deal(monkeypatch):
    """The engine's best-response value for each responder, hence the exploitability, and the
    expected value of a CFR+ average (50 iterations: full support, exploitability 0.014
    chips, far from both uniform and equilibrium) equal the plain walk's over all 5,040 deals.
    One policy: each walk takes seconds (the random policy this test also used to check
    asserted the same equalities through the same walks)."""
    g, tree, model = case(2, "1 1 1")  # one raise per round keeps the plain walk quick
    s = make_solver(tree, model, "cfr+")
    s.iterate(50)
    avg = s.average_policy()
    assert avg[uniform_policy(tree, model) > 0].min() > 0  # every legal action played
    table = abstract_naive(g, tree, model, avg, monkeypatch)
    b0, b1 = best_response_values(tree, model, avg)
    n0 = naive.best_response(g, table, 0)[0]
    n1 = naive.best_response(g, table, 1)[0]
    assert abs(b0 - n0) < 1e-9 and abs(b1 - n1) < 1e-9
    assert abs(exploitability(tree, model, avg) - 0.5 * (n0 + n1)) < 1e-9 and 0.5 * (n0 + n1) > 1e-3
    assert abs(expected_value(tree, model, avg, avg) - naive.expected_value(g, table, table)) < 1e-9


def test_float32_products_track_float64():
    g = small_holdem(boards="0 2 1")
    tree = build_tree(g)
    model = SyntheticBucketModel(g, 4, seed=3)  # 64 last-round states: the GEMM path
    a = make_solver(tree, model, "cfr+", float32=False)
    b = make_solver(tree, model, "cfr+", float32=True)
    a.iterate(30)
    b.iterate(30)
    assert np.abs(a.average_policy() - b.average_policy()).max() < 1e-3
    ea, eb = exploitability(tree, model, a.average_policy()), exploitability(tree, model, b.average_policy())
    assert abs(ea - eb) < 1e-4 * max(1.0, ea)


def test_synthetic_model_tables_are_consistent():
    g = small_holdem()
    m = SyntheticBucketModel(g, 3, seed=1)
    for r in range(g.num_rounds):
        P = m.fold_matrix(r)
        assert abs(P.sum() - 1) < 1e-12 and np.allclose(P, P.T)
    W = m.showdown_matrix()
    assert np.allclose(W, -W.T) and np.all(np.abs(W) <= m.fold_matrix(2) + 1e-15)


def test_chance_sampling_runs_on_a_bucketed_model():
    _g, tree, model = case(2)
    s = make_solver(tree, model, "cs", seed=1)
    s.iterate(20000)
    assert exploitability(tree, model, s.average_policy()) < 0.5 * exploitability(
        tree, model, make_solver(tree, model, "cfr").average_policy())


def test_strategy_files_carry_the_abstraction_and_refuse_another(tmp_path):
    g, tree, model = case(2)
    other = case(3)[2]
    f = tmp_path / "b2.npz"
    model.save(f)
    loaded = load_abstraction(f, g)
    assert loaded.hash == model.hash and model_kind(loaded) == "bucketed"
    s = make_solver(tree, loaded, "cfr+")
    s.iterate(5)
    st = Strategy.from_solver(s, g, measure=False)
    assert st.header["abstraction_file"] == "b2.npz" and st.header["model_hash"] == model.hash
    st.save(tmp_path / "s.npz")
    back = Strategy.load(tmp_path / "s.npz", model=f)
    assert np.array_equal(back.policy, st.policy)
    with pytest.raises(FileMismatchError, match="b2.npz"):
        Strategy.load(tmp_path / "s.npz", model=other)
    assert Strategy.load(tmp_path / "s.npz").model.hash == model.hash  # found beside it
    f.rename(tmp_path / "moved.npz")
    with pytest.raises(CfrlabError, match="solved in abstraction b2.npz .*give that abstraction file"):
        Strategy.load(tmp_path / "s.npz").exploitability()


def test_cli_solve_exploit_show_with_an_abstraction(tmp_path):
    g, _tree, model = case(2)
    gf = tmp_path / "g.game"
    gf.write_text(g.to_text())
    ab = tmp_path / "b2.npz"
    model.save(ab)
    ab3 = tmp_path / "b3.npz"
    case(3)[2].save(ab3)
    out = tmp_path / "s.npz"
    r = CliRunner()
    res = r.invoke(app, ["solve", str(gf), "-a", "cfr+", "-n", "40", "--abstraction", str(ab),
                         "--out", str(out), "--checkpoint-every", "20", "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    res = r.invoke(app, ["exploit", str(out), "--abstraction", str(ab)])
    assert res.exit_code == 0 and "exploitability" in res.output
    res = r.invoke(app, ["strategy", "show", str(out), "--abstraction", str(ab)])
    assert res.exit_code == 0, res.output
    res = r.invoke(app, ["exploit", str(out), "--abstraction", str(ab3)])
    assert res.exit_code != 0 and "b2.npz" in str(res.exception or res.output)
    # resume continues from the checkpoint to a larger budget
    res = r.invoke(app, ["solve", str(gf), "-a", "cfr+", "-n", "60", "--abstraction", str(ab),
                         "--out", str(out), "--resume", "--no-progress"])
    assert res.exit_code == 0 and "resuming" in res.output and "60 iterations" in res.output


def test_experiment_convergence_from_a_checkpoint(tmp_path):
    g, _tree, model = case(2)
    gf = tmp_path / "g.game"
    gf.write_text(g.to_text())
    ab = tmp_path / "b2.npz"
    model.save(ab)
    out = tmp_path / "s.npz"
    r = CliRunner()
    res = r.invoke(app, ["solve", str(gf), "-a", "cfr+", "-n", "30", "--abstraction", str(ab),
                         "--out", str(out), "--checkpoint-every", "10", "--eval-every", "10",
                         "--no-progress"])
    assert res.exit_code == 0, res.output
    res = r.invoke(app, ["experiment", "convergence", "--abstraction", str(ab), "--checkpoint",
                         str(tmp_path / "s.ckpt.npz"), "-o", str(tmp_path / "conv")])
    assert res.exit_code == 0, res.output
    rows = (tmp_path / "conv" / "convergence.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 3 and rows[1].startswith("2,")
    assert (tmp_path / "conv" / "convergence.png").stat().st_size > 1000


def test_abstraction_strategy_plays_matches_as_an_agent(tmp_path):
    """Real cards -> bucket sequence -> action: the sampled match mean of a bucketed strategy
    against always-call agrees with the exact value computed in the abstract game."""
    from cfrlab.agents import play_match
    from cfrlab.agents.registry import make_agent

    g, tree, model = case(2)
    ab = tmp_path / "b2.npz"
    model.save(ab)
    s = make_solver(tree, model, "cfr+")
    s.iterate(200)
    st = Strategy.from_solver(s, g, model=load_abstraction(ab, g), measure=False)
    st.save(tmp_path / "s.npz")
    named = make_agent(f"{tmp_path / 's.npz'}:abstraction={ab}", g, seed=1)
    beside = make_agent(str(tmp_path / "s.npz"), g, seed=1)  # finds b2.npz next to it
    assert named.model.hash == beside.model.hash == model.hash
    res = play_match(g, named, "always-call", 100_000, seed=3, duplicate=True, exact=True)
    assert res.exact_chips is not None and res.exact_chips > 0
    summary = res.summary()
    assert abs(summary["mean_chips"] - res.exact_chips) < summary["ci95_chips"] + 1e-9
    (tmp_path / "b2.npz").rename(tmp_path / "elsewhere.npz")
    with pytest.raises(CfrlabError, match="abstraction"):
        make_agent(str(tmp_path / "s.npz"), g)


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr", "pcfr+", "cfr", "pcs", "cs"])
def test_measuring_between_iterations_changes_nothing(algorithm):
    """Exploitability is measured in the solver's current-strategy buffer (memory at 10
    buckets): iterating after a measurement must give the same iterates as not measuring."""
    if algorithm == "pcs":  # public chance sampling needs board blocks: a lossless model
        from cfrlab.abstraction.lossless import LosslessModel

        g = small_holdem()
        tree, model = build_tree(g), LosslessModel(g)
    else:
        g, tree, model = case(2)
    a = make_solver(tree, model, algorithm, seed=5)
    b = make_solver(tree, model, algorithm, seed=5)
    a.iterate(7)
    e = a.exploitability()
    assert e == pytest.approx(exploitability(tree, model, a.average_policy()), abs=1e-12)
    a.iterate(6)
    b.iterate(7)
    b.iterate(6)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.avg, b.avg)


@pytest.mark.parametrize("kind", ["abstraction", "synthetic"])
def test_engine_shares_the_models_tables(kind):
    g = small_holdem()
    model = (BucketedModel.build(g, BucketSpec.make(g.num_rounds, 2), use_cache=False)
             if kind == "abstraction" else SyntheticBucketModel(g, 3, seed=2))
    W = model.showdown_matrix().copy()
    P = [model.fold_matrix(r).copy() for r in range(g.num_rounds)]
    make_solver(build_tree(g), model, "cfr+")
    held = model._showdown if kind == "abstraction" else model._W
    assert held is None  # held once, as the engine's -W
    assert np.array_equal(model.showdown_matrix(), W)
    assert all(np.array_equal(model.fold_matrix(r), P[r]) for r in range(g.num_rounds))


@pytest.mark.parametrize("alternating", [False, True])
def test_public_chance_sampling_over_hole_pairs_is_unbiased(alternating):
    """One iteration of hole-pair PCS on each board (all boards, equally likely) averages to
    the full-width iteration's regret increments exactly, from a non-uniform strategy."""
    from itertools import combinations

    _g, tree, model = case(2)
    full = make_solver(tree, model, "cfr", alternating=alternating)
    pcs = make_solver(tree, model, "pcs", seed=0, alternating=alternating)
    start = np.random.default_rng(3).random(full.regret.shape) * 0.3
    full.regret[:] = start
    full.iterate(1)
    D, nb = pcs._holes.D, pcs._holes.nb
    boards = [np.array(f + (t,)) for f in combinations(range(D), 2) for t in range(D) if t not in f]
    assert nb == 3 and len(boards) == 28 * 6
    total = np.zeros_like(start)
    for b in boards:
        pcs.regret[:] = start
        pcs._holes.iterate(pcs, b, 1)
        total += pcs.regret - start
    expected = full.regret - start
    # alternating: player 1 then sees player 0's new (board-dependent) strategy, which is not
    # linear in the board; player 0's increments still are
    rows = full.engine.player_of_row == 0 if alternating else slice(None)
    np.testing.assert_allclose((total / len(boards))[rows], expected[rows], rtol=0, atol=1e-12)


@pytest.mark.slow
def test_public_chance_sampling_converges_on_a_bucketed_model():
    """Exploitability below 5% of uniform play's after 1,500 iterations (measured, seeds 1-8:
    2.6% to 3.6% of it; 4.1% to 4.6% at 1,000, 8% to 10% at 300)."""
    g, tree, model = case(2)
    s = make_solver(tree, model, "pcs", seed=1)
    s.iterate(50)
    again = make_solver(tree, model, "pcs", seed=1)
    again.iterate(50)
    assert np.array_equal(again.avg, s.avg)  # seeded: reproducible
    s.iterate(1450)
    e_pcs = s.exploitability()
    uniform = exploitability(tree, model, Strategy.uniform(g, tree=tree, model=model).policy)
    assert e_pcs < 0.05 * uniform
