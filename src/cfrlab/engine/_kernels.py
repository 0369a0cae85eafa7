"""Numba kernels of the vector CFR walk: plain arrays in, plain arrays out.

One walk serves full-width CFR (vectors over all private states) and public chance sampling
(vectors over the states of one sampled board, i.e. a run of whole blocks), and, with other
backward modes, best response and expected value. What one walk sees is described per round by

- ``sbase[p, r]``: the first global state of player p's slice at round r,
- ``ns_eff[r]``: the slice length (the same for both players),
- ``scale[r]``: a weight on the round's terminal values (1, or 1 / sampling probability).

Chance sampling (one deal, scalars) has its own kernel in ``_cs_kernels``.

Layouts:

- ``nodes`` int64[N, 8]: columns ``kind, player, round, parent, action, decision,
  first_child, num_children`` of the public tree (docs/ENGINE.md), ``child`` int64[E].
- ``row_off`` int64[D + 1]; ``legal`` bool[D, A]; ``regret``, ``avg``, ``sigma``
  float64[rows, A] with row = ``row_off[d] + state`` (A = 3 in limit games, f c r; a no-limit
  tree has one column per raise size).
- ``node_off`` int64[N]: offset of node n's vector in the arenas ``reach`` and ``values``
  (float64[2, A], one row per player); a node of round r has ``cap[r]`` slots.
- ``pmap`` int64 (all rounds' parent maps end to end, round r at ``pmap_off[r]``).
- ``groups`` int64[G, 7]: terminal groups ``arena_off, T, round, op_p0, op_p1, term_start,
  stride``; the T terminals of a group sit contiguously, ``stride`` slots apart, so their
  vectors form a (T, stride) matrix. ``term_util`` float64[2, terminals]: player i's payoff
  factor of each terminal (fold winnings, or the stake at a showdown).
- ops: ``optab`` int64[nops, 6] = ``offset, K, B, H, kind, int offset``; ``opbuf`` float64
  holds K blocks of H x H, block b of the operator being block ``b % K``; ``opc`` float64[nops]
  and ``opint`` int64 describe the structured kinds (see ``terminals``). An op is
  ``G_i = M_i^T`` for player i, where player i's terminal value is
  ``v_i = u * M_i @ reach_opponent`` (M_0 = P_r or W, M_1 = P_r^T or -W^T), so that a
  group's values are one product ``R @ G``.
- update rule: ``UpdateRule`` (alternating, regret_floor, discount_pos, discount_neg, alpha,
  beta, gamma; see ``cfrlab.solvers.cfr``). ``pred`` float64[rows, 3]
  (predictive variants; else an empty array): the last instantaneous regrets, added to the
  accumulated ones when the next strategy is chosen.

Entry points take their arrays in named groups (namedtuples, which numba passes as typed
tuples), built once by the Python wrapper and passed down whole to ``forward``, ``terminals``
and ``backward``:

- ``WalkTree``: the public tree and arena layout (``nodes child row_off legal node_off pmap
  pmap_off``);
- ``TerminalOps``: the terminal groups and their operators (``groups term_util optab opbuf
  opbuf32 opint opc``);
- ``SolverTables``: the policy tables (``regret pred avg sigma``; a fixed-policy walk uses
  ``fixed_tables(sigma)``);
- ``WalkView``: what one walk sees (``sbase ns_eff scale``, above; ``full_view`` for full
  width);
- ``UpdateRule`` and ``PcsBlocks`` (``cdf bpar bpar_off bsize bmass``: the board tree that
  public chance sampling draws from).

A call site names every array once, so two of thirty positional arrays cannot be swapped
silently.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine._match_kernels import limit_match_rows as _limit_match_rows
from cfrlab.engine._match_kernels import match_rows as _regret_match_rows  # noqa: F401
from cfrlab.engine._match_kernels import match_wide as _match_wide
from cfrlab.engine._match_kernels import normalize_row_range
from cfrlab.engine._match_kernels import predictive_match_rows as _predictive_match_rows
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD

COL_KIND, COL_PLAYER, COL_ROUND, COL_PARENT, COL_ACTION, COL_DECISION, COL_FCHILD, COL_NCHILD = range(8)
GEMM_MIN = 48  # dense blocks at least this wide use BLAS; smaller ones loop (no call overhead)

# terminal operator kinds (optab column 4)
OP_DENSE, OP_ALL_BUT_SELF, OP_RANKED = 0, 1, 2
# backward modes
MODE_VALUE, MODE_CFR, MODE_BR = 0, 1, 2
# sampling schemes (CS runs in _cs_kernels)
FULL, PCS, CS = 0, 1, 2

WalkTree = namedtuple("WalkTree", "nodes child row_off legal node_off pmap pmap_off")
TerminalOps = namedtuple("TerminalOps", "groups term_util optab opbuf opbuf32 opint opc")
SolverTables = namedtuple("SolverTables", "regret pred avg sigma")
UpdateRule = namedtuple("UpdateRule", "alternating regret_floor discount_pos discount_neg alpha beta gamma")
PcsBlocks = namedtuple("PcsBlocks", "cdf bpar bpar_off bsize bmass")
WalkView = namedtuple("WalkView", "sbase ns_eff scale")

FIXED_POLICY = UpdateRule(False, False, False, False, 0.0, 0.0, 0.0)  # walks that update nothing


@njit(cache=NUMBA_CACHE)
def forward(walk, view, tables, reach, rm_player):
    """Reach vectors at every node (preorder) of the slice ``view`` (``WalkView``), under the
    policy ``tables.sigma`` (``SolverTables``; ``regret`` and ``pred`` feed regret matching).

    ``rm_player`` 0 or 1: only that player's strategy changed since the last walk over these
    arenas, so regret matching refreshes its sigma rows and only its reach is recomputed (the
    other player's reach is still in place); 2: both players; -1: sigma is a fixed policy and
    both reaches are computed. Limit and no-limit tables each get their own compiled node loop
    (as in ``backward``)."""
    if tables.sigma.shape[1] == 3:
        _forward_nodes(walk, view, tables, reach, rm_player, False)
    else:
        _forward_nodes(walk, view, tables, reach, rm_player, True)


@njit(cache=NUMBA_CACHE, inline="always")
def _forward_nodes(walk, view, tables, reach, rm_player, wide):
    """``forward``'s node loop; ``wide`` (a literal at each call): more than three columns."""
    nodes, _child, row_off, legal, node_off, pmap, pmap_off = walk
    sbase, ns_eff, _scale = view
    regret, pred, _avg, sigma = tables
    N = nodes.shape[0]
    lo = 0 if rm_player != 1 else 1
    hi = 2 if rm_player != 0 else 1
    o = node_off[0]
    for pl in range(lo, hi):
        for s in range(ns_eff[0]):
            reach[pl, o + s] = 1.0
    for n in range(N):
        if rm_player >= 0 and nodes[n, COL_KIND] == DECISION and (
                rm_player == 2 or nodes[n, COL_PLAYER] == rm_player):
            q = nodes[n, COL_PLAYER]
            r = nodes[n, COL_ROUND]
            d = nodes[n, COL_DECISION]
            if wide:  # pred has no rows unless predictive
                _match_wide(regret, pred, legal, d, row_off[d] + sbase[q, r], ns_eff[r], sigma)
            elif pred.shape[0] > 0:
                _predictive_match_rows(regret, pred, legal, d, row_off[d] + sbase[q, r], ns_eff[r], sigma)
            else:
                _limit_match_rows(regret, legal, d, row_off[d] + sbase[q, r], ns_eff[r], sigma)
        if n == 0:
            continue
        p = nodes[n, COL_PARENT]
        o = node_off[n]
        op = node_off[p]
        if nodes[p, COL_KIND] == DECISION:
            q = nodes[p, COL_PLAYER]
            r = nodes[p, COL_ROUND]
            L = ns_eff[r]
            if lo <= q < hi:
                row = row_off[nodes[p, COL_DECISION]] + sbase[q, r]
                a = nodes[n, COL_ACTION]
                rq = reach[q]
                for s in range(L):
                    rq[o + s] = rq[op + s] * sigma[row + s, a]
            if lo <= 1 - q < hi:
                rp = reach[1 - q]
                for s in range(L):
                    rp[o + s] = rp[op + s]
        else:  # chance: expand through the parent map
            r1 = nodes[n, COL_ROUND]
            for pl in range(lo, hi):
                base = pmap_off[r1] + sbase[pl, r1]
                pb = sbase[pl, r1 - 1]
                for s in range(ns_eff[r1]):
                    reach[pl, o + s] = reach[pl, op + pmap[base + s] - pb]


@njit(cache=NUMBA_CACHE)
def _dense_group(Gm, Gm32, Rm, Vm, util, sc):
    """Vm[t] = util[t] * sc * (Rm[t] @ Gm) by BLAS; terminals the opponent never reaches
    (all-zero rows, common once CFR+ strategies turn pure) are left out of the product.

    With ``Gm32`` (a float32 copy of Gm, else an empty array) the product runs in float32
    (single-precision GEMM: half the memory traffic, twice the SIMD width); the results
    are scaled and stored as float64. Used by the solvers only: exact evaluation walks
    pass no float32 tables."""
    T, H = Rm.shape
    live = np.zeros(T, dtype=np.int64)
    nlive = 0
    for t in range(T):
        for s in range(H):
            if Rm[t, s] != 0.0:
                live[nlive] = t
                nlive += 1
                break
    use32 = Gm32.shape[0] == H
    if nlive == T and not use32:
        np.dot(Rm, Gm, Vm)  # in place
    else:
        for t in range(T):
            for s in range(H):
                Vm[t, s] = 0.0
        if nlive == 0:
            return
        if use32:
            packed32 = np.empty((nlive, H), dtype=np.float32)
            for j in range(nlive):
                for s in range(H):
                    packed32[j, s] = Rm[live[j], s]
            out32 = np.dot(packed32, Gm32)
            for j in range(nlive):
                for s in range(H):
                    Vm[live[j], s] = out32[j, s]
        else:
            packed = np.empty((nlive, H))
            for j in range(nlive):
                packed[j] = Rm[live[j]]
            out = np.dot(packed, Gm)
            for j in range(nlive):
                Vm[live[j]] = out[j]
    for t in range(T):
        u = util[t] * sc
        for s in range(H):
            Vm[t, s] *= u


@njit(cache=NUMBA_CACHE)
def terminals(ops, view, i, reach, values):
    """Player i's counterfactual values at every terminal, one operator product per group
    (``ops`` TerminalOps).

    The walk's slice of round r (``view``: ``sbase``, ``ns_eff``) is a run of whole blocks,
    the same for both players; values are weighted by ``view.scale[r]``. Operator kinds
    (``optab[:, 4]``): dense blocks (a BLAS product when there is one wide block);
    ``c * (1 - I)`` (one hole card: every other hand is possible), O(H);
    ``c * sign(rank_x - rank_y)`` (showdown with one hole card), O(H) by prefix sums
    over the rank order kept in ``opint`` (order, tie-group end, tie-group start per block).
    ``opbuf32``: a float32 copy of ``opbuf`` for single-precision GEMMs, or an empty array.
    """
    _terminals(ops, view, i, reach, values)


@njit(cache=NUMBA_CACHE, inline="always")
def _terminals(ops, view, i, reach, values):
    """``terminals``' body, inlined in ``run_iterations``."""
    groups, term_util, optab, opbuf, opbuf32, opint, opc = ops
    sbase, ns_eff, scale = view
    o_ = 1 - i
    for g in range(groups.shape[0]):
        go, T, r = groups[g, 0], groups[g, 1], groups[g, 2]
        op, ts, stride = groups[g, 3 + i], groups[g, 5], groups[g, 6]
        off, K, B, H = optab[op, 0], optab[op, 1], optab[op, 2], optab[op, 3]
        kind, ioff = optab[op, 4], optab[op, 5]
        L = ns_eff[r]
        b_first = sbase[i, r] // H
        nb = L // H
        sc = scale[r]
        if kind == OP_DENSE and B == 1 and L == H and stride == H and H >= GEMM_MIN:
            g32 = opbuf32[off:off + H * H].reshape(H, H) if opbuf32.shape[0] == opbuf.shape[0] \
                else opbuf32[:0].reshape(0, 1)
            _dense_group(opbuf[off:off + H * H].reshape(H, H), g32, reach[o_, go:go + T * H].reshape(T, H),
                         values[i, go:go + T * H].reshape(T, H), term_util[i, ts:ts + T], sc)
            continue
        pref = np.empty(H + 1)
        for t in range(T):
            u = term_util[i, ts + t] * sc
            for bl in range(nb):
                b = b_first + bl
                k = b % K
                vb = go + t * stride + bl * H
                if kind == OP_ALL_BUT_SELF:
                    f = u * opc[op]
                    tot = 0.0
                    for y in range(H):
                        tot += reach[o_, vb + y]
                    for x in range(H):
                        values[i, vb + x] = f * (tot - reach[o_, vb + x])
                elif kind == OP_RANKED:
                    f = u * opc[op]
                    order = ioff + k * H
                    gend = ioff + (K + k) * H
                    gstart = ioff + (2 * K + k) * H
                    acc = 0.0
                    for j in range(H):
                        pref[j] = acc
                        acc += reach[o_, vb + opint[order + j]]
                    pref[H] = acc
                    for j in range(H):
                        less = pref[opint[gstart + j]]
                        greater = acc - pref[opint[gend + j]]
                        values[i, vb + opint[order + j]] = f * (less - greater)
                else:
                    for x in range(H):
                        values[i, vb + x] = 0.0
                    blk = off + k * H * H
                    for y in range(H):
                        rr = reach[o_, vb + y]
                        if rr == 0.0:
                            continue
                        rr *= u
                        ro = blk + y * H
                        for x in range(H):
                            values[i, vb + x] += rr * opbuf[ro + x]


@njit(cache=NUMBA_CACHE, inline="always")
def _discounts(rule, t):
    """(positive-regret, negative-regret, average) multipliers applied at iteration t."""
    pos_f = 1.0
    neg_f = 1.0
    tp = float(t - 1)
    if rule.discount_pos:
        x = tp ** rule.alpha
        pos_f = x / (x + 1.0)
    if rule.discount_neg:
        x = tp ** rule.beta
        neg_f = x / (x + 1.0)
    avg_f = (tp / t) ** rule.gamma
    return pos_f, neg_f, avg_f


@njit(cache=NUMBA_CACHE, inline="always")
def _add_regret(regret, row, a, inst, pos_f, neg_f, floor):
    R = regret[row, a]
    R *= pos_f if R > 0.0 else neg_f
    R += inst
    if floor and R < 0.0:
        R = 0.0
    regret[row, a] = R


@njit(cache=NUMBA_CACHE, inline="always")
def _add_average(avg, sigma, row, w, avg_f, A):
    """avg[row, :A] = avg_f * avg[row, :A] + w * sigma[row, :A]; A is a literal 3 in the limit
    walk (unrolled once inlined), ``avg.shape[1]`` elsewhere."""
    for a in range(A):
        avg[row, a] = avg[row, a] * avg_f + w * sigma[row, a]


@njit(cache=NUMBA_CACHE, inline="always")
def _update_wide(walk, tables, fc, nc, o, row, L, vi, ri, update, steps):
    """The acting player's value (and CFR update) at a decision with more than three children;
    ``steps`` = (pos_f, neg_f, avg_f, floor) of the iteration."""
    nodes, child, _row_off, _legal, node_off, _pmap, _pmap_off = walk
    regret, pred, avg, sigma = tables
    pos_f, neg_f, avg_f, floor = steps
    predict = pred.shape[0] > 0
    for s in range(L):
        x = row + s
        v = 0.0
        for ci in range(nc):
            c = child[fc + ci]
            v += sigma[x, nodes[c, COL_ACTION]] * vi[node_off[c] + s]
        vi[o + s] = v
        if update:
            for ci in range(nc):
                c = child[fc + ci]
                a = nodes[c, COL_ACTION]
                inst = vi[node_off[c] + s] - v
                _add_regret(regret, x, a, inst, pos_f, neg_f, floor)
                if predict:
                    pred[x, a] = inst
            _add_average(avg, sigma, x, ri[o + s], avg_f, avg.shape[1])


@njit(cache=NUMBA_CACHE, inline="always")
def chance_values(nodes, child, node_off, pmap, pmap_off, sbase, ns_eff, n, i, vi):
    """Player i's values ``vi`` at the chance node n: each next-round state's value added to
    its parent state's (the parent map of the walk's slice ``sbase``, ``ns_eff``); inlined in
    the per-node loops."""
    r = nodes[n, COL_ROUND]
    o = node_off[n]
    oc = node_off[child[nodes[n, COL_FCHILD]]]
    for s in range(ns_eff[r]):
        vi[o + s] = 0.0
    base = pmap_off[r + 1] + sbase[i, r + 1]
    pb = sbase[i, r]
    for s in range(ns_eff[r + 1]):
        vi[o + pmap[base + s] - pb] += vi[oc + s]


@njit(cache=NUMBA_CACHE, inline="always")
def sum_children(nodes, child, node_off, n, L, vi):
    """``vi`` at node n (L states) = the sum of its children's: the value of a player who
    does not act there."""
    fc = nodes[n, COL_FCHILD]
    o = node_off[n]
    oc = node_off[child[fc]]
    for s in range(L):
        vi[o + s] = vi[oc + s]
    for ci in range(1, nodes[n, COL_NCHILD]):
        oc = node_off[child[fc + ci]]
        for s in range(L):
            vi[o + s] += vi[oc + s]


@njit(cache=NUMBA_CACHE)
def backward(walk, view, tables, reach, values, trav, mode, rule, t, br_action):
    """Values bottom-up for the players with ``trav[i]`` over the slice ``view``; terminal
    values are already set. ``tables`` SolverTables: the policy ``sigma`` and (mode 1) the
    tables updated.

    mode 0: expectation under sigma; 1: CFR regret and average updates at the travelling
    player's rows (iteration t, ``rule``); 2: best response (max, ``br_action``).

    Limit tables (three columns) and no-limit ones each get their own compiled copy of the
    node loop (``wide`` is a constant in each), so the limit walk carries no per-node test
    or call for the wide case. Callers pass ``mode`` and ``t`` as int64 variables (a bare
    constant is typed as a literal, and numba compiles this whole walk again for each one)."""
    if tables.sigma.shape[1] == 3:
        _backward_nodes(walk, view, tables, reach, values, trav, mode, rule, t, br_action, False)
    else:
        _backward_nodes(walk, view, tables, reach, values, trav, mode, rule, t, br_action, True)


@njit(cache=NUMBA_CACHE, inline="always")
def _backward_nodes(walk, view, tables, reach, values, trav, mode, rule, t, br_action, wide):
    """``backward``'s node loop; ``wide`` (a literal at each call): the tables have more than
    three columns."""
    nodes, child, row_off, _legal, node_off, pmap, pmap_off = walk
    sbase, ns_eff, _scale = view
    regret, pred, avg, sigma = tables
    pos_f, neg_f, avg_f = _discounts(rule, t)
    floor = rule.regret_floor
    N = nodes.shape[0]
    for n in range(N - 1, -1, -1):
        kind = nodes[n, COL_KIND]
        if kind >= FOLD:
            continue
        o = node_off[n]
        r = nodes[n, COL_ROUND]
        L = ns_eff[r]
        fc = nodes[n, COL_FCHILD]
        if kind == CHANCE:
            for i in range(2):
                if trav[i]:
                    chance_values(nodes, child, node_off, pmap, pmap_off, sbase, ns_eff, n, i, values[i])
            continue
        q = nodes[n, COL_PLAYER]
        d = nodes[n, COL_DECISION]
        nc = nodes[n, COL_NCHILD]
        row = row_off[d] + sbase[q, r]
        for i in range(2):
            if not trav[i]:
                continue
            if i != q:
                sum_children(nodes, child, node_off, n, L, values[i])
            elif mode == MODE_BR:
                for s in range(L):
                    best = -np.inf
                    arg = 0
                    for ci in range(nc):
                        c = child[fc + ci]
                        v = values[i, node_off[c] + s]
                        if v > best:
                            best = v
                            arg = nodes[c, COL_ACTION]
                    values[i, o + s] = best
                    br_action[row + s] = arg
            elif wide and nc > 3:  # a no-limit decision with several raise sizes
                _update_wide(walk, tables, fc, nc, o, row, L, values[i], reach[i], mode == MODE_CFR,
                             (pos_f, neg_f, avg_f, floor))
            else:
                # up to three children; their offsets and actions hoisted out of the state loop
                # (limit tables: the average's three columns unrolled)
                vi = values[i]
                ri = reach[i]
                c0 = child[fc]
                oc0, a0 = node_off[c0], nodes[c0, COL_ACTION]
                oc1, a1, oc2, a2 = oc0, a0, oc0, a0
                if nc > 1:
                    c1 = child[fc + 1]
                    oc1, a1 = node_off[c1], nodes[c1, COL_ACTION]
                if nc > 2:
                    c2 = child[fc + 2]
                    oc2, a2 = node_off[c2], nodes[c2, COL_ACTION]
                update = mode == MODE_CFR
                predict = pred.shape[0] > 0
                for s in range(L):
                    x = row + s
                    v0 = vi[oc0 + s]
                    v1 = vi[oc1 + s]
                    v2 = vi[oc2 + s]
                    v = sigma[x, a0] * v0
                    if nc > 1:
                        v += sigma[x, a1] * v1
                    if nc > 2:
                        v += sigma[x, a2] * v2
                    vi[o + s] = v
                    if update:
                        _add_regret(regret, x, a0, v0 - v, pos_f, neg_f, floor)
                        if nc > 1:
                            _add_regret(regret, x, a1, v1 - v, pos_f, neg_f, floor)
                        if nc > 2:
                            _add_regret(regret, x, a2, v2 - v, pos_f, neg_f, floor)
                        if predict:
                            pred[x, a0] = v0 - v
                            if nc > 1:
                                pred[x, a1] = v1 - v
                            if nc > 2:
                                pred[x, a2] = v2 - v
                        _add_average(avg, sigma, x, ri[o + s], avg_f, avg.shape[1] if wide else 3)


@njit(cache=NUMBA_CACHE)
def _sample_pcs(u, cdf, bpar, bpar_off, bsize, bmass, R, sbase, ns_eff, scale):
    """One final board (block) by its probability; per round the block's slice and 1/mass."""
    b = np.searchsorted(cdf, u * cdf[-1], side="right")
    if b >= cdf.shape[0]:
        b = cdf.shape[0] - 1
    for r in range(R - 1, -1, -1):
        H = bsize[r]
        sbase[0, r] = b * H
        sbase[1, r] = b * H
        ns_eff[r] = H
        scale[r] = 1.0 / bmass[bpar_off[r] + b]
        if r > 0:
            b = bpar[bpar_off[r] + b]


@njit(cache=NUMBA_CACHE)
def run_iterations(walk, ops, tables, reach, values, rule, t0, n_iter, sampling, uniforms, pcs, full_ns):
    """``n_iter`` iterations numbered t0+1 .. t0+n_iter, entirely in compiled code: full width
    (``sampling`` FULL) or one sampled board per iteration (PCS, from ``uniforms[it, 0]``).

    ``walk`` WalkTree, ``ops`` TerminalOps, ``tables`` SolverTables (updated in place),
    ``rule`` UpdateRule, ``pcs`` PcsBlocks (PCS only), ``full_ns`` int64[R] states per round.
    Limit (three-column) tables only; ``run_wide_iterations`` takes no-limit ones (one
    compiled loop holding both walks was 7% slower on Leduc PCS)."""
    _iterations(walk, ops, tables, reach, values, rule, (t0, n_iter), sampling, uniforms, pcs, full_ns, False)


@njit(cache=NUMBA_CACHE)
def run_wide_iterations(walk, ops, tables, reach, values, rule, t0, n_iter, sampling, uniforms, pcs, full_ns):
    """``run_iterations`` for tables of more than three columns (no-limit trees)."""
    _iterations(walk, ops, tables, reach, values, rule, (t0, n_iter), sampling, uniforms, pcs, full_ns, True)


@njit(cache=NUMBA_CACHE, inline="always")
def _iterations(walk, ops, tables, reach, values, rule, span, sampling, uniforms, pcs, full_ns, wide):
    """``run_iterations``' loop, iterations ``span`` = (t0, n_iter); ``wide`` a literal. The
    walk's stages are inlined (no per-pass calls)."""
    cdf, bpar, bpar_off, bsize, bmass = pcs
    t0, n_iter = span
    R = full_ns.shape[0]
    sbase = np.zeros((2, R), dtype=np.int64)
    ns_eff = full_ns.copy()
    scale = np.ones(R)
    view = WalkView(sbase, ns_eff, scale)
    trav = np.zeros(2, dtype=np.bool_)
    br_dummy = np.zeros(1, dtype=np.int8)
    for it in range(n_iter):
        t = t0 + it + 1
        if sampling == PCS:
            _sample_pcs(uniforms[it, 0], cdf, bpar, bpar_off, bsize, bmass, R, sbase, ns_eff, scale)
        # alternating updates: player 0, then player 1 against 0's new strategy; else one
        # pass updates both
        for ps in range(2 if rule.alternating else 1):
            # full width: only the player updated by the previous pass has a new sigma
            rm = (1 - ps if (sampling == FULL and it + ps > 0) else 2) if rule.alternating else 2
            _forward_nodes(walk, view, tables, reach, rm, wide)
            for i in range(2):
                trav[i] = not rule.alternating or i == ps
                if trav[i]:
                    _terminals(ops, view, i, reach, values)
            _backward_nodes(walk, view, tables, reach, values, trav, MODE_CFR, rule, t, br_dummy, wide)


@njit(cache=NUMBA_CACHE)
def full_view(num_states):
    """The full-width slice: every state of every round, weight 1."""
    R = num_states.shape[0]
    return WalkView(np.zeros((2, R), dtype=np.int64), num_states, np.ones(R))


@njit(cache=NUMBA_CACHE)
def fixed_tables(sigma):
    """SolverTables for a walk under the fixed policy ``sigma`` (nothing is updated: regret
    and average stand for sigma, no predicted regrets)."""
    return SolverTables(sigma, np.zeros((0, sigma.shape[1])), sigma, sigma)


@njit(cache=NUMBA_CACHE)
def exact_ops(ops):
    """``ops`` without the float32 operator copy: exact (float64) terminal products."""
    e32 = ops.opbuf[:0].astype(np.float32)
    return TerminalOps(ops.groups, ops.term_util, ops.optab, ops.opbuf, e32, ops.opint, ops.opc)


@njit(cache=NUMBA_CACHE)
def evaluate_fixed(walk, ops, num_states, sigma, player, mode, reach, values, br_action):
    """Full-width walk under the fixed policy ``sigma``; returns ``player``'s value (the sum
    of its root vector). mode 0: expected value; 2: best response (``br_action`` filled)."""
    view = full_view(num_states)
    fixed = fixed_tables(sigma)
    trav = np.zeros(2, dtype=np.bool_)
    trav[player] = True
    forward(walk, view, fixed, reach, np.int64(-1))
    terminals(exact_ops(ops), view, player, reach, values)
    backward(walk, view, fixed, reach, values, trav, np.int64(mode), FIXED_POLICY, np.int64(1), br_action)
    return root_value(walk, num_states, player, values)


@njit(cache=NUMBA_CACHE)
def root_value(walk, num_states, player, values):
    """``player``'s value of the walk: the sum of its root vector."""
    o = walk.node_off[0]
    tot = 0.0
    for s in range(num_states[0]):
        tot += values[player, o + s]
    return tot


@njit(cache=NUMBA_CACHE)
def normalize_rows(table, legal, dec_of_row, out):
    """Row-normalize a nonnegative (rows, A) table; rows summing to 0 become uniform on legal."""
    normalize_row_range(table, legal, dec_of_row, out, 0, table.shape[0])
