import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfrlab.errors import CfrlabError, ParseError
from cfrlab.games import BettingType, GameDef, load_game, parse_game, write_game
from cfrlab.games.builtins import HOLDEM_LIMIT, HOLDEM_NOLIMIT, LEDUC

OPENSPIEL_LEDUC = """GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 1
raiseSize = 1 1
firstPlayer = 1 1
maxRaises = 2 2
raiseSize = 2 4
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


def test_holdem_limit_fields():
    g = load_game("holdem-limit")
    assert g.betting_type is BettingType.LIMIT
    assert g.blind == (10, 5)
    assert g.raise_size == (10, 10, 20, 20)
    assert g.first_player == (1, 0, 0, 0)
    assert g.max_raises == (3, 4, 4, 4)
    assert g.num_board_cards == (0, 3, 1, 1)
    assert g.big_blind == 10


@pytest.mark.parametrize("text", [HOLDEM_LIMIT, HOLDEM_NOLIMIT])
def test_acpc_texts_round_trip_byte_exact(text):
    assert write_game(parse_game(text)) == text


def test_leduc_written_like_printgame():
    # printGame leaves out firstPlayer when every value is 1; the game is unchanged.
    out = write_game(load_game("leduc"))
    assert "firstPlayer" not in out
    assert parse_game(out) == parse_game(LEDUC)


def test_repeated_keyword_later_wins_and_equals_clean_leduc():
    assert parse_game(OPENSPIEL_LEDUC) == load_game("leduc")


def test_keywords_case_insensitive_equals_optional_comments_ignored():
    text = "# comment\nGAMEDEF\nLIMIT\nnumplayers 2\nNUMROUNDS=1\nblind=1 1\nraisesize 1\nmaxRaises 1\n" \
           "numSuits = 1\nnumRanks = 3\nnumHoleCards = 1\nnumBoardCards = 0\n\n  \t\nEND GAMEDEF\nafter the end\n"
    assert parse_game(text) == load_game("kuhn")


def test_firstplayer_all_ones_is_left_out_when_written():
    g = load_game("kuhn-3p")
    assert "firstPlayer" not in write_game(g)
    assert parse_game(write_game(g)) == g


def test_kuhn_n_builtins():
    assert load_game("kuhn-100").num_ranks == 100
    assert load_game("kuhn-5").deck_size == 5
    assert load_game("kuhn").num_deals == 6
    assert load_game("leduc").num_deals == 6 * 5 * 4


@pytest.mark.parametrize(
    "text, message",
    [
        ("GAMEDEF\nlimit\nnumRounds = 1\n", "numPlayers"),
        ("GAMEDEF\nlimit\nnumPlayers = x\n", "integers"),
        (HOLDEM_LIMIT.replace("raiseSize = 10 10 20 20\n", ""), "raiseSize"),
        (HOLDEM_LIMIT.replace("numRanks = 13", "numRanks = 1"), "deck"),
        (HOLDEM_LIMIT.replace("numPlayers = 2", "numPlayers = 11"), "numPlayers"),
        (HOLDEM_NOLIMIT.replace("stack = 20000 20000", "stack = 20 20"), "blind"),
        (HOLDEM_NOLIMIT.replace("stack = 20000 20000", "stack = 20000 2147483648"), "at most 2147483647"),
        (HOLDEM_LIMIT.replace("maxRaises = 3 4 4 4", "maxRaises = 3 4 4 256"), "maxRaises values must be 0..255"),
        (HOLDEM_LIMIT.replace("firstPlayer = 2 1 1 1", "firstPlayer = 2 1"), "firstPlayer needs one value per round"),
        (LEDUC.replace("numRanks = 3", "numRanks = 20"), "only for one-card hands"),
        (HOLDEM_LIMIT.replace("numHoleCards = 2", "numHoleCards = 3"), "at most 7 cards"),
    ],
)
def test_malformed_games_get_clear_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_game(text)


def test_unknown_game_name():
    with pytest.raises(CfrlabError, match="unknown game"):
        load_game("texas-holdem-9000")


def test_load_from_file(tmp_path):
    p = tmp_path / "my.game"
    p.write_text(LEDUC)
    assert load_game(str(p)) == load_game("leduc")


@given(
    nolimit=st.booleans(),
    players=st.integers(2, 4),
    rounds=st.integers(1, 4),
    ranks=st.integers(6, 13),
    suits=st.integers(2, 4),
    data=st.data(),
)
def test_write_parse_round_trip(nolimit, players, rounds, ranks, suits, data):
    ints = st.integers(1, 50)
    blind = tuple(data.draw(st.integers(0, 10)) for _ in range(players))
    g = GameDef(
        betting_type=BettingType.NOLIMIT if nolimit else BettingType.LIMIT,
        num_players=players,
        num_rounds=rounds,
        blind=blind,
        raise_size=() if nolimit else tuple(data.draw(ints) for _ in range(rounds)),
        first_player=tuple(data.draw(st.integers(0, players - 1)) for _ in range(rounds)),
        max_raises=tuple(data.draw(st.integers(1, 255)) for _ in range(rounds)),
        num_suits=suits,
        num_ranks=ranks,
        num_hole_cards=1,
        num_board_cards=(0,) + (1,) * (rounds - 1),
        stack=tuple(data.draw(st.integers(100, 1000)) for _ in range(players)) if nolimit else (),
    )
    assert parse_game(write_game(g)) == g


# -- issue 27: numbers are read as the ACPC server reads them, and bad lines are quoted short ---


@pytest.mark.parametrize("value", ["1_0", "\u0661\u0660", "\uff11\uff10", "1\u00a00", "10.0", "0x10"])
def test_game_numbers_are_ascii_digits_only(value):
    # int() takes "1_0" and other scripts' digits (readGame's sscanf reads "1_0" as 1: a different game)
    with pytest.raises(ParseError, match=r"raiseSize expects integers \(ASCII digits\)"):
        parse_game(LEDUC.replace("raiseSize = 2 4", f"raiseSize = {value} 4"))


def test_signed_and_tab_separated_numbers_still_read_as_sscanf_does():
    g = parse_game(LEDUC.replace("raiseSize = 2 4", "raiseSize =\t+2\t4"))
    assert g == load_game("leduc")


def test_a_huge_bad_line_is_quoted_short():
    line = "blind = 1 " + "x" * 5_000_000
    with pytest.raises(ParseError) as e:
        parse_game(LEDUC.replace("blind = 1 1", line))
    msg = str(e.value)
    assert len(msg) < 200 and msg.endswith("...") and "'blind = 1 xxxx" in msg


def test_kuhn_n_takes_ascii_digits_only():
    with pytest.raises(CfrlabError, match="unknown game"):
        load_game("kuhn-\u0663")


# -- issue 43: a line that is no keyword is refused (readGame skips it: another game), and a
# number is read only when it fits the 32 bits the ACPC server keeps it in ---------------------


def test_a_misspelt_keyword_is_refused_naming_the_nearest_one():
    # readGame skips "raiseSzie", so the game would keep an earlier raiseSize: another game
    text = LEDUC.replace("maxRaises = 2 2", "maxRaises = 2 2\nraiseSzie = 10 20")
    with pytest.raises(ParseError, match=r"line 9: unknown keyword 'raiseSzie' \(did you mean raiseSize\?\)") as e:
        parse_game(text)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("line, words", [
    ("mystery line", "unknown keyword 'mystery' (keywords: GAMEDEF, END GAMEDEF, limit, nolimit, numBoardCards"),
    ("numBoard = 0 1", "did you mean numBoardCards?"),
    ("blnd = 1 1", "did you mean blind?"),
    ("no-limit", "did you mean nolimit?"),
    ("  numRanks = 3", "a keyword starts in the first column"),
    ("; a comment in another syntax", "unknown keyword"),
])
def test_lines_that_are_no_keyword_are_refused(line, words):
    with pytest.raises(ParseError) as e:
        parse_game(LEDUC.replace("limit\n", f"limit\n{line}\n"))
    assert words in str(e.value) and str(e.value).startswith("line 3: ")


def test_what_the_acpc_format_allows_besides_keywords_still_parses():
    # ACPC.md 1.1: '#' comment lines, blank lines, GAMEDEF / END GAMEDEF, anything after the end
    text = "# a comment\n\n" + LEDUC.replace("limit\n", "limit\n#another\n\n   \n") + "trailing text\n"
    assert parse_game(text) == load_game("leduc")


def test_every_builtin_game_parses():
    from cfrlab.games.builtins import BUILTIN_TEXTS

    for name, text in BUILTIN_TEXTS.items():
        assert parse_game(text, name=name).to_text() == load_game(name).to_text()
    assert load_game("kuhn-100").num_ranks == 100


def _repo_game_texts():
    """Every GAMEDEF ... END GAMEDEF block in the repository's docs (the texts users copy)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for path in sorted((root / "docs").glob("*.md")) + [root / "README.md"]:
        if path.is_file():
            for m in re.finditer(r'(?:^|""")(GAMEDEF\n.*?^END GAMEDEF)$', path.read_text(), re.DOTALL | re.MULTILINE):
                yield f"{path.name}@{m.start()}", m.group(1)


@pytest.mark.parametrize("where, text", list(_repo_game_texts()))
def test_every_game_text_in_the_docs_parses(where, text):
    parse_game(text)


@pytest.mark.parametrize("key, value, bound", [
    ("raiseSize = 2 4", "raiseSize = 2 " + "9" * 5000, "at most 2147483647"),
    ("blind = 1 1", "blind = 1 -" + "9" * 5000, "at least -2147483648"),
    ("numRanks = 3", "numRanks = " + "1" * 5000, "at most 2147483647"),
    ("raiseSize = 2 4", "raiseSize = 2 2147483648", "at most 2147483647"),
    ("numRanks = 3", "numRanks = 4294967299", "at most 2147483647"),  # uint32 wrap would read 3
])
def test_a_number_too_big_for_its_field_is_refused_in_one_short_line(key, value, bound):
    with pytest.raises(ParseError) as e:
        parse_game(LEDUC.replace(key, value))
    msg = str(e.value)
    assert f"{value.split()[0]} values must be {bound} (32-bit integers)" in msg
    assert len(msg) < 200 and "\n" not in msg


def test_a_leading_zero_run_is_no_big_number():
    assert parse_game(LEDUC.replace("raiseSize = 2 4", "raiseSize = " + "0" * 5000 + "2 4")) == load_game("leduc")


def test_a_game_built_in_python_with_a_huge_number_is_refused_in_one_line():
    from dataclasses import replace

    g = load_game("leduc")
    for field, value in (("num_ranks", 10**5000), ("stack", (10**5000, 5)), ("blind", (-(10**5000), 1))):
        with pytest.raises(ParseError) as e:
            replace(g, **{field: value})
        assert "digits" in str(e.value) and len(str(e.value)) < 200
