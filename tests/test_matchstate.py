"""ACPC match-state and log lines: the ACPC protocol document's example lines, malformed lines, and
round trips from every seat at every step of random hands."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_state import GAMES, random_play

from cfrlab.cards import parse_cards
from cfrlab.errors import ParseError
from cfrlab.games import parse_log_line, parse_match_state
from cfrlab.games.matchstate import seat_view

LIMIT_TRACE = [  # (line, is it this seat's turn, legal actions)
    ("MATCHSTATE:0:0::5d5c|", False, ["f", "c", "r"]),
    ("MATCHSTATE:0:0:r:5d5c|", True, ["f", "c", "r"]),
    ("MATCHSTATE:0:0:rc/:5d5c|/8dAs8s", True, ["c", "r"]),
    ("MATCHSTATE:0:0:rc/c:5d5c|/8dAs8s", False, ["c", "r"]),
    ("MATCHSTATE:0:0:rc/cr:5d5c|/8dAs8s", True, ["f", "c", "r"]),
    ("MATCHSTATE:0:0:rc/crr:5d5c|/8dAs8s", False, ["f", "c", "r"]),
    ("MATCHSTATE:0:0:rc/crrc/:5d5c|/8dAs8s/4h", True, ["c", "r"]),
    ("MATCHSTATE:0:0:rc/crrc/rc/crc:5d5c|9hQd/8dAs8s/4h/6d", False, []),
    ("MATCHSTATE:1:1::|5dJd", True, ["f", "c", "r"]),
]
NOLIMIT_TRACE = [  # (state the client answered, its action) and states the dealer sent
    ("MATCHSTATE:0:0:cc/cc/:8dJd|/As9d6s/3d", "r4063"),
    ("MATCHSTATE:0:0:cc/cc/r4063c/:8dJd|/As9d6s/3d/6c", "r16630"),
    ("MATCHSTATE:1:0:cc/cc/r4063c/r16630:|Td4d/As9d6s/3d/6c", "f"),
    ("MATCHSTATE:1:2:cr12639:|9s6d", "r20000"),
]
NOLIMIT_SENT = [
    "MATCHSTATE:1:0:cc/cc/r4063c/r16630f:|Td4d/As9d6s/3d/6c",
    "MATCHSTATE:0:2:cr12639r20000c///:8d9h|9s6d/TsQh8c/Ah/4d",
]
LEDUC_TRACE = [
    "MATCHSTATE:0:0::Ks|",
    "MATCHSTATE:0:0:r:Ks|",
    "MATCHSTATE:0:0:rc/:Ks|/Kh",
    "MATCHSTATE:0:0:rc/r:Ks|/Kh",
    "MATCHSTATE:0:0:rc/rc:Ks|Qs/Kh",
]


def test_captured_limit_lines():
    g = GAMES["holdem-limit"]
    for line, my_turn, legal in LIMIT_TRACE:
        m = parse_match_state(g, line + "\r\n")
        assert m.to_string() == line and str(m) == line
        assert m.is_my_turn() == my_turn and m.legal_actions() == legal
    m = parse_match_state(g, LIMIT_TRACE[1][0])
    assert m.response("c") == "MATCHSTATE:0:0:r:5d5c|:c"
    assert m.position == 0 and m.hand_number == 0 and m.round == 0 and m.current_player() == 0
    assert m.hole == [parse_cards("5d5c"), None] and m.board == [[]] and m.my_cards == parse_cards("5d5c")
    assert m.spent == (10, 20) and m.pot == 30
    m = parse_match_state(g, LIMIT_TRACE[4][0])
    assert m.betting == [["r", "c"], ["c", "r"]] and m.board == [[], parse_cards("8dAs8s")]
    assert m.visible_board() == parse_cards("8dAs8s")
    end = parse_match_state(g, LIMIT_TRACE[7][0])
    assert end.is_terminal() and end.current_player() == -1 and end.round == 3
    assert end.state().payoffs() == [80.0, -80.0]  # two pair beats a pair of eights; 80 each in the pot
    assert parse_match_state(g, "MATCHSTATE:1:1::|5dJd").current_player() == 1


def test_captured_nolimit_lines():
    g = GAMES["holdem-nolimit"]
    for line, action in NOLIMIT_TRACE:
        m = parse_match_state(g, line)
        assert m.to_string() == line and m.is_my_turn() and m.is_legal(action)
        assert m.response(action) == f"{line}:{action}"
        s = m.state().apply(action)  # what the dealer sends next starts the same way
        assert s.betting_string().startswith(m.betting_string())
    assert parse_match_state(g, NOLIMIT_TRACE[0][0]).raise_range() == (200, 20000)
    assert parse_match_state(g, NOLIMIT_TRACE[3][0]).legal_actions() == ["f", "c", "r20000"]
    for line in NOLIMIT_SENT:
        m = parse_match_state(g, line)
        assert m.to_string() == line and m.is_terminal()
    assert parse_match_state(g, NOLIMIT_SENT[0]).hole[0] is None  # a fold shows nothing
    assert parse_match_state(g, NOLIMIT_SENT[1]).state().payoffs() == [20000.0, -20000.0]
    for line in [
        "STATE:0:cc/cc/r4063c/r16630f:8dJd|Td4d/As9d6s/3d/6c:4063|-4063:PyRand|Ex",
        "STATE:2:cr12639r20000c///:8d9h|9s6d/TsQh8c/Ah/4d:20000|-20000:PyRand|Ex",
    ]:
        log = parse_log_line(g, line)
        assert log.to_string() == line and log.state().payoffs() == log.values
        assert log.names == ["PyRand", "Ex"] and log.state().log_line(log.names) == line


def test_captured_leduc_and_kuhn_lines():
    g = GAMES["leduc"]
    for line in LEDUC_TRACE:
        assert parse_match_state(g, line).to_string() == line
    assert parse_match_state(g, LEDUC_TRACE[0]).legal_actions() == ["c", "r"]
    assert parse_match_state(g, LEDUC_TRACE[-1]).state().payoffs() == [7.0, -7.0]
    for line in ["STATE:0:rc/rc:Ks|Qs/Kh:7|-7:PyRand|Ex", "STATE:3:cc/rc:Kh|Ks/Qs:0|0:Ex|PyRand"]:
        log = parse_log_line(g, line)
        assert log.to_string() == line and log.state().payoffs() == log.values
        assert log.hand_number == int(line.split(":")[1])
    log = parse_log_line(GAMES["kuhn"], "STATE:0:rc:Ks|Qs:2|-2:PyRand|Ex")
    assert log.hole == [parse_cards("Ks"), parse_cards("Qs")] and log.state().payoffs() == [2.0, -2.0]


def test_card_letters_in_any_case_are_read():
    g = GAMES["leduc"]
    assert parse_match_state(g, "MATCHSTATE:0:0:rc/:kS|/kh").to_string() == "MATCHSTATE:0:0:rc/:Ks|/Kh"


@pytest.mark.parametrize(
    "game, line, message",
    [
        ("leduc", "MATCHSTAT:0:0::Ks|", "must start with"),
        ("leduc", "STATE:0:0::Ks|", "must start with"),
        ("leduc", "MATCHSTATE:2:0::Ks|", "position 2"),
        ("leduc", "MATCHSTATE:x:0::Ks|", "bad position"),
        ("leduc", "MATCHSTATE:0:-1::Ks|", "bad hand number"),
        ("leduc", "MATCHSTATE:0:0::Xx|", "bad cards"),
        ("leduc", "MATCHSTATE:0:0:f:Ks|", "illegal action 'f'"),
        ("leduc", "MATCHSTATE:0:0:rrr:Ks|", "illegal action 'r' after 'rr'"),
        ("leduc", "MATCHSTATE:0:0:r10:Ks|", "illegal action 'r10'"),
        ("leduc", "MATCHSTATE:0:0:x:Ks|", "'x' is not an action"),
        ("leduc", "MATCHSTATE:0:0:r:Ks|:c", "5 ':'-separated fields"),
        ("leduc", "MATCHSTATE:0:0:r", "5 ':'-separated fields"),
        ("leduc", "MATCHSTATE:0:0::Ks", "2 hole-card fields"),
        ("leduc", "MATCHSTATE:0:0::KsQs|", "shows 2 hole card"),
        ("leduc", "MATCHSTATE:0:0::|Ks", "own cards"),
        ("leduc", "MATCHSTATE:0:0:r:Ks|Qs", "only show at a showdown"),
        ("leduc", "MATCHSTATE:0:0:rf:Ks|Qs", "only show at a showdown"),
        ("leduc", "MATCHSTATE:0:0:rc/rc:Ks|/Kh", "must show"),
        ("leduc", "MATCHSTATE:0:0:rc:Ks|", "should be written 'rc/'"),
        ("leduc", "MATCHSTATE:0:0:c/:Ks|", "should be written 'c'"),
        ("leduc", "MATCHSTATE:0:0:rc/:Ks|", "reached round 1"),
        ("leduc", "MATCHSTATE:0:0::Ks|/Kh", "reached round 0"),
        ("leduc", "MATCHSTATE:0:0:rc/:Ks|/KhQh", "round 1 needs 1 board card"),
        ("leduc", "MATCHSTATE:0:0:rc/:Ks|/Ks", "appears twice"),
        ("leduc", "MATCHSTATE:0:0:rc/:2c|/Kh", "not in the game's deck"),
        ("leduc", "MATCHSTATE:0:0:rfc:Ks|", "after the end of the hand"),
        ("holdem-nolimit", "MATCHSTATE:0:0:r:8dJd|", "illegal action 'r'"),
        ("holdem-nolimit", "MATCHSTATE:0:0:r150:8dJd|", "illegal action 'r150'"),
        ("holdem-nolimit", "MATCHSTATE:0:0:r20001:8dJd|", "illegal action 'r20001'"),
        ("holdem-nolimit", "MATCHSTATE:0:0:cr150:8dJd|", "illegal action 'r150' after 'c' \\(legal: c, r200, r20000\\)"),
    ],
)
def test_malformed_lines_are_refused(game, line, message):
    with pytest.raises(ParseError, match=message) as info:
        parse_match_state(GAMES[game], line)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "line, message",
    [
        ("MATCHSTATE:0:0:rc/rc:Ks|Qs/Kh", "must start with 'STATE:'"),
        ("STATE:0:rc/rc:Ks|Qs/Kh:7|-7", "6 ':'-separated fields"),
        ("STATE:0:rc/r:Ks|Qs/Kh:7|-7:a|b", "must be finished"),
        ("STATE:0:rc/rc:Ks|/Kh:7|-7:a|b", "every player's hole cards"),
        ("STATE:0:rc/rc:Ks|Qs/Kh:7|x:a|b", "bad values"),
        ("STATE:0:rc/rc:Ks|Qs/Kh:7:a|b", "2 values and 2 names"),
        ("STATE:0:rc/rc:Ks|Qs/Kh:7|-7:a", "2 values and 2 names"),
    ],
)
def test_malformed_log_lines_are_refused(line, message):
    with pytest.raises(ParseError, match=message):
        parse_log_line(GAMES["leduc"], line)


def test_parsed_state_has_unknown_cards_and_still_plays():
    g = GAMES["holdem-limit"]
    m = parse_match_state(g, "MATCHSTATE:0:0:rc/c:5d5c|/8dAs8s")
    s = m.state()
    assert s.hole_cards(1) == [-1, -1] and s.board_cards(2) == [-1]
    s.apply("c")  # the turn card is unknown, betting goes on
    assert s.betting_string() == "rc/cc/" and s.current_player() == 0
    assert m.betting_string() == "rc/c"  # state() is a copy
    s.apply("r").apply("f")
    assert s.payoffs() == [20.0, -20.0]  # a fold needs no cards
    t = m.state().apply("c").apply("c").apply("c").apply("c").apply("c")
    with pytest.raises(Exception, match="unknown"):
        t.payoffs()


def _check_seat_views(g, s):
    """Every seat's match-state line round-trips and its parse agrees with the real state."""
    for p in range(g.num_players):
        line = s.match_state(p)
        m = parse_match_state(g, line)
        assert m.to_string() == line
        assert m.position == p and m.hand_number == s.hand_number and m.round == s.round
        assert m.current_player() == s.current_player() and m.is_my_turn() == (s.current_player() == p)
        assert m.is_terminal() == s.is_terminal()
        assert m.legal_actions() == s.legal_actions() and m.raise_range() == s.raise_range()
        assert m.hole[p] == s.hole_cards(p) and m.visible_board() == s.visible_board()
        t = m.state()
        assert t.spent == s.spent and t.folded == s.folded and t.history == s.history
        v = seat_view(s, p)  # the same view without the text round trip
        assert v == m and v.to_string() == line and v.state().deal == t.deal
        assert v.legal_actions() == m.legal_actions() and v.is_my_turn() == m.is_my_turn()
        if s.is_terminal() and not (s.folded[p] and s.is_showdown()):
            assert t.payoffs() == s.payoffs()  # the viewer sees every card the result needs


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(GAMES)), hand_number=st.integers(0, 10**6), data=st.data())
def test_every_seat_round_trips_at_every_step(name, hand_number, data):
    g = GAMES[name]
    for s in random_play(g, data):
        s.hand_number = hand_number
        _check_seat_views(g, s)
    names = [f"p{i}" for i in range(g.num_players)]
    line = s.log_line(names)
    log = parse_log_line(g, line)
    assert log.to_string() == line and log.names == names and log.hand_number == hand_number
    assert log.state().payoffs() == s.payoffs()
    assert log.values == [float(v) for v in line.split(":")[4].split("|")]


# -- fuzzing the parsers: malformed text is one ParseError, never another exception --------

_ALPHABET = "MATCHSTE:0123456789|/frcxAKQJT98765432shdc[] \r-"


def _mutations():
    """Edits of a valid line: replace, insert or delete one character, or cut the line."""
    edit = st.tuples(st.sampled_from(["replace", "insert", "delete", "cut"]), st.integers(0, 10**6),
                     st.sampled_from(_ALPHABET))
    return st.lists(edit, min_size=1, max_size=4)


def _mutate(line, edits):
    for kind, at, ch in edits:
        i = at % (len(line) + 1)
        if kind == "replace" and line:
            i %= len(line)
            line = line[:i] + ch + line[i + 1:]
        elif kind == "insert":
            line = line[:i] + ch + line[i:]
        elif kind == "delete" and line:
            i %= len(line)
            line = line[:i] + line[i + 1:]
        elif kind == "cut":
            line = line[:i]
    return line


def _parses_cleanly(parse, game, text):
    """``parse(game, text)`` either raises ParseError (one line) or gives a record whose text
    parses back to itself."""
    try:
        rec = parse(game, text)
    except ParseError as e:
        assert "\n" not in str(e)
        return None
    again = parse(game, rec.to_string())
    assert again.to_string() == rec.to_string()
    return rec


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(GAMES)), data=st.data(), edits=_mutations())
def test_mutated_match_state_and_log_lines_never_break_the_parsers(name, data, edits):
    g = GAMES[name]
    states = list(random_play(g, data))
    s = states[data.draw(st.integers(0, len(states) - 1), label="step")]
    line = s.match_state(data.draw(st.integers(0, g.num_players - 1), label="seat"))
    bad = _mutate(line, edits)
    rec = _parses_cleanly(parse_match_state, g, bad)
    if rec is not None and bad.lower() == line.lower():
        assert rec.to_string() == line
    log = states[-1].log_line([f"p{i}" for i in range(g.num_players)])
    _parses_cleanly(parse_log_line, g, _mutate(log, edits))


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(["kuhn", "leduc", "holdem-limit", "holdem-nolimit"]),
       text=st.one_of(st.text(max_size=80), st.text(alphabet=_ALPHABET, max_size=80),
                      st.text(alphabet=_ALPHABET, max_size=60).map(lambda t: "MATCHSTATE:" + t),
                      st.text(alphabet=_ALPHABET, max_size=60).map(lambda t: "STATE:" + t)))
def test_arbitrary_text_never_breaks_the_parsers(name, text):
    g = GAMES[name]
    _parses_cleanly(parse_match_state, g, text)
    _parses_cleanly(parse_log_line, g, text)


@pytest.mark.parametrize("line", [
    "MATCHSTATE:0:\u0661\u0662::Ks|",   # Arabic-Indic digits as the hand number
    "MATCHSTATE:\uff10:0::Ks|",         # a fullwidth zero as the position
    "MATCHSTATE:0:\u00b9::Ks|",          # a superscript one
])
def test_numbers_in_match_states_are_ascii_digits(line):
    # ACPC numbers are ASCII (issue 27): \d and int() would read these as 12, 0, ...
    with pytest.raises(ParseError, match="bad (hand number|position)"):
        parse_match_state(GAMES["kuhn"], line)
    with pytest.raises(ParseError):
        parse_log_line(GAMES["kuhn"], line.replace("MATCHSTATE:0:", "STATE:").replace("MATCHSTATE:\uff10:0", "STATE:0")
                       + "Qs:1|-1:a|b")
