"""Card ids and text (ACPC convention) and decks of any rank/suit count.

A card id is ``rank * 4 + suit`` with ranks ``23456789TJQKA`` (rank 0 = deuce) and suits
``cdhs``. A small deck is the top ``num_ranks`` ranks and the last ``num_suits`` suits, as the
ACPC dealer deals it. Decks with more than 13 ranks (cfrlab's ``kuhn-N`` extension) use ranks
``0 .. num_ranks-1``; ranks past the ace are written ``[r]`` followed by the suit, e.g. ``[57]s``.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable

from cfrlab.errors import ParseError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NUM_SUITS = 4

_EXT_RE = re.compile(r"\[(\d+)\]([cdhsCDHS])")


def card_id(rank: int, suit: int) -> int:
    return rank * NUM_SUITS + suit


def card_rank(card: int) -> int:
    return card // NUM_SUITS


def card_suit(card: int) -> int:
    return card % NUM_SUITS


def card_text(card: int) -> str:
    r, s = divmod(int(card), NUM_SUITS)
    if r < 0:
        raise ValueError(f"{card} is not a card id")
    rank = RANKS[r] if r < len(RANKS) else f"[{r}]"
    return rank + SUITS[s]


def cards_text(cards: Iterable[int]) -> str:
    return "".join(card_text(c) for c in cards)


def parse_card(text: str) -> int:
    """Parse one card such as ``As`` or ``td`` (rank letter in any case, suit in any case)."""
    t = text.strip()
    m = _EXT_RE.fullmatch(t)
    if m:
        return card_id(int(m.group(1)), SUITS.index(m.group(2).lower()))
    if len(t) != 2 or t[0].upper() not in RANKS or t[1].lower() not in SUITS:
        raise ParseError(f"{text!r} is not a card (expected a rank from {RANKS} and a suit from {SUITS}, e.g. 'As')")
    return card_id(RANKS.index(t[0].upper()), SUITS.index(t[1].lower()))


def parse_cards(text: str) -> list[int]:
    """Parse a run of cards such as ``AsKd`` or ``As Kd`` (spaces and commas allowed)."""
    t = re.sub(r"[\s,]+", "", text)
    out: list[int] = []
    i = 0
    while i < len(t):
        if t[i] == "[":
            j = t.find("]", i)
            if j < 0 or j + 1 >= len(t):
                raise ParseError(f"{text!r}: unterminated card {t[i:]!r}")
            out.append(parse_card(t[i : j + 2]))
            i = j + 2
        else:
            if i + 2 > len(t):
                raise ParseError(f"{text!r}: {t[i:]!r} is not a card")
            out.append(parse_card(t[i : i + 2]))
            i += 2
    return out


def deck_ranks(num_ranks: int) -> list[int]:
    """Rank ids used by a deck of `num_ranks` ranks (the top ones when <= 13)."""
    if num_ranks < 1:
        raise ValueError("a deck needs at least one rank")
    if num_ranks <= len(RANKS):
        return list(range(len(RANKS) - num_ranks, len(RANKS)))
    return list(range(num_ranks))


def deck_suits(num_suits: int) -> list[int]:
    if not 1 <= num_suits <= NUM_SUITS:
        raise ValueError("a deck has 1 to 4 suits")
    return list(range(NUM_SUITS - num_suits, NUM_SUITS))


def deck(num_ranks: int = 13, num_suits: int = 4) -> list[int]:
    """Card ids of a deck in ascending id order (Leduc: Qh Qs Kh Ks Ah As)."""
    suits = deck_suits(num_suits)
    return [card_id(r, s) for r in deck_ranks(num_ranks) for s in suits]


# -- short hands ----------------------------------------------------------------------------
# Hands of one to four cards (Kuhn, Leduc, small test decks) rank without the seven-card
# evaluator's tables: with fewer than five cards there is no straight or flush, only rank
# categories. Values are on the evaluator's scale (cfrlab.cards.evaluator), so the two agree.

_CATEGORY_SHIFT = 20


def _pack(category: int, kicks: list[int]) -> int:
    k = (kicks + [0, 0, 0, 0, 0])[:5]
    return (category << _CATEGORY_SHIFT) | (k[0] << 16) | (k[1] << 12) | (k[2] << 8) | (k[3] << 4) | k[4]


def rank_short(cards: Iterable[int]) -> int:
    """Rank of 1..4 distinct card ids: one card is its rank; 2..4 cards rank as quads, trips,
    two pair, pair or high card with kickers (the evaluator's values, without its tables)."""
    ids = [int(c) for c in cards]
    if len(ids) == 1:
        return ids[0] >> 2
    if not 2 <= len(ids) <= 4 or len(set(ids)) != len(ids) or min(ids) < 0 or max(ids) > 51:
        raise ValueError(f"rank_short takes 1 to 4 distinct card ids 0..51, got {ids}")
    counts: dict[int, int] = {}
    for c in ids:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    # ranks by (count, rank) high to low: the made part first, then kickers high to low
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    top = groups[0][1]
    pairs = [r for r, n in groups if n == 2]
    if top == 4:
        return _pack(7, [groups[0][0]])
    if top == 3:
        return _pack(3, [groups[0][0]] + sorted((r for r, n in groups if n == 1), reverse=True))
    if len(pairs) == 2:
        return _pack(2, pairs)
    singles = sorted((r for r, n in groups if n == 1), reverse=True)
    if len(pairs) == 1:
        return _pack(1, pairs + singles)
    return _pack(0, singles)


def rank_hand(cards: Iterable[int]) -> int:
    """Rank of 1..7 distinct card ids (ACPC semantics; ``cfrlab.cards.evaluator``). Hands of
    fewer than five cards rank here; only five or more load the evaluator (its tables are
    compiled with numba on first use), so Kuhn and Leduc never build them."""
    ids = [int(c) for c in cards]
    if 1 <= len(ids) <= 4:
        return rank_short(ids)
    return importlib.import_module("cfrlab.cards.evaluator").rank_hand(ids)
