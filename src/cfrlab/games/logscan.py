"""A fast scan of an ACPC log's ``STATE`` lines for one player (numba over the file's bytes).

``STATE:<hand>:<betting>:<holes>/<board>...:<values>:<names>`` lines are split, the named
player's position found, and the cards turned into ids in one compiled pass; the readers of
opponent models and of DIVAT then only look each betting string up in a dict. Lines the scan
cannot take (malformed, an unknown card, a repeated card) are listed in ``bad`` so that the
caller hands them to the full parser, whose message names the file and the line; the scan
itself never decides that a line is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from cfrlab.cards.cards import card_text
from cfrlab.config import NUMBA_CACHE
from cfrlab.errors import CfrlabError

# line kinds
_SKIP, _STATE, _BAD = 0, 1, 2


@dataclass
class LogScan:
    """The player's hands in file order: ``cards`` int64[n, 2h + board] (holes by position,
    then the board, rounds not reached padded with the first unused cards of ``deck``),
    ``position`` int64[n], ``line`` int64[n] (1-based), ``bettings`` the betting strings,
    ``values`` the values fields;
    ``bad`` the 1-based numbers of lines to hand to the full parser (sorted)."""

    cards: np.ndarray
    position: np.ndarray
    line: np.ndarray
    bettings: list[str]
    values: list[bytes]  # the values field as it stands ("-2|2"), parsed by who needs it
    bad: np.ndarray
    other_names: set[str]
    data: bytes

    def raw(self, lineno: int) -> bytes:
        """Line ``lineno`` (1-based) as bytes, without its line end."""
        start = 0
        for _ in range(lineno - 1):
            start = self.data.index(b"\n", start) + 1
        end = self.data.find(b"\n", start)
        return self.data[start:end if end >= 0 else len(self.data)]


def card_table(deck) -> np.ndarray:
    """int64[65536]: the id of each two-letter card text of ``deck`` (ASCII), -1 elsewhere."""
    table = np.full(65536, -1, dtype=np.int64)
    for c in deck:
        t = card_text(int(c))
        if len(t) == 2:
            for a in {t[0], t[0].lower(), t[0].upper()}:
                table[ord(a) * 256 + ord(t[1])] = int(c)
    return table


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
def _scan(buf, name, table, h, nb, deck, cards, pos, line, bet, bad, names_at):
    """Fill the outputs; returns (hands found, bad lines, lines of other players' names)."""
    n = buf.shape[0]
    full = 2 * h + nb
    found = 0
    nbad = 0
    nother = 0
    lineno = 0
    s = 0
    used = np.zeros(64, dtype=np.bool_)
    while s < n:
        e = s
        while e < n and buf[e] != 10:
            e += 1
        lineno += 1
        end = e
        if end > s and buf[end - 1] == 13:
            end -= 1
        nxt = e + 1
        kind = _BAD
        # blank, comment or score lines are skipped
        blank = True
        for i in range(s, end):
            if buf[i] != 32 and buf[i] != 9:
                blank = False
                break
        if blank or buf[s] == 35 or buf[s] == 59 or _starts(buf, s, end, SCORE):  # '#', ';'
            kind = _SKIP
        elif _starts(buf, s, end, STATE):
            kind = _STATE
        if kind == _SKIP:
            s = nxt
            continue
        if kind == _BAD:
            bad[nbad] = lineno
            nbad += 1
            s = nxt
            continue
        # the four colons after "STATE:" (hand:betting:cards:values:names)
        cols = np.empty(4, dtype=np.int64)
        k = 0
        for i in range(s + 6, end):
            if buf[i] == 58:
                if k == 4:
                    k = 5
                    break
                cols[k] = i
                k += 1
        if k != 4:
            bad[nbad] = lineno
            nbad += 1
            s = nxt
            continue
        # names: which position is the player
        p = -1
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
        if p < 0:
            names_at[nother] = lineno
            nother += 1
            s = nxt
            continue
        # cards: holes "xx..|yy..", then "/board" per round
        ok = q == 2
        c0 = cols[1] + 1
        c1 = cols[2]
        slot = 0
        i = c0
        seg = 0  # 0: first hole, 1: second hole, 2: board
        count = 0
        for u in range(64):
            used[u] = False
        while ok and i < c1:
            ch = buf[i]
            if ch == 124:  # '|'
                if seg != 0 or count != 2 * h:
                    ok = False
                seg = 1
                count = 0
                i += 1
                continue
            if ch == 47:  # '/'
                if seg == 0 or (seg == 1 and count != 2 * h):
                    ok = False
                seg = 2
                i += 1
                continue
            if i + 1 >= c1 or slot >= full:
                ok = False
                break
            c = table[np.int64(ch) * 256 + np.int64(buf[i + 1])]
            if c < 0 or used[c]:
                ok = False
                break
            used[c] = True
            cards[found, slot] = c
            slot += 1
            count += 2
            i += 2
        if ok and (seg == 0 or (seg == 1 and count != 2 * h) or slot < 2 * h):
            ok = False
        if not ok:
            bad[nbad] = lineno
            nbad += 1
            s = nxt
            continue
        j = 0
        while slot < full:
            while used[deck[j]]:
                j += 1
            cards[found, slot] = deck[j]
            used[deck[j]] = True
            slot += 1
        pos[found] = p
        line[found] = lineno
        bet[found, 0] = cols[0] + 1
        bet[found, 1] = cols[1]
        bet[found, 2] = cols[2] + 1
        bet[found, 3] = cols[3]
        found += 1
        s = nxt
    return found, nbad, nother


def scan_log(path: Path, player: str, num_hole_cards: int, board_cards: int, deck) -> LogScan:
    """Scan ``path`` for ``player``'s hands of a 2-player game (``LogScan``)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise CfrlabError(f"{path}: cannot read the log ({e.strerror or e})") from None
    buf = np.frombuffer(data, dtype=np.uint8)
    lines = int(np.count_nonzero(buf == 10)) + 1
    full = 2 * num_hole_cards + board_cards
    deck_arr = np.asarray(sorted(int(c) for c in deck), dtype=np.int64)
    cards = np.empty((lines, full), dtype=np.int64)
    pos = np.empty(lines, dtype=np.int64)
    line = np.empty(lines, dtype=np.int64)
    bet = np.empty((lines, 4), dtype=np.int64)
    bad = np.empty(lines, dtype=np.int64)
    names_at = np.empty(lines, dtype=np.int64)
    name = np.frombuffer(player.encode("utf-8"), dtype=np.uint8)
    found, nbad, nother = _scan(buf, name, card_table(deck_arr), num_hole_cards, board_cards, deck_arr,
                                cards, pos, line, bet, bad, names_at)
    spans = bet[:found].tolist()
    bettings = [data[a:b].decode("ascii", errors="replace") for a, b, _c, _d in spans]
    values = [data[c:d] for _a, _b, c, d in spans]
    other: set[str] = set()
    if found == 0 and nother:  # only needed to say who is in the log
        text = data.split(b"\n")
        for k in names_at[:min(nother, 1000)].tolist():
            other.update(text[k - 1].decode("utf-8", errors="replace").rstrip("\r").rsplit(":", 1)[-1].split("|"))
    return LogScan(cards[:found], pos[:found], line[:found], bettings, values, bad[:nbad].copy(), other, data)
