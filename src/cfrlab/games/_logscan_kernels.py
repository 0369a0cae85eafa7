"""The compiled scan of ACPC hand logs (``cfrlab.games.logscan`` wraps it): ``scan`` splits
every ``STATE`` line of a log's bytes and reads its cards, in one pass. Arrays come in two
named groups (namedtuples, numba's typed tuples): ``CardFormat`` (``table`` int64[65536] the
card id of each two-letter text, ``h`` hole cards, ``bcum`` int64[R] the board cards shown
through each round, ``deck_ids`` int64[n] the deck in order) and ``ScanOut`` (``cards``,
``pos``, ``line``, ``rounds``, ``spans`` int64[., 6], ``bad``, ``scores``)."""

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE

STATE = np.frombuffer(b"STATE:", dtype=np.uint8)
SCORE = np.frombuffer(b"SCORE:", dtype=np.uint8)


@njit(cache=NUMBA_CACHE)
def _starts(buf, s, end, pat):
    if end - s < pat.shape[0]:
        return False
    for i in range(pat.shape[0]):
        if buf[s + i] != pat[i]:
            return False
    return True


@njit(cache=NUMBA_CACHE)
def _cards(buf, c0, c1, fmt, row, used):
    """Read a cards field into ``row`` (``CardFormat`` ``fmt``); the later rounds it shows, or
    -1 if malformed."""
    table, h, bcum, deck_ids = fmt.table, fmt.h, fmt.bcum, fmt.deck_ids
    full = row.shape[0]
    for u in range(used.shape[0]):
        used[u] = False
    slot = 0
    seg = 0  # 0: first hole, 1: second hole (and round 0's board), 2: later rounds' boards
    rounds = 0
    i = c0
    while i <= c1:
        ch = buf[i] if i < c1 else 47  # the end closes the last segment like a '/'
        if ch == 124:  # '|'
            if seg != 0 or slot != h:
                return -1
            seg = 1
            i += 1
            continue
        if ch == 47:  # '/'
            if seg == 0 or slot != 2 * h + bcum[rounds]:
                return -1
            if i < c1:
                seg = 2
                rounds += 1
                if rounds >= bcum.shape[0]:
                    return -1
            i += 1
            continue
        if i + 1 >= c1 or slot >= full:
            return -1
        c = table[np.int64(ch) * 256 + np.int64(buf[i + 1])]
        if c < 0 or used[c]:
            return -1
        used[c] = True
        row[slot] = c
        slot += 1
        i += 2
    j = 0
    while slot < full:
        while used[deck_ids[j]]:
            j += 1
        row[slot] = deck_ids[j]
        used[deck_ids[j]] = True
        slot += 1
    return rounds


@njit(cache=NUMBA_CACHE)
def scan(buf, name, fmt, out, max_hand):
    """Fill ``out`` (``ScanOut``) from the log's bytes ``buf`` and the player's name's; a hand
    number past ``max_hand`` makes a bad line; returns (STATE lines read, bad lines, SCORE lines)."""
    cards, pos, line, rounds, spans, bad, scores = out
    n = buf.shape[0]
    found = 0
    nbad = 0
    nscore = 0
    lineno = 0
    s = 0
    used = np.zeros(max(64, fmt.deck_ids.max() + 1), dtype=np.bool_)
    cols = np.empty(4, dtype=np.int64)
    while s < n:
        e = s
        while e < n and buf[e] != 10:
            e += 1
        lineno += 1
        end = e
        if end > s and buf[end - 1] == 13:
            end -= 1
        nxt = e + 1
        blank = True
        for i in range(s, end):
            if buf[i] != 32 and buf[i] != 9:
                blank = False
                break
        if blank or buf[s] == 35 or buf[s] == 59:  # blank, '#', ';'
            s = nxt
            continue
        if _starts(buf, s, end, SCORE):
            scores[nscore] = lineno
            nscore += 1
            s = nxt
            continue
        ok = _starts(buf, s, end, STATE)
        # the four colons after "STATE:" (hand:betting:cards:values:names)
        k = 0
        if ok:
            for i in range(s + 6, end):
                if buf[i] == 58:
                    if k == 4:
                        k = 5
                        break
                    cols[k] = i
                    k += 1
        ok = ok and k == 4 and cols[0] > s + 6
        if ok:  # the hand number: ASCII digits, at most max_hand (else the full parser says so)
            v = 0
            for i in range(s + 6, cols[0]):
                if buf[i] < 48 or buf[i] > 57:
                    ok = False
                    break
                v = v * 10 + (np.int64(buf[i]) - 48)
                if v > max_hand:
                    ok = False
                    break
        p = -1
        if ok:  # names: two, and which one is the player
            q = 0
            a = cols[3] + 1
            while True:
                b = a
                while b < end and buf[b] != 124:
                    b += 1
                if b - a == name.shape[0]:
                    same = True
                    for i in range(b - a):
                        if buf[a + i] != name[i]:
                            same = False
                            break
                    if same:
                        p = q
                q += 1
                if b >= end:
                    break
                a = b + 1
            ok = q == 2
        if ok:
            r = _cards(buf, cols[1] + 1, cols[2], fmt, cards[found], used)
            ok = r >= 0
        if not ok:
            bad[nbad] = lineno
            nbad += 1
            s = nxt
            continue
        pos[found] = p
        line[found] = lineno
        rounds[found] = r
        spans[found, 0] = cols[0] + 1
        spans[found, 1] = cols[1]
        spans[found, 2] = cols[2] + 1
        spans[found, 3] = cols[3]
        spans[found, 4] = cols[3] + 1
        spans[found, 5] = end
        found += 1
        s = nxt
    return found, nbad, nscore
