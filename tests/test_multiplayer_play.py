"""3-player Kuhn and Leduc strategies as agents: over ACPC (the dealer, ``run_client`` and
``cfrlab connect``), in the terminal and in the browser, like 2-player ones. The oracle for
"plays the strategy": a greedy strategy's every action in the dealer's log is its row's most
likely legal action at the information set the log's cards and betting give."""

from __future__ import annotations

import io
import subprocess
import threading
import warnings

import nplayer
import numpy as np
import pytest
from cli_run import run
from play_helpers import CFRLAB, HOST, WAIT, CallAgent, DealerThread
from rich.console import Console

from cfrlab.agents import make_agent
from cfrlab.agents.nplayer import NPolicyAgent
from cfrlab.cards import deck, parse_card
from cfrlab.engine.nplayer import get_engine
from cfrlab.evaluate.histories import read_log
from cfrlab.games import State, load_game
from cfrlab.play.client import run_client
from cfrlab.play.dealer import seat_position
from cfrlab.play.session import HumanTable
from cfrlab.play.terminal import TerminalPlay
from cfrlab.strategy import Strategy


def _random_policy(game, seed) -> np.ndarray:
    eng = get_engine(game)
    legal = np.repeat(eng.tree.legal, np.diff(eng.row_offset), axis=0)
    p = np.random.default_rng(seed).random(legal.shape) * legal
    return p / p.sum(axis=1, keepdims=True)


def _greedy_action(agent: NPolicyAgent, game, state: State) -> str:
    eng = agent.engine
    t = eng.tree
    node = t.node_of_betting[state.betting_string()]
    p = state.current_player()
    s = eng.deals.state_index(state.hole_cards(p), state.visible_board(), int(t.round[node]))
    row = agent.policy[eng.row_offset[t.decision[node]] + s]
    legal = ["fcr".index(a[0]) for a in state.legal_actions()]
    return "fcr"[max(legal, key=lambda a: (row[a], -a))]


def _check_greedy_in_log(path, game, name, agent) -> int:
    """Every action of ``name`` in the log is the greedy action; returns how many were checked."""
    checked = 0
    for line in read_log(path, game).hands:
        if name not in line.names:
            continue
        me = line.names.index(name)
        deal = [c for h in line.hole for c in h] + [c for b in line.board for c in b]
        full = State(game, deal + [c for c in _rest(game, deal)], hand_number=line.hand_number)
        for a in line.betting_string().replace("/", ""):
            if full.current_player() == me:
                assert a == _greedy_action(agent, game, full), (line.betting_string(), line.hole)
                checked += 1
            full.apply(a)
    return checked


def _rest(game, deal):
    """Board cards never shown (a hand that ended early) don't matter: fill with unused cards."""
    need = game.num_players * game.num_hole_cards + game.total_board_cards() - len(deal)
    return [c for c in deck(game.num_ranks, game.num_suits) if c not in deal][:need]


@pytest.mark.parametrize("name", ["kuhn-3p", "leduc-3p"])
def test_a_greedy_strategy_plays_itself_at_the_acpc_dealer(tmp_path, name):
    g = load_game(name)
    log = tmp_path / "match.log"
    d = DealerThread(g, 60, 4, log_path=log, names=["strat", "caller", "rand"])
    agents = [NPolicyAgent(g, _random_policy(g, 1), name="strat", greedy=True), CallAgent(),
              make_agent("random", g, 3)]
    out = {}

    def seat(i, agent):
        out[i] = run_client(HOST, d.ports[i], g, agent, err=io.StringIO(), idle_timeout=WAIT)

    ts = [threading.Thread(target=seat, args=(i, a), daemon=True) for i, a in enumerate(agents)]
    for t in ts:
        t.start()
    res = d.join()
    for t in ts:
        t.join(WAIT)
    assert res.completed and [out[i].total for i in range(3)] == pytest.approx(res.totals)
    assert all(out[i].fallbacks == 0 for i in range(3))
    assert _check_greedy_in_log(log, g, "strat", agents[0]) > 30


def test_cfrlab_connect_plays_a_3_player_strategy_file(tmp_path):
    g = load_game("kuhn-3p")
    f = tmp_path / "k3.npz"
    nplayer.solve(g, "cfr+", 100).strategy.save(f)
    d = DealerThread(g, 40, 2)
    others = [threading.Thread(target=run_client, args=(HOST, d.ports[i], g, make_agent("random", g, i)),
                               kwargs={"err": io.StringIO(), "idle_timeout": WAIT}, daemon=True) for i in (1, 2)]
    for t in others:
        t.start()
    p = subprocess.run([*CFRLAB, "connect", "kuhn-3p", HOST, str(d.ports[0]), "--agent", f"{f}:greedy",
                        "--seed", "1"], capture_output=True, text=True, timeout=120, check=False)
    res = d.join()
    assert p.returncode == 0, p.stderr
    assert res.completed and "k3:greedy: 40 hands" in p.stderr


def test_a_human_in_the_terminal_against_a_3_player_strategy_and_a_bot():
    g = load_game("leduc-3p")
    strat = NPolicyAgent(g, _random_policy(g, 2), name="strat", greedy=True)
    table = HumanTable(g, [strat, make_agent("always-raise", g)], seed=5)
    out = io.StringIO()
    feed = iter(["c"] * 200)
    played = TerminalPlay(table, console=Console(file=out, width=200, color_system=None),
                          input_line=lambda: next(feed, "")).play(6)
    text = out.getvalue()
    assert played == 6 and "strat" in text and "always-raise" in text
    assert sum(table.totals) == pytest.approx(0.0)
    for rec in table.history:  # the strategy's every action is its greedy action at that point
        st = State(g, _deal_of(g, rec), hand_number=rec.hand_number)
        for e in rec.events:
            if e.seat == 1:
                assert e.action == _greedy_action(strat, g, st)
            st.apply(e.action)


def _deal_of(g, rec):
    n = g.num_players
    by_pos = [None] * n
    for seat in range(n):
        by_pos[seat_position(seat, rec.hand_number, n)] = [parse_card(c) for c in rec.cards[seat]]
    deal = [c for h in by_pos for c in h] + [parse_card(c) for c in rec.board]
    return deal + _rest(g, deal)


def test_cli_play_kuhn_3p_with_a_strategy_file_and_a_bot(tmp_path, capsys, monkeypatch):
    f = tmp_path / "k3.npz"
    Strategy.uniform("kuhn-3p").save(f)
    monkeypatch.setattr("sys.stdin", io.StringIO("c\n" * 10))
    code, out, err = run(capsys, "play", "kuhn-3p", "--vs", str(f), "--vs", "always-call", "--hands", "2",
                         "--seed", "3")
    assert code == 0, err
    assert "2 hand(s) played" in out and "k3" in out and "always-call" in out
    code, out, err = run(capsys, "play", "kuhn-3p", "--vs", "a", "--vs", "b", "--vs", "c")
    assert code != 0 and err.count("\n") == 1 and "2 seat(s) beside you" in err


def test_browser_play_of_kuhn_3p_against_a_strategy_and_a_bot():
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from cfrlab.play.web import create_app

    g = load_game("kuhn-3p")
    strat = NPolicyAgent(g, _random_policy(g, 3), name="strat")

    def copy_of(proto):
        import copy

        def make(seed):
            a = copy.copy(proto)
            a.begin_match(g, seed)
            return a
        return make

    c = TestClient(create_app(g, [copy_of(strat), copy_of(make_agent("always-raise", g))], seed=4))
    v = c.get("/api/state").json()
    assert [s["name"] for s in v["seats"]] == ["you", "strat", "always-raise"]
    for _ in range(5):
        while not v["hand_over"]:
            v = c.post("/api/action", json={"action": "c"}).json()
        assert len(v["result"]["values"]) == 3 and sum(v["result"]["values"]) == 0
        v = c.post("/api/next").json()
    assert v["hands_played"] == 5
