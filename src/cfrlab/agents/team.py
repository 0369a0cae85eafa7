"""Teams: several agents and a coach that picks one of them for each hand.

The coach is a multi-armed bandit over the members (Johanson's thesis, "Robust strategies and
counter-strategies", chapter 6, after Auer, Cesa-Bianchi and Fischer, "Finite-time Analysis
of the Multiarmed Bandit Problem", Machine Learning 2002): UCB1 plays every member once, then
the member with the largest mean reward plus sqrt(2 ln n / n_j), n hands so far and n_j of
them by member j. The reward of a hand is its money (chips won by the team's seat), mapped to
[0, 1] by the most a hand can win or lose. Members are told of every hand's end, also of
hands another member played, so that agents that learn keep learning.
"""

from __future__ import annotations

import math

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.games.agent import Agent

COACHES = ("ucb1",)


class UCB1:
    """UCB1 over ``arms`` arms with rewards in [0, 1]."""

    def __init__(self, arms: int):
        if arms < 1:
            raise CfrlabError("a bandit needs at least one arm")
        self.counts = np.zeros(arms, dtype=np.int64)
        self.sums = np.zeros(arms)

    def select(self) -> int:
        untried = np.flatnonzero(self.counts == 0)
        if len(untried):
            return int(untried[0])
        n = int(self.counts.sum())
        ucb = self.sums / self.counts + np.sqrt(2.0 * math.log(n) / self.counts)
        return int(np.argmax(ucb))

    def update(self, arm: int, reward: float) -> None:
        if not 0.0 <= reward <= 1.0:
            raise CfrlabError(f"UCB1 rewards lie in [0, 1], got {reward!r}")
        self.counts[arm] += 1
        self.sums[arm] += reward


def hand_bound(game) -> float:
    """The most chips one seat can win or lose in a hand of a limit game (its reward scale)."""
    if game.is_limit:
        return float(max(game.blind) + sum(m * s for m, s in zip(game.max_raises, game.raise_size)))
    return float(max(game.stack))


class TeamAgent(Agent):
    """Members (Agents of one game) and a coach choosing one per hand."""

    def __init__(self, members: list[Agent], coach: str = "ucb1", name: str | None = None):
        if not members:
            raise CfrlabError("a team needs at least one member")
        if coach not in COACHES:
            raise CfrlabError(f"unknown coach {coach!r}; choose from {', '.join(COACHES)}")
        self.members = list(members)
        self.coach_name = coach
        self.name = name or "team(" + ",".join(getattr(m, "name", "agent") for m in members) + ")"
        self.coach = UCB1(len(members))
        self._hand: int | None = None
        self._arm = 0
        self._bound = 1.0

    def begin_match(self, game, seed: int | None = None) -> None:
        super().begin_match(game, seed)
        for i, m in enumerate(self.members):
            m.begin_match(game, None if seed is None else seed + 1 + i)
        self.coach = UCB1(len(self.members))
        self._hand = None
        self._bound = hand_bound(game)

    def _choose(self, hand: int) -> None:
        if self._hand != hand:
            self._hand = hand
            self._arm = self.coach.select()

    def act(self, view) -> str:
        self._choose(view.hand_number)
        return self.members[self._arm].act(view)

    def end_hand(self, view) -> None:
        self._choose(view.hand_number)  # a hand that ended before the team acted counts too
        for m in self.members:
            m.end_hand(view)
        money = float(view.state().payoffs()[view.position])
        self.coach.update(self._arm, min(1.0, max(0.0, 0.5 + 0.5 * money / self._bound)))

    @property
    def plays(self) -> list[int]:
        """Hands played by each member so far."""
        return [int(c) for c in self.coach.counts]
