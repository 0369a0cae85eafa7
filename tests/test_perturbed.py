"""Perturbed equilibria (the winner's bonus): zero bonus is plain CFR bit for bit; the
perturbed utilities equal a dict-walking oracle's; a 7% bonus gives a strategy a little off
the real game's equilibrium."""

import naive
import numpy as np
import pytest

from cfrlab.counter.perturbed import PerturbedSolver
from cfrlab.engine import build_tree_for, exploitability, model_for_game, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game, parse_game
from cfrlab.solvers import make_solver

GAMES = {"kuhn": lambda: load_game("kuhn"), "leduc": lambda: load_game("leduc"),
         "holdem-like": lambda: parse_game(naive.HOLDEM_LIKE, name="holdem-like")}


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_zero_bonus_is_plain_cfr_bit_for_bit(name, algorithm):
    g = load_game(name)
    tree, model = build_tree_for(g), model_for_game(g)
    plain = make_solver(tree, model, algorithm)
    plain.iterate(40)
    zero = PerturbedSolver(tree, model, bonus=0.0, algorithm=algorithm)
    zero.iterate(25)
    zero.iterate(15)
    assert np.array_equal(plain.regret, zero.solver.regret)
    assert np.array_equal(plain.average_policy(), zero.average_policy())


def _naive_perturbed(game, policy, bonus, player):
    def walk(node, deal):
        if node.terminal:
            u = naive.payoff0(game, node, deal) * (1 if player == 0 else -1)
            return u * (1 + bonus) if u > 0 else u
        probs = policy[naive.infoset_key(game, node, deal)]
        return sum(probs[a] * walk(naive.apply(game, node, a), deal) for a in naive.legal_actions(game, node))

    ds = naive.deals(game)
    return sum(walk(naive.root(game), d) for d in ds) / len(ds)


@pytest.mark.parametrize("name", list(GAMES))
def test_perturbed_utilities_match_the_oracle(name):
    g = GAMES[name]()
    tree, model = build_tree_for(g), model_for_game(g)
    off = row_offsets(tree, model)
    solver = PerturbedSolver(tree, model, bonus=0.3)
    pol = naive.random_policy(g, np.random.default_rng(3))
    engine_pol = naive.to_engine_policy(g, tree, model, pol, off)
    for player in (0, 1):
        want = _naive_perturbed(g, pol, 0.3, player)
        assert solver.perturbed_value(engine_pol, player) == pytest.approx(want, abs=1e-10)


def test_a_bonus_gives_a_near_equilibrium_of_its_own():
    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    plain = make_solver(tree, model, "cfr+")
    plain.iterate(1000)
    bold = PerturbedSolver(tree, model, bonus=0.07)
    bold.iterate(1000)
    p, b = plain.average_policy(), bold.average_policy()
    assert exploitability(tree, model, p) < 5e-4 < exploitability(tree, model, b) < 0.05
    assert np.abs(b - p).max() > 0.05  # a different strategy, not a rounding of the same one


def test_bad_bonus_is_one_line():
    g = load_game("kuhn")
    tree, model = build_tree_for(g), model_for_game(g)
    for kw in ({"bonus": -0.1}, {"bonus": "0.07"}, {"bonus": 0.07, "algorithm": "os"}):
        with pytest.raises(CfrlabError):
            PerturbedSolver(tree, model, **kw)
