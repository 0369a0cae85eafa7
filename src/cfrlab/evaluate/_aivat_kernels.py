"""Numba kernel of AIVAT (``cfrlab.evaluate.aivat`` wraps it).

Per hand: the all-in equities of the two holdings at every round reached (enumerating the
board cards still to come, as DIVAT does), the path from the root to the hand's terminal
node, and along it the two kinds of control variates, both from position 0's view.

The kernels take their arrays in named groups (namedtuples, passed by numba as typed tuples):

- ``PublicTree``: the public tree (``build_tree`` numbering), int64 per node: ``kind``,
  ``player``, ``rnd``, ``spent`` [N, 2], ``parent``, ``nxt`` [N, 3] (the child of fold, call
  and raise, -1 where illegal), ``decision``; ``depth`` the most nodes on a root-to-leaf path;
- ``KnownTable``: a known strategy as the match engine plays it: ``policy`` float64[rows, 3],
  ``offsets`` int64[D] (the first row of each decision), ``states`` int32[., 2, R] the private
  state of (hand or deal ``i * step``, position, round), ``step`` 0 for a card-independent
  agent (one row for every hand), ``greedy`` (plays its most likely action);
- ``AivatHands``: per hand ``holes`` int64[n, 2, h], ``boards`` int64[n, B], ``term`` the
  terminal node, ``known`` int64[n, 2] which table plays each position (0 or 1; -1: not
  known), ``vsel`` int64[n, 2] the (seat, deal) row of the hand in the exact values (-1: the
  call-down value);
- ``ExactValues``: ``table`` float64[2, deals, N] a profile's values given the cards so far
  (``profile_values``, averaged by prefix), ``kroot`` float64[2] their mean at the root;
- ``DealTables`` (``_divat_kernels``): the deck and the preflop equities.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.config import NUMBA_CACHE
from cfrlab.evaluate._divat_kernels import _enum_round, board_starts, no_bets, round_equities

DECISION, CHANCE, FOLD = 0, 1, 2  # SHOWDOWN = 3

PublicTree = namedtuple("PublicTree", "kind player rnd spent parent nxt decision depth")
KnownTable = namedtuple("KnownTable", "policy offsets states step greedy")
AivatHands = namedtuple("AivatHands", "holes boards term known vsel")
ExactValues = namedtuple("ExactValues", "table kroot")


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
def _dist(tab, i, p, node, tree, out):
    """The action distribution the match kernel's ``_choose`` samples from (legal actions)
    when the ``KnownTable`` ``tab`` plays position p of hand (or deal) i at ``node``."""
    pol = tab.policy
    nxt = tree.nxt
    row = tab.offsets[tree.decision[node]] + tab.states[i * tab.step, p, tree.rnd[node]]
    greedy = tab.greedy
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
            w = pol[row, a]
            if cum + w > 1.0:
                w = 1.0 - cum
            out[a] = w
            cum += w
            last = a
    if last < 0:
        out[1] = 1.0  # an all-zero row plays call
    else:
        out[last] += 1.0 - cum  # rounding: what is left goes to the last positive action


@njit(cache=NUMBA_CACHE, inline="always")
def _known_dist(tab0, tab1, which, i, p, node, tree, out):
    """``_dist`` of the known table ``which`` (0: ``tab0``, 1: ``tab1``)."""
    if which == 0:
        _dist(tab0, i, p, node, tree, out)
    else:
        _dist(tab1, i, p, node, tree, out)


@njit(cache=NUMBA_CACHE, parallel=True)
def aivat_hands(hands, tree, tab0, tab1, deal, exact, out):
    """Fill out[i] = (money, money minus the chance terms, AIVAT) for position 0.

    ``hands`` ``AivatHands``, ``tree`` ``PublicTree``, ``tab0`` / ``tab1`` the known tables
    (``KnownTable``), ``deal`` ``DealTables`` (module docstring). With ``vsel[i, 0]`` >= 0 the
    value function is ``exact.table[vsel[i, 0], vsel[i, 1], node]`` (a profile's values given
    the cards so far) and the deal's term is centred on ``exact.kroot[vsel[i, 0]]``; else it
    is the call-down value."""
    holes, boards, term, known, vsel = hands.holes, hands.boards, hands.term, hands.known, hands.vsel
    kind, player, rnd, spent, parent, nxt = tree.kind, tree.player, tree.rnd, tree.spent, tree.parent, tree.nxt
    vt, kroot = exact.table, exact.kroot
    n = holes.shape[0]
    nr = deal.num_board.shape[0]
    starts = board_starts(deal.num_board)
    btot = starts[nr]
    for i in prange(n):
        hole = holes[i]
        board = boards[i]
        t = term[i]
        last = rnd[t]
        eqs = round_equities(hole, deal)
        unused = np.zeros(1, dtype=np.float64)  # _enum_round's baseline thresholds (not asked for)
        for r in range(1, last + 1):
            k = starts[r + 1]
            eqs[r] = _enum_round(hole, board, k, 0, btot - k, deal.deck, no_bets(), unused, False, False)[0]
        path = np.empty(tree.depth, dtype=np.int64)
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
            _known_dist(tab0, tab1, tab, i, p, node, tree, dist)
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
def profile_values(tree, winner, pos_tab, tab0, tab1, out):
    """out[d, n]: position 0's expected value at node n of full deal d (every card known)
    when position p plays the known table ``pos_tab[p]`` (0: ``tab0``, 1: ``tab1``); nodes
    are visited children first."""
    kind, player, spent, nxt = tree.kind, tree.player, tree.spent, tree.nxt
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
                _known_dist(tab0, tab1, pos_tab[p], i, p, node, tree, dist)
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
