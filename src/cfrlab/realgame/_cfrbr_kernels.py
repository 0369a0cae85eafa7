"""Numba kernels of CFR-BR (``cfrbr``): the profile's rows, the abstract player's regret walk
and the table updates by the one table of rules' multipliers (``cfrlab.engine.rules``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import kernels as K


@njit(cache=NUMBA_CACHE)
def lift_rows(policy, row_map, player_of_row, action, br_player, out):
    """out[i] = policy[row_map[i]] (an abstract policy on real rows), except the rows of
    ``br_player`` (-1: none), which play ``action[i]`` with probability 1."""
    for i in range(out.shape[0]):
        if player_of_row[i] == br_player:
            for a in range(3):
                out[i, a] = 0.0
            out[i, action[i]] = 1.0
        else:
            r = row_map[i]
            for a in range(3):
                out[i, a] = policy[r, a]


@njit(cache=NUMBA_CACHE)
def sum_rows(t, rows, target, out):
    """out[target[k]] += t[rows[k]] in the order of k (np.bincount's)."""
    for k in range(rows.shape[0]):
        i = rows[k]
        j = target[k]
        for a in range(3):
            out[j, a] += t[i, a]


@njit(cache=NUMBA_CACHE)
def regret_walk(walk, ops, num_states, tables, trav, reach, values):
    """One full-width walk under the fixed ``tables.sigma``: the instantaneous regrets of the
    players with ``trav`` land in ``tables.regret`` (zeroed by the caller) and their
    reach-weighted policy in ``tables.avg``."""
    view = K.full_view(num_states)
    K.forward(walk, view, tables, reach, np.int64(-1))  # np.int64: see K.backward
    exact = K.exact_ops(ops)
    for i in range(2):
        if trav[i]:
            K.terminals(exact, view, i, reach, values)
    K.backward(walk, view, tables, reach, values, trav, np.int64(K.MODE_CFR), K.FIXED_POLICY,
               np.int64(1), np.zeros(1, np.int8))


@njit(cache=NUMBA_CACHE)
def step_rows(regret, avg, pred, rows, inst, reach_sigma, pos_f, neg_f, floor, w):
    """Rows ``rows`` of one update: regrets discounted (``pos_f``/``neg_f``), plus the
    instantaneous ones, floored at 0 with ``floor``; the prediction (if ``pred`` has rows)
    the instantaneous regrets; the average plus ``w`` times the reach-weighted policy."""
    predictive = pred.shape[0] > 0
    for k in range(rows.shape[0]):
        i = rows[k]
        for a in range(3):
            r = regret[i, a]
            if r > 0.0:
                r *= pos_f
            elif r < 0.0:
                r *= neg_f
            r += inst[i, a]
            if floor and r < 0.0:
                r = 0.0
            regret[i, a] = r
            if predictive:
                pred[i, a] = inst[i, a]
            avg[i, a] += w * reach_sigma[i, a]


@njit(cache=NUMBA_CACHE)
def profile_rows(policy, row_map, player_of_row, opp_seat, oregret, opred, dec_of_row, legal, out):
    """The profile of a game against a real-game opponent: each real row of the abstract
    player plays its abstract row of ``policy``; each row of ``opp_seat`` plays regret
    matching on the opponent's real regrets (plus predictions, if ``opred`` has rows)."""
    predictive = opred.shape[0] > 0
    for i in range(out.shape[0]):
        if player_of_row[i] != opp_seat:
            r = row_map[i]
            for a in range(3):
                out[i, a] = policy[r, a]
            continue
        d = dec_of_row[i]
        tot = 0.0
        n = 0
        for a in range(3):
            if legal[d, a]:
                n += 1
                tot += max(oregret[i, a] + (opred[i, a] if predictive else 0.0), 0.0)
        for a in range(3):
            x = oregret[i, a] + (opred[i, a] if predictive else 0.0)
            out[i, a] = K.share(x, tot, n) if legal[d, a] else 0.0
