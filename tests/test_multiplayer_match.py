"""Rotated-seat N-player matches and crosstables (cfrlab.agents.nmatch) against oracles:
exact values from a naive expectation over every deal and seating through the rules engine,
zero-sum deal by deal, sampled means within their CIs of the exact values, CIs shrinking as
1/sqrt(deals), the python engine equal to the kernel game by game, crosstables equal to their
matches, logs that ``read_log`` checks hand by hand, and one-line refusals."""

from __future__ import annotations

import json
from functools import cache
from itertools import permutations

import nplayer
import numpy as np
import pytest
from cli_run import run

from cfrlab.agents import make_agent
from cfrlab.agents.bots import AlwaysCall, AlwaysFold, AlwaysRaise
from cfrlab.agents.nmatch import exact_values, ncrosstable, play_nmatch
from cfrlab.agents.nplayer import NPolicyAgent
from cfrlab.engine.nplayer import get_engine
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.evaluate.histories import read_log
from cfrlab.games import State, load_game
from cfrlab.games.agent import Agent
from cfrlab.games.matchstate import seat_view
from cfrlab.strategy import Strategy

K3 = load_game("kuhn-3p")


@cache
def _solved(game: str, algorithm: str, iterations: int) -> Strategy:
    return nplayer.solve(game, algorithm, iterations).strategy


def _naive_values(game, agents) -> np.ndarray:
    """Each agent's expected chips per game over all deals and all seatings, by walking the rules
    engine with each agent's ``distribution`` (no N-player engine involved)."""
    eng = get_engine(game)
    deals = eng.deals.prefix_cards[-1]
    n = game.num_players
    total = np.zeros(n)

    def walk(state, by_pos, prob):
        if state.is_terminal():
            pay = state.payoffs()
            for p in range(n):
                total[by_pos[p]] += prob * pay[p]
            return
        p = state.current_player()
        dist = agents[by_pos[p]].distribution(seat_view(state, p))
        for a in state.legal_actions():
            w = dist["fcr".index(a[0])]
            if w > 0:
                walk(state.clone().apply(a), by_pos, prob * w)

    perms = list(permutations(range(n)))
    for deal in deals:
        for by_pos in perms:
            walk(State(game, [int(c) for c in deal]), by_pos, 1.0 / (len(deals) * len(perms)))
    return total


def _bots(game, *names):
    return [make_agent(x, game) for x in names]


def test_bots_take_their_n_player_form_and_strategies_become_agents(tmp_path):
    call, fold, rnd = _bots(K3, "always-call", "always-fold", "random")
    assert all(type(a) is NPolicyAgent for a in (call, fold, rnd))
    assert (call.name, fold.name, rnd.name) == ("always-call", "always-fold", "random")
    s = _solved("kuhn-3p", "cfr+", 100)
    f = tmp_path / "k3.npz"
    s.save(f)
    a = make_agent(str(f), K3)
    assert type(a) is NPolicyAgent and np.array_equal(a.policy, s.policy) and a.name == "k3"
    assert make_agent(str(f) + ":greedy", K3).greedy


def test_n_player_bots_decide_as_the_bots_at_every_information_set():
    """The table form and the bot's own act agree wherever the bot can act (both deterministic bots)."""
    eng = get_engine(K3)
    for bot_cls in (AlwaysCall, AlwaysFold, AlwaysRaise):
        bot = bot_cls()
        form = make_agent(bot.name, K3)
        bot.begin_match(K3, 0)
        form.begin_match(K3, 0)
        for deal in eng.deals.prefix_cards[-1][:6]:
            stack = [State(K3, [int(c) for c in deal])]
            while stack:
                st = stack.pop()
                if st.is_terminal():
                    continue
                view = seat_view(st, st.current_player())
                assert form.act(view) == bot.act(view), (bot.name, view.to_string())
                stack.extend(st.clone().apply(x) for x in st.legal_actions())


def test_exact_values_equal_a_naive_expectation_over_deals_and_seatings():
    s = _solved("kuhn-3p", "cfr+", 200)
    agents = [NPolicyAgent.from_strategy(s), *_bots(K3, "always-raise", "random")]
    ex = exact_values(K3, agents)
    assert np.allclose(ex, _naive_values(K3, agents), atol=1e-12)
    assert abs(sum(ex)) < 1e-12
    same = [NPolicyAgent.from_strategy(s)] * 3  # self-play: the seat-averaged value of a profile is 0
    assert np.allclose(exact_values(K3, same), 0.0, atol=1e-12)


def test_rotated_means_agree_with_the_exact_values_and_sum_to_zero():
    s = _solved("kuhn-3p", "cfr+", 200)
    weak = _solved("kuhn-3p", "cfr", 10)
    inside, count = 0, 0
    for agents, seed in [([s, weak, make_agent("always-call", K3)], 1),
                         ([s, make_agent("random", K3), make_agent("always-raise", K3)], 2)]:
        r = play_nmatch(K3, agents, 20_000, seed=seed, exact=True)
        assert np.abs(r.samples().sum(axis=1)).max() < 1e-9  # zero-sum deal by deal
        for e, x in zip(r.estimates(), r.exact):
            assert abs(e.mean - x) < 3 * e.ci95 / 1.96  # within three standard errors
            inside += abs(e.mean - x) <= e.ci95
            count += 1
        per = r.per_position()
        for a in range(3):
            for p in range(3):
                assert abs(per[a][p].mean - r.exact_per_position[a][p]) < 3 * per[a][p].ci95 / 1.96 + 1e-12
    assert inside >= count - 1  # the 95% intervals hold the exact value (one miss in six allowed)


def test_leduc_3p_rotated_mean_agrees_with_the_exact_value():
    g = load_game("leduc-3p")
    agents = [Strategy.uniform(g), *_bots(g, "always-raise", "always-call")]
    r = play_nmatch(g, agents, 20_000, seed=5, exact=True)
    assert abs(sum(r.exact)) < 1e-9 and np.abs(r.samples().sum(axis=1)).max() < 1e-9
    for e, x in zip(r.estimates(), r.exact):
        assert abs(e.mean - x) < 3 * e.ci95 / 1.96


def test_confidence_interval_shrinks_like_one_over_sqrt_deals():
    agents = [_solved("kuhn-3p", "cfr+", 100), *_bots(K3, "random", "always-call")]
    small = play_nmatch(K3, agents, 10_000, seed=3).estimates()
    big = play_nmatch(K3, agents, 160_000, seed=4).estimates()
    for a, b in zip(small, big):
        assert b.ci95 / a.ci95 == pytest.approx(0.25, rel=0.1)


def test_python_engine_plays_the_same_games_as_the_kernel():
    """Deterministic agents (bots, a greedy strategy): both engines give every game's result."""
    s = _solved("kuhn-3p", "cfr+", 100)
    greedy = NPolicyAgent.from_strategy(s, greedy=True)
    agents = [greedy, *_bots(K3, "always-raise", "always-call")]
    fast = play_nmatch(K3, agents, 300, seed=9, engine="fast")
    slow = play_nmatch(K3, agents, 300, seed=9, engine="python")
    assert fast.engine == "fast" and slow.engine == "python"
    assert np.array_equal(fast.values, slow.values)
    raw = [greedy, AlwaysRaise(), AlwaysCall()]  # the bots themselves, not their table form
    assert np.array_equal(play_nmatch(K3, raw, 300, seed=9).values, fast.values)


def test_logs_are_dealer_logs_read_back_hand_by_hand(tmp_path):
    agents = [_solved("kuhn-3p", "cfr+", 100), *_bots(K3, "random", "always-raise")]
    for engine in ("fast", "python"):
        f = tmp_path / f"{engine}.log"
        r = play_nmatch(K3, agents, 200, seed=2, engine=engine, log=f, names=["cfr", "rnd", "raise"])
        log = read_log(f, K3)  # checks every STATE line's values against its cards and betting
        assert len(log.hands) == 6 * 200 and len(log.scores) == 6
        tot = log.totals_by_name()
        assert [tot[n] for n in ("cfr", "rnd", "raise")] == pytest.approx(r.values.sum(axis=(0, 1)))


def test_crosstable_entries_are_the_individual_matches():
    s = _solved("kuhn-3p", "cfr+", 100)
    weak = _solved("kuhn-3p", "cfr", 10)
    pool = [s, weak, *_bots(K3, "always-call", "random")]
    labels = ["cfr+", "cfr10", "always-call", "random"]
    t = ncrosstable(K3, pool, 3000, labels=labels, seed=11, exact=True)
    assert len(t["matches"]) == 4 and [r["matches"] for r in t["field"]] == [3, 3, 3, 3]
    for m in t["matches"]:
        r = play_nmatch(K3, [pool[i] for i in m["agents"]], 3000, seed=11, exact=True)
        assert m["mean"] == pytest.approx([e.mean for e in r.estimates()], abs=1e-12)
        assert m["ci95"] == pytest.approx([e.ci95 for e in r.estimates()], abs=1e-12)
        assert m["exact"] == pytest.approx(list(r.exact), abs=1e-12)
    for i, row in enumerate(t["field"]):
        mine = [m["mean"][m["agents"].index(i)] for m in t["matches"] if i in m["agents"]]
        assert row["mean"] == pytest.approx(np.mean(mine), abs=1e-12)
        ex = [m["exact"][m["agents"].index(i)] for m in t["matches"] if i in m["agents"]]
        assert row["exact"] == pytest.approx(np.mean(ex), abs=1e-12)
        assert abs(row["mean"] - row["exact"]) < 3 * row["ci95"] / 1.96
    json.dumps(t, allow_nan=False)


def test_mismatched_players_and_seats_are_refused_in_one_line(tmp_path):
    two = tmp_path / "k2.npz"
    Strategy.uniform("kuhn").save(two)
    three = tmp_path / "k3.npz"
    Strategy.uniform("kuhn-3p").save(three)
    with pytest.raises(CfrlabError, match="2-player strategy") as e:
        make_agent(str(two), K3)
    assert "\n" not in str(e.value)
    with pytest.raises(CfrlabError, match="3-player strategy"):
        make_agent(str(three), "kuhn")
    with pytest.raises(CfrlabError, match="2-player strategy"):
        make_agent(Strategy.uniform("kuhn"), K3)
    with pytest.raises(CfrlabError, match="3 seats"):
        play_nmatch(K3, _bots(K3, "always-call", "random"), 10)
    with pytest.raises(CfrlabError, match="kuhn-3p"):
        play_nmatch(K3, [Strategy.uniform("leduc-3p")] * 3, 10)


def test_cli_three_player_match_crosstable_and_errors(capsys, tmp_path):
    f = tmp_path / "k3.npz"
    _solved("kuhn-3p", "cfr+", 100).save(f)
    code, out, _ = run(capsys, "match", "kuhn-3p", str(f), "always-call", "random", "-n", "3000", "-s", "1",
                       "--exact", "--json")
    assert code == 0
    j = json.loads(out.strip().splitlines()[-1])
    assert j["players"] == ["k3", "always-call", "random"] and j["games"] == 18_000
    assert abs(j["sum_of_means_chips"]) < 1e-9
    for a in j["agents"]:
        assert abs(a["mean_chips"] - a["exact_chips"]) < 3 * a["ci95_chips"] / 1.96
    code, out, _ = run(capsys, "crosstable", "kuhn-3p", str(f), "always-call", "random", "always-raise",
                       "-n", "1000", "-s", "2", "--json")
    assert code == 0
    t = json.loads(out.strip().splitlines()[-1])
    assert len(t["matches"]) == 4 and [r["name"] for r in t["field"]] == ["k3", "always-call", "random",
                                                                          "always-raise"]
    for argv, words in [(["match", "kuhn-3p", str(f), "always-call"], "kuhn-3p has 3 seats"),
                        (["match", "kuhn", str(f), "always-call"], "3-player strategy"),
                        (["crosstable", "kuhn-3p", str(f), "random"], "at least 3 agents")]:
        code, _, err = run(capsys, *argv)
        lines = err.strip().splitlines()
        assert code != 0 and len(lines) == 1 and lines[0].startswith("cfrlab: error: ") and words in lines[0], err


def test_an_illegal_action_in_the_python_engine_names_the_agent_and_the_legal_actions():
    class Folder(Agent):  # folds even where nobody bet (checking is free): not legal
        name = "folder"

        def act(self, view):
            return "f"

    with pytest.raises(IllegalActionError, match=r"agent 'folder' played 'f' at MATCHSTATE:.*; legal: c, r$"):
        play_nmatch(K3, [Folder(), AlwaysCall(), AlwaysRaise()], 5, seed=1, engine="python")
