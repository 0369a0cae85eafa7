"""Teams: several agents and a coach that picks one of them for each hand.

The coach is a multi-armed bandit over the members (Johanson's thesis, "Robust strategies and
counter-strategies", chapter 6, after Auer, Cesa-Bianchi and Fischer, "Finite-time Analysis
of the Multiarmed Bandit Problem", Machine Learning 2002): UCB1 plays every member once, then
the member with the largest mean reward plus sqrt(2 ln n / n_j), n hands so far and n_j of
them by member j. UCB1 maps a hand's reward to [0, 1] by the most a hand can win or lose.
"Darse's rule" (the coach of the 2006 competition's Hyperborean, thesis section 2.7.1) plays
every member once, then the member with the largest sum of rewards divided by the square root
of its hands.

The reward of a hand (``reward``): ``money``, the chips won by the team's seat; ``divat`` or
``showdown``, the DIVAT or showdown DIVAT value of the hand (``cfrlab.evaluate.divat``) when
the opponent's cards were shown, and money when a player folded: what a seat sees, so a
variance-reduced but biased reward, as the thesis's coach used (its "Showdown DIVAT").
Members are told of every hand's end, also of hands another member played, so that agents
that learn keep learning.
"""

from __future__ import annotations

import importlib
import math

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.games.agent import Agent

COACHES = ("ucb1", "darse")
REWARDS = ("money", "divat", "showdown")
_DIVAT_COLUMN = {"showdown": 1, "divat": 2}


class _Bandit:
    """A bandit over ``arms`` arms: each arm once, then the one of largest ``score``."""

    def __init__(self, arms: int):
        if arms < 1:
            raise CfrlabError("a bandit needs at least one arm")
        self.counts = np.zeros(arms, dtype=np.int64)
        self.sums = np.zeros(arms)

    def score(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, reward: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def select(self) -> int:
        untried = np.flatnonzero(self.counts == 0)
        if len(untried):
            return int(untried[0])
        return int(np.argmax(self.score()))

    def update(self, arm: int, reward: float) -> None:
        self.check(reward)
        self.counts[arm] += 1
        self.sums[arm] += reward


class UCB1(_Bandit):
    """UCB1 over ``arms`` arms with rewards in [0, 1]."""

    def score(self) -> np.ndarray:
        n = int(self.counts.sum())
        return self.sums / self.counts + np.sqrt(2.0 * math.log(n) / self.counts)

    def check(self, reward: float) -> None:
        if not 0.0 <= reward <= 1.0:
            raise CfrlabError(f"UCB1 rewards lie in [0, 1], got {reward!r}")


class DarseRule(_Bandit):
    """Darse Billings' rule: every arm once, then the largest sum of rewards / sqrt(plays)."""

    def score(self) -> np.ndarray:
        return self.sums / np.sqrt(self.counts)

    def check(self, reward: float) -> None:
        if not math.isfinite(reward):
            raise CfrlabError(f"a reward must be finite, got {reward!r}")


def _divat_module():
    # Loaded on first use: it ranks hold'em hands with the seven-card evaluator, whose tables
    # are built at import, and a team on Kuhn with money rewards should not pay for that.
    return importlib.import_module("cfrlab.evaluate.divat")


def hand_bound(game) -> float:
    """The most chips one seat can win or lose in a hand of a limit game (its reward scale)."""
    if game.is_limit:
        return float(max(game.blind) + sum(m * s for m, s in zip(game.max_raises, game.raise_size)))
    return float(max(game.stack))


class TeamAgent(Agent):
    """Members (Agents of one game) and a coach (``ucb1`` or ``darse``) choosing one per hand,
    rewarded by ``money``, ``divat`` or ``showdown`` (module docstring)."""

    def __init__(self, members: list[Agent], coach: str = "ucb1", name: str | None = None,
                 reward: str = "money"):
        if not members:
            raise CfrlabError("a team needs at least one member")
        for k, m in enumerate(members):
            if not isinstance(m, Agent):
                raise CfrlabError(f"team member {k} is {type(m).__name__}, not an Agent")
        if coach not in COACHES:
            raise CfrlabError(f"unknown coach {coach!r}; choose from {', '.join(COACHES)}")
        if reward not in REWARDS:
            raise CfrlabError(f"unknown team reward {reward!r}; choose from {', '.join(REWARDS)}")
        self.members = list(members)
        self.coach_name = coach
        self.reward = reward
        self.name = name or "team(" + ",".join(getattr(m, "name", "agent") for m in members) + ")"
        self.coach = self._new_coach()
        self._hand: int | None = None
        self._arm = 0
        self._bound = 1.0

    def _new_coach(self):
        return UCB1(len(self.members)) if self.coach_name == "ucb1" else DarseRule(len(self.members))

    def begin_match(self, game, seed: int | None = None) -> None:
        super().begin_match(game, seed)
        if self.reward != "money" and (game.num_players != 2 or not game.is_limit):
            raise CfrlabError(f"a team's {self.reward} reward needs a 2-player limit game")
        for i, m in enumerate(self.members):
            m.begin_match(game, None if seed is None else seed + 1 + i)
        self.coach = self._new_coach()
        self._hand = None
        self._bound = hand_bound(game)

    def _choose(self, hand: int) -> None:
        if self._hand != hand:
            self._hand = hand
            self._arm = self.coach.select()

    def act(self, view) -> str:
        self._choose(view.hand_number)
        return self.members[self._arm].act(view)

    def hand_reward(self, view) -> float:
        """The chips this hand is worth to the coach (``reward``; money where cards are hidden)."""
        money = float(view.state().payoffs()[view.position])
        if self.reward == "money" or any(h is None for h in view.hole):
            return money
        g = view.game
        holes = np.array([view.hole], dtype=np.int64)
        board = np.array([view.visible_board()], dtype=np.int64)
        out = _divat_module().divat_arrays(g, holes, board, [view.betting_string()])
        value = float(out[0, _DIVAT_COLUMN[self.reward]])
        return value if view.position == 0 else -value

    def end_hand(self, view) -> None:
        self._choose(view.hand_number)  # a hand that ended before the team acted counts too
        for m in self.members:
            m.end_hand(view)
        r = self.hand_reward(view)
        if self.coach_name == "ucb1":
            r = min(1.0, max(0.0, 0.5 + 0.5 * r / self._bound))
        self.coach.update(self._arm, r)

    @property
    def plays(self) -> list[int]:
        """Hands played by each member so far."""
        return [int(c) for c in self.coach.counts]
