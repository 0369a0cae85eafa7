"""Numba kernels of the match engine: seeded deals and 2-player limit hands on plain arrays.

Randomness is counter-based (splitmix64 of (seed, stream, hand number)), so a hand's cards
and an agent's random draws depend only on the seed and the hand number, never on batch
sizes or thread count; both halves of a duplicate match see the same deals.

Array layouts (shared with ``match.py``):

* ``deck``: int16[D] card ids of the game's deck (ascending id order).
* ``deals``: int16[n, C] with C = num_players * num_hole_cards + total board cards; the
  hole cards of position p are columns ``p*H : (p+1)*H``, then the board in dealing order.
* tree arrays (``cfrlab.tree.PublicTree``): ``kind`` int8[N] (0 decision, 1 chance,
  2 fold, 3 showdown), ``player`` int8[N], ``rnd`` int8[N], ``decision`` int32[N],
  ``next_node`` int32[N, 3] (child reached by fold/call/raise, -1 if illegal), ``spent``
  int32[N, 2].
* an agent is a policy table ``pol`` float64[rows, 3] (columns f, c, r), ``off`` int32[D]
  (first row of each decision node) and private states ``priv`` int32[n or 1, 2, R] (state
  of position p in round r for hand i; a stateless agent passes one row and ``pstep=0``).
* ``winner``: int8[n], +1 position 0 wins the showdown, -1 position 1 wins, 0 split.
* ``a_pos``: int8[n], agent A's position in each hand.
* outputs: ``values`` float32[n] (agent A's net chips), ``terminal`` int32[n] (final node).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.cards._eval_kernels import rank5, rank6, rank7, rank_cards
from cfrlab.config import NUMBA_CACHE

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3

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
def play_hands(kind, player, rnd, decision, next_node, spent, root,
               pol_a, off_a, priv_a, pstep_a, greedy_a,
               pol_b, off_b, priv_b, pstep_b, greedy_b,
               winner, a_pos, seed, stream, first_hand, values, terminal):
    """Play n hands of a 2-player limit game; fill values[i] (A's chips) and terminal[i]."""
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
# The value is computed as (2 * wins + ties) / (2 * count) so that the single-situation
# function and the batch kernel give bit-identical floats.


@njit(cache=NUMBA_CACHE)
def _overlaps(combo_row, cards, k):
    for a in range(combo_row.shape[0]):
        for b in range(k):
            if combo_row[a] == cards[b]:
                return True
    return False


@njit(cache=NUMBA_CACHE)
def hand_strength(hole, board, combos):
    """HS in [0, 1] of `hole` (int array) with `board` (int array, may be empty)."""
    h = hole.shape[0]
    nb = board.shape[0]
    known = np.empty(h + nb, dtype=np.int64)
    for j in range(h):
        known[j] = hole[j]
    for j in range(nb):
        known[h + j] = board[j]
    mine = rank_cards(known)
    buf = np.empty(h + nb, dtype=np.int64)
    for j in range(nb):
        buf[h + j] = board[j]
    wins2 = 0
    count = 0
    for m in range(combos.shape[0]):
        if _overlaps(combos[m], known, h + nb):
            continue
        for j in range(h):
            buf[j] = combos[m, j]
        r = rank_cards(buf)
        if mine > r:
            wins2 += 2
        elif mine == r:
            wins2 += 1
        count += 1
    return wins2 / (2.0 * count)


@njit(cache=NUMBA_CACHE)
def strength_class(hs, raise_at, call_at):
    """0 weak (fold when facing a bet), 1 middling (call), 2 strong (raise)."""
    if hs >= raise_at:
        return 2
    if hs >= call_at:
        return 1
    return 0


@njit(cache=NUMBA_CACHE)
def _rank_k(buf, k):
    """rank_cards(buf[:k]) with the unrolled 5/6/7-card evaluators (hold'em boards)."""
    if k == 7:
        return rank7(buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6])
    if k == 6:
        return rank6(buf[0], buf[1], buf[2], buf[3], buf[4], buf[5])
    if k == 5:
        return rank5(buf[0], buf[1], buf[2], buf[3], buf[4])
    return rank_cards(buf[:k])


@njit(cache=NUMBA_CACHE, parallel=True)
def value_bot_states(deals, num_hole, board_end, combos, combo_id, preflop_hs, raise_at, call_at):
    """Strength classes int32[n, 2, R] of both positions per round for 2-player deals.

    ``board_end[r]`` = board cards visible in round r; ``combo_id[c0, c1]`` the row of a
    holding in ``combos`` (``combo_id[c, c]`` for one-card holdings); ``preflop_hs[m]`` the HS
    of holding m with no board (used when a round shows no board card). Rounds with board
    cards need card ids below 64 (a standard deck): clashes are tested with bit masks.
    """
    n = deals.shape[0]
    nr = board_end.shape[0]
    m_all = combos.shape[0]
    out = np.empty((n, 2, nr), dtype=np.int32)
    b0 = 2 * num_hole
    cmask = np.zeros(m_all, dtype=np.uint64)
    if board_end[nr - 1] > 0:
        for m in range(m_all):
            for a in range(num_hole):
                cmask[m] |= np.uint64(1) << np.uint64(combos[m, a])
    nchunks = min(n, 64)
    for c in prange(nchunks):
        ranks = np.empty(m_all, dtype=np.int64)
        buf = np.empty(num_hole + board_end[nr - 1], dtype=np.int64)
        mine = np.empty(2, dtype=np.int64)
        for i in range(c * n // nchunks, (c + 1) * n // nchunks):
            for p in range(2):
                c0 = deals[i, p * num_hole]
                c1 = deals[i, p * num_hole + 1] if num_hole == 2 else c0
                mine[p] = combo_id[c0, c1]
            for r in range(nr):
                nb = board_end[r]
                if nb == 0:
                    for p in range(2):
                        out[i, p, r] = strength_class(preflop_hs[mine[p]], raise_at, call_at)
                    continue
                k = num_hole + nb
                bmask = np.uint64(0)
                for j in range(nb):
                    buf[num_hole + j] = deals[i, b0 + j]
                    bmask |= np.uint64(1) << np.uint64(deals[i, b0 + j])
                for m in range(m_all):
                    if cmask[m] & bmask:
                        ranks[m] = -1
                        continue
                    for a in range(num_hole):
                        buf[a] = combos[m, a]
                    ranks[m] = _rank_k(buf, k)
                for p in range(2):
                    my = ranks[mine[p]]
                    hmask = cmask[mine[p]]
                    wins2 = 0
                    count = 0
                    for m in range(m_all):
                        rm = ranks[m]
                        if rm < 0 or cmask[m] & hmask:
                            continue
                        if my > rm:
                            wins2 += 2
                        elif my == rm:
                            wins2 += 1
                        count += 1
                    out[i, p, r] = strength_class(wins2 / (2.0 * count), raise_at, call_at)
    return out


# ----------------------------------------------------------------------------- lossless states
# The numbering of ``cfrlab.abstraction.lossless`` (its module docstring): at round r,
# state = block * C(m_r, h) + k, where k is the lexicographic rank of the hole cards among
# the m_r deck positions left after the board, and block = parent block * C(m_{r-1}, nb_r) +
# the lexicographic rank of round r's new board cards among the m_{r-1} positions left before.


@njit(cache=NUMBA_CACHE)
def _lex_rank(idx, k, m, binom):
    """Rank of the sorted k-subset idx[:k] of range(m) in itertools.combinations order."""
    rank = 0
    prev = -1
    for i in range(k):
        for v in range(prev + 1, idx[i]):
            rank += binom[m - 1 - v, k - 1 - i]
        prev = idx[i]
    return rank


@njit(cache=NUMBA_CACHE)
def _local_sorted(cards, start, k, pos_of_card, removed, out):
    """out[:k] = sorted indices, among the positions not yet removed, of cards[start:start+k]."""
    for j in range(k):
        p = pos_of_card[cards[start + j]]
        below = 0
        for q in range(p):
            if removed[q]:
                below += 1
        v = p - below
        t = j
        while t > 0 and out[t - 1] > v:  # insertion sort (k <= 3)
            out[t] = out[t - 1]
            t -= 1
        out[t] = v


@njit(cache=NUMBA_CACHE, parallel=True)
def lossless_states(deals, pos_of_card, num_hole, num_board, deck_size, binom):
    """int32[n, 2, R]: lossless private state of both positions per round."""
    n = deals.shape[0]
    nr = num_board.shape[0]
    out = np.empty((n, 2, nr), dtype=np.int32)
    nchunks = min(n, 64)
    for c in prange(nchunks):
        removed = np.zeros(deck_size, dtype=np.bool_)
        idx = np.empty(8, dtype=np.int64)
        for i in range(c * n // nchunks, (c + 1) * n // nchunks):
            removed[:] = False
            block = 0
            start = 2 * num_hole
            m = deck_size
            for r in range(nr):
                cnt = num_board[r]
                if cnt > 0:
                    _local_sorted(deals[i], start, cnt, pos_of_card, removed, idx)
                    block = block * binom[m, cnt] + _lex_rank(idx, cnt, m, binom)
                    for j in range(cnt):
                        removed[pos_of_card[deals[i, start + j]]] = True
                    start += cnt
                    m -= cnt
                size = binom[m, num_hole]
                for p in range(2):
                    _local_sorted(deals[i], p * num_hole, num_hole, pos_of_card, removed, idx)
                    out[i, p, r] = block * size + _lex_rank(idx, num_hole, m, binom)
    return out
