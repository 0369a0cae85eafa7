"""A PettingZoo AEC environment for any cfrlab game (2 to N players, limit and no-limit).

One episode is one hand. Agents ``player_0`` .. ``player_{N-1}`` are the ACPC positions
0 .. N-1 (in hold'em position 0 is the big blind). Each observes
``{"observation": float32[size], "action_mask": int8[actions]}`` (``cfrlab.envs.encoding``,
``cfrlab.envs.actions``); the mask is zero except for the agent to act. Rewards are the chips
won or lost, given once, when the hand ends (``State.payoffs``). ``reset(seed=s)`` reseeds the
deals; ``reset()`` deals the next hand of the same stream.

An illegal action id raises ``IllegalActionError`` and leaves the hand as it was
(``illegal="raise"``, the default), or plays a check/call instead, as the ACPC dealer does
(``illegal="call"``; the agent's info then holds ``"illegal_action"``). A value that is not an
action id at all (not an integer: a string, None, a float, a bool; or an integer outside the
action space) raises ``NotAnActionError`` under either rule and leaves the hand as it was.

Misuse is one ``CfrlabError`` line (``cfrlab.envs.checks``): ``step``, ``observe`` or ``last``
before ``reset()``, or ``step``/``last`` once every agent has stepped out of the finished hand,
raise ``ResetNeededError``; a terminated agent stepping with anything but None raises
``IllegalActionError`` (a ``ValueError``, as PettingZoo's dead step does); an unknown agent
raises ``UnknownAgentError`` (a ``KeyError``, as PettingZoo's per-agent dicts do); a bad seed
is refused.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cfrlab.envs.checks import ResetNeededError, UnknownAgentError, as_int, check_seed, short_repr
from cfrlab.envs.deps import require
from cfrlab.envs.table import Table
from cfrlab.errors import IllegalActionError
from cfrlab.games.gamedef import GameDef

try:  # the env extra; PokerEnv() says how to install it when missing
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError:  # pragma: no cover - exercised through require()
    AECEnv, spaces = object, None


class PokerEnv(AECEnv):
    """PettingZoo AEC environment of ``game`` (a built-in name, a .game path or a GameDef).

    ``bets``: the no-limit action set's bet spec (``cfrlab.envs.actions``); ``encoding``:
    ``auto``, ``openspiel`` or ``cfrlab`` (``cfrlab.envs.encoding``); ``illegal``: ``raise`` or
    ``call`` (module docstring); ``render_mode``: None or ``"ansi"``."""

    metadata: ClassVar[dict] = {"name": "cfrlab_poker_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: GameDef | str = "leduc", *, bets: str | None = None, encoding: str = "auto",
                 illegal: str = "raise", render_mode: str | None = None) -> None:
        require()
        super().__init__()
        self.table = Table(game, bets, encoding, illegal)
        self.game = self.table.game
        self.render_mode = render_mode
        n, size, width = self.game.num_players, self.table.encoding.size, self.table.actions.size
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (width,), np.int8)}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(width) for a in self.possible_agents}
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._agent(agent)]

    def _agent(self, agent) -> str:
        """``agent`` when it is one of ``possible_agents``, else ``UnknownAgentError``."""
        if not isinstance(agent, str) or agent not in self._index:
            raise UnknownAgentError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}")
        return agent

    def _started(self) -> None:
        if self.table.state is None:
            raise ResetNeededError("no hand has been dealt: call reset() first")

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if check_seed(seed) is not None:
            self._rng = np.random.default_rng(seed)
        state = self.table.new_hand(self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if state.is_terminal():  # every blind all-in: the hand is over before anyone acts
            self.agent_selection = self.agents[0]
            self._finish()
        else:
            self.agent_selection = self.agents[state.current_player()]

    def observe(self, agent: str) -> dict:
        p = self._index[self._agent(agent)]
        self._started()
        return {"observation": self.table.observation(p), "action_mask": self.table.mask(p)}

    def last(self, observe: bool = True):
        self._started()
        if not self.agents:
            raise ResetNeededError("the hand is over and every agent has stepped out: call reset() for the next")
        return super().last(observe)

    def step(self, action) -> None:
        self._started()
        if not self.agents:
            raise ResetNeededError("the hand is over and every agent has stepped out: call reset() for the next")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(f"the hand is over for {agent}: a terminated agent steps with None "
                                         f"(PettingZoo's convention), got {short_repr(action)}")
            self._was_dead_step(action)
            return
        text, illegal = self.table.action_text(action)
        self.table.play(text)
        self.infos = {a: {} for a in self.agents}
        if illegal:
            self.infos[agent]["illegal_action"] = as_int(action)
        self._cumulative_rewards[agent] = 0.0
        if self.table.state.is_terminal():
            self._finish()
        else:
            self.agent_selection = self.agents[self.table.state.current_player()]
            self._clear_rewards()

    def _finish(self) -> None:
        pay = self.table.state.payoffs()
        self.rewards = {a: float(pay[p]) for p, a in enumerate(self.possible_agents)}
        self.terminations = {a: True for a in self.agents}
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.table.render()

    def close(self) -> None:
        pass


def env(game: GameDef | str = "leduc", **kwargs) -> PokerEnv:
    """``PokerEnv(game, **kwargs)`` (PettingZoo's ``env()`` convention)."""
    return PokerEnv(game, **kwargs)
