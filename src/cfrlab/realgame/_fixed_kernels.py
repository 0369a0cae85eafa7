"""Numba kernels of the best response to a card-independent opponent (``fixed``).

Against an opponent whose actions do not depend on its cards, its hand stays uniformly
distributed over the cards the responder cannot see, so a showdown is worth the pot times
``(W - L) / N`` for the responder's hand: W and L count the opponent's hands it beats and
loses to, N all of them. ``win_minus_loss`` counts them for every hand of a board in one
sorted sweep (card removal by per-card counts); ``last_round_mean`` averages a last-round
value table over the last round's cards; ``eval_groups`` runs the betting subtrees.

The groups' betting subtrees travel as one ``Program`` (built by ``fixed``): every group's
nodes in postorder, group g at ``start[g]`` to ``start[g + 1] - 1``; per node its ``kind``
(CONST, SHOW, NEXT, OPP, BEST), ``cval`` (a CONST's value, a SHOW's stake), ``nxt`` (a NEXT's
group of the next round), and ``c0``, ``c1`` the span of its children in ``kids`` (absolute
node indices) and ``wts`` (an OPP's action probabilities). The deck's hands travel as one
``HandKeys`` (``cfrlab.cards.kernels``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.cards.kernels import (
    KEY_INIT,
    NO_RANK,
    add_card_keys,
)
from cfrlab.cards.kernels import rank_of_key as _rank
from cfrlab.config import NUMBA_CACHE

CONST, SHOW, NEXT, OPP, BEST = 0, 1, 2, 3, 4  # program node kinds

Program = namedtuple("Program", "start kind cval nxt c0 c1 kids wts")


@njit(cache=NUMBA_CACHE)
def win_minus_loss(ranks, hands, D, out):
    """out[j] = W - L of hand j among the hands not meeting the board (``ranks[j]`` is
    ``NO_RANK`` for the others, whose entry is left 0)."""
    H, h = hands.shape
    order = np.argsort(ranks)
    cnt = np.zeros(D, dtype=np.int64)
    total = 0
    i = 0
    while i < H and ranks[order[i]] != NO_RANK:  # ascending: W from the hands strictly below
        k = i
        while k < H and ranks[order[k]] == ranks[order[i]]:
            j = order[k]
            w = total
            for a in range(h):
                w -= cnt[hands[j, a]]
            out[j] = w
            k += 1
        for q in range(i, k):
            j = order[q]
            total += 1
            for a in range(h):
                cnt[hands[j, a]] += 1
        i = k
    top = i
    cnt[:] = 0
    total = 0
    i = top - 1
    while i >= 0:  # descending: L from the hands strictly above
        k = i
        while k >= 0 and ranks[order[k]] == ranks[order[i]]:
            j = order[k]
            loss = total
            for a in range(h):
                loss -= cnt[hands[j, a]]
            out[j] -= loss
            k -= 1
        for q in range(k + 1, i + 1):
            j = order[q]
            total += 1
            for a in range(h):
                cnt[hands[j, a]] += 1
        i = k
    for q in range(top, H):
        out[order[q]] = 0


@njit(cache=NUMBA_CACHE, parallel=True)
def last_round_mean(ranks, m, hands, D, table, N, out):
    """out[g, j] = mean over the completions c < m not meeting hand j of
    ``table[g, N + (W - L of j on completion c)]`` (0 for hands meeting every completion)."""
    H = hands.shape[0]
    G = table.shape[0]
    dmat = np.zeros((m, H), dtype=np.int64)
    for c in prange(m):
        win_minus_loss(ranks[c], hands, D, dmat[c])
    out[:, :] = 0.0
    for g in prange(G):
        for j in range(H):
            s = 0.0
            n = 0
            for c in range(m):
                if ranks[c, j] != NO_RANK:
                    s += table[g, N + dmat[c, j]]
                    n += 1
            if n > 0:
                out[g, j] = s / n


@njit(cache=NUMBA_CACHE)
def _eval_one(g, prog, M, xs, out_row):
    """Group g's program over the columns of ``out_row`` (see ``eval_groups``)."""
    start, kind, cval, nxt, c0, c1, kids, wts = prog
    ncol = out_row.shape[0]
    p0 = start[g]
    p1 = start[g + 1]
    buf = np.empty((p1 - p0, ncol), dtype=np.float64)
    for i in range(p0, p1):
        li = i - p0
        k = kind[i]
        if k == CONST:
            for col in range(ncol):
                buf[li, col] = cval[i]
        elif k == SHOW:
            for col in range(ncol):
                buf[li, col] = cval[i] * xs[col]
        elif k == NEXT:
            for col in range(ncol):
                buf[li, col] = M[nxt[i], col]
        elif k == OPP:
            for col in range(ncol):
                buf[li, col] = 0.0
            for q in range(c0[i], c1[i]):
                w = wts[q]
                if w != 0.0:
                    ch = kids[q] - p0
                    for col in range(ncol):
                        buf[li, col] += w * buf[ch, col]
        else:
            first = kids[c0[i]] - p0
            for col in range(ncol):
                buf[li, col] = buf[first, col]
            for q in range(c0[i] + 1, c1[i]):
                ch = kids[q] - p0
                for col in range(ncol):
                    buf[li, col] = max(buf[li, col], buf[ch, col])
    for col in range(ncol):
        out_row[col] = buf[p1 - p0 - 1, col]


@njit(cache=NUMBA_CACHE, parallel=True)
def eval_groups(prog, M, xs, out):
    """out[g, :] = the value at the root of group g's ``Program``; columns are hands (leaves
    ``NEXT`` read M[nxt, col]) or, in the last round, showdown margins (leaves ``SHOW`` are
    ``cval * xs[col]``)."""
    for g in prange(prog.start.shape[0] - 1):
        _eval_one(g, prog, M, xs, out[g])


@njit(cache=NUMBA_CACHE, parallel=True)
def second_last_mean(board, turns, rivers, keys, table, N, prog, out):
    """out[g, j] = mean over the second-last round's card sets ``turns`` (each missing the
    board) of that round's group g value (``prog``) for hand j of ``keys``, every last-round
    completion (``rivers``: card sets missing the board, those meeting the turn skipped) scored
    in one pass: per turn, the hands' margins on each river, the last-round tables ``table``
    (over the margin, offset ``N``) averaged, the groups run."""
    hands, hands_g, to_global, hkey, hbits = keys
    D = to_global.shape[0]
    H, h = hands.shape
    T = turns.shape[0]
    kt = turns.shape[1]
    kr = rivers.shape[1]
    G = prog.start.shape[0] - 1
    GL = table.shape[0]
    nb = board.shape[0]
    ncards = h + nb + kt + kr
    kb, bb = add_card_keys(board, to_global, KEY_INIT, np.int64(0))
    meet = np.zeros(H, dtype=np.bool_)
    for j in range(H):
        for a in range(h):
            for q in range(nb):
                if hands[j, a] == board[q]:
                    meet[j] = True
    per_turn = np.zeros((T, G, H))
    xs = np.zeros(1)
    for t in prange(T):
        kt_key, kt_bits = add_card_keys(turns[t], to_global, kb, bb)
        tmask = np.zeros(D, dtype=np.bool_)
        for q in range(kt):
            tmask[turns[t, q]] = True
        ranks = np.empty(H, dtype=np.int32)
        wl = np.zeros(H, dtype=np.int64)
        M = np.zeros((GL, H))
        cnt = np.zeros(H, dtype=np.int64)
        for rv in range(rivers.shape[0]):
            skip = False
            for q in range(kr):
                if tmask[rivers[rv, q]]:
                    skip = True
            if skip:
                continue
            key, bits = add_card_keys(rivers[rv], to_global, kt_key, kt_bits)
            for j in range(H):
                bad = meet[j]
                for a in range(h):
                    x = hands[j, a]
                    if tmask[x]:
                        bad = True
                    for q in range(kr):
                        if rivers[rv, q] == x:
                            bad = True
                ranks[j] = NO_RANK if bad else _rank(key + hkey[j], bits | hbits[j], ncards, hands_g[j, 0])
            win_minus_loss(ranks, hands, D, wl)
            for j in range(H):
                if ranks[j] != NO_RANK:
                    cnt[j] += 1
                    for g in range(GL):
                        M[g, j] += table[g, N + wl[j]]
        for j in range(H):
            if cnt[j] > 0:
                for g in range(GL):
                    M[g, j] /= cnt[j]
        for g in range(G):
            _eval_one(g, prog, M, xs, per_turn[t, g])
        for j in range(H):  # hands meeting the board or this turn take no value
            bad = meet[j]
            for a in range(h):
                if tmask[hands[j, a]]:
                    bad = True
            if bad:
                for g in range(G):
                    per_turn[t, g, j] = 0.0
    out[:, :] = 0.0
    for t in range(T):
        for g in range(G):
            for j in range(H):
                out[g, j] += per_turn[t, g, j]
