"""The ACPC-compatible dealer: deals, seats, full matches over loopback, logs, and bad clients."""

from __future__ import annotations

import collections
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
    CallAgent,
    DealerThread,
    RaiseAgent,
    RandomAgent,
    ScriptedSeat,
    connect_raw,
)

from cfrlab.agents import play_match, registry
from cfrlab.cards import deck
from cfrlab.evaluate import match
from cfrlab.games import load_game
from cfrlab.games.matchstate import parse_log_line
from cfrlab.games.state import State
from cfrlab.play.client import run_client
from cfrlab.play.deal import cards_per_deal, deal_for_hand
from cfrlab.play.dealer import fix_action, seat_position
from cfrlab.play.protocol import format_chips, split_response

GAMES = ["kuhn", "leduc", "holdem-limit", "holdem-nolimit", "kuhn-3p"]


# -- deals and seats ------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES + ["kuhn-100"])
def test_deal_for_hand_is_a_seeded_deal_from_the_games_deck(name):
    g = load_game(name)
    valid = set(deck(g.num_ranks, g.num_suits))
    for h in range(50):
        d = deal_for_hand(g, 7, h)
        assert len(d) == cards_per_deal(g) and len(set(d)) == len(d) and set(d) <= valid
        assert d == deal_for_hand(g, 7, h)  # depends only on (seed, hand)
    assert [deal_for_hand(g, 7, h) for h in range(20)] != [deal_for_hand(g, 8, h) for h in range(20)]


@pytest.mark.parametrize("name", GAMES + ["kuhn-100"])
def test_deal_for_hand_equals_the_match_engines_deals(name):
    g = load_game(name)
    for seed in (0, 1, 2**32 - 1, 12345678901):
        fast = match.deal_cards(g, seed, 0, 200)  # the match engine's kernel, as matches call it
        assert [list(map(int, row)) for row in fast] == [deal_for_hand(g, seed, h) for h in range(200)]


def test_leduc_deals_are_uniform():
    # 120 ordered Leduc deals (6*5*4); 24,000 hands: each count ~ Binomial(24000, 1/120), sd ~ 14
    g = load_game("leduc")
    counts = collections.Counter(tuple(deal_for_hand(g, 3, h)) for h in range(24000))
    assert len(counts) == 120
    assert max(abs(c - 200) for c in counts.values()) < 80


def test_seat_positions_rotate_like_the_acpc_dealer():
    assert [seat_position(0, h, 2) for h in range(4)] == [0, 1, 0, 1]
    assert [seat_position(1, h, 2) for h in range(4)] == [1, 0, 1, 0]
    assert [seat_position(s, 1, 3) for s in range(3)] == [2, 0, 1]
    assert [seat_position(s, 5, 3, fixed_seats=True) for s in range(3)] == [0, 1, 2]


# -- fix_action: the dealer's reading of a reply's action -----------------------------------


def _state(game, betting):
    s = State(load_game(game), deal_for_hand(load_game(game), 0, 0))
    for a in betting:
        s.apply(a)
    return s


def test_fix_action_follows_the_acpc_rules():
    s = _state("holdem-limit", [])  # preflop, facing the big blind
    assert fix_action(s, "c") == ("c", None)
    assert fix_action(s, "K") == ("c", None)
    assert fix_action(s, "F") == ("f", None)
    assert fix_action(s, "b") == ("r", None)
    assert fix_action(s, "r trailing junk") == ("r", None)
    assert fix_action(s, "x") == ("c", "invalid action, changed to call")
    assert fix_action(s, "") == ("c", "bad action format in response, changed to call")
    s = _state("holdem-limit", ["r", "r", "r"])  # cap reached
    assert fix_action(s, "r") == ("c", "invalid action, changed to call")
    s = _state("kuhn", [])  # nothing to call: fold is illegal
    assert fix_action(s, "f") == ("c", "invalid action, changed to call")
    s = _state("holdem-nolimit", [])
    assert fix_action(s, "r1") == ("r200", "raise of 1 increased to 200")
    assert fix_action(s, "r999999") == ("r20000", "raise of 999999 decreased to 20000")
    assert fix_action(s, "r-5") == ("r200", "raise of -5 increased to 200")
    assert fix_action(s, "r450xyz") == ("r450", None)
    assert fix_action(s, "r") == ("c", "bad action format in response, changed to call")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GAMES), st.integers(0, 10_000), st.text(max_size=12))
def test_fix_action_always_returns_a_legal_action(name, seed, text):
    g = load_game(name)
    s = State(g, deal_for_hand(g, seed, 0))
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 6))):
        if s.is_terminal():
            break
        s.apply(str(rng.choice(s.legal_actions())))
    if s.is_terminal():
        return
    action, warning = fix_action(s, text)
    assert s.is_legal(action)
    if s.is_legal(text) and text == text.strip():
        assert (action, warning) == (text, None)


# -- full matches over loopback -------------------------------------------------------------


def _play(game_name, agents, hands, seed, **kw):
    g = load_game(game_name)
    d = DealerThread(g, hands, seed, **kw)
    results = [None] * len(agents)

    def seat(i):
        results[i] = run_client(HOST, d.ports[i], g, agents[i], seed=i, err=io.StringIO(),
                                idle_timeout=WAIT)

    threads = [threading.Thread(target=seat, args=(i,), daemon=True) for i in range(len(agents))]
    for t in threads:
        t.start()
    res = d.join()
    for t in threads:
        t.join(WAIT)
    return d, res, results


@pytest.mark.parametrize("name", GAMES)
def test_full_match_balances_and_log_adds_up(name, tmp_path):
    g = load_game(name)
    log = tmp_path / "m.log"
    names = [f"p{i}" for i in range(g.num_players)]
    agents = [RandomAgent() for _ in range(g.num_players)]
    d, res, clients = _play(name, agents, 150, 11, log_path=log, names=names)
    assert res.completed and res.hands_played == 150 and not res.warnings
    assert abs(sum(res.totals)) < 1e-9
    for i, c in enumerate(clients):
        assert c.ok and c.hands == 150 and c.fallbacks == 0
        assert c.total == pytest.approx(res.totals[i])  # each client's own count agrees
    lines = log.read_text().splitlines()
    assert lines[0].startswith("# name/game/hands/seed")
    states = [ln for ln in lines if ln.startswith("STATE:")]
    assert len(states) == 150
    by_name = collections.defaultdict(float)
    for h, ln in enumerate(states):
        rec = parse_log_line(g, ln)
        assert rec.hand_number == h
        assert abs(sum(rec.values)) < 1e-9
        # position order of names follows the rotation
        assert rec.names == [names[s] for p in range(g.num_players) for s in range(g.num_players)
                             if seat_position(s, h, g.num_players) == p]
        for n_, v in zip(rec.names, rec.values):
            by_name[n_] += v
    score = f"SCORE:{'|'.join(format_chips(by_name[n]) for n in names)}:{'|'.join(names)}"
    assert lines[-1] == score
    assert d.out.getvalue().strip() == score


def test_swapped_seats_give_a_duplicate_match(tmp_path):
    g = load_game("holdem-limit")
    logs = []
    for order in (["a", "b"], ["b", "a"]):
        log = tmp_path / f"{order[0]}.log"
        _play("holdem-limit", [CallAgent(), CallAgent()], 40, 5, log_path=log, names=order)
        logs.append([parse_log_line(g, ln) for ln in log.read_text().splitlines() if ln.startswith("STATE:")])
    for x, y in zip(*logs):
        assert x.hole == y.hole and x.board == y.board  # same cards by position
        assert x.names == y.names[::-1]  # ... held by the other player


def test_dealer_equals_the_in_process_match_engine(tmp_path):
    g = load_game("leduc")
    # deterministic bots: identical hand by hand whatever the engine
    log_a, log_b = tmp_path / "engine.log", tmp_path / "dealer.log"
    r = play_match(g, "always-raise", "always-call", 200, seed=9, log=log_a, names=("A", "B"))
    _play("leduc", [registry.make_agent("always-raise", g), registry.make_agent("always-call", g)], 200, 9,
          log_path=log_b, names=["A", "B"])

    def states(p):
        return [ln for ln in p.read_text().splitlines() if ln.startswith("STATE:")]

    assert states(log_a) == states(log_b)
    assert sum(parse_log_line(g, ln).values[parse_log_line(g, ln).names.index("A")] for ln in states(log_b)) \
        == pytest.approx(float(r.values[0].sum()))


def test_dealer_equals_the_python_engine_with_seeded_random_agents(tmp_path):
    agent_seed = match.agent_seed
    g = load_game("leduc")
    log_a, log_b = tmp_path / "engine.log", tmp_path / "dealer.log"
    play_match(g, "random", "probe", 200, seed=21, log=log_a, names=("A", "B"), engine="python")
    d = DealerThread(g, 200, 21, log_path=log_b, names=["A", "B"])
    seats = [("random", agent_seed(21, 0, 0)), ("probe", agent_seed(21, 0, 1))]
    threads = [threading.Thread(target=run_client, args=(HOST, d.ports[i], g, registry.make_agent(spec, g)),
                                kwargs={"seed": s, "idle_timeout": WAIT}, daemon=True)
               for i, (spec, s) in enumerate(seats)]
    for t in threads:
        t.start()
    d.join()

    def states(p):
        return [ln for ln in p.read_text().splitlines() if ln.startswith("STATE:")]

    assert states(log_a) == states(log_b)


@pytest.mark.slow
def test_cli_dealer_with_two_cli_clients(tmp_path):
    """Three processes: `cfrlab dealer` and two `cfrlab connect` with different agents."""
    log = tmp_path / "cli.log"
    dealer = subprocess.Popen([*CFRLAB, "dealer", "kuhn", "--hands", "100", "--seed", "4", "--log", str(log),
                               "--names", "rnd,teddy", "-q", "--t-start", "20000"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = dealer.stdout.readline().split()
        assert len(ports) == 2
        clients = [subprocess.Popen([*CFRLAB, "connect", HOST, port, "--agent", agent, "--game", "kuhn",
                                     "--seed", "3", "--timeout", "20"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
                   for port, agent in zip(ports, ["random", "always-raise"])]
        out, err = dealer.communicate(timeout=60)
        outs = [c.communicate(timeout=30) for c in clients]
    finally:
        for p in [dealer, *locals().get("clients", [])]:
            if p.poll() is None:
                p.kill()
    assert dealer.returncode == 0, err
    assert all(c.returncode == 0 for c in clients), outs
    score = out.strip().splitlines()[-1]
    assert score.startswith("SCORE:") and score.endswith(":rnd|teddy")
    a, b = (float(x) for x in score.split(":")[1].split("|"))
    assert a + b == 0
    assert log.read_text().splitlines()[-1] == score
    assert "100 hands" in outs[0][1] and "100 hands" in outs[1][1]


# -- bad clients ----------------------------------------------------------------------------


def _with_seats(game_name, responders, hands=3, **kw):
    """Dealer + one ScriptedSeat per responder (None = a well-behaved caller)."""
    g = load_game(game_name)
    kw.setdefault("t_response_ms", 5000)
    d = DealerThread(g, hands, 1, **kw)
    seats = []
    for i, r in enumerate(responders):
        opts = r if isinstance(r, dict) else {"respond": r}
        seats.append(ScriptedSeat(d.ports[i], g, **opts))
    for s in seats:
        s.start()
    res = d.join()
    for s in seats:
        s.join(WAIT)
    return d, res, seats


def _once(bad_lines):
    """Responder: the first time it must act, send ``bad_lines(line)`` then the good reply."""
    done = []

    def respond(line, view):
        if done:
            return [f"{line}:c"]
        done.append(1)
        return [*bad_lines(line), f"{line}:c"]

    return respond


def _with_hand(line, hand):
    parts = line.split(":")
    parts[2] = str(hand)
    return ":".join(parts)


@pytest.mark.parametrize("bad, warning", [
    (lambda line: ["garbage"], "bad state format in response"),
    (lambda line: [line[: len(line) // 2]], "bad state format"),                  # truncated
    (lambda line: [_with_hand(line, 7) + ":c"], "un-requested"),                 # wrong hand number
    (lambda line: ["MATCHSTATE:0:0::Qs|:c"], "un-requested"),                     # someone else's state
    (lambda line: ["\x00\xff" * 50], "bad state format"),
    (lambda line: ["x" * 10000], "bad state format"),                             # over-long line
])
def test_unusable_replies_are_warned_about_and_the_dealer_keeps_waiting(bad, warning):
    _d, res, _seats = _with_seats("kuhn", [_once(bad), None], hands=3)
    assert res.completed and res.hands_played == 3
    assert any(warning in w for w in res.warnings), res.warnings
    assert abs(sum(res.totals)) < 1e-9


def test_comment_lines_from_clients_are_skipped():
    _d, res, _ = _with_seats("kuhn", [_once(lambda line: ["# thinking", "; still thinking"]), None])
    assert res.completed and not res.warnings


@pytest.mark.parametrize("game, reply, warning, applied", [
    ("kuhn", "{line}", "bad action format in response, changed to call", "c"),
    ("kuhn", "{line}:", "bad action format in response, changed to call", "c"),
    ("kuhn", "{line}:f", "invalid action, changed to call", "c"),
    ("kuhn", "{line}:x", "invalid action, changed to call", "c"),
    ("holdem-nolimit", "{line}:r1", "raise of 1 increased to", "r"),
    ("holdem-nolimit", "{line}:r999999", "decreased to 20000", "r20000"),
])
def test_bad_actions_are_changed_like_the_acpc_dealer(game, reply, warning, applied):
    first = []

    def respond(line, view):
        if not first:
            first.append(line)
            return [reply.format(line=line)]
        return [f"{line}:c"]

    _d, res, seats = _with_seats(game, [respond, None], hands=2, log_path=None)
    assert res.completed and res.hands_played == 2
    assert any(warning in w for w in res.warnings), res.warnings
    # the corrected action is what every seat sees next
    after = [ln for ln in seats[1].received if ln.split(":")[2] == "0"]
    assert any(ln.split(":")[3].startswith(applied) or ln.split(":")[3].startswith("c" + applied)
               for ln in after), after


def test_version_mismatch_is_reported_and_the_match_goes_on():
    d, res, _ = _with_seats("kuhn", [{"version": "VERSION:1.0.0"}, None], hands=2, quiet=False)
    assert res.completed
    assert "ERROR: this server is currently using version 2.0.0" in d.err.getvalue()


def test_a_bad_version_string_ends_the_match():
    _d, res, _ = _with_seats("kuhn", [{"version": "HELLO"}, None], hands=2)
    assert not res.completed and "invalid version string" in res.error
    assert res.hands_played == 0


def test_silence_past_the_time_limit_ends_the_match_and_keeps_the_log(tmp_path):
    log = tmp_path / "t.log"
    # seat 1 answers for the first 3 states it receives, then goes silent
    d, res, _seats = _with_seats("kuhn", [{"silent_after": 6}, None], hands=50, t_response_ms=300, log_path=log)
    assert not res.completed
    assert "could not get action from seat 1" in res.error and "timed out" in res.error
    assert 0 < res.hands_played < 50
    lines = log.read_text().splitlines()
    states = [ln for ln in lines if ln.startswith("STATE:")]
    assert len(states) == res.hands_played
    assert any(ln.startswith("# ERROR: could not get action") for ln in lines)
    assert lines[-1].startswith("SCORE:") and d.out.getvalue().strip() == lines[-1]
    assert abs(sum(res.totals)) < 1e-9


def test_a_disconnect_ends_the_match_cleanly(tmp_path):
    log = tmp_path / "d.log"
    _d, res, _seats = _with_seats("leduc", [None, {"stop_after": 9}], hands=20, log_path=log)
    assert not res.completed
    assert "seat 2" in res.error
    states = [ln for ln in log.read_text().splitlines() if ln.startswith("STATE:")]
    assert len(states) == res.hands_played < 20


def test_a_client_that_never_connects_times_out():
    g = load_game("kuhn")
    d = DealerThread(g, 5, 0, t_start_ms=300)
    ch = connect_raw(d.ports[0])
    try:
        res = d.join()
    finally:
        ch.close()
    assert not res.completed and "seat 2 did not connect" in res.error


def test_cli_dealer_exit_code_and_score_after_a_timeout(tmp_path):
    log = tmp_path / "x.log"
    dealer = subprocess.Popen([*CFRLAB, "dealer", "kuhn", "--hands", "10", "--t-response", "300", "--log", str(log),
                               "-q", "--t-start", "20000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = [int(p) for p in dealer.stdout.readline().split()]
        g = load_game("kuhn")
        seats = [ScriptedSeat(ports[0], g, silent_after=0), ScriptedSeat(ports[1], g)]
        for s in seats:
            s.start()
        out, err = dealer.communicate(timeout=WAIT)
    finally:
        if dealer.poll() is None:
            dealer.kill()
    assert dealer.returncode == 1
    assert "ERROR: could not get action from seat" in err
    assert out.strip().splitlines()[-1] == "SCORE:0|0:seat1|seat2"
    assert log.read_text().splitlines()[-1] == "SCORE:0|0:seat1|seat2"


# -- fuzzing the dealer ---------------------------------------------------------------------


_LINE_PIECES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["MATCHSTATE:", ":", "|", "/", "r", "c", "f", "r200", "#", ";", "As", "Qs", "Ks", "0", "1",
                     "\r", "VERSION:2.0.0", "MATCHSTATE:0:0::", "MATCHSTATE:1:0:r:"]),
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_LINE_PIECES, max_size=6).map("".join), min_size=1, max_size=8), st.integers(0, 3))
def test_fuzzed_replies_never_break_the_dealer(junk, mode):
    """Random lines (and, in mode 1, mangled copies of the real state) before each real reply:
    the dealer warns, keeps waiting or converts, and always finishes the match."""

    def respond(line, view):
        extra = [j.replace("\n", " ") for j in junk]
        if mode == 1:
            extra = [line + ":" + j.replace("\n", " ") for j in junk]  # state + fuzzed action text
            return extra[:1]
        if mode == 2:
            extra = [line[: len(j) % (len(line) + 1)] for j in junk]  # truncations
        return [*extra, f"{line}:{view.legal_actions()[-1]}"]

    _d, res, _seats = _with_seats("leduc", [respond, None], hands=2, t_response_ms=5000)
    assert res.completed, res.error
    assert res.hands_played == 2
    assert abs(sum(res.totals)) < 1e-9


def test_client_agents_that_misbehave_never_reach_the_dealer(tmp_path):
    from play_helpers import BadAgent

    g = load_game("holdem-nolimit")
    d = DealerThread(g, 30, 2)
    results = {}

    def seat(i, agent):
        results[i] = run_client(HOST, d.ports[i], g, agent, err=io.StringIO(), idle_timeout=WAIT)

    ts = [threading.Thread(target=seat, args=(0, BadAgent()), daemon=True),
          threading.Thread(target=seat, args=(1, RaiseAgent()), daemon=True)]
    for t in ts:
        t.start()
    res = d.join()
    for t in ts:
        t.join(WAIT)
    assert res.completed and not res.warnings  # the dealer never saw an illegal action
    assert results[0].fallbacks > 0 and results[0].fallbacks == results[0].actions


def test_split_response():
    assert split_response("MATCHSTATE:0:0:r:5d5c|:c") == ("MATCHSTATE:0:0:r:5d5c|", "c")
    assert split_response("MATCHSTATE:0:0:r:5d5c|") == ("MATCHSTATE:0:0:r:5d5c|", None)
    assert split_response("MATCHSTATE:0:0:r:5d5c|:r200:junk") == ("MATCHSTATE:0:0:r:5d5c|", "r200:junk")


def test_bad_configurations_are_refused_before_listening(tmp_path):
    from cfrlab.errors import CfrlabError
    from cfrlab.play.dealer import Dealer, DealerConfig

    g = load_game("kuhn")
    for kw, why in [({"ports": [70000, 0]}, "port 70000"), ({"ports": [0]}, "give 2 ports"),
                    ({"t_response_ms": 0}, "t_response"), ({"names": ["a", "a b"]}, "player name"),
                    ({"hands": -1}, "non-negative")]:
        args = {"game": g, "hands": 5, "seed": 0, "ports": [0, 0], **kw}
        with pytest.raises(CfrlabError, match=why):
            DealerConfig(**args)
    d = Dealer(DealerConfig(g, 5, 0, [0, 0], log_path=tmp_path / "no" / "dir" / "x.log"))
    (tmp_path / "no").write_text("a file, not a folder")
    with pytest.raises(CfrlabError, match="cannot write the log"):
        d.listen()
    assert d.listeners == [] and d.ports == []  # nothing was bound


def test_cli_dealer_port_in_use_and_bad_log_are_one_line(tmp_path):
    import socket

    busy = socket.socket()
    busy.bind((HOST, 0))
    busy.listen(1)
    try:
        port = busy.getsockname()[1]
        p = subprocess.run([*CFRLAB, "dealer", "kuhn", "--port", str(port), "--port", "0"], capture_output=True,
                           text=True, timeout=60, check=False)
    finally:
        busy.close()
    assert p.returncode != 0 and p.stdout == ""
    assert p.stderr == f"cfrlab: error: cannot listen on {HOST}:{port}: Address already in use\n"
    (tmp_path / "f").write_text("")
    p = subprocess.run([*CFRLAB, "dealer", "kuhn", "--log", str(tmp_path / "f" / "x.log")], capture_output=True,
                       text=True, timeout=60, check=False)
    assert p.returncode != 0 and p.stdout == "" and "cannot write the log" in p.stderr  # no ports printed


def test_fix_action_reads_only_ascii_digits():
    # sscanf("%d") reads ASCII digits: other scripts' digits are no raise size (issue 27)
    s = _state("holdem-nolimit", [])
    assert fix_action(s, "r\u0664\u0665\u0660") == ("c", "bad action format in response, changed to call")
    assert fix_action(s, "r\u00a0450") == ("c", "bad action format in response, changed to call")
    assert fix_action(s, "r 450") == ("r450", None)
