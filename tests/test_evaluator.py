"""Hand evaluator: exact category counts, an independent peer, a naive twin, ACPC small decks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from cfrlab import known_values
from cfrlab.cards import _eval_kernels as K
from cfrlab.cards import card_text, deck, parse_cards
from cfrlab.cards.evaluator import (
    CATEGORY_NAMES,
    HandError,
    category_name,
    hand_category,
    random_hands,
    rank7_batch,
    rank_batch,
    rank_hand,
    seven_card_category_counts,
)

# Distinct 5-card hand values per category (the 7,462 equivalence classes of poker hands).
FIVE_CARD_CLASSES = {
    "high_card": 1277,
    "one_pair": 2860,
    "two_pair": 858,
    "three_of_a_kind": 858,
    "straight": 10,
    "flush": 1277,
    "full_house": 156,
    "four_of_a_kind": 156,
    "straight_flush": 10,
}


# --------------------------------------------------------------------------- naive twin


def _pack(category, kickers):
    value = category << 20
    for i, k in enumerate(kickers[:5]):
        value |= k << (16 - 4 * i)
    return value


def _best_straight(rank_set):
    for top in range(12, 3, -1):
        if all(r in rank_set for r in range(top - 4, top + 1)):
            return top
    return 3 if {12, 0, 1, 2, 3} <= rank_set else -1


def naive_rank(cards):
    """Best value over every category the cards can make, written from the rules."""
    cards = [int(c) for c in cards]
    if len(cards) == 1:
        return cards[0] // 4
    ranks = sorted((c // 4 for c in cards), reverse=True)
    counts = {r: ranks.count(r) for r in ranks}
    distinct = sorted(counts, reverse=True)

    def others(*excluded):
        return [r for r in ranks if r not in excluded]

    pairs = [r for r in distinct if counts[r] >= 2]
    trips = [r for r in distinct if counts[r] >= 3]
    quads = [r for r in distinct if counts[r] >= 4]
    candidates = [_pack(0, ranks)]
    if pairs:
        candidates.append(_pack(1, [pairs[0]] + others(pairs[0])[:3]))
    if len(pairs) >= 2:
        p, q = pairs[:2]
        candidates.append(_pack(2, [p, q] + others(p, q)[:1]))
    if trips:
        t = trips[0]
        candidates.append(_pack(3, [t] + others(t)[:2]))
        rest = [r for r in pairs if r != t]
        if rest:
            candidates.append(_pack(6, [t, rest[0]]))
    if quads:
        candidates.append(_pack(7, [quads[0]] + others(quads[0])[:1]))
    top = _best_straight(set(ranks))
    if top >= 0:
        candidates.append(_pack(4, [top]))
    for suit in range(4):
        suited = sorted((c // 4 for c in cards if c % 4 == suit), reverse=True)
        if len(suited) >= 5:
            candidates.append(_pack(5, suited[:5]))
            top = _best_straight(set(suited))
            if top >= 0:
                candidates.append(_pack(8, [top]))
    return max(candidates)


def _all_hands(k):
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(52), k)), dtype=np.uint8
    )
    return flat.reshape(-1, k)


# --------------------------------------------------------------------------- exact counts


def test_five_card_hands_exhaustive_category_counts_and_classes():
    hands = _all_hands(5)
    assert len(hands) == known_values.FIVE_CARD_TOTAL
    ranks = rank_batch(hands)
    cats = hand_category(ranks)
    counts = np.bincount(cats, minlength=9)
    assert dict(zip(CATEGORY_NAMES, counts.tolist())) == known_values.FIVE_CARD_COUNTS
    distinct = np.unique(ranks)
    assert len(distinct) == 7462
    classes = np.bincount(hand_category(distinct), minlength=9)
    assert dict(zip(CATEGORY_NAMES, classes.tolist())) == FIVE_CARD_CLASSES
    # the scalar kernel agrees with the batch path
    some = hands[::9973]
    assert [K.rank5(*map(int, h)) for h in some] == ranks[::9973].tolist()


def test_seven_card_hands_exhaustive_category_counts():
    counts = seven_card_category_counts()
    assert counts == known_values.SEVEN_CARD_COUNTS
    assert sum(counts.values()) == known_values.SEVEN_CARD_TOTAL
    assert seven_card_category_counts(num_threads=1) == counts


def test_rank_table_is_a_full_minimal_hash():
    # every rank multiset of <= 7 cards has its own slot and every slot is filled
    assert (K.RANK_TABLE[:76_155] >= 0).all()
    assert (K.RANK_TABLE[76_155:] == -1).all()
    # a flush value for every suit mask of >= 5 ranks, nothing for the others
    assert (K.FLUSH_TABLE >> 20 >= 5).sum() == sum(math.comb(13, k) for k in range(5, 14))
    assert (K.FLUSH_TABLE == 0).sum() == sum(math.comb(13, k) for k in range(5))


# --------------------------------------------------------------------------- twins and peers


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 7])
def test_kernels_match_naive_twin(k):
    hands = random_hands(3000, k, seed=k)
    got = rank_batch(hands)
    assert got.tolist() == [naive_rank(h) for h in hands]
    assert [rank_hand(h) for h in hands[:200]] == got[:200].tolist()


def test_rank_cards_kernel_matches_rank7():
    hands = random_hands(20_000, 7, seed=11)
    out = np.empty(len(hands), np.int32)
    K.rank_rows(hands, out)
    assert (out == rank7_batch(hands)).all()
    assert (rank7_batch(hands, parallel=True) == out).all()
    assert (rank7_batch(hands.astype(np.int64)) == out).all()


def test_kernels_are_callable_from_njit_code():
    from numba import njit

    @njit
    def categories(hands, out):
        for i in range(hands.shape[0]):
            h = hands[i]
            r = K.rank7(h[0], h[1], h[2], h[3], h[4], h[5], h[6])
            out[i] = K.hand_category(r) if r == K.rank_cards(h) else -1

    hands = random_hands(1000, 7, seed=5)
    out = np.empty(len(hands), np.int64)
    categories(hands, out)
    assert (out == hand_category(rank7_batch(hands))).all()


@pytest.mark.parametrize("k", [6, 7])
def test_best_five_of_n_is_the_max_over_five_card_subsets(k):
    hands = random_hands(4000, k, seed=100 + k)
    subsets = np.array(list(itertools.combinations(range(k), 5)))
    fives = hands[:, subsets].reshape(-1, 5)
    best = rank_batch(fives).reshape(len(hands), len(subsets)).max(axis=1)
    assert (rank_batch(hands) == best).all()
    if k == 6:
        assert [K.rank6(*map(int, h)) for h in hands[:300]] == best[:300].tolist()
    else:
        assert [K.rank7(*map(int, h)) for h in hands[:300]] == best[:300].tolist()


def _peer_rank():
    """An independent evaluator (higher is better) on card ids, or skip if none is installed."""
    try:
        import eval7

        table = [eval7.Card(card_text(c)) for c in range(52)]
        return lambda hand: eval7.evaluate([table[c] for c in hand])
    except ImportError:
        pass
    phevaluator = pytest.importorskip("phevaluator")  # same card ids; lower is better
    return lambda hand: -phevaluator.evaluate_cards(*map(int, hand))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # eval7 uses old pyparsing names
def test_ordering_agrees_with_peer_on_100k_random_pairs():
    peer = _peer_rank()
    a = random_hands(100_000, 7, seed=1)
    b = random_hands(100_000, 7, seed=2)
    ours = np.sign(rank7_batch(a).astype(np.int64) - rank7_batch(b))
    pa = np.array([peer(h) for h in a.tolist()], dtype=np.int64)
    pb = np.array([peer(h) for h in b.tolist()], dtype=np.int64)
    theirs = np.sign(pa - pb)
    assert (ours == theirs).all()
    assert (ours == 0).sum() > 0  # ties happen and must agree too


# --------------------------------------------------------------------------- ACPC small decks


def test_kuhn_highest_card_wins():
    assert [rank_hand([c]) for c in deck(3, 1)] == [10, 11, 12]  # Qs Ks As
    ranks = [rank_hand([c]) for c in deck(100, 1)]  # kuhn-100: ranks past the ace
    assert ranks == list(range(100))


def test_leduc_pair_beats_high_card_and_equal_private_ranks_split():
    def value(text):
        return rank_hand(parse_cards(text))

    assert value("Qh Qs") > value("Ah Ks")  # Qh vs Ks with board Qs
    assert value("Ah Qh") > value("Ks Qh")  # Ah vs Ks with board Qh
    assert value("Kh Qh") == value("Ks Qh")  # Kh vs Ks with board Qh: split
    assert value("Ks Kh") > value("As Qh")


def test_two_card_ranks_pair_first_then_lexicographic():
    # the ACPC dealer's two-card ranking: over all 2-card rank sets, pair > every non-pair, non-pairs lexicographic
    hands = {}
    for r1 in range(13):
        for r2 in range(r1, 13):
            cards = [r1 * 4, r2 * 4 + 1]
            hands[(r1, r2)] = rank_hand(cards)
    pairs = [v for (r1, r2), v in hands.items() if r1 == r2]
    others = sorted(((r2, r1), v) for (r1, r2), v in hands.items() if r1 != r2)
    assert min(pairs) > max(v for _, v in others)
    assert [v for _, v in others] == sorted(v for _, v in others)
    assert len({v for _, v in others}) == len(others)


def test_fewer_than_five_cards_use_rank_categories_only():
    assert category_name(rank_hand(parse_cards("2c3d4h5s"))) == "high_card"
    assert category_name(rank_hand(parse_cards("As Ah Kd Kc"))) == "two_pair"
    assert category_name(rank_hand(parse_cards("9s9h9d"))) == "three_of_a_kind"
    assert category_name(rank_hand(parse_cards("9s9h9d9c"))) == "four_of_a_kind"
    assert rank_hand(parse_cards("AsAh3c")) > rank_hand(parse_cards("AdAc2c"))


def test_named_hands():
    def name(text):
        return category_name(rank_hand(parse_cards(text)))

    assert name("As2d3c4h5s") == "straight"
    assert rank_hand(parse_cards("As2d3c4h5s")) < rank_hand(parse_cards("2d3c4h5s6s"))
    assert name("As2s3s4s5s9d9c") == "straight_flush"
    assert name("AhAdAcKsKdKc2s") == "full_house"
    assert name("2h3h4h5h7h7d7c") == "flush"
    assert rank_hand(parse_cards("AsKsQsJsTs")) == (8 << 20) | (12 << 16)


def test_bad_input_is_refused():
    for bad in ([], list(range(8)), [5, 5], [3, 52], [-1]):
        with pytest.raises(HandError):
            rank_hand(bad)
    with pytest.raises(HandError):
        rank7_batch(np.zeros((3, 6), np.uint8))
    with pytest.raises(HandError):
        rank_batch(np.full((2, 5), 60, np.int32))
    with pytest.raises(HandError):
        rank_batch(np.zeros((2, 5), np.float64))
