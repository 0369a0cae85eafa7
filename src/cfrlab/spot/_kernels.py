"""Numba kernels of the spot walk (``cfrlab.spot.fast``): every kernel works on all the boards
of one street at once (arrays ``[B, H]``: board x the player's hands), one board after the other.

Storage per decision node is ``[B, A, H]`` (board, action, hand): float32 or float64, or the
16-bit form (``comp``): regrets int16 and cumulative strategy uint16, each board's row with
its own scale (``value = stored * scale[b]``), re-encoded after every update.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# One thread: on a machine whose cores are busy a parallel region waits for every thread to be
# scheduled (about 10 ms a call here), more than a whole street's kernel takes alone.
PARALLEL = False
I16 = 32767.0
U16 = 65535.0


@njit(cache=True, inline="always")
def _match_row(reg, b, h, A, out):
    """Regret matching of hand h on board b into out[:, b, h] (a stored scale cancels)."""
    tot = 0.0
    for a in range(A):
        x = float(reg[b, a, h])
        if x > 0:
            tot += x
    if tot > 0:
        for a in range(A):
            x = float(reg[b, a, h])
            out[a, b, h] = x / tot if x > 0 else 0.0
    else:
        for a in range(A):
            out[a, b, h] = 1.0 / A


@njit(cache=True, parallel=PARALLEL)
def current_strategy(reg, out):
    """out[A, B, H]: the regret-matching strategy of storage ``reg[B, A, H]``."""
    B, A, H = reg.shape
    for b in prange(B):
        for h in range(H):
            _match_row(reg, b, h, A, out)


@njit(cache=True, parallel=PARALLEL)
def average_strategy(cum, out):
    """out[A, B, H]: the cumulative strategy normalized (uniform where it is all zero)."""
    B, A, H = cum.shape
    for b in prange(B):
        for h in range(H):
            tot = 0.0
            for a in range(A):
                tot += float(cum[b, a, h])
            for a in range(A):
                out[a, b, h] = float(cum[b, a, h]) / tot if tot > 0 else 1.0 / A


@njit(cache=True, parallel=PARALLEL)
def opponent_node(reg, cum, cscale, comp, reach, decay, update, out):
    """At the opponent's node: out[a] = reach * sigma_a (the children's reach), and, when
    ``update``, cum = cum * decay + reach * sigma (its average strategy's sums)."""
    B, A, H = reg.shape
    row = np.empty((A, H), dtype=np.float32)
    for b in range(B):
        for h in range(H):
            _match_row(reg, b, h, A, out)
            for a in range(A):
                out[a, b, h] *= reach[b, h]
        if update:
            if comp:
                s = cscale[b]
                top = 0.0
                for a in range(A):
                    for h in range(H):
                        x = float(cum[b, a, h]) * s * decay + out[a, b, h]
                        row[a, h] = x
                        top = max(top, x)
                ns = top / U16 if top > 0 else 1.0
                cscale[b] = ns
                for a in range(A):
                    for h in range(H):
                        cum[b, a, h] = np.uint16(row[a, h] / ns + 0.5)
            else:
                for a in range(A):
                    for h in range(H):
                        cum[b, a, h] = cum[b, a, h] * decay + out[a, b, h]


@njit(cache=True, parallel=PARALLEL)
def player_node(reg, rscale, comp, cfv, pos, neg, floor, out):
    """At the traverser's node: out = sum_a sigma_a * cfv[a] (its counterfactual value) and
    the regrets R = R * (pos if R > 0 else neg) + cfv[a] - out (CFR+: then floored at 0)."""
    B, A, H = reg.shape
    sig = np.empty(A)
    row = np.empty((A, H), dtype=np.float32)
    for b in range(B):
        s = rscale[b] if comp else 1.0
        top = 0.0
        for h in range(H):
            tot = 0.0
            for a in range(A):
                x = float(reg[b, a, h])
                if x > 0:
                    tot += x
            v = 0.0
            for a in range(A):
                x = float(reg[b, a, h])
                sig[a] = (x / tot if x > 0 else 0.0) if tot > 0 else 1.0 / A
                v += sig[a] * cfv[a, b, h]
            out[b, h] = v
            for a in range(A):
                x = float(reg[b, a, h]) * s
                x = x * (pos if x > 0 else neg) + cfv[a, b, h] - v
                if floor and x < 0:
                    x = 0.0
                if comp:
                    row[a, h] = x
                    top = max(top, abs(x))
                else:
                    reg[b, a, h] = x
        if comp:
            ns = top / I16 if top > 0 else 1.0
            rscale[b] = ns
            for a in range(A):
                for h in range(H):
                    y = row[a, h] / ns
                    reg[b, a, h] = np.int16(y + 0.5 if y >= 0 else y - 0.5)


@njit(cache=True, parallel=PARALLEL)
def combine(strat, cfv, out):
    """out = sum_a strat[a] * cfv[a] (an expected value), or, with an empty ``strat``, the
    max over actions (a best response)."""
    A, B, H = cfv.shape
    for b in prange(B):
        for h in range(H):
            if strat.shape[0] == 0:
                v = cfv[0, b, h]
                for a in range(1, A):
                    v = max(v, cfv[a, b, h])
            else:
                v = 0.0
                for a in range(A):
                    v += strat[a, b, h] * cfv[a, b, h]
            out[b, h] = v


@njit(cache=True, parallel=PARALLEL)
def scale_reach(strat, reach, out):
    """out[a] = reach * strat[a]."""
    A, B, H = strat.shape
    for b in prange(B):
        for a in range(A):
            for h in range(H):
                out[a, b, h] = reach[b, h] * strat[a, b, h]


@njit(cache=True, parallel=PARALLEL)
def sum_actions(cfv, out):
    A, B, H = cfv.shape
    for b in prange(B):
        for h in range(H):
            v = 0.0
            for a in range(A):
                v += cfv[a, b, h]
            out[b, h] = v


@njit(cache=True, parallel=PARALLEL)
def fold_values(reach, ocards, cards, same, valid, payoff, out):
    """out[b, h] = payoff * the opponent's reach over hands sharing no card with h: the total
    minus each card's sum plus h's own combo (counted twice), O(n) per board."""
    B, Ho = reach.shape
    H = cards.shape[0]
    per = np.zeros(52)
    for b in range(B):
        per[:] = 0.0
        tot = 0.0
        for j in range(Ho):
            r = reach[b, j]
            if r != 0.0:
                tot += r
                per[ocards[j, 0]] += r
                per[ocards[j, 1]] += r
        for h in range(H):
            if valid[b, h]:
                x = tot - per[cards[h, 0]] - per[cards[h, 1]]
                if same[h] >= 0:
                    x += reach[b, same[h]]
                out[b, h] = payoff * x
            else:
                out[b, h] = 0.0


@njit(cache=True, parallel=PARALLEL)
def showdown_values(reach, ocards, cards, order, count, rank, oorder, ocount, orank, payoff, out):
    """out[b, h] = payoff * (the opponent's reach over weaker hands - over stronger ones),
    hands sharing a card with h taken out by per-card sums; both ranges sorted by rank on each
    board (``order[b, :count[b]]`` ascending, ``rank[b, i]`` the rank of ``order[b, i]``), so a
    sweep up and a sweep down: O(n)."""
    B = reach.shape[0]
    H = cards.shape[0]
    per = np.zeros(52)
    for b in range(B):
        per[:] = 0.0
        for h in range(H):
            out[b, h] = 0.0
        # up: wins against strictly weaker hands
        tot = 0.0
        j = 0
        n, no = count[b], ocount[b]
        for i in range(n):
            h = order[b, i]
            rk = rank[b, i]
            while j < no and orank[b, j] < rk:
                o = oorder[b, j]
                r = reach[b, o]
                tot += r
                per[ocards[o, 0]] += r
                per[ocards[o, 1]] += r
                j += 1
            out[b, h] = tot - per[cards[h, 0]] - per[cards[h, 1]]
        # down: losses against strictly stronger hands
        for c in range(52):
            per[c] = 0.0
        tot = 0.0
        j = no - 1
        for i in range(n - 1, -1, -1):
            h = order[b, i]
            rk = rank[b, i]
            while j >= 0 and orank[b, j] > rk:
                o = oorder[b, j]
                r = reach[b, o]
                tot += r
                per[ocards[o, 0]] += r
                per[ocards[o, 1]] += r
                j -= 1
            out[b, h] = payoff * (out[b, h] - (tot - per[cards[h, 0]] - per[cards[h, 1]]))


@njit(cache=True, parallel=PARALLEL)
def deal_down(reach, parent, card, cards, out):
    """The reach on each next-street board: the parent board's, hands holding the new card out."""
    B, H = out.shape
    for b in prange(B):
        c = card[b]
        pb = parent[b]
        for h in range(H):
            out[b, h] = 0.0 if (cards[h, 0] == c or cards[h, 1] == c) else reach[pb, h]


@njit(cache=True, parallel=PARALLEL)
def deal_up(values, ptr, child, perm, hmap, inv_left, out):
    """out[pb, h] = inv_left * sum over the canonical boards k below pb and the suit
    permutations of each: values[child[k], hmap[perm[k], h]] (a board not solved is its
    canonical board's values with the hands permuted)."""
    Bp, H = out.shape
    for pb in prange(Bp):
        for h in range(H):
            out[pb, h] = 0.0
        for k in range(ptr[pb], ptr[pb + 1]):
            cb = child[k]
            g = perm[k]
            for h in range(H):
                out[pb, h] += values[cb, hmap[g, h]]
        for h in range(H):
            out[pb, h] *= inv_left
