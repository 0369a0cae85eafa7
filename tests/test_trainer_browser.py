"""Trainer mode in the browser (``cfrlab serve --trainer``), in headless Chromium: after each
click the page shows what the strategy does with the hand and the EV the choice gave up, and
the summary panel sums the finished hands. Skipped, with the reason, without Chromium."""

from __future__ import annotations

import pytest
from play_helpers import (
    RaiseAgent,
    WebServer,
    chromium,
    click_and_wait,
    kuhn_equilibrium,
    kuhn_seed_queen_facing_a_bet,
    open_page,
    require_browser,
)

require_browser(module_level=True)

from cfrlab.games import load_game
from cfrlab.play.trainer import Trainer
from cfrlab.play.web import create_app


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_trainer_panel_rates_each_click_and_sums(browser):
    """Hand 0: check, then call the raiser's bet; hand 1: holding the Queen, call its bet, which
    gives up exactly 1 chip against Kuhn's equilibrium (tests/test_trainer.py works it out)."""
    seed = kuhn_seed_queen_facing_a_bet()
    app = create_app(load_game("kuhn"), lambda s: RaiseAgent(), seed=seed, trainer=Trainer(kuhn_equilibrium(1 / 6)))
    with WebServer(app) as srv:
        page = open_page(browser, srv.url)
        assert page.is_visible("#trainer")
        assert "against kuhn-eq-0.167" in page.inner_text("#trainer-reference")
        assert page.locator("#advice li[data-chosen]").count() == 0
        click_and_wait(page, "#actions button[data-action='c']")
        items = page.locator("#advice li[data-chosen]")
        assert items.count() == 1 and items.first.get_attribute("data-chosen") == "c"
        state = page.evaluate("fetch('/api/state').then(r => r.json())")
        first = state["trainer"]["hand"][0]
        assert first["text"] in items.first.inner_text() and "EV (chips): check" in items.first.inner_text()
        while page.is_hidden("#next-hand"):
            click_and_wait(page, "#actions button[data-action='c']")
        assert page.get_attribute("#trainer-summary", "data-decisions") == "2"
        done = float(page.get_attribute("#trainer-summary", "data-loss"))
        click_and_wait(page, "#next-hand")
        assert page.locator("#advice li[data-chosen]").count() == 0  # a new hand: nothing rated yet
        assert page.locator("#me .card[data-card='Qs']").count() == 1
        click_and_wait(page, "#actions button[data-action='c']")  # call the bet with the Queen
        li = page.locator("#advice li[data-chosen]").first
        assert "mistake" in (li.get_attribute("class") or "")
        assert float(li.get_attribute("data-loss")) == pytest.approx(1.0, abs=1e-9)
        assert "your call gave up 1.000 chips (best: fold)" in li.inner_text()
        assert "fold -1.000, call -2.000" in li.inner_text()
        assert page.get_attribute("#trainer-summary", "data-decisions") == "3"
        assert float(page.get_attribute("#trainer-summary", "data-loss")) == pytest.approx(done + 1.0, abs=1e-9)
        assert page.is_visible("#mistakes")
        row = page.locator("#mistakes tbody tr").first.inner_text()
        assert "Qs" in row and "call" in row and "fold" in row and "1.000" in row
        state = page.evaluate("fetch('/api/state').then(r => r.json())")
        assert state["trainer"]["summary"]["top"][0]["loss"] == pytest.approx(1.0, abs=1e-9)
        page.close()


def test_no_trainer_no_panel(browser):
    app = create_app(load_game("kuhn"), lambda s: RaiseAgent(), seed=1)
    with WebServer(app) as srv:
        page = open_page(browser, srv.url)
        assert page.is_hidden("#trainer")
        assert "trainer" not in page.evaluate("fetch('/api/state').then(r => r.json())")
        page.close()
