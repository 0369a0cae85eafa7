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


def _naive_perturbed(game, policy, bonus, player, penalty=0.0):
    def walk(node, deal):
        if node.terminal:
            u = naive.payoff0(game, node, deal) * (1 if player == 0 else -1)
            return u * (1 + bonus) if u > 0 else u * (1 + penalty)
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
    both = PerturbedSolver(tree, model, bonus=0.3, penalty=0.2)
    for player in (0, 1):
        want = _naive_perturbed(g, pol, 0.3, player)
        assert solver.perturbed_value(engine_pol, player) == pytest.approx(want, abs=1e-10)
        want = _naive_perturbed(g, pol, 0.3, player, penalty=0.2)
        assert both.perturbed_value(engine_pol, player) == pytest.approx(want, abs=1e-10)


def test_a_penalty_is_the_bonus_walk_rescaled():
    """A loser's penalty p alone is the game u + p * min(u, 0) = (1 + p) * (u - p / (1 + p) * max(u, 0)):
    the solver walks the bonus game with -p / (1 + p) and rescales; its values of a random
    profile equal the oracle's (a wrong sign or scale would move them), and its strategy
    differs from the plain equilibrium's."""
    g = load_game("kuhn")
    tree, model = build_tree_for(g), model_for_game(g)
    off = row_offsets(tree, model)
    tight = PerturbedSolver(tree, model, penalty=0.25)
    tight.iterate(300)
    avg = tight.average_policy()
    pol = naive.random_policy(g, np.random.default_rng(5))
    engine_pol = naive.to_engine_policy(g, tree, model, pol, off)
    for player in (0, 1):
        assert tight.perturbed_value(engine_pol, player) == pytest.approx(
            _naive_perturbed(g, pol, 0.0, player, penalty=0.25), abs=1e-12)
    plain = make_solver(tree, model, "cfr+")
    plain.iterate(300)
    assert np.abs(avg - plain.average_policy()).max() > 0.02


def test_a_penalty_plays_tighter_than_the_equilibrium():
    """Leduc: with losses costing 30% more, the strategy folds more often to a bet and raises
    less than the plain CFR+ strategy (probabilities weighted by how often each row is reached)."""
    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    plain = make_solver(tree, model, "cfr+")
    plain.iterate(500)
    tight = PerturbedSolver(tree, model, penalty=0.3)
    tight.iterate(500)
    legal = np.repeat(tree.legal, np.diff(row_offsets(tree, model)), axis=0)
    facing = legal[:, 0]  # rows where folding is legal: facing a bet
    p, t = plain.average_policy(), tight.average_policy()
    assert t[facing, 0].mean() > p[facing, 0].mean() + 0.01
    assert t[:, 2].mean() < p[:, 2].mean() - 0.01
    assert exploitability(tree, model, t) > 10 * exploitability(tree, model, p)


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
    for kw in ({"bonus": -0.1}, {"bonus": "0.07"}, {"bonus": 0.07, "algorithm": "os"}, {"penalty": -1.0},
               {"penalty": 11.0}):
        with pytest.raises(CfrlabError):
            PerturbedSolver(tree, model, **kw)
