"""Cards: ids and text, decks of any size, the hand evaluator, hand isomorphism."""

from cfrlab.cards.cards import (  # noqa: F401
    RANKS,
    SUITS,
    card_id,
    card_rank,
    card_suit,
    card_text,
    cards_text,
    deck,
    parse_card,
    parse_cards,
)
