"""Exact values of the RNR and DBR games by sequence-form linear programs (the test oracle).

On the sequence form of ``cfrlab.solvers.lp`` (realization plans x, y; payoff matrix A for
position 0; constraints E x = e, F y = f):

- RNR, exploiter at position 0: ``max p (A y_fix)^T x + (1 - p) q[0]`` s.t.
  ``F^T q - A^T x <= 0``, ``E x = e``, ``x >= 0``, where ``y_fix`` is the model's realization
  plan and ``q[0]`` is, by LP duality, the worst case over the free opponent. Position 1 is
  the mirror image.
- DBR: the opponent's plans are restricted to ``y(s a) >= P_conf(I) sigma_fix(a | I) y(s)``
  for every information set I reached by sequence s (it follows the model with probability
  P_conf there); the game value over that polytope is the opponent's LP with these rows added.

Each function returns the exploiter's guaranteed value in chips, the mean over its positions.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cfrlab.solvers.lp import SequenceForm, build_sequence_form, player_lp


def realization_plan(form: SequenceForm, tree, policy: np.ndarray, player: int) -> np.ndarray:
    """``player``'s realization plan of a behaviour policy (parents before children)."""
    plan = np.zeros(form.num_seq[player])
    plan[0] = 1.0
    seq, parent = form.seq[player], form.parent_seq[player]
    off = form.row_offset
    for d, n in enumerate(tree.decision_node):
        if int(tree.player[n]) != player:
            continue
        for row in range(int(off[d]), int(off[d + 1])):
            for a in np.flatnonzero(tree.legal[d]):
                plan[seq[row, a]] = plan[parent[row]] * policy[row, a]
    return plan


def _restriction(form: SequenceForm, tree, fixed, conf, player: int) -> sp.csr_matrix:
    """Rows ``conf * fix(a) * z(parent) - z(s a) <= 0`` over ``player``'s sequences."""
    seq, parent = form.seq[player], form.parent_seq[player]
    off = form.row_offset
    data, ri, ci = [], [], []
    k = 0
    for d, n in enumerate(tree.decision_node):
        if int(tree.player[n]) != player:
            continue
        for row in range(int(off[d]), int(off[d + 1])):
            for a in np.flatnonzero(tree.legal[d]):
                w = float(conf[row]) * float(fixed[row, a])
                ri += [k, k]
                ci += [int(parent[row]), int(seq[row, a])]
                data += [w, -1.0]
                k += 1
    return sp.csr_matrix((data, (ri, ci)), shape=(k, form.num_seq[player]))


def rnr_value(tree, model, fixed: np.ndarray, p: float) -> float:
    """The RNR game's value for the exploiter (chips, mean over positions)."""
    form = build_sequence_form(tree, model)
    A = form.A
    n0, n1 = form.num_seq
    # exploiter at position 0: variables (x, q)
    lp = player_lp(form, 0)
    y_fix = realization_plan(form, tree, fixed, 1)
    c = np.concatenate([-p * (A @ y_fix), np.zeros(lp.num_dual)])
    c[n0] = -(1.0 - p)
    v0 = -float(c @ lp.solve(c, "highs"))
    # exploiter at position 1: minimise p (x_fix^T A) y + (1 - p) w[0] over (y, w)
    lp = player_lp(form, 1)
    x_fix = realization_plan(form, tree, fixed, 0)
    c = np.concatenate([p * (A.T @ x_fix), np.zeros(lp.num_dual)])
    c[n1] = 1.0 - p
    v1 = -float(c @ lp.solve(c, "highs"))
    return 0.5 * (v0 + v1)


def dbr_value(tree, model, fixed: np.ndarray, conf: np.ndarray) -> float:
    """The DBR game's value for the exploiter (chips, mean over positions)."""
    form = build_sequence_form(tree, model)
    n0, n1 = form.num_seq
    # exploiter at 0, restricted opponent at 1: min p[0] over restricted y
    lp = player_lp(form, 1)
    c = np.zeros(lp.num_vars)
    c[n1] = 1.0
    v0 = float(lp.solve(c, "highs", _restriction(form, tree, fixed, conf, 1))[n1])
    # exploiter at 1, restricted opponent at 0: its value is minus max q[0] over restricted x
    lp = player_lp(form, 0)
    c = np.zeros(lp.num_vars)
    c[n0] = -1.0
    v1 = -float(lp.solve(c, "highs", _restriction(form, tree, fixed, conf, 0))[n0])
    return 0.5 * (v0 + v1)
