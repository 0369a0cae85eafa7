"""Numba kernels of the N-player engine: one deal-vectorized walk of the public tree.

At each public node the walk carries, for every player p and every deal prefix x of the
node's round, ``reach[depth, p, x]``: p's own probability of the actions on the path (chance
is uniform over prefixes and enters at the terminals as ``1 / n_r``). It follows the tree's
enter / leave events (``PublicTree.events``), so a node's buffers at its depth stay valid while its
subtree is walked, and leaves a node when all its children are done:

- a terminal writes, for each computed player p, ``payoff_p(x) * prod_{j != p} reach_j(x) / n_r``
  into its parent's slot ``val[depth - 1, action, p, x]``: p's counterfactual value;
- a chance node sums its child's round r+1 values back onto the round-r prefixes;
- a decision node of player i: the others' values are the sums over the children (their reach
  already holds i's strategy); i's value is the strategy-weighted sum (``MODE_EV``, ``MODE_CFR``,
  which also adds i's regrets and average strategy row by row) or, for a best responder
  (``MODE_BR``), per private state the action whose summed counterfactual value is largest.

The information set of i at a node is (node, i's private state): its regrets are the sums of
``v_a(x) - v(x)`` over the prefixes x in which i holds that state.

Arguments are grouped: ``T`` TreeArrays, ``D`` DealArrays (``cfrlab.abstraction.deals``),
``rule`` UpdateRule, ``buf`` Buffers.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
MODE_EV, MODE_CFR, MODE_BR = 0, 1, 2

TreeArrays = namedtuple("TreeArrays", "kind player round parent depth action decision spent folded legal events off")
UpdateRule = namedtuple("UpdateRule", "alternating regret_floor discount_pos discount_neg alpha beta gamma")
Buffers = namedtuple("Buffers", "reach val inst rowreach best root")


@njit(cache=NUMBA_CACHE)
def regret_matching(regret, legal, dec_of_row, sigma, lo, hi):
    """sigma[row] = positive regrets normalized (uniform on the legal actions when none), rows lo..hi-1."""
    for row in range(lo, hi):
        d = dec_of_row[row]
        tot = 0.0
        nl = 0
        for a in range(3):
            if legal[d, a]:
                nl += 1
                if regret[row, a] > 0.0:
                    tot += regret[row, a]
        for a in range(3):
            if not legal[d, a]:
                sigma[row, a] = 0.0
            elif tot > 0.0:
                sigma[row, a] = regret[row, a] / tot if regret[row, a] > 0.0 else 0.0
            else:
                sigma[row, a] = 1.0 / nl


@njit(cache=NUMBA_CACHE)
def walk(T, D, sigma, upd, mode, regret, avg, rule, t, update_avg, buf, br_action):
    """One walk under ``sigma``; values for the players with ``upd[p]`` (``buf.root[p]`` = the
    sum of p's root values = its expected payoff). MODE_CFR updates regrets (and, with
    ``update_avg``, average sums) at the rows of the players in ``upd`` (iteration t, ``rule``);
    MODE_BR plays the best response for the (single) player in ``upd``, filling ``br_action``."""
    kind, player, rnd, parent, depth, action, decision, spent, folded, legal, events, off = T
    pre_off, state, ppar, strength = D
    reach, val, inst, rowreach, best, root = buf
    P = upd.shape[0]
    pos_f = 1.0
    neg_f = 1.0
    avg_f = 1.0
    if mode == MODE_CFR:
        tp = float(t - 1)
        if rule.discount_pos:
            x_ = tp ** rule.alpha
            pos_f = x_ / (x_ + 1.0)
        if rule.discount_neg:
            x_ = tp ** rule.beta
            neg_f = x_ / (x_ + 1.0)
        avg_f = (tp / t) ** rule.gamma
    floor = rule.regret_floor
    for e in events:
        if e >= 0:  # enter: this node's reach from its parent's
            n = e
            k = depth[n]
            r = rnd[n]
            m = pre_off[r + 1] - pre_off[r]
            q = parent[n]
            if q < 0:
                for p in range(P):
                    for x in range(m):
                        reach[k, p, x] = 1.0
            elif kind[q] == DECISION:
                i = player[q]
                a = action[n]
                base = off[decision[q]]
                so = pre_off[r]
                for p in range(P):
                    if p == i:
                        for x in range(m):
                            reach[k, p, x] = reach[k - 1, p, x] * sigma[base + state[i, so + x], a]
                    else:
                        for x in range(m):
                            reach[k, p, x] = reach[k - 1, p, x]
            else:  # below a chance node: expand onto the new round's prefixes
                so = pre_off[r]
                for p in range(P):
                    for x in range(m):
                        reach[k, p, x] = reach[k - 1, p, ppar[so + x]]
            continue
        n = -e - 1  # leave
        k = depth[n]
        r = rnd[n]
        m = pre_off[r + 1] - pre_off[r]
        slot = action[n]
        kd = kind[n]
        if kd == FOLD or kd == SHOWDOWN:
            w = 1.0 / m
            pot = 0.0
            for p in range(P):
                pot += spent[n, p]
            if kd == FOLD:
                win = 0
                for p in range(P):
                    if not folded[n, p]:
                        win = p
                for p in range(P):
                    if not upd[p]:
                        continue
                    u = (pot - spent[n, p]) if p == win else -float(spent[n, p])
                    u *= w
                    for x in range(m):
                        o = u
                        for j in range(P):
                            if j != p:
                                o *= reach[k, j, x]
                        val[k - 1, slot, p, x] = o
            else:
                for x in range(m):
                    top = -1
                    cnt = 0
                    for j in range(P):
                        if not folded[n, j]:
                            s = strength[j, x]
                            if s > top:
                                top = s
                                cnt = 1
                            elif s == top:
                                cnt += 1
                    for p in range(P):
                        if not upd[p]:
                            continue
                        if folded[n, p] or strength[p, x] != top:
                            u = -float(spent[n, p])
                        else:
                            u = pot / cnt - spent[n, p]
                        o = u * w
                        for j in range(P):
                            if j != p:
                                o *= reach[k, j, x]
                        val[k - 1, slot, p, x] = o
        elif kd == CHANCE:
            so = pre_off[r + 1]
            mc = pre_off[r + 2] - so
            for p in range(P):
                if not upd[p]:
                    continue
                for x in range(m):
                    val[k - 1, slot, p, x] = 0.0
                for x in range(mc):
                    val[k - 1, slot, p, ppar[so + x]] += val[k, 0, p, x]
        else:
            i = player[n]
            d = decision[n]
            base = off[d]
            ns = off[d + 1] - base
            so = pre_off[r]
            for p in range(P):
                if not upd[p] or p == i:
                    continue
                for x in range(m):
                    v = 0.0
                    for a in range(3):
                        if legal[d, a]:
                            v += val[k, a, p, x]
                    val[k - 1, slot, p, x] = v
            if upd[i]:
                if mode == MODE_BR:
                    for s in range(ns):
                        for a in range(3):
                            inst[s, a] = 0.0
                    for x in range(m):
                        s = state[i, so + x]
                        for a in range(3):
                            inst[s, a] += val[k, a, i, x]
                    for s in range(ns):
                        b = -1
                        for a in range(3):
                            if legal[d, a] and (b < 0 or inst[s, a] > inst[s, b]):
                                b = a
                        best[s] = b
                        br_action[base + s] = b
                    for x in range(m):
                        val[k - 1, slot, i, x] = val[k, best[state[i, so + x]], i, x]
                else:
                    if mode == MODE_CFR:
                        for s in range(ns):
                            for a in range(3):
                                inst[s, a] = 0.0
                    for x in range(m):
                        s = state[i, so + x]
                        row = base + s
                        v = 0.0
                        for a in range(3):
                            if legal[d, a]:
                                v += sigma[row, a] * val[k, a, i, x]
                        val[k - 1, slot, i, x] = v
                        if mode == MODE_CFR:
                            for a in range(3):
                                if legal[d, a]:
                                    inst[s, a] += val[k, a, i, x] - v
                            rowreach[s] = reach[k, i, x]
                    if mode == MODE_CFR:
                        for s in range(ns):
                            row = base + s
                            for a in range(3):
                                if not legal[d, a]:
                                    continue
                                g = regret[row, a]
                                g *= pos_f if g > 0.0 else neg_f
                                g += inst[s, a]
                                if floor and g < 0.0:
                                    g = 0.0
                                regret[row, a] = g
                            if update_avg:
                                rr = rowreach[s]
                                for a in range(3):
                                    avg[row, a] = avg[row, a] * avg_f + rr * sigma[row, a]
    m0 = pre_off[1] - pre_off[0]
    for p in range(P):
        tot = 0.0
        if upd[p]:
            for x in range(m0):
                tot += val[0, 0, p, x]
        root[p] = tot


@njit(cache=NUMBA_CACHE)
def iterate(T, D, rule, t0, n_iter, regret, avg, sigma, dec_of_row, buf):
    """Iterations t0+1 .. t0+n_iter of a full-width CFR variant, in compiled code. ``sigma``
    holds the current strategy (regret matching of ``regret``) on entry and on return."""
    P = buf.root.shape[0]
    rows = regret.shape[0]
    upd = np.zeros(P, dtype=np.bool_)
    legal = T.legal
    dummy = np.zeros(1, dtype=np.int8)
    for it in range(n_iter):
        t = t0 + it + 1
        if rule.alternating:
            for i in range(P):
                for p in range(P):
                    upd[p] = p == i
                walk(T, D, sigma, upd, MODE_CFR, regret, avg, rule, t, True, buf, dummy)
                regret_matching(regret, legal, dec_of_row, sigma, 0, rows)
        else:
            for p in range(P):
                upd[p] = True
            walk(T, D, sigma, upd, MODE_CFR, regret, avg, rule, t, True, buf, dummy)
            regret_matching(regret, legal, dec_of_row, sigma, 0, rows)


@njit(cache=NUMBA_CACHE)
def normalize_rows(table, legal, dec_of_row, out):
    """Row-normalize a nonnegative table; rows summing to 0 become uniform over the legal actions."""
    for row in range(table.shape[0]):
        d = dec_of_row[row]
        tot = 0.0
        nl = 0
        for a in range(3):
            if legal[d, a]:
                nl += 1
                if table[row, a] > 0.0:
                    tot += table[row, a]
        for a in range(3):
            if not legal[d, a]:
                out[row, a] = 0.0
            elif tot > 0.0:
                out[row, a] = table[row, a] / tot if table[row, a] > 0.0 else 0.0
            else:
                out[row, a] = 1.0 / nl
