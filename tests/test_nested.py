"""Nested re-solving of off-tree bets (cfrlab.subgame.nested) on no-limit Leduc, exactly."""

import numpy as np
import pytest

import cfrlab
from cfrlab.agents import make_agent
from cfrlab.agents.translation import TranslatedStrategy
from cfrlab.engine import exploitability
from cfrlab.errors import CfrlabError
from cfrlab.subgame.local import backward, forward
from cfrlab.subgame.nested import (
    NestedSolver,
    pot_fraction_children,
    restricted_best_response,
    restricted_exploitability,
    root_reach,
    sigma_of,
)


@pytest.fixture(scope="module")
def blueprint():
    return cfrlab.solve("leduc-nolimit", "cfr+", bets="fcpa", iterations=200).strategy


def _child(solver, n, raise_to):
    (c,) = [int(c) for c in solver.tree.children(n) if int(solver.tree.raise_to[c]) == raise_to]
    return c


def _opp_values(solver, node, opp):
    """The opponent's best-response counterfactual values at ``node`` in the current tree."""
    fam = solver.family(solver.keep, 0)
    sigma = sigma_of(fam, solver.policy, solver.offsets)
    reach = forward(fam, sigma, root_reach(fam))
    return backward(fam, sigma, reach, opp, "br")[int(np.searchsorted(fam.nodes, node))]


def test_on_tree_is_the_blueprint(blueprint):
    s = NestedSolver(blueprint, "resolve", 50)
    # the blueprint embedded in the full tree: its exploitability there, the opponent kept to
    # the abstraction, is the abstract game's own
    abstract = restricted_exploitability(s, s.policy, pot_fraction_children(s, None))
    assert abstract == pytest.approx(exploitability(blueprint.tree, blueprint.model, blueprint.policy), abs=1e-12)
    A = blueprint.tree
    for n in A.decision_node[:12]:
        f = s.catch_up(A.betting[n], 1 - int(A.player[n]))  # every action on the way is on the tree
        row = s.policy[s.offsets[s.tree.decision[f]]]
        for c in A.children(n):
            fc = s.tree.node_of_betting[A.betting[c]]
            assert row[s.tree.action[fc]] == blueprint.policy[blueprint.row_offset[A.decision[n]], A.action[c]]
    assert s.resolves == 0


def test_abstract_amount_is_not_off_tree(blueprint):
    s = NestedSolver(blueprint, "resolve", 50)
    before = s.policy.copy()
    pot = _child(s, 0, 3)  # the pot-size raise at the first decision is an abstract size
    s.resolve(0, pot)
    s.catch_up(s.tree.betting[pot], 1)
    assert s.resolves == 0 and np.array_equal(s.policy, before)


def test_resolve_gadget_bounds_the_off_tree_bet(blueprint):
    """The exact property: after the CFR-D gadget's re-solve at the opponent's decision, its
    best-response value there (the off-tree bet now included) is within the re-solve's
    tolerance of its blueprint value; translation's is well above it."""
    s = NestedSolver(blueprint, "resolve", 300)
    half = _child(s, 0, 2)  # a half-pot raise, off the fcpa tree
    alt = _opp_values(s, 0, 0).sum()
    s.resolve(0, half)
    nested = _opp_values(s, 0, 0).sum()
    tr = TranslatedStrategy(blueprint, "pseudo-harmonic").full_game_strategy()
    only_half = lambda n: s.abstract_children(n, (lambda st: [2]) if n == 0 else None)
    assert nested <= alt + 5e-3
    # the same comparison for the translated agent, seat 0 restricted to the half-pot raise
    assert restricted_best_response(s, tr.policy, 0, only_half) > restricted_best_response(s, s.policy, 0, only_half) + 0.01
    assert s.resolves == 1 and s.keep[half]


def test_agent_plays_and_resolves(blueprint, tmp_path):
    path = tmp_path / "bp.npz"
    blueprint.save(path)
    a = make_agent(f"nested:{path}:maxmargin:30", "leduc-nolimit", seed=1)
    r = cfrlab.play_match("leduc-nolimit", a, "random", 40, seed=2, duplicate=True)
    assert np.isfinite(r.overall("chips/g").mean) and a.solver.resolves > 0


def test_bad_input(blueprint, tmp_path):
    limit = cfrlab.solve("leduc", "cfr", iterations=2).strategy
    with pytest.raises(CfrlabError, match="limit game"):
        NestedSolver(limit)
    with pytest.raises(CfrlabError, match="unknown nested subgame method 'reach'"):
        NestedSolver(blueprint, "reach")
    path = tmp_path / "bp.npz"
    blueprint.save(path)
    with pytest.raises(CfrlabError, match="unknown nested subgame method"):
        make_agent(f"nested:{path}:foo", "leduc-nolimit")
    with pytest.raises(CfrlabError, match="no such strategy file"):
        make_agent("nested:missing.npz", "leduc-nolimit")
