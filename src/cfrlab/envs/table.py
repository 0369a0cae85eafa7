"""One hand on the rules engine, as the PettingZoo and Gymnasium environments play it: the
state, its public encoding kept up to date, and action ids checked against the action set."""

from __future__ import annotations

import numpy as np

from cfrlab.envs.actions import CALL, ActionSet
from cfrlab.envs.checks import action_id
from cfrlab.envs.encoding import Encoding
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.games import load_game
from cfrlab.games.gamedef import GameDef
from cfrlab.games.state import State, deal_length

ILLEGAL_RULES = ("raise", "call")


def check_illegal_rule(rule: str) -> str:
    if rule not in ILLEGAL_RULES:
        raise CfrlabError(f"unknown illegal-action rule {rule!r}; choose from {', '.join(ILLEGAL_RULES)}")
    return rule


class Table:
    """A game's action set and encoding, and the hand being played (``state``)."""

    def __init__(self, game: GameDef | str, bets: str | None = None, encoding: str = "auto",
                 illegal: str = "raise") -> None:
        self.game = load_game(game)
        self.actions = ActionSet(self.game, bets)
        self.encoding = Encoding(self.game, encoding)
        self.illegal = check_illegal_rule(illegal)
        self._cards = np.array(self.encoding.deck, dtype=np.int64)
        self._deal_size = deal_length(self.game)
        self.state: State | None = None

    def new_hand(self, rng: np.random.Generator) -> State:
        """Deal a new hand from ``rng`` (as ``State(game, seed=...)`` draws one)."""
        idx = rng.choice(len(self._cards), size=self._deal_size, replace=False)
        self.state = State(self.game, [int(c) for c in self._cards[idx]])
        self.public = self.encoding.start(self.state)
        self._legal: list[str | None] | None = None
        return self.state

    def legal(self) -> list[str | None]:
        if self._legal is None:
            self._legal = self.actions.legal(self.state)
        return self._legal

    def mask(self, player: int) -> np.ndarray:
        """int8 mask of ``player``'s legal ids (zeros when another player acts or the hand is over)."""
        if player != self.state.current_player():
            return np.zeros(self.actions.size, dtype=np.int8)
        return np.array([a is not None for a in self.legal()], dtype=np.int8)

    def observation(self, player: int) -> np.ndarray:
        return self.encoding.observation(self.state, player, self.public)

    def action_text(self, action) -> tuple[str, bool]:
        """The ACPC action of id ``action`` for the player to act, and whether it was illegal
        (then mapped to a check/call under the ``call`` rule; the ``raise`` rule raises). A value
        that is not an action id at all (not an integer, or outside the action space) raises
        ``NotAnActionError`` under either rule."""
        a = action_id(action, self.actions.size, self.actions.describe)
        text = self.legal()[a]
        if text is not None:
            return text, False
        if self.illegal == "call":
            return self.legal()[CALL], True
        legal = [i for i, t in enumerate(self.legal()) if t is not None]
        raise IllegalActionError(
            f"action {a} is not legal for position {self.state.current_player()} at betting "
            f"'{self.state.betting_string()}'; legal ids: {legal} ({self.actions.describe()})")

    def play(self, text: str) -> None:
        """Apply an ACPC action to the hand."""
        self.encoding.advance(self.public, self.state, text)
        self._legal = None

    def render(self) -> str:
        s = self.state
        who = "over" if s.is_terminal() else f"position {s.current_player()} to act"
        cards = " | ".join(s.match_state(p).rsplit(":", 1)[1] for p in range(self.game.num_players))
        return f"{self.game.name or 'game'}: betting '{s.betting_string()}', pot {s.pot}, {who}; cards {cards}"
