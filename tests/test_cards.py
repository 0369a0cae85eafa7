import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfrlab.cards import card_id, card_text, cards_text, deck, parse_card, parse_cards
from cfrlab.errors import ParseError


def test_ids_follow_acpc_convention():
    assert parse_card("2c") == 0
    assert parse_card("2s") == 3
    assert parse_card("As") == 51
    assert parse_card("Td") == card_id(8, 1)
    assert card_text(51) == "As"
    assert parse_card("aS") == 51  # rank and suit letters in any case


def test_small_decks_are_top_ranks_last_suits():
    assert cards_text(deck(3, 2)) == "QhQsKhKsAhAs"  # Leduc
    assert cards_text(deck(3, 1)) == "QsKsAs"  # Kuhn
    assert cards_text(deck(4, 1)) == "JsQsKsAs"  # 3-player Kuhn
    assert len(deck()) == 52 and sorted(deck()) == list(range(52))


def test_extended_ranks_round_trip():
    d = deck(100, 1)
    assert len(d) == 100
    assert [parse_card(card_text(c)) for c in d] == d
    assert card_text(d[57]).startswith("[57]")


@pytest.mark.parametrize("bad", ["Xx", "1s", "A", "Asd", "", "Ax"])
def test_bad_cards_say_so(bad):
    with pytest.raises(ParseError, match="not a card"):
        parse_card(bad)


def test_parse_cards_runs():
    assert parse_cards("AsKd") == [51, card_id(11, 1)]
    assert parse_cards("As Kd, 2c") == [51, card_id(11, 1), 0]
    with pytest.raises(ParseError):
        parse_cards("AsK")


@given(st.lists(st.integers(0, 51), max_size=7))
def test_text_round_trip(cards):
    assert parse_cards(cards_text(cards)) == cards
