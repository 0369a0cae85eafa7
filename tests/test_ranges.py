"""Range notation (cfrlab.cards.ranges): every form players write, the errors, the removal of
board cards, and the writer's round trip."""

import numpy as np
import pytest

from cfrlab.agents.ranges import hands
from cfrlab.cards import parse_cards
from cfrlab.cards.ranges import (
    COMBOS,
    NUM_COMBOS,
    combo_index,
    combo_text,
    format_range,
    num_combos,
    parse_range,
    with_board,
)
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game


def classes(weights) -> set[str]:
    """The combos of a range as text, for exact comparisons."""
    return {combo_text(i) for i in np.flatnonzero(weights)}


def test_combo_order_is_the_range_policies_order():
    assert [tuple(c) for c in COMBOS.tolist()] == hands(load_game("holdem-nolimit"))
    assert NUM_COMBOS == 1326 and combo_index(51, 50) == combo_index(50, 51) == 1325


@pytest.mark.parametrize("text, count", [
    ("AA", 6), ("KQo", 12), ("AKs", 4), ("AK", 16), ("AhKh", 1), ("77+", 48), ("QQ+", 18),
    ("22-55", 24), ("55-22", 24), ("ATs+", 16), ("KTo+", 36), ("AT+", 64), ("AKo+", 12),
    ("A5s-A2s", 16), ("A2s-A5s", 16), ("T9s-65s", 20), ("65s-T9s", 20), ("AQ-AT", 48),
])
def test_every_form_counts_its_combos(text, count):
    w = parse_range(text)
    assert num_combos(w) == count and set(np.unique(w)) == {0.0, 1.0}


def test_forms_hold_the_hands_players_mean():
    assert classes(parse_range("AhKh")) == {"AhKh"}
    assert classes(parse_range("KhAh")) == {"AhKh"}
    assert {c[0] + c[2] for c in classes(parse_range("ATs+"))} == {"AT", "AJ", "AQ", "AK"}
    assert {c[0] + c[2] for c in classes(parse_range("T9s-65s"))} == {"T9", "98", "87", "76", "65"}
    assert {c[0] + c[2] for c in classes(parse_range("A5s-A2s"))} == {"A5", "A4", "A3", "A2"}
    assert {c[:1] for c in classes(parse_range("QQ+"))} == {"Q", "K", "A"}
    assert all(c[1] == c[3] for c in classes(parse_range("AKs")))
    assert all(c[1] != c[3] for c in classes(parse_range("AKo")))


def test_weights_spaces_and_later_entries():
    w = parse_range(" AA , KK:0.5,AK, AKs : 0.25 ,")
    assert num_combos(w) == 6 + 3 + 12 + 1
    assert w[combo_index(*parse_cards("AhKh"))] == 0.25
    assert w[combo_index(*parse_cards("AhKd"))] == 1.0
    assert w[combo_index(*parse_cards("KhKd"))] == 0.5


def test_gtoplus_weights_read_as_percentages():
    """GTO+'s forms: a weight above 1 is a percentage, and [w]...[/w] weights every entry
    inside (an entry's own weight wins)."""
    same = [("AA:50", "AA:0.5"), ("AA:100", "AA"), ("[50]AA,KK[/50], QQ", "AA:0.5, KK:0.5, QQ"),
            ("[25.5] AKs, AQs:0.1 [/25.5]", "AKs:0.255, AQs:0.1"), ("[50]AA[/50],[50]KK[/50]", "AA:0.5,KK:0.5")]
    for a, b in same:
        assert np.array_equal(parse_range(a), parse_range(b)), a
    w = parse_range("[75]QQ+[/75], JJ:40")
    assert w[combo_index(*parse_cards("AhAd"))] == 0.75 and w[combo_index(*parse_cards("JhJd"))] == 0.4


@pytest.mark.parametrize("text, words", [
    ("AKx", "'AKx' is not a hand"), ("KK:150", "percentage, at most 100"), ("[50]AA", "not closed"), ("[50]AA[/40]", "not closed"), ("KK:-0.5", "above 0"),
    ("KK:0", "above 0"), ("KK:abc", "above 0"), ("AAs", "a pair has no suited"),
    ("ZZ", "not a hand"), ("AhKz", "not a hand"), ("1Ks", "not a hand"), ("AhAh", "two different"),
    ("A5s-K2s", "keeps either the high card"), ("22-A2s", "one kind"), ("AKs-AQo", "one kind"),
    ("", "empty"), (" , ", "empty"),
])
def test_malformed_ranges_are_one_line_errors(text, words):
    with pytest.raises(CfrlabError, match=words) as e:
        parse_range(text)
    assert "\n" not in str(e.value)


def test_a_range_loses_the_combos_that_meet_the_board():
    w = parse_range("AA, KK:0.5, QQ, AKs")
    board = parse_cards("Qs Jh 2h")
    out, lost = with_board(w, board)
    assert lost == 3 + 0 + 0  # QsQx three combos; no A, K on this board
    assert num_combos(out) == 6 + 3 + 3 + 4 and num_combos(w) == 19  # the input is unchanged
    out, lost = with_board(w, parse_cards("As Kh 2c"))
    # AA loses 3, KK 3 (at 0.5), AKs loses AsKs and AhKh
    assert lost == 3 + 3 + 2 and num_combos(out) == 3 + 1.5 + 6 + 2


def test_format_writes_compact_text():
    assert format_range(parse_range("AA, KK, QQ, 55:0.5, 44:0.5")) == "QQ+, 55-44:0.5"
    assert format_range(parse_range("AK, AQs, AJs, ATs")) == "AK, AQs-ATs"
    assert format_range(parse_range("AKs, AQs, AJs, ATs, KQo")) == "ATs+, KQo"
    assert format_range(parse_range("AhKh:0.5")) == "AhKh:0.5"
    assert format_range(np.zeros(NUM_COMBOS)) == ""


@pytest.mark.parametrize("seed", range(20))
def test_format_round_trips_random_ranges(seed):
    rng = np.random.default_rng(seed)
    w = parse_range("AA")  # start from whole classes, then break some apart combo by combo
    for _ in range(rng.integers(1, 40)):
        high, low = sorted(rng.choice(13, 2, replace=True))[::-1]
        kind = "" if high == low else rng.choice(["", "s", "o"])
        text = "23456789TJQKA"[high] + "23456789TJQKA"[low] + kind
        w = np.maximum(w, parse_range(f"{text}:{rng.choice([0.25, 0.5, 1.0, 0.1 + rng.random() * 0.9])}"))
    w[rng.choice(NUM_COMBOS, 30)] = rng.random(30).round(3) + 0.001
    w[rng.choice(NUM_COMBOS, 30)] = 0.0
    if not w.any():
        w[0] = 1.0
    assert np.array_equal(parse_range(format_range(w)), w)
