"""Poker hand evaluation with ACPC semantics (higher is better, equal values tie).

Rank scale (shared by every function here and by the numba kernels)::

    rank = category << 20 | k0 << 16 | k1 << 12 | k2 << 8 | k3 << 4 | k4

``category`` is 0 high card .. 8 straight flush (``CATEGORY_NAMES``); ``k0..k4`` are the
card ranks (0 = deuce .. 12 = ace) that break ties inside the category, most significant
first (pair rank then kickers, and so on; a straight stores only its top card, 3 for the
wheel A-2-3-4-5). Hands of 5, 6 and 7 cards are on one scale: a hand's rank is the rank
of its best five cards. Hands of fewer than five cards use only the rank categories (pairs,
two pair, trips, quads, then kickers); a one-card hand (Kuhn) is just the card's rank, so
decks with more than 13 ranks work there. Ranks are comparable between hands with the same
number of cards (ACPC compares nothing else).
"""

from __future__ import annotations

from collections.abc import Sequence

CATEGORY_NAMES = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
)


def hand_category(rank: int) -> int:
    """Category of a rank value: 0 high card .. 8 straight flush."""
    return int(rank) >> 20


def _pack(category: int, kickers: Sequence[int]) -> int:
    value = category << 20
    for i, k in enumerate(kickers[:5]):
        value |= k << (16 - 4 * i)
    return value


def _best_straight(rank_set: set[int]) -> int:
    """Top rank of the best straight in `rank_set`, or -1 (the wheel's top is the five, 3)."""
    for top in range(12, 3, -1):
        if all(r in rank_set for r in range(top - 4, top + 1)):
            return top
    if {12, 0, 1, 2, 3} <= rank_set:
        return 3
    return -1


def rank_hand_reference(cards: Sequence[int]) -> int:
    """Plain-Python evaluator: the best value over every category the cards can make.

    Obviously-correct twin of the numba kernels (used by tests). Works for any number of
    standard-deck cards; a one-card hand returns the card's rank.
    """
    cards = [int(c) for c in cards]
    if len(cards) == 1:
        return cards[0] // 4
    ranks = [c // 4 for c in cards]
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        by_suit.setdefault(c % 4, []).append(c // 4)
    counts = {r: ranks.count(r) for r in set(ranks)}
    desc = sorted(counts, reverse=True)  # distinct ranks, high to low

    def others(*excluded: int) -> list[int]:
        # remaining cards' ranks, high to low, one entry per card
        return sorted((r for r in ranks if r not in excluded), reverse=True)

    candidates = [_pack(0, sorted(ranks, reverse=True))]
    pairs = [r for r in desc if counts[r] >= 2]
    trips = [r for r in desc if counts[r] >= 3]
    quads = [r for r in desc if counts[r] >= 4]
    if pairs:
        p = pairs[0]
        candidates.append(_pack(1, [p] + others(p)[:3]))
    if len(pairs) >= 2:
        p, q = pairs[0], pairs[1]
        candidates.append(_pack(2, [p, q] + others(p, q)[:1]))
    if trips:
        t = trips[0]
        candidates.append(_pack(3, [t] + others(t)[:2]))
        rest = [r for r in pairs if r != t]
        if rest:
            candidates.append(_pack(6, [t, rest[0]]))
    if quads:
        q = quads[0]
        candidates.append(_pack(7, [q] + others(q)[:1]))
    top = _best_straight(set(ranks))
    if top >= 0:
        candidates.append(_pack(4, [top]))
    for suited in by_suit.values():
        if len(suited) >= 5:
            candidates.append(_pack(5, sorted(suited, reverse=True)[:5]))
            top = _best_straight(set(suited))
            if top >= 0:
                candidates.append(_pack(8, [top]))
    return max(candidates)


def rank_hand(cards: Sequence[int]) -> int:
    """Rank of a hand of 1..7 card ids (ACPC semantics, see the module docstring)."""
    if not 1 <= len(cards) <= 7:
        raise ValueError(f"rank_hand takes 1 to 7 cards, got {len(cards)}")
    if len(set(cards)) != len(cards):
        raise ValueError(f"rank_hand: repeated card in {list(cards)}")
    if len(cards) > 1 and not all(0 <= int(c) < 52 for c in cards):
        raise ValueError(f"rank_hand: card ids must be 0..51, got {list(cards)}")
    return rank_hand_reference(cards)
