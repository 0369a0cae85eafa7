"""Monte Carlo CFR for N players (cfrlab.solvers.nmccfr): chance sampling (cs) and external
sampling (es). Oracles: the full-width engine's counterfactual regrets and average-strategy
updates of the same profile (exactly, over every deal, for cs; within statistical tolerance for
es), the exact NashConv of uniform play, and the 2-player es solver (cfrlab.solvers.mccfr) on
2-player games."""

from __future__ import annotations

import itertools
import json

import nplayer
import numpy as np
import pytest

from cfrlab.engine import _nplayer_kernels as K
from cfrlab.engine import build_tree_for, model_for_game
from cfrlab.engine.nplayer import FIXED, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.solvers import _nmccfr_kernels as MK
from cfrlab.solvers.mccfr import MCCFRSolver
from cfrlab.solvers.nmccfr import NSampledSolver, from_regrets, make_nsolver
from cfrlab.solvers.nplayer import NSolver
from cfrlab.strategy import Strategy


def random_profile(e, seed):
    """Regrets whose regret matching is a random fully mixed profile (and that profile)."""
    legal = np.repeat(e.tree.legal, np.diff(e.row_offset), axis=0)
    regret = np.where(legal, np.random.default_rng(seed).random((e.rows, 3)) + 0.05, 0.0)
    sigma = np.empty_like(regret)
    from_regrets(e, regret, sigma)
    return regret, sigma


def full_width_update(e, sigma):
    """One full-width CFR walk (all players, simultaneous) from zero tables: the counterfactual
    regrets of ``sigma`` and the average strategy's increment (own reach * sigma), per row."""
    regret = np.zeros((e.rows, 3))
    avg = np.zeros((e.rows, 3))
    upd = np.ones(e.num_players, dtype=np.bool_)
    K.walk(e.T, e.D, sigma, upd, K.MODE_CFR, regret, avg, FIXED, 1, True, e.buf, np.zeros(1, np.int8))
    return regret, avg


def state_probability(e):
    """P(the row's player holds the row's private state), per row: the chance part of a sampled
    average update's expectation."""
    out = np.empty(e.rows)
    t = e.tree
    for d, n in enumerate(t.decision_node):
        r, p = int(t.round[n]), int(t.player[n])
        st = e.deals.state[r][p]
        counts = np.bincount(st, minlength=e.deals.num_states[r])
        out[e.row_offset[d]:e.row_offset[d + 1]] = counts / len(st)
    return out


def player_rows(e, p):
    return e.tree.player[e.tree.decision_node][e.dec_of_row] == p


# -- expectations of one iteration's sampled updates ---------------------------------------


@pytest.mark.parametrize("game", ["kuhn-3p", "leduc-3p"])
def test_chance_sampled_updates_average_to_full_width_over_every_deal(game):
    """cs: the mean over every deal of one walk's increments is the full-width walk's, exactly."""
    e = get_engine(game)
    s = NSampledSolver(game, "cs", seed=0)
    n_deals = e.deals.num_prefixes[-1]
    for regret_in, sigma in [(np.zeros((e.rows, 3)), e.uniform_policy()), random_profile(e, 1)]:
        reg, avg = np.zeros((e.rows, 3)), np.zeros((e.rows, 3))
        for x in range(n_deals):
            MK.cs_walk(e.T, e.D, s._skip, x, regret_in, reg, avg, s._buf)
        want_reg, want_avg = full_width_update(e, sigma)
        assert np.abs(want_reg).max() > 0.01
        np.testing.assert_allclose(reg / n_deals, want_reg, rtol=0, atol=1e-12)
        np.testing.assert_allclose(avg / n_deals, want_avg * state_probability(e)[:, None], rtol=0, atol=1e-12)


def test_uniform_full_width_oracle_is_the_cfr_solvers_first_iteration():
    e = get_engine("kuhn-3p")
    s = NSolver("kuhn-3p", "cfr")
    s.iterate(1)
    np.testing.assert_array_equal(full_width_update(e, e.uniform_policy())[0], s.regret)


@pytest.mark.parametrize("profile", ["uniform", "random"])
def test_external_sampled_updates_are_unbiased(profile):
    """es on kuhn-3p: for each traverser, the mean of many traversals' regret increments equals
    the full-width counterfactual regrets of the same profile, and the others' average-strategy
    increments (1 / reach of the third player) equal P(state) * own reach * sigma: within 6
    standard errors (from 40 batch means) per entry."""
    e = get_engine("kuhn-3p")
    s = NSampledSolver("kuhn-3p", "es", seed=11)
    if profile == "uniform":
        regret_in, sigma = np.zeros((e.rows, 3)), e.uniform_policy()
    else:
        regret_in, sigma = random_profile(e, 2)
    want_reg, want_avg = full_width_update(e, sigma)
    want_avg = want_avg * state_probability(e)[:, None]
    batches, per = 40, 2500
    for i in range(e.num_players):
        regs, avgs = [], []
        for _ in range(batches):
            reg, avg = np.zeros((e.rows, 3)), np.zeros((e.rows, 3))
            MK.es_fixed(e.T, e.D, s._skip, per, i, regret_in, reg, avg, s.rng, s._buf)
            regs.append(reg / per)
            avgs.append(avg / per)
        mine = player_rows(e, i)
        for got, want, rows in [(np.array(regs), want_reg, mine), (np.array(avgs), want_avg, ~mine)]:
            mean = got.mean(axis=0)[rows]
            se = got.std(axis=0, ddof=1)[rows] / np.sqrt(batches)
            z = np.abs(mean - want[rows]) / np.maximum(se, 1e-300)
            assert np.all((np.abs(mean - want[rows]) <= 1e-12) | (z <= 6.0)), (i, z.max())
        # the regrets of the others are untouched, the traverser's average is untouched
        assert not np.any(np.array(regs)[:, ~mine]) and not np.any(np.array(avgs)[:, mine])


# -- convergence ---------------------------------------------------------------------------


@pytest.mark.parametrize("alg", ["es", "cs"])
def test_kuhn_3p_nash_conv_decreases_and_reaches_a_hundredth_of_uniform(alg):
    """NashConv of uniform play in 3-player Kuhn is 2.0625 (OpenSpiel's nash_conv agrees,
    tests/test_multiplayer_openspiel.py). Sampled NashConv is noisy from one iteration to the
    next, so it is checked at 1,000, 10,000 and 100,000 iterations, each below the last, and the
    last (about a second of solving) below a hundredth of uniform play's (measured: about 0.01
    for both, against 0.02 allowed)."""
    e = get_engine("kuhn-3p")
    uniform = e.nash_conv(e.uniform_policy())
    r = nplayer.solve("kuhn-3p", alg, 100_000, seed=5)
    s = NSampledSolver("kuhn-3p", alg, seed=5)
    ncs = [uniform]
    for n in (1000, 10_000, 100_000):
        s.iterate(n - s.iterations)
        ncs.append(e.nash_conv(s.average_policy()))
    assert all(a > b for a, b in itertools.pairwise(ncs)), ncs
    assert ncs[-1] < uniform / 100
    assert r.nash_conv == ncs[-1]  # solve() is the same run
    assert r.strategy.header["algorithm"] == alg and r.strategy.header["seed"] == 5


def test_leduc_3p_es_nash_conv_decreases():
    e = get_engine("leduc-3p")
    uniform = e.nash_conv(e.uniform_policy())  # 12.611221340388 (OpenSpiel's)
    r = nplayer.solve("leduc-3p", "es", 3000, checkpoints=3, seed=1)  # at 1,000, 2,000, 3,000
    ncs = [uniform, *(nc for _, _, nc in r.curve)]
    assert all(a > b for a, b in itertools.pairwise(ncs)), ncs
    assert r.nash_conv < uniform / 2


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_two_player_es_equals_the_two_player_solver(game):
    """With two players the N-player es is the 2-player es (same deal order, same random stream,
    the same 1 weights): the same seed gives the same exploitability."""
    g = load_game(game)
    n = 20_000 if game == "kuhn" else 2000
    two = MCCFRSolver(build_tree_for(g), model_for_game(g), "es", seed=7)
    two.iterate(n)
    mine = NSampledSolver(game, "es", seed=7)
    mine.iterate(n)
    expl = get_engine(game).nash_conv(mine.average_policy()) / 2
    assert expl == pytest.approx(two.exploitability(), abs=1e-12)
    if game == "kuhn":  # same row layout: the same average strategy
        np.testing.assert_allclose(mine.average_policy(), two.average_policy(), atol=1e-12)
        assert expl < (11 / 24) / 50  # uniform play's 11/24 (DESIGN.md), divided by 50


# -- reproducibility and checkpoints -------------------------------------------------------


@pytest.mark.parametrize("alg", ["es", "cs"])
def test_same_seed_same_bits_other_seed_differs(alg):
    a, b, c = (NSampledSolver("kuhn-3p", alg, seed=s) for s in (3, 3, 4))
    a.iterate(5000)
    b.iterate(2000)
    state = b.state_dict()
    b.iterate(3000)
    c.iterate(5000)
    assert np.array_equal(a.avg, b.avg) and np.array_equal(a.regret, b.regret)
    assert not np.array_equal(a.avg, c.avg)
    d = NSampledSolver("kuhn-3p", alg, seed=99)
    d.load_state_dict(state)
    d.iterate(3000)
    assert np.array_equal(d.avg, a.avg) and d.iterations == 5000 and d.seed == 3
    s1 = nplayer.solve("kuhn-3p", alg, 3000, seed=8).strategy.policy
    s2 = nplayer.solve("kuhn-3p", alg, 3000, seed=8).strategy.policy
    assert np.array_equal(s1, s2)


def test_bad_input():
    with pytest.raises(CfrlabError, match="takes no parameters"):
        make_nsolver("kuhn-3p", "es", alpha=1.5)
    with pytest.raises(CfrlabError, match="seed"):
        NSampledSolver("kuhn-3p", "es", seed=-1)
    with pytest.raises(CfrlabError, match="2-player"):
        make_nsolver("kuhn-3p", "os")
    s = NSampledSolver("kuhn-3p", "es", seed=1)
    with pytest.raises(CfrlabError, match="checkpoint is for"):
        s.load_state_dict(NSampledSolver("kuhn-3p", "cs", seed=1).state_dict())


# -- CLI -----------------------------------------------------------------------------------


def test_cli_solve_es_kuhn_3p(capsys, tmp_path):
    from cli_run import run

    f = tmp_path / "k3es.npz"
    code, out, _ = run(capsys, "solve", "kuhn-3p", "-a", "es", "-n", "20000", "--out", str(f), "--json")
    assert code == 0 and "seed " in out
    d = json.loads(out.strip().splitlines()[-1])
    assert d["algorithm"] == "es" and d["iterations"] == 20_000 and isinstance(d["seed"], int)
    assert d["nash_conv"] < get_engine("kuhn-3p").nash_conv(get_engine("kuhn-3p").uniform_policy()) / 10
    s = Strategy.load(f)
    assert s.algorithm == "es" and s.header["seed"] == d["seed"]
    assert s.evaluate().nash_conv == pytest.approx(d["nash_conv"], abs=1e-15)
    code, _, err = run(capsys, "solve", "kuhn-3p", "-a", "cs", "-n", "10", "-p", "alpha=1")
    assert code != 0 and "takes no parameters" in err and len(err.strip().splitlines()) == 1
