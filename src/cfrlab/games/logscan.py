"""The one reader of ACPC hand logs (``STATE`` lines) for every consumer: a fast scan, then the
rules engine's checks.

Every reader of a log (``cfrlab log``, opponent models, DIVAT, AIVAT) accepts the same lines:
those ``parse_log_line`` reads whose values are the payoffs of their cards and betting
(``check_log_line``). A file is opened only when it is a regular file (a FIFO or a device
would block or never end), and a line longer than ``MAX_LINE`` bytes is refused without being
read whole.

``read_hands`` is the fast way for a 2-player game: ``STATE:<hand>:<betting>:<holes>/<board>...
:<values>:<names>`` lines are split and their cards turned into ids in one compiled pass
(``scan_bytes``: numba over the file's bytes, in ``_logscan_kernels``); each distinct betting string is then replayed
once with the rules engine (legal, written as ACPC writes it, finished, rounds matching the
board cards shown), each distinct values field parsed once and checked against the betting's
payoffs, and showdowns against the hand ranks. Lines the scan cannot take go to the full
parser, which reads them or says what is wrong. Any refusal names the file and the line.

The scan kernel takes its arrays in two named groups (namedtuples, numba's typed tuples):
``CardFormat`` how a game's cards are read (``table`` int64[65536] the card id of each
two-letter text, ``h`` hole cards, ``bcum`` int64[R] the board cards shown through each
round, ``deck_ids`` int64[n] the deck in order, for padding) and ``ScanOut`` what it fills, one
row per ``STATE`` line read (``cards``, ``pos``, ``line``, ``rounds``, ``spans`` int64[., 6]
the byte ranges of the betting, values and names fields) or per other line (``bad``,
``scores``: line numbers).
"""

from __future__ import annotations

import importlib
import math
import os
import stat
from collections import namedtuple
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from cfrlab.cards.cards import card_text, deck
from cfrlab.errors import CfrlabError, ParseError
from cfrlab.games._logscan_kernels import scan
from cfrlab.games.gamedef import GameDef
from cfrlab.games.matchstate import MAX_HAND_NUMBER, LogLine, _replay, parse_log_line
from cfrlab.games.state import _hand_strength, format_value

MAX_LINE = 1 << 20  # bytes in one log line (a no-limit hand is a few hundred)
_CHUNK = 1 << 22

_NOT_REGULAR = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISDIR, "a directory"))


# -- files ------------------------------------------------------------------------------------
def open_log(path: str | Path) -> BinaryIO:
    """``path`` opened for binary reading, refused (one line) unless it is a regular file.

    Opened without blocking and checked on the open descriptor: a FIFO nobody writes to
    would otherwise wait forever, and ``/dev/zero`` never end."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise CfrlabError(f"{path}: cannot read the log ({e.strerror or e})") from None
    try:
        mode = os.fstat(fd).st_mode
        for test, name in _NOT_REGULAR:
            if test(mode):
                raise CfrlabError(f"{path}: cannot read the log (it is {name}, not a regular file)")
        return os.fdopen(fd, "rb")  # O_NONBLOCK does not change reads of a regular file
    except BaseException:
        os.close(fd)
        raise


def _too_long(path, lineno: int) -> CfrlabError:
    return ParseError(f"{path}:{lineno}: a line longer than {MAX_LINE:,} bytes (not an ACPC log?)")


def log_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes without the line end) of each line of a log; a line longer than
    ``MAX_LINE`` is refused after reading ``MAX_LINE`` bytes of it."""
    with open_log(path) as f:
        lineno = 0
        while True:
            raw = f.readline(MAX_LINE + 1)
            if not raw:
                return
            lineno += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                raise _too_long(path, lineno)
            yield lineno, raw.rstrip(b"\n").rstrip(b"\r")


def read_log_bytes(path: str | Path) -> bytes:
    """The whole log as bytes, read in chunks: a line longer than ``MAX_LINE`` is refused
    once that many bytes of it are read; a file that is not UTF-8 text is refused."""
    parts: list[bytes] = []
    run = 0  # bytes since the last newline
    with open_log(path) as f:
        while chunk := f.read(_CHUNK):
            parts.append(chunk)
            first, last = chunk.find(b"\n"), chunk.rfind(b"\n")
            if first < 0:
                run += len(chunk)
            elif run + first > MAX_LINE or _longest(chunk) > MAX_LINE:
                run = MAX_LINE + 1
            else:
                run = len(chunk) - last - 1
            if run > MAX_LINE:
                raise _too_long(path, _first_long_line(b"".join(parts)))
    data = b"".join(parts)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        lineno = data.count(b"\n", 0, e.start) + 1
        raise ParseError(f"{path}:{lineno}: not text (an ACPC log is UTF-8/ASCII lines)") from None
    return data


def _line_spans(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    return np.concatenate([[0], ends + 1]), np.concatenate([ends, [len(data)]])


def _longest(chunk: bytes) -> int:
    """Longest line that starts and ends inside ``chunk``."""
    starts, stops = _line_spans(chunk)
    return int((stops - starts)[1:-1].max(initial=0))


def _first_long_line(data: bytes) -> int:
    """The number of the first line longer than ``MAX_LINE`` in ``data``."""
    starts, stops = _line_spans(data)
    return int(np.flatnonzero(stops - starts > MAX_LINE)[0]) + 1


def header_game(path: str | Path, max_lines: int = 20) -> str | None:
    """The game name a log's ``# name/game/hands/seed`` comment gives (cfrlab's logs write it;
    the dealer's do not), or None."""
    for lineno, raw in log_lines(path):
        line = raw.decode("utf-8", errors="replace")
        if line.startswith("# name/game/hands/seed"):
            parts = line.split()
            return parts[3] if len(parts) >= 4 else None
        if lineno >= max_lines:
            break
    return None


def log_hint(path, game: GameDef, seen_hand: bool) -> str:
    """Why a refused line may be there: the log's header names another game, or no hand read."""
    try:
        named = header_game(path)
    except CfrlabError:
        named = None
    if named and game.name and named != "".join("_" if c in "|:" or c.isspace() else c for c in game.name):
        return f" (the log's header names {named}, not {game.name})"
    return "" if seen_hand else f" (is this a log of {game.name or 'this game'}?)"


# -- one line, the full parser ------------------------------------------------------------------
def check_log_line(game: GameDef, line: str) -> LogLine:
    """``parse_log_line`` and the values check: a line's values must be the payoffs its cards
    and betting give. ParseError (without a location) otherwise."""
    rec = parse_log_line(game, line)
    try:
        expected = rec.state().payoffs()
    except CfrlabError as e:
        raise ParseError(str(e)) from None
    if not all(abs(a - b) <= 1e-6 for a, b in zip(expected, rec.values)):
        shown = "|".join(format_value(v) for v in rec.values)
        want = "|".join(format_value(v) for v in expected)
        raise ParseError(f"values {shown} do not match the hand's cards and betting (expected {want})")
    return rec


def parse_score_line(line: str) -> tuple[list[float], list[str]]:
    """``SCORE:<totals>:<names>`` as (totals, names); ParseError (without a location)."""
    parts = line.rstrip("\r\n").split(":")
    if len(parts) != 3:
        raise ParseError(f"a SCORE line is 'SCORE:<totals>:<names>', got {line.strip()[:120]!r}")
    try:
        totals = [float(v) for v in parts[1].split("|")]
    except ValueError:
        totals = []
    if not totals or not all(math.isfinite(t) for t in totals):
        raise ParseError(f"bad totals in {line.strip()[:120]!r}")
    names = parts[2].split("|")
    if len(names) != len(totals):
        raise ParseError(f"{len(totals)} totals but {len(names)} names in the SCORE line")
    return totals, names


# -- the compiled scan ----------------------------------------------------------------------
@dataclass
class LogScan:
    """Every ``STATE`` line the scan could split, in file order: ``cards`` int64[n, 2h + board]
    (holes by position, then the board; rounds not reached padded with the first unused cards
    of the deck), ``position`` int64[n] (the player's, -1 when not in the line), ``line``
    int64[n] (1-based), ``rounds`` int64[n] (later rounds whose cards the line shows),
    ``bettings``, ``values`` and ``names`` the fields as they stand; ``bad`` the 1-based
    numbers of other lines that are not blank, comments or ``SCORE`` lines (sorted),
    ``scores`` those of ``SCORE`` lines. The scan checks the layout only, not the rules."""

    cards: np.ndarray
    position: np.ndarray
    line: np.ndarray
    rounds: np.ndarray
    bettings: list[str]
    values: list[bytes]
    names: list[bytes]
    bad: np.ndarray
    scores: np.ndarray
    data: bytes
    _spans: tuple | None = None

    def raw(self, lineno: int) -> bytes:
        """Line ``lineno`` (1-based) as bytes, without its line end."""
        if self._spans is None:
            self._spans = _line_spans(self.data)
        starts, stops = self._spans
        return self.data[int(starts[lineno - 1]):int(stops[lineno - 1])].rstrip(b"\r")


def card_table(deck_ids) -> np.ndarray:
    """int64[65536]: the id of each two-letter card text of ``deck_ids`` (ASCII, rank and suit
    in either case, as the full parser reads them), -1 elsewhere."""
    table = np.full(65536, -1, dtype=np.int64)
    for c in deck_ids:
        t = card_text(int(c))
        if len(t) == 2:
            for a in {t[0].lower(), t[0].upper()}:
                for b in {t[1].lower(), t[1].upper()}:
                    table[ord(a) * 256 + ord(b)] = int(c)
    return table


CardFormat = namedtuple("CardFormat", "table h bcum deck_ids")
ScanOut = namedtuple("ScanOut", "cards pos line rounds spans bad scores")

def scan_bytes(data: bytes, game: GameDef, player: str) -> LogScan:
    """The compiled scan of a 2-player game's log (``LogScan``; no rules checked)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    lines = int(np.count_nonzero(buf == 10)) + 1
    h = game.num_hole_cards
    full = 2 * h + game.total_board_cards()
    deck_ids = np.asarray(sorted(deck(game.num_ranks, game.num_suits)), dtype=np.int64)
    bcum = np.cumsum(np.asarray(game.num_board_cards[:game.num_rounds], dtype=np.int64))

    def rows(*width):  # one row a line at most
        return np.empty((lines, *width), dtype=np.int64)

    out = ScanOut(cards=rows(full), pos=rows(), line=rows(), rounds=rows(), spans=rows(6), bad=rows(), scores=rows())
    name = np.frombuffer(player.encode("utf-8"), dtype=np.uint8)
    found, nbad, nscore = scan(buf, name, CardFormat(card_table(deck_ids), h, bcum, deck_ids), out, MAX_HAND_NUMBER)
    cards, pos, line, rounds, spans, bad, scores = out
    col = [spans[:found, j].tolist() for j in range(6)]  # plain ints by column (fast slicing)
    bettings = [data[a:b].decode("ascii", errors="replace") for a, b in zip(col[0], col[1])]
    values = [data[a:b] for a, b in zip(col[2], col[3])]
    names = [data[a:b] for a, b in zip(col[4], col[5])]
    return LogScan(cards[:found], pos[:found], line[:found], rounds[:found], bettings, values, names,
                   bad[:nbad].copy(), scores[:nscore].copy(), data)


# -- the validating reader ------------------------------------------------------------------
@dataclass
class LogHands:
    """One player's hands of a checked log, in file order: ``cards`` int64[n, 2h + board]
    (holes by position, then the board, rounds not reached padded with unused cards),
    ``position`` int64[n], ``line`` int64[n] (1-based), ``bettings`` the ACPC betting strings,
    ``values`` float64[n, 2] (chips by position); ``other_names`` the names of the log's
    players when the player is in none of its hands."""

    cards: np.ndarray
    position: np.ndarray
    line: np.ndarray
    bettings: list[str]
    values: np.ndarray
    other_names: set[str]

    def __len__(self) -> int:
        return len(self.line)


@dataclass
class _Betting:
    """What the rules engine says of one betting string: its last round, and its payoffs
    (a fold's exactly; at a showdown, what the winner gets)."""

    round: int
    fold: tuple[float, float] | None
    stake: float


def _betting_facts(game: GameDef, betting: str) -> _Betting | None:
    try:
        state = _replay(game, betting, 0, betting)
    except CfrlabError:
        return None
    if not state.is_terminal():
        return None
    if state.is_showdown():
        return _Betting(state.round, None, float(min(state.spent)))
    a, b = state.payoffs()
    return _Betting(state.round, (a, b), 0.0)


def _values_of(field: bytes) -> tuple[float, float] | None:
    try:
        v = [float(x) for x in field.decode("ascii").split("|")]
    except (UnicodeDecodeError, ValueError):
        return None
    return (v[0], v[1]) if len(v) == 2 and all(math.isfinite(x) for x in v) else None


def _outcome(facts: _Betting | None, values) -> int | None:
    """How the values fit the betting: 2 a fold's payoffs, 1 / -1 / 0 position 0 winning,
    losing or splitting a showdown; None when they cannot be its payoffs."""
    if facts is None or values is None:
        return None
    a, b = values
    if facts.fold is not None:
        return 2 if abs(a - facts.fold[0]) <= 1e-6 and abs(b - facts.fold[1]) <= 1e-6 else None
    m = facts.stake
    for o, (x, y) in ((1, (m, -m)), (-1, (-m, m)), (0, (0.0, 0.0))):
        if abs(a - x) <= 1e-6 and abs(b - y) <= 1e-6:
            return o
    return None


def _strengths(hands: np.ndarray) -> np.ndarray | None:
    """Hand ranks (int64) of the rows of ``hands`` as the rules engine ranks them (batched), or
    None when the engine cannot rank them (then the full parser says why)."""
    try:
        if hands.shape[1] == 1:
            return hands[:, 0] >> 2
        if hands.shape[1] >= 5:
            evaluator = importlib.import_module("cfrlab.cards.evaluator")  # its tables load for 5+ cards only
            return evaluator.rank_batch(hands).astype(np.int64)
        rows = np.sort(hands, axis=1)
        base = int(rows.max(initial=0)) + 1  # each distinct hand ranked once, found by a key
        key = rows @ (base ** np.arange(rows.shape[1], dtype=np.int64))
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        ranks = np.array([_hand_strength(row) for row in rows[first].tolist()], dtype=np.int64)
    except (CfrlabError, ValueError):
        return None
    return ranks[inv.reshape(-1)]


def _invalid_rows(game: GameDef, sc: LogScan, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bool mask of the ``rows`` of ``sc`` the rules refuse, float64[len(rows), 2] values)."""
    if not rows.size:
        return np.zeros(0, dtype=bool), np.zeros((0, 2))
    ids: dict[str, int] = {}
    vids: dict[bytes, int] = {}
    every = len(rows) == len(sc.line)
    bettings = sc.bettings if every else [sc.bettings[k] for k in rows.tolist()]
    values = sc.values if every else [sc.values[k] for k in rows.tolist()]
    bi = np.array([ids.setdefault(b, len(ids)) for b in bettings], dtype=np.int64)
    vi = np.array([vids.setdefault(v, len(vids)) for v in values], dtype=np.int64)
    facts = [_betting_facts(game, b) for b in ids]
    vals = [_values_of(v) for v in vids]
    vtab = np.array([v if v is not None else (np.nan, np.nan) for v in vals], dtype=np.float64).reshape(-1, 2)
    # each distinct (betting, values) pair once: 2 a fold, 1 / -1 / 0 a showdown, 9 refused
    pair, pinv = np.unique(bi * len(vids) + vi, return_inverse=True)
    outcome = [_outcome(facts[p // len(vids)], vals[p % len(vids)]) for p in pair.tolist()]
    code = np.array([9 if o is None else o for o in outcome], dtype=np.int64)[pinv.reshape(-1)]
    last = np.array([-1 if f is None else f.round for f in facts], dtype=np.int64)[bi]
    bad = (code == 9) | (sc.rounds[rows] != last)
    h = game.num_hole_cards
    for rnd in np.unique(last[~bad & (np.abs(code) <= 1)]).tolist():
        at = np.flatnonzero(~bad & (np.abs(code) <= 1) & (last == rnd))
        r = rows[at]
        board = sc.cards[r, 2 * h:2 * h + game.total_board_cards(rnd)]
        s0 = _strengths(np.concatenate([sc.cards[r, :h], board], axis=1))
        s1 = _strengths(np.concatenate([sc.cards[r, h:2 * h], board], axis=1))
        bad[at] = True if s0 is None or s1 is None else np.sign(s0 - s1) != code[at]
    return bad, vtab[vi]


def _slow_row(game: GameDef, rec: LogLine, player: str, full: int) -> tuple:
    """A line only the full parser reads, as a row of the scan's arrays."""
    cards = [c for h in rec.hole for c in h] + [c for b in rec.board for c in b]
    used = set(cards)
    cards += [c for c in sorted(deck(game.num_ranks, game.num_suits)) if c not in used][:full - len(cards)]
    pos = max((i for i, n in enumerate(rec.names) if n == player), default=-1)
    return cards, pos, rec.betting_string(), list(rec.values), "|".join(rec.names).encode()


def _fail(path, game: GameDef, raw: bytes, lineno: int, seen_hand: bool) -> ParseError:
    text = raw.decode("utf-8", errors="replace")
    try:
        check_log_line(game, text)
        why = "cannot read this line"
    except CfrlabError as e:
        why = str(e)
    return ParseError(f"{path}:{lineno}: {why}{log_hint(path, game, seen_hand)}")


def read_hands(path: str | Path, game: GameDef, player: str, limit: int | None = None) -> LogHands:
    """``player``'s hands in the log at ``path`` of a 2-player ``game``, every line checked
    (module docstring); with ``limit``, its first ``limit`` hands and the lines before the
    last of them only. One ParseError names the file and line of the first line refused."""
    if game.num_players != 2:
        raise CfrlabError(f"hand logs are read for 2-player games; {game.name or 'this game'} has "
                          f"{game.num_players} players")
    if limit is not None and limit < 1:
        raise CfrlabError(f"limit must be positive, got {limit}")
    sc = scan_bytes(read_log_bytes(path), game, player)
    full = sc.cards.shape[1]
    mine = sc.line[sc.position >= 0]
    cut = int(mine[limit - 1]) if limit is not None and len(mine) >= limit else None
    rows = np.flatnonzero(sc.line <= cut) if cut is not None else np.arange(len(sc.line))
    bad, values = _invalid_rows(game, sc, rows)
    first_bad = int(sc.line[rows[bad]].min()) if bad.any() else None
    first_good = int(sc.line[rows[~bad]].min()) if (~bad).any() else None
    # lines the scan could not take: the full parser reads them or refuses them
    extra: list[tuple[int, tuple]] = []
    slow_mine = 0
    for lineno in sc.bad.tolist():
        taken = int(np.searchsorted(mine, lineno)) + slow_mine
        if (first_bad is not None and lineno > first_bad) or (limit is not None and taken >= limit):
            break
        raw = sc.raw(lineno)
        try:
            rec = check_log_line(game, raw.decode("utf-8"))
        except CfrlabError:
            seen = (first_good is not None and first_good < lineno) or bool(extra)
            raise _fail(path, game, raw, lineno, seen) from None
        extra.append((lineno, _slow_row(game, rec, player, full)))
        slow_mine += extra[-1][1][1] >= 0
    if limit is not None and slow_mine:  # they come before the cut
        merged = np.sort(np.concatenate([mine, [ln for ln, r in extra if r[1] >= 0]]))
        cut = int(merged[limit - 1]) if len(merged) >= limit else None
    if first_bad is not None and (cut is None or first_bad <= cut):
        seen = (first_good is not None and first_good < first_bad) or any(ln < first_bad for ln, _ in extra)
        raise _fail(path, game, sc.raw(first_bad), first_bad, seen)
    _check_scores(path, sc, rows, values, extra, cut)
    keep = rows[sc.position[rows] >= 0]
    cards, pos, line = sc.cards[keep], sc.position[keep], sc.line[keep]
    bettings = [sc.bettings[k] for k in keep.tolist()]
    vals = values[sc.position[rows] >= 0]
    slow = [(ln, r) for ln, r in extra if r[1] >= 0]
    if slow:
        cards = np.concatenate([cards, np.array([r[0] for _, r in slow], dtype=np.int64).reshape(-1, full)])
        pos = np.concatenate([pos, np.array([r[1] for _, r in slow], dtype=np.int64)])
        line = np.concatenate([line, np.array([ln for ln, _ in slow], dtype=np.int64)])
        bettings += [r[2] for _, r in slow]
        vals = np.concatenate([vals, np.array([r[3] for _, r in slow], dtype=np.float64).reshape(-1, 2)])
        order = np.argsort(line, kind="stable")[:limit]
        cards, pos, line, vals = cards[order], pos[order], line[order], vals[order]
        bettings = [bettings[k] for k in order.tolist()]
    other: set[str] = set()
    if not len(line):
        for k in range(min(len(sc.names), 1000)):
            other.update(sc.names[k].decode("utf-8", errors="replace").split("|"))
    return LogHands(np.ascontiguousarray(cards), pos, line, bettings, vals, other)


def _check_scores(path, sc: LogScan, rows: np.ndarray, values: np.ndarray, extra, cut: int | None) -> None:
    """Each ``SCORE`` line (before ``cut``) adds up, per name, the hands since the previous one."""
    if not sc.scores.size:
        return
    lines = np.concatenate([sc.line[rows], np.array([ln for ln, _ in extra], dtype=np.int64)])
    names = [sc.names[k] for k in rows.tolist()] + [r[4] for _, r in extra]
    vals = np.concatenate([values, np.array([r[3] for _, r in extra], dtype=np.float64).reshape(-1, 2)])
    order = np.argsort(lines, kind="stable") if extra else np.arange(len(lines))
    lines, vals = lines[order], vals[order]
    groups: dict[bytes, int] = {}
    gid = np.array([groups.setdefault(names[k], len(groups)) for k in order.tolist()], dtype=np.int64)
    who_of = [g.decode("utf-8", errors="replace").split("|") for g in groups]
    lo = 0
    for lineno in sc.scores.tolist():
        if cut is not None and lineno > cut:
            return
        try:
            totals, who = parse_score_line(sc.raw(lineno).decode("utf-8"))
        except CfrlabError as e:
            raise ParseError(f"{path}:{lineno}: {e}") from None
        hi = int(np.searchsorted(lines, lineno))
        if hi == lo:
            continue
        sums: dict[str, float] = {}
        for p in range(2):
            by_group = np.bincount(gid[lo:hi], weights=vals[lo:hi, p], minlength=len(groups))
            for g in np.flatnonzero(np.bincount(gid[lo:hi], minlength=len(groups))).tolist():
                n = who_of[g][p]
                sums[n] = sums.get(n, 0.0) + float(by_group[g])
        lo = hi
        if not all(abs(sums.get(n, 0.0) - t) <= 1e-6 for n, t in zip(who, totals)):
            got = "|".join(format_value(sums.get(n, 0.0)) for n in who)
            raise ParseError(f"{path}:{lineno}: SCORE:{'|'.join(format_value(t) for t in totals)}:{'|'.join(who)} "
                             f"does not match the hands above it (they add up to {got})")
