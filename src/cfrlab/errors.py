"""The one exception type the CLI turns into a readable line and a non-zero exit, and the text
helpers that keep a message one safe line (and put sizes in it: ``human_bytes``)."""

import unicodedata
from typing import Any


class CfrlabError(Exception):
    """A user-facing error: bad input, wrong file, illegal action. Message is one line."""


class IllegalActionError(CfrlabError, ValueError):
    """An action that is not legal in the given state."""


class ParseError(CfrlabError, ValueError):
    """Malformed text: a card, a .game file, a match-state line, a log line."""


class FileMismatchError(CfrlabError):
    """A file made for another game or abstraction."""


# text made safe for one-line messages (used by errors and by every printer of file text)
def one_line(text: Any) -> str:
    """``text`` with every run of whitespace (newlines included) made one space."""
    return " ".join(str(text).split())


def printable(text: Any, limit: int | None = None) -> str:
    """Text read from a file (a header's algorithm or game name, a log's player name) made safe
    to print: control and format characters (ANSI escapes, newlines, bidi overrides) written
    as escapes (``\\x1b``, ``\\n``), so that a file can neither clear a terminal nor forge a
    line; cut to ``limit`` characters plus "..." when given."""
    out = "".join(_escaped(c) if unicodedata.category(c) in _UNPRINTABLE else c for c in str(text))
    return out if limit is None or len(out) <= limit else out[:limit] + "..."


_UNPRINTABLE = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))


def _escaped(c: str) -> str:
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else (f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")


def human_bytes(n: float) -> str:
    """A number of bytes as a message says it: "1.5 GB", "512 bytes" (units of 1,024 up to PB;
    beyond, "1.23e+18 bytes")."""
    if n >= 2**60:
        return f"{n:.2e} bytes"
    for unit, size in (("PB", 2**50), ("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:.0f} bytes"
