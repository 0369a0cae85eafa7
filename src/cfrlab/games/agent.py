"""The agent interface shared by matches, the ACPC client and human play, and its fast form.

An agent sees what its seat sees: a ``MatchState`` (``cfrlab.games.parse_match_state``),
which knows the game, the seat's position, the hand number, the betting so far, the
seat's own hole cards (others' only after a showdown) and the board. It answers with an
ACPC action string: ``f``, ``c``, ``r`` (limit) or ``r<N>`` (no-limit raise-to).
Agents must only return legal actions (``view.legal_actions()``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef
from cfrlab.games.matchstate import MatchState


class Agent:
    """Base class. Subclasses override ``act``; the hooks are optional."""

    name: str = "agent"

    def begin_match(self, game: GameDef, seed: int | None = None) -> None:
        """Called once before the first hand (and again when a duplicate half restarts)."""
        self.rng = np.random.default_rng(seed)

    def act(self, view: MatchState) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def end_hand(self, view: MatchState) -> None:
        """Called with the hand's final state (opponent cards shown only after a showdown)."""

    # the agent as a table, for the fast engines; None: a Python agent, played through act
    def fast_policy(self, tree) -> FastPolicy | None:
        """The agent as a ``FastPolicy`` over ``tree`` (matches, AIVAT, exact values), or None.
        A table must play exactly as ``act`` does: ``has_table`` trusts it only when the class
        that defines ``act`` is the one that defines ``fast_policy`` (or above it)."""
        return None

    def batch_policy(self, tree) -> Any:
        """The agent as a ``cfrlab.realgame.BatchPolicy`` (every hand of a board at once, for the
        real-game best response and LBR), or None (then its ``fast_policy`` is tried)."""
        return None

    def range_policy(self, game: GameDef) -> Any:
        """The agent's real-game play for every hand at once, as a
        ``cfrlab.agents.ranges.RangePolicy`` (no-limit LBR and real-game evaluations of
        translated strategies), or None."""
        return None


class StrategyBackedAgent(Agent):
    """An agent that plays its ``strategy`` (a ``cfrlab.strategy.Strategy``, or anything with a
    ``game``): its game is the strategy's, and a match in another game is refused in one line."""

    strategy: Any

    @property
    def game(self) -> GameDef:
        return self.strategy.game

    def begin_match(self, game: GameDef, seed: int | None = None) -> None:
        if game.to_text() != self.game.to_text():
            raise CfrlabError(f"strategy {self.name!r} is for {self.game.name or 'another game'}, "
                              f"not for {game.name or 'this game'}")
        super().begin_match(game, seed)


def has_table(agent: Agent) -> bool:
    """Whether ``agent.fast_policy`` speaks for it: declared by the same class as its ``act`` or
    by a subclass of it (a subclass that overrides ``act`` alone is played through ``act``)."""
    cls = type(agent)
    fp_owner = next(k for k in cls.__mro__ if "fast_policy" in vars(k))
    act_owner = next(k for k in cls.__mro__ if "act" in vars(k))
    return fp_owner is not Agent and issubclass(fp_owner, act_owner)


@dataclass
class FastPolicy:
    """An agent as the fast kernel sees it (2-player limit games).

    ``policy`` float64[rows, 3] (f, c, r); ``offsets`` int64[D] first row of each decision
    node; ``states(deals) -> int32[n, 2, R]`` the private state of each position per round
    (None for an agent whose rows do not depend on cards: then row = offsets[d]);
    ``greedy`` plays each row's most likely action instead of sampling.

    For exact expected values the table must be readable in a chance model: ``model`` is the
    chance model whose states index the rows (a strategy's own), or ``card_class(hole, board)``
    gives the row offset within a decision for an agent whose rows depend on the cards only
    through a class (the value bot's strength classes); an agent with neither and with
    ``states`` cannot be evaluated exactly.
    """

    policy: np.ndarray
    offsets: np.ndarray
    states: Callable[[np.ndarray], np.ndarray] | None = None
    greedy: bool = False
    model: Any = None  # a cfrlab.abstraction.ChanceModel (this layer sits below it)
    card_class: Callable[[list[int], list[int]], int] | None = None
