"""Numba kernels of the restricted-game walks (RNR, DBR) on the engine's vector walk.

The forward pass (reach) and the terminal products are the engine's (``cfrlab.engine._kernels``);
what differs is the bottom-up pass at the travelling player's nodes:

- ``MODE_UPDATE``: CFR regret and average updates where the value passed up uses ``sigma_up``
  and the regret baseline ``sigma_base``. They differ only for DBR's free opponent: its
  decision counts where its free part acts (baseline ``sigma_free``), while its parent sees
  the mixture it really plays (``sigma_up``); everywhere else they are the same table.
- ``MODE_RESTRICTED_BR``: the restricted opponent's best response in the DBR game: at each of
  its rows it plays ``sigma_up`` (the model) with probability ``conf[row]`` and its best action
  otherwise, value ``conf * sum_a fix_a v_a + (1 - conf) * max_a v_a``.

Arguments come in the engine's named groups (``WalkTree``, ``TerminalOps``); tables are
float64[rows, 3] in the ENGINE.md row layout.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine.kernels import (
    COL_ACTION,
    COL_DECISION,
    COL_FCHILD,
    COL_KIND,
    COL_NCHILD,
    COL_PLAYER,
    COL_ROUND,
    backward,
    forward,
    terminals,
)
from cfrlab.engine.kernels import (
    FIXED_POLICY as K_FIXED,
)
from cfrlab.engine.kernels import (
    add_average as _add_average,
)
from cfrlab.engine.kernels import (
    add_regret as _add_regret,
)
from cfrlab.engine.kernels import (
    discounts as _discounts,
)
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD

MODE_UPDATE, MODE_RESTRICTED_BR = 1, 3


@njit(cache=NUMBA_CACHE)
def restricted_walk(walk, ops, num_states, sigma_up, sigma_base, conf, trav, mode, regret, avg, rule, t,
                    reach, values):
    """One walk for player ``trav``: reach under ``sigma_up``, terminal values, then the
    bottom-up pass of ``mode``; returns ``trav``'s value (the sum of its root vector)."""
    nodes, child, row_off, legal, node_off, pmap, pmap_off = walk
    groups, term_util, optab, opbuf, opbuf32, opint, opc = ops
    R = num_states.shape[0]
    sbase = np.zeros((2, R), dtype=np.int64)
    scale = np.ones(R)
    none = np.zeros((0, 3))
    forward(nodes, row_off, legal, node_off, pmap, pmap_off, sbase, num_states, sigma_up, none, sigma_up,
            reach, -1)
    terminals(groups, term_util, optab, opbuf, opbuf32, opint, opc, sbase, num_states, scale, trav, reach,
              values)
    pos_f, neg_f, avg_f = _discounts(rule, t)
    floor = rule.regret_floor
    vi = values[trav]
    ri = reach[trav]
    N = nodes.shape[0]
    for n in range(N - 1, -1, -1):
        kind = nodes[n, COL_KIND]
        if kind >= FOLD:
            continue
        o = node_off[n]
        r = nodes[n, COL_ROUND]
        L = num_states[r]
        fc = nodes[n, COL_FCHILD]
        if kind == CHANCE:
            oc = node_off[child[fc]]
            for s in range(L):
                vi[o + s] = 0.0
            base = pmap_off[r + 1]
            for s in range(num_states[r + 1]):
                vi[o + pmap[base + s]] += vi[oc + s]
            continue
        q = nodes[n, COL_PLAYER]
        nc = nodes[n, COL_NCHILD]
        if q != trav:
            oc = node_off[child[fc]]
            for s in range(L):
                vi[o + s] = vi[oc + s]
            for ci in range(1, nc):
                oc = node_off[child[fc + ci]]
                for s in range(L):
                    vi[o + s] += vi[oc + s]
            continue
        row = row_off[nodes[n, COL_DECISION]]
        for s in range(L):
            x = row + s
            up = 0.0
            basev = 0.0
            best = -np.inf
            for ci in range(nc):
                c = child[fc + ci]
                a = nodes[c, COL_ACTION]
                v = vi[node_off[c] + s]
                up += sigma_up[x, a] * v
                basev += sigma_base[x, a] * v
                best = max(best, v)
            if mode == MODE_RESTRICTED_BR:
                vi[o + s] = conf[x] * up + (1.0 - conf[x]) * best
                continue
            vi[o + s] = up
            for ci in range(nc):
                c = child[fc + ci]
                _add_regret(regret, x, nodes[c, COL_ACTION], vi[node_off[c] + s] - basev, pos_f, neg_f, floor)
            _add_average(avg, sigma_base, x, ri[o + s], avg_f)
    tot = 0.0
    o = node_off[0]
    for s in range(num_states[0]):
        tot += vi[o + s]
    return tot


@njit(cache=NUMBA_CACHE)
def compose(out, theirs, mine, player_of_row, opp):
    """out[row] = theirs[row] on ``opp``'s rows, mine[row] elsewhere."""
    for x in range(out.shape[0]):
        src = theirs if player_of_row[x] == opp else mine
        for a in range(3):
            out[x, a] = src[x, a]


@njit(cache=NUMBA_CACHE)
def mix_rnr(fixed, free, fix_reach, free_reach, p, player_of_row, opp, out):
    """RNR's opponent behaviour on ``opp``'s rows: the two types weighted by their reach."""
    for x in range(out.shape[0]):
        if player_of_row[x] != opp:
            continue
        wf = p * fix_reach[x]
        wr = (1.0 - p) * free_reach[x]
        tot = wf + wr
        for a in range(3):
            out[x, a] = (wf * fixed[x, a] + wr * free[x, a]) / tot if tot > 0.0 else free[x, a]


@njit(cache=NUMBA_CACHE)
def mix_dbr(fixed, free, conf, player_of_row, opp, out):
    """DBR's opponent behaviour on ``opp``'s rows: P_conf model + (1 - P_conf) free."""
    for x in range(out.shape[0]):
        if player_of_row[x] != opp:
            continue
        c = conf[x]
        for a in range(3):
            out[x, a] = c * fixed[x, a] + (1.0 - c) * free[x, a]


@njit(cache=NUMBA_CACHE)
def own_reach_rows(walk, num_states, sigma, player, reach, out):
    """out[row] = ``player``'s own reach (product of its probabilities under ``sigma``) of
    each of its rows; other rows untouched."""
    nodes, _child, row_off, legal, node_off, pmap, pmap_off = walk
    R = num_states.shape[0]
    sbase = np.zeros((2, R), dtype=np.int64)
    none = np.zeros((0, 3))
    forward(nodes, row_off, legal, node_off, pmap, pmap_off, sbase, num_states, sigma, none, sigma, reach, -1)
    for n in range(nodes.shape[0]):
        if nodes[n, COL_KIND] != DECISION or nodes[n, COL_PLAYER] != player:
            continue
        row = row_off[nodes[n, COL_DECISION]]
        o = node_off[n]
        for s in range(num_states[nodes[n, COL_ROUND]]):
            out[row + s] = reach[player, o + s]


@njit(cache=NUMBA_CACHE)
def perturbed_iterations(walk, ops, aux_ops, tables, reach, values, aux_values, rule, t0, n_iter, num_states,
                         term_end, bonus):
    """Full-width alternating CFR where the winner of every terminal gets ``1 + bonus`` times
    its winnings: the engine's walk (as ``run_iterations`` FULL) with each traverser's terminal
    values ``v + bonus * w_0`` (player 0) or ``(1 + bonus) * v - bonus * w_1`` (player 1), where
    ``w`` comes from ``aux_ops``, the same terminals with the positive part of the showdown
    table and of player 0's fold winnings (player 1's part is what the original has beyond it).
    ``bonus = 0`` gives the unperturbed iterates exactly."""
    nodes, child, row_off, legal, node_off, pmap, pmap_off = walk
    groups, term_util, optab, opbuf, opbuf32, opint, opc = ops
    agroups, aterm_util, aoptab, aopbuf, aopbuf32, aopint, aopc = aux_ops
    regret, pred, avg, sigma = tables
    R = num_states.shape[0]
    sbase = np.zeros((2, R), dtype=np.int64)
    scale = np.ones(R)
    trav = np.zeros(2, dtype=np.bool_)
    br_dummy = np.zeros(1, dtype=np.int8)
    for it in range(n_iter):
        t = t0 + it + 1
        for i in range(2):
            rm = 1 - i if it + i > 0 else 2
            forward(nodes, row_off, legal, node_off, pmap, pmap_off, sbase, num_states, regret, pred, sigma, reach, rm)
            terminals(groups, term_util, optab, opbuf, opbuf32, opint, opc, sbase, num_states, scale, i, reach,
                      values)
            terminals(agroups, aterm_util, aoptab, aopbuf, aopbuf32, aopint, aopc, sbase, num_states, scale, i,
                      reach, aux_values)
            vi = values[i]
            wi = aux_values[i]
            if i == 0:
                for k in range(term_end):
                    vi[k] = vi[k] + bonus * wi[k]
            else:
                for k in range(term_end):
                    vi[k] = (1.0 + bonus) * vi[k] - bonus * wi[k]
            trav[0] = i == 0
            trav[1] = i == 1
            backward(nodes, child, row_off, legal, node_off, pmap, pmap_off, sbase, num_states, sigma, reach,
                     values, trav, 1, regret, pred, avg, rule, t, br_dummy)


@njit(cache=NUMBA_CACHE)
def perturbed_value(walk, ops, aux_ops, num_states, sigma, player, reach, values, aux_values, term_end, bonus):
    """``player``'s expected winnings in the game with the winner's ``bonus`` when both play
    the fixed policy ``sigma`` (the terminal values of ``perturbed_iterations``, averaged)."""
    nodes, child, row_off, legal, node_off, pmap, pmap_off = walk
    groups, term_util, optab, opbuf, _o32, opint, opc = ops
    agroups, aterm_util, aoptab, aopbuf, _a32, aopint, aopc = aux_ops
    R = num_states.shape[0]
    sbase = np.zeros((2, R), dtype=np.int64)
    scale = np.ones(R)
    none = np.zeros((0, 3))
    e32 = np.zeros(0, dtype=np.float32)
    forward(nodes, row_off, legal, node_off, pmap, pmap_off, sbase, num_states, sigma, none, sigma, reach, -1)
    terminals(groups, term_util, optab, opbuf, e32, opint, opc, sbase, num_states, scale, player, reach, values)
    terminals(agroups, aterm_util, aoptab, aopbuf, e32, aopint, aopc, sbase, num_states, scale, player, reach,
              aux_values)
    vi = values[player]
    wi = aux_values[player]
    for k in range(term_end):
        vi[k] = vi[k] + bonus * wi[k] if player == 0 else (1.0 + bonus) * vi[k] - bonus * wi[k]
    trav = np.zeros(2, dtype=np.bool_)
    trav[player] = True
    br_dummy = np.zeros(1, dtype=np.int8)
    backward(nodes, child, row_off, legal, node_off, pmap, pmap_off, sbase, num_states, sigma, reach, values,
             trav, 0, sigma, none, sigma, K_FIXED, 1, br_dummy)
    tot = 0.0
    o = node_off[0]
    for s in range(num_states[0]):
        tot += vi[o + s]
    return tot
