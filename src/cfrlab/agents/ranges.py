"""An agent's play for every hand at once, in the real game: what range-based tools read.

Local best response and the real-game evaluations follow a hand of the real game from the
responder's side and need, at each of the agent's decisions, its action probabilities for
*every* private hand it might hold (to play against it and to update its range by Bayes'
rule). An agent whose play depends on more than the public betting and its cards (a
translated abstract strategy with a randomized translation rule draws a mapping for each
off-tree action, and its later play depends on the draw) is followed along *paths*: one
path per outcome of those private draws, each with the probability of its draws. A range
tool keeps a range per path (its weight times the hands' probabilities of the agent's own
actions along it); the agent's behaviour at a real history is the mixture of its paths
weighted by those ranges (Kuhn's theorem), which is exact.

``RangePolicy`` is that contract; an agent offers it through ``range_policy(game)``
(``None`` by default in ``cfrlab.games.agent.Agent``). Hands are indices into
``hands(game)``: every hole-card tuple of one seat (``itertools.combinations`` of the deck
in card-id order), so a range is a float64 vector over them.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cfrlab.cards.cards import deck
from cfrlab.games import GameDef, State


def hands(game: GameDef) -> list[tuple[int, ...]]:
    """Every hole-card tuple of one seat, in the order ranges index them."""
    return list(combinations(sorted(deck(game.num_ranks, game.num_suits)), game.num_hole_cards))


@runtime_checkable
class RangePolicy(Protocol):
    """An agent's real-game play for every hand at once (module docstring).

    ``position`` is the seat the agent plays; ``state`` a real ``games.State`` (its cards are
    not read: the hole cards of the agent's seat are the range's, the board is the state's
    visible board, both given through ``board``)."""

    def root(self, position: int) -> list[tuple[Any, float]]:
        """The paths at the start of a hand, with their probabilities (usually one, 1.0)."""
        ...

    def probs(self, path: Any, state: State, board: list[int]) -> tuple[list[str], np.ndarray]:
        """At the agent's decision (``state.current_player() == position``): the real actions
        it may take (ACPC strings, e.g. ``["f", "c", "r300", "r20000"]``) and float64[H, k]
        their probabilities for each of the H hands of ``hands(game)`` (rows of hands that
        meet the board are anything)."""
        ...

    def advance(self, path: Any, state: State, action: str) -> list[tuple[Any, float]]:
        """The paths after ``action`` is taken at ``state`` (before it is applied), by either
        player, with the probability of each (several only where the agent draws a private
        mapping, e.g. a randomized translation of an opponent's off-tree bet); probabilities
        sum to 1."""
        ...
