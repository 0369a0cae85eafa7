"""Matrix games: regret matching, regret matching+, the minimax LP, the tutorial's examples."""

import itertools
from fractions import Fraction

import naive
import numpy as np
import pytest

from cfrlab.games.builtins import load_game
from cfrlab.known_values import KUHN_GAME_VALUE
from cfrlab.solvers import matrix as M

BIASED = np.array([0.4, 0.3, 0.3])  # the tutorial's opponent: rock 40%, paper 30%, scissors 30%


def test_regret_matching_rule():
    # the tutorial's example: regrets R 5, P 10, S 5 -> play 1/4, 1/2, 1/4
    np.testing.assert_allclose(M.regret_matching(np.array([5.0, 10.0, 5.0])), [0.25, 0.5, 0.25])
    np.testing.assert_allclose(M.regret_matching(np.array([-1.0, -2.0, 0.0])), [1 / 3] * 3)
    np.testing.assert_allclose(M.regret_matching(np.array([-1.0, 2.0, 0.0])), [0, 1, 0])


@pytest.mark.parametrize("plus", [False, True])
def test_rps_self_play_average_converges_to_uniform(plus):
    # start away from the uniform fixed point (zero regrets would stay uniform forever)
    res = M.self_play(M.RPS, 20_000, plus=plus, initial_regrets=([3.0, 0.0, 0.0], [0.0, 0.0, 2.0]))
    for avg in (res.average_row, res.average_column):
        np.testing.assert_allclose(avg, [1 / 3] * 3, atol=0.01)
    # regret matching's average regret bound is O(1/sqrt(T)); RM+ does much better in practice
    bound = 0.01 if not plus else 1e-3
    assert M.exploitability(M.RPS, res.average_row, res.average_column) < bound


def test_rps_current_strategy_of_regret_matching_cycles():
    # the average converges but the current strategy does not (why CFR reports averages)
    res = M.self_play(M.RPS, 20_000, initial_regrets=([3.0, 0.0, 0.0], [0.0, 0.0, 2.0]))
    assert np.max(np.abs(res.current_row - 1 / 3)) > 0.05


@pytest.mark.parametrize("plus", [False, True])
def test_biased_opponent_is_exploited_expected_updates(plus):
    # paper earns 0.4 - 0.3 = 0.1 per game against rock 40%; it is the unique best reply
    best, value = M.best_response(M.RPS, BIASED)
    assert M.RPS_ACTIONS[best] == "paper" and value == pytest.approx(0.1)
    res = M.learn_against(M.RPS, BIASED, 5_000, plus=plus)
    assert res.current_strategy[1] == 1.0
    assert res.average_strategy[1] > 0.99
    assert res.average_payoff == pytest.approx(0.1, abs=2e-3)


def test_biased_opponent_is_exploited_sampled_like_the_tutorial():
    # the tutorial's sampled regrets (realised outcomes); seeds fixed. Over 20k hands the
    # learner's mean gain is within a few standard errors (~0.006) of 0.1.
    for seed in (1, 2, 3):
        res = M.learn_against(M.RPS, BIASED, 20_000, seed=seed)
        assert res.average_strategy[1] > 0.9
        assert res.average_payoff == pytest.approx(0.1, abs=0.03)


def test_sampled_regret_update_matches_the_tutorials_table():
    # "We play rock and opponent plays paper": regrets (rock 0, paper +1, scissors +2)
    i, j = 0, 1
    np.testing.assert_allclose(M.RPS[:, j] - M.RPS[i, j], [0, 1, 2])
    # "We play scissors and opponent plays paper": (rock -2, paper -1, scissors 0)
    np.testing.assert_allclose(M.RPS[:, 1] - M.RPS[2, 1], [-2, -1, 0])


def test_lp_rps_value_zero_uniform():
    x, y, v = M.solve_zero_sum(M.RPS)
    assert abs(v) < 1e-12
    np.testing.assert_allclose(x, [1 / 3] * 3, atol=1e-9)
    np.testing.assert_allclose(y, [1 / 3] * 3, atol=1e-9)
    assert M.exploitability(M.RPS, x, y) < 1e-9


def test_lp_random_games_match_equilibrium_conditions():
    rng = np.random.default_rng(7)
    for _ in range(20):
        A = rng.normal(size=(rng.integers(2, 7), rng.integers(2, 7)))
        x, y, v = M.solve_zero_sum(A)
        assert float(np.min(x @ A)) == pytest.approx(v, abs=1e-9)
        assert float(np.max(A @ y)) == pytest.approx(v, abs=1e-9)
        assert M.exploitability(A, x, y) < 1e-9


def test_tutorial_dominance_game():
    rows, cols = M.eliminate_dominated(M.DOMINANCE_A, M.DOMINANCE_B)
    assert (rows, cols) == ([0], [0])
    eqs = M.support_enumeration(M.DOMINANCE_A, M.DOMINANCE_B)
    assert len(eqs) == 1
    x, y = eqs[0]
    np.testing.assert_array_equal(x, [1, 0, 0])
    np.testing.assert_array_equal(y, [1, 0, 0])
    assert (x @ M.DOMINANCE_A @ y, x @ M.DOMINANCE_B @ y) == (10.0, 2.0)


def test_tutorial_tennis_or_power_rangers():
    eqs = M.support_enumeration(M.BATTLE_A, M.BATTLE_B)
    assert len(eqs) == 3  # two pure, one mixed
    mixed = [e for e in eqs if np.count_nonzero(e[0]) == 2]
    x, y = mixed[0]
    np.testing.assert_allclose(x, [3 / 5, 2 / 5])
    np.testing.assert_allclose(y, [2 / 5, 3 / 5])
    # each earns 6/5; 13/25 of the time they watch nothing
    assert x @ M.BATTLE_A @ y == pytest.approx(6 / 5)
    assert x @ M.BATTLE_B @ y == pytest.approx(6 / 5)
    assert x[0] * y[1] + x[1] * y[0] == pytest.approx(13 / 25)


def test_tutorial_tree_normal_form_equals_backward_induction():
    backward = max(min(leaves) for leaves in M.TREE_LEAVES)
    _, _, v = M.solve_zero_sum(M.TREE_NORMAL_FORM)
    assert v == pytest.approx(backward) and backward == 3.0


def test_kuhn_64x64_normal_form_lp_value():
    # the tutorial's "64 x 64 matrix": every pure plan of each player (2 actions at each of 6
    # information sets), payoffs from the independent oracle; the minimax value is -1/18.
    game = load_game("kuhn")
    masks = naive.infosets(game)
    keys = [sorted(k for k in masks if k[0] == p) for p in (0, 1)]

    def plans(p):
        for bits in itertools.product((0, 1), repeat=len(keys[p])):
            pol = {}
            for k, b in zip(keys[p], bits):
                legal = np.flatnonzero(masks[k])  # two legal actions: "pass" then "bet"
                pol[k] = np.zeros(3)
                pol[k][legal[b]] = 1.0
            yield pol

    rows, cols = list(plans(0)), list(plans(1))
    A = np.array([[naive.expected_value(game, r, c) for c in cols] for r in rows])
    assert A.shape == (64, 64)
    _, _, v = M.solve_zero_sum(A)
    assert v == pytest.approx(KUHN_GAME_VALUE, abs=1e-9)
    assert Fraction(v).limit_denominator(1000) == Fraction(-1, 18)
