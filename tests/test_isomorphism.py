"""Hand isomorphism: known class counts, exhaustive checks on small decks, round trips."""

from __future__ import annotations

from itertools import combinations, permutations

import numpy as np
import pytest

from cfrlab.cards.isomorphism import DeckMap, HandIndexer, game_indexers, round_groups
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.known_values import HOLDEM_CANONICAL_COUNTS


def canonical_form(hand, groups, num_suits):
    """Obviously-correct twin: the least relabelled hand over every suit permutation."""
    best = None
    for perm in permutations(range(num_suits)):
        out, a = [], 0
        for g in groups:
            out.append(tuple(sorted((c // num_suits) * num_suits + perm[c % num_suits]
                                    for c in hand[a:a + g])))
            a += g
        t = tuple(out)
        if best is None or t < best:
            best = t
    return best


def all_hands(deck_size, groups):
    def rec(avail, gs):
        if not gs:
            yield []
            return
        for combo in combinations(avail, gs[0]):
            rest = [c for c in avail if c not in combo]
            for tail in rec(rest, gs[1:]):
                yield list(combo) + tail
    yield from rec(list(range(deck_size)), list(groups))


def test_full_deck_counts():
    for r, groups in enumerate([(2,), (2, 3), (2, 4), (2, 5)]):
        assert HandIndexer(13, 4, groups).size == HOLDEM_CANONICAL_COUNTS[r]


def test_game_indexers_follow_rounds():
    g = load_game("holdem-limit")
    assert round_groups(2, g.num_board_cards, 3) == (2, 3, 1, 1)
    assert [ix.groups for ix in game_indexers(g)] == [(2,), (2, 3), (2, 3, 1), (2, 3, 1, 1)]


@pytest.mark.parametrize("ranks,suits,groups", [
    (4, 3, (2, 2, 1)), (3, 4, (2, 3)), (6, 2, (2, 3, 1)), (3, 4, (2, 1, 1)), (7, 1, (2, 3)),
    (3, 4, (2, 4)),
])
def test_exhaustive_small_decks(ranks, suits, groups):
    ix = HandIndexer(ranks, suits, groups)
    hands = np.array(list(all_hands(ranks * suits, groups)), dtype=np.int64)
    idx = ix.index_local(hands)
    forms = [canonical_form(h, groups, suits) for h in hands]
    by_form: dict = {}
    for f, i in zip(forms, idx):
        assert by_form.setdefault(f, i) == i  # constant on classes
    assert sorted(by_form.values()) == list(range(ix.size))  # a bijection onto 0..size-1
    counts = np.bincount(idx, minlength=ix.size)
    reps = ix.unindex_local(np.arange(ix.size))
    assert (ix.index_local(reps) == np.arange(ix.size)).all()
    assert (ix.multiplicity_local(reps) == counts).all()
    assert ix.multiplicities().sum() == ix.raw_size == len(hands)


def test_full_deck_round_trip_and_suit_invariance():
    rng = np.random.default_rng(7)
    for groups in [(2,), (2, 3), (2, 4), (2, 5), (2, 3, 1, 1), (3, 1, 1)]:
        ix = HandIndexer(13, 4, groups)
        n = sum(groups)
        hands = np.array([rng.permutation(52)[:n] for _ in range(3000)], dtype=np.int64)
        idx = ix.index_local(hands)
        assert idx.min() >= 0 and idx.max() < ix.size
        for perm in [(1, 0, 2, 3), (3, 2, 1, 0), (2, 3, 0, 1)]:
            p = np.array(perm)
            moved = (hands // 4) * 4 + p[hands % 4]
            assert (ix.index_local(moved) == idx).all()
        reps = ix.unindex_local(idx)
        assert (ix.index_local(reps) == idx).all()
        for h, rep in zip(hands[:200], reps[:200]):
            assert canonical_form(list(h), groups, 4) == canonical_form(list(rep), groups, 4)
        some = rng.integers(0, ix.size, 3000)
        assert (ix.index_local(ix.unindex_local(some)) == some).all()


def test_acpc_ids_and_errors():
    ix = HandIndexer(13, 4, (2, 3))
    from cfrlab.cards import parse_cards
    a = ix.index(parse_cards("AsAd2c7h9s"))
    b = ix.index(parse_cards("AhAc2s7d9h"))
    assert a == b
    assert sorted(ix.unindex(a)[:2]) in ([c for c in sorted(parse_cards("AsAd"))],
                                         sorted(ix.unindex(a)[:2]))
    with pytest.raises(CfrlabError):
        ix.index(parse_cards("AsAs2c7h9s"))
    small = DeckMap(6, 2)  # top 6 ranks (8..A), suits h s
    with pytest.raises(CfrlabError):
        small.local(parse_cards("2c"))
    assert small.size == 12


@pytest.mark.parametrize("num_ranks, num_suits, rounds, k", [
    (4, 4, [], 3), (4, 4, [(0, 4, 8)], 1), (4, 4, [(0, 1), (6,)], 2), (5, 3, [(0, 3, 6)], 2),
    (4, 4, [(0, 5, 10), (15,)], 1), (3, 4, [(0, 4)], 2)])
@pytest.mark.parametrize("subgroup", [False, True])
def test_board_orbits_against_brute_force(num_ranks, num_suits, rounds, k, subgroup):
    """Every class of next cards once, its lexicographically first set as representative,
    and per distinct image the first permutation (in the group's order) reaching it, checked
    against a set-by-set enumeration; class sizes from ``board_children`` sum to every draw."""
    from cfrlab.cards.isomorphism import board_orbits, permute_cards, suit_permutations
    from cfrlab.cards.kernels import board_children

    S, D = num_suits, num_ranks * num_suits
    perms = suit_permutations(S)
    assert tuple(perms[0]) == tuple(range(S)) and len(perms) == len({tuple(p) for p in perms})
    if subgroup:  # the permutations fixing suit 0: a range that singles out one suit
        perms = perms[perms[:, 0] == 0]
    image = lambda cards, i: tuple(sorted(permute_cards(cards, perms[i], S).tolist()))
    fixing = [i for i in range(len(perms)) if all(image(g, i) == tuple(sorted(g)) for g in rounds)]
    used = {c for g in rounds for c in g}
    rest = [c for c in range(D) if c not in used]
    expected, seen = [], set()
    for draw in combinations(rest, k):
        if draw in seen:
            continue
        firsts = {}
        for i in fixing:
            firsts.setdefault(image(draw, i), i)
        seen.update(firsts)
        assert draw == min(firsts)
        expected.append((draw, [firsts[draw]] + [i for img, i in firsts.items() if img != draw]))
    assert board_orbits(rounds, k, D, S, perms) == expected
    parent = np.array([[c for g in rounds for c in g]], dtype=np.int64).reshape(1, -1)
    gsz = np.array([len(g) for g in rounds], dtype=np.int64)
    children, orbit, _ = board_children(parent, gsz, perms, k, D, S)
    assert [tuple(c) for c in children.tolist()] == [rep for rep, _ in expected]
    assert orbit.tolist() == [len(images) for _, images in expected]
    assert orbit.sum() == len(list(combinations(rest, k)))
