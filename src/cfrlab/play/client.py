"""ACPC network client: plays a cfrlab ``Agent`` in a match run by an ACPC dealer.

Protocol 2.0.0 (the ACPC match-state protocol; docs/playing.md): send ``VERSION:2.0.0``; then for every
``MATCHSTATE`` line, answer only when it is this seat's turn, with the exact line received,
``:`` and one action. Lines starting with ``#`` or ``;`` are ignored; a line that is not a
valid match state is logged and ignored. The agent's action is checked before it is sent: an
exception or an illegal action is logged and replaced by call (always legal), so the client
never sends an illegal action. The match ends when the dealer closes the connection; a close
in the middle of a hand (or before any hand) is reported as a dropped connection.
"""

from __future__ import annotations

import socket
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

from cfrlab.errors import CfrlabError
from cfrlab.games.agent import Agent
from cfrlab.games.gamedef import GameDef
from cfrlab.games.matchstate import MatchState, parse_match_state
from cfrlab.play.protocol import (
    VERSION_LINE,
    ConnectionClosed,
    LineChannel,
    LineTimeout,
    format_chips,
    is_comment,
)

__all__ = ["ACPCClient", "ClientResult", "run_client", "safe_action"]


@dataclass
class ClientResult:
    hands: int = 0                 # hands whose final state arrived
    total: float = 0.0             # own net chips over the hands whose value could be computed
    actions: int = 0               # actions sent
    fallbacks: int = 0             # agent errors / illegal actions replaced by call
    ignored_lines: int = 0         # lines from the dealer that were not valid match states
    warnings: list[str] = field(default_factory=list)
    error: str | None = None       # None when the match ended normally
    lost: bool = False             # the error is a lost connection (the CLI exits 3, docs/cli.md)
    interrupted: bool = False      # Ctrl-C (SIGINT) ended the match

    @property
    def ok(self) -> bool:
        return self.error is None


def safe_action(agent: Agent, view: MatchState) -> tuple[str, str | None]:
    """The agent's action if it is legal, else call; with a warning text when it was replaced."""
    try:
        action = agent.act(view)
    except Exception as e:  # noqa: BLE001 (an agent bug must not take the seat out of the match)
        return "c", f"agent raised {type(e).__name__}: {e}; sent call instead"
    if not isinstance(action, str) or not view.is_legal(action):
        return "c", f"agent chose illegal action {action!r} (legal: {', '.join(view.legal_actions())}); sent call instead"
    return action, None


class ACPCClient:
    """Plays one match over an already connected ``LineChannel`` (see ``run_client``).

    ``log`` receives a transcript: ``S-> line`` (from the dealer), ``<-C line`` (sent),
    ``# WARNING: ...`` and ``# hand N: value V, total T`` after each hand."""

    def __init__(self, game: GameDef, agent: Agent, *, seed: int | None = None, log: TextIO | None = None,
                 err: TextIO | None = None, idle_timeout: float | None = None):
        self.game = game
        self.agent = agent
        self.seed = seed
        self.log = log
        self.err = err if err is not None else sys.stderr
        self.idle_timeout = idle_timeout
        self.result = ClientResult()
        self._hand: int | None = None      # hand number of the last state seen
        self._hand_over = True             # the last state seen was a final state
        self._ended: set[int] = set()      # hands whose end was already counted

    def _log(self, text: str) -> None:
        if self.log is not None:
            self.log.write(text + "\n")
            self.log.flush()

    def _warn(self, text: str) -> None:
        self.result.warnings.append(text)
        self._log(f"# WARNING: {text}")
        print(f"WARNING: {text}", file=self.err, flush=True)

    def play(self, channel: LineChannel) -> ClientResult:
        self.agent.begin_match(self.game, self.seed)
        try:
            channel.send_line(VERSION_LINE)
            self._log(f"<-C {VERSION_LINE}")
            while True:
                deadline = None if self.idle_timeout is None else time.monotonic() + self.idle_timeout
                try:
                    line = channel.read_line(deadline)
                except LineTimeout:
                    self.result.error = f"no message from the dealer for {self.idle_timeout:g} s"
                    break
                except ConnectionClosed:
                    if not self._hand_over or self._hand is None:
                        where = "before the first hand" if self._hand is None else f"during hand {self._hand}"
                        self.result.error = f"connection lost {where} (after {self.result.hands} finished hands)"
                        self.result.lost = True
                    break
                self._on_line(line, channel)
        except ConnectionClosed as e:  # a send failed
            self.result.error = f"connection lost while sending ({e}) during hand {self._hand}"
            self.result.lost = True
        except KeyboardInterrupt:  # Ctrl-C: the transcript says so, the caller reports it
            self.result.interrupted = True
            self.result.error = f"interrupted after {self.result.hands} finished hands"
        if self.result.error:
            self._log(f"# ERROR: {self.result.error}")
        return self.result

    def _on_line(self, line: str, channel: LineChannel) -> None:
        self._log(f"S-> {line}")
        if is_comment(line) or not line:
            return
        try:
            view = parse_match_state(self.game, line)
        except CfrlabError as e:
            self.result.ignored_lines += 1
            self._warn(f"ignoring a line from the dealer that is not a valid match state: {e}")
            return
        if view.hand_number != self._hand and not self._hand_over:
            self._warn(f"hand {view.hand_number} began before hand {self._hand} finished")
        self._hand = view.hand_number
        if view.is_terminal():
            self._hand_over = True
            if view.hand_number not in self._ended:
                self._end_hand(view)
            return
        self._hand_over = False
        if not view.is_my_turn():
            return
        action, warning = safe_action(self.agent, view)
        if warning:
            self.result.fallbacks += 1
            self._warn(f"hand {view.hand_number}: {warning}")
        reply = f"{line}:{action}"
        channel.send_line(reply)
        self.result.actions += 1
        self._log(f"<-C {reply}")

    def _end_hand(self, view: MatchState) -> None:
        self._ended.add(view.hand_number)
        self.result.hands += 1
        try:
            self.agent.end_hand(view)
        except Exception as e:  # noqa: BLE001 (same: a buggy agent hook)
            self._warn(f"agent.end_hand raised {type(e).__name__}: {e}")
        try:
            value = view.state().payoffs()[view.position]
        except CfrlabError:
            self._log(f"# hand {view.hand_number}: value unknown")
            return
        self.result.total += value
        self._log(f"# hand {view.hand_number}: value {format_chips(value)}, total {format_chips(self.result.total)}")


def connect(host: str, port: int, timeout: float = 10.0) -> LineChannel:
    """Connect to a dealer; CfrlabError with one line when it cannot."""
    if not 0 < port <= 65535:
        raise CfrlabError(f"port {port} is not 1..65535")
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as e:
        raise CfrlabError(f"cannot connect to {host}:{port}: {e.strerror or e}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return LineChannel(sock, send_timeout=timeout)


def run_client(host: str, port: int, game: GameDef, agent: Agent, *, seed: int | None = None,
               log: TextIO | None = None, err: TextIO | None = None, idle_timeout: float | None = None,
               connect_timeout: float = 10.0) -> ClientResult:
    """Connect to ``host:port`` and play the whole match; the result says how it ended."""
    channel = connect(host, port, connect_timeout)
    if log is not None:
        log.write(f"# cfrlab connect {host}:{port} game {game.name or 'game'} agent {getattr(agent, 'name', 'agent')}\n")
    try:
        return ACPCClient(game, agent, seed=seed, log=log, err=err, idle_timeout=idle_timeout).play(channel)
    finally:
        channel.close()
