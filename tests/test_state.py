"""The rules engine: hand-written hands with known payoffs, a cross-check against the
dict-based oracle (tests/naive.py) and property tests over random legal play."""

from collections import Counter

import naive
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfrlab import known_values
from cfrlab.cards import deck, parse_cards
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.games import load_game, parse_game, parse_log_line
from cfrlab.games.state import State

# Extra games for the rules' corners: side pots, stacks, many players, no blinds,
# a board card in round 0, a blind that is an all-in.
HOLDEM_LIMIT_3P = """GAMEDEF
limit
numPlayers = 3
numRounds = 4
blind = 5 10 0
raiseSize = 10 10 20 20
firstPlayer = 3 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
KUHN_3P_SIDE = """GAMEDEF
limit
numPlayers = 3
numRounds = 1
stack = 2 3 3
blind = 1 1 1
raiseSize = 1
maxRaises = 2
numSuits = 1
numRanks = 4
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""
NOLIMIT_3P_UNEQUAL = """GAMEDEF
nolimit
numPlayers = 3
numRounds = 4
stack = 500 2000 20000
blind = 50 100 0
firstPlayer = 3 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
NOLIMIT_10P = """GAMEDEF
nolimit
numPlayers = 10
numRounds = 4
stack = 40 60 80 100 120 140 160 180 200 400
blind = 1 2 0 0 0 0 0 0 0 0
firstPlayer = 3 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
NOLIMIT_NO_BLINDS_BOARD0 = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = 7 9
blind = 0 0
numSuits = 2
numRanks = 6
numHoleCards = 1
numBoardCards = 1 1
END GAMEDEF
"""
LIMIT_4P_STACKS = """GAMEDEF
limit
numPlayers = 4
numRounds = 2
stack = 6 15 30 100
blind = 1 2 0 0
raiseSize = 2 4
firstPlayer = 3 1
maxRaises = 3 4
numSuits = 3
numRanks = 8
numHoleCards = 2
numBoardCards = 0 2
END GAMEDEF
"""
NOLIMIT_BLIND_ALL_IN = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 100 20000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""

GAMES = {
    "kuhn": load_game("kuhn"),
    "kuhn-3p": load_game("kuhn-3p"),
    "leduc": load_game("leduc"),
    "holdem-limit": load_game("holdem-limit"),
    "holdem-nolimit": load_game("holdem-nolimit"),
    "holdem-limit-3p": parse_game(HOLDEM_LIMIT_3P, "holdem-limit-3p"),
    "kuhn-3p-side": parse_game(KUHN_3P_SIDE, "kuhn-3p-side"),
    "nolimit-3p-unequal": parse_game(NOLIMIT_3P_UNEQUAL, "nolimit-3p-unequal"),
    "nolimit-10p": parse_game(NOLIMIT_10P, "nolimit-10p"),
    "nolimit-no-blinds": parse_game(NOLIMIT_NO_BLINDS_BOARD0, "nolimit-no-blinds"),
    "limit-4p-stacks": parse_game(LIMIT_4P_STACKS, "limit-4p-stacks"),
    "nolimit-blind-all-in": parse_game(NOLIMIT_BLIND_ALL_IN, "nolimit-blind-all-in"),
}


def play(game, deal, betting, hand_number=0):
    """A state after the actions in `betting` (ACPC text; '/' is skipped)."""
    s = State(game, deal=deal, hand_number=hand_number)
    i = 0
    while i < len(betting):
        if betting[i] == "/":
            i += 1
            continue
        j = i + 1
        while j < len(betting) and betting[j].isdigit():
            j += 1
        s.apply(betting[i:j])
        i = j
    return s


def limit_max_loss(game):
    """Most a player can put in a limit game: the big blind plus every allowed raise."""
    return max(game.blind) + sum(rs * mr for rs, mr in zip(game.raise_size, game.max_raises))


# ----------------------------------------------------------------------- limit hold'em


def test_hulhe_preflop_cap_is_three_raises_after_the_big_blind():
    g = GAMES["holdem-limit"]
    s = State(g, deal="5d5c9hQd8dAs8s4h6d")
    assert s.current_player() == 1 and s.spent == (10, 5)
    assert s.legal_actions() == ["f", "c", "r"]
    for who, action in [(1, "r"), (0, "r"), (1, "r")]:
        assert s.current_player() == who
        s.apply(action)
    assert s.spent == (30, 40) and s.max_spent == 40 and s.num_raises == 3
    assert s.legal_actions() == ["f", "c"]
    assert not s.is_legal("r")
    with pytest.raises(IllegalActionError, match=r"'r'.*MATCHSTATE:0:0:rrr:5d5c\|"):
        s.apply("r")
    s.apply("c")
    assert s.betting_string() == "rrrc/" and s.round == 1 and s.current_player() == 0
    assert s.legal_actions() == ["c", "r"]  # nothing to call: no fold
    for action in "rrrr":
        s.apply(action)
    assert s.spent == (70, 80) and s.legal_actions() == ["f", "c"]
    assert s.match_state(0) == "MATCHSTATE:0:0:rrrc/rrrr:5d5c|/8dAs8s"
    assert s.history == [(1, "r"), (0, "r"), (1, "r"), (0, "c"), (0, "r"), (1, "r"), (0, "r"), (1, "r")]


def test_hulhe_check_down_showdown():
    g = GAMES["holdem-limit"]
    s = play(g, "5d5c9hQd8dAs8s4h6d", "cc/cc/cc/")
    assert s.round == 3 and s.current_player() == 0 and not s.is_terminal()
    s.apply("c").apply("c")
    assert s.is_terminal() and s.is_showdown() and s.current_player() == -1
    assert s.betting_string() == "cc/cc/cc/cc"
    assert s.payoffs() == [10.0, -10.0]  # two pair 8s and 5s beats a pair of 8s
    assert s.legal_actions() == []
    assert s.match_state(1) == "MATCHSTATE:1:0:cc/cc/cc/cc:5d5c|9hQd/8dAs8s/4h/6d"
    assert s.log_line(["A", "B"]) == "STATE:0:cc/cc/cc/cc:5d5c|9hQd/8dAs8s/4h/6d:10|-10:A|B"


def test_hulhe_fold_to_a_raise():
    g = GAMES["holdem-limit"]
    s = play(g, "5d5c9hQd8dAs8s4h6d", "r")
    assert s.legal_actions() == ["f", "c", "r"]
    s.apply("f")
    assert s.is_terminal() and not s.is_showdown()
    assert s.payoffs() == [-10.0, 10.0]
    assert s.match_state(0) == "MATCHSTATE:0:0:rf:5d5c|"  # no showdown: the winner's cards stay hidden
    assert s.match_state(1) == "MATCHSTATE:0:0:rf:|9hQd".replace("0:0", "1:0")
    assert s.log_line(["A", "B"]) == "STATE:0:rf:5d5c|9hQd:-10|10:A|B"  # the log shows every hand


def test_hulhe_captured_log_lines():
    g = GAMES["holdem-limit"]
    for line in [
        "STATE:0:f:5d5c|9hQd:5|-5:PyCall|Example",
        "STATE:1:crc/rc/cc/cc:6sKs|5dJd/2sTh2h/Qh/8h:30|-30:Example|PyCall",
        "STATE:999:crc/rc/rc/cc:Jc8d|TdQd/As6d6h/7h/4s:-50|50:Example|PyCall",
    ]:
        log = parse_log_line(g, line)
        deal = [c for h in log.hole for c in h] + [c for b in log.board for c in b]
        deal += [c for c in deck() if c not in deal][: 9 - len(deal)]  # unseen later boards
        s = play(g, deal, log.betting_string(), log.hand_number)
        assert s.payoffs() == log.values
        assert s.log_line(log.names) == line


def test_split_pots():
    g = GAMES["holdem-limit"]
    s = play(g, "2c3d4h5cAsKsQsJsTs", "cc/cc/cc/cc")  # the board's royal flush plays
    assert s.payoffs() == [0.0, 0.0]
    assert s.log_line(["A", "B"]).endswith(":0|0:A|B")
    g3 = GAMES["holdem-limit-3p"]
    s = State(g3, deal="2c3dAhKdAdKh7s8s9c2h4d")
    assert s.current_player() == 2  # firstPlayer 3
    for who, action in [(2, "c"), (0, "f"), (1, "c")]:
        assert s.current_player() == who
        s.apply(action)
    assert s.round == 1 and s.current_player() == 1  # position 0 folded: the next one starts
    for action in "cccccc":
        s.apply(action)
    assert s.betting_string() == "cfc/cc/cc/cc"
    assert s.payoffs() == [-5.0, 2.5, 2.5]
    assert s.log_line(["a", "b", "c"]) == "STATE:0:cfc/cc/cc/cc:2c3d|AhKd|AdKh/7s8s9c/2h/4d:-5|2.5|2.5:a|b|c"
    assert s.match_state(0) == "MATCHSTATE:0:0:cfc/cc/cc/cc:2c3d|AhKd|AdKh/7s8s9c/2h/4d"
    assert s.match_state(1) == "MATCHSTATE:1:0:cfc/cc/cc/cc:|AhKd|AdKh/7s8s9c/2h/4d"  # the folder stays hidden


def test_fractional_split_values_are_formatted_like_the_dealer():
    g = parse_game(KUHN_3P_SIDE.replace("numPlayers = 3", "numPlayers = 4").replace("stack = 2 3 3", "")
                   .replace("blind = 1 1 1", "blind = 1 1 1 1").replace("numSuits = 1", "numSuits = 4")
                   .replace("numRanks = 4", "numRanks = 13"))
    s = play(g, "AcAdAhKs", "rccf")  # three aces split 7 chips: 1/3 each net
    assert s.payoffs() == [1 / 3, 1 / 3, 1 / 3, -1.0]
    assert s.log_line("abcd").split(":")[4] == "0.333333|0.333333|0.333333|-1"
    g = parse_game(KUHN_3P_SIDE.replace("stack = 2 3 3", "").replace("numSuits = 1", "numSuits = 4"))
    s = play(g, "AcAdKs", "rcf")  # two aces split 5 chips
    assert s.log_line("abc").split(":")[4] == "0.5|0.5|-1"


# ------------------------------------------------------------------------------ no-limit


def test_nolimit_all_in_runs_the_board_out():
    g = GAMES["holdem-nolimit"]
    s = State(g, deal="8d9h9s6dTsQh8cAh4d", hand_number=2)
    assert s.raise_range() == (200, 20000) and s.legal_actions() == ["f", "c", "r200", "r20000"]
    s.apply("c")
    assert s.legal_actions() == ["c", "r200", "r20000"]
    s.apply("r12639")
    assert s.raise_range() == (20000, 20000)  # 2 x 12639 - 100 is past the stack: all-in only
    assert s.legal_actions() == ["f", "c", "r20000"]
    s.apply("r20000")
    assert s.legal_actions() == ["f", "c"]
    s.apply("c")
    assert s.is_terminal() and s.is_showdown() and s.round == 3
    assert s.betting_string() == "cr12639r20000c///"
    assert s.match_state(0) == "MATCHSTATE:0:2:cr12639r20000c///:8d9h|9s6d/TsQh8c/Ah/4d"
    assert s.payoffs() == [20000.0, -20000.0]
    assert s.log_line(["PyRand", "Ex"]) == "STATE:2:cr12639r20000c///:8d9h|9s6d/TsQh8c/Ah/4d:20000|-20000:PyRand|Ex"


def test_nolimit_minimum_raise_rules():
    g = GAMES["holdem-nolimit"]
    s = State(g, deal="8dJdTd4dAs9d6s3d6c")
    s.apply("r300")
    assert s.raise_range() == (500, 20000)  # raise by at least the last raise (200)
    s.apply("r1000")
    assert s.raise_range() == (1700, 20000)
    for bad in ["r1699", "r20001", "r", "x", "", "rr", "r-5", "f1", "r1700.5"]:
        assert not s.is_legal(bad), bad
    s.apply("c")
    assert s.betting_string() == "r300r1000c/" and s.current_player() == 0
    assert s.raise_range() == (1100, 20000)  # a new round: the bet plus the big blind
    assert not s.is_legal("r1099") and s.is_legal("r1100") and s.is_legal("r5000")
    s.apply("r1100").apply("r1200" if s.is_legal("r1200") else "r1300")
    assert s.betting_string() == "r300r1000c/r1100r1200"  # raise by 100 keeps the minimum increment 100
    assert s.raise_range() == (1300, 20000)


def test_nolimit_short_stacks():
    g = parse_game(GAMES["holdem-nolimit"].to_text().replace("stack = 20000 20000", "stack = 450 20000"))
    s = play(g, "AsAdKsKdQh7c2d3h9c", "r300")
    assert s.legal_actions() == ["f", "c", "r450"] and s.raise_range() == (450, 450)
    s.apply("r450")
    assert s.legal_actions() == ["f", "c"]  # nobody left to call a raise
    s.apply("c")
    assert s.betting_string() == "r300r450c///" and s.payoffs() == [450.0, -450.0]

    g = parse_game(GAMES["holdem-nolimit"].to_text().replace("stack = 20000 20000", "stack = 300 20000"))
    s = play(g, "AsAdKsKdQh7c2d3h9c", "r1000")
    assert s.legal_actions() == ["f", "c"] and s.raise_range() is None
    s.apply("c")  # all-in for 300: 700 of the raise comes back
    assert s.is_terminal() and s.spent == (300, 1000)
    assert s.payoffs() == [300.0, -300.0]
    s = play(g, "KsKdAsAdQh7c2d3h9c", "r1000c")
    assert s.payoffs() == [-300.0, 300.0]


def test_blind_all_in_and_no_blind_games():
    g = GAMES["nolimit-blind-all-in"]
    s = State(g, deal="AsAdKsKdQh7c2d3h9c")
    assert s.current_player() == 1 and s.legal_actions() == ["f", "c"]
    s.apply("c")
    assert s.betting_string() == "c///" and s.payoffs() == [100.0, -100.0]
    g = GAMES["nolimit-no-blinds"]
    s = State(g, deal=parse_cards("AhAs") + parse_cards("KhKs"))
    assert s.legal_actions() == ["c", "r1", "r7"] and s.raise_range() == (1, 7)
    s.apply("c").apply("r2")
    assert s.raise_range() == (4, 7)
    s.apply("c")
    assert s.round == 1 and s.raise_range() == (3, 7)  # bet 2 + max(largest blind, 1)
    assert s.match_state(0) == "MATCHSTATE:0:0:cr2c/:Ah|Kh/Ks"  # round 0 board right after the last field


# ------------------------------------------------------------------------ Kuhn and Leduc


def test_kuhn_3p():
    g = GAMES["kuhn-3p"]
    s = State(g, deal="JsQsKs")
    assert s.legal_actions() == ["c", "r"]
    s.apply("c").apply("r")
    assert s.current_player() == 2 and s.legal_actions() == ["f", "c"]  # maxRaises 1
    s.apply("c")
    assert s.current_player() == 0 and s.legal_actions() == ["f", "c"]
    s.apply("f")
    assert s.is_terminal() and s.betting_string() == "crcf"
    assert s.payoffs() == [-1.0, -2.0, 3.0]
    assert s.match_state(0) == "MATCHSTATE:0:0:crcf:Js|Qs|Ks"
    assert s.match_state(1) == "MATCHSTATE:1:0:crcf:|Qs|Ks"
    s = play(g, "JsQsKs", "ccrff")
    assert s.payoffs() == [-1.0, -1.0, 2.0] and not s.is_showdown()
    assert s.match_state(0) == "MATCHSTATE:0:0:ccrff:Js||"


def test_kuhn_3p_side_pots():
    g = GAMES["kuhn-3p-side"]  # stacks 2 3 3, two raises allowed
    s = State(g, deal="AsQsKs")
    s.apply("r")
    assert s.spent == (2, 1, 1) and s.legal_actions() == ["f", "c", "r"]
    s.apply("r")
    assert s.spent == (2, 3, 1) and s.legal_actions() == ["f", "c"]  # only P2 can still act
    t = s.clone().apply("c")
    assert t.is_terminal() and t.payoffs() == [4.0, -3.0, -1.0]  # main pot 6 to A, side pot 2 to K
    t = s.clone().apply("f")
    assert t.is_terminal() and t.is_showdown() and t.payoffs() == [3.0, -2.0, -1.0]  # P1's extra chip returns
    assert s.betting_string() == "rr" and not s.is_terminal()  # clones are independent
    t = play(g, "QsKsAs", "rrc")
    assert t.payoffs() == [-2.0, -3.0, 5.0]  # the ace wins both pots


def test_leduc_and_kuhn_captured_hands():
    leduc = GAMES["leduc"]
    s = play(leduc, "KsQsKh", "rc/rc")
    assert s.log_line(["PyRand", "Ex"]) == "STATE:0:rc/rc:Ks|Qs/Kh:7|-7:PyRand|Ex"
    s = play(leduc, "KhKsQs", "cc/rc", hand_number=3)
    assert s.log_line(["Ex", "PyRand"]) == "STATE:3:cc/rc:Kh|Ks/Qs:0|0:Ex|PyRand"
    assert play(leduc, "QhKsQs", "rc/rc").payoffs() == [7.0, -7.0]  # pair beats high card
    assert play(leduc, "AhKsQh", "rc/rc").payoffs() == [7.0, -7.0]
    assert play(leduc, "KhKsQh", "rc/rc").payoffs() == [0.0, 0.0]
    s = play(leduc, "KsQsKh", "rr")
    assert s.legal_actions() == ["f", "c"] and s.spent == (3, 5)  # cap 2 raises, size 2
    s = play(leduc, "KsQsKh", "rc/rr")
    assert s.spent == (7, 11) and s.legal_actions() == ["f", "c"]
    assert play(GAMES["kuhn"], "KsQs", "rc").log_line(["PyRand", "Ex"]) == "STATE:0:rc:Ks|Qs:2|-2:PyRand|Ex"


def test_kuhn_100_uses_extended_ranks():
    g = load_game("kuhn-100")
    s = State(g, seed=3)
    a, b = s.hole_cards(0)[0] // 4, s.hole_cards(1)[0] // 4
    s.apply("r").apply("c")
    assert s.payoffs() == ([2.0, -2.0] if a > b else [-2.0, 2.0])


# --------------------------------------------------------------------- deals and errors


def test_deals_validated_and_drawn():
    g = GAMES["leduc"]
    with pytest.raises(CfrlabError, match="needs 3 cards"):
        State(g, deal=[44, 45])
    with pytest.raises(CfrlabError, match="twice"):
        State(g, deal="KsKsQh")
    with pytest.raises(CfrlabError, match="2c is not in the deck"):
        State(g, deal=[0, 45, 46])
    with pytest.raises(CfrlabError, match="not in the deck"):
        State(g, deal=[-1, 45, 46])
    with pytest.raises(CfrlabError, match="sequence of card ids"):
        State(g, deal=[None, 1, 2])
    assert State(g, seed=7).deal == State(g, seed=7).deal
    assert State(g, deal=np.array([42, 47, 50])).deal == (42, 47, 50)
    rng = np.random.default_rng(0)
    kuhn = GAMES["kuhn"]
    counts = Counter(State(kuhn, seed=rng).deal for _ in range(6000))
    assert len(counts) == 6 and all(850 < c < 1150 for c in counts.values())  # 6 ordered deals, ~1000 each
    h = State(GAMES["holdem-nolimit"], seed=1)
    assert len(set(h.deal)) == 9 and set(h.deal) <= set(deck())
    assert h.hole_cards(1) == list(h.deal[2:4]) and h.board_cards(1) == list(h.deal[4:7])


def test_unfinished_and_finished_errors():
    g = GAMES["kuhn"]
    s = State(g, deal="KsQs")
    with pytest.raises(CfrlabError, match="unfinished"):
        s.payoffs()
    with pytest.raises(CfrlabError, match="2 names"):
        s.apply("c").apply("c").log_line(["x"])
    with pytest.raises(IllegalActionError, match="'c'.*hand is over"):
        s.apply("c")
    with pytest.raises(IllegalActionError, match="'f'.*may play c, r"):
        State(g, deal="KsQs").apply("f")
    with pytest.raises(CfrlabError):
        s.match_state(2)


# ------------------------------------------------------------- oracle: tests/naive.py


@pytest.mark.parametrize("name", ["kuhn", "leduc", "holdem-limit"])
def test_betting_agrees_with_the_naive_oracle(name):
    g = GAMES[name]
    letters = "fcr"
    decisions_by_round = Counter()
    terminal = []

    def walk(node, state):
        assert state.betting_string() == node.betting
        assert state.spent == node.spent and state.round == node.round
        if node.terminal:
            assert state.is_terminal() and state.is_showdown() == node.showdown
            terminal.append((node, state))
            return
        assert state.current_player() == node.player
        legal = naive.legal_actions(g, node)
        assert state.legal_actions() == [letters[a] for a in legal]
        decisions_by_round[node.round] += 1
        for a in legal:
            walk(naive.apply(g, node, a), state.clone().apply(letters[a]))

    walk(naive.root(g), State(g, seed=0))
    if name == "holdem-limit":
        assert tuple(decisions_by_round[r] for r in range(4)) == known_values.HULHE_DECISION_NODES_BY_ROUND
    if name != "holdem-limit":  # payoffs at every terminal for every deal
        for h0, h1, board in naive.deals(g):
            for node, state in terminal:
                s = play(g, list(h0 + h1 + board), node.betting)
                v = s.payoffs()
                assert v[0] == naive.payoff0(g, node, (h0, h1, board)) and v[0] + v[1] == 0


def test_hulhe_showdowns_agree_with_the_naive_evaluator():
    g = GAMES["holdem-limit"]
    rng = np.random.default_rng(11)
    for _ in range(300):
        s = State(g, seed=rng)
        play_s = play(g, s.deal, "rc/cc/cc/cc")
        h0, h1, board = s.hole_cards(0), s.hole_cards(1), s.visible_board() + list(s.deal[4:])
        v0, v1 = naive.hand_value(h0 + board[:5]), naive.hand_value(h1 + board[:5])
        expect = 20.0 if v0 > v1 else -20.0 if v1 > v0 else 0.0
        assert play_s.payoffs() == [expect, -expect]


# ------------------------------------------------------------------- property tests


def random_play(game, data, max_steps=400):
    """Play one hand with actions drawn by hypothesis; yields every state along the way."""
    s = State(game, seed=data.draw(st.integers(0, 2**32 - 1), label="seed"))
    yield s
    for _ in range(max_steps):
        if s.is_terminal():
            return
        legal = s.legal_actions()
        if legal[0] == "f" and data.draw(st.integers(0, 3), label="fold?") > 0:
            legal = legal[1:]  # fold less often, so that hands reach later rounds and all-ins
        action = data.draw(st.sampled_from(legal), label="action")
        if action.startswith("r") and not game.is_limit and data.draw(st.booleans(), label="sized"):
            lo, hi = s.raise_range()
            action = f"r{data.draw(st.integers(lo, hi), label='size')}"
        assert s.is_legal(action)
        s.apply(action)
        yield s
    raise AssertionError(f"the hand did not end after {max_steps} actions: {s!r}")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(GAMES)), data=st.data())
def test_random_play_ends_and_payoffs_balance(name, data):
    g = GAMES[name]
    n = g.num_players
    for s in random_play(g, data):
        spent = s.spent
        assert all(spent[p] <= g.stack[p] for p in range(n))
        assert s.pot == sum(spent) and s.max_spent == max(spent)
        if not s.is_terminal():
            p = s.current_player()
            assert not s.folded[p] and spent[p] < g.stack[p]
            assert ("f" in s.legal_actions()) == (spent[p] < s.max_spent)
    assert s.is_terminal() and s.current_player() == -1 and s.legal_actions() == []
    assert len(s.round_actions()) == s.round + 1
    values = s.payoffs()
    assert abs(sum(values)) < 1e-9
    for p in range(n):
        assert -values[p] <= s.spent[p] <= g.stack[p]
        assert values[p] <= sum(s.spent) - s.spent[p]
        if s.folded[p]:
            assert values[p] == -s.spent[p]
        if g.is_limit:
            assert -values[p] <= limit_max_loss(g)


def test_dealer_action_fixes_like_the_acpc_dealer():
    s = State(GAMES["holdem-nolimit"], seed=0)
    assert s.dealer_action("x") == ("c", "invalid action, changed to call")  # the dealer turns an unknown action into a call
    assert s.dealer_action("") == ("c", "bad action format in response, changed to call")
    assert s.dealer_action("r") == ("c", "bad action format in response, changed to call")
    assert s.dealer_action("f") == ("f", None) and s.dealer_action("k") == ("c", None)
    assert s.dealer_action("b1") == ("r200", "raise of 1 increased to 200")
    assert s.dealer_action("r999999") == ("r20000", "raise of 999999 decreased to 20000")
    assert s.dealer_action("R500\r\n") == ("r500", None)
    leduc = State(GAMES["leduc"], seed=0)
    assert leduc.dealer_action("f") == ("c", "invalid action, changed to call")
    assert leduc.dealer_action("r5") == ("r", None)
    leduc.apply("r").apply("r")
    assert leduc.dealer_action("B") == ("c", "invalid action, changed to call")
    with pytest.raises(CfrlabError, match="hand is over"):
        leduc.apply("f").dealer_action("c")
    with pytest.raises(CfrlabError, match="hand number"):
        State(GAMES["leduc"], hand_number=-1)
