"""Sequence-form LP: exact game values and equilibria, checked against the naive oracle."""

import naive
import numpy as np
import pytest
from game_texts import TINY_HOLDEM

from cfrlab.abstraction import LosslessModel
from cfrlab.cards import parse_card
from cfrlab.engine import row_offsets
from cfrlab.games.builtins import load_game
from cfrlab.games.gamedef import parse_game
from cfrlab.known_values import KUHN_GAME_VALUE, LEDUC_GAME_VALUE
from cfrlab.solvers.lp import build_sequence_form, solve_lp, solve_realization_plans
from cfrlab.tree import build_tree


def engine(game):
    tree = build_tree(game)
    model = LosslessModel(game)
    return tree, model, row_offsets(tree, model)


@pytest.fixture(scope="module")
def kuhn():
    game = load_game("kuhn")
    tree, model, off = engine(game)
    policy, value = solve_lp(tree, model)
    return game, tree, model, off, policy, value


@pytest.fixture(scope="module")
def leduc():
    game = load_game("leduc")
    tree, model, off = engine(game)
    policy, value = solve_lp(tree, model)
    return game, tree, model, off, policy, value


def test_kuhn_value(kuhn):
    assert kuhn[5] == pytest.approx(KUHN_GAME_VALUE, abs=1e-9)


def test_leduc_value(leduc):
    assert leduc[5] == pytest.approx(LEDUC_GAME_VALUE, abs=1e-9)


@pytest.mark.parametrize("which", ["kuhn", "leduc"])
def test_lp_policy_is_an_equilibrium(which, request):
    game, tree, model, off, policy, value = request.getfixturevalue(which)
    pol = naive.from_engine_policy(game, tree, model, policy, off)
    assert naive.exploitability(game, pol) < 1e-8
    assert naive.expected_value(game, pol, pol) == pytest.approx(value, abs=1e-9)
    legal = np.repeat(tree.legal, np.diff(off), axis=0)
    assert np.all(policy[~legal] == 0)
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=1e-12)


def test_kuhn_sequence_form_matches_the_tutorial(kuhn):
    # the tutorial's E for Kuhn's first player: 7 x 13 (empty sequence + 2 infosets per card)
    _, tree, model, _, _, _ = kuhn
    form = build_sequence_form(tree, model)
    assert form.E[0].shape == (7, 13) and form.E[1].shape == (7, 13)
    x, y, v0, v1 = solve_realization_plans(form)
    e = np.zeros(7)
    e[0] = 1
    np.testing.assert_allclose(form.E[0] @ x, e, atol=1e-9)
    np.testing.assert_allclose(form.E[1] @ y, e, atol=1e-9)
    assert x @ (form.A @ y) == pytest.approx(v0, abs=1e-9)
    assert v0 == pytest.approx(v1, abs=1e-9)


def test_kuhn_first_player_in_known_equilibrium_family(kuhn):
    # Kuhn's family: bet the lowest card with alpha in [0, 1/3], the highest with 3 alpha,
    # never open the middle card (our deck Qs < Ks < As)
    _, tree, model, off, policy, _ = kuhn
    d = int(tree.decision[tree.node_of_betting[""]])
    bet = {
        c: policy[off[d] + model.state_of(0, [parse_card(c)], [], 0), 2] for c in ("Qs", "Ks", "As")
    }
    alpha = bet["Qs"]
    assert -1e-9 <= alpha <= 1 / 3 + 1e-9
    assert bet["As"] == pytest.approx(3 * alpha, abs=1e-9)
    assert bet["Ks"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("text", [TINY_HOLDEM, "kuhn-5"])
def test_other_games_lp_equilibrium(text):
    # blinds, reverse first player, two board cards, ties; and a 5-card Kuhn
    game = parse_game(text) if text.startswith("GAMEDEF") else load_game(text)
    tree, model, off = engine(game)
    policy, value = solve_lp(tree, model)
    pol = naive.from_engine_policy(game, tree, model, policy, off)
    assert naive.exploitability(game, pol) < 1e-8
    assert naive.expected_value(game, pol, pol) == pytest.approx(value, abs=1e-9)
