"""The board engine's lane kernels: the card-removal terminals of many reach vectors at once
(lanes side by side, ``(hands, lanes)`` arrays), for walks that evaluate many betting subtrees
of one board together (the real-game best response's river, ``cfrlab.realgame._lanes_kernels``;
the CFR-BR trunk's showdowns, ``cfrlab.realgame._trunk_kernels``). The terminals of single
vectors and of two hand lists over boards are ``_board_kernels``' (docs/ENGINE.md, "The board
engine"); the sums are the same: a fold pays the reach of the hands disjoint from mine (the
total minus each of my cards' sums plus my own hand), a showdown that of the disjoint hands I
beat minus those I lose to, in one sweep up the ranks with running sums per card.

Bundles:

- ``ReachClasses`` (``reach_classes``): each hand's class ``cidx``, each class's state index
  ``cstate``, ``first`` hand and hand ``count``, and its (class, card, count) pairs; hands of
  one class have the same reach in every lane, so totals are summed by class;
- ``GroupSums`` (``group_sums``, once per board): the groups of equal rank, hands ``start[g]``
  to ``start[g + 1]``; group g's classes ``x_cls[x_off[g]:x_off[g + 1]]`` with their counts of
  hands ``x_cnt``; its cards ``c_card[c_off[g]:c_off[g + 1]]``, and for its i-th card entry the
  classes of the group's hands holding it, ``p_cls[p_off[i]:p_off[i + 1]]`` with counts
  ``p_cnt``; scratch rows ``gx`` (lanes) and ``gxc`` (D, lanes).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, uint64

from cfrlab.config import NUMBA_CACHE

GroupSums = namedtuple("GroupSums", "start x_off x_cls x_cnt c_off c_card p_off p_cls p_cnt gx gxc")
ReachClasses = namedtuple("ReachClasses", "cidx cstate first count pair_class pair_card pair_count")


@njit(cache=NUMBA_CACHE)
def card_totals(r, cls, X, xc):
    """X[k] = the total of lane k's reach over the hands, xc[c, k] the same over the hands
    holding card c, from the classes' reach ``r`` (U, 2W) and their counts."""
    M = uint64(r.shape[1])
    X[:] = 0.0
    xc[:, :] = 0.0
    for uu in range(r.shape[0]):
        u = uint64(uu)
        m = cls.count[u]
        for k in range(M):
            X[k] += m * r[u, k]
    for ii in range(cls.pair_class.shape[0]):
        i = uint64(ii)
        u = uint64(cls.pair_class[i])
        c = uint64(cls.pair_card[i])
        m = cls.pair_count[i]
        for k in range(M):
            xc[c, k] += m * r[u, k]


@njit(cache=NUMBA_CACHE)
def fold_lanes(r, cidx, sc, h, n, X, xc, pay, V, first, mx):
    """A fold's values merged into its parent's ``V``: lane k at hand q is ``pay[k]`` times
    the total of lane k's reach on hands disjoint from q (X, xc: the totals, per card).
    ``first``: the parent's first child, copied; else lanes with ``mx[k]`` (the parent's
    actor's values) take the max, the others the sum."""
    M = uint64(r.shape[1])
    for jj in range(n):
        j = uint64(jj)
        u = uint64(cidx[j])
        a = uint64(sc[j, 0])
        b = uint64(sc[j, 1]) if h == 2 else a
        if first:
            for k in range(M):
                d = X[k] - xc[a, k] - xc[b, k] + r[u, k] if h == 2 else X[k] - xc[a, k]
                V[j, k] = pay[k] * d
        else:
            for k in range(M):
                d = X[k] - xc[a, k] - xc[b, k] + r[u, k] if h == 2 else X[k] - xc[a, k]
                x = pay[k] * d
                v = V[j, k]
                V[j, k] = max(v, x) if mx[k] else v + x


@njit(cache=NUMBA_CACHE)
def showdown_lanes(r, cls, sc, h, n, gs, X, xc, pay, V, first, mx):
    """A showdown's values merged into its parent's ``V`` as ``fold_lanes`` does, in one sweep up
    the ranks. X, xc start at minus the totals (per card) of r and each group's reach is added
    to them once before its hands are read and once after, so at hand q they hold 2 x weaker +
    own group - all; its cards' rows taken off, that is 2 wins + ties - all = wins - losses
    over the hands disjoint from q (q itself, counted once in each, cancels). A group's reach
    (``gs``: ``GroupSums``) is summed by class, not by hand: its classes' rows times their
    counts, for X and for each of its cards (CFR5 river: ~1,100 class rows a board against
    ~3,200 rows for hands one by one), and the second addition reuses those sums."""
    M = uint64(r.shape[1])
    x_off, x_cls, x_cnt = gs.x_off, gs.x_cls, gs.x_cnt
    c_off, c_card, p_off, p_cls, p_cnt = gs.c_off, gs.c_card, gs.p_off, gs.p_cls, gs.p_cnt
    gx, gxc = gs.gx, gs.gxc
    card_totals(r, cls, X, xc)
    for k in range(M):
        X[k] = -X[k]
    for c in range(xc.shape[0]):
        for k in range(M):
            xc[c, k] = -xc[c, k]
    for g in range(gs.start.shape[0] - 1):
        for k in range(M):
            gx[k] = 0.0
        for ii in range(x_off[g], x_off[g + 1]):
            i = uint64(ii)
            u = uint64(x_cls[i])
            m = x_cnt[i]
            for k in range(M):
                gx[k] += m * r[u, k]
        for k in range(M):
            X[k] += gx[k]
        c0 = c_off[g]
        for cc in range(c0, c_off[g + 1]):
            row = uint64(cc - c0)
            c = uint64(c_card[cc])
            for k in range(M):
                gxc[row, k] = 0.0
            for ii in range(p_off[cc], p_off[cc + 1]):
                i = uint64(ii)
                u = uint64(p_cls[i])
                m = p_cnt[i]
                for k in range(M):
                    gxc[row, k] += m * r[u, k]
            for k in range(M):
                xc[c, k] += gxc[row, k]
        for jj in range(gs.start[g], gs.start[g + 1]):
            j = uint64(jj)
            a = uint64(sc[j, 0])
            b = uint64(sc[j, 1]) if h == 2 else a
            if first:
                for k in range(M):
                    x = X[k] - xc[a, k] - xc[b, k] if h == 2 else X[k] - xc[a, k]
                    V[j, k] = pay[k] * x
            else:
                for k in range(M):
                    x = pay[k] * (X[k] - xc[a, k] - xc[b, k] if h == 2 else X[k] - xc[a, k])
                    v = V[j, k]
                    V[j, k] = max(v, x) if mx[k] else v + x
        for k in range(M):
            X[k] += gx[k]
        for cc in range(c0, c_off[g + 1]):
            row = uint64(cc - c0)
            c = uint64(c_card[cc])
            for k in range(M):
                xc[c, k] += gxc[row, k]


@njit(cache=NUMBA_CACHE)
def group_sums(cidx, sc, grp_end, D, M):
    """``GroupSums`` of the hands in rank order (their classes ``cidx``, cards ``sc``, ends of
    groups of equal rank ``grp_end``): per group its classes with their counts of hands, its
    cards, and per card the classes of the group's hands holding it with their counts; and
    scratch rows for ``M`` lanes. Once per board."""
    n = cidx.shape[0]
    h = sc.shape[1]
    U = cidx.max() + 1 if n else 1
    start = np.zeros(n + 1, np.int64)
    x_off = np.zeros(n + 1, np.int64)
    x_cls = np.zeros(n, np.int64)
    x_cnt = np.zeros(n)
    c_off = np.zeros(n + 1, np.int64)
    c_card = np.zeros(n * h, np.int64)
    p_off = np.zeros(n * h + 1, np.int64)
    p_cls = np.zeros(n * h, np.int64)
    p_cnt = np.zeros(n * h)
    G = nx = ncard = npair = 0
    q = 0
    while q < n:
        e = grp_end[q]
        ks = np.sort(cidx[q:e])
        i = 0
        while i < ks.shape[0]:
            j = i
            while j < ks.shape[0] and ks[j] == ks[i]:
                j += 1
            x_cls[nx] = ks[i]
            x_cnt[nx] = j - i
            nx += 1
            i = j
        keys = np.empty((e - q) * h, np.int64)  # card-major (card, class) keys of the group
        for jj in range(q, e):
            for t in range(h):
                keys[(jj - q) * h + t] = sc[jj, t] * U + cidx[jj]
        keys = np.sort(keys)
        i = 0
        while i < keys.shape[0]:
            c = keys[i] // U
            if ncard == c_off[G] or c_card[ncard - 1] != c:
                c_card[ncard] = c
                p_off[ncard] = npair
                ncard += 1
            j = i
            while j < keys.shape[0] and keys[j] == keys[i]:
                j += 1
            p_cls[npair] = keys[i] % U
            p_cnt[npair] = j - i
            npair += 1
            i = j
        G += 1
        start[G] = e
        x_off[G] = nx
        c_off[G] = ncard
        q = e
    p_off[ncard] = npair
    return GroupSums(start[:G + 1].copy(), x_off[:G + 1].copy(), x_cls[:nx].copy(),
                     x_cnt[:nx].copy(), c_off[:G + 1].copy(), c_card[:ncard].copy(),
                     p_off[:ncard + 1].copy(), p_cls[:npair].copy(), p_cnt[:npair].copy(),
                     np.zeros(M), np.zeros((D, M)))


@njit(cache=NUMBA_CACHE)
def reach_classes(reach_of, sc, uidx, D):
    """The hands' reach classes on this board: hands of one private state (``uidx[q]``: hand
    q's index among the states present) and of one class of identical entry-reach columns
    (``reach_of[q]``) have the same reach at every node of the round. Against a
    perfect-recall opponent (its state holds its history) they are its states."""
    n = uidx.shape[0]
    key = uidx * (reach_of.max() + 1) + reach_of
    ukey = np.unique(key)
    cidx = np.searchsorted(ukey, key)
    U = ukey.shape[0]
    cstate = np.zeros(U, np.int64)
    cfirst = np.full(U, -1, np.int64)
    for q in range(n):
        u = cidx[q]
        if cfirst[u] < 0:
            cfirst[u] = q
            cstate[u] = uidx[q]
    U = cfirst.shape[0]
    count = np.zeros(U)
    cards = np.zeros((U, D))
    for q in range(n):
        u = cidx[q]
        count[u] += 1.0
        for t in range(sc.shape[1]):
            cards[u, sc[q, t]] += 1.0
    npair = 0
    for u in range(U):
        for c in range(D):
            if cards[u, c] != 0.0:
                npair += 1
    pair_class = np.zeros(npair, np.int64)
    pair_card = np.zeros(npair, np.int64)
    pair_count = np.zeros(npair)
    i = 0
    for u in range(U):
        for c in range(D):
            if cards[u, c] != 0.0:
                pair_class[i] = u
                pair_card[i] = c
                pair_count[i] = cards[u, c]
                i += 1
    return ReachClasses(cidx, cstate, cfirst, count, pair_class, pair_card, pair_count)


@njit(cache=NUMBA_CACHE)
def showdown_sweep_lanes(R, m, ranked, cards, h, scratch, lanes, mask, vals):
    """The showdown values of ``m`` lanes of reach, ``R[:, :m]`` (hands x lanes, by hand), in
    one sweep of the hands by rank (``ranked``: ``order``, ``grp_end`` as
    ``_board_kernels.showdown_sweep``; lanes side by side; hands no lane's reach holds are not
    added): lane q (``lanes``: ``lane_j``, ``lane_p``, ``pay``) writes ``pay[q]`` times its value
    into ``vals[lane_j[q], lane_p[q], i]`` for the hands i with ``mask[lane_p[q], i]``.
    ``scratch``: ``X`` (lanes) and ``Xc`` (cards x lanes)."""
    order, grp_end = ranked
    X, Xc = scratch
    lane_j, lane_p, pay = lanes
    nh = order.shape[0]
    held = np.zeros(nh, np.bool_)  # by rank position: some lane's reach holds the hand
    for t in range(nh):
        i = order[t]
        for q in range(m):
            if R[i, q] != 0.0:
                held[t] = True
                break
    X[:m] = 0.0
    Xc[:, :m] = 0.0
    for t in range(nh):
        if not held[t]:
            continue
        i = order[t]
        for c in range(h):
            for q in range(m):
                Xc[cards[i, c], q] -= R[i, q]
        for q in range(m):
            X[q] -= R[i, q]
    t0 = 0
    while t0 < nh:
        e = grp_end[t0]
        for twice in range(2):
            for t in range(t0, e):
                if not held[t]:
                    continue
                i = order[t]
                for q in range(m):
                    X[q] += R[i, q]
                for c in range(h):
                    for q in range(m):
                        Xc[cards[i, c], q] += R[i, q]
            if twice == 0:  # the group counted once: its values
                for t in range(t0, e):
                    i = order[t]
                    for q in range(m):
                        p = lane_p[q]
                        if not mask[p, i]:
                            continue
                        v = X[q]
                        for c in range(h):
                            v -= Xc[cards[i, c], q]
                        vals[lane_j[q], p, i] = pay[q] * v
        t0 = e
