"""The re-solving agent (``subgame:BLUEPRINT:ROUND:METHOD``, cfrlab.subgame.agent).

Oracles:
- before the subgame's round the agent plays the blueprint's rows (a StrategyAgent's);
- in the subgame it plays the rows ``resolve_root`` gives for its root, board and seat;
- the one-board river subgame built from real cards (what HULHE needs, ``river_subgame``)
  equals the Cut's on a reduced deck that also enumerates: ranges, blueprint best-response
  values, counterfactual weights and re-solved rows to 1e-9, for a lossless and a
  card-abstracted blueprint;
- it plays a match and a dealer match within a per-action time limit; bad specs are one line.
"""

from __future__ import annotations

import io
import threading
from functools import lru_cache

import numpy as np
import pytest
from cli_run import run
from game_texts import holdem_text
from play_helpers import HOST, WAIT, CallAgent, DealerThread

import cfrlab
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.agents.registry import make_agent
from cfrlab.agents.strategy_agent import StrategyAgent
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.match import play_match
from cfrlab.games import load_game, parse_game
from cfrlab.games.matchstate import parse_match_state
from cfrlab.play.client import run_client
from cfrlab.subgame import agent as agent_mod
from cfrlab.subgame import blueprint_of, cut, resolve_root
from cfrlab.subgame.agent import SubgameAgent
from cfrlab.subgame.local import families, terminal_value
from cfrlab.subgame.methods import normalized, solve_family
from cfrlab.subgame.river import river_subgame
from cfrlab.tree.betting_tree import FOLD

LEDUC = load_game("leduc")


@lru_cache(maxsize=2)
def leduc_bp():
    return cfrlab.solve("leduc", "cfr", iterations=30).strategy


@lru_cache(maxsize=1)
def holdem():
    return parse_game(holdem_text(4, 2, "0 2 1", "2 2 2"), name="holdem-4x2")


def view(line: str):
    return parse_match_state(LEDUC, line)


def test_plays_the_blueprint_before_the_subgame():
    bp = leduc_bp()
    a, b = SubgameAgent(bp, "river", "resolve", iterations=20), StrategyAgent(bp)
    for line in ["MATCHSTATE:0:0::Ks|", "MATCHSTATE:1:0:r:|Qh", "MATCHSTATE:0:3:rr:Ah|", "MATCHSTATE:1:2:c:|Kh"]:
        assert np.array_equal(a.distribution(view(line)), b.distribution(view(line)))
    # and the same draws from the same seed
    a.begin_match(LEDUC, 7)
    b.begin_match(LEDUC, 7)
    v = view("MATCHSTATE:0:0::Ks|")
    assert [a.act(v) for _ in range(30)] == [b.act(v) for _ in range(30)]


@pytest.mark.parametrize("method", ["unsafe", "resolve", "maxmargin", "reach"])
def test_plays_resolve_roots_rows_in_the_subgame(method):
    bp = leduc_bp()
    a = SubgameAgent(bp, "river", method, iterations=40, seconds=0)
    c = cut(blueprint_of(bp), 1)
    lm = c.blueprint.model
    H = lm.block_size[1]
    for line in ["MATCHSTATE:0:0:cc/:Ks|/Qh", "MATCHSTATE:1:0:cc/r:|Ah/Qh", "MATCHSTATE:0:1:rc/:Qs|/Kh",
                 "MATCHSTATE:0:1:rc/rr:Ks|/Kh"]:
        v = view(line)
        tree = bp.tree
        node = bp.node_of(v.betting_string())
        root = bp.node_of(v.betting_string().split("/")[0] + "/")
        state = lm.state_of(v.position, v.my_cards, v.visible_board(), 1)
        rows = resolve_root(c, root, state // H, method, v.position, iterations=40)
        want = rows[int(tree.decision[node])][state % H]
        assert np.allclose(a.distribution(v), want, atol=1e-12), line
        assert not np.array_equal(want, StrategyAgent(bp).distribution(v))  # it is a re-solve
    assert [n for n, _ in a.log] == [40] * 4  # one re-solve per hand and seat


def _card_abstracted(g):
    model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, 3), use_cache=False)
    return cfrlab.solve(g, "cfr+", iterations=60, abstraction=model).strategy


@pytest.mark.parametrize("kind", ["lossless", "buckets"])
def test_one_board_river_subgame_equals_the_cut(kind):
    g = holdem()
    s = cfrlab.solve(g, "cfr+", iterations=60).strategy if kind == "lossless" else _card_abstracted(g)
    c = cut(blueprint_of(s), 2)
    lm = c.blueprint.model
    H = lm.block_size[2]
    checked = 0
    for k in (1, 4):
        node = int(c.roots[k])
        for b in (0, 17, lm.num_blocks[2] - 1):
            cols = slice(b * H, (b + 1) * H)
            if c.reach[k, :, cols].sum(axis=1).min() <= 0:
                continue
            board = lm.state_cards(2, b * H)[1]
            for player in (0, 1):
                sub = river_subgame(s, node, board, 1 - player)
                for p in (0, 1):
                    assert np.allclose(sub.reach[p], c.reach[k, p, cols], rtol=0, atol=1e-12)
                    assert np.allclose(sub.cbv[p], c.cbv[k, p, cols], rtol=1e-9, atol=1e-12)
                assert np.allclose(sub.ranges.weight[0, 0], c.weight[k, 1 - player, cols], rtol=1e-9, atol=1e-15)
                # every terminal's values from any reach (O(H) sums against the Cut's matrices)
                fam = families(c.blueprint, 2, c.roots[[k]], (b, b + 1))[0]
                rng = np.random.default_rng(b)
                for m in np.flatnonzero(fam.kind >= FOLD):
                    for i in (0, 1):
                        opp = rng.random((1, 1, H))
                        want = terminal_value(fam, m, i, opp)
                        assert np.allclose(terminal_value(sub.family, m, i, opp), want, rtol=1e-12, atol=0)
                # the re-solved rows (CFR-D's gadget, lossless blueprint): CFR+ can break a regret
                # tie the other way from sums that differ by rounding (1e-18), so unsafe, maxmargin
                # and the bucketed blueprint (whose hands tie by bucket) are not compared row by row
                if kind != "lossless":
                    checked += 1
                    continue
                want = resolve_root(c, node, b, "resolve", player, iterations=30)
                avg = solve_family(sub.family, "resolve", player, sub.ranges, 30)
                got = {int(sub.family.decision[0, m]): normalized(a, sub.family.legal[m])[0][0, 0]
                       for m, a in avg.items() if sub.family.player[m] == player}
                assert want.keys() == got.keys()
                for d in want:
                    assert np.allclose(got[d], want[d], rtol=0, atol=1e-9), d
                checked += 1
    assert checked >= 4


def test_plays_a_match_deterministically():
    bp = leduc_bp()
    runs = [play_match(LEDUC, SubgameAgent(bp, "river", "maxmargin", iterations=20, seconds=0),
                       StrategyAgent(bp), 40, seed=3, duplicate=True).summary()["mean_chips"] for _ in range(2)]
    assert runs[0] == runs[1]


def test_spec_plays_a_match_from_a_file(tmp_path):
    path = tmp_path / "bp.npz"
    leduc_bp().save(path)
    a = make_agent(f"subgame:{path}:river:resolve:iterations=25,time=0", LEDUC, seed=1)
    assert isinstance(a, SubgameAgent) and a.iterations == 25 and a.seconds == 0 and a.round == 1
    res = play_match(LEDUC, a, make_agent(str(path), LEDUC), 30, seed=2)
    assert res.summary()["games"] == 30 and a.log


def test_dealer_match_within_the_time_limit(tmp_path):
    """An ACPC dealer with a 3 s per-action limit: the agent (1 s budget) plays every hand."""
    path = tmp_path / "bp.npz"
    leduc_bp().save(path)
    agent = make_agent(f"subgame:{path}:river:resolve:iterations=100000,time=0.2", LEDUC)
    d = DealerThread(LEDUC, 20, 4, t_response_ms=3000)
    out = {}

    def seat(i, ag):
        out[i] = run_client(HOST, d.ports[i], LEDUC, ag, err=io.StringIO(), idle_timeout=WAIT)

    ts = [threading.Thread(target=seat, args=(i, ag), daemon=True) for i, ag in enumerate([agent, CallAgent()])]
    for t in ts:
        t.start()
    res = d.join(60)
    for t in ts:
        t.join(WAIT)
    assert res.completed
    assert out[0].total == pytest.approx(res.totals[0])
    assert agent.log and all(s < 1.5 for _, s in agent.log)
    assert all(n < 100000 for n, _ in agent.log)  # the budget, not the iterations, ended them


def test_reach_is_refused_where_the_game_does_not_enumerate(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(agent_mod, "_enumerates", lambda game: False)
    with pytest.raises(CfrlabError, match="gifts"):
        SubgameAgent(leduc_bp(), "river", "reach")
    path = tmp_path / "bp.npz"
    leduc_bp().save(path)
    code, _out, err = run(capsys, "match", "leduc", f"subgame:{path}:river:reach", "always-call", "-n", "2")
    assert code != 0 and "gifts" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("spec, game, words", [
    ("subgame:{bp}:river:bogus", "leduc", "unknown subgame method"),
    ("subgame:{bp}:sideways:resolve", "leduc", "unknown round"),
    ("subgame:{bp}:river:resolve:speed=2", "leduc", "unknown option"),
    ("subgame:{bp}:river:resolve:time=-1", "leduc", "time budget"),
    ("subgame:{bp}:river:resolve:iterations=x", "leduc", "whole number"),
    ("subgame:{bp}:river", "leduc", "subgame:BLUEPRINT:ROUND:METHOD"),
    ("subgame:nothere.npz:river:resolve", "leduc", "no such strategy file"),
    ("subgame:{bp}:river:resolve", "leduc-3p", "2-player"),
])
def test_bad_specs_are_one_line(tmp_path, capsys, spec, game, words):
    path = tmp_path / "bp.npz"
    leduc_bp().save(path)
    seats = ["always-call"] * (2 if game == "leduc-3p" else 1)
    code, _out, err = run(capsys, "match", game, spec.format(bp=path), *seats, "-n", "2")
    assert code != 0 and words in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
