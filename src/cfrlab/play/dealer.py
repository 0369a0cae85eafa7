"""An ACPC-compatible dealer (ACPC protocol 2.0.0 and the ACPC dealer's log format; docs/playing.md).

``Dealer(config).listen()`` opens one port per seat; ``run()`` accepts one client per seat in
seat order, reads the version lines, deals ``hands`` seeded hands (cards from
``deal_for_hand(game, seed, hand_number)``; seat s has position ``(s - h) mod N`` in hand h
unless seats are fixed), sends every state change to every seat, applies the acting seat's
replies and writes the ACPC log one hand at a time (flushed per hand).

Bad clients are handled as the ACPC dealer handles them: a comment line is skipped; a reply
whose state does not parse (``bad state format``) or is not the current state
(``ignoring un-requested response``) is warned about and the dealer keeps waiting; a reply
without an action (``bad action format``) or with an illegal one (``invalid action``) is
changed to call, and a no-limit raise outside the legal range is clamped. A timeout or a
disconnect ends the match: the hands already played stay in the log, the scores so far are
printed and ``run()`` reports the error (exit code 1 from the CLI). Unlike the ACPC dealer,
an aborted match still prints a ``SCORE`` line (of the finished hands) after the ``ERROR``.
"""

from __future__ import annotations

import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef
from cfrlab.games.matchstate import parse_match_state
from cfrlab.games.state import State
from cfrlab.play.deal import deal_for_hand
from cfrlab.play.protocol import (
    VERSION,
    ConnectionClosed,
    LineChannel,
    LineTimeout,
    format_score,
    is_comment,
    parse_version,
    split_response,
)

__all__ = ["Dealer", "DealerConfig", "DealerResult", "deal_for_hand", "fix_action", "seat_position"]

def seat_position(seat: int, hand_number: int, num_players: int, fixed_seats: bool = False) -> int:
    """Position of ``seat`` in hand ``hand_number``: ``(seat - hand) mod N`` (as the ACPC dealer seats them)."""
    return seat if fixed_seats else (seat - hand_number) % num_players


def fix_action(state: State, text: str) -> tuple[str, str | None]:
    """The action the dealer applies for a reply's action text, and a warning (or None).

    Follows ``readAction`` / ``isValidAction(tryFixing)`` (``State.dealer_action``): the first
    letter decides the kind (``f``; ``c``/``k``; ``r``/``b``; any case); a no-limit raise needs a
    number after the letter (``%d``: optional sign); whatever follows is ignored. A missing
    action is a bad format, an unknown letter or an illegal action becomes call, a raise size
    outside the legal range is clamped into it."""
    return state.dealer_action(text)


@dataclass
class DealerConfig:
    """Times are in milliseconds as on the ACPC command line; ``t_start_ms`` < 0 waits forever
    for the clients to connect and send their version lines. Port 0 = any free port."""

    game: GameDef
    hands: int
    seed: int
    ports: list[int]
    names: list[str] = field(default_factory=list)
    host: str = "127.0.0.1"
    log_path: Path | None = None
    match_name: str = "match"
    t_response_ms: int = 600_000
    t_hand_ms: int = 600_000
    t_per_hand_ms: int = 7_000
    t_start_ms: int = -1
    fixed_seats: bool = False
    quiet: bool = False

    def __post_init__(self) -> None:
        n = self.game.num_players
        if not self.names:
            self.names = [f"seat{i + 1}" for i in range(n)]
        if len(self.ports) != n:
            raise CfrlabError(f"{self.game.name or 'the game'} has {n} seats: give {n} ports, got {len(self.ports)}")
        if len(self.names) != n:
            raise CfrlabError(f"the game has {n} seats: give {n} names, got {len(self.names)}")
        for name in self.names:
            if not name or any(ch in name for ch in ":|\r\n "):
                raise CfrlabError(f"player name {name!r} must be non-empty without ':', '|' or spaces")
        if self.hands < 0 or self.seed < 0:
            raise CfrlabError("hands and seed must be non-negative")
        for port in self.ports:
            if not 0 <= port <= 65535:
                raise CfrlabError(f"port {port} is not 0..65535")
        for what, ms in (("t_response", self.t_response_ms), ("t_hand", self.t_hand_ms),
                         ("t_per_hand", self.t_per_hand_ms)):
            if ms <= 0:
                raise CfrlabError(f"time limit {what} (--{what.replace('_', '-')}) must be a positive number "
                                  f"of milliseconds, got {ms}")


@dataclass
class DealerResult:
    totals: list[float]          # net chips per seat over the finished hands
    hands_played: int
    error: str | None = None     # None when the match completed
    warnings: list[str] = field(default_factory=list)

    @property
    def completed(self) -> bool:
        return self.error is None


class _Abort(Exception):
    pass


class Dealer:
    """One match. ``listen()`` then ``run()`` (or ``run()`` alone, which listens first)."""

    def __init__(self, config: DealerConfig, out: TextIO | None = None, err: TextIO | None = None):
        self.cfg = config
        self.game = config.game
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.listeners: list[socket.socket] = []
        self.channels: list[LineChannel] = []
        self.ports: list[int] = []
        self.totals = [0.0] * self.game.num_players
        self.hands_played = 0
        self.warnings: list[str] = []
        self._log: TextIO | None = None
        self._used_match = [0.0] * self.game.num_players
        self._used_hand = [0.0] * self.game.num_players
        self._sent_at = [0.0] * self.game.num_players

    # -- messages ----------------------------------------------------------------------
    def _say(self, text: str, always: bool = False) -> None:
        if always or not self.cfg.quiet:
            print(text, file=self.err, flush=True)

    def _warn(self, seat: int, text: str) -> None:
        self.warnings.append(f"seat {seat + 1}: {text}")
        self._say(f"WARNING: {text}", always=True)

    def _trace(self, direction: str, seat: int, line: str) -> None:
        if not self.cfg.quiet:
            print(f"{direction} {seat + 1} at {time.time():.6f} {line}", file=self.err, flush=True)

    # -- connections -------------------------------------------------------------------
    def listen(self) -> list[int]:
        """Open the log, then bind one listening socket per seat; returns the ports (seat order).
        A log that cannot be written or a port in use is a CfrlabError before any client can
        connect."""
        if self.listeners:
            return self.ports
        self._open_log()
        for port in self.cfg.ports:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((self.cfg.host, port))
            except OSError as e:
                s.close()
                self._close_all()
                if self._log is not None:
                    self._log.close()
                    self._log = None
                raise CfrlabError(f"cannot listen on {self.cfg.host}:{port}: {e.strerror or e}") from None
            s.listen(1)
            self.listeners.append(s)
            self.ports.append(s.getsockname()[1])
        return self.ports

    def _start_deadline(self) -> float | None:
        return None if self.cfg.t_start_ms < 0 else time.monotonic() + self.cfg.t_start_ms / 1000

    def _accept_all(self, deadline: float | None) -> None:
        for seat, listener in enumerate(self.listeners):
            listener.settimeout(None if deadline is None else max(deadline - time.monotonic(), 0.001))
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                raise _Abort(f"seat {seat + 1} did not connect in time") from None
            except OSError as e:
                raise _Abort(f"accepting seat {seat + 1} failed: {e}") from None
            finally:
                listener.close()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.channels.append(LineChannel(conn, send_timeout=self.cfg.t_response_ms / 1000))
        self.listeners = []

    def _handshake(self, deadline: float | None) -> None:
        for seat, ch in enumerate(self.channels):
            try:
                line = ch.read_line(deadline)
                while is_comment(line):
                    line = ch.read_line(deadline)
            except (LineTimeout, ConnectionClosed):
                raise _Abort(f"could not read version string from seat {seat + 1}") from None
            self._trace("FROM", seat, line)
            version = parse_version(line)
            if version is None:
                raise _Abort(f"invalid version string {line[:80]!r} from seat {seat + 1}")
            if version[0] != 2 or version[1] > 0:
                self._say(f"ERROR: this server is currently using version {VERSION}", always=True)

    def _close_all(self) -> None:
        for s in self.listeners:
            s.close()
        for ch in self.channels:
            ch.close()
        self.listeners, self.channels = [], []

    # -- the match ---------------------------------------------------------------------
    def _open_log(self) -> None:
        cfg = self.cfg
        if cfg.log_path is None or self._log is not None:
            return
        try:
            self._log = open(cfg.log_path, "w", encoding="utf-8")  # noqa: SIM115 (kept open for the match)
        except OSError as e:
            raise CfrlabError(f"{cfg.log_path}: cannot write the log ({e.strerror or e})") from None
        self._write_log(self._header_lines())

    def _header_lines(self) -> list[str]:
        cfg = self.cfg
        game = cfg.game.name or "game"
        return [
            f"# name/game/hands/seed {cfg.match_name} {game} {cfg.hands} {cfg.seed}",
            f"#--t_response {cfg.t_response_ms}",
            f"#--t_hand {cfg.t_hand_ms}",
            f"#--t_per_hand {cfg.t_per_hand_ms}",
        ]

    def close_interrupted(self) -> None:
        """After a Ctrl-C, wherever it landed (also between ``listen`` and ``run``): close the
        connections, end the log with the hands played and the score, and close it."""
        self._close_all()
        self._write_log([f"# interrupted after {self.hands_played} of {self.cfg.hands} hands",
                         format_score(self.totals, self.cfg.names)])
        if self._log is not None:
            self._log.close()
            self._log = None

    def _write_log(self, lines: list[str]) -> None:
        if self._log is not None:
            self._log.write("".join(line + "\n" for line in lines))
            self._log.flush()

    def run(self) -> DealerResult:
        """Play the match; never raises for client misbehaviour (see the module docstring)."""
        error = None
        self.listen()
        self._open_log()
        if not self.cfg.quiet:
            for line in self._header_lines():
                self._say(line)
        try:
            deadline = self._start_deadline()
            self._accept_all(deadline)
            self._handshake(deadline)
            self._say(f"STARTED at {time.time():.6f}")
            for h in range(self.cfg.hands):
                self._play_hand(h)
                if h % 100 == 0:
                    for seat, used in enumerate(self._used_match):
                        self._say(f"Seconds cumulatively spent in match for seat {seat}: {int(used)}")
        except _Abort as e:
            error = str(e)
        except KeyboardInterrupt:  # Ctrl-C: the log keeps the hands played, says so, and is closed
            self.close_interrupted()
            raise
        finally:
            self._close_all()
        score = format_score(self.totals, self.cfg.names)
        if error is not None:
            self._say(f"ERROR: {error}", always=True)
            self._write_log([f"# ERROR: {error}", f"# match aborted after {self.hands_played} of {self.cfg.hands} hands"])
        else:
            self._say(f"FINISHED at {time.time():.6f}")
        self._write_log([score])
        self._say(score, always=True)
        if self._log is not None:
            self._log.close()
            self._log = None
        print(score, file=self.out, flush=True)
        return DealerResult(list(self.totals), self.hands_played, error, list(self.warnings))

    def _play_hand(self, h: int) -> None:
        g, n = self.game, self.game.num_players
        pos = [seat_position(s, h, n, self.cfg.fixed_seats) for s in range(n)]
        seat_of = [0] * n
        for s, p in enumerate(pos):
            seat_of[p] = s
        state = State(g, deal_for_hand(g, self.cfg.seed, h), hand_number=h)
        self._used_hand = [0.0] * n
        self._broadcast(state, pos)
        while not state.is_terminal():
            p = state.current_player()
            state.apply(self._get_action(seat_of[p], state, p))
            self._broadcast(state, pos)
        values = state.payoffs()
        self._write_log([state.log_line([self.cfg.names[seat_of[p]] for p in range(n)])])
        for s in range(n):
            self.totals[s] += values[pos[s]]
        self.hands_played += 1

    def _broadcast(self, state: State, pos: list[int]) -> None:
        for seat, ch in enumerate(self.channels):
            line = state.match_state(pos[seat])
            self._trace("TO", seat, line)
            try:
                ch.send_line(line)
            except ConnectionClosed:
                raise _Abort(f"could not send state to seat {seat + 1}") from None
            self._sent_at[seat] = time.monotonic()

    def _deadline(self, seat: int) -> tuple[float, float]:
        """(deadline, the limit in seconds that sets it) for the reply of ``seat``."""
        cfg = self.cfg
        limits = [
            cfg.t_response_ms / 1000,
            cfg.t_hand_ms / 1000 - self._used_hand[seat],
            cfg.t_per_hand_ms * cfg.hands / 1000 - self._used_match[seat],
        ]
        limit = max(min(limits), 0.0)
        return self._sent_at[seat] + limit, limit

    def _get_action(self, seat: int, state: State, position: int) -> str:
        expected = state.match_state(position)
        ch = self.channels[seat]
        deadline, limit = self._deadline(seat)
        try:
            while True:
                try:
                    line = ch.read_line(deadline)
                except (LineTimeout, ConnectionClosed) as e:
                    waited = time.monotonic() - self._sent_at[seat]
                    how = "connection closed" if isinstance(e, ConnectionClosed) else "timed out"
                    raise _Abort(f"could not get action from seat {seat + 1} ({how}); "
                                 f"{waited:.1f} seconds spent waiting; timeout {limit:.1f}") from None
                self._trace("FROM", seat, line)
                if is_comment(line):
                    continue
                state_text, action_text = split_response(line)
                if state_text != expected:  # the usual exact echo needs no parsing
                    try:
                        reply_state = parse_match_state(self.game, state_text)
                    except CfrlabError:
                        self._warn(seat, "bad state format in response")
                        continue
                    if reply_state.to_string() != expected:
                        self._warn(seat, "ignoring un-requested response")
                        continue
                if action_text is None:
                    self._warn(seat, "bad action format in response, changed to call")
                    return "c"
                action, warning = fix_action(state, action_text)
                if warning:
                    self._warn(seat, warning)
                return action
        finally:
            used = time.monotonic() - self._sent_at[seat]
            self._used_hand[seat] += used
            self._used_match[seat] += used
