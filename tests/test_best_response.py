"""Exact best response, exploitability and expected value against independent computations."""

import itertools

import naive
import numpy as np
import pytest

from cfrlab import known_values
from cfrlab.abstraction import LosslessModel
from cfrlab.engine import tree_layout
from cfrlab.errors import CfrlabError
from cfrlab.evaluate import (
    best_response,
    best_response_values,
    expected_value,
    exploitability,
    game_value,
    uniform_policy,
)
from cfrlab.games.builtins import load_game
from cfrlab.games.gamedef import parse_game
from cfrlab.tree import build_tree


def setup(name_or_text):
    game = parse_game(name_or_text) if "GAMEDEF" in name_or_text else load_game(name_or_text)
    return game, build_tree(game), LosslessModel(game)


def to_naive(game, tree, model, policy):
    """The array policy as naive's dict {(player, hole, board, betting): probs}."""
    off = tree_layout(tree, model)
    out = {}
    for key in naive.infosets(game):
        p, hole, board, betting = key
        n = tree.node_of_betting[betting]
        r = int(tree.round[n])
        out[key] = policy[off[tree.decision[n]] + model.state_of(p, list(hole), list(board), r)]
    return out


def random_policy(tree, model, seed, sharp=False):
    rng = np.random.default_rng(seed)
    pol = uniform_policy(tree, model)
    x = rng.random(pol.shape) ** (8 if sharp else 1) + 1e-3
    x = np.where(pol > 0, x, 0.0)
    return x / x.sum(axis=1, keepdims=True)


def test_uniform_exploitability_exact():
    for name, known in (("kuhn", known_values.KUHN_UNIFORM_EXPLOITABILITY),
                        ("leduc", known_values.LEDUC_UNIFORM_EXPLOITABILITY)):
        _, tree, model = setup(name)
        assert exploitability(tree, model, uniform_policy(tree, model)) == pytest.approx(known, abs=1e-12)


def pure_strategies(tree, model, policy, player):
    """Every pure strategy of `player` (other rows from `policy`), Kuhn-sized games only."""
    off = tree_layout(tree, model)
    rows = []
    for d, node in enumerate(tree.decision_node):
        if tree.player[node] == player:
            for s in range(model.num_states[tree.round[node]]):
                rows.append((off[d] + s, np.flatnonzero(tree.legal[d])))
    for choice in itertools.product(*[acts for _, acts in rows]):
        pol = policy.copy()
        for (row, _), a in zip(rows, choice):
            pol[row] = 0.0
            pol[row, a] = 1.0
        yield pol


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kuhn_best_response_is_best_pure_strategy(seed):
    """The BR value equals the best of all 64 pure strategies, each valued by naive's tree walk."""
    game, tree, model = setup("kuhn")
    pol = random_policy(tree, model, seed)
    for responder in (0, 1):
        value, br = best_response(tree, model, pol, responder)
        brute = max(
            (1 if responder == 0 else -1) * naive.expected_value(
                game, *((to_naive(game, tree, model, p), to_naive(game, tree, model, pol))[:: 1 if responder == 0 else -1]))
            for p in pure_strategies(tree, model, pol, responder))
        assert value == pytest.approx(brute, abs=1e-12)
        ev = expected_value(tree, model, br, pol) if responder == 0 else -expected_value(tree, model, pol, br)
        assert ev == pytest.approx(value, abs=1e-12)


BOARD_FIRST = """GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 2
raiseSize = 2 3
firstPlayer = 2 1
maxRaises = 2 1
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 1 1
END GAMEDEF
"""


@pytest.mark.parametrize("name", ["kuhn", "leduc", "kuhn-5", "kuhn-60", BOARD_FIRST])
def test_best_response_matches_naive_walk(name):
    game, tree, model = setup(name)
    for seed in (3, 4):
        pol = random_policy(tree, model, seed, sharp=True)
        npol = to_naive(game, tree, model, pol)
        for responder in (0, 1):
            value, _ = best_response(tree, model, pol, responder)
            assert value == pytest.approx(naive.best_response(game, npol, responder)[0], abs=1e-12)


@pytest.mark.slow
def test_best_response_matches_naive_on_reduced_holdem():
    game, tree, model = setup(naive.HOLDEM_LIKE)
    pol = random_policy(tree, model, 5, sharp=True)
    npol = to_naive(game, tree, model, pol)
    b0, b1 = best_response_values(tree, model, pol)
    assert b0 == pytest.approx(naive.best_response(game, npol, 0)[0], abs=1e-12)
    assert b1 == pytest.approx(naive.best_response(game, npol, 1)[0], abs=1e-12)
    assert game_value(tree, model, pol) == pytest.approx(naive.expected_value(game, npol, npol), abs=1e-12)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_expected_value_matches_naive(name):
    game, tree, model = setup(name)
    a = random_policy(tree, model, 7)
    b = random_policy(tree, model, 8)
    want = naive.expected_value(game, to_naive(game, tree, model, a), to_naive(game, tree, model, b))
    assert expected_value(tree, model, a, b) == pytest.approx(want, abs=1e-12)
    # only player 0's rows of a and player 1's rows of b matter
    assert expected_value(tree, model, np.where(a > 0, a, 0), b) == pytest.approx(want, abs=1e-12)


def test_best_response_properties():
    _, tree, model = setup("leduc")
    pol = random_policy(tree, model, 9)
    v = game_value(tree, model, pol)
    b0, b1 = best_response_values(tree, model, pol)
    assert b0 >= v - 1e-12 and b1 >= -v - 1e-12
    _, br0 = best_response(tree, model, pol, 0)
    off = tree_layout(tree, model)
    for d, node in enumerate(tree.decision_node):
        rows = slice(off[d], off[d + 1])
        if tree.player[node] == 0:  # pure, legal
            assert np.all(br0[rows].max(axis=1) == 1.0) and np.all(br0[rows].sum(axis=1) == 1.0)
            assert np.all(br0[rows][:, ~tree.legal[d]] == 0.0)
        else:
            assert np.array_equal(br0[rows], pol[rows])
    assert exploitability(tree, model, pol) == pytest.approx((b0 + b1) / 2)
    with pytest.raises(CfrlabError):
        exploitability(tree, model, pol[:-1])
    with pytest.raises(CfrlabError):
        best_response(tree, model, pol, 2)
