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
from numba import njit, prange

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import kernels as EK
from cfrlab.engine.kernels import disjoint_sum, showdown_sweep
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN

HoleTree = namedtuple("HoleTree", "nodes child row_off legal node_u")
BoardTables = namedtuple("BoardTables", "smap cards D order gend")
EVERY = np.zeros(0, np.int64)  # disjoint_sum's hand list when it covers every hand


@njit(cache=NUMBA_CACHE, parallel=True)
def holes_iteration(tree, board, scale, regret, avg, sigma, reach, values, trav):
    """One walk on one board: regret matching, reach, terminal values, then values bottom-up
    with the CFR regret and average sums (plain adds: discounts and floors are applied to
    whole tables by the caller) at the rows of the players in ``trav``.

    The walk splits by player, with no shared writes: player p's sigma rows and reach need
    only p's regrets, and traverser i's values need i's sigma and reach and the opponent's
    reach, and write only i's rows (a decision belongs to one player). So the two players
    run on two threads, first their forward halves, then their value halves, each doing the
    same floating-point operations in the same order as one thread would.

    ``tree`` HoleTree, ``board`` BoardTables (``HolePairPCS.board_tables``)."""
    for pl in prange(2):
        _forward_player(tree, board, regret, sigma, reach, pl)
    for i in prange(2):
        if trav[i]:
            _values_player(tree, board, scale, regret, avg, sigma, reach, values, i)


@njit(cache=NUMBA_CACHE)
def _forward_player(tree, board, regret, sigma, reach, pl):
    """Regret matching at ``pl``'s decisions and ``pl``'s reach at every node (preorder)."""
    nodes, _child, row_off, legal, _node_u = tree
    smap = board[0]
    N = nodes.shape[0]
    H = smap.shape[2]
    for n in range(N):
        kind = nodes[n, EK.COL_KIND]
        if kind == DECISION and nodes[n, EK.COL_PLAYER] == pl:
            r = nodes[n, EK.COL_ROUND]
            d = nodes[n, EK.COL_DECISION]
            base = row_off[d]
            for h in range(H):
                EK.regret_match_rows(regret, legal, d, base + smap[pl, r, h], 1, sigma)
        if n == 0:
            for h in range(H):
                reach[pl, 0, h] = 1.0
            continue
        p = nodes[n, EK.COL_PARENT]
        for h in range(H):
            reach[pl, n, h] = reach[pl, p, h]
        if nodes[p, EK.COL_KIND] == DECISION and nodes[p, EK.COL_PLAYER] == pl:
            r = nodes[p, EK.COL_ROUND]
            base = row_off[nodes[p, EK.COL_DECISION]]
            a = nodes[n, EK.COL_ACTION]
            for h in range(H):
                reach[pl, n, h] *= sigma[base + smap[pl, r, h], a]


@njit(cache=NUMBA_CACHE)
def _values_player(tree, board, scale, regret, avg, sigma, reach, values, i):
    """Traverser ``i``'s terminal values against the opponent's reach, then its values
    bottom-up with the regret and average sums at its own decisions' rows."""
    nodes, child, row_off, _legal, node_u = tree
    smap, cards, D, order, gend = board
    N = nodes.shape[0]
    H = smap.shape[2]
    csum = np.zeros(D)  # per-card sums, one allocation a walk
    for n in range(N):
        kind = nodes[n, EK.COL_KIND]
        if kind == FOLD:
            u = node_u[n] if i == 0 else -node_u[n]
            disjoint_sum(reach[1 - i, n], cards, 2, csum, values[i, n], u * scale, EVERY, -1)
        elif kind == SHOWDOWN:
            showdown_sweep(reach[1 - i, n], cards, 2, D, order, gend, node_u[n] * scale, values[i, n])
    for n in range(N - 1, -1, -1):
        kind = nodes[n, EK.COL_KIND]
        if kind >= FOLD:
            continue
        fc = nodes[n, EK.COL_FCHILD]
        nc = nodes[n, EK.COL_NCHILD]
        if kind == CHANCE:
            values[i, n, :] = values[i, child[fc], :]
            continue
        q = nodes[n, EK.COL_PLAYER]
        if i != q:
            for h in range(H):
                v = 0.0
                for ci in range(nc):
                    v += values[i, child[fc + ci], h]
                values[i, n, h] = v
            continue
        r = nodes[n, EK.COL_ROUND]
        base = row_off[nodes[n, EK.COL_DECISION]]
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


@njit(cache=NUMBA_CACHE)
def discount_tables(regret, avg, pos_f, neg_f, avg_f, floor):
    """In place, without temporaries: regrets times pos_f (positive) or neg_f (negative),
    averages times avg_f, then (``floor``) negative regrets to 0."""
    R, A = regret.shape
    for x in range(R):
        for a in range(A):
            v = regret[x, a]
            v *= pos_f if v > 0.0 else neg_f
            if floor and v < 0.0:
                v = 0.0
            regret[x, a] = v
            if avg_f != 1.0:
                avg[x, a] *= avg_f
