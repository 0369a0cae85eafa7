"""Numba kernels of the abstract game's joint tables (see ``bucketed``).

A *batch* is a run of canonical boards, each with its H hole pairs laid out as rows of
``st`` (int32 state), ``rk`` (int32 rank; all equal before the last round) and ``mk``
(int64 bit mask of the pair's two cards), sorted by state inside each board; ``toff[b, t]``
is the first hole of board b whose state is >= t * tw (tile t), ``w[b]`` the board's weight.

Accumulation runs over unordered pairs of disjoint holes on a board and adds the board's
weight to ``win[s0, s1]`` when the hole in s0 ranks higher (``win[s1, s0]`` when lower) and
to ``tie[s0, s1]`` and ``tie[s1, s0]`` on a tie. Then for ordered deals (player 0, player 1)
``P = win + win.T + tie`` and ``W = win - win.T`` (before normalization). States are cut in
tiles of ``tw`` so that each task's accumulator (tw x tw x 3 int64) stays in cache and each
task writes its own blocks: no two threads ever write one entry.

Kernels take their arrays in named bundles (namedtuples, typed tuples to numba): ``Batch``
(st, rk, mk, toff: the batch rows above); ``LastBuckets`` (prev, last, B, history,
perfect): how a final hole gets its state, prev[parent board, pair] being its state on the
round before (int32), ``last[group, hsnum]`` the last round's bucket table, B its bucket
count; ``TurnBatch`` (prev_sorted, hole_pos, RP, toff) and ``RiverBuckets`` (xv, xm, nx):
the rows of ``prepare_turn_boards`` and ``river_masks``; ``SweepOrder`` (board, set_id,
suit_map, sets): the order ``last_round_sweep`` takes the final boards in, board[t] being
the final board at place t, set_id[t] its set of cards up to suits (``sets[set_id]`` the
set's representative, local cards) and suit_map[t, i] the board's suit of the
representative's suit i (``final_board_sets``); and those of ``_metrics_kernels``
(``Indexer``, ``FinalDeal``) and ``_bucket_kernels`` (``FinalBoards``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from cfrlab.abstraction._bucket_kernels import board_hole_states, last_bucket
from cfrlab.abstraction._metrics_kernels import (
    FinalDeal,
    final_board_holes,
    final_scratch,
    index_scratch,
    pair_id,
    rest_of,
    run_end,
)
from cfrlab.config import NUMBA_CACHE

Batch = namedtuple("Batch", "st rk mk toff")
LastBuckets = namedtuple("LastBuckets", "prev last B history perfect")
TurnBatch = namedtuple("TurnBatch", "prev_sorted hole_pos RP toff")
RiverBuckets = namedtuple("RiverBuckets", "xv xm nx")
SweepOrder = namedtuple("SweepOrder", "board set_id suit_map sets")


@njit(cache=NUMBA_CACHE)
def tile_offsets(sorted_states, n, tw, NT, toff_row):
    """toff_row[t] = first of the n ascending states that is >= t * tw (n when none)."""
    t = 0
    for i in range(n):
        while t <= NT and sorted_states[i] >= t * tw:
            toff_row[t] = i
            t += 1
    while t <= NT:
        toff_row[t] = n
        t += 1


@njit(cache=NUMBA_CACHE)
def tile_rows(toff, b, p0, p1):
    """The rows of board b in tile p0 (a0..e0 - 1) and in tile p1 (a1..e1 - 1), as
    ``tile_offsets`` cut them: (a0, e0, a1, e1)."""
    return toff[b, p0], toff[b, p0 + 1], toff[b, p1], toff[b, p1 + 1]


@njit(cache=NUMBA_CACHE)
def add_tile(G, n0, n1, row0, col0, win, tie):
    """Add a tile accumulator G[n0, n1, (win, loss, tie)] of the block at (row0, col0) into
    win and tie (int64[S, S]): a loss is a win of the other side, a tie counts both ways."""
    for x in range(n0):
        for y in range(n1):
            win[row0 + x, col0 + y] += G[x, y, 0]
            win[col0 + y, row0 + x] += G[x, y, 1]
            tie[row0 + x, col0 + y] += G[x, y, 2]
            tie[col0 + y, row0 + x] += G[x, y, 2]


@njit(cache=NUMBA_CACHE)
def _finish_board(states, ranks, masks, H, tw, NT, batch, b):
    """Sort a board's holes by state into row b of the ``Batch`` and fill its tile offsets."""
    st_row, rk_row, mk_row = batch.st[b], batch.rk[b], batch.mk[b]
    order = np.argsort(states[:H], kind="mergesort")
    for i in range(H):
        k = order[i]
        st_row[i] = states[k]
        rk_row[i] = ranks[k]
        mk_row[i] = masks[k]
    tile_offsets(st_row, H, tw, NT, batch.toff[b])


@njit(cache=NUMBA_CACHE, parallel=True)
def prepare_round(boards, nb, D, ix, table, tw, NT, batch):
    """Rows for boards of a round before the last: each hole's state from the ordered-class
    table (``Indexer`` ix); ranks all 0 (only P is wanted). boards int64[N, max(nb, 1)]."""
    N = boards.shape[0]
    m = D - nb
    H = m * (m - 1) // 2
    nchunks = 64
    for ch in prange(nchunks):
        rest = np.empty(D, np.int64)
        hand = np.empty(2 + nb, np.int64)
        scratch = index_scratch(ix.num_suits, ix.gsz.shape[0])
        states = np.empty(H, np.int64)
        ranks = np.zeros(H, np.int64)
        masks = np.empty(H, np.int64)
        for b in range(ch * N // nchunks, (ch + 1) * N // nchunks):
            board_hole_states(boards[b], nb, D, ix, scratch, table, rest, hand, states)
            k = 0
            for x in range(m):
                for y in range(x + 1, m):
                    masks[k] = (np.int64(1) << rest[x]) | (np.int64(1) << rest[y])
                    k += 1
            _finish_board(states, ranks, masks, H, tw, NT, batch, b)


@njit(cache=NUMBA_CACHE, parallel=True)
def prepare_last(q0, q1, boards, fd, lb, tw, NT, batch):
    """Rows for final boards q0..q1-1 (``FinalBoards`` boards, ``FinalDeal`` fd): a hole's
    state is (its state there) * B + last[group, hsnum] under perfect recall, or
    last[0, hsnum] under imperfect recall (``LastBuckets`` lb); ranks are the evaluator's."""
    parents, children, child_parent = boards
    prev, last, B, history, perfect = lb
    pa, pb = fd.pa, fd.pb
    H = pa.shape[0]
    n = q1 - q0
    nchunks = 64
    for ch in prange(nchunks):
        fs = final_scratch(fd)
        frest_g, ranks, hsnum, pid = fs.frest_g, fs.ranks, fs.hsnum, fs.pid
        states = np.empty(H, np.int64)
        masks = np.empty(H, np.int64)
        for i in range(ch * n // nchunks, (ch + 1) * n // nchunks):
            q = q0 + i
            p = child_parent[q]
            final_board_holes(parents[p], children[q], fd, fs)
            for h in range(H):
                ps = np.int64(prev[p, pid[h]])
                b = last_bucket(last, history, ps, hsnum[h])
                states[h] = ps * B + b if perfect else b
                masks[h] = (np.int64(1) << frest_g[pa[h]]) | (np.int64(1) << frest_g[pb[h]])
            _finish_board(states, ranks, masks, H, tw, NT, batch, i)


@njit(cache=NUMBA_CACHE, parallel=True)
def accumulate_tiles(batch, w, nboards, tw, S, tp0, tp1, win, tie):
    """Add the ``Batch``'s pairs into win/tie (int64[S, S]); one task per tile pair
    p0 <= p1."""
    st, rk, mk, toff = batch
    for t in prange(tp0.shape[0]):
        p0 = tp0[t]
        p1 = tp1[t]
        base0 = p0 * tw
        base1 = p1 * tw
        n0 = min(tw, S - base0)
        n1 = min(tw, S - base1)
        G = np.zeros((n0, n1, 3), np.int64)
        for b in range(nboards):
            wb = w[b]
            a0, e0, a1, e1 = tile_rows(toff, b, p0, p1)
            for i in range(a0, e0):
                s0 = st[b, i] - base0
                r0 = rk[b, i]
                m0 = mk[b, i]
                js = i + 1 if p0 == p1 else a1
                for j in range(js, e1):
                    if m0 & mk[b, j] == 0:
                        r1 = rk[b, j]
                        c = (r0 < r1) + 2 * (r0 == r1)
                        G[s0, st[b, j] - base1, c] += wb
        add_tile(G, n0, n1, base0, base1, win, tie)


@njit(cache=NUMBA_CACHE, parallel=True)
def accumulate_small(batch, w, nboards, H, S, nthreads, win, tie):
    """Small S: each thread takes a share of the ``Batch``'s boards into its own S x S
    accumulators."""
    st, rk, mk = batch.st, batch.rk, batch.mk
    acc = np.zeros((nthreads, S, S, 3), np.int64)
    for th in prange(nthreads):
        G = acc[th]
        for b in range(th * nboards // nthreads, (th + 1) * nboards // nthreads):
            wb = w[b]
            for i in range(H):
                s0 = st[b, i]
                r0 = rk[b, i]
                m0 = mk[b, i]
                for j in range(i + 1, H):
                    if m0 & mk[b, j] == 0:
                        r1 = rk[b, j]
                        c = (r0 < r1) + 2 * (r0 == r1)
                        G[s0, st[b, j], c] += wb
    for th in range(nthreads):
        add_tile(acc[th], S, S, 0, 0, win, tie)


@njit(cache=NUMBA_CACHE, parallel=True)
def round_counts(boards, weight, nb, D, ix, table, nthreads, N, corr):
    """Rounds before the last, by inclusion-exclusion over shared cards. For each board b:
    ``N[b, s]`` = its holes in state s (float64, for one GEMM over boards), and
    ``corr[thread]`` (int64[S, S]) += weight * sum over cards c of n_c n_c^T, where n_c counts
    the holes holding c. The board's disjoint ordered hole pairs are then
    ``n n^T - sum_c n_c n_c^T + diag(n)``. A hole's state: table[class] (``Indexer`` ix)."""
    nboards = boards.shape[0]
    m = D - nb
    for th in prange(nthreads):
        rest = np.empty(D, np.int64)
        hand = np.empty(2 + nb, np.int64)
        scratch = index_scratch(ix.num_suits, ix.gsz.shape[0])
        states = np.empty(m * (m - 1) // 2, np.int64)
        inc = np.empty((m, m - 1), np.int64)  # inc[x, :] = states of the holes holding card x
        fill = np.empty(m, np.int64)
        C = corr[th]
        for b in range(th * nboards // nthreads, (th + 1) * nboards // nthreads):
            board_hole_states(boards[b], nb, D, ix, scratch, table, rest, hand, states)
            fill[:] = 0
            k = 0
            for x in range(m):
                for y in range(x + 1, m):
                    s = states[k]
                    k += 1
                    N[b, s] += 1.0
                    inc[x, fill[x]] = s
                    fill[x] += 1
                    inc[y, fill[y]] = s
                    fill[y] += 1
            w = weight[b]
            for x in range(m):
                row = inc[x]
                for i in range(m - 1):
                    si = row[i]
                    C[si, si] += w
                    for j in range(i + 1, m - 1):
                        C[si, row[j]] += w
                        C[row[j], si] += w


@njit(cache=NUMBA_CACHE, parallel=True)
def final_board_sets(boards, nb, k, num_ranks, num_suits, key, suit_map):
    """Final boards as sets of cards up to suits (``FinalBoards`` boards: a parent's nb cards
    and a child's k). A set's suits, each the bit mask of its ranks there, sorted (largest
    first, ties by suit): key[q] = the masks in that order, num_ranks bits each, and
    suit_map[q, i] = the board's suit i-th in that order. Boards of one key hold the same
    cards up to suits (so their holes rank alike); the key's representative holds suit
    suit_map[q, i]'s ranks in suit i."""
    parents, children, child_parent = boards
    Q = children.shape[0]
    nchunks = 64
    for ch in prange(nchunks):
        masks = np.empty(num_suits, np.int64)
        for q in range(ch * Q // nchunks, (ch + 1) * Q // nchunks):
            p = child_parent[q]
            masks[:] = 0
            for i in range(nb):
                c = parents[p, i]
                masks[c % num_suits] |= np.int64(1) << (c // num_suits)
            for j in range(k):
                c = children[q, j]
                masks[c % num_suits] |= np.int64(1) << (c // num_suits)
            row = suit_map[q]
            for s in range(num_suits):  # insertion sort: few suits
                m = masks[s]
                i = s
                while i > 0 and masks[row[i - 1]] < m:
                    row[i] = row[i - 1]
                    i -= 1
                row[i] = s
            kq = np.int64(0)
            for i in range(num_suits):
                kq = (kq << num_ranks) | masks[row[i]]
            key[q] = kq


@njit(cache=NUMBA_CACHE, parallel=True)
def last_round_sweep(t0, t1, boards, weight, fd, lb, so, S, nthreads, win, tie):
    """Last round for few states: the final boards at places t0..t1-1 of the ``SweepOrder`` so
    (``FinalBoards`` boards, ``FinalDeal`` fd, ``LastBuckets`` lb, weight[q] of final board q).
    win/tie int64[T, S, S] hold one accumulator per thread.

    The boards come grouped by their set of cards up to suits: the holes of a set are ranked
    once (``final_board_holes`` on the set's representative) and every board of the set reads
    its holes through the suits that take the set to it (a hole's state needs its pair number
    on the board's parent).

    Per board, the holes are swept in rank order keeping count vectors over states of the
    weaker holes, in all (``cum``) and by card (``cumc``); a hole in state x adds
    ``cum - cumc[a] - cumc[b]`` (its weaker disjoint holes) to row x of the win table.
    Ties, inside each group of equal rank: the same vectors once the group is added count the
    hole's disjoint holes up to its own rank; minus what its row just added (the weaker ones),
    over the group's own states only, they are its tied disjoint holes (the hole itself,
    taken away once by each of its cards, is added back).

    A board's holes fall in few of the S states (about 140 of 625 at 5 buckets on the full
    deck, 60 on 32 cards): the sweep runs in the board's own numbering of the states it
    touches, in the order the sweep first meets them (weakest first), so that the weaker
    holes' states fill a prefix [0, hi) and each row update stops at hi; its tables are
    K x K for the board's K states. Its unweighted counts (at most H * H / 4 per entry, int32)
    are added, times the board's weight, into int32 copies of win/tie over the part each row
    touched (win: up to the hi of its last update; tie: its span of group states), flushed
    into win/tie every ``flush`` boards, before any entry could overflow (a board adds at
    most weight * H * H / 4 to one; 300 boards on the full deck, thousands on small ones).

    The states are numbered as ``internal_order`` says (a perfect-recall state (parent ps,
    bucket b) is b * NP + ps), which the caller maps back."""
    parents, _, child_parent = boards
    prev, last, B, history, perfect = lb
    board_at, set_at, suit_at, sets = so
    nb, D = fd.nb, fd.D
    pa, pb = fd.pa, fd.pb
    fset = FinalDeal(sets.shape[1], 0, D, fd.to_global, pa, pb)  # a set ranked as one board
    num_suits = suit_at.shape[1]
    NP = S // B  # states of the round before (perfect recall)
    mB = D - nb  # cards left on a parent board: its hole pairs are numbered over them
    mf = mB - fd.k
    H = pa.shape[0]
    KM = min(S, H)  # states a board can touch
    n = t1 - t0
    wmax = 1
    for t in range(t0, t1):
        wmax = max(wmax, weight[board_at[t]])
    flush = max(1, (2**31 - 1) // (wmax * (H * H // 4 + 1)))
    for th in prange(nthreads):
        fs = final_scratch(fset)
        ranks, hsnum, set_rest = fs.ranks, fs.hsnum, fs.rest
        no_cards = np.empty(0, np.int64)
        order = np.arange(H)
        ranked = -1  # the set whose holes fs holds
        parent_rest = np.empty(D, np.int64)
        place = np.empty(D, np.int64)  # card -> its place in the parent's rest
        hole_place = np.empty(mf, np.int64)  # place in the parent's rest of the set's card x
        loc = np.full(S, -1, np.int64)  # state -> its number on this board
        glob = np.empty(KM, np.int64)  # and back
        lst = np.empty(H, np.int64)  # each hole's state, in the board's numbering
        cum = np.zeros(KM, np.int32)
        cumc_buf = np.zeros(mf * KM, np.int32)
        win_buf = np.zeros(KM * KM, np.int32)
        tie_buf = np.zeros(KM * KM, np.int32)
        row_hi = np.zeros(KM, np.int64)  # win row x is touched below row_hi[x]
        tie_lo = np.zeros(KM, np.int64)  # tie row x between tie_lo[x] and tie_hi[x]
        tie_hi = np.zeros(KM, np.int64)
        group = np.full(KM, -1, np.int64)  # state -> the last group it was met in
        gl = np.empty(KM, np.int64)  # the group's states
        W32 = np.zeros((S, S), np.int32)
        T32 = np.zeros((S, S), np.int32)
        done = 0
        for i in range(th * n // nthreads, (th + 1) * n // nthreads):
            t = t0 + i
            q = board_at[t]
            p = child_parent[q]
            w32 = np.int32(weight[q])
            if set_at[t] != ranked:
                ranked = set_at[t]
                order = final_board_holes(sets[ranked], no_cards, fset, fs)
            rest_of(parents[p], nb, D, parent_rest)
            for x in range(mB):
                place[parent_rest[x]] = x
            to_board = suit_at[t]
            for x in range(mf):
                c = set_rest[x]
                hole_place[x] = place[(c // num_suits) * num_suits + to_board[c % num_suits]]
            K = 0
            prev_row = prev[p]
            for qq in range(H):  # number the board's states weakest first
                h = order[qq]
                x = hole_place[pa[h]]
                y = hole_place[pb[h]]
                ps = np.int64(prev_row[pair_id(min(x, y), max(x, y), mB)])
                b = last_bucket(last, history, ps, hsnum[h])
                s0 = b * NP + ps if perfect else b
                if loc[s0] < 0:
                    loc[s0] = K
                    glob[K] = s0
                    row_hi[K] = 0
                    tie_lo[K] = KM
                    tie_hi[K] = 0
                    group[K] = -1
                    K += 1
                lst[h] = loc[s0]
            Lw = win_buf[:K * K].reshape((K, K))  # the board's tables, K states wide
            Lt = tie_buf[:K * K].reshape((K, K))
            cumc = cumc_buf[:mf * K].reshape((mf, K))
            hi = 0  # cum and cumc are zero from index hi on
            i0 = 0
            while i0 < H:
                j = run_end(ranks, order, i0, H)
                ng = 0
                if j - i0 > 1:  # ties: the group's states; Lt gets what the rows add there
                    for qq in range(i0, j):
                        l0 = lst[order[qq]]
                        if group[l0] != i0:
                            group[l0] = i0
                            gl[ng] = l0
                            ng += 1
                    for u in range(ng):
                        x = gl[u]
                        for v in range(ng):
                            Lt[x, gl[v]] += Lw[x, gl[v]]
                if i0 > 0:
                    for qq in range(i0, j):
                        h = order[qq]
                        l0 = lst[h]
                        row = Lw[l0]
                        ca = cumc[pa[h]]
                        cb = cumc[pb[h]]
                        for t2 in range(hi):
                            row[t2] += cum[t2] - ca[t2] - cb[t2]
                        row_hi[l0] = hi
                for qq in range(i0, j):
                    h = order[qq]
                    l0 = lst[h]
                    if l0 >= hi:
                        hi = l0 + 1
                    cum[l0] += 1
                    cumc[pa[h], l0] += 1
                    cumc[pb[h], l0] += 1
                if ng > 0:
                    for u in range(ng):
                        x = gl[u]
                        for v in range(ng):
                            y = gl[v]
                            Lt[x, y] -= Lw[x, y]
                            tie_lo[x] = min(tie_lo[x], y)
                            tie_hi[x] = max(tie_hi[x], y + 1)
                    for qq in range(i0, j):
                        h = order[qq]
                        l0 = lst[h]
                        row = Lt[l0]
                        ca = cumc[pa[h]]
                        cb = cumc[pb[h]]
                        for u in range(ng):
                            y = gl[u]
                            row[y] += cum[y] - ca[y] - cb[y]
                        row[l0] += 1
                i0 = j
            for h in range(H):  # undo only what this board touched
                l0 = lst[h]
                cum[l0] = 0
                cumc[pa[h], l0] = 0
                cumc[pb[h], l0] = 0
            for x in range(K):
                gx = glob[x]
                wx = W32[gx]
                tx = T32[gx]
                row = Lw[x]
                for y in range(row_hi[x]):
                    wx[glob[y]] += w32 * row[y]
                    row[y] = 0
                row = Lt[x]
                for y in range(tie_lo[x], tie_hi[x]):
                    tx[glob[y]] += w32 * row[y]
                    row[y] = 0
                loc[gx] = -1
            done += 1
            if done == flush:
                _flush(W32, T32, win[th], tie[th], S)
                done = 0
        _flush(W32, T32, win[th], tie[th], S)


@njit(cache=NUMBA_CACHE)
def _flush(W32, T32, Wt, Tt, S):
    for x in range(S):
        for y in range(S):
            Wt[x, y] += W32[x, y]
            Tt[x, y] += T32[x, y]
            W32[x, y] = 0
            T32[x, y] = 0


def internal_order(S: int, B: int, perfect: bool) -> np.ndarray:
    """int64[S]: the state numbered i inside last_round_sweep is state internal_order[i]."""
    if not perfect:
        return np.arange(S)
    NP = S // B
    i = np.arange(S)
    return (i % NP) * B + i // NP


@njit(cache=NUMBA_CACHE, parallel=True)
def prepare_turn_boards(p0, p1, parents, fd, lb, tpt, NPT, X, tb):
    """Perfect recall, last round adds one card (``FinalDeal`` fd, ``LastBuckets`` lb): for
    canonical boards p0..p1-1 of the round before, every hole's river bucket X[b, i, c] for
    each river card (position c in the board's rest; 0 for the hole's own cards) and, in the
    ``TurnBatch`` tb, its dense rank on that river (0 = weakest, equal ranks equal) stored
    bit-sliced: bit c of RP[b, i, k] is bit k of the dense rank on river c. Holes are listed
    in order of their state on the round before (prev_sorted[b, i]; hole_pos[b, i] = bit mask
    of the hole's two card positions), and toff[b, t] = first listed hole whose state is
    >= t * tpt (tiles of tpt parent states)."""
    prev, last, history = lb.prev, lb.last, lb.history
    prev_sorted, hole_pos, RP, toff = tb
    n = p1 - p0
    D = fd.D
    mB = D - fd.nb
    H = fd.pa.shape[0]
    HB = mB * (mB - 1) // 2
    nchunks = 32
    for ch in prange(nchunks):
        fs = final_scratch(fd)
        ranks, hsnum, pid = fs.ranks, fs.hsnum, fs.pid
        rest = np.empty(D, np.int64)
        child = np.empty(1, np.int64)
        pos_of = np.empty(HB, np.int64)  # hole pair number -> listed position
        bits = np.empty(HB, np.int64)
        kk = 0
        for x in range(mB):
            for y in range(x + 1, mB):
                bits[kk] = (np.int64(1) << x) | (np.int64(1) << y)
                kk += 1
        for i in range(ch * n // nchunks, (ch + 1) * n // nchunks):
            p = p0 + i
            st = prev[p]
            order = np.argsort(st[:HB], kind="mergesort")
            for q in range(HB):
                pos_of[order[q]] = q
                prev_sorted[i, q] = st[order[q]]
                hole_pos[i, q] = bits[order[q]]
            tile_offsets(prev_sorted[i], HB, tpt, NPT, toff[i])
            rest_of(parents[p], fd.nb, D, rest)
            for c in range(mB):
                child[0] = rest[c]
                ro = final_board_holes(parents[p], child, fd, fs)
                dense = 0
                for t2 in range(H):
                    h = ro[t2]
                    if t2 > 0 and ranks[h] != ranks[ro[t2 - 1]]:
                        dense += 1
                    q = pos_of[pid[h]]
                    ps = np.int64(st[pid[h]])
                    X[i, q, c] = last_bucket(last, history, ps, hsnum[h])
                    for kb in range(RP.shape[2]):
                        if (dense >> kb) & 1:
                            RP[i, q, kb] |= np.int64(1) << c


@intrinsic
def popcount64(typingctx, x):
    """Bits set in an int64 (the CPU's popcnt)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@njit(cache=NUMBA_CACHE)
def river_masks(X, n, HB, mB, rv):
    """Per listed hole: its distinct river buckets xv[b, q, :nx] and for each the bit mask of
    the river cards (positions) giving it (``RiverBuckets`` rv)."""
    xv, xm, nx = rv
    for b in range(n):
        for q in range(HB):
            cnt = 0
            row = X[b, q]
            for c in range(mB):
                x = row[c]
                found = -1
                for t in range(cnt):
                    if xv[b, q, t] == x:
                        found = t
                if found < 0:
                    xv[b, q, cnt] = x
                    xm[b, q, cnt] = np.int64(1) << c
                    cnt += 1
                else:
                    xm[b, q, found] |= np.int64(1) << c
            nx[b, q] = cnt


@njit(cache=NUMBA_CACHE, parallel=True)
def accumulate_turn_tiles(n, weight, tb, rv, tpt, B, NP, tq0, tq1, win, tie):
    """Add, for boards 0..n-1 of a prepare_turn_boards batch (``TurnBatch`` tb, with the
    ``RiverBuckets`` rv of ``river_masks``), every pair of disjoint holes
    and every river card that misses both into win/tie (int64[S, S], S = NP * B). One task per
    pair of parent tiles (tq0 <= tq1), whose accumulator stays in cache.

    A pair's rivers are handled as bit masks over river positions: ``beat`` (hole 0 ranks
    higher) and ``tied`` come from a bit-sliced comparison of the two holes' dense ranks
    (all rivers at once, one step per rank bit), then for each pair of river buckets
    (x0, x1) the holes reach, popcounts of the masks intersected give the counts.
    hole_pos[b, q] = bit mask of the listed hole's two card positions (rivers it blocks);
    prev_sorted[b, q] = its state on the round before."""
    prev_sorted, hole_pos, RP, toff = tb
    xv, xm, nx = rv
    NBITS = RP.shape[2]
    for task in prange(tq0.shape[0]):
        P0 = tq0[task]
        P1 = tq1[task]
        base0 = P0 * tpt
        base1 = P1 * tpt
        n0 = min(tpt, NP - base0) * B
        n1 = min(tpt, NP - base1) * B
        G = np.zeros((n0, n1, 3), np.int64)
        for b in range(n):
            w = weight[b]
            a0, e0, a1, e1 = tile_rows(toff, b, P0, P1)
            for i in range(a0, e0):
                m0 = hole_pos[b, i]
                p0row = RP[b, i]
                s0 = (prev_sorted[b, i] - base0) * B
                k0 = nx[b, i]
                js = i + 1 if P0 == P1 else a1
                for j in range(js, e1):
                    m1 = hole_pos[b, j]
                    if m0 & m1:
                        continue
                    keep = ~(m0 | m1)
                    p1row = RP[b, j]
                    beat = np.int64(0)
                    tied = np.int64(-1)
                    for kb in range(NBITS - 1, -1, -1):
                        x = p0row[kb]
                        y = p1row[kb]
                        beat |= tied & x & ~y
                        tied &= ~(x ^ y)
                    s1 = (prev_sorted[b, j] - base1) * B
                    for u in range(k0):
                        mu = xm[b, i, u] & keep
                        if mu == 0:
                            continue
                        row = s0 + xv[b, i, u]
                        for v in range(nx[b, j]):
                            both = mu & xm[b, j, v]
                            if both == 0:
                                continue
                            col = s1 + xv[b, j, v]
                            nb_ = popcount64(both & beat)
                            nt = popcount64(both & tied)
                            G[row, col, 0] += w * nb_
                            G[row, col, 1] += w * (popcount64(both) - nb_ - nt)
                            G[row, col, 2] += w * nt
        add_tile(G, n0, n1, base0 * B, base1 * B, win, tie)
