"""Numba kernel of the rotated-seat N-player match: every deal played once per seat assignment.

A deal is a final-round prefix index of ``cfrlab.abstraction.deals`` (all deals equally likely).
Randomness is counter-based (the match engine's splitmix64 of (seed, stream, hand),
``cfrlab.evaluate.kernels``), so a game's draws depend only on the seed, the seat assignment and
the hand number, never on batch sizes or threads.

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
from cfrlab.engine import kernels as EK
from cfrlab.evaluate import kernels as EVK
from cfrlab.tree import CHANCE, DECISION

MatchTree = namedtuple("MatchTree", "kind player rnd decision next_node spent folded off")


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
        pay = np.empty(P)
        anc[R - 1] = xs[i]
        for r in range(R - 1, 0, -1):
            anc[r - 1] = ppar[pre_off[r] + anc[r]]
        xl = xs[i]
        for k in range(K):
            for a in range(A):
                values[k, i, a] = 0.0
            rs = EVK.hand_key(seed, 1 + k, hand)
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
                rs, u = EVK.next_uniform(rs)
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
            EK.nplayer_terminal_payoffs(kind, spent, folded, nd, strength, xl, pay)
            for p in range(P):
                values[k, i, seats[k, (p + hand) % P]] = pay[p]
