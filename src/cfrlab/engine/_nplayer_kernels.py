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
from cfrlab.engine._kernels import UpdateRule, _add_regret, _discounts, normalize_row_range  # noqa: F401
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN

MODE_EV, MODE_CFR, MODE_BR = 0, 1, 2

TreeArrays = namedtuple("TreeArrays", "kind player round parent depth action decision spent folded legal events off")
Buffers = namedtuple("Buffers", "reach val inst rowreach best root")


@njit(cache=NUMBA_CACHE, inline="always")
def showdown_winners(folded, n, strength, x, P):
    """(top, cnt) at the showdown n of deal x (``strength`` int[P, deals]): the strongest hand
    of the players not folded, and how many of them hold it (they split the pot)."""
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
    return top, cnt


@njit(cache=NUMBA_CACHE, inline="always")
def terminal_payoffs(kind, spent, folded, n, strength, x, pay):
    """pay[p]: player p's chips at the terminal n (a fold or a showdown) of deal x."""
    P = pay.shape[0]
    pot = 0.0
    for p in range(P):
        pot += spent[n, p]
    if kind[n] == FOLD:
        for p in range(P):
            pay[p] = -spent[n, p] if folded[n, p] else pot - spent[n, p]
        return
    top, cnt = showdown_winners(folded, n, strength, x, P)
    for p in range(P):
        if folded[n, p] or strength[p, x] != top:
            pay[p] = -spent[n, p]
        else:
            pay[p] = pot / cnt - spent[n, p]


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
    pos_f, neg_f, avg_f = _discounts(rule, t) if mode == MODE_CFR else (1.0, 1.0, 1.0)
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
                    top, cnt = showdown_winners(folded, n, strength, x, P)
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
                if mode != MODE_EV:  # per-state sums: the children's values (BR) or regrets (CFR)
                    for s in range(ns):
                        for a in range(3):
                            inst[s, a] = 0.0
                if mode == MODE_BR:
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
                                if legal[d, a]:
                                    _add_regret(regret, row, a, inst[s, a], pos_f, neg_f, floor)
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
    holds the current strategy (regret matching of ``regret``: ``normalize_row_range``) on
    entry and on return."""
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
                walk(T, D, sigma, upd, np.int64(MODE_CFR), regret, avg, rule, t, True, buf, dummy)
                normalize_row_range(regret, legal, dec_of_row, sigma, 0, rows)
        else:
            for p in range(P):
                upd[p] = True
            walk(T, D, sigma, upd, np.int64(MODE_CFR), regret, avg, rule, t, True, buf, dummy)
            normalize_row_range(regret, legal, dec_of_row, sigma, 0, rows)
