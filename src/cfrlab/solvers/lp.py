"""Exact equilibria by the sequence-form linear program (Koller, Megiddo, von Stengel 1994).

A player's *sequences* are the empty sequence plus one per (decision node of that player,
private state at the node's round, legal action). A realization plan ``x`` gives each
sequence the product of the player's own action probabilities along it; it satisfies
``E x = e``: ``x[empty] = 1`` and, for every information set (node, state), the sequences
leaving it sum to the sequence that led to it (the player's previous action, with the
state mapped back to that round through ``model.parent``).

Payoffs couple the two players only at terminals, through the chance model: a terminal of
round r adds ``coef * M[s0, s1]`` to ``A[seq0(t, s0), seq1(t, s1)]`` with ``M = P_r`` and
``coef`` = player 0's fold winnings, or ``M = W`` and ``coef`` = the stake at a showdown
(docs/ENGINE.md). Then ``max_x min_y x^T A y`` over realization plans is two LPs solved
with HiGHS on sparse matrices:

- player 0: ``max q[0]`` s.t. ``F^T q - A^T x <= 0``, ``E x = e``, ``x >= 0``;
- player 1: ``min p[0]`` s.t. ``A y - E^T p <= 0``, ``F y = f``, ``y >= 0``.

Both optima equal the game value for player 0. The plans are turned into the behaviour
policy layout of ENGINE.md: ``policy[row_offset[d] + s, a] = x[(d, s, a)] / x[parent]``
(uniform over the legal actions where the player never gets: x[parent] = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cfrlab.abstraction import perfect_recall
from cfrlab.engine import row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.tree.betting_tree import DECISION, FOLD, SHOWDOWN

# HiGHS tolerances: the defaults (1e-7) leave ~1e-8 errors in the value; Kuhn and Leduc
# are small enough to ask for 1e-10 and still solve in well under a second.
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
# Simplex is exact and quick on small games (Leduc: 1,093 sequences a player, 0.15 s); past a
# few thousand sequences HiGHS's interior point (with crossover to a vertex) is far faster:
# a two-hole-card test deck with 20,861 sequences took 24 s per LP by IPM, ~200 s by simplex.
IPM_ABOVE_SEQUENCES = 5_000


@dataclass
class SequenceForm:
    """The sequence-form LP data of both players.

    ``seq[p]``: int64[rows, 3], sequence id of (row, action) for rows where player p acts,
    -1 elsewhere (row = row_offset[d] + state). ``parent_seq[p]``: int64[rows], the sequence
    leading to that row's information set. ``E[p]``: sparse (infosets + 1) x sequences
    constraint matrix (row 0 is the empty sequence). ``A``: sparse sequences0 x sequences1,
    player 0's payoffs.
    """

    seq: list[np.ndarray]
    parent_seq: list[np.ndarray]
    num_seq: list[int]
    E: list[sp.csr_matrix]
    A: sp.csr_matrix
    row_offset: np.ndarray


def _offsets(tree, model) -> np.ndarray:
    return np.asarray(row_offsets(tree, model), dtype=np.int64)


def _ancestor_state(model, states: np.ndarray, from_round: int, to_round: int) -> np.ndarray:
    """Map round-`from_round` private states back to round `to_round` (perfect recall)."""
    out = np.asarray(states, dtype=np.int64)
    for r in range(from_round, to_round, -1):
        out = np.asarray(model.parent[r], dtype=np.int64)[out]
    return out


def build_sequence_form(tree, model) -> SequenceForm:
    if not perfect_recall(model):
        raise CfrlabError("the sequence-form LP needs perfect recall; this abstraction forgets "
                          "earlier buckets (solve it with public chance sampling, pcs)")
    off = _offsets(tree, model)
    rows = int(off[-1])
    n_nodes = tree.num_nodes
    num_states = [int(k) for k in model.num_states]

    # the player's last own (decision node, action) on the path to every node
    last_node = np.full((2, n_nodes), -1, np.int64)
    last_action = np.full((2, n_nodes), -1, np.int64)
    for n in range(1, n_nodes):
        m = int(tree.parent[n])
        for p in (0, 1):
            if tree.kind[m] == DECISION and tree.player[m] == p:
                last_node[p, n], last_action[p, n] = m, int(tree.action[n])
            else:
                last_node[p, n], last_action[p, n] = last_node[p, m], last_action[p, m]

    seq = [np.full((rows, tree.num_actions), -1, np.int64) for _ in (0, 1)]
    num_seq = [1, 1]  # sequence 0 is the empty sequence
    for d, n in enumerate(tree.decision_node):
        p = int(tree.player[n])
        lo, hi = int(off[d]), int(off[d + 1])
        for a in np.flatnonzero(tree.legal[d]):
            seq[p][lo:hi, a] = np.arange(num_seq[p], num_seq[p] + hi - lo)
            num_seq[p] += hi - lo

    def seq_at(p: int, n: int, states: np.ndarray, rnd: int) -> np.ndarray:
        """Sequence of player p's last action before node n, for its round-`rnd` states."""
        m = int(last_node[p, n])
        if m < 0:
            return np.zeros(len(states), np.int64)
        rm = int(tree.round[m])
        anc = _ancestor_state(model, states, rnd, rm)
        return seq[p][off[tree.decision[m]] + anc, last_action[p, n]]

    parent_seq = [np.full(rows, -1, np.int64) for _ in (0, 1)]
    E = []
    for p in (0, 1):
        ri, ci, vals = [0], [0], [1.0]
        info = 1
        for d, n in enumerate(tree.decision_node):
            if tree.player[n] != p:
                continue
            r = int(tree.round[n])
            lo, hi = int(off[d]), int(off[d + 1])
            ps = seq_at(p, int(n), np.arange(hi - lo), r)
            parent_seq[p][lo:hi] = ps
            for s in range(hi - lo):
                ri.append(info)
                ci.append(int(ps[s]))
                vals.append(-1.0)
                for a in np.flatnonzero(tree.legal[d]):
                    ri.append(info)
                    ci.append(int(seq[p][lo + s, a]))
                    vals.append(1.0)
                info += 1
        E.append(sp.csr_matrix((vals, (ri, ci)), shape=(info, num_seq[p])))

    # payoff matrix from the terminals
    fold_cache: dict[int, sp.coo_matrix] = {}
    showdown = None
    ai, aj, av = [], [], []
    for n in range(n_nodes):
        k = int(tree.kind[n])
        if k not in (FOLD, SHOWDOWN):
            continue
        r = int(tree.round[n])
        if k == FOLD:
            if r not in fold_cache:
                fold_cache[r] = sp.coo_matrix(model.fold_matrix(r))
            M = fold_cache[r]
            folder = int(tree.player[n])
            coef = -float(tree.spent[n, 0]) if folder == 0 else float(tree.spent[n, 1])
        else:
            if showdown is None:
                showdown = sp.coo_matrix(model.showdown_matrix())
            M = showdown
            coef = float(tree.spent[n].min())  # the stake (short stacks: the smaller)
        s0 = seq_at(0, n, np.arange(num_states[r]), r)
        s1 = seq_at(1, n, np.arange(num_states[r]), r)
        ai.append(s0[M.row])
        aj.append(s1[M.col])
        av.append(coef * M.data)
    A = sp.csr_matrix(
        (np.concatenate(av), (np.concatenate(ai), np.concatenate(aj))),
        shape=(num_seq[0], num_seq[1]),
    )
    return SequenceForm(seq, parent_seq, num_seq, E, A, off)


def solve_linprog(c, a_ub, a_eq, b_eq, n_nonneg: int, n_free: int, method: str) -> np.ndarray:
    from scipy.optimize import linprog  # 0.25 s to import: only when an LP is solved

    bounds = [(0, None)] * n_nonneg + [(None, None)] * n_free
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(a_ub.shape[0]),
        A_eq=a_eq,
        b_eq=b_eq,
        bounds=bounds,
        method=method,
        options=_HIGHS_OPTIONS,
    )
    if res.status != 0:
        raise CfrlabError(f"sequence-form LP failed: {res.message}")
    return res.x


@dataclass(frozen=True)
class PlayerLP:
    """One player's sequence-form LP over (its realization plan, the opponent's information-set
    values): ``a_ub @ v <= 0`` (the plan against each opponent sequence), ``a_eq @ v = b_eq``
    (the plan is a realization plan); the first ``num_plan`` variables >= 0, the last
    ``num_dual`` free. The objective is the caller's."""

    a_ub: sp.csr_matrix
    a_eq: sp.csr_matrix
    b_eq: np.ndarray
    num_plan: int
    num_dual: int

    @property
    def num_vars(self) -> int:
        return self.num_plan + self.num_dual

    def solve(self, c: np.ndarray, method: str, extra_ub: sp.spmatrix | None = None) -> np.ndarray:
        """The optimal variables for objective ``c``; ``extra_ub``: more ``<= 0`` rows on the
        plan alone (a restriction of the player's plans)."""
        a_ub = self.a_ub
        if extra_ub is not None:
            pad = sp.csr_matrix((extra_ub.shape[0], self.num_dual))
            a_ub = sp.vstack([a_ub, sp.hstack([extra_ub, pad])], format="csr")
        return solve_linprog(c, a_ub, self.a_eq, self.b_eq, self.num_plan, self.num_dual, method)


def player_lp(form: SequenceForm, player: int) -> PlayerLP:
    """``player``'s LP (player 0: ``F^T q - A^T x <= 0``, ``E x = e``; player 1:
    ``A y - E^T p <= 0``, ``F y = f``; see the module doc)."""
    A = form.A
    E, F = form.E
    k0, k1 = E.shape[0], F.shape[0]
    if player == 0:
        a_ub = sp.hstack([-A.T, F.T], format="csr")
        a_eq = sp.hstack([E, sp.csr_matrix((k0, k1))], format="csr")
    else:
        a_ub = sp.hstack([A, -E.T], format="csr")
        a_eq = sp.hstack([F, sp.csr_matrix((k1, k0))], format="csr")
    b_eq = np.zeros(a_eq.shape[0])
    b_eq[0] = 1.0
    return PlayerLP(a_ub, a_eq, b_eq, form.num_seq[player], (k1, k0)[player])


def default_method(form: SequenceForm) -> str:
    return "highs-ipm" if max(form.num_seq) > IPM_ABOVE_SEQUENCES else "highs"


def solve_realization_plans(
    form: SequenceForm, method: str | None = None
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(x, y, value from player 0's LP, value from player 1's LP); ``method`` as linprog's."""
    method = method or default_method(form)
    n0, n1 = form.num_seq
    # player 0: variables (x, q); maximise q[0]
    lp = player_lp(form, 0)
    c = np.zeros(lp.num_vars)
    c[n0] = -1.0
    sol = lp.solve(c, method)
    x, v0 = sol[:n0], float(sol[n0])
    # player 1: variables (y, p); minimise p[0]
    lp = player_lp(form, 1)
    c = np.zeros(lp.num_vars)
    c[n1] = 1.0
    sol = lp.solve(c, method)
    y, v1 = sol[:n1], float(sol[n1])
    return np.maximum(x, 0.0), np.maximum(y, 0.0), v0, v1


def plans_to_policy(tree, form: SequenceForm, plans: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Behaviour policy float64[rows, A] from both realization plans."""
    off = form.row_offset
    policy = np.zeros((int(off[-1]), tree.num_actions))
    for d, n in enumerate(tree.decision_node):
        p = int(tree.player[n])
        lo, hi = int(off[d]), int(off[d + 1])
        legal = np.flatnonzero(tree.legal[d])
        block = plans[p][form.seq[p][lo:hi][:, legal]]  # [states, legal]
        total = block.sum(axis=1, keepdims=True)
        uniform = np.full_like(block, 1.0 / len(legal))
        safe = np.where(total > 0, total, 1.0)
        policy[lo:hi, legal] = np.where(total > 0, block / safe, uniform)
    return policy


def solve_lp(tree, model, method: str | None = None) -> tuple[np.ndarray, float]:
    """An exact equilibrium: (policy float64[rows, A] for both players, game value for
    player 0 in chips). Raises CfrlabError if the two LPs disagree on the value.

    ``method``: scipy's ``"highs"`` (HiGHS chooses; dual simplex here), ``"highs-ds"`` or
    ``"highs-ipm"`` (interior point + crossover); by default by size (``default_method``).
    """
    form = build_sequence_form(tree, model)
    x, y, v0, v1 = solve_realization_plans(form, method)
    if abs(v0 - v1) > 1e-7 * max(1.0, abs(v0)):
        raise CfrlabError(f"sequence-form LP: the players' values disagree ({v0} vs {v1})")
    return plans_to_policy(tree, form, (x, y)), 0.5 * (v0 + v1)
