"""Hand histories in the ACPC dealer's log format (the ACPC protocol document, on logs).

A log is comment lines (``#``), one ``STATE:`` line per hand and a ``SCORE:`` line::

    # name/game/hands/seed match holdem-limit 1000 7
    STATE:0:f:5d5c|9hQd:5|-5:PyCall|Example
    ...
    SCORE:-105|105:PyCall|Example

``STATE:<hand>:<betting>:<hole cards by position>/<board per round reached>:<values by
position>:<names by position>``; values are net chips (``%.6f`` with trailing zeros
removed); ``SCORE`` totals are in seat order. A duplicate match writes two such sections
into one file (the second after a ``# duplicate half: seats swapped`` comment), as two
dealer runs with the same seed would.

``read_log`` parses every line with the rules engine (``cfrlab.games.logscan.check_log_line``:
``parse_log_line`` and the payoffs its cards and betting give, the check every log consumer
makes), checks that each ``SCORE`` line adds up the hands since the previous one (per name),
and raises one ``ParseError`` naming the file and line number for anything malformed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from cfrlab.cards.cards import card_text
from cfrlab.errors import CfrlabError, ParseError
from cfrlab.games.gamedef import GameDef
from cfrlab.games.logscan import check_log_line, log_hint, log_lines, parse_score_line
from cfrlab.games.matchstate import LogLine, parse_log_line
from cfrlab.games.state import format_value

DUPLICATE_MARK = "# duplicate half: seats swapped"


def _cards(cards: Sequence[int]) -> str:
    return "".join(card_text(int(c)) for c in cards)


def format_log_line(hand: int, betting: str, hole: Sequence[Sequence[int]],
                    board: Sequence[Sequence[int]], values: Sequence[float],
                    names: Sequence[str]) -> str:
    """One ``STATE:`` line: ``hole`` per position, ``board`` per round reached."""
    cards = "|".join(_cards(h) for h in hole) + "/".join(_cards(b) for b in board)
    vals = "|".join(format_value(float(v)) for v in values)
    return f"STATE:{hand}:{betting}:{cards}:{vals}:{'|'.join(names)}"


def format_score(totals: Sequence[float], names: Sequence[str]) -> str:
    """``SCORE:<total seat 1>|...:<name seat 1>|...`` (seat order)."""
    return "SCORE:" + "|".join(format_value(float(v)) for v in totals) + ":" + "|".join(names)


def safe_name(name: str) -> str:
    """A player name usable in a log line (no ``|``, ``:`` or whitespace)."""
    out = "".join("_" if ch in "|:" or ch.isspace() else ch for ch in str(name))
    return out or "player"


class LogWriter:
    """Writes a match log section by section; use as a context manager."""

    def __init__(self, path: str | Path, game: GameDef, match_name: str = "cfrlab", hands: int = 0,
                 seed: int | None = None) -> None:
        self.path = Path(path)
        self.game = game
        try:
            self._f: TextIO = open(self.path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as e:
            raise CfrlabError(f"{self.path}: cannot write the log ({e.strerror or e})") from None
        self.comment(f"name/game/hands/seed {safe_name(match_name)} {safe_name(game.name or 'game')} "
                     f"{hands} {seed if seed is not None else 0}")

    @property
    def file(self) -> TextIO:
        return self._f

    def comment(self, text: str) -> None:
        self._f.write(f"# {text}\n")

    def write(self, lines: Sequence[str]) -> None:
        if lines:
            self._f.write("\n".join(lines))
            self._f.write("\n")

    def score(self, totals: Sequence[float], names: Sequence[str]) -> None:
        self._f.write(format_score(totals, names) + "\n")

    def close(self) -> None:
        if not self._f.closed:
            self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class MatchLog:
    """A parsed log: every hand in file order and the ``SCORE`` lines (seat order)."""

    game: GameDef
    hands: list[LogLine] = field(default_factory=list)
    scores: list[tuple[list[float], list[str]]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    def totals_by_name(self) -> dict[str, float]:
        """Net chips per player name over every hand."""
        out: dict[str, float] = {}
        for h in self.hands:
            for name, v in zip(h.names, h.values):
                out[name] = out.get(name, 0.0) + v
        return out


def iter_log(path: str | Path, game: GameDef, verify: bool = True) -> Iterator[LogLine | tuple]:
    """Yield each hand (``LogLine``) and each score ``(totals, names)`` in file order.

    The file must be a regular file and its lines at most ``MAX_LINE`` bytes
    (``cfrlab.games.logscan``, the reader every log consumer shares)."""
    path = Path(path)
    seen_hand = False
    for lineno, raw_bytes in log_lines(path):
        where = f"{path}:{lineno}"
        try:
            line = raw_bytes.decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError(f"{where}: not text (an ACPC log is UTF-8/ASCII lines)") from None
        if not line.strip() or line.startswith(("#", ";")):
            continue
        if line.startswith("SCORE:"):
            try:
                yield parse_score_line(line)
            except CfrlabError as e:
                raise ParseError(f"{where}: {e}") from None
            continue
        try:
            rec = check_log_line(game, line) if verify else parse_log_line(game, line)
        except CfrlabError as e:
            raise ParseError(f"{where}: {e}{log_hint(path, game, seen_hand)}") from None
        seen_hand = True
        yield rec


def read_log(path: str | Path, game: GameDef, verify: bool = True) -> MatchLog:
    """Parse a whole log (see the module docstring); one ParseError names file and line."""
    log = MatchLog(game)
    section: dict[str, float] = {}  # totals by name since the last SCORE line
    for item in iter_log(path, game, verify):
        if isinstance(item, LogLine):
            log.hands.append(item)
            for name, v in zip(item.names, item.values):
                section[name] = section.get(name, 0.0) + v
            continue
        totals, names = item
        if verify and section and not all(abs(section.get(n, 0.0) - t) <= 1e-6 for n, t in zip(names, totals)):
            got = "|".join(format_value(section.get(n, 0.0)) for n in names)
            raise ParseError(f"{path}: SCORE:{'|'.join(format_value(t) for t in totals)}:{'|'.join(names)} does "
                             f"not match the hands above it (they add up to {got})")
        log.scores.append(item)
        section = {}
    if not log.hands:
        raise ParseError(f"{path}: no STATE lines (not an ACPC match log?)")
    return log
