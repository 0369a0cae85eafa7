"""Seeded deals: the cards of hand ``h`` of a match with seed ``s``, as the dealer deals them.

A hand's cards depend only on ``(seed, hand_number)``, as in the ACPC dealer, so a match
replayed with the seats swapped is a duplicate match. The stream is the in-process match
engine's (``cfrlab.evaluate._match_kernels.deal_hands``), written here in plain Python so
that the network dealer, human play and the match engine deal identical cards
(tests/test_dealer.py checks the two agree). All arithmetic is mod 2**64:

    mix(x)      = splitmix64 finaliser of x + 0x9E3779B97F4A7C15
    key         = mix(mix(mix(seed) ^ (0 * 0xD1B54A32D192ED03)) ^ hand_number)   (stream 0 = deals)
    deck        = cfrlab.cards.deck(num_ranks, num_suits)         (ascending card ids)
    for j in 0 .. n_cards-1:                                     (partial Fisher-Yates)
        key += 0x9E3779B97F4A7C15;  u = (mix(key) >> 11) * 2**-53
        k = j + floor(u * (len(deck) - j));  swap deck[j], deck[k]
    deal        = deck[:n_cards]

``n_cards = num_players * num_hole_cards + total board cards``; the deal is in the ACPC
dealer's order: each position's hole cards (position 0 first), then each round's board.
"""

from __future__ import annotations

from cfrlab.cards import deck

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
STREAM_MULT = 0xD1B54A32D192ED03
STREAM_DEAL = 0
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def mix(x: int) -> int:
    """SplitMix64 step on a Python int: finaliser of ``x + golden`` (mod 2**64)."""
    z = (x + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def hand_key(seed: int, stream: int, hand_number: int) -> int:
    """Start of the random stream ``stream`` of hand ``hand_number`` (uint64 as an int)."""
    k = mix(seed & MASK64)
    k = mix(k ^ ((stream * STREAM_MULT) & MASK64))
    return mix(k ^ (hand_number & MASK64))


def cards_per_deal(game) -> int:
    return game.num_players * game.num_hole_cards + game.total_board_cards()


def deal_for_hand(game, seed: int, hand_number: int) -> list[int]:
    """The cards of hand ``hand_number`` of a match with ``seed`` (ACPC deal order)."""
    if seed < 0 or hand_number < 0:
        raise ValueError("seed and hand number must be non-negative")
    cards = deck(game.num_ranks, game.num_suits)
    size = len(cards)
    key = hand_key(seed, STREAM_DEAL, hand_number)
    n = cards_per_deal(game)
    for j in range(n):
        key = (key + GOLDEN) & MASK64
        u = (mix(key) >> 11) * _TO_UNIT
        k = j + int(u * (size - j))
        cards[j], cards[k] = cards[k], cards[j]
    return cards[:n]
