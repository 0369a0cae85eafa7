"""Spots (cfrlab.spot): the config's fields and errors, State.at_street, the spot's betting
tree (per-player sizes, donk bets) and ``cfrlab spot sizes``."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cfrlab.cards import parse_cards
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.games.state import State
from cfrlab.spot import load_spot, make_spot, spot_size, spot_tree
from cfrlab.spot.fast import SpotGame
from cfrlab.spot.model import SpotModel
from cfrlab.spot.solve import solve_memory
from cfrlab.spot.tree import SpotBets, root_state
from cfrlab.tree.betting_tree import build_tree, count_tree

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = ROOT / "examples" / "spots" / "texassolver_benchmark.toml"


def spot(**kw):
    args = {"board": "Qs Jh 2h", "pot": 10, "stack": 95, "oop_range": "AA, KK, AQs+", "ip_range": "TT-22, KQ"}
    return make_spot(**{**args, **kw})


# -- State.at_street ---------------------------------------------------------------------------
def test_at_street_tree_is_the_full_games_subtree():
    """Leduc no-limit (blinds 1 1): the tree after the preflop's check-check equals the tree
    grown from State.at_street(round 1, 1 chip each), node for node."""
    g = load_game("leduc-nolimit")
    full = build_tree(g, bets="p,a")
    sub = build_tree(g, bets="p,a", root=State.at_street(g, 1, [1, 1]))
    below = [i for i, b in enumerate(full.betting) if b.startswith("cc/")]
    assert [full.betting[i][2:] for i in below] == sub.betting
    for name in ("kind", "player", "round", "spent", "raise_to", "action"):
        assert np.array_equal(getattr(full, name)[below], getattr(sub, name)), name
    assert count_tree(g, bets="p,a", root=State.at_street(g, 1, [1, 1])).nodes == sub.num_nodes


def test_at_street_state_and_errors():
    g = load_game("leduc-nolimit")
    s = State.at_street(g, 1, [3, 3])
    assert (s.round, s.pot, s.betting_string(), s.current_player()) == (1, 6, "/", 0)
    assert s.raise_range() == (4, 7) and s.legal_actions() == ["c", "r4", "r7"]
    s.apply("c").apply("c")
    assert s.is_terminal() and s.betting_string() == "/cc"
    for street, spent, words in ((0, [1, 1], "round 1 to 1"), (2, [1, 1], "round 1 to 1"),
                                 (1, [1, 2], "same chips"), (1, [0, 0], "same chips"),
                                 (1, [8, 8], "exceed"), (1, [7, 7], "no betting left")):
        with pytest.raises(CfrlabError, match=words):
            State.at_street(g, street, spent)


# -- the config ----------------------------------------------------------------------------
def test_the_benchmark_spot_file():
    s = load_spot(BENCHMARK)
    assert (s.pot, s.stack, s.street, s.oop_position) == (10, 95, 1, 0)
    assert s.board == tuple(parse_cards("QsJh2h"))
    assert [int(np.count_nonzero(r)) for r in s.ranges] == [225, 310] and s.lost == (27, 44)
    assert s.tree_game().stack[:2] == (100, 100)
    assert s.sizes[("ip", "turn", "bet")].text == "p" and s.sizes[("ip", "river", "bet")].text == "p,a"
    assert s.sizes[("oop", "turn", "donk")].text == "p,a" and ("ip", "turn", "donk") not in s.sizes
    size = spot_size(s)
    assert size.decisions == (16, 55, 160) and size.nodes == (45, 152, 436)
    assert size.terminals == (14, 41, 276) and size.runouts == (1, 49, 2352)
    assert spot_tree(s).num_nodes == sum(size.nodes)
    assert size.memory == 2_890_884_480


def test_keywords_and_file_give_the_same_spot(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('board = "Qs Jh 2h"\npot = 10\nstack = 95\n[ranges]\noop = "AA, KK, AQs+"\n'
                    'ip = "TT-22, KQ"\n[bets]\nbet = "50%, a"\ncap = 3\n')
    a, b = load_spot(path), spot(bets={"bet": "50%, a", "cap": 3})
    assert all(np.array_equal(x, y) for x, y in zip(a.ranges, b.ranges))
    assert a.cap == b.cap == 3 and {k: v.text for k, v in a.sizes.items()} == {k: v.text for k, v in b.sizes.items()}


@pytest.mark.parametrize("kw, words", [
    ({"board": "Qs Qs 2h"}, "holds Qs twice"), ({"board": "Qs Jh"}, "3 to 5 cards"),
    ({"board": "Qs Jh 2h 3c 4c 5c"}, "3 to 5 cards"), ({"board": "Qs Jh 2x"}, "not a card"),
    ({"pot": 0}, "pot must be positive"), ({"stack": -5}, "stack must be positive"),
    ({"pot": 11}, "11 - 0 chips is odd"), ({"pot": 2.5}, "whole number"), ({"stack": "95"}, "whole number"),
    ({"oop_range": "AKx"}, "OOP range: range entry 'AKx'"), ({"ip_range": "KK:150"}, "at most 1"),
    ({"oop_range": "AA, QsKs"}, "holds KsQs, which uses a board card"),
    ({"board": "2h 2c 2d", "oop_range": "22"}, "no combo left"),
    ({"oop_range": None}, "OOP range is missing"), ({"game": "leduc"}, "heads-up hold'em"),
    ({"game": "holdem-limit", "bets": {"bet": "p"}}, "limit game"),
    ({"bets": {"bet": "3x"}}, "no bet to multiply"), ({"bets": {"bet": "fcpa"}}, "not a preset"),
    ({"bets": {"ip": {"donk": "p"}}}, "out-of-position player's"),
    ({"bets": {"oop": {"preflop": {"bet": "p"}}}}, "unknown setting 'preflop'"),
    ({"bets": {"cap": -1}}, "cap"), ({"bets": {"allin": 1.5}}, "allin"),
    ({"oop_position": 2}, "0 or 1"),
    ({"rake": {"percent": 101}}, "from 0 to 100"), ({"rake": {"percent": 5, "cap": -1}}, "at least 0"),
    ({"rake": {"percent": 5, "cap": "-1bb"}}, "at least 0"), ({"rake": {"rate": 5}}, "unknown setting 'rate'"),
    ({"dead": 10}, "less than the pot"), ({"dead": 1}, "10 - 1 chips is odd"),
    ({"pot": "5.5bb", "big_blind": 1}, "not a whole number"), ({"pot": "5.5xb"}, "whole number of chips"),
    ({"pot": "nanbb"}, "big blinds such as"), ({"bets": {"oop": {"turn": {"donk": "3x"}}}}, "no bet to multiply"),
    ({"bets": {"raise": "2.5bb"}}, "multiples of the bet faced"),
])
def test_bad_spots_are_one_line_errors(kw, words):
    with pytest.raises(CfrlabError, match=words) as e:
        spot(**kw)
    assert "\n" not in str(e.value) and "--" not in str(e.value)


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('board = "Qs Jh 2h"\npot = 10\nstack = 95\nblinds = 3\n')
    with pytest.raises(CfrlabError, match=r"bad.toml: a spot has an unknown setting 'blinds'"):
        load_spot(bad)
    bad.write_text("board = ")
    with pytest.raises(CfrlabError, match="not a TOML file"):
        load_spot(bad)
    with pytest.raises(CfrlabError, match="no such spot file"):
        load_spot(tmp_path / "none.toml")


# -- the tree: sizes by player and street, donk bets --------------------------------------------
def test_sizes_by_player_street_and_donk():
    s = spot(stack=995, bets={"bet": "p", "raise": "-", "ip": {"river": {"bet": "50%"}},
                              "oop": {"turn": {"donk": "20%, 40%"}}})
    t = spot_tree(s)

    def bets_at(betting):
        n = t.node_of_betting[betting]
        return [int(t.raise_to[c]) for c in t.children(n) if t.action[c] >= 2]

    assert bets_at("/") == [15] and bets_at("/c") == [15]  # pot-size bets: 5 + 10
    assert bets_at("/cr15c/") == [21, 27]  # OOP donks 20% or 40% of 30 into IP, the flop's aggressor
    assert bets_at("/r15c/") == [45]  # OOP was the aggressor: its bet list, the pot
    assert bets_at("/cc/") == [15]  # no aggressor on the flop: the bet list
    assert bets_at("/cr15c/c") == [45] and bets_at("/r15") == []  # no raises at all
    assert bets_at("/cr15c/cr45c/") == [135]  # the river: OOP's bet list (no river donk given)
    assert bets_at("/cr15c/cr45c/c") == [90]  # IP's river bet: half of 90
    # "/r15c/" and "/cr15c/" have one betting key: the counter memoizes on the donk state
    # too (SpotBets.betting_key), so counted == built
    assert count_tree(s.tree_game(), SpotBets(s), root=root_state(s)).nodes == t.num_nodes
    blind = count_tree(s.tree_game(), lambda st: SpotBets(s)(st), root=root_state(s)).nodes
    assert blind != t.num_nodes  # without it the count would be wrong


def test_sizes_by_street_for_both_players_and_their_precedence():
    """[bets.flop] etc. set both players' sizes on one street; the most specific table wins:
    player and street, the street, the player, every street."""
    s = spot(stack=995, bets={"bet": "p", "raise": "-", "flop": {"bet": "33%, 75%"},
                              "turn": {"bet": "50%", "donk": "20%"}, "ip": {"bet": "a", "turn": {"bet": "p"}},
                              "oop": {"bet": "25%"}})
    sz = {k: v.text for k, v in s.sizes.items()}
    assert sz[("oop", "flop", "bet")] == sz[("ip", "flop", "bet")] == "0.33p,0.75p"  # the street beats the player
    assert sz[("ip", "turn", "bet")] == "p" and sz[("oop", "turn", "bet")] == "0.5p"  # player.street beats street
    assert sz[("oop", "river", "bet")] == "0.25p" and sz[("ip", "river", "bet")] == "a"  # then the player
    assert sz[("oop", "turn", "donk")] == "0.2p" and ("ip", "turn", "donk") not in sz  # a street's donk is OOP's
    assert ("oop", "river", "donk") not in sz  # no donk list: the tree falls back to bet
    t = spot_tree(s)
    n = t.node_of_betting["/"]
    assert [int(t.raise_to[c]) for c in t.children(n) if t.action[c] >= 2] == [8, 13]  # each put in 5; 33% and 75% of 10
    # the same spot written per player gives the same sizes, hence the same saved key
    from cfrlab.spot.store import spot_config, spot_key

    assert spot_key(make_spot(**spot_config(s))) == spot_key(s)
    for bad, words in ((({"preflop": {"bet": "p"}}), "unknown setting 'preflop'"),
                       (({"flop": {"cap": 2}}), "[bets.flop] has an unknown setting 'cap'"),
                       (({"ip": {"turn": {"donk": "p"}}}), "donk bets are the out-of-position player's")):
        with pytest.raises(CfrlabError, match=re.escape(words)):
            spot(bets=bad)


def test_turn_and_river_spots_and_limit():
    river = spot(board="Qs Jh 2h 3c 4d", bets={"bet": "p", "raise": "p", "cap": 2})
    size = spot_size(river)
    assert size.streets == ("river",) and size.decisions == (1 + 1 + 2 * (1 + 1),)
    turn = spot(board="Qs Jh 2h 3c", game="holdem-limit")
    t = spot_tree(turn)
    assert set(t.round.tolist()) == {2, 3} and spot_size(turn).runouts == (1, 48)


# -- the CLI -----------------------------------------------------------------------------------
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "cfrlab.cli.main", *args], capture_output=True,
                          text=True, cwd=ROOT, check=False)


def test_cli_spot_sizes():
    out = _cli("spot", "sizes", str(BENCHMARK))
    assert out.returncode == 0, out.stderr
    assert "flop             16       45         14        1" in out.stdout
    assert "total           231      633        331" in out.stdout and "2.7 GB" in out.stdout
    data = json.loads(_cli("spot", "sizes", str(BENCHMARK), "--json").stdout)
    assert data["decisions"] == [16, 55, 160] and data["memory_bytes"] == 2_890_884_480
    # the walk's own estimate: the boards it solves (suit symmetry) and both storages
    assert data["canonical_boards"] == [1, 36, 1429]
    walk = data["walk_memory_bytes"]
    assert walk["int16"] < walk["float32"] < data["memory_bytes"]
    spot = load_spot(BENCHMARK)
    tree = spot_tree(spot)
    assert walk["float32"] == solve_memory(spot, tree, SpotModel(spot), "dcfr", "float32", True,
                                           SpotGame(spot, tree, True))


def test_cli_bad_spot_is_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('board = "Qs Qs 2h"\npot = 10\nstack = 95\n[ranges]\noop = "AA"\nip = "KK"\n')
    out = _cli("spot", "sizes", str(bad))
    assert out.returncode != 0 and out.stdout == ""
    assert out.stderr.strip().count("\n") == 0 and "holds Qs twice" in out.stderr
