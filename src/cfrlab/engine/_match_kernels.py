"""Regret matching, once: play each action in proportion to its positive regret, uniformly over
the legal actions when none is positive (Hart and Mas-Colell 2000; the CFR walks' strategy).

Every walk takes it from here, in the layout it stores:

- ``share(r, tot, n)``: one action's probability from its regret ``r``, the positive total
  ``tot`` and the ``n`` legal actions; the form the other kernels inline (the board walk's
  hand-inner loops, MCCFR's, the N-player walk's, CFR-BR's, the wide tables');
- ``match_rows`` / ``limit_match_rows`` / ``predictive_match_rows``: rows ``row .. row+L-1``
  of a ``[rows, A]`` table at decision d (the engine's layout); three-column (limit) rows
  multiply by the reciprocal of the total, the engine's hot path since its first version;
- ``match_row_into``: one row into a small vector (the scalar walks of MCCFR);
- ``normalize_row_range``: rows lo..hi-1 of a table by their decisions (``dec_of_row``): the
  N-player walk's regret matching, and a nonnegative table's rows as distributions;
- ``match_board_row`` / ``match_board``: the board walk's ``[B, A, H]`` storage, one hand or a
  board's hands in the inner loop (``_board_kernels``);
- ``regret_match``: the numpy form over any axis (matrix games, CFR-BR's tables, re-solving).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE, inline="always")
def share(r, tot, n):
    """The probability of an action with regret r when the positive regrets total ``tot``
    over ``n`` legal actions."""
    return (r / tot if r > 0.0 else 0.0) if tot > 0.0 else 1.0 / n


@njit(cache=NUMBA_CACHE, inline="always")
def set_matched(sigma, x, r0, r1, r2, l0, l1, l2):
    """sigma[x] proportional to the positive parts of (r0, r1, r2); uniform over the legal
    actions when none is positive (three columns: one reciprocal, three products)."""
    r0 = max(0.0, r0) if l0 else 0.0
    r1 = max(0.0, r1) if l1 else 0.0
    r2 = max(0.0, r2) if l2 else 0.0
    tot = r0 + r1 + r2
    if tot > 0.0:
        inv = 1.0 / tot
        sigma[x, 0] = r0 * inv
        sigma[x, 1] = r1 * inv
        sigma[x, 2] = r2 * inv
    else:
        uni = 1.0 / (int(l0) + int(l1) + int(l2))
        sigma[x, 0] = uni if l0 else 0.0
        sigma[x, 1] = uni if l1 else 0.0
        sigma[x, 2] = uni if l2 else 0.0


@njit(cache=NUMBA_CACHE)
def match_wide(regret, pred, legal, d, row, L, sigma):
    """Regret matching for tables wider than three columns (no-limit trees), with the
    predicted regrets added when ``pred`` has rows."""
    A = legal.shape[1]
    predict = pred.shape[0] > 0
    for x in range(row, row + L):
        tot = 0.0
        nl = 0
        for a in range(A):
            if legal[d, a]:
                nl += 1
                r = regret[x, a] + (pred[x, a] if predict else 0.0)
                if r > 0.0:
                    tot += r
        for a in range(A):
            r = regret[x, a] + (pred[x, a] if predict else 0.0)
            sigma[x, a] = share(r, tot, nl) if legal[d, a] else 0.0


@njit(cache=NUMBA_CACHE)
def limit_match_rows(regret, legal, d, row, L, sigma):
    """Regret matching of three-column (limit) rows."""
    l0, l1, l2 = legal[d, 0], legal[d, 1], legal[d, 2]
    for x in range(row, row + L):
        set_matched(sigma, x, regret[x, 0], regret[x, 1], regret[x, 2], l0, l1, l2)


@njit(cache=NUMBA_CACHE)
def match_rows(regret, legal, d, row, L, sigma):
    """sigma = regret matching of rows row .. row+L-1 (decision d), tables of any width."""
    if legal.shape[1] != 3:
        match_wide(regret, regret[:0], legal, d, row, L, sigma)
    else:
        limit_match_rows(regret, legal, d, row, L, sigma)


@njit(cache=NUMBA_CACHE)
def predictive_match_rows(regret, pred, legal, d, row, L, sigma):
    """Regret matching of three-column rows on accumulated plus predicted regrets (predictive
    CFR+)."""
    l0, l1, l2 = legal[d, 0], legal[d, 1], legal[d, 2]
    for x in range(row, row + L):
        set_matched(sigma, x, regret[x, 0] + pred[x, 0], regret[x, 1] + pred[x, 1],
                    regret[x, 2] + pred[x, 2], l0, l1, l2)


@njit(cache=NUMBA_CACHE)
def match_row_into(regret, row, legal_d, out, A):
    """out[:A] = regret matching of regret[row] over the legal columns ``legal_d`` (A: a
    literal 3 in the limit kernels). A call, not inlined, and the positive parts divided in
    place: inlined into MCCFR's external-sampling walk, ``share``'s form made it 10% slower
    (Leduc, 20,000 iterations), with the same values."""
    total = 0.0
    nl = 0
    for a in range(A):
        out[a] = 0.0
        if legal_d[a]:
            nl += 1
            if regret[row, a] > 0.0:
                out[a] = regret[row, a]
                total += out[a]
    if total > 0.0:
        for a in range(A):
            out[a] /= total
    else:
        for a in range(A):
            out[a] = 1.0 / nl if legal_d[a] else 0.0


@njit(cache=NUMBA_CACHE, inline="always")
def match_board_row(reg, b, h, A, out):
    """Regret matching of hand h on board b into out[:, b, h] (a stored scale cancels)."""
    tot = 0.0
    for a in range(A):
        x = float(reg[b, a, h])
        if x > 0:
            tot += x
    for a in range(A):
        out[a, b, h] = share(float(reg[b, a, h]), tot, A)


@njit(cache=NUMBA_CACHE, inline="always")
def board_positive_totals(reg, b, A, H, tot):
    """tot[h] = the sum of hand h's positive regrets on board b (a stored scale cancels); of a
    cumulative strategy, never negative, its plain sum (the average strategy's divisor)."""
    for h in range(H):
        tot[h] = 0.0
    for a in range(A):
        for h in range(H):
            x = float(reg[b, a, h])
            tot[h] += x if x > 0 else 0.0


@njit(cache=NUMBA_CACHE, inline="always")
def match_board(reg, b, A, H, tot, out):
    """Regret matching of board b, hand-inner loops (vectorized): out[a, b, :] = sigma_a."""
    board_positive_totals(reg, b, A, H, tot)
    for a in range(A):
        for h in range(H):
            out[a, b, h] = share(float(reg[b, a, h]), tot[h], A)


@njit(cache=NUMBA_CACHE, inline="always")
def predicted_match(reg, pred, b, A, H, tot, out):
    """out[a, b', :] = sigma_a of board b by regret matching of reg + pred (predictive CFR+:
    the accumulated regrets plus the last instantaneous ones; Farina, Kroer and Sandholm),
    written at b' = b, or at 0 when ``out`` holds one board."""
    ob = b if out.shape[1] > 1 else 0
    for h in range(H):
        tot[h] = 0.0
    for a in range(A):
        for h in range(H):
            x = float(reg[b, a, h]) + float(pred[b, a, h])
            tot[h] += x if x > 0 else 0.0
    for a in range(A):
        for h in range(H):
            out[a, ob, h] = share(float(reg[b, a, h]) + float(pred[b, a, h]), tot[h], A)


@njit(cache=NUMBA_CACHE)
def normalize_row_range(table, legal, dec_of_row, out, lo, hi):
    """Rows lo..hi-1 of ``table`` (rows, A): out[row] = its positive parts on the legal actions,
    normalized; uniform on the legal actions where none is positive. Regret matching, and for a
    nonnegative table (an average) its rows as distributions. Three-column (limit) tables get
    their own copy of the loop, the column count a constant."""
    if table.shape[1] == 3:
        _normalize_rows(table, legal, dec_of_row, out, lo, hi, 3)
    else:
        _normalize_rows(table, legal, dec_of_row, out, lo, hi, table.shape[1])


@njit(cache=NUMBA_CACHE, inline="always")
def _normalize_rows(table, legal, dec_of_row, out, lo, hi, A):
    for row in range(lo, hi):
        d = dec_of_row[row]
        tot = 0.0
        nl = 0
        for a in range(A):
            if legal[d, a]:
                nl += 1
                if table[row, a] > 0.0:
                    tot += table[row, a]
        for a in range(A):
            out[row, a] = share(table[row, a], tot, nl) if legal[d, a] else 0.0


def regret_match(regret: np.ndarray, legal: np.ndarray | None = None, axis: int = -1,
                 greedy: bool = False) -> np.ndarray:
    """The numpy form: ``regret`` matched along ``axis`` (its actions), only over the actions
    ``legal`` allows (a boolean array broadcasting against ``regret``; None: all), uniform
    over them where none is positive (zeros where none is legal); with ``greedy`` (Deep CFR's
    rule, Brown et al. 2019, section 4; rows on the last axis) the legal action of highest
    regret instead."""
    pos = np.maximum(regret, 0.0)
    if legal is None:
        legal = np.ones(regret.shape[axis], dtype=bool).reshape([-1 if i == axis % regret.ndim else 1
                                                                  for i in range(regret.ndim)])
    else:
        pos = np.where(legal, pos, 0.0)
    tot = pos.sum(axis=axis, keepdims=True)
    if greedy:
        best = np.argmax(np.where(legal, regret, -np.inf), axis=-1)
        uni = np.zeros_like(pos)
        uni[np.arange(len(best)), best] = 1.0
    else:
        uni = legal / np.maximum(legal.sum(axis=axis, keepdims=True), 1)  # np.where broadcasts it
    return np.where(tot > 0, pos / np.where(tot > 0, tot, 1.0), uni)
