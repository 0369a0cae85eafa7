"""Subgame solving of a blueprint (cfrlab.subgame): oracles from game theory.

- The restriction of an equilibrium to a subgame reached with positive probability is an
  equilibrium of that subgame, so ``unsafe`` re-solving of a near-equilibrium blueprint gives
  every subgame (root x board) the blueprint's value (Leduc and a reduced-deck hold'em).
- The gadget methods (resolve, maxmargin, reach) never end above the blueprint's exact
  exploitability plus the re-solve's tolerance; ``unsafe`` can (the classic demonstration:
  re-solved against an equilibrium's ranges, the opponent deviates before the subgame).
- Bad input: one readable line from the API and the CLI.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from cli_run import run
from game_texts import holdem_text

import cfrlab
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.errors import CfrlabError
from cfrlab.games import parse_game
from cfrlab.subgame import (
    blueprint_of,
    cut,
    resolve_root,
    resolve_strategy,
    subgame_round,
    subgame_values,
)


@lru_cache(maxsize=8)
def leduc(algorithm: str, iterations: int):
    return cfrlab.solve("leduc", algorithm, iterations=iterations).strategy


@lru_cache(maxsize=1)
def holdem():
    return parse_game(holdem_text(4, 2, "0 2 1", "2 2 2"), name="holdem-4x2")


def test_cut_values_add_up_to_the_blueprint():
    """The cut's ranges and values are the engine's: the subgames' values under the blueprint
    are the sums of reach x counterfactual value, and each player's best-response value at a
    root is at least its value there."""
    bp = blueprint_of(leduc("cfr", 30))
    c = cut(bp, 1)
    K = len(c.roots)
    v = subgame_values(c, bp.policy)
    assert np.allclose((c.reach[:, 0] * c.ev[:, 0]).reshape(K, 6, 5).sum(-1), v, atol=1e-12)
    assert np.all(c.cbv >= c.ev - 1e-12)
    assert np.all(c.gift >= 0) and c.gift.max() > 0


@pytest.mark.parametrize("case", ["leduc", "holdem"])
def test_unsafe_on_an_equilibrium_keeps_every_subgame_value(case):
    if case == "leduc":
        s, rnd, tol = leduc("cfr+", 3000), 1, 2e-5
    else:
        s, rnd, tol = cfrlab.solve(holdem(), "cfr+", iterations=300).strategy, 2, 5e-5
    bp = blueprint_of(s)
    c = cut(bp, rnd)
    before = subgame_values(c, bp.policy)
    r = resolve_strategy(s, "unsafe", round="last", iterations=300 if case == "leduc" else 200)
    after = subgame_values(c, r.strategy.policy)
    assert np.abs(before).max() > 1e-3  # the subgames are not trivial
    assert np.abs(after - before).max() < tol
    # and the re-solved strategy differs from the blueprint (it is a re-solve, not a copy)
    assert np.abs(r.strategy.policy - bp.policy).max() > 1e-3


def test_unsafe_can_raise_exploitability():
    """Ganzfried and Sandholm's endgame solving assumes the opponent's blueprint range: against
    an equilibrium the re-solved river is an equilibrium of the subgame, yet the opponent gains
    by reaching it with hands the blueprint never brings there."""
    r = resolve_strategy(leduc("cfr+", 3000), "unsafe", iterations=300)
    assert r.blueprint_exploitability() < 1e-4
    assert r.exploitability() > r.blueprint_exploitability() + 0.05


@pytest.mark.parametrize("method", ["resolve", "maxmargin", "reach"])
@pytest.mark.parametrize("blueprint", [("cfr", 10), ("cfr", 30), ("cfr", 100), ("cfr+", 3000)])
def test_gadgets_never_raise_exploitability(method, blueprint):
    tol = 2e-3  # CFR+ on the gadget, 300 iterations (1,000: 3e-4 at the equilibrium)
    r = resolve_strategy(leduc(*blueprint), method, iterations=300)
    assert r.exploitability() <= r.blueprint_exploitability() + tol


def test_gadgets_on_a_card_abstracted_holdem_blueprint():
    """A 3-bucket blueprint lifted to real cards (each hand plays its bucket's row, as
    cfrlab.realgame.lift does); re-solving its river with exact cards does not raise its
    real-game exploitability, and here lowers it."""
    g = holdem()
    model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, 3), use_cache=False)
    s = cfrlab.solve(g, "cfr+", iterations=200, abstraction=model).strategy
    from cfrlab.realgame import lift

    bp = blueprint_of(s)
    assert np.array_equal(bp.policy, lift(s).policy)
    r = resolve_strategy(s, "maxmargin", iterations=100)
    assert r.exploitability() < r.blueprint_exploitability() - 1e-3


def test_resolve_root_matches_the_whole_round():
    """One root on one board (what an agent re-solves) gives the rows the whole-round re-solve
    writes for that board."""
    s = leduc("cfr", 30)
    bp = blueprint_of(s)
    c = cut(bp, 1)
    node, block = int(c.roots[2]), 3
    rows = resolve_root(c, node, block, "resolve", 0, iterations=50)
    whole = resolve_strategy(s, "resolve", iterations=50).strategy.policy
    H = 5
    assert rows
    for d, pol in rows.items():
        start = int(bp.engine.row_offset[d]) + block * H
        reached = c.reach[2, 0, block * H:(block + 1) * H] > 0
        assert np.allclose(whole[start:start + H][reached], pol[reached], atol=1e-12)


@pytest.mark.parametrize("call, words", [
    (lambda: resolve_strategy(cfrlab.Strategy.uniform("kuhn-3p"), "resolve"), "2-player"),
    (lambda: resolve_strategy(cfrlab.solve("kuhn", "cfr", iterations=2).strategy, "resolve"), "one betting round"),
    (lambda: resolve_strategy(leduc("cfr", 10), "resolve", round=0), "later round"),
    (lambda: resolve_strategy(leduc("cfr", 10), "resolve", round=2), "round must be 1 to 1"),
    (lambda: resolve_strategy(leduc("cfr", 10), "resolve", round="sideways"), "unknown round"),
    (lambda: resolve_strategy(leduc("cfr", 10), "safe-ish"), "unknown subgame method"),
    (lambda: resolve_strategy(leduc("cfr", 10), "resolve", iterations=0), "iterations must be"),
    (lambda: resolve_root(cut(blueprint_of(leduc("cfr", 10)), 1), 0, 0, "resolve", 0), "not the start of round"),
])
def test_bad_input_is_one_line(call, words):
    with pytest.raises(CfrlabError) as err:
        call()
    assert words in str(err.value) and "\n" not in str(err.value)


def test_round_names():
    g = cfrlab.load_game("holdem-limit")
    assert [subgame_round(g, x) for x in ("flop", "turn", "river", "last", 2)] == [1, 2, 3, 3, 2]


def test_cli_prints_both_exploitabilities_and_saves(tmp_path, capsys):
    bp = tmp_path / "bp.npz"
    leduc("cfr", 30).save(bp)
    out = tmp_path / "out.npz"
    code, stdout, err = run(capsys, "subgame", str(bp), "--game", "leduc", "--method", "reach",
                            "--iterations", "50", "-o", str(out), "--json")
    assert code == 0, err
    import json

    assert "blueprint: exploitability" in stdout
    summary = json.loads(stdout.strip().splitlines()[-1])
    assert summary["method"] == "reach"
    assert summary["exploitability"] < summary["blueprint_exploitability"]
    combined = cfrlab.Strategy.load(out)
    assert combined.exploitability() == pytest.approx(summary["exploitability"], abs=1e-9)


@pytest.mark.parametrize("args, words", [
    (["--method", "nope"], "unknown subgame method"),
    (["--iterations", "0"], "iterations must be"),
    (["--round", "0"], "later round"),
])
def test_cli_bad_input_is_one_line(tmp_path, capsys, args, words):
    bp = tmp_path / "bp.npz"
    leduc("cfr", 10).save(bp)
    code, out, err = run(capsys, "subgame", str(bp), *args)
    assert code != 0 and out == ""
    assert words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_cli_refuses_a_three_player_strategy(tmp_path, capsys):
    bp = tmp_path / "bp3.npz"
    cfrlab.Strategy.uniform("kuhn-3p").save(bp)
    code, _out, err = run(capsys, "subgame", str(bp), "--method", "unsafe")
    assert code != 0 and "2-player" in err
    assert len(err.strip().splitlines()) == 1, err
