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

from cfrlab.solvers.lp import SequenceForm, build_sequence_form, solve_linprog


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
    A = form.A.tocsr()
    E, F = form.E
    n0, n1 = form.num_seq
    k0, k1 = E.shape[0], F.shape[0]
    e, f = np.zeros(k0), np.zeros(k1)
    e[0] = f[0] = 1.0
    # exploiter at position 0: variables (x, q)
    y_fix = realization_plan(form, tree, fixed, 1)
    c = np.concatenate([-p * (A @ y_fix), np.zeros(k1)])
    c[n0] = -(1.0 - p)
    sol = solve_linprog(c, sp.hstack([-A.T, F.T], format="csr"), sp.hstack([E, sp.csr_matrix((k0, k1))], format="csr"),
                 e, n0, k1, "highs")
    v0 = -float(c @ sol)
    # exploiter at position 1: minimise p (x_fix^T A) y + (1 - p) w[0] over (y, w)
    x_fix = realization_plan(form, tree, fixed, 0)
    c = np.concatenate([p * (A.T @ x_fix), np.zeros(k0)])
    c[n1] = 1.0 - p
    sol = solve_linprog(c, sp.hstack([A, -E.T], format="csr"), sp.hstack([F, sp.csr_matrix((k1, k0))], format="csr"),
                 f, n1, k0, "highs")
    v1 = -float(c @ sol)
    return 0.5 * (v0 + v1)


def dbr_value(tree, model, fixed: np.ndarray, conf: np.ndarray) -> float:
    """The DBR game's value for the exploiter (chips, mean over positions)."""
    form = build_sequence_form(tree, model)
    A = form.A.tocsr()
    E, F = form.E
    n0, n1 = form.num_seq
    k0, k1 = E.shape[0], F.shape[0]
    e, f = np.zeros(k0), np.zeros(k1)
    e[0] = f[0] = 1.0
    # exploiter at 0, restricted opponent at 1: min p[0] over restricted y
    Ry = _restriction(form, tree, fixed, conf, 1)
    c = np.zeros(n1 + k0)
    c[n1] = 1.0
    a_ub = sp.vstack([sp.hstack([A, -E.T]), sp.hstack([Ry, sp.csr_matrix((Ry.shape[0], k0))])], format="csr")
    sol = solve_linprog(c, a_ub, sp.hstack([F, sp.csr_matrix((k1, k0))], format="csr"), f, n1, k0, "highs")
    v0 = float(sol[n1])
    # exploiter at 1, restricted opponent at 0: its value is minus max q[0] over restricted x
    Rx = _restriction(form, tree, fixed, conf, 0)
    c = np.zeros(n0 + k1)
    c[n0] = -1.0
    a_ub = sp.vstack([sp.hstack([-A.T, F.T]), sp.hstack([Rx, sp.csr_matrix((Rx.shape[0], k1))])], format="csr")
    sol = solve_linprog(c, a_ub, sp.hstack([E, sp.csr_matrix((k0, k1))], format="csr"), e, n0, k1, "highs")
    v1 = -float(sol[n0])
    return 0.5 * (v0 + v1)
