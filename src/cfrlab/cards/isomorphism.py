"""Hand isomorphism: a dense canonical index of card groups under suit permutation.

``HandIndexer(num_ranks, num_suits, groups)`` numbers the classes of hands made of card
groups (e.g. hole 2 | flop 3 | turn 1 | river 1) where two hands are equivalent when one
suit permutation maps each group of one onto the same group of the other (order inside a
group does not matter). Indices are ``0 .. size-1``; ``index`` and ``unindex`` are inverse
on canonical representatives. The algorithm follows Waugh (2013), "A Fast and Optimal Hand
Isomorphism Algorithm" (see ``_iso_kernels`` for the exact numbering); it works for any deck
of up to 13 ranks and 1..4 suits. Full deck, hold'em: 169 / 1,286,792 / 13,960,050 /
123,156,254 classes for preflop / flop / turn / river (``known_values``).

Cards: the public methods take ACPC card ids (``rank * 4 + suit``, a reduced deck being the
top ranks and last suits); methods ending in ``_local`` take deck-local ids
``local_rank * num_suits + local_suit`` (what the kernels use; ``DeckMap`` converts).
Cost (numba, one core): indexing about 0.1 us per 7-card hand in batches.
"""

from __future__ import annotations

from functools import cached_property
from itertools import permutations, product
from math import comb

import numpy as np

from cfrlab.cards import _iso_kernels as K
from cfrlab.cards.cards import NUM_SUITS, RANKS, card_id
from cfrlab.errors import CfrlabError

MAX_GROUPS = 4


class DeckMap:
    """Deck-local card ids <-> ACPC ids for a deck of the top `num_ranks` ranks and last
    `num_suits` suits. ``to_global`` int64[D]; ``to_local`` int64[52] (-1 when not in deck)."""

    def __init__(self, num_ranks: int, num_suits: int) -> None:
        if not 1 <= num_ranks <= len(RANKS) or not 1 <= num_suits <= NUM_SUITS:
            raise CfrlabError(f"card abstraction needs 1..13 ranks and 1..4 suits, "
                              f"got {num_ranks} ranks x {num_suits} suits")
        self.num_ranks, self.num_suits = num_ranks, num_suits
        r0, s0 = len(RANKS) - num_ranks, NUM_SUITS - num_suits
        self.to_global = np.array([card_id(r0 + lr, s0 + ls) for lr in range(num_ranks)
                                   for ls in range(num_suits)], dtype=np.int64)
        self.to_local = np.full(len(RANKS) * NUM_SUITS, -1, dtype=np.int64)
        self.to_local[self.to_global] = np.arange(len(self.to_global))

    @property
    def size(self) -> int:
        return len(self.to_global)

    def local(self, cards) -> np.ndarray:
        """ACPC ids (any shape) -> local ids; raises CfrlabError for a card not in the deck."""
        arr = np.asarray(cards, dtype=np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= len(self.to_local)):
            raise CfrlabError("card id out of range")
        out = self.to_local[arr]
        if arr.size and out.min() < 0:
            raise CfrlabError("a card is not in this game's deck")
        return out


def _configurations(num_ranks: int, num_suits: int, groups: tuple[int, ...]):
    """Sorted (key, codes) of every realizable configuration, codes descending per suit."""
    per_group = []
    for g in groups:
        parts = [p for p in product(range(min(g, num_ranks) + 1), repeat=num_suits) if sum(p) == g]
        per_group.append(parts)
    seen = {}
    for combo in product(*per_group):
        codes = []
        for s in range(num_suits):
            counts = [combo[j][s] for j in range(len(groups))]
            if sum(counts) > num_ranks:
                break
            codes.append(sum(c << (K.CODE_BITS * j) for j, c in enumerate(counts)))
        else:
            codes.sort(reverse=True)
            key = 0
            for a, c in enumerate(codes):
                key |= c << (K.CODE_STRIDE * (num_suits - 1 - a))
            seen[key] = tuple(codes)
    return sorted(seen.items())


def _suit_size(code: int, groups: tuple[int, ...], num_ranks: int) -> int:
    size, used = 1, 0
    for j in range(len(groups)):
        c = (code >> (K.CODE_BITS * j)) & 7
        size *= comb(num_ranks - used, c)
        used += c
    return size


class HandIndexer:
    """Canonical indexing of card groups under suit permutation (see the module docstring).

    Attributes: ``num_ranks``, ``num_suits``, ``groups`` (tuple of group sizes),
    ``num_cards`` (their sum), ``size`` (number of classes), ``deck`` (a ``DeckMap``).
    """

    def __init__(self, num_ranks: int, num_suits: int, groups) -> None:
        groups = tuple(int(g) for g in groups if int(g) > 0)
        if not 1 <= len(groups) <= MAX_GROUPS:
            raise CfrlabError(f"an indexer needs 1..{MAX_GROUPS} non-empty card groups")
        if sum(groups) > num_ranks * num_suits:
            raise CfrlabError("more cards than the deck holds")
        if any(g > 7 for g in groups):
            raise CfrlabError("a card group holds at most 7 cards")
        self.deck = DeckMap(num_ranks, num_suits)
        self.num_ranks, self.num_suits, self.groups = num_ranks, num_suits, groups
        self.num_cards = sum(groups)
        keys, codes, offsets = [], [], [0]
        for key, cfg in _configurations(num_ranks, num_suits, groups):
            size, a = 1, 0
            while a < num_suits:
                e = a
                while e < num_suits and cfg[e] == cfg[a]:
                    e += 1
                M = _suit_size(cfg[a], groups, num_ranks)
                size *= comb(M + e - a - 1, e - a)
                a = e
            if size == 0:
                continue
            keys.append(key)
            codes.append(cfg)
            offsets.append(offsets[-1] + size)
        self.size = offsets[-1]
        self._gsz = np.array(groups, dtype=np.int64)
        self._cfg_key = np.array(keys, dtype=np.int64)
        self._cfg_code = np.array(codes, dtype=np.int64).reshape(len(keys), num_suits)
        self._cfg_offset = np.array(offsets, dtype=np.int64)
        self._subsets, self._colex = K.build_subset_tables()

    def __repr__(self) -> str:
        return (f"HandIndexer({self.num_ranks} ranks x {self.num_suits} suits, "
                f"groups {list(self.groups)}, {self.size:,} classes)")

    @cached_property
    def raw_size(self) -> int:
        """Number of hands (each group a set of cards) before merging suit permutations."""
        n, left = 1, self.num_ranks * self.num_suits
        for g in self.groups:
            n *= comb(left, g)
            left -= g
        return n

    # -- kernel argument packs ------------------------------------------------------------
    @property
    def index_args(self) -> tuple:
        """(num_ranks, num_suits, gsz, cfg_key, cfg_offset, colex) for the njit kernels."""
        return (self.num_ranks, self.num_suits, self._gsz, self._cfg_key, self._cfg_offset,
                self._colex)

    @property
    def unindex_args(self) -> tuple:
        """(num_ranks, num_suits, gsz, cfg_code, cfg_offset, subsets) for the njit kernels."""
        return (self.num_ranks, self.num_suits, self._gsz, self._cfg_code, self._cfg_offset,
                self._subsets)

    # -- batches of local cards ---------------------------------------------------------
    def _rows(self, hands) -> np.ndarray:
        arr = np.ascontiguousarray(hands, dtype=np.int64)
        if arr.ndim == 1:
            arr = arr[None]
        if arr.ndim != 2 or arr.shape[1] != self.num_cards:
            raise CfrlabError(f"expected hands of {self.num_cards} cards "
                              f"(groups {list(self.groups)})")
        return arr

    def index_local(self, hands) -> np.ndarray:
        """int64[N] canonical indices of local-card hands int[N, num_cards] (groups in order)."""
        arr = self._rows(hands)
        out = np.empty(len(arr), dtype=np.int64)
        K.index_rows(arr, *self.index_args, out)
        return out

    def unindex_local(self, indices) -> np.ndarray:
        """int64[N, num_cards]: canonical representatives (local cards, each group ascending)."""
        idx = np.ascontiguousarray(np.atleast_1d(indices), dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise CfrlabError(f"index out of range 0..{self.size - 1}")
        out = np.empty((len(idx), self.num_cards), dtype=np.int64)
        K.unindex_rows(idx, *self.unindex_args, out)
        return out

    def multiplicity_local(self, hands) -> np.ndarray:
        """int64[N]: how many hands (groups as sets) each hand's class holds."""
        arr = self._rows(hands)
        out = np.empty(len(arr), dtype=np.int64)
        K.multiplicity_rows(arr, self.num_ranks, self.num_suits, self._gsz, out)
        return out

    def multiplicities(self) -> np.ndarray:
        """int64[size]: multiplicity of every class (sums to ``raw_size``)."""
        out = np.empty(self.size, dtype=np.int64)
        step = 1 << 22
        for a in range(0, self.size, step):
            idx = np.arange(a, min(a + step, self.size), dtype=np.int64)
            out[a:a + len(idx)] = self.multiplicity_local(self.unindex_local(idx))
        return out

    # -- ACPC card ids ----------------------------------------------------------------------
    def index(self, cards) -> int | np.ndarray:
        """Canonical index of ACPC cards: one hand (flat, groups in order) -> int, or a
        batch int[N, num_cards] -> int64[N]."""
        arr = np.asarray(cards, dtype=np.int64)
        local = self.deck.local(arr)
        if arr.ndim == 1:
            self._check_distinct(local)
            return int(self.index_local(local[None])[0])
        return self.index_local(local)

    def unindex(self, index: int) -> list[int]:
        """ACPC card ids of the canonical representative of `index` (groups in order)."""
        local = self.unindex_local(np.array([index]))[0]
        return [int(c) for c in self.deck.to_global[local]]

    def split(self, cards) -> list[list[int]]:
        """A flat hand as a list of groups."""
        out, a = [], 0
        for g in self.groups:
            out.append(list(cards[a:a + g]))
            a += g
        return out

    def _check_distinct(self, local: np.ndarray) -> None:
        if len(local) != self.num_cards:
            raise CfrlabError(f"expected {self.num_cards} cards (groups {list(self.groups)})")
        if len(set(local.tolist())) != len(local):
            raise CfrlabError("repeated card")


def round_groups(num_hole_cards: int, num_board_cards, round_: int) -> tuple[int, ...]:
    """Card groups a player sees at `round_`: hole cards, then each round's new board cards
    (rounds that deal no board card add no group)."""
    groups = [num_hole_cards] + [int(b) for b in list(num_board_cards)[:round_ + 1]]
    return tuple(g for g in groups if g > 0)


def game_indexers(game) -> list[HandIndexer]:
    """One indexer per betting round of a hold'em-style GameDef (hole | board by round)."""
    return [HandIndexer(game.num_ranks, game.num_suits,
                        round_groups(game.num_hole_cards, game.num_board_cards, r))
            for r in range(game.num_rounds)]


# -- boards up to suit symmetry --------------------------------------------------------------
# Every walk over dealt boards (the board engine, the real-game best response, the bucketing)
# takes one board of each suit-symmetry class and its class size from ``board_children``;
# ``board_orbits`` adds, for walks that sum values back up, the permutation reaching each
# board of the class. Cards are deck-local ids; a permutation sigma maps card c to
# ``(c // S) * S + sigma[c % S]``.

def suit_permutations(num_suits: int) -> np.ndarray:
    """int64[S!, S]: every permutation of the suits, identity first (lexicographic)."""
    return np.array(list(permutations(range(num_suits))), dtype=np.int64).reshape(-1, num_suits)


def permute_cards(cards, sigma, num_suits: int) -> np.ndarray:
    """The images of local cards under the suit permutation sigma."""
    c = np.asarray(cards, dtype=np.int64)
    return (c // num_suits) * num_suits + np.asarray(sigma, dtype=np.int64)[c % num_suits]


def board_orbits(rounds, k: int, deck_size: int, num_suits: int,
                 perms: np.ndarray) -> list[tuple[tuple[int, ...], list[int]]]:
    """The next ``k`` board cards after the board ``rounds`` (each dealing's cards, a group
    that permutations may reorder inside), grouped under the permutations among ``perms``
    (int64[P, S], a group of suit permutations) that map every group onto itself:
    ``(representative, [i, ...])`` per class in lexicographic order of the representatives,
    the representative the class's lexicographically first set, and ``perms[i]`` the first
    permutation (in ``perms`` order) carrying it onto each distinct set of the class, its
    own first (the identity when perms holds it)."""
    groups = [tuple(int(c) for c in g) for g in rounds if len(g)]
    parent = np.array([c for g in groups for c in g], dtype=np.int64)[None]
    gsz = np.array([len(g) for g in groups], dtype=np.int64)
    perms = np.ascontiguousarray(perms, dtype=np.int64)
    children, _, _ = K.board_children(parent, gsz, perms, k, deck_size, num_suits)
    fixing = [i for i, sg in enumerate(perms)
              if all(sorted(permute_cards(g, sg, num_suits).tolist()) == sorted(g) for g in groups)]
    out = []
    for rep in children:
        images: dict[tuple[int, ...], int] = {}
        for i in fixing:
            images.setdefault(tuple(sorted(permute_cards(rep, perms[i], num_suits).tolist())), i)
        own = tuple(int(c) for c in rep)
        out.append((own, [images[own]] + [i for img, i in images.items() if img != own]))
    return out
