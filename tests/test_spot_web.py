"""A solved spot in the browser (cfrlab.spot.web, ``cfrlab spot serve``): the Python view, the
JSON endpoints (400 for a malformed path or hand, 404 for a path that names no node), the CLI,
and the page in headless Chromium: the grid drawn, a node chosen, a hand's strategy shown."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from play_helpers import PAGE_TIMEOUT_MS, WebServer, chromium, click_and_wait, require_browser

from cfrlab.errors import CfrlabError
from cfrlab.spot import make_spot, solve_spot
from cfrlab.spot.report import SpotReader, class_grid
from cfrlab.spot.store import save_solution
from cfrlab.spot.web import BadRequest, NoSuchNode, SpotView, create_spot_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def river_sol():
    spot = make_spot(board="Qs Jh 2h 8d 3c", pot=10, stack=30, oop_range="AA, QJs, 87s:0.5, 54s",
                     ip_range="KK, AQs, 99:0.75, T9s", bets={"bet": "p, a", "raise": "a"})
    return solve_spot(spot, target_pct=None, iterations=60)


@pytest.fixture(scope="module")
def turn_sol():
    spot = make_spot(board="Qs Jh 2h 8d", pot=10, stack=30, oop_range="AA, QJs", ip_range="KK, T9s",
                     bets={"bet": "p, a", "raise": "a", "cap": 1})
    return solve_spot(spot, target_pct=None, iterations=20)


@pytest.fixture(scope="module")
def client(river_sol):
    return TestClient(create_spot_app(river_sol))


# -- the Python view ------------------------------------------------------------------------------
def test_node_view_is_the_readers_report(river_sol):
    view = SpotView(river_sol)
    rep = SpotReader(river_sol).node("x")
    v = view.node("x")
    assert v["player"] == "ip" and v["street"] == "river" and v["pot"] == 10 and v["parent"] == ""
    assert [a["token"] for a in v["actions"]] == ["x", "b10", "b30"]
    assert [a["label"] for a in v["actions"]] == ["check", "bet 10", "bet 30 (all-in)"]
    np.testing.assert_allclose([a["frequency"] for a in v["actions"]], rep.frequencies, atol=1e-8)
    assert [a["next"] for a in v["actions"]] == [{"kind": "end", "what": "showdown"},
                                                 {"kind": "decision", "path": "x b10"},
                                                 {"kind": "decision", "path": "x b30"}]
    names, _, freq = class_grid(rep)
    assert len(v["grid"]) == 13 and all(len(r) == 13 for r in v["grid"])
    kk = v["grid"][1][1]
    assert kk["hand"] == "KK" and names[1][1] == "KK"
    np.testing.assert_allclose(kk["strategy"], freq[1, 1], atol=1e-8)
    assert v["grid"][0][1] == {"hand": "AKs", "weight": 0.0, "density": 0.0, "strategy": None}
    assert max(c["density"] for r in v["grid"] for c in r) == 1.0
    assert v["combos"] == len(rep.combos)


def test_hand_view_lists_the_class_combos(river_sol):
    view = SpotView(river_sol)
    rep = SpotReader(river_sol).node("x b10")
    h = view.hand("x b10", "QJs")
    assert h["player"] == "oop" and h["actions"] == ["f", "c", "b30"] and h["hand"] == "QJs"
    want = {"QcJc", "QdJd"}  # QsJs and QhJh use board cards
    assert {c["combo"] for c in h["combos"]} == want
    for c in h["combos"]:
        k = next(i for i, (name, *_) in enumerate(rep.combo_rows()) if name == c["combo"])
        np.testing.assert_allclose(c["strategy"], rep.strategy[k], atol=1e-8)
        assert abs(c["ev"] - rep.ev[k]) < 1e-7 and abs(c["equity"] - rep.equity[k]) < 1e-7
    w = np.array([c["weight"] for c in h["combos"]])
    evs = np.array([c["ev"] for c in h["combos"]])
    assert abs(h["ev"] - w @ evs / w.sum()) < 1e-6
    assert view.hand("x b10", "kqo")["combos"] == []  # a class OOP does not hold: empty
    assert view.hand("", "jqs")["hand"] == "QJs"  # either order, either case


def test_bad_paths_and_hands_are_refused(river_sol):
    view = SpotView(river_sol)
    for path, cls, words in (("x b15", NoSuchNode, "'b15' is not an action at x (actions: x, b10, b30)"),
                             ("x x", NoSuchNode, "x x is not a decision: a showdown ends the hand"),
                             ("x;rm", BadRequest, "a path is action tokens"),
                             ("x " * 300, BadRequest, "a path is at most 400 characters")):
        with pytest.raises(cls, match=re.escape(words)):
            view.node(path)
    for hand, words in (("AKx", "written like AA, AKs or AKo, not 'AKx'"), ("AAs", "a pair has no s or o"),
                        ("AK", "other hands need one")):
        with pytest.raises(BadRequest, match=words):
            view.hand("", hand)
    assert issubclass(BadRequest, CfrlabError) and issubclass(NoSuchNode, CfrlabError)


def test_turn_spot_walks_over_the_river_card(turn_sol):
    view = SpotView(turn_sol)
    root = view.node("x")
    nxt = root["actions"][0]["next"]
    assert nxt["kind"] == "card" and nxt["path"] == "x x"
    assert len(nxt["cards"]) == 48 and "8d" not in nxt["cards"] and "3c" in nxt["cards"]
    v = view.node("x x 3c x")
    assert v["board"] == ["Qs", "Jh", "2h", "8d", "3c"] and v["street"] == "river"
    assert v["parent"] == "x x 3c" and view.node("x x 3c")["parent"] == "x"  # back over the card
    assert [t["path"] for t in v["trail"]] == ["x", None, "x x 3c", "x x 3c x"]  # x x: the deal
    with pytest.raises(BadRequest, match=r"choose a river card \(such as 8d\), not '\*'"):
        view.node("x x * x")
    with pytest.raises(NoSuchNode, match="the river card 8d is on the board"):
        view.node("x x 8d")


# -- the endpoints -----------------------------------------------------------------------------------
def test_page_and_static_files(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert '<script src="/static/spot.js">' in r.text and 'id="grid"' in r.text
    for f in ("spot.js", "spot.css"):
        assert client.get(f"/static/{f}").status_code == 200


def test_endpoints(client, river_sol):
    s = client.get("/api/spot").json()
    assert s["board"] == ["Qs", "Jh", "2h", "8d", "3c"] and s["pot"] == 10 and s["river_cards"] == []
    assert abs(s["ev_oop"] + s["ev_ip"] - 10) < 1e-6
    assert abs(s["exploitability_pct"] - river_sol.exploitability_pct) < 1e-6
    r = client.get("/api/spot/node", params={"path": ""})
    assert r.status_code == 200 and r.json()["player"] == "oop" and r.json()["parent"] is None
    assert client.get("/api/spot/node").json() == r.json()  # no path: the root
    r = client.get("/api/spot/node", params={"path": "x b10"})
    assert r.status_code == 200 and r.json()["path"] == "x b10" and r.json()["parent"] == "x"
    h = client.get("/api/spot/hand", params={"path": "x b10", "hand": "QJs"})
    assert h.status_code == 200 and {c["combo"] for c in h.json()["combos"]} == {"QcJc", "QdJd"}


@pytest.mark.parametrize("url, params, status, words", [
    ("/api/spot/node", {"path": "x b15"}, 404, "'b15' is not an action at x (actions: x, b10, b30)"),
    ("/api/spot/node", {"path": "f"}, 404, "'f' is not an action at the root"),
    ("/api/spot/node", {"path": "x x"}, 404, "x x is not a decision"),
    ("/api/spot/node", {"path": "x<script>"}, 400, "a path is action tokens"),
    ("/api/spot/node", {"path": "*"}, 400, "choose a river card"),
    ("/api/spot/hand", {"path": "x", "hand": "AKx"}, 400, "a hand class is written like AA, AKs or AKo"),
    ("/api/spot/hand", {"path": "x"}, 400, "a hand class is written like"),
    ("/api/spot/hand", {"path": "x b99", "hand": "AA"}, 404, "'b99' is not an action at x"),
])
def test_bad_requests(client, url, params, status, words):
    r = client.get(url, params=params)
    assert r.status_code == status and words in r.json()["detail"], r.text
    assert "<script>" not in r.text


def test_cli_serve_refuses_in_one_line(river_sol, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    saved = tmp_path / "s.npz"
    save_solution(river_sol, saved)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        for args, words in (([str(saved), "--port", str(port)], f"cannot serve on 127.0.0.1:{port}"),
                            ([str(tmp_path / "nope.npz")], "nope.npz")):
            res = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "spot", "serve", *args],
                                 capture_output=True, text=True, env=env, timeout=120, check=False)
            assert res.returncode != 0 and words in res.stderr, res.stderr
            assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


# -- in Chromium ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def page_of():
    require_browser()
    with chromium() as b:
        yield b


def _cells(page) -> dict:
    return dict(page.eval_on_selector_all(".cell", "cs => cs.map(c => [c.dataset.hand, c.dataset.strategy || ''])"))


def test_browser_grid_node_and_hand(page_of, river_sol):
    with WebServer(create_spot_app(river_sol)) as srv:
        page = page_of.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.goto(srv.url)
        page.wait_for_selector("body[data-renders='1']")
        # the grid is drawn: 169 cells, the classes OOP holds coloured by their actions
        assert page.locator("#grid .cell").count() == 169
        root = _cells(page)
        assert {h for h, s in root.items() if s} == {"AA", "QJs", "87s", "54s"}
        assert "gradient" in page.eval_on_selector(".cell[data-hand='AA'] .fill", "e => e.style.background")
        assert "OOP acts on the river, pot 10" in page.inner_text("#where")
        assert page.is_disabled("#back")
        # a node chosen: OOP checks, then IP acts and the grid is IP's range
        click_and_wait(page, "#actions button[data-token='x']")
        assert "IP acts on the river" in page.inner_text("#where")
        after = _cells(page)
        assert after != root and {h for h, s in after.items() if s} == {"KK", "AQs", "99", "T9s"}
        api = page.evaluate("fetch('/api/spot/node?path=x').then(r => r.json())")
        kk = api["grid"][1][1]["strategy"]
        assert after["KK"] == " ".join(f"{x:.4f}" for x in kk)
        assert page.is_disabled("#actions button[data-token='x']")  # check behind: a showdown
        click_and_wait(page, "#actions button[data-token='b10']")
        assert "OOP acts on the river, pot 20" in page.inner_text("#where")
        # a hand's strategy shown: click QJs, its two combos with strategy, EV and equity
        click_and_wait(page, ".cell[data-hand='QJs']")
        rows = page.locator("#hand-combos tbody tr")
        assert rows.count() == 3  # the class, QcJc and QdJd
        h = page.evaluate("fetch('/api/spot/hand?path=x%20b10&hand=QJs').then(r => r.json())")
        text = page.inner_text("#hand-combos")
        assert "QcJc" in text and "QdJd" in text and "fold" in text and "call" in text
        assert f"{100 * h['combos'][0]['strategy'][1]:.1f}%" in page.inner_text("#hand-combos tr[data-combo='"
                                                                               f"{h['combos'][0]['combo']}']")
        assert f"EV {h['ev']:.3f}" in page.inner_text("#hand-title")
        # back to the parent: IP's node again, the hand panel follows it
        click_and_wait(page, "#back")
        assert "IP acts on the river" in page.inner_text("#where")
        assert "not in the range here" in page.inner_text("#hand-title")
        page.close()


def test_browser_turn_spot_river_card(page_of, turn_sol):
    with WebServer(create_spot_app(turn_sol)) as srv:
        page = page_of.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.goto(srv.url + "#x")
        page.wait_for_selector("body[data-renders='1']")
        assert page.is_hidden("#river")
        page.click("#actions button[data-token='x']")  # the turn checks through: choose the river
        assert page.locator("#river-cards button").count() == 48
        click_and_wait(page, "#river-cards button[data-card='3c']")
        assert "OOP acts on the river" in page.inner_text("#where")
        assert page.locator("#board .card").count() == 5
        click_and_wait(page, "#back")
        assert "IP acts on the turn" in page.inner_text("#where")
        page.close()


def test_flop_spot_walks_over_turn_and_river_cards():
    spot = make_spot(board="Qs Jh 2h", pot=10, stack=30, oop_range="AA, QJs", ip_range="KK, T9s",
                     bets={"bet": "p", "raise": "a", "cap": 1})
    sol = solve_spot(spot, target_pct=None, iterations=10, threads=1)
    view = SpotView(sol)
    nxt = view.node("x")["actions"][0]["next"]
    assert nxt["kind"] == "card" and nxt["path"] == "x x"
    assert len(nxt["cards"]) == 49 and "Qs" not in nxt["cards"] and "Kd" in nxt["cards"]
    turn = view.node("x x Kd")
    assert turn["board"] == ["Qs", "Jh", "2h", "Kd"] and turn["street"] == "turn"
    assert turn["parent"] == "x"
    river = view.node("x x Kd x x 3c")
    assert river["board"] == ["Qs", "Jh", "2h", "Kd", "3c"] and river["street"] == "river"
    assert river["parent"] == "x x Kd x"
    # a non-representative turn card (Kc and Kd are alike on this board) reads its own cards
    kc = view.node("x x Kc")
    assert kc["board"][-1] == "Kc" and kc["combos"] == turn["combos"]
    with pytest.raises(NoSuchNode, match="the turn card Qs is on the board"):
        view.node("x x Qs")
