"""Betting abstractions of no-limit games (cfrlab.tree.bets): specs, amounts, trees, files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import run

import cfrlab
from cfrlab.engine import build_tree_for
from cfrlab.errors import CfrlabError
from cfrlab.games import State, load_game, parse_game
from cfrlab.strategy import Strategy
from cfrlab.tree.bets import parse_bets
from cfrlab.tree.betting_tree import build_tree, count_tree

LEDUC_NL = load_game("leduc-nolimit")
HUNL = load_game("holdem-nolimit")


def test_presets_and_canonical_text():
    assert parse_bets("fcpa").text == "fcpa"
    assert parse_bets(" FCPA ").text == "fcpa"
    assert parse_bets("fcpa;cap=2").text == "p,a;cap=2"
    assert parse_bets("50%,1p,2p,A/p,a;allin=0.2").text == "0.5p,p,2p,a/p,a;allin=0.2"
    assert parse_bets("fullgame") is None
    assert parse_bets("fc").raises(State(HUNL, seed=1)) == []


@pytest.mark.parametrize("spec,words", [
    ("", "empty"), ("  ", "empty"), ("0.5q", "not a size"), ("p,,a", "not a size"),
    ("1x", "above 1"), ("0p", "positive"), ("p;cap=-1", "cap"), ("p;allin=1.5", "allin"),
    ("p;depth=3", "unknown option"), ("p,a/", "empty round"),
])
def test_malformed_specs_are_refused(spec, words):
    with pytest.raises(CfrlabError, match=words):
        parse_bets(spec)


def test_spec_on_a_limit_game_or_too_many_rounds_is_refused():
    with pytest.raises(CfrlabError, match="limit game"):
        parse_bets("fcpa", load_game("leduc"))
    with pytest.raises(CfrlabError, match="limit game"):
        build_tree_for(load_game("holdem-limit"), "fcpa")
    with pytest.raises(CfrlabError, match="3 rounds"):
        parse_bets("p/p/p", LEDUC_NL)
    ante = parse_game(LEDUC_NL.to_text().replace("blind = 1 1", "blind = 0 0"), name="nl-ante")
    with pytest.raises(CfrlabError, match="no blinds"):
        parse_bets("2.5bb", ante)


def test_amounts_in_hunl_follow_the_definitions():
    root = State(HUNL, seed=1)  # the small blind (50) faces the big blind (100)
    # pot raise: call 50, then raise by the pot after the call (200): to 300; all-in 20000
    assert parse_bets("p,a").raises(root) == [300, 20000]
    assert parse_bets("0.5p").raises(root) == [200]  # 100 + 0.5 * 200
    assert parse_bets("3x").raises(root) == [300]  # 3 big blinds
    assert parse_bets("2.5bb").raises(root) == [250]
    assert parse_bets("0.1p").raises(root) == [200]  # below the minimum raise: the minimum
    opened = root.clone().apply("r300")  # big blind faces 300: pot 400, call 200
    assert parse_bets("p").raises(opened) == [300 + 600]
    assert parse_bets("3x").raises(opened) == [300 + 2 * 200]  # the last raise was 200
    # all-in threshold: a raise leaving less than 10% of the stack goes all-in
    deep = root.clone().apply("r6000")  # pot 6100, call 5900: pot raise to 6000 + 12000
    assert parse_bets("p").raises(deep) == [18000]
    assert parse_bets("p;allin=0.1").raises(deep) == [18000]
    assert parse_bets("p;allin=0.15").raises(deep) == [20000]
    checked = root.clone().apply("c").apply("c")  # flop, nobody has bet: no multiple applies
    assert parse_bets("3x").raises(checked) == []
    assert parse_bets("p").raises(checked) == [100 + 200]


def test_cap_limits_raises_per_round():
    t = build_tree(LEDUC_NL, bets="p,a;cap=1")
    assert all(b.count("r") <= 1 for b in (s.split("/")[-1] for s in t.betting))
    t2 = build_tree(LEDUC_NL, bets="p,a")
    assert any(b.count("r") == 2 for b in (s.split("/")[-1] for s in t2.betting))


def test_fcpa_tree_sizes():
    c = count_tree(HUNL, bets="fcpa")
    assert (c.nodes, c.decisions, c.decisions_by_round()) == (3841, 1360, [20, 100, 340, 900])
    t = build_tree(LEDUC_NL, bets="fcpa")
    assert (t.num_nodes, t.num_decisions, t.num_actions, t.bets) == (64, 24, 4, "fcpa")
    root = int(t.decision_node[0])
    assert [t.action_text(root, a) for a in (1, 2, 3)] == ["c", "r3", "r7"]


# an abstraction that holds every legal amount (2 to 7 chips in total) is the full game
EVERY_AMOUNT = "2bb,3bb,4bb,5bb,6bb,7bb"
LEDUC_NL_5 = parse_game(LEDUC_NL.to_text().replace("stack = 7 7", "stack = 5 5"), name="leduc-nolimit-5")


def test_an_abstraction_holding_every_amount_is_the_full_game():
    """Oracles: the two trees hold the same betting and legal actions; a strategy of one has
    the other's exploitability to 1e-12 (both players' best responses agree); the LP's game
    value is the same in both (on stacks of 5, where an LP takes a second: the full game's LP
    takes 28 s, twice); and the full game's value, -0.0722004 (docs/RESULTS.md, the LP's),
    lies between the two best responses' values of a DCFR strategy of the abstraction, a
    bracket 1e-4 wide (-b1 <= v <= b0, whatever the strategy: an LP-free certificate)."""
    from cfrlab.engine import best_response_values

    full, every = build_tree(LEDUC_NL), build_tree(LEDUC_NL, bets=EVERY_AMOUNT)
    assert every.betting == full.betting
    assert np.array_equal(every.legal, full.legal)
    s = cfrlab.solve(LEDUC_NL, "cfr+", iterations=50, bets=EVERY_AMOUNT).strategy
    moved = Strategy.from_policy(LEDUC_NL, s.policy, tree=full, model=s.model)
    assert s.exploitability() == pytest.approx(moved.exploitability(), abs=1e-12)
    assert s.exploitability() > 0.01  # not converged: the comparison is not between two zeros
    # measured: 2,000 DCFR iterations bracket the value in [-0.0722356, -0.0721464]
    d = cfrlab.solve(LEDUC_NL, "dcfr", iterations=2000, bets=EVERY_AMOUNT).strategy
    b0, b1 = best_response_values(full, d.model, d.policy)
    assert -b1 <= -0.0722004 <= b0 and b0 + b1 < 2e-4
    # the LP on the abstraction's tree and on the full one (stacks of 5: amounts 2 to 5)
    lp_full = cfrlab.solve(LEDUC_NL_5, "lp")
    lp_every = cfrlab.solve(LEDUC_NL_5, "lp", bets="2bb,3bb,4bb,5bb")
    assert lp_every.game_value == pytest.approx(lp_full.game_value, abs=1e-9)
    assert lp_every.strategy.tree.betting == lp_full.strategy.tree.betting
    moved = Strategy.from_policy(LEDUC_NL_5, lp_every.strategy.policy, tree=lp_full.strategy.tree,
                                 model=lp_full.strategy.model)
    assert moved.exploitability() < 1e-9


def test_solve_save_load_keeps_the_betting_abstraction(tmp_path):
    r = cfrlab.solve("leduc-nolimit", "cfr+", iterations=200, bets="fcpa")
    assert r.strategy.tree.bets == "fcpa" and r.strategy.header["bets"] == "fcpa"
    path = tmp_path / "s.npz"
    r.strategy.save(path)
    back = Strategy.load(path)
    assert back.tree.bets == "fcpa" and back.tree.num_decisions == 24
    assert back.exploitability() == pytest.approx(r.strategy.exploitability(), abs=1e-12)
    lp = cfrlab.solve("leduc-nolimit", "lp", bets="fcpa")
    assert r.exploitability < 0.01 and lp.exploitability < 1e-9
    assert r.game_value == pytest.approx(lp.game_value, abs=0.01)


def test_a_corrupt_bets_field_is_refused(tmp_path):
    from cfrlab.fileio import NpzReader, save_npz

    r = cfrlab.solve("leduc-nolimit", "cfr+", iterations=5, bets="fcpa")
    path = tmp_path / "s.npz"
    r.strategy.save(path)
    with NpzReader(path, kind="strategy") as z:
        header, policy = z.header, z.read("policy")
    header["bets"] = "p,,a"
    save_npz(path, header, {"policy": policy})
    with pytest.raises(CfrlabError, match="corrupt strategy header .bets"):
        Strategy.load(path)


def test_checkpoint_of_another_abstraction_is_refused(tmp_path):
    ck = tmp_path / "run.ckpt.npz"
    cfrlab.solve("leduc-nolimit", "cfr+", iterations=20, bets="fcpa", checkpoint=ck)
    with pytest.raises(CfrlabError, match="betting abstraction"):
        cfrlab.solve("leduc-nolimit", "cfr+", iterations=40, bets="p,a;cap=1", checkpoint=ck)


def test_cli_sizes_and_solve_with_bets(tmp_path, capsys, monkeypatch):
    code, out, _ = run(capsys, "abstract", "sizes", "holdem-nolimit", "--bets", "fcpa", "--buckets", "8",
                       "--json")
    assert code == 0, out
    d = json.loads(out.strip().splitlines()[-1])
    assert (d["bets"], d["decision_nodes"], d["infosets"]) == ("fcpa", 1360, 3_867_040)
    assert d["solve_bytes"] == 3 * 8 * 4 * 3_867_040
    code, out, _ = run(capsys, "abstract", "sizes", "leduc-nolimit", "--bets", "fcpa", "--json")
    assert code == 0 and json.loads(out)["decision_nodes"] == 24
    # the full tree is refused once its count passes MAX_COUNT_STATES distinct betting states
    # (200,000: 13 s of counting); the refusal's path is the same at 5,000 (0.3 s)
    monkeypatch.setitem(count_tree.__kwdefaults__, "max_states", 5_000)
    code, out, err = run(capsys, "abstract", "sizes", "holdem-nolimit")
    assert "every legal amount" in err and "more than 5,000 distinct betting states" in err
    monkeypatch.undo()
    assert code != 0 and "betting abstraction" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "solve", "leduc", "-a", "cfr+", "-n", "5", "--bets", "fcpa")
    assert code != 0 and "limit game" in err and len(err.strip().splitlines()) == 1
    path = tmp_path / "s.npz"
    code, out, err = run(capsys, "solve", "leduc-nolimit", "-a", "cfr+", "-n", "30", "--bets", "fcpa",
                         "-o", str(path), "--no-progress")
    assert code == 0, err
    assert "betting abstraction: fcpa" in out
    code, out, err = run(capsys, "exploit", str(path))
    assert code == 0, err


def test_a_solve_that_would_not_fit_is_refused_with_its_size(capsys, monkeypatch, tmp_path):
    from cfrlab.cli import solve_cmd

    monkeypatch.setattr(solve_cmd, "available_memory", lambda: 100_000)  # 100 kB
    out = tmp_path / "s.npz"
    code, _, err = run(capsys, "solve", "leduc-nolimit", "-a", "cfr+", "-n", "5", "--bets", "fcpa",
                       "-o", str(out))
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "betting abstraction fcpa needs about" in err and "528 information sets" in err
    assert not out.exists()
