"""The ACPC client: handshake, replies, bad dealer lines, dropped connections, the CLI,
and the match-state round trip along the network path (hypothesis)."""

from __future__ import annotations

import io
import subprocess
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from play_helpers import (
    CFRLAB,
    HOST,
    WAIT,
    BadAgent,
    CallAgent,
    DealerThread,
    FakeDealer,
    RaiseAgent,
)

from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.games.matchstate import parse_match_state
from cfrlab.games.state import State
from cfrlab.play.client import run_client
from cfrlab.play.deal import deal_for_hand
from cfrlab.play.dealer import fix_action
from cfrlab.play.protocol import split_response

KUHN = load_game("kuhn")


def _client(fake: FakeDealer, game=KUHN, agent=None, log=None, idle_timeout=WAIT):
    fake.start()
    err = io.StringIO()
    res = run_client(HOST, fake.port, game, agent or CallAgent(), log=log, err=err, idle_timeout=idle_timeout)
    fake.join(WAIT)
    return res, err.getvalue()


def test_handshake_and_replies_only_on_its_turn():
    fake = FakeDealer([
        ("send", "MATCHSTATE:0:0::Ks|"),            # our turn (position 0 acts first in Kuhn)
        ("reply",),
        ("send", "MATCHSTATE:0:0:c:Ks|"),           # the opponent's turn: no reply
        ("send", "MATCHSTATE:0:0:cr:Ks|"),          # ours again
        ("reply",),
        ("send", "MATCHSTATE:0:0:crc:Ks|Qs"),       # showdown
        ("send", "MATCHSTATE:1:1::|As"),            # opponent's turn
        ("send", "MATCHSTATE:1:1:r:|As"),           # ours
        ("reply",),
        ("send", "MATCHSTATE:1:1:rf:|As"),
    ])
    res, err = _client(fake, agent=RaiseAgent())
    assert fake.version == "VERSION:2.0.0"
    assert fake.replies == ["MATCHSTATE:0:0::Ks|:r", "MATCHSTATE:0:0:cr:Ks|:c", "MATCHSTATE:1:1:r:|As:c"]
    assert res.ok and res.hands == 2 and res.actions == 3
    assert res.total == 2 - 1  # the fake dealer says: won a showdown (+2), then folded (-1)
    assert err == ""


def test_the_reply_echoes_the_exact_line_received():
    # lower-case card letters are legal input; the reply repeats the line byte for byte
    fake = FakeDealer([("send", "MATCHSTATE:0:0::ks|"), ("reply",), ("send", "MATCHSTATE:0:0:cc:ks|qs")])
    res, _ = _client(fake)
    assert fake.replies == ["MATCHSTATE:0:0::ks|:c"]
    assert res.ok and res.total == 1


def test_comments_and_bad_lines_are_ignored_without_a_reply(tmp_path):
    log = tmp_path / "c.log"
    script = [
        ("send", "# a comment"),
        ("send", "; another"),
        ("send", "garbage"),
        ("send", "MATCHSTATE:0:0::Ks"),             # truncated: hole-card field missing
        ("send", "MATCHSTATE:0:0:x:Ks|"),           # not an action
        ("send", "MATCHSTATE:5:0::Ks|"),            # position out of range
        ("send", "MATCHSTATE:0:0::Ks|Qs"),          # opponent's cards before the end
        ("send", "MATCHSTATE:0:0::Xx|"),            # not a card
        ("send", "MATCHSTATE:0:0::2c|"),            # not in Kuhn's deck
        ("raw", b"\xff\xfe\r\n"),
        ("raw", b"x" * 9000 + b"\r\n"),             # longer than any ACPC line
        ("send", "MATCHSTATE:0:0::Ks|"),
        ("reply",),
        ("send", "MATCHSTATE:0:0:cc:Ks|Qs"),
    ]
    with open(log, "w") as fh:
        res, err = _client(FakeDealer(script), log=fh)
    assert res.ok and res.hands == 1 and res.actions == 1
    assert res.ignored_lines == 11  # the 9000-character line arrives as three pieces
    assert err.count("WARNING: ignoring a line from the dealer") == 11
    text = log.read_text()
    assert "<-C MATCHSTATE:0:0::Ks|:c" in text and "# hand 0: value 1, total 1" in text


def test_wrong_hand_numbers_are_logged_and_handled():
    script = [
        ("send", "MATCHSTATE:0:4::Ks|"),
        ("reply",),
        ("send", "MATCHSTATE:1:9::|Qs"),            # a new hand before hand 4 finished
        ("send", "MATCHSTATE:1:9:c:|Qs"),
        ("reply",),
        ("send", "MATCHSTATE:1:9:cc:As|Qs"),
    ]
    res, err = _client(FakeDealer(script))
    assert res.ok and res.hands == 1
    assert "hand 9 began before hand 4 finished" in err
    assert res.total == -1


def test_an_agent_that_misbehaves_is_replaced_by_call():
    fake = FakeDealer([
        ("send", "MATCHSTATE:0:0::Ks|"), ("reply",), ("send", "MATCHSTATE:0:0:cr:Ks|"), ("reply",),
        ("send", "MATCHSTATE:0:0:crc:Ks|Qs"),
        ("send", "MATCHSTATE:1:1:c:|Ks"), ("reply",), ("send", "MATCHSTATE:1:1:cc:As|Ks"),
        ("send", "MATCHSTATE:0:2::Ks|"), ("reply",), ("send", "MATCHSTATE:0:2:cc:Ks|Qs"),
    ])
    res, err = _client(fake, agent=BadAgent())
    assert [r.rsplit(":", 1)[1] for r in fake.replies] == ["c", "c", "c", "c"]
    assert res.fallbacks == 4 and res.ok
    assert "agent chose illegal action 'x'" in err and "agent raised RuntimeError" in err


@pytest.mark.parametrize("script, message", [
    ([("send", "MATCHSTATE:0:0::Ks|"), ("reply",), ("close",)], "connection lost during hand 0"),
    ([("close",)], "connection lost before the first hand"),
    ([("send", "MATCHSTATE:0:0::Ks|"), ("reply",), ("send", "MATCHSTATE:0:0:c:Ks|"), ("raw", b"MATCHSTATE:0:0:cr"),
      ("close",)], "connection lost during hand 0"),
])
def test_a_dropped_connection_is_reported(script, message):
    res, _ = _client(FakeDealer(script))
    assert not res.ok and message in res.error


def test_eof_after_a_finished_hand_is_the_normal_end():
    res, _ = _client(FakeDealer([("send", "MATCHSTATE:1:0:c:|Ks"), ("reply",), ("send", "MATCHSTATE:1:0:cc:Qs|Ks")]))
    assert res.ok and res.hands == 1 and res.total == 1


def test_silence_from_the_dealer_ends_after_the_idle_timeout():
    fake = FakeDealer([("send", "MATCHSTATE:1:0::|Ks"), ("sleep", 1.5)])
    res, _ = _client(fake, idle_timeout=0.3)
    assert not res.ok and "no message from the dealer for 0.3 s" in res.error


def test_connecting_to_a_closed_port_is_one_clear_error():
    import socket

    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(CfrlabError, match=f"cannot connect to {HOST}:{port}"):
        run_client(HOST, port, KUHN, CallAgent(), connect_timeout=2)
    for bad in (0, 70000, -1):
        with pytest.raises(CfrlabError, match=f"port {bad} is not 1..65535"):
            run_client(HOST, bad, KUHN, CallAgent(), connect_timeout=2)


# -- the CLI --------------------------------------------------------------------------------


def test_cli_connect_against_the_dealer_and_another_agent_process(tmp_path):
    """`cfrlab connect` (always-call) against a second `cfrlab connect` process (probe),
    run by the in-process dealer."""
    g = load_game("leduc")
    log = tmp_path / "client.log"
    d = DealerThread(g, 60, 3, names=["call", "probe"])
    procs = [subprocess.Popen([*CFRLAB, "connect", HOST, str(port), "--agent", agent, "--game", "leduc",
                               "--seed", "5", "--timeout", "20", *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for port, agent, extra in zip(d.ports, ["always-call", "probe"], [["--log", str(log)], []])]
    try:
        outs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    res = d.join()
    assert res.completed and abs(sum(res.totals)) < 1e-9
    assert [p.returncode for p in procs] == [0, 0], outs
    assert "always-call: 60 hands" in outs[0][1] and "probe: 60 hands" in outs[1][1]
    hands = [ln for ln in log.read_text().splitlines() if ln.startswith("# hand ")]
    assert len(hands) == 60
    assert hands[-1].endswith(f"total {res.totals[0]:g}")


def test_cli_connect_reports_a_dropped_connection_in_one_line():
    fake = FakeDealer([("send", "MATCHSTATE:0:0::Ks|"), ("reply",), ("close",)])
    fake.start()
    p = subprocess.run([*CFRLAB, "connect", HOST, str(fake.port), "--agent", "always-call", "--game", "kuhn",
                        "--timeout", "20"], check=False, capture_output=True, text=True, timeout=60)
    fake.join(WAIT)
    assert p.returncode == 3  # docs/cli.md: 3 a lost connection (it was 2, issue 27)
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("cfrlab: error:")]
    assert errors == ["cfrlab: error: connection lost during hand 0 (after 0 finished hands)"]
    assert "Traceback" not in p.stderr


def test_cli_connect_exits_1_when_the_dealer_falls_silent():
    # docs/cli.md: 1 a match that did not complete (the connection is still open)
    fake = FakeDealer([("send", "MATCHSTATE:1:0::|Ks"), ("sleep", 8)])
    fake.start()
    p = subprocess.run([*CFRLAB, "connect", "kuhn", HOST, str(fake.port), "--agent", "always-call",
                        "--timeout", "1"], check=False, capture_output=True, text=True, timeout=60)
    fake.join(WAIT)
    assert p.returncode == 1, p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("cfrlab: error:")]
    assert errors == ["cfrlab: error: no message from the dealer for 1 s"]


def test_cli_connect_with_an_unknown_agent_fails_cleanly():
    p = subprocess.run([*CFRLAB, "connect", HOST, "1", "--agent", "no-such-bot", "--game", "kuhn"],
                       check=False, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and p.stderr.startswith("cfrlab: error: unknown agent")


# -- property: the match-state round trip along the network path ----------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["kuhn", "leduc", "holdem-limit", "holdem-nolimit", "kuhn-3p"]),
       st.integers(0, 2**32 - 1), st.integers(0, 10**6))
def test_match_state_round_trip_through_dealer_and_client(name, seed, hand):
    """Every line the dealer would send parses at the client to the same text; the client's
    reply (line + ':' + a legal action) splits back to that line and the dealer reads the same
    action; the position and hand number survive."""
    g = load_game(name)
    state = State(g, deal_for_hand(g, seed, hand), hand_number=hand)
    rng = np.random.default_rng(seed)
    while True:
        for pos in range(g.num_players):
            line = state.match_state(pos)
            view = parse_match_state(g, line)
            assert view.to_string() == line
            assert (view.position, view.hand_number) == (pos, hand)
            assert view.is_terminal() == state.is_terminal()
            if view.is_my_turn():
                legal = view.legal_actions()
                assert legal == state.legal_actions()
                action = str(rng.choice(legal))
                sent, act_text = split_response(view.response(action))
                assert sent == line
                assert parse_match_state(g, sent).to_string() == state.match_state(pos)
                assert fix_action(state, act_text) == (action, None)
        if state.is_terminal():
            break
        state.apply(str(rng.choice(state.legal_actions())))


def test_many_clients_at_once_against_one_dealer():
    """kuhn-3p: three clients in threads; all hands end in every client with consistent totals."""
    g = load_game("kuhn-3p")
    d = DealerThread(g, 60, 8)
    out = {}

    def seat(i, agent):
        out[i] = run_client(HOST, d.ports[i], g, agent, err=io.StringIO(), idle_timeout=WAIT)

    ts = [threading.Thread(target=seat, args=(i, a), daemon=True) for i, a in enumerate([CallAgent(), RaiseAgent(),
                                                                                       CallAgent()])]
    for t in ts:
        t.start()
    res = d.join()
    for t in ts:
        t.join(WAIT)
    assert res.completed
    assert [out[i].total for i in range(3)] == pytest.approx(res.totals)


# -- fuzzing the client ---------------------------------------------------------------------


class _Recorder:
    """Stands in for a LineChannel: records what the client sends."""

    def __init__(self):
        self.sent = []

    def send_line(self, text):
        self.sent.append(text)


_PIECES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["MATCHSTATE:", ":", "|", "/", "r", "c", "f", "r200", "#", ";", "Ks", "Qs", "As", "0", "1",
                     "MATCHSTATE:0:0::", "MATCHSTATE:1:3:r:", "\r", "99999999999999999999"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_PIECES, max_size=6).map("".join), max_size=10),
       st.sampled_from(["kuhn", "leduc", "holdem-nolimit"]), st.integers(0, 1000))
def test_fuzzed_dealer_lines_never_break_the_client(junk, name, seed):
    """Junk lines mixed into a real hand's lines: the client never raises, answers exactly the
    valid states on which it must act, and each answer is the line + ':' + a legal action."""
    from cfrlab.play.client import ACPCClient

    g = load_game(name)
    state = State(g, deal_for_hand(g, seed, 0))
    rng = np.random.default_rng(seed)
    lines = []
    while True:
        lines.append(state.match_state(0))
        if state.is_terminal():
            break
        state.apply(str(rng.choice(state.legal_actions())))
    mixed = list(lines)
    for j in junk:
        mixed.insert(int(rng.integers(len(mixed) + 1)), j.replace("\n", " "))
    client = ACPCClient(g, RaiseAgent(), err=io.StringIO())
    client.agent.begin_match(g, 0)
    ch = _Recorder()
    for ln in mixed:
        client._on_line(ln, ch)
    for reply in ch.sent:
        sent_state, action = split_response(reply)
        view = parse_match_state(g, sent_state)
        assert view.is_my_turn() and view.is_legal(action)
    must_act = [ln for ln in lines if parse_match_state(g, ln).is_my_turn()]
    assert [split_response(r)[0] for r in ch.sent if split_response(r)[0] in lines] == must_act


def test_fuzzed_lines_over_the_network():
    rng = np.random.default_rng(1)
    junk = ["".join(chr(int(c)) for c in rng.integers(1, 0x2FF, size=int(rng.integers(0, 60)))).replace("\n", " ")
            for _ in range(40)]
    script = []
    for j in junk[:20]:
        script.append(("send", j))
    script += [("send", "MATCHSTATE:0:0::Ks|"), ("reply",)]
    for j in junk[20:]:
        script.append(("send", j))
    script += [("send", "MATCHSTATE:0:0:cc:Ks|Qs")]
    res, _ = _client(FakeDealer(script))
    assert res.ok and res.hands == 1 and res.actions == 1


def test_non_ascii_digits_from_the_dealer_are_ignored_lines():
    # issue 27: "MATCHSTATE:0:\u0660::Ks|" is not hand 0; the client ignores it and does not reply
    fake = FakeDealer([("send", "MATCHSTATE:0:\u0660::Ks|"), ("send", "MATCHSTATE:\uff10:0::Ks|"),
                       ("send", "MATCHSTATE:0:0::Ks|"), ("reply",), ("send", "MATCHSTATE:0:0:cc:Ks|Qs")])
    res, err = _client(fake)
    assert fake.replies == ["MATCHSTATE:0:0::Ks|:c"]
    assert res.ok and res.ignored_lines == 2 and res.hands == 1
    assert err.count("WARNING: ignoring a line from the dealer") == 2
