"""AIVAT: exactly unbiased by enumeration whichever players are known and whatever the
unknown one plays; its variance below money's; sampled means against exact values; the
match and log paths agree; one-line errors."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from cli_run import run
from game_texts import limit_text

from cfrlab.agents import make_agent
from cfrlab.api import solve
from cfrlab.cards.cards import deck
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.aivat import aivat_deals, aivat_log
from cfrlab.evaluate.match import play_match
from cfrlab.games import State, load_game, parse_game
from cfrlab.games.matchstate import seat_view
from cfrlab.tree import build_tree

Z = 3.29  # two-sided 99.9%: fixed seeds, far from flaky


def _enumerate(game, agents):
    """Every (deal, terminal) with its exact probability when ``agents[p]`` plays position p,
    each agent's distribution read through its Python ``distribution(view)``."""
    tree = build_tree(game)
    dk = deck(game.num_ranks, game.num_suits)
    ncards = 2 * game.num_hole_cards + game.total_board_cards()
    deals = list(itertools.permutations(dk, ncards))
    out_deals, terms, probs = [], [], []

    def walk(state, p, deal):
        if state.is_terminal():
            out_deals.append(deal)
            terms.append(tree.node_of_betting[state.betting_string()])
            probs.append(p)
            return
        pl = state.current_player()
        dist = agents[pl].distribution(seat_view(state, pl))
        legal = ["fcr".index(a[0]) for a in state.legal_actions()]
        pr = np.array([dist[a] if a in legal else 0.0 for a in range(3)])
        pr /= pr.sum()
        for a in legal:
            if pr[a] > 0:
                walk(state.clone().apply("fcr"[a]), p * pr[a], deal)

    for d in deals:
        walk(State(game, list(d)), 1.0 / len(deals), d)
    return np.array(out_deals), np.array(terms), np.array(probs)


@pytest.fixture(scope="module")
def leduc_profile():
    game = load_game("leduc")
    good = make_agent(solve(game, "cfr+", iterations=300).strategy, game)
    weak = make_agent(solve(game, "cfr", iterations=3).strategy, game)
    return game, good, weak


@pytest.mark.parametrize("value", ["calldown", "exact"])
@pytest.mark.parametrize("known", ["a", "b", "both"])
def test_exactly_unbiased_by_enumeration(leduc_profile, known, value):
    """Weighted by each hand's exact probability, AIVAT's mean is money's to rounding, with
    either agent known, or both, in either seat; known strategies also cut the variance."""
    game, good, weak = leduc_profile
    for agents, apos in (((good, weak), 0), ((weak, good), 1)):
        deals, term, prob = _enumerate(game, agents)
        a = good
        b = weak
        out = aivat_deals(game, deals, term, np.full(len(deals), apos), a if known in ("a", "both") else None,
                          b if known in ("b", "both") else None, value=value)
        means = prob @ out
        assert means[1] == pytest.approx(means[0], abs=1e-12)
        assert means[2] == pytest.approx(means[0], abs=1e-12)
        var = prob @ (out - means) ** 2
        assert var[2] < var[1] < var[0], var
        if value == "exact" and known == "both":  # the true value function: no variance left
            assert var[2] < 1e-20


def test_exact_values_score_every_hand_at_its_expected_value(leduc_profile):
    """Both strategies known, the exact value function: every hand of a match scores the
    exact expected value of its seating (cfrlab's exact_value), whatever the cards did."""
    game, good, weak = leduc_profile
    r = play_match(game, good, weak, 2_000, seed=9, duplicate=True, exact=True, aivat="exact")
    seat = np.array(r.exact_per_position)
    for half in (0, 1):
        pos = (np.arange(2_000) + half) % 2  # A's position: seat 0 is position 0 on even hands
        np.testing.assert_allclose(r.aivat[half], seat[pos], atol=1e-9)


def test_unknown_strategy_may_be_anything():
    """The unknown player's distribution is never used: a card-dependent policy the
    estimator knows nothing about (two hole cards, three rounds, a six-card deck)."""
    game = parse_game(limit_text(rounds=3, blind="1 1", raise_size="1 2 2", first="1 1 1", max_raises="1 1 1",
                                 hole=2, boards="0 1 1"))
    known = make_agent(solve(game, "cfr+", iterations=100).strategy, game)
    other = make_agent(solve(game, "cfr", iterations=2).strategy, game)
    deals, term, prob = _enumerate(game, (known, other))
    out = aivat_deals(game, deals, term, np.zeros(len(deals), dtype=np.int64), known, None)
    means = prob @ out
    assert means[2] == pytest.approx(means[0], abs=1e-12)
    assert (prob @ (out - means) ** 2)[2] < (prob @ (out - means) ** 2)[0]


def test_match_means_agree_with_exact_value(tmp_path, leduc_profile):
    """Sampled (duplicate match, 100,000 deals): AIVAT within its interval of the exact
    value, with a fraction of money's variance; the log path gives the same numbers."""
    game, good, weak = leduc_profile
    log = tmp_path / "m.log"
    r = play_match(game, good, weak, 50_000, seed=4, duplicate=True, log=log, exact=True, aivat="calldown")
    av = r.aivat_samples()
    e = float(av.mean())
    assert abs(e - r.exact_chips) <= Z * av.std() / np.sqrt(av.size)
    money = r.samples()
    assert np.var(av) * 1.5 < np.var(money)  # measured 1.87 (duplicate money is already lower)
    d = aivat_log(log, r.names[0], strategy=good, opponent=weak, value="calldown")
    assert d.hands == 100_000
    first = r.values[0].astype(np.float64)
    assert np.allclose(d.money[:50_000], first)
    assert d.aivat.mean() == pytest.approx(float(r.aivat.mean()), abs=1e-9)


def test_bad_input(tmp_path, capsys, leduc_profile):
    game, good, weak = leduc_profile
    log = tmp_path / "m.log"
    play_match(game, good, weak, 100, seed=1, log=log)
    with pytest.raises(CfrlabError, match="at least one known strategy"):
        aivat_log(log, "x", game=game)
    with pytest.raises(CfrlabError, match="unknown AIVAT value function"):
        aivat_log(log, play_match(game, good, weak, 1, seed=1).names[0], strategy=good, value="magic")
    with pytest.raises(CfrlabError, match="no hand of player"):
        aivat_log(log, "nobody", strategy=good)
    kuhn = make_agent(solve("kuhn", "cfr+", iterations=10).strategy, "kuhn")
    with pytest.raises(CfrlabError, match="plays kuhn|another game"):
        aivat_log(log, play_match(game, good, weak, 1, seed=1).names[0], strategy=kuhn)
    rc, _, err = run(capsys, "aivat", str(log), "--player", "nobody", "--strategy", "random")
    assert rc != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli(tmp_path, capsys):
    log = tmp_path / "m.log"
    rc, out, err = run(capsys, "match", "leduc", "value", "random", "-n", "2000", "--seed", "3", "--log", str(log),
                       "--aivat", "--json")
    assert rc == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["aivat"]["variance_ratio"] > 1.0
    name = summary["players"][0]
    rc, out, err = run(capsys, "aivat", str(log), "--player", name, "--strategy", "value", "--opponent", "random",
                       "--json")
    assert rc == 0, err
    got = json.loads(out)
    assert got["hands"] == 2000 and got["estimators"]["aivat"]["variance_ratio"] > 1.0
    rc, out, err = run(capsys, "aivat", str(log), "--player", name, "--strategy", "value", "--opponent", "random")
    assert rc == 0, err
    lines = out.splitlines()  # a line per estimator, labels in one column, the same figures as --json
    assert lines[0] == f"{name} over 2000 hands of leduc (chips/g, 95% CI):" and len(lines) == 4
    for line, label, key in zip(lines[1:], ("money", "AIVAT, cards only", "AIVAT"), ("money", "aivat_chance", "aivat")):
        e = got["estimators"][key]
        assert line == (f"  {label:18s} {e['mean']:+12.4f} +/- {e['ci95']:.4f}   std {e['std']:.4f}   "
                        f"variance / {e['variance_ratio']:.2f}")
