"""The last round of the real-game best response, several betting subtrees at once.

On the river of hold'em every segment (one per river entry: 567 per board) is the same
27-node betting subtree; only the pot (payoffs), the decision indices (policy rows) and the
entry reach differ. ``last_round_lanes`` walks ``W`` segments of one shape together, both
seats at once: every per-hand array is ``(n, 2W)``; in a reach array lane ``k < W`` is seat
0's reach in the k-th segment and lane ``W + k`` seat 1's, and a value array holds in the same
lane the value against that reach (the other seat's best-response value), so no lane ever
moves. The terminal sweeps (``_kernels`` module docstring: hands in rank order, running
totals per card) then pay their card-indexed gathers and scatters once for ``2W`` vectors,
and the lane loops compile to SIMD code: they run to a trip count known only at run time and
index with unsigned integers, which is what lets LLVM vectorize them (a constant count is
unrolled to scalar code first; a signed index keeps numba's negative-index handling in the
loop). Most of the cost per hand is the loops' set-up (run-time alias checks), so wide
groups pay: on a CFR5 river board 16 segments (32 lanes) took 62 ms, 8 took 70, 4 took 100,
32 took 66 (2026-11-24); with the reach classes, 24 segments (48 lanes) take about 10% less
than 16, and a lane count that is not a multiple of 8 (42, 54) more; with a showdown group's
reach summed by class (``group_sums``), 32 segments take 5 to 10% less than 24 (40 and 48
more than 32).

The subtree is walked depth first with one reach and one value buffer per depth; each
terminal's values are merged straight into its parent's (max in the lanes of the parent's
actor, sum in the others, by a per-lane select); the policy rows are read once per private
state present on the board (CFR5: about 130 of its 625 river states), for all of a decision's
actions at once. Segments whose entry reach is zero for both players are left out (their
values are zero). Lanes never mix, so the values do not depend on how the segments were
grouped.

Reach is kept per *reach class*, not per hand: hands of one private state whose entry reach
is the same at every entry (``column_classes``, once per set of entries) have the same reach
at every node, so reach updates run over the classes (CFR5: its ~130 river states present,
a perfect-recall state holding its history, instead of 1,081 hands; an opponent that forgets
gets finer classes, down to one per hand), and a terminal's totals (per card) come from each
class's count of hands holding each card. Only the responder's values and the showdown's
sweep in rank order stay per hand; a showdown's values are merged into its parent inside
its sweep (the running sums start at minus the totals, so the disjoint total drops out).

Arguments travel in named bundles: ``Segments`` and ``Flow`` of ``_kernels`` (the round's
segments, entry reach in and values out), ``LastTable`` (``last_round_table``: the opponent's
rows of the last round, state-major), and

- ``RankedHands``: the hands that miss the board in rank order, ``order`` int64[n] (position q
  holds hand order[q]), ``cards`` int64[n, h] their cards, ``grp_end`` int64[n] (the end of
  q's group of equal rank), ``states`` int64[n] the opponent's private state, ``reach_of``
  int64[n] the class of q's column of entry reach (``column_classes``), ``h``, ``D``;
- ``SubtreeShape``: a shape class's representative segment ``rep`` and the ``depth``,
  ``parent`` and ``action`` (from the parent) of each local node (``_tree_shape``);
- ``LaneBuffers``: per depth d the reach ``R[d]`` (classes, 2W) and values ``V[d]`` (n, 2W)
  and the open decision's action probabilities ``T[d]`` (private states present, 3, W); the
  totals ``X`` (2W), per card ``xc`` (D, 2W), a terminal's reach ``rt`` (classes, 2W), and
  ``gs``;
- ``ReachClasses`` and ``GroupSums``: the board engine's lane bundles (``cfrlab.engine.kernels``,
  documented there), built once per board by ``reach_classes`` and ``group_sums``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, uint64

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import kernels as EK
from cfrlab.tree import DECISION, FOLD, SHOWDOWN

W64 = 32  # segments per group in float64: 2W = 64 lanes (sixteen AVX2 vectors)
W32 = 64  # in float32: 128 lanes, the same sixteen vectors (5% faster than 32 segments)

RankedHands = namedtuple("RankedHands", "order cards grp_end states reach_of h D")
SubtreeShape = namedtuple("SubtreeShape", "rep depth parent action")
LaneBuffers = namedtuple("LaneBuffers", "R V T X xc rt gs")
LastTable = namedtuple("LastTable", "policy col")


def shape_classes(seg_off: np.ndarray, kind, player, child, slot) -> tuple[np.ndarray, np.ndarray]:
    """(class of each segment, a representative segment of each class): segments of one class
    have the same nodes in the same order (kinds, actors, children, reach slots)."""
    keys: dict[bytes, int] = {}
    cls = np.empty(len(seg_off) - 1, dtype=np.int64)
    reps = []
    for s in range(len(seg_off) - 1):
        a, b = int(seg_off[s]), int(seg_off[s + 1])
        key = b"".join(np.ascontiguousarray(x[a:b]).tobytes() for x in (kind, player, child, slot))
        if key not in keys:
            keys[key] = len(reps)
            reps.append(s)
        cls[s] = keys[key]
    return cls, np.array(reps, dtype=np.int64)


def last_round_table(policy: np.ndarray, row_offset: np.ndarray, decisions) -> LastTable:
    """The opponent's rows of the last round's decisions (``decisions``: their indices, -1
    for other nodes), state-major: ``policy[s, col[d]]`` is the row of private state s at
    decision d (``row_offset[d] + s`` of the table). A board's ~130 states then read one
    contiguous block each for a group's segments, where the decision-major table scatters
    them over the whole last round (the gathers are memory-bound). The rows of a decision run
    to the next decision's first row; memory: the last round's rows again (85 MB for CFR5)."""
    decs = np.unique(np.asarray(decisions, dtype=np.int64))
    decs = decs[decs >= 0]
    first = row_offset[decs]
    starts = np.unique(np.append(row_offset, len(policy)))
    count = starts[np.searchsorted(starts, first, side="right")] - first
    S = int(count.max()) if len(decs) else 0
    s = np.arange(S)[:, None]
    rows = np.minimum(first[None, :] + s, len(policy) - 1)
    table = np.where((s < count[None, :])[..., None], policy[rows], 0.0)
    col = np.full(len(row_offset), -1, np.int64)
    col[decs] = np.arange(len(decs))
    return LastTable(np.ascontiguousarray(table), col)






@njit(cache=NUMBA_CACHE)
def _walk_group(lanes, cnt, seg, shape, hands, ustate, cls, table, flow, buf):
    """The ``cnt`` segments ``lanes`` of one shape class: reach down by reach class, depth
    first (``R[d]``; ``T[d]`` the action probabilities of the open decision at depth d by
    private state ``ustate``), each terminal's values merged into its parent's ``V[d - 1]``,
    each decision's into its parent's when its subtree is done."""
    seg_off, entry, l_kind, l_player, l_pay, l_dec = (seg.seg_off, seg.entry, seg.kind,
                                                       seg.player, seg.pay, seg.dec)
    rep, depth, parent, action = shape
    order, scards, h = hands.order, hands.cards, hands.h
    policy, col = table
    in_reach, out_vals, scale = flow.in_reach, flow.out_vals, flow.scale
    R, V, T, X, xc, rt, gs = buf
    W = lanes.shape[0]
    cidx, cstate, cfirst = cls.cidx, cls.cstate, cls.first
    n = order.shape[0]
    U = cfirst.shape[0]
    base = seg_off[rep]
    m = seg_off[rep + 1] - base
    M = uint64(2 * W)
    W2 = uint64(W)
    pay = np.zeros(2 * W, R.dtype)
    mx = np.zeros((2, 2 * W), np.bool_)  # mx[p]: the lanes of p's values (max where p acts)
    mx[0, W:] = True
    mx[1, :W] = True
    first = np.ones(R.shape[0], np.bool_)
    stack = np.zeros(R.shape[0], np.int64)  # the open decision at each depth
    rows = np.zeros(W, np.int64)
    for p in range(2):
        for u in range(U):
            i = order[cfirst[u]]
            for w in range(W):
                R[0, u, p * W + w] = in_reach[entry[lanes[w]], p, i] if w < cnt else 0.0
    top = -1
    for j in range(m + 1):
        d = depth[j] if j < m else 0
        while top >= max(d, 1):  # close the open decisions at depth >= d, deepest first
            up = top - 1
            mk = mx[l_player[base + stack[up]]]
            if first[up]:
                V[up, :n] = V[top, :n]
                first[up] = False
            else:
                for qq in range(n):
                    q = uint64(qq)
                    for k in range(M):
                        v = V[up, q, k]
                        x = V[top, q, k]
                        V[up, q, k] = max(v, x) if mk[k] else v + x
            top -= 1
        if j == m:
            break
        k0 = base + j
        kind = l_kind[k0]
        rd = R[d] if kind == DECISION or j == 0 else rt  # a terminal's reach: one hot buffer
        if j > 0:  # reach: the parent's, the actor's lanes times its action's probability
            pq = l_player[base + parent[j]]
            a = action[j]
            lo = uint64(pq) * W2
            ot = uint64(1 - pq) * W2
            Tp = T[d - 1]
            for uu in range(U):
                u = uint64(uu)
                us = uint64(cstate[u])
                for k in range(W2):
                    rd[u, lo + k] = R[d - 1, u, lo + k] * Tp[us, a, k]
                for k in range(W2):
                    rd[u, ot + k] = R[d - 1, u, ot + k]
        if kind == DECISION:
            top = d
            stack[d] = j
            first[d] = True
            Td = T[d]
            for w in range(W):
                rows[w] = col[l_dec[seg_off[lanes[min(w, cnt - 1)]] + j]]
            for u in range(ustate.shape[0]):
                ps = policy[ustate[u]]
                for w in range(W):
                    rw = rows[w]
                    Td[u, 0, w] = ps[rw, 0]
                    Td[u, 1, w] = ps[rw, 1]
                    Td[u, 2, w] = ps[rw, 2]
        elif kind == FOLD or kind == SHOWDOWN:
            for w in range(W):
                kw = seg_off[lanes[min(w, cnt - 1)]] + j
                pay[w] = l_pay[kw, 1]  # lanes against seat 0's reach: seat 1's values
                pay[W + w] = l_pay[kw, 0]
            up = max(d - 1, 0)  # a segment that is one terminal: its own values
            pq = l_player[base + parent[j]] if d > 0 else 0
            if kind == SHOWDOWN:
                EK.showdown_lanes(rd, cls, scards, h, n, gs, X, xc, pay, V[up], first[up], mx[pq])
            else:
                EK.card_totals(rd, cls, X, xc)
                EK.fold_lanes(rd, cidx, scards, h, n, X, xc, pay, V[up], first[up], mx[pq])
            first[up] = False
    for w in range(cnt):
        e = entry[lanes[w]]
        for p in range(2):
            for q in range(n):
                out_vals[e, p, order[q]] += scale * V[0, q, (1 - p) * W + w]


@njit(cache=NUMBA_CACHE)
def _tree_shape(rep, seg_off, l_kind, l_child):
    """Depth, parent and action (from the parent) of each local node of a segment."""
    base = seg_off[rep]
    m = seg_off[rep + 1] - base
    depth = np.zeros(m, np.int64)
    parent = np.full(m, -1, np.int64)
    action = np.zeros(m, np.int64)
    for j in range(m):
        if l_kind[base + j] != DECISION:
            continue
        for a in range(3):
            c = l_child[base + j, a]
            if c >= 0:
                depth[c] = depth[j] + 1
                parent[c] = j
                action[c] = a
    return depth, parent, action


@njit(cache=NUMBA_CACHE)
def column_classes(x):
    """int64[H]: classes of the identical columns of ``x`` (rows, H): a hash of each column's
    bits, then every column compared with its class's first (a collision: one class per
    column, still exact)."""
    rows, H = x.shape
    bits = x.view(np.uint64)
    hsh = np.full(H, np.uint64(14695981039346656037))
    for r in range(rows):
        for i in range(H):
            hsh[i] = (hsh[i] ^ bits[r, i]) * np.uint64(1099511628211)
    uh = np.unique(hsh)
    cls = np.searchsorted(uh, hsh)
    first = np.full(uh.shape[0], -1, np.int64)
    for i in range(H):
        if first[cls[i]] < 0:
            first[cls[i]] = i
    for r in range(rows):
        for i in range(H):
            if x[r, i] != x[r, first[cls[i]]]:
                return np.arange(H)
    return cls



@njit(cache=NUMBA_CACHE)
def last_round_lanes(seg, seg_class, class_rep, hands, table, flow):
    """The last round on one board, every live segment, in groups of ``W`` of one shape class
    (``seg_class[s]`` segment s's, ``class_rep`` a representative of each): values of each
    segment's entry added (times ``scale``) to ``out_vals[entry]``."""
    seg_off, entry, l_kind, l_child = seg.seg_off, seg.entry, seg.kind, seg.child
    order, sstates, D = hands.order, hands.states, hands.D
    in_reach = flow.in_reach
    n = order.shape[0]
    nseg = seg_off.shape[0] - 1
    # the private states present, and each hand's place among them (policy rows per group)
    ustate = np.unique(sstates)
    uidx = np.searchsorted(ustate, sstates)
    live = np.zeros(nseg, np.bool_)
    for s in range(nseg):
        e = entry[s]
        for p in range(2):
            for q in range(n):
                if in_reach[e, p, order[q]] != 0.0:
                    live[s] = True
                    break
            if live[s]:
                break
    dt = table.policy.dtype  # the lanes' precision: the table's (float64, or float32)
    W = W32 if table.policy.itemsize == 4 else W64
    c = EK.reach_classes(hands.reach_of, hands.cards, uidx, D)
    cls = EK.ReachClasses(c.cidx, c.cstate, c.first, c.count.astype(dt), c.pair_class, c.pair_card,
                       c.pair_count.astype(dt))
    U = cls.first.shape[0]
    X = np.zeros(2 * W, dt)
    xc = np.zeros((D, 2 * W), dt)
    rt = np.zeros((U, 2 * W), dt)
    g = EK.group_sums(cls.cidx, hands.cards, hands.grp_end, D, 2 * W)
    gs = EK.GroupSums(g.start, g.x_off, g.x_cls, g.x_cnt.astype(dt), g.c_off, g.c_card, g.p_off,
                   g.p_cls, g.p_cnt.astype(dt), g.gx.astype(dt), g.gxc.astype(dt))
    lanes = np.zeros(W, np.int64)
    for cl in range(class_rep.shape[0]):
        rep = class_rep[cl]
        depth, parent, action = _tree_shape(rep, seg_off, l_kind, l_child)
        Dp = depth.max() + 1
        R = np.zeros((Dp, U, 2 * W), dt)
        V = np.zeros((Dp, n, 2 * W), dt)
        T = np.zeros((Dp, ustate.shape[0], 3, W), dt)
        shape = SubtreeShape(rep, depth, parent, action)
        buf = LaneBuffers(R, V, T, X, xc, rt, gs)
        cnt = np.int64(0)  # not a literal 0: numba would compile _walk_group for it too
        for s in range(nseg):
            if seg_class[s] != cl or not live[s]:
                continue
            lanes[cnt] = s
            cnt += 1
            if cnt == W:
                _walk_group(lanes, cnt, seg, shape, hands, ustate, cls, table, flow, buf)
                cnt = 0
        if cnt:
            _walk_group(lanes, cnt, seg, shape, hands, ustate, cls, table, flow, buf)
