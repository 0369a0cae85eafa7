"""Teams: UCB1 within its regret bound on a bandit with known arms; Darse's rule settles on the
best arm; a team learns to field its best member; DIVAT rewards equal the log's DIVAT values
where the cards were shown; team specs and their errors."""

import math

import numpy as np
import pytest

import cfrlab
from cfrlab.agents.team import UCB1, DarseRule, TeamAgent
from cfrlab.evaluate.divat import divat_log
from cfrlab.games import load_game, parse_log_line
from cfrlab.games.matchstate import seat_view


def test_ucb1_stays_within_its_regret_bound():
    """Auer, Cesa-Bianchi and Fischer (2002), Theorem 1: expected regret after n plays is at most
    sum over worse arms of 8 ln n / gap + (1 + pi^2 / 3) gap. Averaged over 20 runs."""
    means = np.array([0.9, 0.8, 0.6, 0.5])
    n = 5_000
    gaps = means.max() - means
    bound = sum(8 * math.log(n) / d + (1 + math.pi ** 2 / 3) * d for d in gaps if d > 0)
    regrets = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        bandit = UCB1(len(means))
        for _ in range(n):
            arm = bandit.select()
            bandit.update(arm, float(rng.random() < means[arm]))
        regrets.append(float((gaps * bandit.counts).sum()))
    assert np.mean(regrets) <= bound
    assert bandit.counts.argmax() == 0 and bandit.counts[0] > 0.8 * n


def test_a_team_fields_its_best_member():
    eq = cfrlab.solve("kuhn", "lp").strategy
    team = TeamAgent([cfrlab.make_agent("always-fold", "kuhn"), cfrlab.make_agent(eq)])
    res = cfrlab.play_match("kuhn", team, "always-call", 20_000, seed=2)
    assert team.plays[1] > 0.75 * sum(team.plays)  # UCB1 keeps trying the other: O(log n / gap^2) hands
    alone = cfrlab.play_match("kuhn", eq, "always-call", 20_000, seed=2)
    assert res.overall().mean > alone.overall().mean - 0.15  # close to the best member alone


def test_team_specs(tmp_path):
    eq = cfrlab.solve("kuhn", "lp").strategy
    eq.save(tmp_path / "eq.npz")
    agent = cfrlab.make_agent(f"team:ucb1=always-call,{tmp_path / 'eq.npz'}", "kuhn", seed=1)
    assert isinstance(agent, TeamAgent) and len(agent.members) == 2
    res = cfrlab.play_match("kuhn", agent, "random", 2_000, seed=1)
    assert sum(agent.plays) == 2_000 and res.hands == 2_000
    leduc = cfrlab.solve("leduc", "cfr+", iterations=10).strategy
    leduc.save(tmp_path / "leduc.npz")
    for spec, message in (("team:ucb1", "team:COACH=AGENT"), ("team:greedy=always-call", "unknown coach"),
                          ("team:ucb1:luck=always-call", "unknown team reward"),
                          (f"team:ucb1=always-call,{tmp_path / 'leduc.npz'}", "leduc")):
        with pytest.raises(cfrlab.CfrlabError, match=message) as e:
            cfrlab.make_agent(spec, "kuhn")
        assert "\n" not in str(e.value)


def test_darse_rule_settles_on_the_best_arm():
    """Rewards in chips (normal, sd 6 as a hold'em hand's): the only arm with a positive mean
    ends up with almost every pull (its score sum / sqrt(n) grows, the others' fall)."""
    means = np.array([-0.5, 0.5, 0.0, -1.0])
    rng = np.random.default_rng(4)
    coach = DarseRule(len(means))
    for _ in range(20_000):
        arm = coach.select()
        coach.update(arm, float(rng.normal(means[arm], 6.0)))
    assert coach.counts.argmax() == 1 and coach.counts[1] > 0.8 * coach.counts.sum()
    with pytest.raises(cfrlab.CfrlabError):
        coach.update(0, float("nan"))


@pytest.mark.parametrize("reward,column", [("divat", "divat"), ("showdown", "showdown")])
def test_divat_rewards_are_the_logs_values_where_cards_were_shown(tmp_path, reward, column):
    """Oracle: cfrlab.evaluate.divat over the log (which sees every card). At a showdown the
    team's reward is that value; where a player folded (the opponent's cards unseen) money."""
    game = load_game("leduc")
    log = tmp_path / "m.log"
    cfrlab.play_match(game, "value", "random", 400, seed=3, log=log, names=("me", "them"))
    d = divat_log(log, "me", game)
    team = TeamAgent([cfrlab.make_agent("always-call", game)], reward=reward)
    team.begin_match(game, 1)
    lines = [x for x in log.read_text().splitlines() if x.startswith("STATE:")]
    shown = 0
    for k, line in enumerate(lines):
        ll = parse_log_line(game, line)
        pos = ll.names.index("me")
        view = seat_view(ll.state(), pos)
        got = team.hand_reward(view)
        if any(h is None for h in view.hole):
            assert got == pytest.approx(d.money[k], abs=1e-9)
        else:
            shown += 1
            assert got == pytest.approx(getattr(d, column)[k], abs=1e-9)
    assert 50 < shown < len(lines)


def test_a_darse_team_with_divat_rewards_fields_its_best_member():
    eq = cfrlab.solve("leduc", "cfr+", iterations=200).strategy
    team = TeamAgent([cfrlab.make_agent("always-fold", "leduc"), cfrlab.make_agent(eq)], coach="darse",
                     reward="divat")
    cfrlab.play_match("leduc", team, "always-call", 3_000, seed=2)
    assert team.plays[1] > 0.9 * sum(team.plays)
    spec = cfrlab.make_agent("team:darse:showdown=always-fold,always-raise", "leduc", seed=1)
    assert spec.coach_name == "darse" and spec.reward == "showdown"
    with pytest.raises(cfrlab.CfrlabError, match="2-player limit"):
        TeamAgent([cfrlab.make_agent("always-call", "kuhn-3p")], reward="divat").begin_match(load_game("kuhn-3p"))


def test_team_members_must_be_agents():
    # issue 27: a None member was accepted and failed only when the coach picked it
    with pytest.raises(cfrlab.CfrlabError, match="team member 1 is NoneType, not an Agent"):
        TeamAgent([cfrlab.make_agent("always-call", "kuhn"), None])
