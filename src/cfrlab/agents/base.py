"""The one small agent interface shared by matches, the ACPC client, and human play.

An agent sees what its seat sees: a ``MatchState`` (``cfrlab.games.parse_match_state``),
which knows the game, the seat's position, the hand number, the betting so far, the
seat's own hole cards (others' only after a showdown) and the board. It answers with an
ACPC action string: ``f``, ``c``, ``r`` (limit) or ``r<N>`` (no-limit raise-to).
Agents must only return legal actions (``view.legal_actions()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from cfrlab.games import GameDef
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
