"""ACPC protocol plumbing shared by the client and the dealer (the ACPC protocol 2.0.0; docs/playing.md).

Lines: the dealer ends every line with ``\\r\\n``; either side accepts ``\\n`` or ``\\r\\n``. A line
is at most ``MAX_LINE`` characters; a longer one arrives in pieces (as ``fgets`` reads it),
each of which is then rejected by the parser. Lines starting with ``#`` or ``;`` are comments.
"""

from __future__ import annotations

import re
import socket
import time

from cfrlab.games.state import format_value

VERSION = "2.0.0"
VERSION_LINE = f"VERSION:{VERSION}"
MAX_LINE = 4095
_VERSION_RE = re.compile(r"VERSION:([0-9]+)\.([0-9]+)\.([0-9]+)")
UINT32_MAX = 2**32 - 1  # the ACPC server reads each version number with sscanf("%u")


class ConnectionClosed(Exception):
    """The peer closed the connection (EOF) or the socket failed."""


class LineTimeout(Exception):
    """No complete line arrived before the deadline."""


def is_comment(line: str) -> bool:
    return line.startswith(("#", ";"))


def parse_version(line: str) -> tuple[int, int, int] | None:
    """``VERSION:<major>.<minor>.<revision>`` as three numbers, or None when the line is no
    version string or a number is past a uint32 (checked before ``int()`` reads it: past
    4,300 digits it raises)."""
    m = _VERSION_RE.match(line.strip())
    if not m or any(len(g.lstrip("0")) > 10 for g in m.groups()):
        return None
    parts = tuple(int(g) for g in m.groups())
    return parts if all(p <= UINT32_MAX for p in parts) else None  # type: ignore[return-value]


def split_response(line: str) -> tuple[str, str | None]:
    """``MATCHSTATE:p:h:betting:cards:action`` -> (state part, action part or None).

    The state is the first five colon-separated fields; everything after the fifth colon is
    the action text (None when there is no fifth colon)."""
    parts = line.split(":", 5)
    if len(parts) < 6:
        return line, None
    return ":".join(parts[:5]), parts[5]


def format_chips(value: float) -> str:
    """ACPC's value format: ``%.6f`` with trailing zeros (and a bare point) removed."""
    return format_value(value)


def format_score(totals, names) -> str:
    """``SCORE:<total seat 1>|...:<name 1>|...`` (seat order)."""
    return "SCORE:" + "|".join(format_chips(v) for v in totals) + ":" + "|".join(names)


class LineChannel:
    """A socket read and written one text line at a time, with deadlines.

    ``read_line(deadline)`` returns the next line without its line ending; it raises
    ``LineTimeout`` when ``deadline`` (a ``time.monotonic()`` value, None = wait forever)
    passes first, and ``ConnectionClosed`` at EOF or on a socket error."""

    def __init__(self, sock: socket.socket, send_timeout: float | None = None):
        self.sock = sock
        self.send_timeout = send_timeout  # seconds; a peer that never reads cannot block us forever
        self._buf = b""
        self._eof = False

    def send_line(self, text: str) -> None:
        try:
            self.sock.settimeout(self.send_timeout)
            self.sock.sendall(text.encode("utf-8", "replace") + b"\r\n")
        except TimeoutError:
            raise ConnectionClosed("send timed out (the peer is not reading)") from None
        except OSError as e:
            raise ConnectionClosed(f"send failed: {e}") from None

    def _pop_line(self) -> str | None:
        nl = self._buf.find(b"\n", 0, MAX_LINE + 1)
        if nl < 0:
            if len(self._buf) < MAX_LINE:
                return None
            raw, self._buf = self._buf[:MAX_LINE], self._buf[MAX_LINE:]  # an over-long line: in pieces
        else:
            raw, self._buf = self._buf[:nl], self._buf[nl + 1:]
        return raw.decode("utf-8", "replace").rstrip("\r")

    def read_line(self, deadline: float | None = None) -> str:
        while True:
            line = self._pop_line()
            if line is not None:
                return line
            if self._eof:
                if self._buf:  # a last line without its newline
                    raw, self._buf = self._buf, b""
                    return raw.decode("utf-8", "replace").rstrip("\r")
                raise ConnectionClosed("connection closed")
            if deadline is None:
                self.sock.settimeout(None)
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LineTimeout()
                self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                raise LineTimeout() from None
            except OSError as e:
                raise ConnectionClosed(f"receive failed: {e}") from None
            if not chunk:
                self._eof = True
            self._buf += chunk

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:  # pragma: no cover
            pass
