"""Cards: ids and text, decks of any size, the hand evaluator, hand isomorphism.

``rank_hand``, ``hand_category`` and ``category_name`` come from ``cfrlab.cards.evaluator``,
imported on first use: the evaluator builds its tables with numba at import, and most users
of card ids and text (the rules engine, the CLI) never evaluate a hand.
"""

import importlib

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

_EVALUATOR_NAMES = ("rank_hand", "hand_category", "category_name", "CATEGORY_NAMES")


def __getattr__(name: str):
    if name in _EVALUATOR_NAMES:  # loaded on first use: its tables are built at import
        return getattr(importlib.import_module("cfrlab.cards.evaluator"), name)
    raise AttributeError(f"module 'cfrlab.cards' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_EVALUATOR_NAMES])
