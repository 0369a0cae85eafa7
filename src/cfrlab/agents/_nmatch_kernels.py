"""Numba kernel of the rotated-seat N-player match: every deal played once per seat assignment.

A deal is a final-round prefix index of ``cfrlab.abstraction.deals`` (all deals equally likely).
Randomness is counter-based (splitmix64 of (seed, stream, hand)), so a game's draws depend only
on the seed, the seat assignment and the hand number, never on batch sizes or threads.

Arrays:

* ``T`` (``MatchTree``): ``kind`` int8[N], ``player`` int8[N], ``rnd`` int8[N], ``decision``
  int32[N], ``next_node`` int32[N, 3] (child by f / c / r, -1 if illegal; a chance node's child
  in column 0), ``spent`` float64[N, P], ``folded`` bool[N, P], ``off`` int64[D + 1] (rows).
* ``D``: ``cfrlab.abstraction.deals.DealArrays`` (``pre_off``, ``state``, ``ppar``, ``strength``).
* ``pols`` float64[A, rows, 3]: each agent's table (already greedy where the agent is).
* ``seats`` int32[K, P]: agent in each seat for assignment k; in hand h the player at
  position p sits in seat ``(p + h) mod P`` (the ACPC dealer's rotation).
* ``xs`` int64[n]: the deals (local indices of the last round's prefixes).
* outputs: ``values`` float32[K, n, A] (each agent's net chips; agents not seated get 0),
  ``terminal`` int32[K, n] (the final node of each game).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.config import NUMBA_CACHE

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3

MatchTree = namedtuple("MatchTree", "kind player rnd decision next_node spent folded off")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STREAM = np.uint64(0xD1B54A32D192ED03)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=NUMBA_CACHE)
def _mix(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=NUMBA_CACHE)
def _key(seed, stream, hand):
    k = _mix(np.uint64(seed))
    k = _mix(k ^ (np.uint64(stream) * _STREAM))
    return _mix(k ^ np.uint64(hand))


@njit(cache=NUMBA_CACHE)
def _uniform(state):
    state = state + _GOLDEN
    return state, (_mix(state) >> np.uint64(11)) * _TO_UNIT


@njit(cache=NUMBA_CACHE, parallel=True)
def play_games(T, D, pols, seats, xs, seed, first_hand, values, terminal):
    kind, player, rnd, decision, next_node, spent, folded, off = T
    pre_off, state, ppar, strength = D
    K, P = seats.shape
    A = pols.shape[0]
    R = pre_off.shape[0] - 1
    n = xs.shape[0]
    for i in prange(n):
        hand = first_hand + i
        anc = np.empty(R, np.int64)
        anc[R - 1] = xs[i]
        for r in range(R - 1, 0, -1):
            anc[r - 1] = ppar[pre_off[r] + anc[r]]
        xl = xs[i]
        for k in range(K):
            for a in range(A):
                values[k, i, a] = 0.0
            rs = _key(seed, 1 + k, hand)
            nd = 0
            while kind[nd] == DECISION or kind[nd] == CHANCE:
                if kind[nd] == CHANCE:
                    nd = next_node[nd, 0]
                    continue
                p = player[nd]
                ag = seats[k, (p + hand) % P]
                r = rnd[nd]
                row = off[decision[nd]] + state[p, pre_off[r] + anc[r]]
                u = 0.0
                rs, u = _uniform(rs)
                acc = 0.0
                pick = -1
                last = -1
                for act in range(3):
                    if next_node[nd, act] < 0:
                        continue
                    pr = pols[ag, row, act]
                    if pr > 0.0:
                        last = act
                        acc += pr
                        if pick < 0 and u < acc:
                            pick = act
                if pick < 0:
                    pick = last if last >= 0 else 1
                nd = next_node[nd, pick]
            terminal[k, i] = nd
            pot = 0.0
            for p in range(P):
                pot += spent[nd, p]
            if kind[nd] == FOLD:
                for p in range(P):
                    ag = seats[k, (p + hand) % P]
                    if folded[nd, p]:
                        values[k, i, ag] = -spent[nd, p]
                    else:
                        values[k, i, ag] = pot - spent[nd, p]
            else:
                top = -1
                cnt = 0
                for p in range(P):
                    if not folded[nd, p]:
                        s = strength[p, xl]
                        if s > top:
                            top = s
                            cnt = 1
                        elif s == top:
                            cnt += 1
                for p in range(P):
                    ag = seats[k, (p + hand) % P]
                    if folded[nd, p] or strength[p, xl] != top:
                        values[k, i, ag] = -spent[nd, p]
                    else:
                        values[k, i, ag] = pot / cnt - spent[nd, p]
