"""The compiled log scan and the validating reader against the full ACPC log parser: same cards,
positions, betting and values on real logs (Kuhn, Leduc, a reduced hold'em); on mutated lines
the scan never reads cards differently, and the reader accepts exactly the lines the full
parser and the values check accept."""

from __future__ import annotations

import numpy as np
import pytest
from game_texts import holdem_text

import cfrlab
from cfrlab.cards.cards import deck
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game, parse_game, parse_log_line
from cfrlab.games.logscan import check_log_line, read_hands, read_log_bytes, scan_bytes


def _games():
    return {"kuhn": load_game("kuhn"), "leduc": load_game("leduc"), "holdem": parse_game(holdem_text(5, 4))}


def _expected(game, line: str, player: str):
    """(cards padded as the scan pads them, position, betting) from the full parser."""
    ll = parse_log_line(game, line)
    pos = ll.names.index(player)
    cards = [c for h in ll.hole for c in h] + [c for b in ll.board for c in b]
    full = 2 * game.num_hole_cards + game.total_board_cards()
    for c in sorted(deck(game.num_ranks, game.num_suits)):
        if len(cards) >= full:
            break
        if c not in cards:
            cards.append(c)
    return cards, pos, ll.betting_string()


def _mutate(line: str, rng, alphabet: str, most: int) -> str:
    """``line`` with 1 to most - 1 random edits (replace, delete or insert a character), drawn
    from ``rng`` in the order the tests' expectations were recorded with."""
    x = list(line)
    for _ in range(int(rng.integers(1, most))):
        i = int(rng.integers(len(x)))
        op = int(rng.integers(3))
        if op == 0:
            x[i] = alphabet[int(rng.integers(len(alphabet)))]
        elif op == 1:
            del x[i]
        else:
            x.insert(i, alphabet[int(rng.integers(len(alphabet)))])
    return "".join(x)


@pytest.mark.parametrize("name", ["kuhn", "leduc", "holdem"])
def test_the_scan_reads_what_the_parser_reads(tmp_path, name):
    game = _games()[name]
    log = tmp_path / "m.log"
    cfrlab.play_match(game, "random", "probe", 300, seed=4, log=log, names=("me", "you"))
    text = log.read_text().splitlines()
    for player in ("me", "you"):
        sc = scan_bytes(read_log_bytes(log), game, player)
        assert len(sc.line) == 300 and sc.bad.size == 0 and sc.scores.size == 1
        hands = read_hands(log, game, player)
        assert len(hands) == 300 and hands.line.tolist() == sc.line.tolist()
        for k, lineno in enumerate(sc.line.tolist()):
            cards, pos, betting = _expected(game, text[lineno - 1], player)
            assert sc.cards[k].tolist() == cards and sc.position[k] == pos and sc.bettings[k] == betting
            assert hands.cards[k].tolist() == cards and hands.position[k] == pos and hands.bettings[k] == betting
            assert hands.values[k].tolist() == parse_log_line(game, text[lineno - 1]).values
    hands = read_hands(log, game, "nobody")
    assert len(hands) == 0 and hands.other_names == {"me", "you"}


def test_mutated_lines_are_refused_or_read_as_the_parser_reads(tmp_path):
    game = _games()["leduc"]
    log = tmp_path / "m.log"
    cfrlab.play_match(game, "random", "random", 200, seed=2, log=log, names=("me", "you"))
    lines = [x for x in log.read_text().splitlines() if x.startswith("STATE:")]
    rng = np.random.default_rng(7)
    alphabet = "STAE:|/0123456789rcfKQJAshdc\r -"
    mutated = []
    for _ in range(3000):
        mutated.append(_mutate(lines[int(rng.integers(len(lines)))], rng, alphabet, 4))
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(mutated) + "\n")
    sc = scan_bytes(read_log_bytes(bad), game, "me")
    assert sc.bad.size > 100 and len(sc.line) > 100
    for k, lineno in enumerate(sc.line.tolist()):
        if sc.position[k] < 0:
            continue
        try:
            cards, pos, betting = _expected(game, mutated[lineno - 1], "me")
        except (CfrlabError, ValueError):
            continue  # the readers check the betting and hand such lines to the full parser
        assert sc.cards[k].tolist() == cards and sc.position[k] == pos and sc.bettings[k] == betting


def test_the_reader_accepts_what_the_full_check_accepts(tmp_path):
    """Each mutated line alone: refused at line 1 by the reader iff the parser and the values
    check refuse it, and read as they read it otherwise."""
    game = load_game("leduc")
    log = tmp_path / "m.log"
    cfrlab.play_match(game, "random", "random", 100, seed=5, log=log, names=("me", "you"))
    lines = [x for x in log.read_text().splitlines() if x.startswith("STATE:")]
    rng = np.random.default_rng(11)
    alphabet = "STAE:|/0123456789rcfKQJAshdc.-n"
    one = tmp_path / "one.log"
    accepted = refused = 0
    for _ in range(600):
        text = _mutate(lines[int(rng.integers(len(lines)))], rng, alphabet, 3)
        one.write_text(text + "\n")
        try:
            rec = check_log_line(game, text)
        except CfrlabError:
            rec = None
        if rec is None:
            with pytest.raises(CfrlabError, match=r"one\.log:1: "):
                read_hands(one, game, "me")
            refused += 1
            continue
        hands = read_hands(one, game, "me")
        accepted += 1
        if "me" not in rec.names:
            assert len(hands) == 0
            continue
        cards, _pos, betting = _expected(game, text, "me")
        assert hands.cards[0].tolist() == cards and hands.bettings == [betting]
        assert hands.values[0].tolist() == rec.values
    assert accepted > 20 and refused > 300


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(CfrlabError, match="cannot read the log"):
        read_hands(tmp_path / "none.log", load_game("leduc"), "me")


def test_lines_only_the_full_parser_reads_join_in_file_order(tmp_path):
    """kuhn-20 writes ranks past A as [13]s: the scan leaves those lines to the full parser,
    and the reader merges both in file order, also up to a limit."""
    game = load_game("kuhn-20")
    log = tmp_path / "m.log"
    cfrlab.play_match(game, "random", "random", 200, seed=1, log=log, names=("me", "you"))
    text = log.read_text().splitlines()
    sc = scan_bytes(read_log_bytes(log), game, "me")
    assert 20 < sc.bad.size < 180
    hands = read_hands(log, game, "me")
    assert hands.line.tolist() == [k + 1 for k, x in enumerate(text) if x.startswith("STATE:")]
    for k, lineno in enumerate(hands.line.tolist()):
        cards, pos, betting = _expected(game, text[lineno - 1], "me")
        assert hands.cards[k].tolist() == cards and hands.position[k] == pos and hands.bettings[k] == betting
    first = read_hands(log, game, "me", limit=9)
    assert first.line.tolist() == hands.line[:9].tolist()
