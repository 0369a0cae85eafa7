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

Arguments come in the engine's named groups (``WalkTree``, ``TerminalOps``, ``SolverTables``,
``UpdateRule``) and two of this module's; tables are float64[rows, 3] in the ENGINE.md row
layout:

- ``RestrictedPolicy``: ``sigma_up`` (the policy played: reach and the value passed up),
  ``sigma_base`` (the regret baseline and the average's weights) and ``conf`` float64[rows]
  (the restricted opponent's confidence in DBR's best response; else an empty array);
- ``WinnerBonus``: the perturbed game's winner's share, ``ops`` (TerminalOps of the winnings
  ``w``), ``values`` (their arena, float64[2, slots]), ``term_end`` (the terminals' slots
  end) and ``bonus``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import kernels as EK
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD

MODE_UPDATE, MODE_RESTRICTED_BR = 1, 3

RestrictedPolicy = namedtuple("RestrictedPolicy", "sigma_up sigma_base conf")
WinnerBonus = namedtuple("WinnerBonus", "ops values term_end bonus")


@njit(cache=NUMBA_CACHE)
def restricted_walk(walk, ops, num_states, policy, trav, mode, regret, avg, rule, t, reach, values):
    """One walk for player ``trav``: reach under ``policy.sigma_up`` (``RestrictedPolicy``),
    terminal values, then the bottom-up pass of ``mode``; returns ``trav``'s value (the sum
    of its root vector)."""
    nodes, child, row_off, _legal, node_off, pmap, pmap_off = walk
    sigma_up, sigma_base, conf = policy
    view = EK.full_view(num_states)
    EK.forward(walk, view, EK.fixed_tables(sigma_up), reach, np.int64(-1))
    EK.terminals(ops, view, trav, reach, values)
    pos_f, neg_f, avg_f = EK.discounts(rule, t)
    floor = rule.regret_floor
    vi = values[trav]
    ri = reach[trav]
    N = nodes.shape[0]
    for n in range(N - 1, -1, -1):
        kind = nodes[n, EK.COL_KIND]
        if kind >= FOLD:
            continue
        o = node_off[n]
        r = nodes[n, EK.COL_ROUND]
        L = num_states[r]
        fc = nodes[n, EK.COL_FCHILD]
        if kind == CHANCE:
            EK.chance_values(nodes, child, node_off, pmap, pmap_off, view.sbase, num_states, n, trav, vi)
            continue
        q = nodes[n, EK.COL_PLAYER]
        nc = nodes[n, EK.COL_NCHILD]
        if q != trav:
            EK.sum_children(nodes, child, node_off, n, L, vi)
            continue
        row = row_off[nodes[n, EK.COL_DECISION]]
        for s in range(L):
            x = row + s
            up = 0.0
            basev = 0.0
            best = -np.inf
            for ci in range(nc):
                c = child[fc + ci]
                a = nodes[c, EK.COL_ACTION]
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
                inst = vi[node_off[c] + s] - basev
                EK.add_regret(regret, x, nodes[c, EK.COL_ACTION], inst, pos_f, neg_f, floor)
            EK.add_average(avg, sigma_base, x, ri[o + s], avg_f, 3)  # limit tables only (RestrictedSolver)
    return EK.root_value(walk, num_states, trav, values)


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
    nodes, _child, row_off, _legal, node_off, _pmap, _pmap_off = walk
    EK.forward(walk, EK.full_view(num_states), EK.fixed_tables(sigma), reach, np.int64(-1))
    for n in range(nodes.shape[0]):
        if nodes[n, EK.COL_KIND] != DECISION or nodes[n, EK.COL_PLAYER] != player:
            continue
        row = row_off[nodes[n, EK.COL_DECISION]]
        o = node_off[n]
        for s in range(num_states[nodes[n, EK.COL_ROUND]]):
            out[row + s] = reach[player, o + s]


@njit(cache=NUMBA_CACHE)
def _bonus_terminals(ops, bonus, view, i, reach, values):
    """Player i's terminal values in the perturbed game: ``v + bonus * w_0`` (player 0) or
    ``(1 + bonus) * v - bonus * w_1`` (player 1), ``w`` from ``bonus.ops``."""
    EK.terminals(ops, view, i, reach, values)
    EK.terminals(bonus.ops, view, i, reach, bonus.values)
    vi = values[i]
    wi = bonus.values[i]
    b = bonus.bonus
    if i == 0:
        for k in range(bonus.term_end):
            vi[k] = vi[k] + b * wi[k]
    else:
        for k in range(bonus.term_end):
            vi[k] = (1.0 + b) * vi[k] - b * wi[k]


@njit(cache=NUMBA_CACHE)
def perturbed_iterations(walk, ops, bonus, tables, reach, values, rule, t0, n_iter, num_states):
    """Full-width alternating CFR where the winner of every terminal gets ``1 + bonus`` times
    its winnings: the engine's walk (as ``run_iterations`` FULL) with each traverser's terminal
    values ``v + bonus * w_0`` (player 0) or ``(1 + bonus) * v - bonus * w_1`` (player 1), where
    ``w`` comes from ``bonus.ops`` (``WinnerBonus``), the same terminals with the positive part
    of the showdown table and of player 0's fold winnings (player 1's part is what the original
    has beyond it). ``bonus = 0`` gives the unperturbed iterates exactly."""
    view = EK.full_view(num_states)
    trav = np.zeros(2, dtype=np.bool_)
    br_dummy = np.zeros(1, dtype=np.int8)
    for it in range(n_iter):
        t = t0 + it + 1
        for i in range(2):
            rm = 1 - i if it + i > 0 else 2
            EK.forward(walk, view, tables, reach, rm)
            _bonus_terminals(ops, bonus, view, i, reach, values)
            trav[0] = i == 0
            trav[1] = i == 1
            EK.backward(walk, view, tables, reach, values, trav, np.int64(EK.MODE_CFR), rule, t, br_dummy)


@njit(cache=NUMBA_CACHE)
def perturbed_value(walk, ops, bonus, num_states, sigma, player, reach, values):
    """``player``'s expected winnings in the game with the winner's ``bonus`` when both play
    the fixed policy ``sigma`` (the terminal values of ``perturbed_iterations``, averaged);
    exact (float64) terminal products."""
    view = EK.full_view(num_states)
    fixed = EK.fixed_tables(sigma)
    EK.forward(walk, view, fixed, reach, np.int64(-1))
    exact = WinnerBonus(EK.exact_ops(bonus.ops), bonus.values, bonus.term_end, bonus.bonus)
    _bonus_terminals(EK.exact_ops(ops), exact, view, player, reach, values)
    trav = np.zeros(2, dtype=np.bool_)
    trav[player] = True
    br_dummy = np.zeros(1, dtype=np.int8)
    EK.backward(walk, view, fixed, reach, values, trav, np.int64(EK.MODE_VALUE), EK.FIXED_POLICY,
                np.int64(1), br_dummy)
    return EK.root_value(walk, num_states, player, values)
