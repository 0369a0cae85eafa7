"""Numba kernels of the real-game best response: one betting round on one board.

Every vector is over all hands of the deck (``H`` = C(D, h), 1,326 in hold'em), float64.
A round's betting nodes are cut into *segments*, one per entry node (the root, or the child
of a chance node of the round before); a segment holds the entry's round-r nodes in
preorder, its chance nodes included (their own children are the next round's entries).
Local arrays (columns ``l_*``, concatenated over segments, ``seg_off`` delimiting them):

- ``l_kind`` int8: 0 decision, 1 chance, 2 fold, 3 showdown (``cfrlab.tree``)
- ``l_player`` int8: actor at a decision
- ``l_child`` int64[., 3]: local index (within the segment) of the child by action f c r, -1
- ``l_slot`` int64[., 2]: local index of the node whose reach array holds player p's reach
  here (a node stores reach only for the player who acted at its parent)
- ``l_dec`` int64: decision index (policy rows), ``l_chance`` int64: chance index in round
- ``l_pay`` float64[., 2]: fold: player p's payoff; showdown: the stake (each side's spend)

The kernels take these in named bundles (namedtuples, built once by ``walk``):

- ``Segments``: a round's segments, ``seg_off``, ``entry`` (each segment's row of ``in_reach``
  and ``out_vals``: its chance node's index in the round before) and the local columns above (``kind``, ``player``, ``child``, ``slot``, ``dec``,
  ``chance``, ``pay``);
- ``OpponentTable``: the opponent's ``policy`` float64[rows, 3] and ``row_offset`` (its
  ``BatchPolicy``: the row of hand i at decision d is ``row_offset[d] + states[i]``);
- ``BoardHands``: the hands on one board, ``valid`` bool[H] (missing the board), ``cards``
  int64[H, h], ``h``, ``D`` (deck size), ``states`` int64[H] (the opponent's private state);
- ``Flow``: what a round reads and adds to, ``in_reach`` float64[E, 2, H] (both players' reach
  at each entry), ``out_vals`` (E, 2, H) (their values, added), ``scale``, and at the round's
  chance nodes ``chance_reach`` (C, 2, H) (written) and ``chance_vals`` (read).

``round_pass`` walks every segment of a round on one board (the last round only for its
reach: its values are ``_lanes_kernels.last_round_lanes``'): reach forward (entry reach from
``in_reach[entry]``, cut to hands that miss the board), the policy's action probabilities
gathered by each hand's private state; in FULL mode, terminal values (folds: every showdown
is in the last round), chance values (given), then values backward: the max over actions for
the actor, the sum for the other player (whose policy is already in the actor's reach). Each
player's value is its best-response counterfactual value against the other's reach,
unnormalized by chance (the caller scales). The entry values, cut to valid hands and scaled,
are added to ``out_vals[entry]``.

A fold is O(H) (Johanson, Waugh, Bowling and Zinkevich, "Accelerating best response
calculation in large extensive games"): it pays the sum of the opponent's reach over hands
disjoint from mine, total minus the per-card sums of my cards plus my own hand (counted twice).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.abstraction.kernels import index_scratch, last_state, player_states
from cfrlab.config import NUMBA_CACHE
from cfrlab.engine.kernels import disjoint_sum, showdown_sweep
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN

EVERY = np.zeros(0, np.int64)  # disjoint_sum's hand list when it covers every hand
NO_RANKS = (np.zeros(0, np.int64), np.zeros(0, np.int64))  # round_pass before the last round
NO_BEST = np.zeros((0, 0), np.int8)  # round_pass recording no best response

Segments = namedtuple("Segments", "seg_off entry kind player child slot dec chance pay")
OpponentTable = namedtuple("OpponentTable", "policy row_offset")
BoardHands = namedtuple("BoardHands", "valid cards h D states")
Flow = namedtuple("Flow", "in_reach out_vals scale chance_reach chance_vals")


@njit(cache=NUMBA_CACHE)
def pass_buffers(seg_off, valid, D):
    """A round pass's buffers: reach and values (L, 2, H) for its longest segment (L nodes),
    per-card sums (D) and ``vf``: 1.0 on the hands that miss the board, else 0.0."""
    H = valid.shape[0]
    L = 1
    for s in range(seg_off.shape[0] - 1):
        L = max(L, seg_off[s + 1] - seg_off[s])
    vf = np.empty(H)
    for i in range(H):
        vf[i] = 1.0 if valid[i] else 0.0
    return np.zeros((L, 2, H)), np.zeros((L, 2, H)), np.zeros(D), vf


@njit(cache=NUMBA_CACHE)
def forward_reach(seg, s, in_reach, vf, states, table, reach):
    """Segment s's reach at each of its nodes (``reach[j, p]``, slots of the segment's
    preorder): its entry's reach on the hands that miss the board, then each decision's
    actor's reach times its action's probability by private state ``states``."""
    seg_off, entry, l_kind, l_player, l_child, l_slot, l_dec = (seg.seg_off, seg.entry,
                                                                 seg.kind, seg.player,
                                                                 seg.child, seg.slot, seg.dec)
    policy, row_offset = table
    H = vf.shape[0]
    base = seg_off[s]
    e = entry[s]
    for p in range(2):
        for i in range(H):
            reach[0, p, i] = in_reach[e, p, i] * vf[i]
    for j in range(seg_off[s + 1] - base):
        k = base + j
        if l_kind[k] == DECISION:
            q = l_player[k]
            src = l_slot[k, q]
            ro = row_offset[l_dec[k]]
            for a in range(3):
                c = l_child[k, a]
                if c >= 0:
                    for i in range(H):
                        reach[c, q, i] = reach[src, q, i] * policy[ro + states[i], a]


@njit(cache=NUMBA_CACHE)
def fold_or_chance_values(seg, k, j, reach, vals, cards, h, csum, chance_vals):
    """Node k (local j) of a round's segment, if a fold or a chance node: its values
    ``vals[j]`` (a fold's from the other seat's reach, a chance node's the next round's);
    False for other nodes."""
    l_kind, l_slot, l_chance, l_pay = seg.kind, seg.slot, seg.chance, seg.pay
    kind = l_kind[k]
    if kind == FOLD:
        disjoint_sum(reach[l_slot[k, 1], 1], cards, h, csum, vals[j, 0], l_pay[k, 0], EVERY, -1)
        disjoint_sum(reach[l_slot[k, 0], 0], cards, h, csum, vals[j, 1], l_pay[k, 1], EVERY, -1)
        return True
    if kind == CHANCE:
        ci = l_chance[k]
        for p in range(2):
            for i in range(vals.shape[2]):
                vals[j, p, i] = chance_vals[ci, p, i]
        return True
    return False


@njit(cache=NUMBA_CACHE)
def round_pass(full, seg, hands, table, flow, ranked, tol, best):
    """One round on one board (module docstring). ``full`` False: only the reach at the
    round's chance nodes is written (``chance_reach``); True: values too. Showdowns are
    swept over ``ranked`` (``order``, ``grp_end``: the valid hands by rank; empty before the
    last round, whose showdowns ``_lanes_kernels`` walks). With a non-empty ``best``
    (int8[round's nodes, H]) the pass also records at each decision k the action of the
    maximum for each hand, ties (within ``tol``) to the lowest: the best response's policy."""
    seg_off, entry, l_kind, l_player, l_child, l_slot, _, l_chance, l_pay = seg
    order, grp_end = ranked
    record = best.shape[0] > 0
    valid, cards, h, D, states = hands
    in_reach, out_vals, scale, chance_reach, chance_vals = flow
    H = valid.shape[0]
    nseg = seg_off.shape[0] - 1
    reach, vals, csum, vf = pass_buffers(seg_off, valid, D)
    for s in range(nseg):
        base = seg_off[s]
        n = seg_off[s + 1] - base
        e = entry[s]
        forward_reach(seg, s, in_reach, vf, states, table, reach)
        if not full:
            for j in range(n):
                k = base + j
                if l_kind[k] == CHANCE:
                    ci = l_chance[k]
                    for p in range(2):
                        sl = l_slot[k, p]
                        for i in range(H):
                            chance_reach[ci, p, i] = reach[sl, p, i]
            continue
        for j in range(n - 1, -1, -1):  # terminals and values, backward
            k = base + j
            if fold_or_chance_values(seg, k, j, reach, vals, cards, h, csum, chance_vals):
                continue
            if l_kind[k] == SHOWDOWN:
                showdown_sweep(reach[l_slot[k, 1], 1], cards, h, D, order, grp_end, l_pay[k, 0], vals[j, 0])
                showdown_sweep(reach[l_slot[k, 0], 0], cards, h, D, order, grp_end, l_pay[k, 1], vals[j, 1])
            elif l_kind[k] == DECISION:
                q = l_player[k]
                o = 1 - q
                first = True
                for a in range(3):
                    c = l_child[k, a]
                    if c < 0:
                        continue
                    if first:
                        for i in range(H):
                            vals[j, q, i] = vals[c, q, i]
                            vals[j, o, i] = vals[c, o, i]
                        if record:
                            for i in range(H):
                                best[k, i] = a
                        first = False
                    elif record:
                        for i in range(H):
                            x = vals[c, q, i]
                            if x > vals[j, q, i] + tol:
                                vals[j, q, i] = x
                                best[k, i] = a
                            vals[j, o, i] += vals[c, o, i]
                    else:
                        for i in range(H):
                            x = vals[c, q, i]
                            vals[j, q, i] = max(vals[j, q, i], x)
                            vals[j, o, i] += vals[c, o, i]
        for p in range(2):
            for i in range(H):
                out_vals[e, p, i] += scale * vf[i] * vals[0, p, i]


@njit(cache=NUMBA_CACHE)
def permute_add(src, perm, weight, dst):
    """dst[..., perm[i]] += src[..., i] (the values of a board's image under a suit
    permutation); src and dst (C, 2, H)."""
    C, P, H = src.shape
    for c in range(C):
        for p in range(P):
            for i in range(H):
                dst[c, p, perm[i]] += weight * src[c, p, i]


# -- the last round, in rank order ------------------------------------------------------------
# On the last round every vector is over the valid hands only, sorted by rank on the board
# (``order``: position q holds hand order[q]; ``scards`` its cards; ``grp_end[q]`` the end of
# q's group of equal rank), so the showdown is one sequential sweep and no invalid hand is
# touched. The showdown value against reach r is, with R / Rc[c] the total reach and the
# reach on card c, W / Wc the same over strictly weaker hands and G / Gc over q's own group:
#   v_q = stake * (2 * win + tie - all disjoint)
#       = stake * ((2W + G - R) - sum over q's cards c of (2Wc[c] + Gc[c] - Rc[c]))
# kept as one running X = 2W + G - R and Xc[c]: start at -R, -Rc; add a group's reach once
# (it is G), read its values, add it again (it is now W).
# The kernel: ``_lanes_kernels.last_round_lanes`` (several betting subtrees of one shape at once).


@njit(cache=NUMBA_CACHE)
def bucket_states(hands, board, valid, upto, lookup, prev, out):
    """Each valid hand's state of round ``upto`` on ``board``; with ``prev`` (the states on
    the round before, on this board's prefix; empty: unknown) the last round's from it, one
    hand index per hand instead of one per round."""
    nb = board.shape[0]
    hand = np.empty(2 + nb, np.int64)
    for q in range(nb):
        hand[2 + q] = board[q]
    scratch = index_scratch(lookup.num_suits, 8)
    row = np.zeros(lookup.R, np.int64)
    for i in range(hands.shape[0]):
        if not valid[i]:
            out[i] = 0
            continue
        hand[0] = hands[i, 0]
        hand[1] = hands[i, 1]
        if prev.shape[0]:
            out[i] = last_state(hand, prev[i], lookup, scratch)
        else:
            player_states(hand, upto, lookup, scratch, row)
            out[i] = row[upto]
