"""Hands, boards and suit symmetry of a real (unabstracted) limit game.

Cards are deck-local ids ``local_rank * num_suits + local_suit`` (``cfrlab.cards.DeckMap``);
``to_global`` turns them into ACPC ids. A *hand* is one player's hole cards: every
``num_hole_cards``-subset of the deck in lexicographic order (1,326 in full hold'em).

Suit symmetry: a suit permutation sigma maps local card ``c`` to
``(c // S) * S + sigma[c % S]``. ``first_round_units`` groups the first board (the flop)
into classes under suit permutation, each with the permutations that carry its
representative onto the other boards of its class (one per distinct board), and
``hand_permutation`` says where each hand goes under one of them. Below the first board,
``next_board_orbits`` groups the next round's cards under the permutations that fix the
board so far (``last_round_boards`` counts what a unit then walks). Both read
``cfrlab.cards.isomorphism.board_orbits``, the classes every board walk uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from cfrlab.cards import isomorphism as iso
from cfrlab.cards.isomorphism import DeckMap, permute_cards
from cfrlab.errors import CfrlabError


@dataclass(frozen=True)
class Deck:
    """The deck and the hands of a game (local ids)."""

    num_ranks: int
    num_suits: int
    num_hole: int
    to_global: np.ndarray  # int64[D]
    hands: np.ndarray  # int64[H, h] local cards of every hand, lexicographic
    hand_of: dict  # tuple(sorted local cards) -> hand index

    @property
    def size(self) -> int:
        return len(self.to_global)

    @property
    def num_hands(self) -> int:
        return len(self.hands)

    def valid(self, board) -> np.ndarray:
        """bool[H]: hands that share no card with ``board`` (local ids)."""
        b = np.zeros(self.size, dtype=bool)
        b[np.asarray(board, dtype=np.int64)] = True
        return ~b[self.hands].any(axis=1)


def make_deck(game) -> Deck:
    h = game.num_hole_cards
    if h not in (1, 2):
        raise CfrlabError(f"the real-game best response handles 1 or 2 hole cards, not {h}")
    dm = DeckMap(game.num_ranks, game.num_suits)
    D = dm.size
    hands = np.array(list(combinations(range(D), h)), dtype=np.int64).reshape(-1, h)
    hand_of = {tuple(int(c) for c in row): i for i, row in enumerate(hands)}
    return Deck(game.num_ranks, game.num_suits, h, dm.to_global.copy(), hands, hand_of)


def suit_permutations(num_suits: int) -> list[tuple[int, ...]]:
    """Every permutation of the suits, identity first, as tuples (``cards.isomorphism``)."""
    return [tuple(int(x) for x in sg) for sg in iso.suit_permutations(num_suits)]


def hand_permutation(deck: Deck, sigma) -> np.ndarray:
    """int64[H]: the index of the image of each hand under suit permutation ``sigma``."""
    img = np.sort(permute_cards(deck.hands, sigma, deck.num_suits), axis=1)
    return np.array([deck.hand_of[tuple(int(c) for c in row)] for row in img], dtype=np.int64)


@dataclass(frozen=True)
class Unit:
    """One independent piece of work: a first-round board (local ids, sorted) and the suit
    permutations carrying it onto each distinct board it stands for (identity first)."""

    index: int
    board: tuple[int, ...]
    perms: tuple[tuple[int, ...], ...]

    @property
    def weight(self) -> int:
        return len(self.perms)


def first_round_units(game, deck: Deck, symmetric: bool) -> list[Unit]:
    """The units of a game of two or more rounds: one per board of round 1 (the flop) when
    the strategy is not known to be suit-symmetric, else one per class of flops under suit
    permutation (1,755 in full hold'em), in lexicographic order of their representatives."""
    if game.num_rounds < 2:
        return []
    k = game.num_board_cards[1]
    S = deck.num_suits
    units = []
    for i, (rep, perms) in enumerate(next_board_orbits(deck, [], k, symmetric)):
        # identity first, then by image: the order the unit's values are summed in
        rest = sorted(perms[1:], key=lambda sg: sorted(permute_cards(rep, sg, S).tolist()))
        units.append(Unit(i, rep, (perms[0], *rest)))
    assert sum(u.weight for u in units) == comb(deck.size, k)
    return units


def next_board_orbits(deck: Deck, rounds: list[tuple[int, ...]], k: int,
                      symmetric: bool) -> list[tuple[tuple[int, ...], list[tuple[int, ...]]]]:
    """The next round's ``k`` new board cards, grouped under the suit permutations that fix
    every earlier round's cards (``rounds``: each round's board cards; ``cards.isomorphism.
    board_orbits``): (representative, the permutations carrying it onto each distinct image,
    identity first). Not symmetric: every draw alone. A flop of three ranks in three suits is
    fixed by the identity only; a monotone flop by the 6 orders of the other three suits."""
    S = deck.num_suits
    perms = iso.suit_permutations(S) if symmetric else np.arange(S, dtype=np.int64)[None]
    return [(rep, [tuple(int(x) for x in perms[i]) for i in idx])
            for rep, idx in iso.board_orbits(rounds, k, deck.size, S, perms)]


def last_round_boards(game, deck: Deck, unit: Unit, symmetric: bool) -> int:
    """How many last-round boards the walk of ``unit`` visits (its cost, nearly: in hold'em
    the river holds almost all the work). 2,352 for a flop with no suit symmetry, 675 for
    a monotone one; 2,554,656 over the 1,755 units of full hold'em, against 4,127,760
    boards without the later rounds' symmetry."""
    R = game.num_rounds
    counts = list(game.num_board_cards)

    def walk(r: int, rounds: list[tuple[int, ...]], used: set[int]) -> int:
        if r == R - 1:
            return 1
        total = 0
        for new, _ in next_board_orbits(deck, rounds, counts[r + 1], symmetric):
            total += walk(r + 1, rounds + [new], used | set(new))
        return total

    return walk(1, [unit.board], set(unit.board))
