"""Counter-strategies against independent oracles: opponent models against the strategy that
played, FBR against the exact best response, RNR and DBR against sequence-form LPs of their
restricted games, and the limits p = 0 (an equilibrium) and p = 1 (a best response)."""

import numpy as np
import pytest

import cfrlab
from cfrlab.cards.cards import deck
from cfrlab.counter import OpponentModel, build_model, confidence, dbr, fbr, rnr
from cfrlab.counter.lp import dbr_value, rnr_value
from cfrlab.counter.restricted import RestrictedSolver
from cfrlab.engine import build_tree_for, model_for_game, row_offsets
from cfrlab.errors import FileMismatchError
from cfrlab.games import load_game, parse_log_line
from cfrlab.tree import CHANCE


def _random_strategy(game, seed, power=3.0):
    u = cfrlab.Strategy.uniform(game)
    legal = np.repeat(u.tree.legal, np.diff(u.row_offset), axis=0)
    rng = np.random.default_rng(seed)
    p = np.where(legal, rng.random(legal.shape) ** power + 1e-3, 0.0)
    return cfrlab.Strategy.from_policy(u.game, p / p.sum(axis=1, keepdims=True), tree=u.tree, model=u.model)


@pytest.fixture(scope="module")
def leduc_log(tmp_path_factory):
    d = tmp_path_factory.mktemp("counter")
    target = _random_strategy("leduc", 4, power=1.0)
    log = d / "m.log"
    cfrlab.play_match("leduc", target, "random", 40_000, seed=9, log=log, names=("target", "field"))
    return target, log


def test_a_model_converges_to_the_strategy_that_played(leduc_log):
    target, log = leduc_log
    small = build_model([log], "leduc", "target", max_hands=4_000)
    large = build_model([log], "leduc", "target")
    assert small.hands == 4_000 and large.hands == 40_000
    errors = []
    for m in (small, large):
        n = m.observations
        seen = n > 0
        pol, p = m.policy[seen], target.policy[seen]
        bound = 5.0 * np.sqrt(p * (1 - p) / n[seen, None]) + 1e-9  # 5 sigma, binomial
        assert (np.abs(pol - p) <= bound).all()
        errors.append(float(np.mean(np.abs(pol - p)[n[seen] > 0])))
    assert errors[1] < 0.5 * errors[0]  # ten times the hands, about a third of the error
    unseen = large.observations == 0
    assert np.array_equal(large.policy[unseen][:, 1], np.ones(unseen.sum()))  # default: call


def test_model_files_round_trip_and_refuse_other_games(leduc_log, tmp_path):
    _, log = leduc_log
    m = build_model([log], "leduc", "target", max_hands=1_000, default="uniform")
    path = tmp_path / "model.npz"
    m.save(path)
    back = OpponentModel.load(path, game="leduc")
    assert np.array_equal(back.counts, m.counts) and back.default == "uniform" and back.hands == 1_000
    assert cfrlab.Strategy.load(path).exploitability() == pytest.approx(m.strategy().exploitability())
    with pytest.raises(FileMismatchError):
        OpponentModel.load(path, game="kuhn")
    with pytest.raises(cfrlab.CfrlabError, match="no hand of player 'nobody'"):
        build_model([log], "leduc", "nobody")
    with pytest.raises(cfrlab.CfrlabError, match="unknown default policy"):
        build_model([log], "leduc", "target", default="bluff")


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_fbr_of_an_exact_model_is_the_best_response(game):
    s = _random_strategy(game, 1)
    c = fbr(s)
    br = cfrlab.exploit(s)
    assert c.exploitation == pytest.approx(sum(br.chips) / 2, abs=1e-12)
    assert c.strategy.header["counter"]["method"] == "fbr"


@pytest.mark.parametrize("game, iterations", [("kuhn", 2000), pytest.param("leduc", 2500, marks=pytest.mark.slow)])
def test_rnr_matches_the_lp_of_its_restricted_game(game, iterations):
    s = _random_strategy(game, 2)
    eq = cfrlab.solve(game, "lp")
    for p in (0.0, 0.3, 0.7, 1.0):
        c = rnr(s, p, iterations=iterations)
        assert c.objective == pytest.approx(rnr_value(s.tree, s.model, s.policy, p), abs=1e-4), p
        if p == 0.0:  # an equilibrium: exploitability near the LP's 0
            assert c.exploitability < 1e-3 and abs(c.strategy.game_value() - eq.game_value) < 1e-2
        if p == 1.0:  # a best response to the model
            assert c.exploitation == pytest.approx(fbr(s).exploitation, abs=1e-3)


def test_dbr_limits_are_rnr_and_its_value_is_the_lp(leduc_log):
    _, log = leduc_log
    m = build_model([log], "leduc", "target", max_hands=2_000)
    s = m.strategy()
    rows = len(m.counts)
    for trust, p in ((0.0, 0.0), (1.0, 1.0)):  # P_conf everywhere 0 or 1: RNR at p = 0 or 1
        a = RestrictedSolver(s.tree, s.model, s.policy, conf=np.full(rows, trust))
        b = RestrictedSolver(s.tree, s.model, s.policy, p=p)
        a.iterate(100)
        b.iterate(100)
        assert np.allclose(a.average_policy(), b.average_policy(), atol=1e-12)
    c = dbr(m, 0.8, iterations=1000)
    conf = confidence(m.observations, 0.8)
    assert 0 < conf.min() < conf.max() <= 0.8 or conf.min() == 0.0
    assert c.objective == pytest.approx(dbr_value(s.tree, s.model, s.policy, conf), abs=1e-4)
    # trusting a model of few hands costs less exploitability than RNR's flat trust at the same level
    r = rnr(m, 0.8, iterations=1000)
    assert c.exploitability < r.exploitability


def test_bad_parameters_are_one_line():
    s = cfrlab.Strategy.uniform("kuhn")
    for call, message in ((lambda: rnr(s, 1.5), "probability"), (lambda: rnr(s, 0.5, iterations=0), "positive"),
                          (lambda: dbr(s, 0.5), "opponent model"), (lambda: confidence([1.0], 2.0), "P_max"),
                          (lambda: rnr(s, 0.5, algorithm="os"), "restricted games")):
        with pytest.raises(cfrlab.CfrlabError, match=message) as e:
            call()
        assert "\n" not in str(e.value)


def test_the_gap_to_the_restricted_equilibrium_closes():
    s = _random_strategy("kuhn", 5)
    for kw in ({"p": 0.6}, {"conf": np.full(len(s.policy), 0.6)}):
        solver = RestrictedSolver(s.tree, s.model, s.policy, **kw)
        gaps = []
        for n in (10, 100, 1000):
            solver.iterate(n - solver.iterations)
            gaps.append(solver.gap())
        assert all(g > -1e-12 for g in gaps) and gaps[-1] < 1e-3 and gaps[-1] < gaps[0] / 10, gaps


def test_a_target_gap_stops_the_solve_early():
    """With a target, RNR and DBR stop at the first check (100 iterations, then every 50) whose
    gap to the restricted equilibrium meets it; the gap reported is the solver's own."""
    s = _random_strategy("leduc", 3)
    m = OpponentModel(s.game, s.tree, s.model, np.full((len(s.policy), 3), 50.0) * s.policy)
    loose = rnr(s, 0.5, iterations=2000, target=0.01)
    assert loose.iterations < 2000 and (loose.iterations - 100) % 50 == 0 and loose.gap <= 0.01
    tight = rnr(s, 0.5, iterations=loose.iterations + 50, target=1e-9)  # out of reach: runs to the end
    assert tight.iterations == loose.iterations + 50 and tight.gap > 1e-9
    solver = RestrictedSolver(s.tree, s.model, s.policy, p=0.5)
    solver.iterate(loose.iterations)
    assert solver.gap() == pytest.approx(loose.gap, abs=1e-12)
    d = dbr(m, 0.5, iterations=2000, target=0.01)
    assert d.iterations < 2000 and d.gap <= 0.01
    with pytest.raises(cfrlab.CfrlabError, match="target gap must be positive"):
        rnr(s, 0.5, target=0.0)


def test_a_bad_log_line_is_named(leduc_log, tmp_path):
    _, log = leduc_log
    lines = log.read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("STATE:"))
    fields = lines[i + 3].split(":")
    fields[2] = "rrrrq"  # a betting string no hand can have
    lines[i + 3] = ":".join(fields)
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(cfrlab.errors.ParseError, match=rf"bad.log:{i + 4}: ") as e:
        build_model([bad], "leduc", "target")
    assert "\n" not in str(e.value)


def test_rnr_curve_lies_above_the_mixture_line():
    """The thesis's Figure 5.1 shape on Leduc: RNR at p = 0.5 exploits more than the coin-flip
    mixture of its end points at the same exploitability."""
    from cfrlab.counter import mixture_line, sweep

    s = _random_strategy("leduc", 6)
    ends = sweep(s, [0.0, 0.5, 1.0], iterations=800)
    line = mixture_line(ends[0], ends[2], n=1001)
    mid = ends[1]
    below = [e for x, e in line if x <= mid.exploitability]
    assert mid.exploitation > max(below)


def test_model_counts_equal_a_count_through_the_full_parser(leduc_log):
    """Oracle: every line parsed by the ACPC log parser, the player's decisions walked in the
    public tree one by one, each counted at its row (the lossless state of its cards)."""
    _, log = leduc_log
    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    off = row_offsets(tree, model)
    full = 2 * g.num_hole_cards + g.total_board_cards()
    want = np.zeros((int(off[-1]), 3))
    lines = [x for x in log.read_text().splitlines() if x.startswith("STATE:")][:3_000]
    for line in lines:
        ll = parse_log_line(g, line)
        pos = ll.names.index("target")
        deal = [c for h in ll.hole for c in h] + [c for b in ll.board for c in b]
        deal += [c for c in deck(g.num_ranks, g.num_suits) if c not in deal][: full - len(deal)]
        states = model.deal_states_batch(np.asarray([deal]))[0]
        node = 0
        for r, acts in enumerate(ll.betting_string().split("/")):
            for ch in acts:
                while int(tree.kind[node]) == CHANCE:
                    node = int(tree.child[tree.first_child[node]])
                col = "fcr".index(ch)
                if int(tree.player[node]) == pos:
                    want[off[tree.decision[node]] + states[pos, r], col] += 1
                node = tree.child_by_action(node, col)
    got = build_model([log], "leduc", "target", max_hands=3_000)
    assert want.sum() > 3_000
    np.testing.assert_array_equal(got.counts, want)
