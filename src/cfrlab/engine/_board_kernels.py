"""The board engine's kernels: the terminals of real cards with card removal, dealing between
streets, and the regret matching and updates of the board walk's storage (docs/ENGINE.md, "The
board engine"). Every exact-card walk (spots, the real-game best response, CFR-BR, river
re-solving, PCS over hole pairs) takes its fold and showdown values from here.

Two layouts of hands:

- **one list** (``disjoint_sum``, ``showdown_sweep``): both players' vectors over the same
  hands (every hole-card subset of the deck that misses the board), ``cards`` int64[H, h],
  h = 1 or 2, deck positions < D; one vector at a time;
- **two lists over boards** (``fold_values``, ``showdown_index`` / ``showdown_values``,
  ``deal_down`` / ``deal_up``): each player its own combos (``cfrlab.engine.board``),
  arrays ``[B, H]`` (board x the player's hands), one board after the other.

The walk's storage per decision node is ``[B, A, H]`` (board, action, hand): float32 or
float64, or the 16-bit form (``comp``): regrets int16 and cumulative strategy uint16, each
board's row with its own scale (``value = stored * scale[b]``), re-encoded after every update.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine._match_kernels import (
    board_positive_totals,
    match_board,
    match_board_row,
    predicted_match,
    share,
)

# No numba parallel regions: on a machine whose cores are busy a parallel region waits for every
# thread to be scheduled (about 10 ms a call here), more than a whole street's kernel takes alone.
# The walk runs parts of the boards in threads of its own instead (``cfrlab.engine.board_walk``):
# every kernel releases the GIL (nogil) and treats the boards one after the other, independently.
I16 = 32767.0
U16 = 65535.0


@njit(cache=NUMBA_CACHE, nogil=True)
def current_strategy(reg, out):
    """out[A, B, H]: the regret-matching strategy of storage ``reg[B, A, H]``."""
    B, A, H = reg.shape
    for b in range(B):
        for h in range(H):
            match_board_row(reg, b, h, A, out)


@njit(cache=NUMBA_CACHE, nogil=True)
def average_strategy(cum, out):
    """out[A, B, H]: the cumulative strategy normalized (uniform where it is all zero); loops
    over the hands innermost (vectorized)."""
    B, A, H = cum.shape
    tot = np.empty(H)
    for b in range(B):
        board_positive_totals(cum, b, A, H, tot)  # a cumulative strategy is never negative
        for a in range(A):
            for h in range(H):
                t = tot[h]
                out[a, b, h] = float(cum[b, a, h]) / t if t > 0 else 1.0 / A


@njit(cache=NUMBA_CACHE, nogil=True)
def opponent_node(reg, cum, cscale, comp, reach, decay, update, pred, out):
    """At the opponent's node: out[a] = reach * sigma_a (the children's reach), and, when
    ``update``, cum = cum * decay + reach * sigma (its average strategy's sums). A non-empty
    ``pred`` (predictive rules: the last instantaneous regrets) is added to the regrets
    before matching."""
    B, A, H = reg.shape
    row = np.empty((A, H), dtype=np.float32)
    tot = np.empty(H)
    predict = pred.shape[0] > 0
    for b in range(B):
        if predict:
            predicted_match(reg, pred, b, A, H, tot, out)
        else:
            match_board(reg, b, A, H, tot, out)
        for a in range(A):
            for h in range(H):
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


@njit(cache=NUMBA_CACHE, nogil=True)
def player_node(reg, rscale, comp, cfv, pos, neg, floor, pred, out):
    """At the traverser's node: out = sum_a sigma_a * cfv[a] (its counterfactual value) and
    the regrets R = R * (pos if R > 0 else neg) + cfv[a] - out (CFR+: then floored at 0).
    Loops run over the hands innermost (vectorized), per board. A non-empty ``pred``
    (predictive rules, never with 16-bit storage) is added to the regrets for sigma and then
    takes this iteration's instantaneous regrets cfv[a] - out."""
    B, A, H = reg.shape
    row = np.empty((A, H), dtype=np.float32)
    tot = np.empty(H)
    v = np.empty(H)
    predict = pred.shape[0] > 0
    sig = np.empty((A, 1, H))
    for b in range(B):
        s = rscale[b] if comp else 1.0
        for h in range(H):
            v[h] = 0.0
        if predict:
            predicted_match(reg, pred, b, A, H, tot, sig)
            for a in range(A):
                for h in range(H):
                    v[h] += sig[a, 0, h] * cfv[a, b, h]
        else:
            board_positive_totals(reg, b, A, H, tot)
            for a in range(A):
                for h in range(H):
                    v[h] += share(float(reg[b, a, h]), tot[h], A) * cfv[a, b, h]
        for h in range(H):
            out[b, h] = v[h]
        if not comp:
            for a in range(A):
                for h in range(H):
                    x = float(reg[b, a, h])
                    x = x * (pos if x > 0 else neg) + cfv[a, b, h] - v[h]
                    reg[b, a, h] = max(x, 0.0) if floor else x
            if predict:
                for a in range(A):
                    for h in range(H):
                        pred[b, a, h] = cfv[a, b, h] - v[h]
        else:
            top = 0.0
            for a in range(A):
                for h in range(H):
                    x = float(reg[b, a, h]) * s
                    x = x * (pos if x > 0 else neg) + cfv[a, b, h] - v[h]
                    x = max(x, 0.0) if floor else x
                    row[a, h] = x
                    top = max(top, abs(x))
            ns = top / I16 if top > 0 else 1.0
            rscale[b] = ns
            for a in range(A):
                for h in range(H):
                    y = row[a, h] / ns
                    reg[b, a, h] = np.int16(y + 0.5 if y >= 0 else y - 0.5)


@njit(cache=NUMBA_CACHE, nogil=True)
def combine(strat, cfv, out):
    """out = sum_a strat[a] * cfv[a] (an expected value), or, with an empty ``strat``, the
    max over actions (a best response); hand-inner loops."""
    A, B, H = cfv.shape
    best = strat.shape[0] == 0
    v = np.empty(H)
    for b in range(B):
        for h in range(H):
            v[h] = cfv[0, b, h] if best else strat[0, b, h] * cfv[0, b, h]
        for a in range(1, A):
            if best:
                for h in range(H):
                    v[h] = max(v[h], cfv[a, b, h])
            else:
                for h in range(H):
                    v[h] += strat[a, b, h] * cfv[a, b, h]
        for h in range(H):
            out[b, h] = v[h]


@njit(cache=NUMBA_CACHE, nogil=True)
def combine_average(cum, cfv, out):
    """out = sum_a avg[a] * cfv[a] with avg the cumulative strategy ``cum[B, A, H]``
    normalized (``average_strategy`` then ``combine``, fused: no [A, B, H] strategy array;
    each probability rounded to cfv's type as that array held it)."""
    B, A, H = cum.shape
    tot = np.empty(H)
    row = np.empty(H, dtype=cfv.dtype)
    v = np.empty(H)
    for b in range(B):
        for h in range(H):
            v[h] = 0.0
        board_positive_totals(cum, b, A, H, tot)  # a cumulative strategy is never negative
        for a in range(A):
            for h in range(H):
                t = tot[h]
                row[h] = float(cum[b, a, h]) / t if t > 0 else 1.0 / A
            for h in range(H):
                v[h] += row[h] * cfv[a, b, h]
        for h in range(H):
            out[b, h] = v[h]


@njit(cache=NUMBA_CACHE, nogil=True)
def scale_reach(strat, reach, out):
    """out[a] = reach * strat[a] (``out`` may be ``strat``: in place)."""
    A, B, H = strat.shape
    for b in range(B):
        for a in range(A):
            for h in range(H):
                out[a, b, h] = reach[b, h] * strat[a, b, h]


@njit(cache=NUMBA_CACHE, nogil=True)
def sum_actions(cfv, out):
    """out = sum_a cfv[a] (float64 sums in action order), hand-inner loops (vectorized)."""
    A, B, H = cfv.shape
    v = np.empty(H)
    for b in range(B):
        for h in range(H):
            v[h] = 0.0
        for a in range(A):
            for h in range(H):
                v[h] += cfv[a, b, h]
        for h in range(H):
            out[b, h] = v[h]


@njit(cache=NUMBA_CACHE, nogil=True)
def fold_values(reach, ocards, cards, same_at, same_ok, valid, payoff, out):
    """out[b, h] = payoff * the opponent's reach over hands sharing no card with h: the total
    minus each card's sum plus h's own combo (counted twice; ``same_ok`` 1.0 where the
    opponent holds it, at ``same_at``), O(n) per board, branch free (``valid`` 1.0 or 0.0)."""
    B, Ho = reach.shape
    H = cards.shape[0]
    per = np.zeros(52)
    for b in range(B):
        per[:] = 0.0
        tot = 0.0
        for j in range(Ho):
            r = float(reach[b, j])
            tot += r
            per[ocards[j, 0]] += r
            per[ocards[j, 1]] += r
        for h in range(H):
            x = tot - per[cards[h, 0]] - per[cards[h, 1]] + same_ok[h] * reach[b, same_at[h]]
            out[b, h] = payoff * x * valid[b, h]


@njit(cache=NUMBA_CACHE, nogil=True)
def card_lists(cards, order, count):
    """Per river board, a player's valid hands listed by card, each list ascending by rank and
    closed by one spare slot: ``cptr[b, c]`` the start of card c's list (``cptr[b, 52]`` the
    end), ``clist[b, k]`` the hand (0 in the spare slots, never read)."""
    B = order.shape[0]
    H = cards.shape[0]
    cptr = np.zeros((B, 53), dtype=np.int32)
    clist = np.zeros((B, 2 * H + 52), dtype=np.uint16)
    n = np.zeros(52, dtype=np.int64)
    fill = np.zeros(52, dtype=np.int64)
    for b in range(B):
        n[:] = 0
        for i in range(count[b]):
            h = order[b, i]
            n[cards[h, 0]] += 1
            n[cards[h, 1]] += 1
        ptr = 0
        for c in range(52):
            cptr[b, c] = ptr
            fill[c] = ptr
            ptr += n[c] + 1
        cptr[b, 52] = ptr
        for i in range(count[b]):
            h = order[b, i]
            for k in range(2):
                c = cards[h, k]
                clist[b, fill[c]] = h
                fill[c] += 1
    return cptr, clist


@njit(cache=NUMBA_CACHE, nogil=True)
def showdown_index(cards, order, count, rank, oorder, ocount, orank, ocptr, oclist):
    """uint16[B, 6, H]: where each hand's sums start and end among the opponent's hands sorted by
    rank on each river board: the opponent's hands strictly weaker (0), at most as strong (1),
    and in the lists of its two cards (``card_lists``) the absolute slots of the weaker ones'
    end (2, 3) and the at-most-as-strong ones' end (4, 5). Hands not on the board: zeros."""
    B = order.shape[0]
    H = cards.shape[0]
    Ho = oclist.shape[1]
    idx = np.zeros((B, 6, H), dtype=np.uint16)
    rb = np.zeros(Ho, dtype=np.int64)
    for b in range(B):
        no = ocount[b]
        for j in range(no):
            rb[oorder[b, j]] = orank[b, j]
        for i in range(count[b]):
            h = order[b, i]
            rk = rank[b, i]
            idx[b, 0, h] = np.searchsorted(orank[b, :no], rk, side="left")
            idx[b, 1, h] = np.searchsorted(orank[b, :no], rk, side="right")
            for k in range(2):
                c = cards[h, k]
                lt = ocptr[b, c]
                le = lt
                for m in range(ocptr[b, c], ocptr[b, c + 1] - 1):
                    r = rb[oclist[b, m]]
                    lt += r < rk
                    le += r <= rk
                idx[b, 2 + k, h] = lt
                idx[b, 4 + k, h] = le
    return idx


@njit(cache=NUMBA_CACHE, nogil=True)
def showdown_values(reach, cards, valid, idx, oorder, ocount, ocptr, oclist, payoff, out):
    """out[b, h] = payoff * (the opponent's reach over weaker hands - over stronger ones),
    hands sharing a card with h taken out: per board, prefix sums of the opponent's reach in
    rank order and along each card's list, then each hand reads its sums at the slots
    ``showdown_index`` found once (O(n), no branch on the data). Index arrays are unsigned
    (no negative-index wraparound in the hand loop); ``valid`` is 1.0 or 0.0."""
    B = reach.shape[0]
    H = cards.shape[0]
    S = np.empty(oorder.shape[1] + 1)
    C = np.empty(oclist.shape[1])
    T = np.empty(52)
    for b in range(B):
        no = ocount[b]
        acc = 0.0
        S[0] = 0.0
        for j in range(no):
            acc += reach[b, oorder[b, j]]
            S[j + 1] = acc
        tot = acc
        for c in range(52):
            acc = 0.0
            end = ocptr[b, c + 1] - 1
            for m in range(ocptr[b, c], end):
                C[m] = acc
                acc += reach[b, oclist[b, m]]
            C[end] = acc
            T[c] = acc
        # weaker - stronger = S[lt] - (tot - S[le]) less each card's share of both
        for h in range(H):
            x = (S[idx[b, 0, h]] + S[idx[b, 1, h]] - tot - C[idx[b, 2, h]] - C[idx[b, 3, h]]
                 - C[idx[b, 4, h]] - C[idx[b, 5, h]] + T[cards[h, 0]] + T[cards[h, 1]])
            out[b, h] = payoff * x * valid[b, h]


@njit(cache=NUMBA_CACHE, nogil=True)
def deal_down(reach, parent, card, cards, out):
    """The reach on each next-street board: the parent board's, hands holding the new card out."""
    B, H = out.shape
    for b in range(B):
        c = card[b]
        pb = parent[b]
        for h in range(H):
            out[b, h] = 0.0 if (cards[h, 0] == c or cards[h, 1] == c) else reach[pb, h]


@njit(cache=NUMBA_CACHE, nogil=True)
def deal_up(values, ptr, child, perm, hmap, inv_left, out):
    """out[pb, h] = inv_left * sum over the canonical boards k below pb and the suit
    permutations of each: values[child[k], hmap[perm[k], h]] (a board not solved is its
    canonical board's values with the hands permuted)."""
    Bp, H = out.shape
    for pb in range(Bp):
        for h in range(H):
            out[pb, h] = 0.0
        for k in range(ptr[pb], ptr[pb + 1]):
            cb = child[k]
            g = perm[k]
            for h in range(H):
                out[pb, h] += values[cb, hmap[g, h]]
        for h in range(H):
            out[pb, h] *= inv_left


@njit(cache=NUMBA_CACHE, nogil=True)
def disjoint_sum(r, cards, h, csum, out, scale, idx, n):
    """out[i] = scale * the sum of r[j] over the hands j sharing no card with hand i (one list,
    h cards a hand, ``csum`` float64[D] scratch): the total minus each card's sum, plus hand i
    itself when h = 2 (taken out twice); O(H + D) (Johanson, Waugh, Bowling and Zinkevich,
    "Accelerating best response calculation in large extensive games"). For the hands
    ``idx[:n]`` only, or every hand when n < 0."""
    csum[:] = 0.0
    tot = 0.0
    for i in range(r.shape[0]):
        x = r[i]
        if x != 0.0:
            tot += x
            for c in range(h):
                csum[cards[i, c]] += x
    m = r.shape[0] if n < 0 else n
    for t in range(m):
        i = t if n < 0 else idx[t]
        v = tot
        for c in range(h):
            v -= csum[cards[i, c]]
        out[i] = scale * (v + r[i] if h == 2 else v)


@njit(cache=NUMBA_CACHE, nogil=True)
def showdown_sweep(r, cards, h, D, order, grp_end, stake, out):
    """out[i] = stake * (reach r of the hands that share no card with hand i and that it beats,
    minus of those it loses to), for the hands in ``order`` (by rank, weakest first; grp_end[t]:
    one past the last hand of t's group of equal rank), each holding h cards of D (one list).
    One sweep: a group counts 0 while inside it, then +, so a hand's own reach cancels, and so
    do the hands sharing a card with it, through the per-card sums."""
    X = 0.0
    Xc = np.zeros(D)
    n = order.shape[0]
    for t in range(n):
        i = order[t]
        X -= r[i]
        for c in range(h):
            Xc[cards[i, c]] -= r[i]
    q = 0
    while q < n:
        e = grp_end[q]
        for t in range(q, e):
            i = order[t]
            X += r[i]
            for c in range(h):
                Xc[cards[i, c]] += r[i]
        for t in range(q, e):
            i = order[t]
            v = X
            for c in range(h):
                v -= Xc[cards[i, c]]
            out[i] = stake * v
        for t in range(q, e):
            i = order[t]
            X += r[i]
            for c in range(h):
                Xc[cards[i, c]] += r[i]
        q = e
