"""Numba kernels of the DIVAT estimators (``cfrlab.evaluate.divat`` wraps them).

Hands are ranked from key sums (``_eval_kernels``: one table lookup per hand of 2..7
cards); a one-card hand (Kuhn) is its card's rank. Card ids must be below 64 (bit masks).

``divat_hands`` takes its arrays in named groups (namedtuples, passed by numba as typed tuples):

- ``DealTables``: ``deck`` int64[n] the card ids, ``hold_id`` int64[64, 64] the row of each
  holding (either card order), ``eq0`` float64[H, H] the preflop equities of holding row
  against column, ``num_board`` int64[R] the board cards dealt before each round (AIVAT's
  kernel takes the same group);
- ``BettingPaths``: the betting sequences of the hands, one row each: ``rounds`` int64[P] the
  last round reached, ``folder`` int64[P] the folding position or -1, ``spent`` int64[P, R + 1,
  2] the contributions at the start of each round, the final ones at index R;
- ``Baseline``: the bet-for-value baseline's rules per round (``first``, ``raise_size``,
  ``max_raises`` int64[R]), ``enum_ok`` bool[R] (the chance event before round r is enumerated
  per hand), ``thresholds`` float64[L], and ``k_allin`` / ``k_base`` the expectations over the
  deal of the root's two value functions;
- ``RoundBets`` (scalars, built in the kernels): the contributions ``s0``, ``s1`` at the start of
  a round, its ``first`` player, ``raise_size`` and ``max_raises``: what ``_enum_round`` needs
  to value the round's baseline.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from cfrlab.cards.kernels import CARD_BIT, CARD_KEY, FLUSH_BITS, KEY_INIT
from cfrlab.cards.kernels import lookup as _lookup
from cfrlab.cards.kernels import next_combination as next_combo
from cfrlab.config import NUMBA_CACHE

DealTables = namedtuple("DealTables", "deck hold_id eq0 num_board")
BettingPaths = namedtuple("BettingPaths", "rounds folder spent")
Baseline = namedtuple("Baseline", "first raise_size max_raises enum_ok thresholds k_allin k_base")
RoundBets = namedtuple("RoundBets", "s0 s1 first raise_size max_raises")

@njit(cache=NUMBA_CACHE, inline="always")
def _rank_key(key, bits, ncards, single):
    """Rank of a hand given its key sum and suit bits (``single``: the card of a 1-card hand)."""
    if ncards == 1:
        return np.int64(single >> 2)
    if key & FLUSH_BITS == 0:
        return np.int64(_lookup(key, 0))
    return np.int64(_lookup(key, bits))


# ----------------------------------------------------------------------------- preflop table


@njit(cache=NUMBA_CACHE)
def _perm_mask(mask, perm_card, p):
    out = np.uint64(0)
    m = mask
    while m:
        low = m & (~m + np.uint64(1))
        c = 0
        t = low
        while t > np.uint64(1):
            t >>= np.uint64(1)
            c += 1
        out |= np.uint64(1) << np.uint64(perm_card[p, c])
        m ^= low
    return out


@njit(cache=NUMBA_CACHE, parallel=True)
def preflop_table(deck, hold, perm_card, perm_hold, num_board, workers):
    """Win counts of every holding against every other over all boards.

    ``deck`` int64[n] card ids, ``hold`` int64[H, h] the holdings (rows), ``perm_card``
    int64[P, 64] the suit permutations of the deck as card maps, ``perm_hold`` int64[P, H] the
    same on holdings. Boards are enumerated up to suit permutation (only the lexicographically
    smallest mask of each orbit, weighted P / stabilizer size), then the sums are averaged
    over the P permutations, which gives the sum over all boards exactly.
    Returns float64[H, H] ``2 * wins + ties`` and float64[H, H] board counts (row vs column).
    """
    n = deck.shape[0]
    nh = hold.shape[0]
    h = hold.shape[1]
    npm = perm_card.shape[0]
    hmask = np.zeros(nh, dtype=np.uint64)
    hkey = np.zeros(nh, dtype=np.int64)
    hbits = np.zeros(nh, dtype=np.int64)
    for m in range(nh):
        hkey[m] = KEY_INIT
        for a in range(h):
            hmask[m] |= np.uint64(1) << np.uint64(hold[m, a])
            hkey[m] += CARD_KEY[hold[m, a]]
            hbits[m] |= CARD_BIT[hold[m, a]]
    # every board as a mask (a single empty board when num_board == 0)
    nbrd = 1
    for i in range(num_board):
        nbrd = nbrd * (n - i) // (i + 1)
    boards = np.zeros(nbrd, dtype=np.uint64)
    if num_board > 0:
        idx = np.arange(num_board)
        b = 0
        while True:
            m = np.uint64(0)
            for j in range(num_board):
                m |= np.uint64(1) << np.uint64(deck[idx[j]])
            boards[b] = m
            b += 1
            if not next_combo(idx, num_board, n):
                break
    wins = np.zeros((workers, nh, nh), dtype=np.float64)
    for w in prange(workers):
        ranks = np.empty(nh, dtype=np.int64)
        live = np.empty(nh, dtype=np.int64)
        for b in range(w, nbrd, workers):
            bm = boards[b]
            stab = 0
            canonical = True
            for p in range(npm):
                pm = _perm_mask(bm, perm_card, p)
                if pm < bm:
                    canonical = False
                    break
                if pm == bm:
                    stab += 1
            if not canonical:
                continue
            weight = npm / stab
            bkey = 0
            bbits = 0
            for c in range(64):
                if (bm >> np.uint64(c)) & np.uint64(1):
                    bkey += CARD_KEY[c]
                    bbits |= CARD_BIT[c]
            nl = 0
            for m in range(nh):
                if hmask[m] & bm:
                    continue
                ranks[m] = _rank_key(hkey[m] + bkey, hbits[m] | bbits, h + num_board, hold[m, 0])
                live[nl] = m
                nl += 1
            for ii in range(nl):
                i = live[ii]
                ri = ranks[i]
                mi = hmask[i]
                for jj in range(ii + 1, nl):
                    j = live[jj]
                    if hmask[j] & mi:
                        continue
                    rj = ranks[j]
                    if ri > rj:
                        wins[w, i, j] += 2.0 * weight
                    elif ri == rj:
                        wins[w, i, j] += weight
                    wins[w, j, i] += weight  # the lower triangle counts boards for now
    acc = np.zeros((nh, nh), dtype=np.float64)
    for w in range(workers):
        acc += wins[w]
    w2 = np.zeros((nh, nh), dtype=np.float64)
    cnt = np.zeros((nh, nh), dtype=np.float64)
    for i in range(nh):
        for j in range(i + 1, nh):
            c = acc[j, i]
            w2[i, j] = acc[i, j]
            w2[j, i] = 2.0 * c - acc[i, j]
            cnt[i, j] = c
            cnt[j, i] = c
    out_w = np.zeros((nh, nh), dtype=np.float64)
    out_c = np.zeros((nh, nh), dtype=np.float64)
    for p in range(npm):
        for i in range(nh):
            pi = perm_hold[p, i]
            for j in range(nh):
                pj = perm_hold[p, j]
                out_w[i, j] += w2[pi, pj]
                out_c[i, j] += cnt[pi, pj]
    return out_w / npm, out_c / npm


# ----------------------------------------------------------------------------- the baseline


@njit(cache=NUMBA_CACHE)
def allin_value(s0, s1, e0):
    """Player 0's value of the pot going to showdown as it is, with equity ``e0``."""
    return e0 * (s0 + s1) - s0


@njit(cache=NUMBA_CACHE)
def baseline_value(s0, s1, e0, first, raise_size, max_raises, thresholds):
    """Player 0's value of one round of bet-for-value betting from contributions (s0, s1).

    Each side knows its all-in equity against the other's actual hand (``e0`` and
    ``1 - e0``): it raises when its equity reaches ``thresholds[level]`` (level = bets in the
    round so far, a blind counting as one) and raising is legal, checks when free, calls when
    its equity beats the pot odds, and folds otherwise. The round's end is valued at all-in
    equity (a fold: the fold payoff).
    """
    sp0 = s0
    sp1 = s1
    raises = 0
    acted = 0
    level = 1 if s0 != s1 else 0
    p = first
    nt = thresholds.shape[0]
    while True:
        e = e0 if p == 0 else 1.0 - e0
        mine = sp0 if p == 0 else sp1
        top = max(sp1, sp0)
        to_call = top - mine
        lv = level if level < nt else nt - 1
        if raises < max_raises and e >= thresholds[lv]:
            if p == 0:
                sp0 = top + raise_size
            else:
                sp1 = top + raise_size
            raises += 1
            level += 1
            acted += 1
        elif to_call == 0 or e * 2.0 * top >= to_call:
            if p == 0:
                sp0 = top
            else:
                sp1 = top
            acted += 1
            if acted >= 2:
                return allin_value(sp0, sp1, e0)
        else:
            return -sp0 if p == 0 else sp1
        p = 1 - p


# ----------------------------------------------------------------------------- per hand


@njit(cache=NUMBA_CACHE)
def _enum_round(hole, board, k, m, q, deck, bets, thresholds, want_base, actual_known):
    """Equities with ``board[:k]`` known: returns (equity now, equity with the actual next
    ``m`` cards ``board[k:k+m]`` when ``actual_known``, expected baseline value of the next
    round (``RoundBets`` ``bets``) over those m cards (when ``want_base``)). ``q`` cards
    complete the board after them."""
    h = hole.shape[1]
    known = np.uint64(0)
    key0 = KEY_INIT
    key1 = KEY_INIT
    bits0 = 0
    bits1 = 0
    for a in range(h):
        known |= np.uint64(1) << np.uint64(hole[0, a])
        known |= np.uint64(1) << np.uint64(hole[1, a])
        key0 += CARD_KEY[hole[0, a]]
        key1 += CARD_KEY[hole[1, a]]
        bits0 |= CARD_BIT[hole[0, a]]
        bits1 |= CARD_BIT[hole[1, a]]
    for j in range(k):
        c = board[j]
        known |= np.uint64(1) << np.uint64(c)
        key0 += CARD_KEY[c]
        key1 += CARD_KEY[c]
        bits0 |= CARD_BIT[c]
        bits1 |= CARD_BIT[c]
    actual = np.uint64(0)
    if actual_known:
        for j in range(k, k + m):
            actual |= np.uint64(1) << np.uint64(board[j])
    avail = np.empty(deck.shape[0], dtype=np.int64)
    na = 0
    for c in deck:
        if not (known >> np.uint64(c)) & np.uint64(1):
            avail[na] = c
            na += 1
    ncard = h + k + m + q
    total = 0.0
    groups = 0
    eq_actual = -1.0
    base = 0.0
    if m == 1 and q == 1:
        # One card then one more (hold'em's turn): each unordered pair of cards is the same
        # board either way round, so both hands are ranked once per pair, not twice.
        win = np.zeros((na, na), dtype=np.int8)  # 2 win, 1 tie, 0 loss for position 0
        for a in range(na):
            ca = avail[a]
            for b in range(a + 1, na):
                cb2 = avail[b]
                dk = CARD_KEY[ca] + CARD_KEY[cb2]
                db = CARD_BIT[ca] | CARD_BIT[cb2]
                r0 = _rank_key(key0 + dk, bits0 | db, ncard, hole[0, 0])
                r1 = _rank_key(key1 + dk, bits1 | db, ncard, hole[1, 0])
                w = 2 if r0 > r1 else (1 if r0 == r1 else 0)
                win[a, b] = w
                win[b, a] = w
        for a in range(na):
            w2 = 0
            for b in range(na):
                w2 += win[a, b]
            e = w2 / (2.0 * (na - 1))
            total += e
            groups += 1
            if actual_known and (np.uint64(1) << np.uint64(avail[a])) == actual:
                eq_actual = e
            if want_base:
                base += baseline_value(bets.s0, bets.s1, e, bets.first, bets.raise_size, bets.max_raises,
                                       thresholds)
        return total / groups, eq_actual, base / groups
    idx = np.arange(m)
    rest = np.empty(na, dtype=np.int64)
    jdx = np.arange(q)
    while True:
        cmask = np.uint64(0)
        ck = 0
        cb = 0
        for j in range(m):
            c = avail[idx[j]]
            cmask |= np.uint64(1) << np.uint64(c)
            ck += CARD_KEY[c]
            cb |= CARD_BIT[c]
        nr = 0
        for j in range(na):
            if not (cmask >> np.uint64(avail[j])) & np.uint64(1):
                rest[nr] = avail[j]
                nr += 1
        w2 = 0
        cnt = 0
        if q == 0:
            r0 = _rank_key(key0 + ck, bits0 | cb, ncard, hole[0, 0])
            r1 = _rank_key(key1 + ck, bits1 | cb, ncard, hole[1, 0])
            w2 = 2 if r0 > r1 else (1 if r0 == r1 else 0)
            cnt = 1
        else:
            for j in range(q):
                jdx[j] = j
            while True:
                dk = ck
                db = cb
                for j in range(q):
                    c = rest[jdx[j]]
                    dk += CARD_KEY[c]
                    db |= CARD_BIT[c]
                r0 = _rank_key(key0 + dk, bits0 | db, ncard, hole[0, 0])
                r1 = _rank_key(key1 + dk, bits1 | db, ncard, hole[1, 0])
                if r0 > r1:
                    w2 += 2
                elif r0 == r1:
                    w2 += 1
                cnt += 1
                if not next_combo(jdx, q, nr):
                    break
        e = w2 / (2.0 * cnt)
        total += e
        groups += 1
        if actual_known and cmask == actual:
            eq_actual = e
        if want_base:
            base += baseline_value(bets.s0, bets.s1, e, bets.first, bets.raise_size, bets.max_raises,
                                       thresholds)
        if m == 0 or not next_combo(idx, m, na):
            break
    return total / groups, eq_actual, base / groups


@njit(cache=NUMBA_CACHE, inline="always")
def no_bets():
    """The ``RoundBets`` ``_enum_round`` takes when no baseline value is asked for."""
    z = np.int64(0)
    return RoundBets(z, z, z, z, z)


@njit(cache=NUMBA_CACHE, inline="always")
def board_starts(num_board):
    """int64[R + 1]: the board cards known before each round, all of them at index R."""
    nr = num_board.shape[0]
    starts = np.zeros(nr + 1, dtype=np.int64)
    for r in range(nr):
        starts[r + 1] = starts[r] + num_board[r]
    return starts


@njit(cache=NUMBA_CACHE, inline="always")
def round_equities(hole, deal):
    """float64[R]: position 0's all-in equity at each round, round 0's from the preflop table
    (``DealTables`` ``deal``), the later ones 0 until the caller enumerates them."""
    h = hole.shape[1]
    eqs = np.zeros(deal.num_board.shape[0], dtype=np.float64)
    eqs[0] = deal.eq0[deal.hold_id[hole[0, 0], hole[0, h - 1]], deal.hold_id[hole[1, 0], hole[1, h - 1]]]
    return eqs


@njit(cache=NUMBA_CACHE, parallel=True)
def divat_hands(holes, boards, path, paths, deal, base):
    """Money, showdown DIVAT and DIVAT of position 0 for each hand (float64[n, 3]).

    ``holes`` int64[n, 2, h]; ``boards`` int64[n, B] (the board of the rounds reached, the
    rest ignored); ``path[i]`` the betting's row in ``paths`` (``BettingPaths``); ``deal``
    ``DealTables``, ``base`` ``Baseline`` (module docstring). Where ``base.enum_ok[r]`` is
    False round r's baseline checks through and round r - 1's equity comes from the preflop
    table (r = 1 only).
    """
    deck, num_board = deal.deck, deal.num_board
    p_rounds, p_folder, p_spent = paths.rounds, paths.folder, paths.spent
    first, raise_size, max_raises = base.first, base.raise_size, base.max_raises
    enum_ok, thresholds, k_allin, k_base = base.enum_ok, base.thresholds, base.k_allin, base.k_base
    n = holes.shape[0]
    nr = num_board.shape[0]
    out = np.empty((n, 3), dtype=np.float64)
    starts = board_starts(num_board)
    btot = starts[nr]
    for i in prange(n):
        hole = holes[i]
        board = boards[i]
        pi = path[i]
        rr = p_rounds[pi]
        eqs = round_equities(hole, deal)
        s0 = p_spent[pi, 0, 0]
        s1 = p_spent[pi, 0, 1]
        sd = -(allin_value(s0, s1, eqs[0]) - k_allin)
        dv = -(baseline_value(s0, s1, eqs[0], first[0], raise_size[0], max_raises[0], thresholds) - k_base)
        ebase = np.zeros(nr, dtype=np.float64)
        yes, no = np.bool_(True), np.bool_(False)  # not literals: one compiled _enum_round
        for r in range(1, rr + 1):
            k = starts[r]  # board cards known before round r
            m = num_board[r]
            q = btot - k - m
            if enum_ok[r]:
                bets = RoundBets(p_spent[pi, r, 0], p_spent[pi, r, 1], first[r], raise_size[r], max_raises[r])
                e_prev, e_now, eb = _enum_round(hole, board, k, m, q, deck, bets, thresholds, yes, yes)
                eqs[r] = e_now
                ebase[r] = eb
                if r >= 2 and not enum_ok[r - 1]:
                    eqs[r - 1] = e_prev
            elif not (r + 1 <= rr and enum_ok[r + 1]):
                eqs[r] = _enum_round(hole, board, k + m, np.int64(0), q, deck, no_bets(), thresholds, no, no)[0]
        for r in range(1, rr + 1):
            s0 = p_spent[pi, r, 0]
            s1 = p_spent[pi, r, 1]
            d = allin_value(s0, s1, eqs[r]) - allin_value(s0, s1, eqs[r - 1])
            sd -= d
            if enum_ok[r]:
                dv -= baseline_value(s0, s1, eqs[r], first[r], raise_size[r], max_raises[r], thresholds) - ebase[r]
            else:
                dv -= d
        f0 = p_spent[pi, nr, 0]
        f1 = p_spent[pi, nr, 1]
        fd = p_folder[pi]
        if fd == 0:
            money = -f0 * 1.0
        elif fd == 1:
            money = f1 * 1.0
        else:
            money = allin_value(f0, f1, eqs[nr - 1])
        out[i, 0] = money
        out[i, 1] = money + sd
        out[i, 2] = money + dv
    return out


@njit(cache=NUMBA_CACHE)
def root_baseline_mean(eq0, hmask, s0, s1, first, raise_size, max_raises, thresholds):
    """Mean over every deal (ordered pair of disjoint holdings) of the preflop baseline value."""
    nh = eq0.shape[0]
    tot = 0.0
    cnt = 0
    for i in range(nh):
        for j in range(nh):
            if i == j or hmask[i] & hmask[j]:
                continue
            tot += baseline_value(s0, s1, eq0[i, j], first, raise_size, max_raises, thresholds)
            cnt += 1
    return tot / cnt
