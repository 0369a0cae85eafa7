"""ACPC match-state lines (``MATCHSTATE:...``) and dealer log lines (``STATE:...``).

``parse_match_state(game, line)`` gives a ``MatchState``: what one seat sees. Its betting is
replayed through the rules engine, so illegal betting is refused and ``state()`` gives a
``State`` (cards the seat cannot see are ``UNKNOWN``) that knows whose turn it is and what is
legal. Parsing is strict: the line must be exactly what the ACPC dealer writes (the only
leniency is the case of card letters, which the dealer also accepts), so that
``parse_match_state(g, s).to_string() == s`` for every line the dealer can send.

Card text layout (ACPC protocol 2.0.0): one field per position separated by ``|`` (hidden hands
are empty), round 0's board cards straight after the last field, then ``/`` and the board
cards of each later round reached.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from cfrlab.cards.cards import card_text, parse_card
from cfrlab.errors import CfrlabError, ParseError
from cfrlab.games.gamedef import INT32_MAX, GameDef
from cfrlab.games.state import UNKNOWN, State, _deck_of, deal_length, format_value

_CARD_RE = re.compile(r"(?:[2-9TJQKA]|\[[0-9]+\])[CDHS]", re.IGNORECASE | re.ASCII)
_UINT_RE = re.compile(r"[0-9]+")  # ACPC numbers are ASCII digits (\d and int() take any script)
_MAX_SHOWN = 160  # characters of an offending line quoted in an error message
# the ACPC dealer numbers hands with a uint32 (State.handId); a hand number past it is no
# dealer's, and one of thousands of digits would make int() raise (past 4,300 digits)
MAX_HAND_NUMBER = 2**32 - 1

Cards = list[int]


def _quote(line: str) -> str:
    return repr(line if len(line) <= _MAX_SHOWN else line[:_MAX_SHOWN] + "...")


def _uint(text: str, what: str, line: str, maximum: int) -> int:
    """``text`` as a number of ASCII digits from 0 to ``maximum`` (refused, naming ``what``,
    before ``int()`` reads a long run of digits)."""
    if not _UINT_RE.fullmatch(text):
        raise ParseError(f"bad {what} {_short(text)} in {_quote(line)}")
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(maximum)) or int(digits) > maximum:
        shown = text if len(text) <= 24 else _short(text)
        raise ParseError(f"{what} {shown} is out of range (0..{maximum:,}) in {_quote(line)}")
    return int(digits)


def _short(text: str, limit: int = 24) -> str:
    """A field quoted for a message, cut to ``limit`` characters (a 5,000-digit number is not echoed)."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text):,} characters)"


def _cards(text: str, line: str) -> Cards:
    pos, out = 0, []
    for m in _CARD_RE.finditer(text):
        if m.start() != pos:
            break
        out.append(parse_card(m.group(0)))
        pos = m.end()
    if pos != len(text):
        raise ParseError(f"bad cards {text!r} in {_quote(line)}")
    return out


def _text(cards: Cards | None) -> str:
    return "" if cards is None else "".join(card_text(c) for c in cards)


def _replay(game: GameDef, betting: str, hand_number: int, line: str) -> State:
    """A state (all cards unknown) after the betting; ParseError if it is not legal ACPC."""
    state = State(game, [UNKNOWN] * deal_length(game), hand_number=hand_number, allow_unknown=True)
    i, n = 0, len(betting)
    while i < n:
        ch = betting[i]
        if ch == "/":
            i += 1
            continue
        j = i + 1
        if ch == "r":
            while j < n and betting[j] in "0123456789":
                j += 1
            if j - i - 1 > len(str(INT32_MAX)) or (j > i + 1 and int(betting[i + 1:j]) > INT32_MAX):
                raise ParseError(f"raise amount {_short(betting[i + 1:j])} is out of range (chips are 32-bit "
                                 f"integers, at most {INT32_MAX:,}) in {_quote(line)}")
        elif ch not in "fc":
            raise ParseError(f"{ch!r} is not an action (f, c, r) in {_quote(line)}")
        action = betting[i:j]
        if state.is_terminal():
            raise ParseError(f"action {action!r} after the end of the hand in {_quote(line)}")
        if not state.is_legal(action):
            legal = ", ".join(state.legal_actions())
            raise ParseError(f"illegal action {action!r} after '{betting[:i]}' (legal: {legal}) in {_quote(line)}")
        state.apply(action)
        i = j
    if state.betting_string() != betting:
        raise ParseError(f"betting {betting!r} should be written {state.betting_string()!r} in {_quote(line)}")
    return state


def _split_cards(game: GameDef, text: str, round_: int, line: str) -> tuple[list[Cards | None], list[Cards]]:
    """Hole cards per position (None when hidden) and board cards per round reached."""
    segments = text.split("/")
    if len(segments) != round_ + 1:
        raise ParseError(f"cards {text!r} show {len(segments) - 1} later round(s) but the betting "
                         f"has reached round {round_} in {_quote(line)}")
    fields = segments[0].split("|")
    n, k, nb0 = game.num_players, game.num_hole_cards, game.num_board_cards[0]
    if len(fields) != n:
        raise ParseError(f"cards {text!r} need {n} hole-card fields separated by '|' in {_quote(line)}")
    hole: list[Cards | None] = []
    board0: Cards = []
    for p, f in enumerate(fields):
        cards = _cards(f, line)
        if p == n - 1 and nb0:
            board0, cards = cards[len(cards) - nb0:], cards[:len(cards) - nb0]
            if len(board0) != nb0:
                raise ParseError(f"round 0 needs {nb0} board card(s) in {_quote(line)}")
        if cards and len(cards) != k:
            raise ParseError(f"position {p} shows {len(cards)} hole card(s), the game has {k} in {_quote(line)}")
        hole.append(cards or None)
    board = [board0]
    for r in range(1, round_ + 1):
        cards = _cards(segments[r], line)
        if len(cards) != game.num_board_cards[r]:
            raise ParseError(f"round {r} needs {game.num_board_cards[r]} board card(s), got "
                             f"{len(cards)} in {_quote(line)}")
        board.append(cards)
    return hole, board


def _check_known_cards(game: GameDef, hole: list[Cards | None], board: list[Cards], line: str) -> None:
    _, valid = _deck_of(game.num_ranks, game.num_suits)
    seen: set[int] = set()
    for cards in [h for h in hole if h] + board:
        for c in cards:
            if c not in valid:
                raise ParseError(f"card {card_text(c)} is not in the game's deck in {_quote(line)}")
            if c in seen:
                raise ParseError(f"card {card_text(c)} appears twice in {_quote(line)}")
            seen.add(c)


def _reveal(state: State, hole: list[Cards | None], board: list[Cards]) -> None:
    g = state.game
    deal = [UNKNOWN] * deal_length(g)
    k = g.num_hole_cards
    for p, cards in enumerate(hole):
        if cards:
            deal[p * k:(p + 1) * k] = cards
    start = g.num_players * k
    flat = [c for b in board for c in b]
    deal[start:start + len(flat)] = flat
    state._deal = tuple(deal)


def _betting_text(betting: list[list[str]]) -> str:
    return "/".join("".join(a) for a in betting)


def _cards_text(hole: list[Cards | None], board: list[Cards]) -> str:
    return "|".join(_text(h) for h in hole) + "/".join(_text(b) for b in board)


@dataclass
class MatchState:
    """What one seat sees: ``betting`` is the actions per round reached, ``hole`` the hole
    cards per position (None when hidden), ``board`` the board cards per round reached."""

    game: GameDef = field(repr=False)
    position: int
    hand_number: int
    betting: list[list[str]]
    hole: list[Cards | None]
    board: list[Cards]
    _state: State = field(repr=False, compare=False)

    @property
    def round(self) -> int:
        return self._state.round

    def betting_string(self) -> str:
        return _betting_text(self.betting)

    def to_string(self) -> str:
        return (f"MATCHSTATE:{self.position}:{self.hand_number}:{self.betting_string()}:"
                f"{_cards_text(self.hole, self.board)}")

    def response(self, action: str) -> str:
        """The line a client sends back: the state, ':' and the action (no line end)."""
        return f"{self.to_string()}:{action}"

    def state(self) -> State:
        """A fresh ``State`` replaying this betting; unseen cards are ``UNKNOWN`` (-1)."""
        return self._state.clone()

    @property
    def my_cards(self) -> Cards:
        return list(self.hole[self.position] or [])

    def visible_board(self) -> Cards:
        return [c for b in self.board for c in b]

    def current_player(self) -> int:
        return self._state.current_player()

    def is_my_turn(self) -> bool:
        return self._state.current_player() == self.position

    def is_terminal(self) -> bool:
        return self._state.is_terminal()

    def legal_actions(self) -> list[str]:
        return self._state.legal_actions()

    def is_legal(self, action: str) -> bool:
        return self._state.is_legal(action)

    def raise_range(self) -> tuple[int, int] | None:
        return self._state.raise_range()

    @property
    def spent(self) -> tuple[int, ...]:
        return self._state.spent

    @property
    def pot(self) -> int:
        return self._state.pot

    def __str__(self) -> str:
        return self.to_string()


def _fields(line, what: str, tag: str, n: int) -> tuple[str, list[str]]:
    """The line (line end dropped) and its ``n`` ':'-separated fields, the first ``tag``;
    ParseError naming ``what`` the line should be otherwise."""
    if not isinstance(line, str):
        raise ParseError(f"a {what} is text, got {type(line).__name__}")
    line = line.rstrip("\r\n")
    if not line.startswith(f"{tag}:"):
        raise ParseError(f"not a {what} (it must start with '{tag}:'): {_quote(line)}")
    parts = line.split(":")
    if len(parts) != n:
        raise ParseError(f"a {what} has {n} ':'-separated fields, got {len(parts)}: {_quote(line)}")
    return line, parts


def parse_match_state(game: GameDef, line: str) -> MatchState:
    """Parse ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` (a trailing line end is
    ignored). ParseError on anything the ACPC dealer would not send."""
    line, (_, pos_s, hand_s, betting_s, cards_s) = _fields(line, "match-state line", "MATCHSTATE", 5)
    position = _uint(pos_s, "position", line, game.num_players - 1)
    hand = _uint(hand_s, "hand number", line, MAX_HAND_NUMBER)
    state = _replay(game, betting_s, hand, line)
    hole, board = _split_cards(game, cards_s, state.round, line)
    showdown, folded = state.is_showdown(), state.folded
    for p, cards in enumerate(hole):
        if p == position and cards is None:
            raise ParseError(f"the line lacks the viewer's own cards (position {p}): {_quote(line)}")
        if p != position:
            visible = showdown and not folded[p]
            if cards is not None and not visible:
                raise ParseError(f"position {p}'s cards can only show at a showdown: {_quote(line)}")
            if cards is None and visible:
                raise ParseError(f"position {p}'s cards must show at this showdown: {_quote(line)}")
    _check_known_cards(game, hole, board, line)
    _reveal(state, hole, board)
    return MatchState(game, position, hand, state.round_actions(), hole, board, state)


@dataclass
class LogLine:
    """One ``STATE:`` line of a dealer log: everything by position."""

    game: GameDef = field(repr=False)
    hand_number: int
    betting: list[list[str]]
    hole: list[Cards]
    board: list[Cards]
    values: list[float]
    names: list[str]
    _state: State = field(repr=False, compare=False)

    def betting_string(self) -> str:
        return _betting_text(self.betting)

    def state(self) -> State:
        """The finished hand (every hole card known; board known for the rounds reached)."""
        return self._state.clone()

    def to_string(self) -> str:
        values = "|".join(format_value(v) for v in self.values)
        return (f"STATE:{self.hand_number}:{self.betting_string()}:{_cards_text(self.hole, self.board)}:"
                f"{values}:{'|'.join(self.names)}")


def parse_log_line(game: GameDef, line: str) -> LogLine:
    """Parse a dealer log line ``STATE:<hand>:<betting>:<cards>:<values>:<names>``."""
    line, (_, hand_s, betting_s, cards_s, values_s, names_s) = _fields(line, "log line", "STATE", 6)
    hand = _uint(hand_s, "hand number", line, MAX_HAND_NUMBER)
    state = _replay(game, betting_s, hand, line)
    if not state.is_terminal():
        raise ParseError(f"the hand in a log line must be finished: {_quote(line)}")
    hole, board = _split_cards(game, cards_s, state.round, line)
    if any(h is None for h in hole):
        raise ParseError(f"a log line shows every player's hole cards: {_quote(line)}")
    _check_known_cards(game, hole, board, line)
    n = game.num_players
    try:
        values = [float(v) for v in values_s.split("|")]
    except ValueError:
        raise ParseError(f"bad values {values_s!r} in {_quote(line)}") from None
    if not all(math.isfinite(v) for v in values):
        raise ParseError(f"bad values {values_s!r} (not finite numbers) in {_quote(line)}")
    names = names_s.split("|")
    if len(values) != n or len(names) != n:
        raise ParseError(f"a log line needs {n} values and {n} names: {_quote(line)}")
    _reveal(state, hole, board)
    return LogLine(game, hand, state.round_actions(), [list(h) for h in hole if h], board, values, names, state)


__all__ = ["MAX_HAND_NUMBER", "LogLine", "MatchState", "parse_log_line", "parse_match_state"]
def seat_view(state: State, position: int) -> MatchState:
    """What ``position`` sees now, as a ``MatchState``: equal to
    ``parse_match_state(game, state.match_state(position))`` but built without the text round
    trip (the match engine calls this for every decision). In ``view.state()`` the cards
    the seat cannot see are ``UNKNOWN``."""
    g = state.game
    n, k = g.num_players, g.num_hole_cards
    if not 0 <= position < n:
        raise CfrlabError(f"position {position} is not 0..{n - 1}")
    showdown = state.is_showdown()
    hole = [state.hole_cards(p) if p == position or (showdown and not state._folded[p]) else None
            for p in range(n)]
    board = [state.board_cards(r) for r in range(state._round + 1)]
    deal = [UNKNOWN] * len(state._deal)
    for p, cards in enumerate(hole):
        if cards:
            deal[p * k:(p + 1) * k] = cards
    flat = [c for b in board for c in b]
    deal[n * k:n * k + len(flat)] = flat
    if UNKNOWN in flat or any(h is not None and UNKNOWN in h for h in hole):
        raise CfrlabError(f"hand {state.hand_number}: a card position {position} sees is unknown")
    hidden = state.clone()
    hidden._deal = tuple(deal)
    return MatchState(g, position, state.hand_number, state.round_actions(), hole, board, hidden)

