"""Observation tensors of the environments (float32, every value in [0, 1]).

Every encoding has the same four parts, in this order:

1. the observing player, one-hot (``P`` values);
2. the observer's hole cards, one value per card of the deck (``D`` values; card ``i`` is the
   i-th card of ``cfrlab.cards.deck`` in ascending id order: OpenSpiel's card ``i``);
3. the board, one block of ``D`` values per round that deals board cards, set once the round
   is reached;
4. the public betting part, which depends on the betting only (the batched environment keeps
   it per node of the public tree).

Encodings:

* ``openspiel``: Kuhn and Leduc (``kuhn``, ``kuhn-3p``, ``leduc``, ``leduc-3p``), exactly
  OpenSpiel's ``information_state_tensor`` of ``kuhn_poker`` / ``leduc_poker`` with the same
  player count. Kuhn: ``2P - 1`` action slots of 2 bits (pass, bet; a fold is a pass, a call a
  bet). Leduc: 2 rounds of ``3P - 2`` slots of 2 bits (call, raise; a fold takes a slot and
  sets neither bit). Kuhn's ``P + (P + 1) + 2(2P - 1)`` = 11 values, Leduc's 30 (2 players).
* ``cfrlab`` (every game): the betting part is the round, one-hot (``R``); the chips each
  position has put in, divided by ``scale`` (the most a player can put in: the largest stack
  in no-limit, the blinds plus every capped raise in limit); who has folded (``P``); then the
  history: for each round ``S`` action slots of 4 values, fold, check/call, raise, and the
  actor's chips in after the action divided by ``scale``. ``S`` bounds the actions of a round:
  ``2P - 2 + M + (M - 1)(P - 2)`` for at most ``M`` raises (64 at most).

``auto`` is ``openspiel`` where it applies, else ``cfrlab``.
"""

from __future__ import annotations

import numpy as np

from cfrlab.cards import deck
from cfrlab.errors import CfrlabError
from cfrlab.games.builtins import builtin_game
from cfrlab.games.gamedef import GameDef
from cfrlab.games.state import MAX_NUM_ACTIONS, UNKNOWN, State, deal_length

ENCODINGS = ("auto", "openspiel", "cfrlab")
OPENSPIEL_GAMES = {"kuhn": "kuhn", "kuhn-3p": "kuhn", "leduc": "leduc", "leduc-3p": "leduc"}


def openspiel_family(game: GameDef) -> str | None:
    """``"kuhn"`` or ``"leduc"`` when ``game`` is one of OpenSpiel's (same rules and deck), else None."""
    text = game.to_text()
    for name, family in OPENSPIEL_GAMES.items():
        if builtin_game(name).to_text() == text:
            return family
    return None


def max_round_actions(game: GameDef) -> int:
    """Most actions one betting round can hold: ``2P - 2 + M + (M - 1)(P - 2)`` for at most
    ``M`` raises (``P`` when no raise is allowed), never above the dealer's 64."""
    P = game.num_players
    top = max(game.stack[:P])
    worst = 0
    for r in range(game.num_rounds):
        m = min(game.max_raises[r], MAX_NUM_ACTIONS, top)
        worst = max(worst, P if m == 0 else 2 * P - 2 + m + (m - 1) * (P - 2))
    return min(worst, MAX_NUM_ACTIONS)


def chip_scale(game: GameDef) -> int:
    """The most chips one player can put in a hand (the ``cfrlab`` encoding's unit)."""
    P = game.num_players
    top = max(game.stack[:P])
    if not game.is_limit:
        return top
    raises = sum(game.raise_size[r] * min(game.max_raises[r], MAX_NUM_ACTIONS) for r in range(game.num_rounds))
    return max(1, min(top, max(game.blind[:P]) + raises))


class Encoding:
    """One observation encoding of one game (module docstring). ``start(state)`` gives the
    public part at the start of a hand, ``advance(public, state, action)`` applies an action to
    ``state`` and updates the part in place, ``observation(state, observer, public)`` the whole
    tensor; ``public_of(state)`` rebuilds the part of any state from its history."""

    def __init__(self, game: GameDef, encoding: str = "auto") -> None:
        if encoding not in ENCODINGS:
            raise CfrlabError(f"unknown encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
        family = openspiel_family(game)
        if encoding == "openspiel" and family is None:
            raise CfrlabError(f"the openspiel encoding is for OpenSpiel's Kuhn and Leduc "
                              f"({', '.join(OPENSPIEL_GAMES)}); {game.name or 'this game'} takes 'cfrlab'")
        self.game = game
        self.kind = (family if encoding in ("auto", "openspiel") and family else "cfrlab")
        self.name = "cfrlab" if self.kind == "cfrlab" else "openspiel"
        P, R = game.num_players, game.num_rounds
        self.deck = deck(game.num_ranks, game.num_suits)
        self.card_index = {c: i for i, c in enumerate(self.deck)}
        D = len(self.deck)
        self.board_block = [-1] * R  # the board block of each round (-1: no board cards)
        blocks = 0
        for r in range(R):
            if game.num_board_cards[r]:
                self.board_block[r] = blocks
                blocks += 1
        self.public_offset = P + D * (1 + blocks)
        self.scale = chip_scale(game)
        if self.kind == "kuhn":
            self.slots = 2 * P - 1
            self.public_size = 2 * self.slots
        elif self.kind == "leduc":
            self.slots = 3 * P - 2
            self.public_size = 2 * 2 * self.slots
        else:
            self.slots = max_round_actions(game)
            self._history = R + 2 * P
            self.public_size = self._history + R * self.slots * 4
        self.size = self.public_offset + self.public_size

    # -- the public part ----------------------------------------------------------------
    def start(self, state: State) -> np.ndarray:
        """The public part of a hand at its start (no action yet)."""
        pub = np.zeros(self.public_size, dtype=np.float32)
        if self.kind == "cfrlab":
            self._chips(pub, state)
        return pub

    def advance(self, pub: np.ndarray, state: State, action: str) -> None:
        """Apply ``action`` to ``state`` (``State.apply``) and record it in ``pub``."""
        r, p = state.round, state.current_player()
        i = len(state.round_actions()[r]) if self.kind != "kuhn" else len(state.history)
        facing = state.spent[p] < state.max_spent
        state.apply(action)
        if i >= self.slots:  # cannot happen: the slots bound the actions (max_round_actions)
            raise CfrlabError(f"action {i + 1} of a round is past the encoding's {self.slots} slots")
        kind = action[0]
        if self.kind == "kuhn":
            bet = kind == "r" or (kind == "c" and facing)
            pub[2 * i + (1 if bet else 0)] = 1.0
        elif self.kind == "leduc":
            if kind != "f":
                pub[(r * self.slots + i) * 2 + (0 if kind == "c" else 1)] = 1.0
        else:
            at = self._history + (r * self.slots + i) * 4
            pub[at + "fcr".index(kind)] = 1.0
            pub[at + 3] = state.spent[p] / self.scale
            self._chips(pub, state)

    def _chips(self, pub: np.ndarray, state: State) -> None:
        P, R = self.game.num_players, self.game.num_rounds
        pub[:R] = 0.0
        pub[state.round] = 1.0
        pub[R:R + P] = np.asarray(state.spent, dtype=np.float32) / np.float32(self.scale)
        pub[R + P:R + 2 * P] = np.asarray(state.folded, dtype=np.float32)

    def public_of(self, state: State) -> np.ndarray:
        """The public part of ``state``, rebuilt by replaying its betting from the start."""
        replay = State(self.game, deal=[UNKNOWN] * deal_length(self.game), allow_unknown=True)
        pub = self.start(replay)
        for _, action in state.history:
            self.advance(pub, replay, action)
        return pub

    # -- the whole tensor ---------------------------------------------------------------
    def observation(self, state: State, observer: int, pub: np.ndarray) -> np.ndarray:
        """The tensor ``observer`` sees at ``state`` (``pub``: the state's public part)."""
        out = np.zeros(self.size, dtype=np.float32)
        out[observer] = 1.0
        P, D, index = self.game.num_players, len(self.deck), self.card_index
        for c in state.hole_cards(observer):
            out[P + index[c]] = 1.0
        for r in range(state.round + 1):
            block = self.board_block[r]
            if block >= 0:
                at = P + D * (1 + block)
                for c in state.board_cards(r):
                    out[at + index[c]] = 1.0
        out[self.public_offset:] = pub
        return out
