"""Browser play, the API: sessions, server-side validation, scores, the `cfrlab serve` CLI."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import httpx
from play_helpers import CFRLAB, HOST, CallAgent, RaiseAgent, RandomAgent

from cfrlab.cards import card_rank, parse_card
from cfrlab.games import load_game
from cfrlab.play.web import COOKIE, create_app


def _app(game="kuhn", agent=CallAgent, seed=1, **kw):
    return create_app(load_game(game), lambda s: agent(), seed=seed, **kw)


def _client(app):
    return TestClient(app)


def test_page_and_static_files_are_served():
    c = _client(_app())
    r = c.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert '<script src="/static/app.js">' in r.text and 'id="score"' in r.text
    assert c.get("/static/app.js").status_code == 200
    assert c.get("/static/style.css").status_code == 200
    assert c.get("/static/nope.js").status_code == 404


def test_state_starts_a_session_with_a_cookie_and_a_hand():
    c = _client(_app())
    r = c.get("/api/state")
    assert r.status_code == 200 and COOKIE in r.cookies
    v = r.json()
    assert v["hand_number"] == 0 and v["your_turn"] and not v["hand_over"]
    assert v["seats"][0]["cards"] and v["seats"][1]["cards"] is None  # the opponent's card is hidden
    assert [a["action"] for a in v["legal"]] == ["c", "r"]
    assert [a["label"] for a in v["legal"]] == ["Check", "Bet 1 (to 2)"]
    assert v["score"] == {"chips": 0.0, "per_game": 0.0, "unit": "chips/g", "text": "+0.000 chips/g"}
    assert c.get("/api/state").json()["hand_number"] == 0  # same session, same hand


def test_illegal_actions_are_refused_with_400_and_not_applied():
    c = _client(_app())
    before = c.get("/api/state").json()
    for bad in ["f", "r5", "x", "fold now", "r99"]:
        r = c.post("/api/action", json={"action": bad})
        assert r.status_code == 400, bad
        assert isinstance(r.json()["detail"], str)
    assert c.get("/api/state").json() == before
    assert c.post("/api/action", json={"action": "c", "hand_number": 5}).status_code == 400  # stale hand
    assert c.post("/api/next").status_code == 400  # the hand is not over
    assert c.post("/api/action", json={}).status_code == 422
    assert c.post("/api/action", json={"action": "c" * 100}).status_code == 422
    assert c.get("/api/state").json() == before


def test_a_full_hand_updates_the_score_and_history():
    c = _client(_app(seed=3))
    v = c.get("/api/state").json()
    mine = v["seats"][0]["cards"][0]
    v = c.post("/api/action", json={"action": "c", "hand_number": 0}).json()  # check, the caller checks
    assert v["hand_over"] and not v["your_turn"] and v["legal"] == []
    theirs = v["seats"][1]["cards"][0]  # shown at the end
    expected = 1.0 if card_rank(parse_card(mine)) > card_rank(parse_card(theirs)) else -1.0
    assert v["result"]["value"] == expected and v["result"]["showdown"]
    assert v["score"]["chips"] == expected and v["hands_played"] == 1
    assert v["history"][0]["cards"] == [[mine], [theirs]]
    assert c.post("/api/action", json={"action": "c"}).status_code == 400  # the hand is over
    v = c.post("/api/next").json()
    assert v["hand_number"] == 1 and not v["hand_over"] and v["result"] is None


def test_limit_holdem_score_is_in_mbb_per_game():
    c = _client(_app("holdem-limit", RaiseAgent, seed=2))
    v = c.get("/api/state").json()
    while not v["hand_over"]:
        v = c.post("/api/action", json={"action": "c"}).json()
    chips = v["result"]["value"]
    assert v["result"]["showdown"]  # we only call, the raiser never folds
    assert all(name in ("high card", "one pair", "two pair", "three of a kind", "straight", "flush", "full house",
                        "four of a kind", "straight flush") for name in v["result"]["hand_names"])
    assert v["score"]["unit"] == "mbb/g"
    assert v["score"]["per_game"] == pytest.approx(1000 * chips / 10)


def test_nolimit_raise_amounts_are_validated_server_side():
    c = _client(_app("holdem-nolimit", CallAgent, seed=2))
    v = c.get("/api/state").json()
    assert v["raise_range"] == [200, 20000]
    assert c.post("/api/action", json={"action": "r150"}).status_code == 400
    assert c.post("/api/action", json={"action": "r20001"}).status_code == 400
    v = c.post("/api/action", json={"action": "r450"}).json()
    assert "r450c/" in v["betting"]


def test_sessions_are_separate():
    app = _app(seed=7)
    a, b = _client(app), _client(app)
    va, vb = a.get("/api/state").json(), b.get("/api/state").json()
    assert a.cookies[COOKIE] != b.cookies[COOKIE]
    assert va["seats"][0]["cards"] == vb["seats"][0]["cards"]  # same --seed, same deals
    a.post("/api/action", json={"action": "r"})
    assert b.get("/api/state").json() == vb  # b's table did not move
    assert a.get("/api/state").json()["hand_over"]
    assert len(app.state.sessions) == 2


def test_no_session_and_evicted_sessions_are_refused():
    app = _app(max_sessions=2)
    assert _client(app).post("/api/action", json={"action": "c"}).status_code == 400
    first = _client(app)
    first.get("/api/state")
    for _ in range(2):
        _client(app).get("/api/state")
    r = first.post("/api/action", json={"action": "c"})
    assert r.status_code == 400 and "no session" in r.json()["detail"]
    assert len(app.state.sessions) == 2


def test_reset_starts_a_new_match():
    c = _client(_app())
    c.get("/api/state")
    c.post("/api/action", json={"action": "r"})
    old = c.cookies[COOKIE]
    v = c.post("/api/reset").json()
    assert c.cookies[COOKIE] != old and v["hands_played"] == 0 and v["hand_number"] == 0


def test_many_people_at_once():
    """Eight sessions in threads, 15 hands each; every session's score is its own history's sum."""
    app = _app("leduc", RandomAgent, seed=None)
    errors, scores = [], []

    def person(k):
        try:
            c = _client(app)
            v = c.get("/api/state").json()
            values = []
            for h in range(15):
                while not v["hand_over"]:
                    legal = [a["action"] for a in v["legal"]]
                    v = c.post("/api/action", json={"action": legal[(h + k) % len(legal)],
                                                    "hand_number": v["hand_number"]}).json()
                values.append(v["result"]["value"])
                if h < 14:
                    v = c.post("/api/next").json()
            assert v["hands_played"] == 15
            assert v["score"]["chips"] == pytest.approx(sum(values))
            scores.append(v["score"]["chips"])
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(repr(e))

    threads = [threading.Thread(target=person, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and len(scores) == 8
    assert len(app.state.sessions) == 8


def _free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_cli_serve_serves_the_page():
    port = _free_port()
    p = subprocess.Popen([*CFRLAB, "serve", "--vs", "always-call", "--game", "kuhn", "--port", str(port)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 30
        while True:
            try:
                with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=5) as c:
                    assert "cfrlab" in c.get("/").text
                    v = c.get("/api/state").json()
                    assert v["names"] == ["you", "always-call"]
                    assert c.post("/api/action", json={"action": "f"}).status_code == 400
                break
            except httpx.TransportError:
                assert p.poll() is None, p.communicate()[1]
                assert time.monotonic() < end, "server did not start"
                time.sleep(0.2)
    finally:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


@pytest.mark.slow
def test_cli_serve_on_a_port_in_use_is_one_line():
    busy = socket.socket()
    busy.bind((HOST, 0))
    busy.listen(1)
    try:
        port = busy.getsockname()[1]
        p = subprocess.run([*CFRLAB, "serve", "--vs", "always-call", "--port", str(port)], capture_output=True,
                           text=True, timeout=60, check=False)
    finally:
        busy.close()
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert p.stderr == f"cfrlab: error: cannot serve on {HOST}:{port}: Address already in use\n"
    for bad, why in [(["--port", "70000"], "port 70000 is not 0..65535"), (["--seed", "-1"], "--seed must be")]:
        p = subprocess.run([*CFRLAB, "serve", "--vs", "always-call", *bad], capture_output=True, text=True,
                           timeout=60, check=False)
        assert p.returncode != 0 and p.stderr.startswith("cfrlab: error:") and why in p.stderr


def test_bind_socket_and_bad_seeds():
    from cfrlab.errors import CfrlabError
    from cfrlab.play.web import bind_socket

    sock = bind_socket(HOST, 0)
    try:
        with pytest.raises(CfrlabError, match="in use"):
            bind_socket(HOST, sock.getsockname()[1])
    finally:
        sock.close()
    with pytest.raises(CfrlabError, match="non-negative"):
        _app(seed=-1)


def test_cli_serve_rejects_an_unknown_agent():
    p = subprocess.run([*CFRLAB, "serve", "--vs", "nobody", "--port", str(_free_port())], capture_output=True,
                       text=True, timeout=60, check=False)
    assert p.returncode != 0 and p.stderr.startswith("cfrlab: error: unknown agent")


def test_three_player_game_has_two_agents():
    c = _client(_app("kuhn-3p", CallAgent, seed=1))
    v = c.get("/api/state").json()
    assert v["names"] == ["you", "caller-1", "caller-2"] and len(v["seats"]) == 3
    while not v["hand_over"]:
        v = c.post("/api/action", json={"action": "c"}).json()
    assert sum(v["result"]["values"]) == 0 and v["hands_played"] == 1
