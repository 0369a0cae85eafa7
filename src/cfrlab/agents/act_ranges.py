"""``ActRange``: any agent as a ``RangePolicy`` (``cfrlab.agents.ranges``), read through what it
plays, for the range-based tools (local best response) against agents that offer no table.

At each decision of the agent the adapter asks it, for every hand it might hold (the hands
of ``ranges.hands(game)`` that miss the board), what it plays: it builds the ``MatchState``
that seat would see with that hand (``parse_match_state``: the betting so far, the hand, the
board; hand number 0) and calls

* ``agent.action_probabilities(view) -> dict[str, float]`` when the agent has it: the ACPC
  actions (``f``, ``c``, ``r`` or ``r<N>``) and their probabilities (normalized here; every
  action must be legal);
* otherwise ``agent.act(view) -> str``, taken as the agent's only action with that hand: the
  agent must play a pure strategy. Its ``rng`` (the generator ``Agent.begin_match`` makes) is
  set to the same seed before every question, and for the first ``CHECKED`` questions it is
  asked again with another seed (a new one each time): an agent whose answer changes is
  refused in one line (a randomizing agent must say its probabilities through
  ``action_probabilities``).

The agent must decide from the view alone, not from state it keeps between calls (the adapter
asks about many hands and histories in any order). One path (``None``): the agent's play is a
function of the view. The answers are cached per (seat, betting, board), so a decision costs
one question per hand, once: fine for Kuhn, Leduc and small decks, slow for hold'em (1,326
hands a decision, each a Python call; an agent that can answer for every hand at once should
give ``range_policy`` or, in limit games, ``batch_policy``).
"""

from __future__ import annotations

import math

import numpy as np

from cfrlab.agents.ranges import hands
from cfrlab.cards.cards import card_text
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, State
from cfrlab.games.matchstate import parse_match_state

CHECKED = 64  # questions asked twice (two seeds) to catch an agent whose act is random
SEEDS = (0, 1)


def can_act(agent) -> bool:
    """Whether ``agent`` can be asked what it plays (``act`` or ``action_probabilities``)."""
    return callable(getattr(agent, "action_probabilities", None)) or callable(getattr(agent, "act", None))


class ActRange:
    """``agent`` (an ``Agent``, or any object with ``act(view)`` or
    ``action_probabilities(view)``) in ``game`` as a ``RangePolicy`` (module docstring)."""

    def __init__(self, agent, game: GameDef) -> None:
        if not can_act(agent):
            raise CfrlabError(f"{_name(agent)}: an agent answers act(view) with an action (or "
                              "action_probabilities(view) with their probabilities)")
        self.agent, self.game = agent, game
        self.name = _name(agent)
        self.cards = hands(game)
        self.probabilities = callable(getattr(agent, "action_probabilities", None))
        begin = getattr(agent, "begin_match", None)
        if callable(begin):
            begin(game, SEEDS[0])
        self._asked = 0
        self._rows: dict[tuple, tuple[list[str], np.ndarray]] = {}

    def root(self, position: int) -> list[tuple[None, float]]:
        return [(None, 1.0)]

    def advance(self, path, state: State, action: str) -> list[tuple[None, float]]:
        return [(None, 1.0)]

    def probs(self, path, state: State, board) -> tuple[list[str], np.ndarray]:
        seat = state.current_player()
        board = [int(c) for c in board]
        key = (seat, state.betting_string(), tuple(board))
        got = self._rows.get(key)
        if got is None:
            got = self._rows[key] = self._ask(seat, state, board)
        return got

    # -- asking the agent -------------------------------------------------------------------
    def _ask(self, seat: int, state: State, board: list[int]) -> tuple[list[str], np.ndarray]:
        prefix = f"MATCHSTATE:{seat}:0:{state.betting_string()}:"
        tail = _board_text(self.game, board, state.round)
        used = set(board)
        answers: list[dict[str, float] | None] = []
        for hand in self.cards:
            if used.intersection(hand):
                answers.append(None)  # a hand that meets the board: its row is never read
                continue
            fields = ["".join(card_text(c) for c in hand) if p == seat else ""
                      for p in range(self.game.num_players)]
            view = parse_match_state(self.game, prefix + "|".join(fields) + tail)
            answers.append(self._answer(view, state))
        actions = [a for a in state.legal_actions() if any(d and a in d for d in answers)]
        extra = sorted({a for d in answers if d for a in d} - set(actions), key=_amount)
        actions += extra  # no-limit raises other than the minimum and all-in
        rows = np.zeros((len(self.cards), len(actions)))
        col = {a: k for k, a in enumerate(actions)}
        for h, d in enumerate(answers):
            if d:
                for a, p in d.items():
                    rows[h, col[a]] = p
        return actions, rows

    def _answer(self, view, state: State) -> dict[str, float]:
        if self.probabilities:
            got = self.agent.action_probabilities(view)
            if not isinstance(got, dict):
                raise CfrlabError(f"{self.name}: action_probabilities(view) must return a dict "
                                  f"{{action: probability}}, got {type(got).__name__}")
            return self._checked(got, view, state)
        first = self._act(view, SEEDS[0])
        if self._asked < CHECKED:
            self._asked += 1
            second = self._act(view, SEEDS[1] + self._asked)  # another seed each time
            if second != first:
                raise CfrlabError(
                    f"{self.name}: act answers {first!r} or {second!r} at {view.to_string()} "
                    "depending on its random draws; local best response reads a random agent's "
                    "play through action_probabilities(view) -> {action: probability}")
        return self._checked({first: 1.0}, view, state)

    def _act(self, view, seed: int) -> str:
        if hasattr(self.agent, "rng") or hasattr(self.agent, "begin_match"):
            self.agent.rng = np.random.default_rng(seed)
        return self.agent.act(view)

    def _checked(self, dist: dict, view, state: State) -> dict[str, float]:
        out: dict[str, float] = {}
        for a, p in dist.items():
            try:
                q = float(p)
            except (TypeError, ValueError):
                q = math.nan
            if not (isinstance(a, str) and math.isfinite(q) and q >= 0):
                raise CfrlabError(f"{self.name}: at {view.to_string()} it answered {a!r} with "
                                  f"probability {p!r}; actions are ACPC strings, probabilities "
                                  "finite and >= 0")
            if q > 0:
                if not state.is_legal(a):
                    raise CfrlabError(f"{self.name}: {a!r} is not a legal action at "
                                      f"{view.to_string()} (legal: {', '.join(state.legal_actions())})")
                a = "r" if self.game.is_limit and a[0] == "r" else a
                out[a] = out.get(a, 0.0) + q
        total = sum(out.values())
        if not total > 0:
            raise CfrlabError(f"{self.name}: no action with a probability above 0 at {view.to_string()}")
        return {a: q / total for a, q in out.items()}


def _name(agent) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def _amount(action: str) -> int:
    return int(action[1:]) if action[1:].isdigit() else -1


def _board_text(game: GameDef, board: list[int], round_: int) -> str:
    """The board part of a match-state line: round 0's cards straight after the hole fields,
    then ``/`` and each later round's, up to ``round_``."""
    parts, at = [], 0
    for r in range(round_ + 1):
        k = game.num_board_cards[r]
        parts.append("".join(card_text(c) for c in board[at:at + k]))
        at += k
    return "/".join(parts)
