"""Numba kernels of CFR-BR with a trunk (``cfrbr_trunk``): one round on one board, two profiles.

Every iteration walks the same public tree with two pairs of reach vectors over all hands
(``_kernels`` module docstring for segments, slots and bundles):

* pass 1: ``reach1[., p]`` is the abstract player A's reach in seat p (its current strategy by
  its private state on the board, ``tabA``), ``vals1[., q]`` the opponent O's value in seat q
  against it: a best response (max over actions, the choice recorded in ``best``) below the
  trunk, O's regret-matching strategy (``tabO``, a row per real hand) in the trunk;
* pass 2: ``reach2[., q]`` is O's reach in seat q (its trunk strategy, or its pure best
  response ``best`` below), ``vals2[., p]`` A's counterfactual value in seat p against it.

The two positions (A in seat 0 against O in seat 1, and A in seat 1 against O in seat 0) are
independent problems that share these walks: each value vector is one position's.
``dual_pass`` walks every segment of one round on one board in the steps ``Steps`` asks for;
the regrets of the actor of every decision land in ``Acc`` tables (A's abstract rows in pass
2, O's real trunk rows in pass 1), each hand's on its state's row, times the board's weight.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine.kernels import disjoint_sum, showdown_sweep_lanes
from cfrlab.realgame._kernels import forward_reach, pass_buffers
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN

# the hands on one board: A's and O's private states, the valid hands by rank (last round)
# and in order (vidx)
DualHands = namedtuple("DualHands", "valid cards h D statesA statesO order grp_end vidx")
# br: O plays ``best`` (else tabO); back1: pass 1's values (recording best if br); fwd2: O's
# reach; back2: pass 2's values; tol: a best response's tie to rounding
Steps = namedtuple("Steps", "br back1 fwd2 back2 tol")
# regret and average tables, the rows' weight on this board (A's, O's) and O's choices
Acc = namedtuple("Acc", "regretA avgA weightA regretO avgO weightO best")
# per seat, the hands whose values a backward pass computes: mask bool[2, H], idx[p, :n[p]]
Live = namedtuple("Live", "mask idx n")


@njit(cache=NUMBA_CACHE)
def _pure_forward(seg, s, in_reach, vf, best, reach):
    """Segment s's reach of O playing ``best[k, i]`` (round-local node k) with probability 1."""
    base = seg.seg_off[s]
    e = seg.entry[s]
    H = vf.shape[0]
    for p in range(2):
        for i in range(H):
            reach[0, p, i] = in_reach[e, p, i] * vf[i]
    for j in range(seg.seg_off[s + 1] - base):
        k = base + j
        if seg.kind[k] == DECISION:
            q = seg.player[k]
            src = seg.slot[k, q]
            for a in range(3):
                c = seg.child[k, a]
                if c >= 0:
                    for i in range(H):
                        reach[c, q, i] = reach[src, q, i] if best[k, i] == a else 0.0


@njit(cache=NUMBA_CACHE)
def _terminal(seg, k, j, opp, vals, hands, csum, chance_vals, live):
    """Fold, chance or showdown node k (local j): the values of each seat p's hands
    ``live.idx[p, :live.n[p]]`` against ``opp`` (a showdown's already written by
    ``_showdowns``); False at a decision."""
    kind = seg.kind[k]
    if kind == FOLD:
        for p in range(2):
            if live.n[p] > 0:
                disjoint_sum(opp[seg.slot[k, 1 - p], 1 - p], hands.cards, hands.h, csum,
                             vals[j, p], seg.pay[k, p], live.idx[p], live.n[p])
        return True
    if kind == CHANCE:
        ci = seg.chance[k]
        for p in range(2):
            for i in range(vals.shape[2]):
                vals[j, p, i] = chance_vals[ci, p, i]
        return True
    return kind == SHOWDOWN



@njit(cache=NUMBA_CACHE)
def _showdowns(seg, s, opp, vals, hands, buf, live):
    """Every showdown of segment s against ``opp`` for each seat's ``live`` hands: a lane per
    (showdown, seat), swept together by the engine (``showdown_sweep_lanes``): the lane's
    value X - sum over my cards c of Xc[c], X = 2W + G - R over the opponent's reach R, W of
    the hands I beat, G of my group (module docstring of ``_kernels``, last round)."""
    R, X, Xc = buf
    base = seg.seg_off[s]
    n = seg.seg_off[s + 1] - base
    order = hands.order
    nh = order.shape[0]
    m = 0
    lane_j = np.empty(2 * n, np.int64)  # each lane's showdown (local index) and seat
    lane_p = np.empty(2 * n, np.int64)
    pay = np.empty(2 * n)
    for j in range(n):
        k = base + j
        if seg.kind[k] == SHOWDOWN:
            for p in range(2):
                if live.n[p] == 0:
                    continue
                src = opp[seg.slot[k, 1 - p], 1 - p]
                for t in range(nh):
                    R[order[t], m] = src[order[t]]
                lane_j[m] = j
                lane_p[m] = p
                pay[m] = seg.pay[k, p]
                m += 1
    if m == 0:
        return
    showdown_sweep_lanes(R, m, (order, hands.grp_end), hands.cards, hands.h, (X, Xc), (lane_j, lane_p, pay),
                         live.mask, vals)


def showdown_buffers(seg, H, D):
    """``_showdowns``' lanes for a round: (hands x lanes, lanes, cards x lanes)."""
    m = 1
    for s in range(len(seg.seg_off) - 1):
        m = max(m, 2 * int((seg.kind[seg.seg_off[s]:seg.seg_off[s + 1]] == SHOWDOWN).sum()))
    return np.zeros((H, m)), np.zeros(m), np.zeros((D, m))


@njit(cache=NUMBA_CACHE)
def _max_back(seg, s, opp, vals, hands, csum, chance_vals, tol, best, live):
    """Segment s backward, the actor best-responding: vals[j, actor] the max over actions (its
    action in ``best``, ties to the lowest), the other seat's the sum; for each seat's
    ``live`` hands only (those its reach enters the segment with: the others' values are
    never read)."""
    base = seg.seg_off[s]
    for j in range(seg.seg_off[s + 1] - base - 1, -1, -1):
        k = base + j
        if _terminal(seg, k, j, opp, vals, hands, csum, chance_vals, live):
            continue
        q = seg.player[k]
        o = 1 - q
        first = True
        for a in range(3):
            c = seg.child[k, a]
            if c < 0:
                continue
            for t in range(live.n[q]):
                i = live.idx[q, t]
                if first:
                    vals[j, q, i] = vals[c, q, i]
                    best[k, i] = a
                else:
                    x = vals[c, q, i]
                    if x > vals[j, q, i] + tol:
                        vals[j, q, i] = x
                        best[k, i] = a
            for t in range(live.n[o]):
                i = live.idx[o, t]
                vals[j, o, i] = vals[c, o, i] if first else vals[j, o, i] + vals[c, o, i]
            first = False


@njit(cache=NUMBA_CACHE)
def _mixed_back(seg, s, opp, own, vals, hands, csum, chance_vals, table, states, sums, live):
    """Segment s backward, the actor mixing by ``table`` at its ``states``; ``sums`` is
    (regret, avg, w): its regrets (times ``w``) into ``regret`` and its reach-weighted policy
    (``own``: its reach) into ``avg``, on the rows of the hands that miss the board (``live``: all of them, for each
    seat whose opponent's reach is not 0 here; the other seat's values are 0 and it has no
    regrets, but its average still grows)."""
    policy, row_offset = table
    regret, avg, w = sums
    base = seg.seg_off[s]
    vidx = hands.vidx
    want = live.n > 0
    for j in range(seg.seg_off[s + 1] - base - 1, -1, -1):
        k = base + j
        if _terminal(seg, k, j, opp, vals, hands, csum, chance_vals, live):
            if seg.kind[k] != CHANCE:
                for p in range(2):
                    if not want[p]:
                        vals[j, p, :] = 0.0
            continue
        q = seg.player[k]
        o = 1 - q
        ro = row_offset[seg.dec[k]]
        src = seg.slot[k, q]
        c0, c1, c2 = seg.child[k, 0], seg.child[k, 1], seg.child[k, 2]
        wq, wo = want[q], want[o]
        for t in range(vidx.shape[0]):  # a hand at a time: its row's three entries side by side
            i = vidx[t]
            row = ro + states[i]
            v = 0.0
            vo = 0.0
            r = w * own[src, q, i]
            for a, c in ((0, c0), (1, c1), (2, c2)):
                if c >= 0:
                    if r != 0.0:
                        avg[row, a] += r * policy[row, a]
                    if wq:
                        x = vals[c, q, i]
                        v += policy[row, a] * x
                        regret[row, a] += w * x
                    if wo:
                        vo += vals[c, o, i]
            vals[j, q, i] = v
            vals[j, o, i] = vo
            if wq:
                for a, c in ((0, c0), (1, c1), (2, c2)):
                    if c >= 0:
                        regret[row, a] -= w * v


@njit(cache=NUMBA_CACHE)
def _to_entry(seg, s, vals, vf, flow):
    e = seg.entry[s]
    for p in range(2):
        for i in range(vf.shape[0]):
            flow.out_vals[e, p, i] += flow.scale * vf[i] * vals[0, p, i]


@njit(cache=NUMBA_CACHE)
def _chance_reach(seg, s, reach, out):
    base = seg.seg_off[s]
    for j in range(seg.seg_off[s + 1] - base):
        k = base + j
        if seg.kind[k] == CHANCE:
            for p in range(2):
                sl = seg.slot[k, p]
                for i in range(reach.shape[2]):
                    out[seg.chance[k], p, i] = reach[sl, p, i]


@njit(cache=NUMBA_CACHE)
def dual_pass(seg, hands, tabA, tabO, flow1, flow2, steps, acc, sdbuf):
    """One round on one board: per segment, A's reach (pass 1; its chance-node reach into
    ``flow1.chance_reach`` if that has rows), then the ``steps``: pass 1 backward (O's values
    into ``flow1.out_vals``), O's reach (its chance-node reach into ``flow2.chance_reach`` if
    that has rows), pass 2 backward (A's values into ``flow2.out_vals``). ``sdbuf``: the
    showdowns' lanes (``showdown_buffers``) on a last round."""
    reach1, vals1, csum, vf = pass_buffers(seg.seg_off, hands.valid, hands.D)
    reach2 = np.zeros_like(reach1)
    vals2 = np.zeros_like(vals1)
    H = vf.shape[0]
    nv = hands.vidx.shape[0]
    lv1 = Live(np.zeros((2, H), np.bool_), np.empty((2, H), np.int64), np.zeros(2, np.int64))
    lv2 = Live(np.zeros((2, H), np.bool_), np.empty((2, H), np.int64), np.full(2, nv))
    for p in range(2):  # pass 2: every valid hand (of a seat whose opponent's reach is live)
        for t in range(nv):
            lv2.mask[p, hands.vidx[t]] = True
            lv2.idx[p, t] = hands.vidx[t]
    if not steps.br:  # O's trunk values: every valid hand too
        lv1.mask[:] = lv2.mask
        lv1.idx[:] = lv2.idx
        lv1.n[:] = nv
    for s in range(seg.seg_off.shape[0] - 1):
        if steps.br:  # O's values only for the hands its reach enters the segment with
            e = seg.entry[s]
            for q in range(2):
                n = 0
                for i in range(H):
                    on = flow2.in_reach[e, q, i] * vf[i] != 0.0
                    lv1.mask[q, i] = on
                    if on:
                        lv1.idx[q, n] = i
                        n += 1
                lv1.n[q] = n
            for p in range(2):
                lv2.n[p] = nv if lv1.n[1 - p] > 0 else 0
        forward_reach(seg, s, flow1.in_reach, vf, hands.statesA, tabA, reach1)
        if flow1.chance_reach.shape[0] > 0:
            _chance_reach(seg, s, reach1, flow1.chance_reach)
        if steps.fwd2 and not steps.br:  # O's trunk reach: its average's weights in pass 1
            forward_reach(seg, s, flow2.in_reach, vf, hands.statesO, tabO, reach2)
        if steps.back1:
            _showdowns(seg, s, reach1, vals1, hands, sdbuf, lv1)
            if steps.br:
                _max_back(seg, s, reach1, vals1, hands, csum, flow1.chance_vals, steps.tol, acc.best, lv1)
            else:
                _mixed_back(seg, s, reach1, reach2, vals1, hands, csum, flow1.chance_vals, tabO,
                            hands.statesO, (acc.regretO, acc.avgO, acc.weightO), lv1)
            _to_entry(seg, s, vals1, vf, flow1)
        if not steps.fwd2:
            continue
        if steps.br:  # O's pure response, as recorded
            _pure_forward(seg, s, flow2.in_reach, vf, acc.best, reach2)
        if flow2.chance_reach.shape[0] > 0:
            _chance_reach(seg, s, reach2, flow2.chance_reach)
        if steps.back2:
            _showdowns(seg, s, reach2, vals2, hands, sdbuf, lv2)
            _mixed_back(seg, s, reach2, reach1, vals2, hands, csum, flow2.chance_vals, tabA,
                        hands.statesA, (acc.regretA, acc.avgA, acc.weightA), lv2)
            _to_entry(seg, s, vals2, vf, flow2)
