"""End to end in headless Chromium: the page plays full hands by clicking and the score updates.

Uses Debian's ``chromium`` (``/usr/bin/chromium``) driven by Playwright for Python; ``make test``
installs it when apt is available. Skipped, with the reason shown, only when it is missing.
"""

from __future__ import annotations

import pytest
from play_helpers import (
    PAGE_TIMEOUT_MS,
    CallAgent,
    RaiseAgent,
    WebServer,
    chromium,
    click_and_wait,
    require_browser,
)

require_browser(module_level=True)

from cfrlab.games import load_game
from cfrlab.play.web import create_app


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_play_full_hands_by_clicking(browser):
    app = create_app(load_game("holdem-limit"), lambda s: CallAgent(), seed=5)
    with WebServer(app) as srv:
        page = browser.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.goto(srv.url)
        page.wait_for_selector("body[data-renders='1']")
        assert page.get_attribute("#score", "data-hands") == "0"
        assert page.locator("#me .card").count() == 2  # our two hole cards are drawn
        assert page.locator("#opponents .card.back").count() == 2  # theirs face down
        assert "\u2660" in page.inner_text("#me") or "\u2665" in page.inner_text("#me") or \
            "\u2666" in page.inner_text("#me") or "\u2663" in page.inner_text("#me")
        # play the hand: bet/raise whenever a raise button is offered, else check/call
        while page.is_hidden("#next-hand"):
            raise_button = page.locator("#actions button[data-action='r']")
            click_and_wait(page, "#actions button[data-action='r']" if raise_button.count() else
                            "#actions button[data-action='c']")
        chips = float(page.get_attribute("#score", "data-chips"))
        assert page.get_attribute("#score", "data-hands") == "1"
        state = page.evaluate("fetch('/api/state', {credentials: 'same-origin'}).then(r => r.json())")
        assert state["hands_played"] == 1 and state["score"]["chips"] == chips
        assert abs(chips) > 0 or state["result"]["value"] == 0
        assert f"{state['score']['text']}" in page.inner_text("#score")
        assert page.locator("#opponents .card.back").count() == 0  # cards shown at the end
        assert page.locator("#history tbody tr").count() == 1
        assert page.locator("#board .card").count() == 5
        # the next hand (we are the small blind, first to act, facing the big blind), then fold:
        # the score goes down by the small blind we put in
        click_and_wait(page, "#next-hand")
        assert page.is_hidden("#next-hand")
        assert "small blind" in page.inner_text("#me")
        assert page.locator("#actions button[data-action='f']").count() == 1
        click_and_wait(page, "#actions button[data-action='f']")
        after = float(page.get_attribute("#score", "data-chips"))
        assert page.get_attribute("#score", "data-hands") == "2"
        assert after - chips == -5.0
        assert page.locator("#history tbody tr").count() == 2
        page.close()


def test_illegal_clicks_cannot_happen_and_errors_show(browser):
    """Only legal actions get buttons; an action sent by hand is refused and shown as an error."""
    app = create_app(load_game("kuhn"), lambda s: RaiseAgent(), seed=2)
    with WebServer(app) as srv:
        page = browser.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.goto(srv.url)
        page.wait_for_selector("body[data-renders='1']")
        offered = page.eval_on_selector_all("#actions button", "bs => bs.map(b => b.dataset.action)")
        state = page.evaluate("fetch('/api/state').then(r => r.json())")
        assert offered == [a["action"] for a in state["legal"]]
        status = page.evaluate(
            "fetch('/api/action', {method: 'POST', headers: {'Content-Type': 'application/json'},"
            " body: JSON.stringify({action: 'f'})}).then(r => r.status)")
        assert "f" not in offered and status == 400  # we act first in Kuhn hand 0: nothing to fold to
        assert page.evaluate("fetch('/api/state').then(r => r.json())") == state
        page.close()


def test_two_browser_sessions_are_independent(browser):
    app = create_app(load_game("leduc"), lambda s: CallAgent(), seed=4)
    with WebServer(app) as srv:
        ctx1, ctx2 = browser.new_context(), browser.new_context()
        p1, p2 = ctx1.new_page(), ctx2.new_page()
        for p in (p1, p2):
            p.set_default_timeout(PAGE_TIMEOUT_MS)
            p.goto(srv.url)
            p.wait_for_selector("body[data-renders='1']")
        while p1.is_hidden("#next-hand"):
            click_and_wait(p1, "#actions button[data-action='c']")
        assert p1.get_attribute("#score", "data-hands") == "1"
        p2.reload()
        p2.wait_for_selector("body[data-renders='1']")
        assert p2.get_attribute("#score", "data-hands") == "0"
        ctx1.close()
        ctx2.close()


def test_nolimit_raise_box(browser):
    """No-limit: the raise-to box offers the legal range; a typed amount is sent as r<N>."""
    app = create_app(load_game("holdem-nolimit"), lambda s: CallAgent(), seed=6)
    with WebServer(app) as srv:
        page = browser.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.goto(srv.url)
        page.wait_for_selector("body[data-renders='1']")
        assert page.is_visible("#raise-box")
        assert page.get_attribute("#raise-amount", "min") == "200"
        assert page.get_attribute("#raise-amount", "max") == "20000"
        page.fill("#raise-amount", "450")
        click_and_wait(page, "#raise-button")
        state = page.evaluate("fetch('/api/state').then(r => r.json())")
        assert "r450c" in state["betting"]
        page.fill("#raise-amount", "5")  # below the minimum: the server refuses, the page says why
        page.click("#raise-button")
        page.wait_for_function("document.querySelector('#error').textContent.length > 0")
        assert "not legal" in page.inner_text("#error")
        assert page.evaluate("fetch('/api/state').then(r => r.json())") == state
        page.close()


def test_nolimit_quick_size_buttons_fill_the_box(browser):
    """Half pot, pot and all-in fill the raise box from the pot shown (a pot raise calls, then
    raises by the pot); 'Pot' then 'Raise' sends that amount; keys h/p/a and Enter do the same;
    an illegal amount is refused with the reason and the hand goes on."""
    app = create_app(load_game("holdem-nolimit"), lambda s: CallAgent(), seed=6)
    with WebServer(app) as srv:
        page = browser.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        sent = []
        page.on("request", lambda r: sent.append(r.post_data_json["action"]) if r.url.endswith("/api/action") else None)
        page.goto(srv.url)
        page.wait_for_selector("body[data-renders='1']")
        v = page.evaluate("fetch('/api/state').then(r => r.json())")
        top = max(s["spent"] for s in v["seats"])
        pot_raise = top + v["pot"] + v["to_call"]  # independent of the server's rule
        assert f"Pot {v['pot']}" in page.inner_text("#pot")
        assert page.get_attribute(".quick-size[data-size='pot']", "data-amount") == str(pot_raise)
        page.click(".quick-size[data-size='allin']")
        assert page.input_value("#raise-amount") == "20000"
        page.click(".quick-size[data-size='pot']")
        assert page.input_value("#raise-amount") == str(pot_raise)
        click_and_wait(page, "#raise-button")
        assert sent == [f"r{pot_raise}"]
        v = page.evaluate("fetch('/api/state').then(r => r.json())")
        assert f"r{pot_raise}c/" in v["betting"] and not v["hand_over"]
        # the flop, by keyboard: h fills half the pot and focuses the box, Enter raises
        half = max(s["spent"] for s in v["seats"]) + (v["pot"] + v["to_call"]) // 2
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("h")
        assert page.input_value("#raise-amount") == str(half)
        n = int(page.get_attribute("body", "data-renders"))
        page.keyboard.press("Enter")
        page.wait_for_selector(f"body[data-renders='{n + 1}']")
        assert sent[-1] == f"r{half}"
        page.fill("#raise-amount", "7")  # below the minimum: refused, the page says why, hand goes on
        page.click("#raise-button")
        page.wait_for_function("document.querySelector('#error').textContent.length > 0")
        assert "not legal" in page.inner_text("#error") and "raise to" in page.inner_text("#error")
        page.click(".quick-size[data-size='allin']")
        click_and_wait(page, "#raise-button")
        assert sent[-1] == "r20000"
        assert page.get_attribute("#score", "data-hands") == "1"  # called and shown down
        page.close()
