"""Numba kernels of the match engine: seeded deals and 2-player limit hands on plain arrays.

Randomness is counter-based (splitmix64 of (seed, stream, hand number)), so a hand's cards
and an agent's random draws depend only on the seed and the hand number, never on batch
sizes or thread count; both halves of a duplicate match see the same deals.

Array layouts (shared with ``match.py``):

* ``deck``: int16[D] card ids of the game's deck (ascending id order).
* ``deals``: int16[n, C] with C = num_players * num_hole_cards + total board cards; the
  hole cards of position p are columns ``p*H : (p+1)*H``, then the board in dealing order.
* the tree: ``cfrlab.tree.TreeArrays`` (``kind``, ``player``, ``rnd``, ``decision``,
  ``next_node`` int32[N, 3]: child reached by fold/call/raise, -1 if illegal, ``spent``).
* an agent is a ``Seat``: a policy table ``pol`` float64[rows, 3] (columns f, c, r), ``off``
  int64[D] (first row of each decision node, the strategy layout), private states ``priv`` int32[n or 1, 2, R]
  (state of position p in round r for hand i; a stateless agent passes one row and
  ``pstep=0``) and ``greedy`` (play each row's most likely action).
* ``winner``: int8[n], +1 position 0 wins the showdown, -1 position 1 wins, 0 split.
* ``a_pos``: int8[n], agent A's position in each hand.
* outputs: ``values`` float32[n] (agent A's net chips), ``terminal`` int32[n] (final node).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.cards.kernels import (
    rank7,
    rank_cards,
)
from cfrlab.config import NUMBA_CACHE
from cfrlab.tree.betting_tree import CHANCE, FOLD

Seat = namedtuple("Seat", "pol off priv pstep greedy")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STREAM = np.uint64(0xD1B54A32D192ED03)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53

STREAM_DEAL = 0
STREAM_ACTIONS = 1  # + half index


@njit(cache=NUMBA_CACHE)
def _mix(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=NUMBA_CACHE)
def hand_key(seed, stream, hand):
    """Start state of the random stream `stream` for hand number `hand` (uint64)."""
    k = _mix(np.uint64(seed))
    k = _mix(k ^ (np.uint64(stream) * _STREAM))
    return _mix(k ^ np.uint64(hand))


@njit(cache=NUMBA_CACHE)
def next_uniform(state):
    """(new state, uniform float in [0, 1))."""
    state = state + _GOLDEN
    z = _mix(state)
    return state, (z >> np.uint64(11)) * _TO_UNIT


@njit(cache=NUMBA_CACHE, parallel=True)
def deal_hands(deck, num_cards, seed, first_hand, n):
    """Deals of hands first_hand .. first_hand+n-1: int16[n, num_cards] (partial shuffle)."""
    out = np.empty((n, num_cards), dtype=np.int16)
    size = deck.shape[0]
    nchunks = min(n, 64)
    for c in prange(nchunks):
        work = deck.copy()
        lo = c * n // nchunks
        hi = (c + 1) * n // nchunks
        swaps = np.empty(num_cards, dtype=np.int64)
        for i in range(lo, hi):
            state = hand_key(seed, STREAM_DEAL, first_hand + i)
            for j in range(num_cards):
                state, u = next_uniform(state)
                k = j + int(u * (size - j))
                swaps[j] = k
                t = work[j]
                work[j] = work[k]
                work[k] = t
                out[i, j] = work[j]
            for j in range(num_cards - 1, -1, -1):  # undo: the next hand starts from `deck`
                k = swaps[j]
                t = work[j]
                work[j] = work[k]
                work[k] = t
    return out


@njit(cache=NUMBA_CACHE)
def _choose(pol, row, legal_next, node, greedy, u):
    """Action index from one policy row: sampled with `u`, or the most likely one."""
    best = -1
    if greedy:
        bp = -1.0
        for a in range(3):
            if legal_next[node, a] >= 0 and pol[row, a] > bp:
                bp = pol[row, a]
                best = a
        return best
    cum = 0.0
    for a in range(3):
        if legal_next[node, a] >= 0:
            p = pol[row, a]
            if p > 0.0:
                cum += p
                best = a  # rounding: u beyond the row's sum picks the last positive action
                if u < cum:
                    return a
    if best < 0:  # an all-zero row: call (always legal)
        best = 1
    return best


@njit(cache=NUMBA_CACHE, parallel=True)
def play_hands(tree, root, seat_a, seat_b, winner, a_pos, seed, stream, first_hand, values, terminal):
    """Play n hands of a 2-player limit game; fill values[i] (A's chips) and terminal[i].

    ``tree`` is a ``cfrlab.tree.TreeArrays``; ``seat_a`` / ``seat_b`` are ``Seat`` tuples."""
    kind, player, rnd = tree.kind, tree.player, tree.rnd
    decision, next_node, spent = tree.decision, tree.next_node, tree.spent
    pol_a, off_a, priv_a, pstep_a, greedy_a = seat_a
    pol_b, off_b, priv_b, pstep_b, greedy_b = seat_b
    n = winner.shape[0]
    for i in prange(n):
        state = hand_key(seed, stream, first_hand + i)
        apos = a_pos[i]
        node = root
        while kind[node] <= CHANCE:
            if kind[node] == CHANCE:
                node = next_node[node, 1]
                continue
            p = player[node]
            d = decision[node]
            r = rnd[node]
            state, u = next_uniform(state)
            if p == apos:
                row = off_a[d] + priv_a[i * pstep_a, p, r]
                a = _choose(pol_a, row, next_node, node, greedy_a, u)
            else:
                row = off_b[d] + priv_b[i * pstep_b, p, r]
                a = _choose(pol_b, row, next_node, node, greedy_b, u)
            node = next_node[node, a]
        if kind[node] == FOLD:
            if player[node] == 0:
                v0 = -float(spent[node, 0])
            else:
                v0 = float(spent[node, 1])
        else:
            w = winner[i]
            if w > 0:
                v0 = float(spent[node, 1])
            elif w < 0:
                v0 = -float(spent[node, 0])
            else:
                v0 = 0.5 * float(spent[node, 1] - spent[node, 0])
        values[i] = v0 if apos == 0 else -v0
        terminal[i] = node


# ----------------------------------------------------------------------------- showdowns


@njit(cache=NUMBA_CACHE, parallel=True)
def showdown_winners(deals, num_hole, num_board):
    """winner[i] for 2-player deals: +1 position 0 has the better hand (hole + whole board),
    -1 position 1, 0 a split. Seven-card hands use ``rank7``, other sizes ``rank_cards``."""
    n = deals.shape[0]
    out = np.empty(n, dtype=np.int8)
    k = num_hole + num_board
    b0 = 2 * num_hole
    if num_hole == 2 and num_board == 5:
        for i in prange(n):
            r0 = rank7(deals[i, 0], deals[i, 1], deals[i, 4], deals[i, 5], deals[i, 6],
                       deals[i, 7], deals[i, 8])
            r1 = rank7(deals[i, 2], deals[i, 3], deals[i, 4], deals[i, 5], deals[i, 6],
                       deals[i, 7], deals[i, 8])
            out[i] = 1 if r0 > r1 else (-1 if r0 < r1 else 0)
        return out
    nchunks = min(n, 64)
    for c in prange(nchunks):
        h0 = np.empty(k, dtype=np.int64)
        h1 = np.empty(k, dtype=np.int64)
        for i in range(c * n // nchunks, (c + 1) * n // nchunks):
            for j in range(num_hole):
                h0[j] = deals[i, j]
                h1[j] = deals[i, num_hole + j]
            for j in range(num_board):
                h0[num_hole + j] = deals[i, b0 + j]
                h1[num_hole + j] = deals[i, b0 + j]
            r0 = rank_cards(h0)
            r1 = rank_cards(h1)
            out[i] = 1 if r0 > r1 else (-1 if r0 < r1 else 0)
    return out


# ----------------------------------------------------------------------------- hand strength
# Immediate hand strength (Billings' HS): the share of the opponent's possible holdings,
# given what the player sees (own hole cards and the board so far), that its hand beats
# now, ties counting half. ``combos`` int16[M, H] lists every H-card holding from the deck.
