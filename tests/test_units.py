"""One unit rule for every game (``cfrlab.games.units``): figures per game in mbb/g when the
blinds differ, chips/g when every player posts the same; every result names its unit, and a
target can say its own.

The reported bug: in a custom game with blinds 1 2, ``solve(target=1e-5)`` meant as chips ran
450,000 iterations (the target was read as mbb/g), and the game value printed as "+57.4"
with no unit, while ``Strategy.exploitability()`` and match results were in chips."""

from __future__ import annotations

import pytest

import cfrlab
from cfrlab.errors import CfrlabError
from cfrlab.games.units import CHIPS, MBB, parse_amount, unit_of

BLINDS = """GAMEDEF
limit
numPlayers = 2
numRounds = 1
blind = 1 2
raiseSize = 2
firstPlayer = 1
maxRaises = 2
numSuits = 1
numRanks = 4
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""
ANTES = BLINDS.replace("blind = 1 2", "blind = 5 5").replace("raiseSize = 2", "raiseSize = 10")


def test_a_target_in_chips_in_a_blind_game_stops_at_chips():
    g = cfrlab.load_game(BLINDS)
    r = cfrlab.solve(g, "cfr+", target="1e-3 chips/g", iterations=100_000)
    assert r.stopped_by == "target" and r.iterations < 100_000
    assert r.unit == MBB and r.exploitability_chips <= 1e-3
    assert r.exploitability == pytest.approx(r.exploitability_chips * 500, rel=1e-12)  # big blind 2
    assert r.game_value == pytest.approx(r.game_value_chips * 500, rel=1e-12)
    # the strategy, the best response and the curve say the same in the same unit
    assert r.strategy.unit == MBB
    assert r.strategy.exploitability() == pytest.approx(r.exploitability, rel=1e-9)
    assert r.strategy.exploitability(CHIPS) == pytest.approx(r.exploitability_chips, rel=1e-9)
    assert r.strategy.game_value() == pytest.approx(r.game_value, rel=1e-9)
    assert cfrlab.exploit(r.strategy).exploitability == pytest.approx(r.exploitability, rel=1e-9)
    assert r.curve[-1][2] == r.exploitability
    # the text says the unit, and is short
    text = repr(r)
    assert f"{r.game_value:+.6g} mbb/g" in text and "exploitability" in text and len(text) < 300


def test_a_bare_target_is_in_the_games_unit():
    r = cfrlab.solve(BLINDS, "cfr+", target=5, iterations=100_000)  # 5 mbb/g = 0.01 chips
    assert r.stopped_by == "target" and r.exploitability <= 5 and r.unit == "mbb/g"
    assert r.exploitability_chips <= 0.01
    same = cfrlab.solve(BLINDS, "cfr+", target="5 mbb/g", iterations=100_000)
    assert same.iterations == r.iterations


def test_an_ante_game_reports_chips_per_game():
    g = cfrlab.load_game(ANTES)
    assert unit_of(g) == CHIPS and unit_of(cfrlab.load_game("leduc")) == "chips/g"
    r = cfrlab.solve(g, "cfr+", target=0.05, iterations=100_000)
    assert r.unit == "chips/g" and r.exploitability <= 0.05
    assert r.exploitability == r.exploitability_chips
    assert r.strategy.exploitability() == pytest.approx(r.exploitability, rel=1e-9)
    assert "chips/g" in repr(r)
    # mbb/g is measured against the largest blind (the ante here): 1000 / 5
    assert r.strategy.exploitability("mbb/g") == pytest.approx(200 * r.exploitability, rel=1e-9)
    assert parse_amount(g, "20 mbb/g") == pytest.approx(0.1)


@pytest.mark.parametrize("target, words", [
    ("5 bananas", ["unknown unit", "bananas"]),
    ("mbb/g", ["target", "5 mbb/g"]),
    (-1, ["target must be positive"]),
    ("0 chips/g", ["target must be positive"]),
    (float("inf"), ["target must be positive"]),
    ("1e999 mbb/g", ["target must be positive"]),
    (True, ["target"]),
    ([1], ["target"]),
])
def test_bad_targets_are_refused_naming_the_parameter(target, words):
    with pytest.raises(CfrlabError) as e:
        cfrlab.solve(BLINDS, "cfr+", target=target)
    msg = str(e.value)
    assert all(w in msg for w in words) and "--" not in msg, msg


def test_the_stop_rule_names_parameters_not_flags():
    from cfrlab.solvers.driver import StopRule

    for kw, word in (({"iterations": 0}, "iterations"), ({"seconds": -1.0}, "seconds"),
                     ({"target": 0.0}, "target")):
        with pytest.raises(CfrlabError, match=f"^{word} must") as e:
            StopRule(**kw)
        assert "--" not in str(e.value)
    with pytest.raises(CfrlabError) as e:
        StopRule()
    assert "--" not in str(e.value) and "iterations=N" in str(e.value)


def test_match_results_carry_the_games_unit():
    r = cfrlab.play_match(BLINDS, "always-raise", "always-call", 2000, seed=1, duplicate=True, exact=True)
    chips = r.overall("chips/g")
    assert r.unit == "mbb/g" and r.overall().unit == "mbb/g" and chips.unit == "chips/g"
    assert r.overall().mean == pytest.approx(chips.mean * 500) and r.overall().ci95 == pytest.approx(chips.ci95 * 500)
    assert r.exact == pytest.approx(r.exact_chips * 500)
    assert [e.unit for e in r.per_position()] == ["mbb/g", "mbb/g"]
    s = r.summary()
    assert s["unit"] == "mbb/g" and s["mean"] == pytest.approx(r.overall().mean)
    text = repr(r)
    assert "mbb/g" in text and "always-raise" in text and len(text) < 300
    assert str(r.overall()).endswith("mbb/g (2,000 samples)")
    kuhn = cfrlab.play_match("kuhn", "always-raise", "always-call", 100, seed=1)
    assert kuhn.unit == "chips/g" and kuhn.overall().unit == "chips/g" and "chips/g" in repr(kuhn)


def test_counter_strategies_carry_the_games_unit():
    from cfrlab.counter import fbr, rnr

    uniform = cfrlab.Strategy.uniform(BLINDS)
    c = fbr(uniform)
    br = cfrlab.exploit(uniform)
    assert c.unit == "mbb/g" and c.exploitation == pytest.approx(sum(br.values) / 2, abs=1e-9)
    assert c.exploitation == pytest.approx(c.exploitation_chips * 500)
    assert c.exploitability == pytest.approx(c.strategy.exploitability(), abs=1e-9)
    assert "mbb/g" in repr(c) and len(repr(c)) < 200
    # a target gap in the game's unit, or naming its own: the same stop
    a = rnr(uniform, 0.5, iterations=3000, target=5)
    b = rnr(uniform, 0.5, iterations=3000, target="0.01 chips/g")
    assert a.iterations == b.iterations < 3000 and a.gap <= 5 and a.gap == pytest.approx(a.gap_chips * 500)


def test_a_zero_aivat_variance_is_reported_as_infinite_not_as_rounding_noise():
    from cfrlab.agents import play_match
    from cfrlab.evaluate.aivat import ratio_text, variance_ratio

    # both strategies known, duplicate: every pair scores the exact expected value (up to
    # rounding: the variance was 1e-31 and the ratio printed as 4.4e31)
    r = play_match("leduc", "value", "random", 2000, seed=1, aivat=True, duplicate=True)
    av = r.summary()["aivat"]
    assert av["variance_ratio"] is None and av["variance_ratio_text"].startswith("inf (AIVAT's variance is zero")
    assert variance_ratio([1.0, -1.0, 2.0], [0.5, 0.5 + 1e-16, 0.5]) == float("inf")
    assert variance_ratio([1.0, -1.0], [1.0, -1.0]) == 1.0
    assert ratio_text(variance_ratio([2.0, 2.0], [2.0, 2.0])).startswith("n/a")
    assert ratio_text(12.345) == "12.35"


def test_aivat_of_a_log_reports_in_the_games_unit(tmp_path):
    from cfrlab.agents import make_agent
    from cfrlab.evaluate.aivat import aivat_log

    g = cfrlab.load_game(BLINDS)
    log = tmp_path / "m.log"
    r = cfrlab.play_match(g, "value", "random", 500, seed=2, log=log)
    d = aivat_log(log, r.names[0], strategy=make_agent("value", g), opponent=make_agent("random", g), game=g)
    money = d.estimates()["money"]
    assert d.unit == money.unit == "mbb/g" and money.mean == pytest.approx(r.overall().mean)
    assert d.estimates("chips/g")["money"].mean == pytest.approx(r.overall("chips/g").mean)
    assert "mbb/g" in repr(d) and len(repr(d)) < 200


def test_the_eta_follows_the_last_units_pace():
    from collections import deque

    from cfrlab.jobs import ETA_WINDOW, eta_seconds

    assert eta_seconds(deque(), 0.0, 10) == -1.0
    ends = deque([2.0, 4.0], maxlen=ETA_WINDOW + 1)
    assert eta_seconds(ends, 0.0, 10) == 20.0  # 2 s a unit since the start
    for k in range(1, 200):  # slow at first (10 s a unit), then 1 s a unit
        ends.append(4.0 + (10.0 * k if k <= 100 else 1000.0 + (k - 100)))
    assert eta_seconds(ends, 0.0, 30) == 30.0  # the last 50 units' pace, not the run's
    paused = deque([float(k) for k in range(1, 41)], maxlen=ETA_WINDOW + 1)
    paused.extend(3600.0 + 40 + k for k in range(1, 11))  # an hour's pause, then 1 s a unit
    assert eta_seconds(paused, 0.0, 10) == pytest.approx(10 * (49 + 10) / 50)  # capped at 10 s
    uneven = deque([3.0 * k if k % 2 else 3.0 * k - 2.5 for k in range(1, 52)], maxlen=51)
    assert eta_seconds(uneven, 0.0, 10) == pytest.approx(10 * (uneven[-1] - uneven[0]) / 50)
