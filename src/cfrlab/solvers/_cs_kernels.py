"""Numba kernel of chance-sampled CFR (Zinkevich 2007): one joint deal per iteration.

The walk carries one reach and one value per node and player (scalars, ``float64[2, N]``);
the sampled deal is a pair of private-state sequences ``st[p, r]`` drawn from the final
round's joint table P (any chance model: lossless, or bucketed with dense tables). A fold is
worth the fold winnings times the opponent's reach; a showdown the stake times W / P of the
pair (+-1 or 0 for lossless models, the expected result of the bucket pair otherwise).
Layouts as in ``cfrlab.engine._kernels``; ``node_u`` float64[N] holds player 0's winnings at a fold
and the stake at a showdown; ``subtree_end`` int64[N] ends each node's preorder subtree.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import kernels as EK
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN

CsTree = namedtuple("CsTree", "nodes child row_off legal node_u subtree_end pmap pmap_off")
CsChance = namedtuple("CsChance", "optab opbuf fold_op sd_op cdf")


@njit(cache=NUMBA_CACHE)
def _sample_cs(u0, u1, cdf, optab, opbuf, fold_op, pmap, pmap_off, R, st, scale):
    """One joint final-round state pair (s0, s1) ~ P_{R-1}, its ancestors, and 1 / P_r."""
    s0 = np.searchsorted(cdf, u0 * cdf[-1], side="right")
    if s0 >= cdf.shape[0]:
        s0 = cdf.shape[0] - 1
    op = fold_op[R - 1]
    off, K, H = optab[op, 0], optab[op, 1], optab[op, 3]
    b = s0 // H
    k0 = s0 - b * H
    boff = off + (b % K) * H * H
    tot = cdf[s0] - (cdf[s0 - 1] if s0 > 0 else 0.0)  # the row's mass: P[s0, :].sum()
    target = u1 * tot  # row s0 of P is column k0 of G_0 = P^T
    acc = 0.0
    k1 = -1
    for j in range(H):
        p = opbuf[boff + j * H + k0]
        if p > 0.0:
            k1 = j
            acc += p
            if acc > target:
                break
    s1 = b * H + k1
    for r in range(R - 1, -1, -1):
        st[0, r] = s0
        st[1, r] = s1
        op = fold_op[r]
        off, K, H = optab[op, 0], optab[op, 1], optab[op, 3]
        b = s0 // H
        scale[r] = 1.0 / opbuf[off + (b % K) * H * H + (s1 - b * H) * H + (s0 - b * H)]
        if r > 0:
            s0 = pmap[pmap_off[r] + s0]
            s1 = pmap[pmap_off[r] + s1]


@njit(cache=NUMBA_CACHE, inline="always")
def _cs_pass(tree, tables, st, sd, reach, val, skip_to, trav, steps, prune, wide):
    """One walk of chance-sampled CFR on scalars: the deal's states are ``st[p, r]``; a
    showdown is worth ``sd`` (= W / P of the pair) per chip of stake to player 0. ``tree``
    CsTree, ``tables`` SolverTables, ``steps`` = (pos_f, neg_f, avg_f, floor) of the
    iteration; ``skip_to`` int64[N] scratch (-1).

    With ``prune``, a subtree neither player reaches is skipped (its values are 0, so regrets
    and averages would not change; only valid without discounting). ``wide`` (a literal): the
    tables have more than three columns."""
    nodes, child, row_off, legal, node_u, subtree_end, _pmap, _pmap_off = tree
    regret, _pred, avg, sigma = tables
    pos_f, neg_f, avg_f, floor = steps
    N = nodes.shape[0]
    reach[0, 0] = 1.0
    reach[1, 0] = 1.0
    n = 0
    while n < N:
        if n > 0:
            p = nodes[n, EK.COL_PARENT]
            if nodes[p, EK.COL_KIND] == DECISION:
                q = nodes[p, EK.COL_PLAYER]
                row = row_off[nodes[p, EK.COL_DECISION]] + st[q, nodes[p, EK.COL_ROUND]]
                reach[q, n] = reach[q, p] * sigma[row, nodes[n, EK.COL_ACTION]]
                reach[1 - q, n] = reach[1 - q, p]
            else:
                reach[0, n] = reach[0, p]
                reach[1, n] = reach[1, p]
            if prune and reach[0, n] == 0.0 and reach[1, n] == 0.0:
                skip_to[subtree_end[n] - 1] = n
                n = subtree_end[n]
                continue
        if nodes[n, EK.COL_KIND] == DECISION:
            q = nodes[n, EK.COL_PLAYER]
            d = nodes[n, EK.COL_DECISION]
            row = row_off[d] + st[q, nodes[n, EK.COL_ROUND]]
            if wide:
                EK.regret_match_rows(regret, legal, d, row, 1, sigma)
            else:
                EK.limit_match_rows(regret, legal, d, row, 1, sigma)
        n += 1
    n = N - 1
    while n >= 0:
        m = skip_to[n]
        if m >= 0:
            skip_to[n] = -1
            val[0, m] = 0.0
            val[1, m] = 0.0
            n = m - 1
            continue
        kind = nodes[n, EK.COL_KIND]
        fc = nodes[n, EK.COL_FCHILD]
        if kind == FOLD:
            u = node_u[n]
            val[0, n] = u * reach[1, n]
            val[1, n] = -u * reach[0, n]
        elif kind == SHOWDOWN:
            u = node_u[n] * sd
            val[0, n] = u * reach[1, n]
            val[1, n] = -u * reach[0, n]
        elif kind == CHANCE:
            val[0, n] = val[0, child[fc]]
            val[1, n] = val[1, child[fc]]
        else:
            q = nodes[n, EK.COL_PLAYER]
            nc = nodes[n, EK.COL_NCHILD]
            row = row_off[nodes[n, EK.COL_DECISION]] + st[q, nodes[n, EK.COL_ROUND]]
            for i in range(2):
                if i != q:
                    v = 0.0
                    for ci in range(nc):
                        v += val[i, child[fc + ci]]
                    val[i, n] = v
                    continue
                v = 0.0
                for ci in range(nc):
                    c = child[fc + ci]
                    v += sigma[row, nodes[c, EK.COL_ACTION]] * val[i, c]
                val[i, n] = v
                if trav[i]:
                    for ci in range(nc):
                        c = child[fc + ci]
                        inst = val[i, c] - v
                        EK.add_regret(regret, row, nodes[c, EK.COL_ACTION], inst, pos_f, neg_f, floor)
                    EK.add_average(avg, sigma, row, reach[i, n], avg_f, avg.shape[1] if wide else 3)
        n -= 1


@njit(cache=NUMBA_CACHE)
def run_cs_iterations(tree, chance, tables, reach, val, rule, t0, n_iter, uniforms):
    """Chance-sampled CFR (Zinkevich 2007): one joint deal per iteration, scalar walks.

    ``tree`` CsTree, ``chance`` CsChance, ``tables`` SolverTables (``pred`` unused; three
    columns: ``run_wide_cs_iterations`` takes no-limit tables), ``rule`` UpdateRule.
    ``node_u`` float64[N]: player 0's winnings at a fold, the stake at a showdown; ``reach``
    and ``val`` float64[2, N] scratch."""
    _cs_iterations(tree, chance, tables, reach, val, rule, t0, n_iter, uniforms, False)


@njit(cache=NUMBA_CACHE)
def run_wide_cs_iterations(tree, chance, tables, reach, val, rule, t0, n_iter, uniforms):
    """``run_cs_iterations`` for tables of more than three columns (no-limit trees)."""
    _cs_iterations(tree, chance, tables, reach, val, rule, t0, n_iter, uniforms, True)


@njit(cache=NUMBA_CACHE, inline="always")
def _cs_iterations(tree, chance, tables, reach, val, rule, t0, n_iter, uniforms, wide):
    """The iteration loop; ``wide`` a literal, the walk inlined (one pass is about a
    microsecond: a call per pass would be a measurable share)."""
    nodes, pmap, pmap_off = tree.nodes, tree.pmap, tree.pmap_off
    optab, opbuf, fold_op, sd_op, cdf = chance
    R = fold_op.shape[0]
    st = np.zeros((2, R), dtype=np.int64)
    scale = np.ones(R)
    trav = np.zeros(2, dtype=np.bool_)
    off, K, H = optab[sd_op, 0], optab[sd_op, 1], optab[sd_op, 3]
    skip_to = np.full(nodes.shape[0], -1, dtype=np.int64)
    prune = not rule.discount_pos and not rule.discount_neg and rule.gamma == 0.0
    for it in range(n_iter):
        t = t0 + it + 1
        _sample_cs(uniforms[it, 0], uniforms[it, 1], cdf, optab, opbuf, fold_op, pmap, pmap_off,
                   R, st, scale)
        s0 = st[0, R - 1]
        s1 = st[1, R - 1]
        b = s0 // H
        sd = opbuf[off + (b % K) * H * H + (s1 - b * H) * H + (s0 - b * H)] * scale[R - 1]
        pos_f, neg_f, avg_f = EK.discounts(rule, t)
        steps = (pos_f, neg_f, avg_f, rule.regret_floor)
        # alternating: player 0's pass, then player 1's; else one pass updates both
        for ps in range(2 if rule.alternating else 1):
            for i in range(2):
                trav[i] = not rule.alternating or i == ps
            _cs_pass(tree, tables, st, sd, reach, val, skip_to, trav, steps, prune, wide)
