"""Hand strength kernels: HS (the chance of beating one uniformly random opponent holding
now, ties counting half) of a holding with a board, and the three-way strength classes the
value bot and the fast match engine use.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.cards._eval_kernels import rank5, rank6, rank7, rank_cards
from cfrlab.config import NUMBA_CACHE

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
