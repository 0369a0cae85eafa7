"""Depth-limited solving (cfrlab.subgame.depth): exact leaf values, the full re-solve when the
depth reaches past the end, the blueprint-locked game when k = 1, the search agent's safety."""

import json
from functools import lru_cache

import numpy as np
import pytest
from cli_run import run

import cfrlab
from cfrlab.engine import expected_value
from cfrlab.errors import CfrlabError
from cfrlab.spot.lock import LockedRows, LockedSolver
from cfrlab.strategy import Strategy
from cfrlab.subgame import resolve_strategy
from cfrlab.subgame.cut import blueprint_of
from cfrlab.subgame.depth import (
    BIASES,
    Leaves,
    biased,
    continuations,
    depth_limited_strategy,
    leaf_tables,
    root_family,
    root_ranges,
    truncate,
)
from cfrlab.subgame.local import family_sigma
from cfrlab.subgame.methods import family_values


@lru_cache(maxsize=4)
def leduc(iterations: int):
    return cfrlab.solve("leduc", "cfr", iterations=iterations).strategy


def later_rows(bp, player: int | None) -> np.ndarray:
    """The policy rows of decisions after the first round (of ``player`` only, if given)."""
    tree, off = bp.tree, bp.engine.row_offset
    rows = np.zeros(int(off[-1]), dtype=bool)
    for d, n in enumerate(tree.decision_node):
        if tree.round[n] >= 1 and (player is None or tree.player[n] == player):
            rows[off[d]:off[d + 1]] = True
    return rows


def test_biased_rows_are_distributions_that_favour_their_kind():
    bp = blueprint_of(leduc(30))
    legal = bp.engine.legal[bp.engine.decision_of_row]
    for kind, cols in (("fold", [0]), ("call", [1]), ("raise", [2])):
        pol = biased(bp.policy, legal, kind, 5.0)
        assert np.allclose(pol.sum(axis=1), 1.0) and np.all(pol[~legal] == 0)
        mixed = (bp.policy[:, cols[0]] > 0) & (bp.policy[:, cols[0]] < 1)
        assert np.all(pol[mixed, cols[0]] > bp.policy[mixed, cols[0]])
    assert biased(bp.policy, legal, "blueprint", 5.0) is bp.policy


@pytest.mark.parametrize("searcher", [0, 1])
def test_leaf_tables_are_exact(searcher):
    """With the opponent held to continuation j at every leaf, the truncated walk's value of
    the blueprint above the leaves is the engine's expected value of the full profile (the
    searcher's blueprint everywhere, the opponent's continuation j after the first round)."""
    bp = blueprint_of(leduc(30))
    fam = root_family(bp)
    short, leaves = truncate(fam, 1)
    assert len(leaves) == 5 and short.size < fam.size
    conts = continuations(bp, len(BIASES), 5.0)
    tabs = Leaves(short, leaves, leaf_tables(bp, fam, leaves, conts, searcher), searcher)
    sigma = family_sigma(short, bp.policy, bp.engine.row_offset)
    opp_later = later_rows(bp, 1 - searcher)
    for j, cont in enumerate(conts):
        tabs.fixed = j
        v0 = family_values(short, sigma, root_ranges(short).reach, 0, leaves=tabs).sum()
        pol = bp.policy.copy()
        pol[opp_later] = cont[opp_later]
        assert v0 == pytest.approx(expected_value(bp.tree, bp.model, pol, pol), abs=1e-12)


@pytest.mark.parametrize("method", ["resolve", "unsafe"])
def test_a_depth_past_the_end_is_the_full_resolve(method):
    s = leduc(30)
    full = resolve_strategy(s, method, round=1, iterations=40)
    for depth in (1, 3):
        r = depth_limited_strategy(s, round=1, depth=depth, method=method, iterations=40)
        assert r.leaves == 0
        assert np.array_equal(r.strategy.policy, full.strategy.policy)
    r = depth_limited_strategy(s, depth=2, iterations=300)  # the whole game from its root
    assert r.leaves == 0 and r.exploitability() < 0.01


def test_k1_solves_the_game_with_the_blueprint_below_the_depth():
    """k = 1: both players continue with the blueprint after the first round, so the
    depth-limited solve is the game whose later rows are locked to the blueprint. The engine's
    compiled CFR+ with those rows locked (an independent solver on the full tree, the same
    update rule) gives the same strategy at the same iteration, to rounding."""
    s = leduc(30)
    bp = blueprint_of(s)
    r = depth_limited_strategy(s, depth=1, k=1, iterations=300)
    assert r.leaves == 5
    rows = np.flatnonzero(later_rows(bp, None))
    assert np.array_equal(r.strategy.policy[rows], bp.policy[rows])
    locked = LockedSolver(bp.tree, bp.model, "cfr+", LockedRows(rows, bp.policy[rows]))
    locked.iterate(300)
    lp = locked.average_policy()
    assert np.allclose(r.strategy.policy, lp, rtol=0, atol=1e-12)
    assert expected_value(bp.tree, bp.model, lp, lp) != pytest.approx(
        expected_value(bp.tree, bp.model, bp.policy, bp.policy), abs=1e-3)  # the re-solve moved


def test_the_search_agent_plays_every_round_and_a_gadget_keeps_it_safer_than_unsafe():
    s = leduc(300)
    safe = depth_limited_strategy(s, depth=1, k=4, iterations=150, nested=True)
    unsafe = depth_limited_strategy(s, depth=1, k=4, iterations=150, nested=True, next_method="unsafe")
    bp = blueprint_of(s)
    rows = later_rows(bp, None)
    assert not np.array_equal(safe.strategy.policy[rows], bp.policy[rows])
    assert safe.strategy.header["params"]["nested"] is True
    assert safe.exploitability() < unsafe.exploitability()


@pytest.mark.parametrize("kwargs, words", [
    ({"depth": 0}, "depth must be"),
    ({"k": 0}, "k must be"),
    ({"k": 5}, "k is at most 4"),
    ({"factor": 1.0}, "above 1"),
    ({"factor": "x"}, "must be a number"),
    ({"round": 2}, "round must be 0 to 1"),
    ({"method": "resolve"}, "re-solved 'unsafe'"),
    ({"next_method": "best"}, "unknown subgame method"),
])
def test_bad_input_is_one_line(kwargs, words):
    with pytest.raises(CfrlabError, match=words) as e:
        depth_limited_strategy(leduc(30), **kwargs)
    assert "\n" not in str(e.value)


def test_cli_search_prints_both_exploitabilities_saves_and_refuses_in_one_line(tmp_path, capsys):
    bp = tmp_path / "bp.npz"
    leduc(30).save(bp)
    out = tmp_path / "search.npz"
    code, stdout, err = run(capsys, "search", str(bp), "-n", "20", "--k", "2", "-o", str(out), "--json")
    assert code == 0, err
    summary = json.loads(stdout.strip().splitlines()[-1])
    s = Strategy.load(str(out))
    assert summary["exploitability"] == pytest.approx(s.exploitability(), abs=1e-12)
    assert summary["blueprint_exploitability"] == pytest.approx(leduc(30).exploitability(), abs=1e-12)
    assert s.header["params"]["k"] == 2 and s.header["params"]["nested"] is True
    for args, words in ((["--depth", "0"], "depth must be"), (["--next-method", "x"], "unknown subgame method"),
                        (["--game", "kuhn"], "not for kuhn")):
        code, stdout, err = run(capsys, "search", str(bp), *args)
        assert code != 0 and stdout == "" and "Traceback" not in err
        assert words in err and len(err.strip().splitlines()) == 1, err
