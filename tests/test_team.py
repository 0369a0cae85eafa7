"""Teams: UCB1 within its regret bound on a bandit with known arms; a team learns to field its
best member; team specs and their errors."""

import math

import numpy as np
import pytest

import cfrlab
from cfrlab.agents.team import UCB1, TeamAgent


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
                          ("team:ucb1:divat=always-call", "money"),
                          (f"team:ucb1=always-call,{tmp_path / 'leduc.npz'}", "leduc")):
        with pytest.raises(cfrlab.CfrlabError, match=message) as e:
            cfrlab.make_agent(spec, "kuhn")
        assert "\n" not in str(e.value)
