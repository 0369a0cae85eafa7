"""Numba kernel of AIVAT (``cfrlab.evaluate.aivat`` wraps it).

Per hand: the all-in equities of the two holdings at every round reached (enumerating the
board cards still to come, as DIVAT does), the path from the root to the hand's terminal
node, and along it the two kinds of control variates, both from position 0's view.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cfrlab.config import NUMBA_CACHE
from cfrlab.evaluate._divat_kernels import _enum_round

DECISION, CHANCE, FOLD = 0, 1, 2  # SHOWDOWN = 3


@njit(cache=NUMBA_CACHE, inline="always")
def _calldown(e0, s0, s1):
    """Position 0's value when the pot goes to showdown after the last bet is called."""
    m = max(s1, s0)
    return (2.0 * e0 - 1.0) * m


@njit(cache=NUMBA_CACHE, inline="always")
def _value(node, kind, player, rnd, spent, eqs):
    """The value function V at a node: exact at a fold, call-down at equity elsewhere."""
    k = kind[node]
    if k == FOLD:
        if player[node] == 0:
            return -float(spent[node, 0])
        return float(spent[node, 1])
    return _calldown(eqs[rnd[node]], float(spent[node, 0]), float(spent[node, 1]))


@njit(cache=NUMBA_CACHE, inline="always")
def _dist(pol, row, nxt, node, greedy, out):
    """The action distribution the match kernel's ``_choose`` samples from (legal actions)."""
    for a in range(3):
        out[a] = 0.0
    if greedy:
        best = -1
        bp = -1.0
        for a in range(3):
            if nxt[node, a] >= 0 and pol[row, a] > bp:
                bp = pol[row, a]
                best = a
        out[best] = 1.0
        return
    cum = 0.0
    last = -1
    for a in range(3):
        if nxt[node, a] >= 0 and pol[row, a] > 0.0:
            p = pol[row, a]
            if cum + p > 1.0:
                p = 1.0 - cum
            out[a] = p
            cum += p
            last = a
    if last < 0:
        out[1] = 1.0  # an all-zero row plays call
    else:
        out[last] += 1.0 - cum  # rounding: what is left goes to the last positive action


@njit(cache=NUMBA_CACHE, parallel=True)
def aivat_hands(holes, boards, term, kind, player, rnd, spent, parent, nxt, decision,
                known, pol0, off0, st0, step0, greedy0, pol1, off1, st1, step1, greedy1,
                deck, hold_id, eq0_table, num_board, max_depth, vt, vsel, kroot, out):
    """Fill out[i] = (money, money minus the chance terms, AIVAT) for position 0.

    ``term[i]`` the hand's terminal node; ``known[i, p]`` which table plays position p (0 or
    1; -1: not known); table t is ``pol_t``/``off_t`` with private states ``st_t[i * step_t,
    p, round]`` (step 0: one row for every hand, card-independent agents). With ``vsel[i, 0]``
    >= 0 the value function is the table ``vt[vsel[i, 0], vsel[i, 1], node]`` (a profile's
    values given the cards so far) and the deal's term is centred on ``kroot[vsel[i, 0]]``;
    else it is the call-down value."""
    n = holes.shape[0]
    nr = num_board.shape[0]
    h = holes.shape[2]
    starts = np.zeros(nr + 1, dtype=np.int64)
    for r in range(nr):
        starts[r + 1] = starts[r] + num_board[r]
    btot = starts[nr]
    for i in prange(n):
        hole = holes[i]
        board = boards[i]
        t = term[i]
        last = rnd[t]
        eqs = np.zeros(nr, dtype=np.float64)
        unused = np.zeros(1, dtype=np.float64)  # _enum_round's baseline thresholds (not asked for)
        eqs[0] = eq0_table[hold_id[hole[0, 0], hole[0, h - 1]], hold_id[hole[1, 0], hole[1, h - 1]]]
        for r in range(1, last + 1):
            k = starts[r + 1]
            eqs[r] = _enum_round(hole, h, board, k, 0, btot - k, deck, 0, 0, 0, 0, 0, unused, False, False)[0]
        path = np.empty(max_depth, dtype=np.int64)
        depth = 0
        x = t
        while x >= 0:
            path[depth] = x
            depth += 1
            x = parent[x]
        s_ = vsel[i, 0]
        di = vsel[i, 1]
        money = _value(t, kind, player, rnd, spent, eqs)
        root = path[depth - 1]
        if s_ >= 0:
            luck = vt[s_, di, root] - kroot[s_]
        else:  # V at the root has mean 0 over deals (position 0's mean equity is 1/2)
            luck = _calldown(eqs[0], float(spent[root, 0]), float(spent[root, 1]))
        act = 0.0
        dist = np.empty(3, dtype=np.float64)
        for j in range(depth - 1, 0, -1):
            node = path[j]
            child = path[j - 1]
            if kind[node] == CHANCE:
                # V after the cards minus V before: V is a martingale over the cards
                if s_ >= 0:
                    luck += vt[s_, di, child] - vt[s_, di, node]
                else:
                    luck += _value(child, kind, player, rnd, spent, eqs) - _value(node, kind, player, rnd, spent, eqs)
                continue
            p = player[node]
            tab = known[i, p]
            if tab < 0:
                continue
            d = decision[node]
            r = rnd[node]
            if tab == 0:
                _dist(pol0, off0[d] + st0[i * step0, p, r], nxt, node, greedy0, dist)
            else:
                _dist(pol1, off1[d] + st1[i * step1, p, r], nxt, node, greedy1, dist)
            base = 0.0
            for a in range(3):
                if dist[a] > 0.0:
                    c = nxt[node, a]
                    base += dist[a] * (vt[s_, di, c] if s_ >= 0 else _value(c, kind, player, rnd, spent, eqs))
            act += (vt[s_, di, child] if s_ >= 0 else _value(child, kind, player, rnd, spent, eqs)) - base
        out[i, 0] = money
        out[i, 1] = money - luck
        out[i, 2] = money - luck - act


@njit(cache=NUMBA_CACHE, parallel=True)
def profile_values(kind, player, rnd, spent, nxt, decision, winner, pos_tab, pol0, off0, st0, step0, greedy0,
                   pol1, off1, st1, step1, greedy1, out):
    """out[d, n]: position 0's expected value at node n of full deal d (every card known)
    when position p plays table ``pos_tab[p]``; nodes are visited children first."""
    nd, nn = out.shape
    for i in prange(nd):
        dist = np.empty(3, dtype=np.float64)
        for node in range(nn - 1, -1, -1):
            k = kind[node]
            if k == FOLD:
                out[i, node] = -float(spent[node, 0]) if player[node] == 0 else float(spent[node, 1])
            elif k == CHANCE:
                out[i, node] = out[i, nxt[node, 1]]
            elif k == DECISION:
                p = player[node]
                d = decision[node]
                r = rnd[node]
                if pos_tab[p] == 0:
                    _dist(pol0, off0[d] + st0[i * step0, p, r], nxt, node, greedy0, dist)
                else:
                    _dist(pol1, off1[d] + st1[i * step1, p, r], nxt, node, greedy1, dist)
                v = 0.0
                for a in range(3):
                    if dist[a] > 0.0:
                        v += dist[a] * out[i, nxt[node, a]]
                out[i, node] = v
            else:  # showdown
                w = winner[i]
                if w > 0:
                    out[i, node] = float(spent[node, 1])
                elif w < 0:
                    out[i, node] = -float(spent[node, 0])
                else:
                    out[i, node] = 0.5 * float(spent[node, 1] - spent[node, 0])
