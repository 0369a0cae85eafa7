"""A Gymnasium environment: one seat of any cfrlab game against cfrlab agents.

The other seats are agents (``cfrlab.agents.make_agent`` specs such as ``random``,
``always-call``, ``always-raise``, ``value``, a strategy file, or Agent / Strategy objects;
one spec for every other seat or a list of them, by position). One episode is one hand: the
opponents act until it is the learner's turn, ``step`` plays the learner's action id and
again the opponents', and the reward is the learner's chips won or lost when the hand ends.
Observations, action ids and the illegal-action rule are the PettingZoo environment's
(``cfrlab.envs.aec``); ``seat`` is a position or ``"alternate"`` (hand h sits at position
h mod players).

``reset(seed=s)`` reseeds the deals, restarts the opponents (``Agent.begin_match`` with
seeds drawn from s) and restarts the hand count (with ``seat="alternate"`` the seeded hand sits
at position 0), so a seeded episode and the ones after it replay exactly; ``reset()`` goes on
with the same streams. The environment passes ``gymnasium.utils.env_checker.check_env`` (with
``illegal="call"``: the checker steps random ids) in every seat mode.

Misuse is one ``CfrlabError`` line (``cfrlab.envs.checks``): ``step`` before ``reset()`` or
after the hand ended raises ``ResetNeededError``; a value that is not an action id raises
``NotAnActionError`` under either illegal-action rule; a bad seed is Gymnasium's own error
(``gymnasium.error.Error``, raised by ``gymnasium.Env.reset``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from cfrlab.agents import make_agent
from cfrlab.envs.checks import ResetNeededError, as_int
from cfrlab.envs.deps import require
from cfrlab.envs.table import Table
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.games.gamedef import GameDef
from cfrlab.games.matchstate import seat_view

try:  # the env extra; PokerGymEnv() says how to install it when missing
    import gymnasium
    from gymnasium import spaces

    _GymBase = gymnasium.Env
except ImportError:  # pragma: no cover - exercised through require()
    _GymBase, spaces = object, None

MAX_SKIPPED_HANDS = 1000


class PokerGymEnv(_GymBase):
    """Gymnasium environment: ``seat`` of ``game`` against ``opponent`` (module docstring).
    ``bets``, ``encoding``, ``illegal`` and ``render_mode`` as in ``PokerEnv``."""

    metadata: ClassVar[dict] = {"render_modes": ["ansi"]}

    def __init__(self, game: GameDef | str = "leduc", opponent="random", *, seat: int | str = 0,
                 bets: str | None = None, encoding: str = "auto", illegal: str = "raise",
                 render_mode: str | None = None) -> None:
        require("gymnasium")
        self.table = Table(game, bets, encoding, illegal)
        self.game = self.table.game
        n = self.game.num_players
        position = None if isinstance(seat, str) else as_int(seat)
        if seat != "alternate" and (position is None or not 0 <= position < n):
            raise CfrlabError(f"seat must be a position 0..{n - 1} or 'alternate', got {seat!r}")
        self.seat_rule = "alternate" if position is None else position
        specs = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent] * (n - 1)
        if len(specs) != n - 1:
            raise CfrlabError(f"{self.game.name or 'this game'} needs {n - 1} opponents, got {len(specs)}")
        self.opponents = [make_agent(s, self.game) for s in specs]
        self.render_mode = render_mode
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.table.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.table.actions.size,), np.int8)})
        self.action_space = spaces.Discrete(self.table.actions.size)
        self.hands = 0
        self.seat = 0 if position is None else position

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.hands = 0  # a seeded episode replays: the same seat too
            for agent in self.opponents:
                agent.begin_match(self.game, int(self.np_random.integers(2**63)))
        for _ in range(MAX_SKIPPED_HANDS):  # a hand the seat never acts in (all-in blinds) is skipped
            self.seat = self.hands % self.game.num_players if self.seat_rule == "alternate" else self.seat
            self.hands += 1
            self.table.new_hand(self.np_random)
            self._opponents_act()
            if not self.table.state.is_terminal():
                return self._observe(), {"seat": self.seat}
        raise CfrlabError(f"position {self.seat} never acts in {MAX_SKIPPED_HANDS} hands of "
                          f"{self.game.name or 'this game'}")

    def step(self, action):
        state = self.table.state
        if state is None:
            raise ResetNeededError("no hand has been dealt: call reset() first")
        if state.is_terminal():
            raise ResetNeededError("the hand is over: call reset() for the next")
        text, illegal = self.table.action_text(action)
        self.table.play(text)
        self._opponents_act()
        info: dict = {"seat": self.seat}
        if illegal:
            info["illegal_action"] = as_int(action)
        reward = 0.0
        terminated = state.is_terminal()
        if terminated:
            reward = float(state.payoffs()[self.seat])
            for p, agent in self._by_position():
                agent.end_hand(seat_view(state, p))
        return self._observe(), reward, terminated, False, info

    def _by_position(self):
        others = [p for p in range(self.game.num_players) if p != self.seat]
        return zip(others, self.opponents)

    def _opponents_act(self) -> None:
        state = self.table.state
        agents = dict(self._by_position())
        while not state.is_terminal() and state.current_player() != self.seat:
            p = state.current_player()
            agent = agents[p]
            action = agent.act(seat_view(state, p))
            if not isinstance(action, str) or not state.is_legal(action):
                raise IllegalActionError(f"opponent {getattr(agent, 'name', agent)!r} played {action!r} at "
                                         f"betting '{state.betting_string()}'; legal: {', '.join(state.legal_actions())}")
            self.table.play(action)

    def _observe(self) -> dict:
        return {"observation": self.table.observation(self.seat), "action_mask": self.table.mask(self.seat)}

    def render(self) -> str | None:
        if self.render_mode is None or self.table.state is None:
            return None
        return self.table.render()

    def close(self) -> None:
        pass
