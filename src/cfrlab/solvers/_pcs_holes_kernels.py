"""Numba kernel of public chance sampling over hole-card pairs (bucketed models).

One iteration sees one sampled board (all rounds' public cards). Every node's vector has one
slot per hole pair h that misses the board (the same slots on every round, for both
players); slot h of player p reads and writes the policy row ``row_off[d] + smap[p, r, h]``
(its bucket sequence), so many slots share a row. Terminal values are exact on the board,
card removal included, in O(H + deck) per terminal:

- fold: sum of the opponent's reach over the pairs disjoint from h
  = total - by_card[c0] - by_card[c1] + own (the pair itself was taken out twice);
- showdown: the same sums restricted to weaker (stronger) pairs, by one sweep over the
  pairs in rank order with per-card running sums.

Arrays: ``nodes``/``child``/``row_off``/``legal`` as in ``cfrlab.engine._kernels``; ``node_u``
float64[N] (player 0's winnings at a fold, the stake at a showdown); ``reach``/``values``
float64[2, N, H]; ``order`` int64[H] (slots by river rank, ascending), ``gend`` int64[H]
(end of the tie group of each sorted position); ``c0``/``c1`` int64[H] the pair's
cards (deck positions < D); ``trav`` bool[2]: players whose regrets/averages are updated.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import kernels as EK
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN

HoleTree = namedtuple("HoleTree", "nodes child row_off legal node_u")
BoardTables = namedtuple("BoardTables", "smap c0 c1 D order gend")


@njit(cache=NUMBA_CACHE)
def _fold_values(R, c0, c1, D, f, out):
    H = R.shape[0]
    by_card = np.zeros(D)
    tot = 0.0
    for h in range(H):
        x = R[h]
        tot += x
        by_card[c0[h]] += x
        by_card[c1[h]] += x
    for h in range(H):
        out[h] = f * (tot - by_card[c0[h]] - by_card[c1[h]] + R[h])


@njit(cache=NUMBA_CACHE)
def _showdown_values(R, c0, c1, D, order, gend, f, out):
    H = R.shape[0]
    tot = 0.0
    tot_card = np.zeros(D)
    for h in range(H):
        tot += R[h]
        tot_card[c0[h]] += R[h]
        tot_card[c1[h]] += R[h]
    below = 0.0  # reach of the pairs in tie groups below the current one, in all and by card
    below_card = np.zeros(D)
    grp_card = np.zeros(D)  # the current group's, by card
    j = 0
    while j < H:
        e = gend[j]
        upto = below
        for k in range(j, e):
            h = order[k]
            upto += R[h]
            grp_card[c0[h]] += R[h]
            grp_card[c1[h]] += R[h]
        for k in range(j, e):
            h = order[k]
            a, b = c0[h], c1[h]
            win = below - below_card[a] - below_card[b]
            # stronger pairs holding a: all holding a minus those below or tied
            lose = ((tot - upto) - (tot_card[a] - below_card[a] - grp_card[a])
                    - (tot_card[b] - below_card[b] - grp_card[b]))
            out[h] = f * (win - lose)
        for k in range(j, e):
            h = order[k]
            below += R[h]
            below_card[c0[h]] += R[h]
            below_card[c1[h]] += R[h]
            grp_card[c0[h]] = 0.0
            grp_card[c1[h]] = 0.0
        j = e


@njit(cache=NUMBA_CACHE)
def holes_iteration(tree, board, scale, regret, avg, sigma, reach, values, trav):
    """One walk on one board: regret matching, reach, terminal values, then values bottom-up
    with the CFR regret and average sums (plain adds: discounts and floors are applied to
    whole tables by the caller) at the rows of the players in ``trav``.

    ``tree`` HoleTree, ``board`` BoardTables (``HolePairPCS.board_tables``)."""
    nodes, child, row_off, legal, node_u = tree
    smap, c0, c1, D, order, gend = board
    N = nodes.shape[0]
    H = smap.shape[2]
    for n in range(N):
        kind = nodes[n, EK.COL_KIND]
        if kind == DECISION:
            q = nodes[n, EK.COL_PLAYER]
            r = nodes[n, EK.COL_ROUND]
            base = row_off[nodes[n, EK.COL_DECISION]]
            for h in range(H):
                EK.regret_match_rows(regret, legal, nodes[n, EK.COL_DECISION], base + smap[q, r, h], 1, sigma)
        if n == 0:
            for p in range(2):
                for h in range(H):
                    reach[p, 0, h] = 1.0
            continue
        p = nodes[n, EK.COL_PARENT]
        for pl in range(2):
            for h in range(H):
                reach[pl, n, h] = reach[pl, p, h]
        if nodes[p, EK.COL_KIND] == DECISION:
            q = nodes[p, EK.COL_PLAYER]
            r = nodes[p, EK.COL_ROUND]
            base = row_off[nodes[p, EK.COL_DECISION]]
            a = nodes[n, EK.COL_ACTION]
            for h in range(H):
                reach[q, n, h] *= sigma[base + smap[q, r, h], a]
    for n in range(N):
        kind = nodes[n, EK.COL_KIND]
        if kind == FOLD:
            for i in range(2):
                if trav[i]:
                    u = node_u[n] if i == 0 else -node_u[n]
                    _fold_values(reach[1 - i, n], c0, c1, D, u * scale, values[i, n])
        elif kind == SHOWDOWN:
            for i in range(2):
                if trav[i]:
                    _showdown_values(reach[1 - i, n], c0, c1, D, order, gend,
                                     node_u[n] * scale, values[i, n])
    for n in range(N - 1, -1, -1):
        kind = nodes[n, EK.COL_KIND]
        if kind >= FOLD:
            continue
        fc = nodes[n, EK.COL_FCHILD]
        nc = nodes[n, EK.COL_NCHILD]
        if kind == CHANCE:
            for i in range(2):
                if trav[i]:
                    values[i, n, :] = values[i, child[fc], :]
            continue
        q = nodes[n, EK.COL_PLAYER]
        r = nodes[n, EK.COL_ROUND]
        base = row_off[nodes[n, EK.COL_DECISION]]
        for i in range(2):
            if not trav[i]:
                continue
            if i != q:
                for h in range(H):
                    v = 0.0
                    for ci in range(nc):
                        v += values[i, child[fc + ci], h]
                    values[i, n, h] = v
                continue
            for h in range(H):
                x = base + smap[q, r, h]
                v = 0.0
                for ci in range(nc):
                    c = child[fc + ci]
                    v += sigma[x, nodes[c, EK.COL_ACTION]] * values[i, c, h]
                values[i, n, h] = v
                w = reach[i, n, h]
                for ci in range(nc):
                    c = child[fc + ci]
                    a = nodes[c, EK.COL_ACTION]
                    regret[x, a] += values[i, c, h] - v
                    avg[x, a] += w * sigma[x, a]
