"""The rules engine: one hand of an ACPC game as a mutable state.

The rules are those of the ACPC dealer (its ``game.c``):

* turn order: after player p, the next position that has not folded and is not all-in;
  each round starts at ``first_player[round]`` (or the next position that can act);
* a round ends when every player who can still act has called the latest bet or made it;
  the ``/`` is written as soon as a round closes;
* the hand ends when one player is left, after the last round, or when fewer than two
  players can still act (then the board is run out: the betting string gets one empty
  round per skipped round, e.g. ``r12639r20000c///``, and there is a showdown);
* fold is legal only when facing a bet and not all-in; call/check always;
* raise: fewer than ``max_raises[round]`` raises this round, at most 64 actions per round,
  and at least two players able to act. Limit: raise to current bet + ``raise_size[round]``
  (capped at the stack). No-limit: raise-to amount in ``[min_raise_to, stack]``, where
  ``min_raise_to`` starts at 2 x the largest blind (1 without blinds), becomes at least
  ``X + (X - M)`` after a raise to X over a bet of M, and is ``bet + max(largest blind, 1)``
  at the start of each later round; a stack below that minimum but above the bet can only
  go all-in.

One deliberate difference: in a limit game with finite stacks, ``game.c`` lets a player
whose stack does not exceed the current bet "raise" (lowering the bet to its stack); here
that raise is not legal.

A deal is a sequence of card ids in the dealer's order: ``num_hole_cards`` per position,
then each round's board cards. ``UNKNOWN`` (-1) marks a card that is not known (states
rebuilt from a match-state line); betting works without cards, payoffs need the showdown's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from cfrlab import cards as _cards
from cfrlab.cards.cards import card_rank, card_text, deck, parse_cards
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.games.gamedef import GameDef

UNKNOWN = -1
MAX_NUM_ACTIONS = 64  # per round, game.h
_DIGITS = frozenset("0123456789")
_FOLD, _CALL, _RAISE = 0, 1, 2
_DEALER_LETTERS = {"f": _FOLD, "F": _FOLD, "c": _CALL, "C": _CALL, "k": _CALL, "K": _CALL,
                   "r": _RAISE, "R": _RAISE, "b": _RAISE, "B": _RAISE}
_DEALER_SIZE_RE = re.compile(r"[ \t\n\r\v\f]*[+-]?[0-9]{1,12}")  # like sscanf("%d"): ASCII only


@lru_cache(maxsize=64)
def _deck_of(num_ranks: int, num_suits: int) -> tuple[tuple[int, ...], frozenset[int]]:
    d = tuple(deck(num_ranks, num_suits))
    return d, frozenset(d)


def deal_length(game: GameDef) -> int:
    """Cards in a full deal: hole cards of every position, then every round's board."""
    return game.num_players * game.num_hole_cards + game.total_board_cards()


def _card_str(c: int) -> str:
    return card_text(c) if c >= 0 else str(c)


def _check_deal(game: GameDef, deal, allow_unknown: bool) -> tuple[int, ...]:
    if isinstance(deal, str):
        deal = parse_cards(deal)
    try:
        cards = tuple(int(c) for c in deal)
    except (TypeError, ValueError):
        raise CfrlabError(f"a deal is a sequence of card ids, got {deal!r}") from None
    need = deal_length(game)
    if len(cards) != need:
        raise CfrlabError(
            f"a deal for {game.name or 'this game'} needs {need} cards (hole cards by position, "
            f"then the board), got {len(cards)}"
        )
    _, valid = _deck_of(game.num_ranks, game.num_suits)
    seen: set[int] = set()
    for c in cards:
        if c == UNKNOWN and allow_unknown:
            continue
        if c not in valid:
            raise CfrlabError(f"card {_card_str(c)} is not in the deck of {game.name or 'this game'}")
        if c in seen:
            raise CfrlabError(f"card {_card_str(c)} appears twice in the deal")
        seen.add(c)
    return cards


def _parse_action(action: str, limit: bool) -> tuple[int, int] | None:
    """(kind, raise-to size) of an ACPC action string, None when it is not well formed."""
    if not isinstance(action, str) or not action:
        return None
    if action == "f":
        return _FOLD, 0
    if action == "c":
        return _CALL, 0
    if action[0] != "r":
        return None
    digits = action[1:]
    if limit:
        return (_RAISE, 0) if not digits else None
    if not digits or len(digits) > 12 or not set(digits) <= _DIGITS:
        return None
    return _RAISE, int(digits)


def format_value(value: float) -> str:
    """A chip value as the ACPC log prints it: ``%.6f`` with trailing zeros removed."""
    s = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _hand_strength(cards: Sequence[int]) -> int:
    if len(cards) == 1:  # Kuhn: the rank (also for decks past 13 ranks)
        return card_rank(cards[0])
    return _cards.rank_hand(cards)  # the evaluator loads on first use (cfrlab.cards)


class State:
    """One hand in progress. ``apply`` mutates in place; ``clone`` copies (cheaply).

    Public read-only views: ``game``, ``hand_number``, ``deal`` (tuple of card ids),
    ``round``, ``spent`` / ``folded`` (tuples by position), ``pot``, ``max_spent``,
    ``history`` (list of (position, action)).
    """

    __slots__ = (
        "_actions",
        "_current",
        "_deal",
        "_finished",
        "_folded",
        "_max_spent",
        "_min_raise_to",
        "_num_acting",
        "_num_called",
        "_num_folded",
        "_num_raises",
        "_round",
        "_spent",
        "game",
        "hand_number",
        "history",
    )

    def __init__(self, game: GameDef, deal=None, seed=None, hand_number: int = 0,
                 *, allow_unknown: bool = False) -> None:
        self.game = game
        self.hand_number = int(hand_number)
        if self.hand_number < 0:
            raise CfrlabError(f"a hand number is >= 0, got {hand_number}")
        if deal is None:
            cards, _ = _deck_of(game.num_ranks, game.num_suits)
            rng = np.random.default_rng(seed)
            idx = rng.choice(len(cards), size=deal_length(game), replace=False)
            self._deal = tuple(cards[i] for i in idx)
        else:
            self._deal = _check_deal(game, deal, allow_unknown)
        n = game.num_players
        self._spent = list(game.blind[:n])
        self._max_spent = max(self._spent)
        if game.is_limit:
            self._min_raise_to = 0
        else:
            self._min_raise_to = 2 * self._max_spent if self._max_spent else 1
        self._folded = [False] * n
        self._round = 0
        self._finished = False
        self._actions: list[list[str]] = [[]]
        self.history: list[tuple[int, str]] = []
        self._num_raises = 0
        self._num_called = 0
        self._num_folded = 0
        self._num_acting = sum(1 for p in range(n) if self._spent[p] < game.stack[p])
        self._current = -1
        if self._num_acting == 0:  # every blind is an all-in: straight to the showdown
            self._run_out()
        else:
            self._current = self._next_player(game.first_player[0] - 1)

    @classmethod
    def at_street(cls, game: GameDef, street: int, spent: Sequence[int], deal=None,
                  hand_number: int = 0, *, allow_unknown: bool = False) -> State:
        """A hand at the start of betting round ``street`` (1 or later), each position having
        put in ``spent`` chips and no one folded: the state the rules reach when every earlier
        round closed with the bet matched (a solver's spot starts here). The earlier rounds'
        betting is empty (``betting_string()`` is ``"/" * street``); the minimum raise is the
        next round's (the bet plus the largest blind, at least 1). ``spent`` must be equal
        (a closed round), above 0, and below the stacks of at least two positions."""
        n = game.num_players
        if not 1 <= street < game.num_rounds:
            raise CfrlabError(f"a hand can start at round 1 to {game.num_rounds - 1} of "
                              f"{game.name or 'this game'}, not {street}")
        spent = [int(x) for x in spent]
        if len(spent) != n or len(set(spent)) != 1 or spent[0] <= 0:
            raise CfrlabError(f"a hand started at round {street} needs the same chips above 0 put in "
                              f"by each of {n} positions, got {spent}")
        if any(s > game.stack[p] for p, s in enumerate(spent)):
            raise CfrlabError(f"chips put in {spent} exceed the stacks {list(game.stack[:n])}")
        s = cls(game, deal=deal, hand_number=hand_number, seed=0, allow_unknown=allow_unknown)
        s._spent = spent
        s._max_spent = spent[0]
        s._min_raise_to = 0 if game.is_limit else spent[0] + max(max(game.blind[:n]), 1)
        s._folded = [False] * n
        s._round = street
        s._finished = False
        s._actions = [[] for _ in range(street + 1)]
        s.history = []
        s._num_raises = s._num_called = s._num_folded = 0
        s._num_acting = sum(1 for p in range(n) if spent[p] < game.stack[p])
        if s._num_acting < 2:
            raise CfrlabError(f"a hand started at round {street} with {spent} put in has no betting "
                              "left (fewer than two players have chips behind)")
        s._current = s._next_player(game.first_player[street] - 1)
        return s

    # -- read-only views -------------------------------------------------------------
    @property
    def deal(self) -> tuple[int, ...]:
        return self._deal

    @property
    def round(self) -> int:
        return self._round

    @property
    def spent(self) -> tuple[int, ...]:
        return tuple(self._spent)

    @property
    def folded(self) -> tuple[bool, ...]:
        return tuple(self._folded)

    @property
    def pot(self) -> int:
        return sum(self._spent)

    @property
    def max_spent(self) -> int:
        """The current bet: the most any player has put in this hand."""
        return self._max_spent

    @property
    def num_raises(self) -> int:
        """Raises made so far in the current round (blinds not counted)."""
        return self._num_raises

    def round_actions(self) -> list[list[str]]:
        """Actions per round reached, e.g. ``[['r', 'c'], ['c']]``."""
        return [list(a) for a in self._actions]

    def hole_cards(self, position: int) -> list[int]:
        k = self.game.num_hole_cards
        return list(self._deal[position * k:(position + 1) * k])

    def board_cards(self, round_: int) -> list[int]:
        """The board cards revealed at the start of round ``round_`` (that round only)."""
        g = self.game
        start = g.num_players * g.num_hole_cards + g.total_board_cards(round_ - 1)
        return list(self._deal[start:start + g.num_board_cards[round_]])

    def visible_board(self) -> list[int]:
        """Every board card revealed so far (rounds 0..round)."""
        g = self.game
        start = g.num_players * g.num_hole_cards
        return list(self._deal[start:start + g.total_board_cards(self._round)])

    # -- rules -----------------------------------------------------------------------
    def _next_player(self, p: int) -> int:
        n, stack = self.game.num_players, self.game.stack
        while True:
            p = (p + 1) % n
            if not self._folded[p] and self._spent[p] < stack[p]:
                return p

    def is_terminal(self) -> bool:
        return self._finished

    def is_showdown(self) -> bool:
        """Finished with at least two players who did not fold."""
        return self._finished and self._num_folded + 1 < self.game.num_players

    def current_player(self) -> int:
        """Position to act, or -1 when the hand is over."""
        return -1 if self._finished else self._current

    def _can_fold(self) -> bool:
        p = self._current
        return (not self._finished and self._spent[p] != self._max_spent
                and self._spent[p] != self.game.stack[p])

    def _raise_bounds(self) -> tuple[int, int] | None:
        g, r = self.game, self._round
        if self._finished or self._num_raises >= g.max_raises[r]:
            return None
        if len(self._actions[r]) + g.num_players > MAX_NUM_ACTIONS or self._num_acting <= 1:
            return None
        stack = g.stack[self._current]
        if g.is_limit:
            if self._max_spent >= stack:
                return None
            to = min(self._max_spent + g.raise_size[r], stack)
            return to, to
        lo = self._min_raise_to
        if lo > stack:
            if self._max_spent >= stack:
                return None
            lo = stack
        return lo, stack

    def raise_range(self) -> tuple[int, int] | None:
        """(min, max) legal raise-to totals, or None when raising is not legal.
        In a limit game min == max (the action itself is plain ``r``)."""
        return self._raise_bounds()

    def legal_actions(self) -> list[str]:
        """ACPC action strings: ``f`` (only when facing a bet), ``c``, then ``r`` (limit) or
        the minimum and the all-in ``r<N>`` (no-limit; any N in ``raise_range()`` is legal)."""
        if self._finished:
            return []
        out = ["f", "c"] if self._can_fold() else ["c"]
        bounds = self._raise_bounds()
        if bounds is not None:
            if self.game.is_limit:
                out.append("r")
            else:
                out.append(f"r{bounds[0]}")
                if bounds[1] != bounds[0]:
                    out.append(f"r{bounds[1]}")
        return out

    def _check(self, action: str) -> tuple[int, int] | None:
        if self._finished:
            return None
        parsed = _parse_action(action, self.game.is_limit)
        if parsed is None:
            return None
        kind, size = parsed
        if kind == _FOLD and not self._can_fold():
            return None
        if kind == _RAISE:
            bounds = self._raise_bounds()
            if bounds is None or (not self.game.is_limit and not bounds[0] <= size <= bounds[1]):
                return None
        return parsed

    def is_legal(self, action: str) -> bool:
        return self._check(action) is not None

    def dealer_action(self, text: str) -> tuple[str, str | None]:
        """What the ACPC dealer makes of a client's action text (``readPlayerResponse``):
        ``(legal action, warning or None)``. Letters ``fF``, ``cCkK``, ``rRbB``; a no-limit raise
        needs its amount (``%d``: optional sign); anything after the action is ignored. No
        action (or a no-limit raise without a number) is a bad format, an unknown letter or an
        illegal action becomes a call, and a no-limit raise outside the legal range is clamped
        to it. Needs a state where someone is to act."""
        if self._finished:
            raise CfrlabError(f"no action is expected at {self._describe()}: the hand is over")
        call = "c"
        text = text.rstrip("\r\n") if isinstance(text, str) else ""
        if not text:
            return call, "bad action format in response, changed to call"
        kind = _DEALER_LETTERS.get(text[0])
        if kind is None:  # an unknown letter such as 'x' (the dealer changes it to a call)
            return call, "invalid action, changed to call"
        size = 0
        if kind == _RAISE and not self.game.is_limit:
            m = _DEALER_SIZE_RE.match(text, 1)
            if m is None:  # a no-limit raise needs its amount
                return call, "bad action format in response, changed to call"
            size = int(m.group(0))
        if kind == _CALL:
            return call, None
        if kind == _FOLD:
            return ("f", None) if self._can_fold() else (call, "invalid action, changed to call")
        bounds = self._raise_bounds()
        if bounds is None:
            return call, "invalid action, changed to call"
        if self.game.is_limit:
            return "r", None
        lo, hi = bounds
        if size < lo:
            return f"r{lo}", f"raise of {size} increased to {lo}"
        if size > hi:
            return f"r{hi}", f"raise of {size} decreased to {hi}"
        return f"r{size}", None

    def apply(self, action: str) -> State:
        """Apply one ACPC action (``f``, ``c``, ``r`` or ``r<N>``); returns self."""
        parsed = self._check(action)
        if parsed is None:
            raise IllegalActionError(self._illegal_message(action))
        kind, size = parsed
        g, p, r = self.game, self._current, self._round
        stack = g.stack[p]
        if kind == _FOLD:
            self._folded[p] = True
            self._num_folded += 1
            self._num_acting -= 1
            text = "f"
        elif kind == _CALL:
            self._spent[p] = min(self._max_spent, stack)
            if self._spent[p] >= stack:
                self._num_acting -= 1
            else:
                self._num_called += 1
            text = "c"
        else:
            if g.is_limit:
                to, text = min(self._max_spent + g.raise_size[r], stack), "r"
            else:
                to, text = size, f"r{size}"
                self._min_raise_to = max(self._min_raise_to, 2 * to - self._max_spent)
            self._max_spent = to
            self._spent[p] = to
            self._num_raises += 1
            if to >= stack:
                self._num_acting -= 1
                self._num_called = 0
            else:
                self._num_called = 1
        self._actions[r].append(text)
        self.history.append((p, text))

        if self._num_folded + 1 >= g.num_players:
            self._finished = True
        elif self._num_called >= self._num_acting:
            if self._num_acting <= 1:
                self._run_out()
            elif r + 1 < g.num_rounds:
                self._round = r + 1
                self._actions.append([])
                self._num_raises = 0
                self._num_called = 0
                self._min_raise_to = self._max_spent + max(max(g.blind[:g.num_players]), 1)
                self._current = self._next_player(g.first_player[r + 1] - 1)
            else:
                self._finished = True
        else:
            self._current = self._next_player(p)
        return self

    def _run_out(self) -> None:
        """Fewer than two players can act: deal the rest of the board, showdown."""
        self._finished = True
        while len(self._actions) < self.game.num_rounds:
            self._actions.append([])
        self._round = self.game.num_rounds - 1

    def clone(self) -> State:
        s = State.__new__(State)
        s.game, s.hand_number, s._deal = self.game, self.hand_number, self._deal
        s._spent, s._folded = list(self._spent), list(self._folded)
        s._actions = [list(a) for a in self._actions]
        s.history = list(self.history)
        s._round, s._finished, s._max_spent = self._round, self._finished, self._max_spent
        s._min_raise_to, s._num_raises, s._num_called = self._min_raise_to, self._num_raises, self._num_called
        s._num_acting, s._num_folded, s._current = self._num_acting, self._num_folded, self._current
        return s

    # -- payoffs ---------------------------------------------------------------------
    def payoffs(self) -> list[float]:
        """Net chips won per position (ACPC ``valueOfState``): side pots from the distinct
        amounts put in, each split evenly among the best hands in it; sums to zero."""
        if not self._finished:
            raise CfrlabError(f"payoffs of an unfinished hand ({self._describe()})")
        n, spent = self.game.num_players, self._spent
        if self._num_folded + 1 >= n:
            total = float(sum(spent))
            return [(total - spent[p]) if not self._folded[p] else -float(spent[p]) for p in range(n)]
        strength = [self._strength(p) if not self._folded[p] else -1 for p in range(n)]
        values = [0.0] * n
        prev = 0
        for level in sorted({s for s in spent if s > 0}):
            size = level - prev
            members = [p for p in range(n) if spent[p] >= level]
            prev = level
            best = max(strength[p] for p in members)
            if best < 0:  # only folded players reach this level (cannot happen in ACPC play)
                continue
            winners = sum(1 for p in members if strength[p] == best)
            share = size * (len(members) - winners) / winners  # same arithmetic as game.c
            for p in members:
                values[p] += share if strength[p] == best else -size
        return values

    def _strength(self, p: int) -> int:
        cards = self.hole_cards(p) + self.visible_board()
        if UNKNOWN in cards:
            raise CfrlabError(f"the showdown needs every card, but some of position {p}'s are unknown")
        return _hand_strength(cards)

    # -- ACPC text -------------------------------------------------------------------
    def betting_key(self) -> tuple:
        """A hashable summary of everything that decides the rest of the betting (not the
        cards, not the history): two states with equal keys have the same betting subtree."""
        return (self._round, tuple(self._spent), tuple(self._folded), self._max_spent,
                self._min_raise_to, self._num_raises, self._num_called, self._num_acting,
                self._current, self._finished, len(self._actions[self._round]))

    def betting_string(self) -> str:
        """ACPC betting, rounds separated by '/' (written as soon as a round closes)."""
        return "/".join("".join(a) for a in self._actions)

    def _cards_text(self, cards: Sequence[int]) -> str:
        if UNKNOWN in cards:
            raise CfrlabError(f"hand {self.hand_number}: a card to be shown is unknown")
        return "".join(card_text(c) for c in cards)

    def _board_text(self) -> str:
        parts = [self._cards_text(self.board_cards(r)) for r in range(self._round + 1)]
        return "/".join(parts)

    def match_state(self, position: int) -> str:
        """``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` as the dealer sends it to
        ``position``: its own cards, others' only at a showdown for players who did not fold."""
        n = self.game.num_players
        if not 0 <= position < n:
            raise CfrlabError(f"position {position} is not 0..{n - 1}")
        showdown = self.is_showdown()
        fields = [
            self._cards_text(self.hole_cards(p)) if p == position or (showdown and not self._folded[p]) else ""
            for p in range(n)
        ]
        return (f"MATCHSTATE:{position}:{self.hand_number}:{self.betting_string()}:"
                f"{'|'.join(fields)}{self._board_text()}")

    def log_line(self, names: Sequence[str]) -> str:
        """The dealer log's ``STATE:`` line of this finished hand (names by position)."""
        n = self.game.num_players
        if len(names) != n:
            raise CfrlabError(f"log_line needs {n} names (one per position), got {len(names)}")
        values = "|".join(format_value(v) for v in self.payoffs())
        holes = "|".join(self._cards_text(self.hole_cards(p)) for p in range(n))
        return (f"STATE:{self.hand_number}:{self.betting_string()}:{holes}{self._board_text()}:"
                f"{values}:{'|'.join(names)}")

    def _describe(self) -> str:
        p = self.current_player()
        try:
            return self.match_state(max(p, 0))
        except CfrlabError:
            return f"hand {self.hand_number}, betting '{self.betting_string()}'"

    def _illegal_message(self, action) -> str:
        where = self._describe()
        if self._finished:
            return f"illegal action {action!r} at {where}: the hand is over"
        legal = ", ".join(self.legal_actions())
        extra = ""
        bounds = self._raise_bounds()
        if bounds is not None and not self.game.is_limit:
            extra = f" (raise to any amount from {bounds[0]} to {bounds[1]})"
        return f"illegal action {action!r} at {where}: position {self._current} may play {legal}{extra}"

    def __repr__(self) -> str:
        name = self.game.name or "game"
        who = "over" if self._finished else f"position {self._current} to act"
        return f"<State {name} hand {self.hand_number} '{self.betting_string()}' {who}>"
