"""Cards: ids and text, decks of any size, the hand evaluator, hand isomorphism.

``hand_category``, ``category_name`` and ``rank_batch`` come from ``cfrlab.cards.evaluator``,
imported on first use: the evaluator builds its tables with numba at import, and most users
of card ids and text (the rules engine, the CLI, Kuhn and Leduc) never need them.
``rank_hand`` ranks hands of up to four cards without them (``cards.rank_short``).
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
    rank_hand,
    rank_short,
)

_EVALUATOR_NAMES = ("hand_category", "category_name", "CATEGORY_NAMES", "rank_batch")


def __getattr__(name: str):
    if name in _EVALUATOR_NAMES:  # loaded on first use: its tables are built at import
        return getattr(importlib.import_module("cfrlab.cards.evaluator"), name)
    raise AttributeError(f"module 'cfrlab.cards' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_EVALUATOR_NAMES])
