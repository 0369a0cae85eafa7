"""Helpers for the play tests (client, dealer, terminal, web): tiny agents, a dealer in a
thread, scripted protocol peers, and the headless Chromium the browser tests drive (Debian's
``/usr/bin/chromium`` through Playwright, serving the app with uvicorn in a thread). Every
socket is on 127.0.0.1 and every wait is bounded."""

from __future__ import annotations

import io
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from cfrlab.cards import parse_cards
from cfrlab.engine import model_for_game, row_offsets, tree_for
from cfrlab.games import load_game
from cfrlab.games.agent import Agent
from cfrlab.games.matchstate import parse_match_state
from cfrlab.play.deal import deal_for_hand
from cfrlab.play.dealer import Dealer, DealerConfig, seat_position
from cfrlab.play.protocol import ConnectionClosed, LineChannel, LineTimeout
from cfrlab.strategy import Strategy

HOST = "127.0.0.1"
WAIT = 20.0  # upper bound (seconds) on any single wait in these tests
CFRLAB = [sys.executable, "-m", "cfrlab.cli.main"]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
PAGE_TIMEOUT_MS = 15_000  # any one wait in a page


# -- the browser tests -----------------------------------------------------------------------------
def require_browser(module_level: bool = False) -> None:
    """Skip (the whole module with ``module_level``), saying why, unless Chromium, Playwright
    and uvicorn are installed (``make browser`` installs Chromium)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (make browser) to run the browser test",
                    allow_module_level=module_level)
    pytest.importorskip("playwright.sync_api")
    pytest.importorskip("uvicorn")


@contextmanager
def chromium() -> Iterator:
    """A headless Chromium (Playwright ``Browser``), closed at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield browser
        finally:
            browser.close()


class WebServer:
    """uvicorn serving ``app`` on 127.0.0.1 (a free port) in a background thread."""

    def __init__(self, app):
        import uvicorn

        self.sock = socket.socket()
        self.sock.bind((HOST, 0))
        self.url = f"http://{HOST}:{self.sock.getsockname()[1]}/"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self):
        self.thread.start()
        end = time.monotonic() + WAIT
        while not self.server.started:
            assert time.monotonic() < end, "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def open_page(browser, url: str):
    """A new page at ``url``, after its first render (``body[data-renders='1']``)."""
    page = browser.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    page.goto(url)
    page.wait_for_selector("body[data-renders='1']")
    return page


def click_and_wait(page, selector: str) -> None:
    """Click and wait for the page's next render (its ``body[data-renders]`` counter)."""
    n = int(page.get_attribute("body", "data-renders") or 0)
    page.click(selector, timeout=PAGE_TIMEOUT_MS)
    page.wait_for_selector(f"body[data-renders='{n + 1}']", timeout=PAGE_TIMEOUT_MS)


class CallAgent(Agent):
    name = "caller"

    def act(self, view):
        return "c"


class RaiseAgent(Agent):
    name = "raiser"

    def act(self, view):
        legal = view.legal_actions()
        return legal[-1] if legal[-1].startswith("r") else "c"


class RandomAgent(Agent):
    """Uniform over legal action kinds; no-limit raise size uniform in the legal range."""

    name = "rand"

    def act(self, view):
        kinds = ["f", "c", "r"] if view.is_legal("f") else ["c", "r"]
        rng = view.raise_range()
        if rng is None:
            kinds.remove("r")
        k = kinds[int(self.rng.integers(len(kinds)))]
        if k != "r" or view.game.is_limit:
            return k
        return f"r{int(self.rng.integers(rng[0], rng[1] + 1))}"


class BadAgent(Agent):
    """Returns junk, illegal actions or raises, in turn."""

    name = "bad"

    def begin_match(self, game, seed=None):
        super().begin_match(game, seed)
        self.k = 0

    def act(self, view):
        self.k += 1
        choice = self.k % 4
        if choice == 0:
            raise RuntimeError("agent bug")
        if choice == 1:
            return "x"
        if choice == 2:
            return None
        return "r999999999" if not view.game.is_limit else "r5"


class DealerThread:
    """A ``Dealer`` listening now and running in a background thread."""

    def __init__(self, game, hands, seed=0, **kw):
        kw.setdefault("quiet", True)
        kw.setdefault("t_start_ms", int(WAIT * 1000))
        self.out, self.err = io.StringIO(), io.StringIO()
        self.dealer = Dealer(DealerConfig(game, hands, seed, [0] * game.num_players, **kw), out=self.out, err=self.err)
        self.ports = self.dealer.listen()
        self.result = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        self.result = self.dealer.run()

    def join(self, timeout=WAIT):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "dealer did not finish in time"
        return self.result


def connect_raw(port: int) -> LineChannel:
    sock = socket.create_connection((HOST, port), timeout=WAIT)
    return LineChannel(sock, send_timeout=WAIT)


class ScriptedSeat(threading.Thread):
    """A protocol peer that connects to a dealer port and answers via ``respond``.

    ``respond(line, view)`` is called for every match-state line on which this seat must act
    and returns the raw lines to send (possibly none). ``version`` is the handshake line
    (None: send nothing). ``stop_after`` closes the connection after that many states."""

    def __init__(self, port: int, game, respond: Callable | None = None, version: str | None = "VERSION:2.0.0",
                 stop_after: int | None = None, silent_after: int | None = None):
        super().__init__(daemon=True)
        self.port, self.game = port, game
        self.respond = respond or (lambda line, view: [f"{line}:c"])
        self.version = version
        self.stop_after = stop_after
        self.silent_after = silent_after
        self.received: list[str] = []
        self.sent: list[str] = []
        self.closed_by_peer = False

    def run(self):
        ch = connect_raw(self.port)
        try:
            if self.version is not None:
                ch.send_line(self.version)
            deadline = time.monotonic() + WAIT
            while True:
                try:
                    line = ch.read_line(deadline)
                except (LineTimeout, ConnectionClosed):
                    self.closed_by_peer = True
                    return
                self.received.append(line)
                if self.stop_after is not None and len(self.received) >= self.stop_after:
                    return
                view = parse_match_state(self.game, line)
                if view.is_my_turn() and not (self.silent_after is not None and len(self.received) > self.silent_after):
                    for out in self.respond(line, view):
                        ch.send_line(out)
                        self.sent.append(out)
        except ConnectionClosed:
            self.closed_by_peer = True
        finally:
            ch.close()


class FakeDealer(threading.Thread):
    """Accepts one client, reads its version line, then sends ``lines`` one by one; after a
    line that asks the client to act (``expect_reply``), waits for one reply line.

    ``script`` items: ``("send", line)``, ``("reply",)`` wait for one line, ``("sleep", s)``,
    ``("close",)``."""

    def __init__(self, script):
        super().__init__(daemon=True)
        self.script = script
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.bind((HOST, 0))
        self.server.listen(1)
        self.port = self.server.getsockname()[1]
        self.version: str | None = None
        self.replies: list[str] = []
        self.error: str | None = None

    def run(self):
        self.server.settimeout(WAIT)
        try:
            conn, _ = self.server.accept()
        except OSError as e:
            self.error = str(e)
            return
        finally:
            self.server.close()
        ch = LineChannel(conn, send_timeout=WAIT)
        try:
            self.version = ch.read_line(time.monotonic() + WAIT)
            for step in self.script:
                if step[0] == "send":
                    ch.send_line(step[1])
                elif step[0] == "raw":
                    conn.sendall(step[1])
                elif step[0] == "reply":
                    self.replies.append(ch.read_line(time.monotonic() + WAIT))
                elif step[0] == "sleep":
                    time.sleep(step[1])
                elif step[0] == "close":
                    break
        except (LineTimeout, ConnectionClosed) as e:
            self.error = f"{type(e).__name__}: {e}"
        finally:
            ch.close()


# -- trainer mode ----------------------------------------------------------------------------------
def kuhn_equilibrium(alpha: float) -> Strategy:
    """Kuhn's equilibrium family (Kuhn 1950; cards Q < K < A are states 0, 1, 2). The first player
    bets Q with alpha, never K, A with 3 alpha; after check-bet folds Q, calls K with alpha + 1/3,
    calls A. The second player facing a bet folds Q, calls K 1/3, calls A; after a check bets Q
    1/3, checks K, bets A."""
    g = load_game("kuhn")
    tree, model = tree_for(g), model_for_game(g)
    off = row_offsets(tree, model)
    pol = np.zeros((int(off[-1]), 3))
    rows = {"": [[0, 1 - alpha, alpha], [0, 1, 0], [0, 1 - 3 * alpha, 3 * alpha]],
            "c": [[0, 2 / 3, 1 / 3], [0, 1, 0], [0, 0, 1]],
            "r": [[1, 0, 0], [2 / 3, 1 / 3, 0], [0, 1, 0]],
            "cr": [[1, 0, 0], [2 / 3 - alpha, alpha + 1 / 3, 0], [0, 1, 0]]}
    for betting, table in rows.items():
        d = int(tree.decision[tree.node_of_betting[betting]])
        pol[int(off[d]): int(off[d]) + 3] = table
    return Strategy.from_policy(g, pol, tree=tree, model=model, name=f"kuhn-eq-{alpha:.3f}")


def kuhn_seed_queen_facing_a_bet() -> int:
    """A deal seed whose hand 1 gives the human (seat 0, position 1 in hand 1) the Queen."""
    g = load_game("kuhn")
    for seed in range(200):
        if deal_for_hand(g, seed, 1)[seat_position(0, 1, 2)] == parse_cards("Qs")[0]:
            return seed
    raise AssertionError("no seed found")
