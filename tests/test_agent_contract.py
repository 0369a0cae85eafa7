"""The agent contract is declared, not probed: ``Agent.fast_policy`` and ``batch_policy`` return
None by default, and a table speaks for an agent only when the class that plays ``act`` declares
it (``has_table``): a user's subclass that overrides ``act`` alone is played through ``act``."""

from __future__ import annotations

import cfrlab
from cfrlab.agents import make_agent
from cfrlab.agents.bots import AlwaysCall
from cfrlab.evaluate.match import fast_reason
from cfrlab.games import load_game
from cfrlab.games.agent import Agent, has_table
from cfrlab.tree import build_tree


class CallsUnlessAce(AlwaysCall):
    """Overrides act only: its inherited table (always call) is not what it plays."""

    def act(self, view):
        return "r" if "r" in view.legal_actions() else "c"


class Plain(Agent):
    def act(self, view):
        return "c"


def test_the_defaults_are_none():
    tree = build_tree(load_game("leduc"))
    assert Plain().fast_policy(tree) is None and Plain().batch_policy(tree) is None
    assert not has_table(Plain())


def test_built_in_agents_declare_their_tables():
    for spec in ("always-fold", "always-call", "always-raise", "probe", "random", "value",
                 cfrlab.Strategy.uniform("leduc")):
        agent = make_agent(spec, "leduc")
        assert has_table(agent), spec
        assert agent.fast_policy(build_tree(load_game("leduc"))) is not None


def test_a_subclass_that_overrides_act_is_played_through_act():
    game = load_game("leduc")
    mine = CallsUnlessAce()
    assert not has_table(mine)
    assert "Python agent" in fast_reason(game, mine, make_agent("always-call", game))
    # and the match it plays is its own: it raises where AlwaysCall would call
    r = cfrlab.agents.play_match(game, mine, "always-call", 200, seed=1)
    assert r.engine == "python"
