"""The river kernel's pieces (cfrlab.realgame._lanes_kernels, cfrlab.engine's lane kernels) against direct computations.

* ``showdown_lanes``: a showdown's values by the sweep (each group of hands of equal rank added by
  its classes' sums, ``group_sums``) equal the definition, wins minus losses over the
  opponent's hands disjoint from each hand, on decks with many ties; run three times on the
  same buffers (nothing of one sweep may leak into the next); ``group_sums`` against a
  direct count.
* ``last_round_table``: the state-major table holds, for every decision and state, the row
  ``row_offset[d] + s`` of the opponent's table.
* A bucketed opponent's states are suit-invariant (what lets the walk share suit-isomorphic
  boards): permuting the suits of hand and board gives the same state, every round.

Suit isomorphism of the later boards (turns and rivers walked once per orbit under the
permutations fixing the board so far) is checked against every board walked alone in
tests/test_realgame.py (``test_later_boards_shared_by_suit_orbits_give_the_same_values``).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from test_realgame import bucketed_case, random_policy

from cfrlab.engine import row_offsets
from cfrlab.engine.kernels import group_sums, reach_classes, showdown_lanes
from cfrlab.realgame._lanes_kernels import last_round_table
from cfrlab.realgame.hands import hand_permutation, make_deck, permute_cards, suit_permutations
from cfrlab.realgame.opponents import batch_policy_of
from cfrlab.strategy import Strategy

D = 16  # 4 ranks x 4 suits: 120 hands of two cards


def _hands_in_rank_order(rng, n_ranks):
    cards = np.array(list(combinations(range(D), 2)), dtype=np.int64)
    rank = rng.integers(0, n_ranks, len(cards))  # few ranks: groups of many hands
    o = np.argsort(rank, kind="stable")
    cards, rank = cards[o], rank[o]
    ends = np.append(np.flatnonzero(np.diff(rank)) + 1, len(rank))
    grp_end = np.repeat(ends, np.diff(np.concatenate([[0], ends]))).astype(np.int64)
    return np.ascontiguousarray(cards), rank, grp_end


def _direct(r, cidx, cards, rank, pay):
    n = len(cards)
    out = np.zeros((n, r.shape[1]))
    for q in range(n):
        for j in range(n):
            if set(cards[q]) & set(cards[j]):
                continue
            out[q] += np.sign(rank[q] - rank[j]) * r[cidx[j]]
    return out * pay


@pytest.mark.parametrize("n_ranks", [4, 12, 120])
def test_showdown_sweep_equals_wins_minus_losses(n_ranks):
    rng = np.random.default_rng(n_ranks)
    cards, rank, grp_end = _hands_in_rank_order(rng, n_ranks)
    n, M = len(cards), 8
    cls = reach_classes(np.zeros(n, np.int64), cards, rng.integers(0, 5, n).astype(np.int64), D)
    gs = group_sums(cls.cidx, cards, grp_end, D, M)
    X, xc = np.zeros(M), np.zeros((D, M))
    mx = np.zeros(M, np.bool_)
    for _ in range(3):  # the same buffers every time, as the walk uses them
        r = rng.random((len(cls.first), M))
        pay = rng.random(M) + 0.5
        V = np.zeros((n, M))
        showdown_lanes(r, cls, cards, 2, n, gs, X, xc, pay, V, True, mx)
        want = _direct(r, cls.cidx, cards, rank, pay)
        assert np.abs(V - want).max() <= 1e-12 * np.abs(want).max()
    if n_ranks == 4:  # groups of many hands, as on real boards
        assert np.diff(np.unique(grp_end)).max() > 2


def test_showdown_merges_into_its_parent_by_max_and_sum():
    rng = np.random.default_rng(3)
    cards, rank, grp_end = _hands_in_rank_order(rng, 6)
    n, M = len(cards), 8
    cls = reach_classes(np.zeros(n, np.int64), cards, rng.integers(0, 3, n).astype(np.int64), D)
    gs = group_sums(cls.cidx, cards, grp_end, D, M)
    r = rng.random((len(cls.first), M))
    pay = rng.random(M) + 0.5
    parent = rng.normal(size=(n, M))
    mx = np.arange(M) % 2 == 0  # even lanes: the parent's actor takes the max
    V = parent.copy()
    showdown_lanes(r, cls, cards, 2, n, gs, np.zeros(M), np.zeros((D, M)), pay, V, False, mx)
    x = _direct(r, cls.cidx, cards, rank, pay)
    want = np.where(mx, np.maximum(parent, x), parent + x)
    assert np.abs(V - want).max() <= 1e-12 * np.abs(want).max()


def test_group_sums_count_each_groups_classes_and_cards():
    # what the showdown sweep adds per group instead of hand by hand: per group of equal
    # rank, its hands' classes with counts, and per card the classes of the hands holding it
    rng = np.random.default_rng(5)
    cards, rank, grp_end = _hands_in_rank_order(rng, 7)
    cidx = rng.integers(0, 4, len(cards)).astype(np.int64)
    gs = group_sums(cidx, cards, grp_end, D, 3)
    starts = np.flatnonzero(np.r_[True, np.diff(rank) != 0])
    assert np.array_equal(gs.start, np.append(starts, len(cards)))
    for g in range(len(starts)):
        q0, q1 = gs.start[g], gs.start[g + 1]
        x = dict(zip(gs.x_cls[gs.x_off[g]:gs.x_off[g + 1]].tolist(),
                     gs.x_cnt[gs.x_off[g]:gs.x_off[g + 1]].tolist()))
        assert x == {u: float(np.sum(cidx[q0:q1] == u)) for u in set(cidx[q0:q1].tolist())}
        got = {}
        for i in range(gs.c_off[g], gs.c_off[g + 1]):
            for p in range(gs.p_off[i], gs.p_off[i + 1]):
                got[(int(gs.c_card[i]), int(gs.p_cls[p]))] = gs.p_cnt[p]
        want = {}
        for q in range(q0, q1):
            for c in cards[q]:
                want[(int(c), int(cidx[q]))] = want.get((int(c), int(cidx[q])), 0.0) + 1.0
        assert got == want


def test_last_round_table_holds_every_row_of_the_last_round():
    rng = np.random.default_rng(0)
    sizes = np.array([3, 7, 7, 1, 7, 5, 7])  # rows (private states) per decision
    row_offset = np.append(0, np.cumsum(sizes)).astype(np.int64)
    policy = rng.random((int(row_offset[-1]), 3))
    decisions = np.array([-1, 1, 2, -1, 4, 6, 2], dtype=np.int64)  # the last round's, repeated
    table = last_round_table(policy, row_offset, decisions)
    assert table.policy.shape == (7, 4, 3)
    for d in range(len(sizes)):
        if d not in decisions:
            assert table.col[d] == -1
            continue
        for s in range(sizes[d]):
            assert np.array_equal(table.policy[s, table.col[d]], policy[row_offset[d] + s])


def test_bucketed_states_are_suit_invariant():
    # what lets the walk share suit-isomorphic boards: a bucketed opponent's state of a hand
    # is a function of the canonical (suit-isomorphic) class of hand and board, so permuting
    # the suits of both gives the same state, on every round's boards
    g, tree, bmodel = bucketed_case(3, 4, "0 2 1 1", 2)
    pol = random_policy(tree, row_offsets(tree, bmodel), 3)
    bp = batch_policy_of(Strategy.from_policy(g, pol, tree=tree, model=bmodel), tree)
    assert bp.suit_symmetric
    deck = make_deck(g)
    rng = np.random.default_rng(1)
    sizes = np.cumsum(g.num_board_cards)
    for _ in range(20):
        board = rng.choice(deck.size, int(sizes[-1]), replace=False)
        for r in range(1, g.num_rounds):
            b = board[:sizes[r]]
            st = bp.states(r, b, deck, deck.valid(b))
            for sigma in suit_permutations(deck.num_suits)[1:]:
                pb = permute_cards(b, sigma, deck.num_suits)
                pst = bp.states(r, pb, deck, deck.valid(pb))
                perm = hand_permutation(deck, sigma)
                ok = deck.valid(b)
                assert np.array_equal(pst[perm[ok]], st[ok])
