"""A postflop spot: a board, the pot, the effective stack, two ranges and the bet sizes.

From keyword arguments (``make_spot``) or a TOML file (``load_spot``), with the same fields::

    game = "holdem-nolimit"        # or "holdem-limit" (then no bet sizes: limit raises have one)
    board = "Qs Jh 2h"             # 3 to 5 cards: the spot starts on the flop, turn or river
    pot = 10                       # chips in the pot at the start of the spot (even: half each)
    stack = 95                     # effective stack: chips behind for each player
    oop_position = 0               # optional: the game's position that acts first (default: the
                                   # game's first to act on that street, 0 in heads-up ACPC games)
    [ranges]
    oop = "AA, KK, QQ:0.5, AQs+"   # range notation (cfrlab.cards.ranges)
    ip = "TT-22, AJs+, KQ"
    [bets]                         # sizes: cfrlab.tree.bets syntax (0.5p, 50%, p, a), "-" = none
    bet = "p, a"                   # the first bet of a street (default "p, a")
    raise = "p, a"                 # a raise facing a bet (default "p, a")
    cap = 4                        # optional: most bets and raises in a street
    allin = 0.0                    # optional: a raise leaving less than this fraction of the
                                   # stack behind becomes the all-in
    [bets.flop]                    # both players' sizes on one street (flop, turn, river)
    bet = "33%, 75%"
    [bets.oop]                     # one player's sizes on every street (oop or ip) ...
    bet = "100%"
    [bets.oop.turn]                # ... or on one street
    donk = "50%"                   # OOP's donk bet (module cfrlab.spot.tree) on turn and river

The most specific setting wins: ``bets.<player>.<street>``, then ``bets.<street>``, then
``bets.<player>``, then ``bets``. A ``donk`` list not given falls back to the ``bet`` list. Chips are whole numbers in
the spot's own unit (no blinds: the smallest bet is one chip).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import tomllib

from cfrlab.cards.cards import cards_text, parse_cards
from cfrlab.cards.ranges import (
    COMBOS,
    combo_text,
    format_range,
    parse_range,
    single_combos,
    with_board,
)
from cfrlab.errors import CfrlabError
from cfrlab.fileio import not_regular
from cfrlab.games import load_game
from cfrlab.games.gamedef import INT32_MAX, GameDef
from cfrlab.tree.bets import BetSpec, parse_bets

STREETS = ("flop", "turn", "river")
PLAYERS = ("oop", "ip")
KINDS = ("bet", "raise", "donk")
DEFAULT_SIZES = "p, a"
GAMES = ("holdem-nolimit", "holdem-limit")
_FIELDS = ("game", "board", "pot", "stack", "oop_position", "ranges", "bets")
_REQUIRED = ("board", "pot", "stack", "ranges")
_BET_OPTIONS = ("cap", "allin")


@dataclass(frozen=True, eq=False)
class Spot:
    """A validated spot. ``ranges[i]`` is float64[1326] (``cfrlab.cards.ranges`` order) of
    player i, 0 = out of position, 1 = in position, with the board's combos removed
    (``lost[i]`` of them); ``sizes[(player, street, kind)]`` the sizes as a one-round
    ``BetSpec`` (kind "bet", "raise" or "donk"; absent donk lists fall back to "bet");
    ``street`` the game round the spot starts in (1 flop, 2 turn, 3 river)."""

    game: GameDef
    board: tuple[int, ...]
    pot: int
    stack: int
    oop_position: int
    ranges: tuple[np.ndarray, np.ndarray]
    range_text: tuple[str, str]
    lost: tuple[int, int]
    sizes: dict = field(default_factory=dict)
    cap: int | None = None
    allin: float = 0.0

    @property
    def street(self) -> int:
        return len(self.board) - 2

    @property
    def ip_position(self) -> int:
        return 1 - self.oop_position

    def tree_game(self) -> GameDef:
        """The game the spot's tree is grown in: each stack is half the pot plus the
        effective stack, no blinds (the smallest bet is one chip), the OOP player first on
        every street from the spot's on."""
        first = tuple(p if r < self.street else self.oop_position
                      for r, p in enumerate(self.game.first_player[:self.game.num_rounds]))
        total = self.pot // 2 + self.stack
        return replace(self.game, stack=(total, total), blind=(0, 0), first_player=first,
                       name=f"{self.game.name} spot")

    def summary(self) -> str:
        street = STREETS[self.street - 1]
        combos = [int(np.count_nonzero(r)) for r in self.ranges]
        return (f"{self.game.name} {street} spot: board {cards_text(self.board)}, pot {self.pot}, "
                f"effective stack {self.stack}; OOP (position {self.oop_position}) {combos[0]} combos, "
                f"IP {combos[1]} combos")

    def describe_ranges(self) -> list[str]:
        """Each range as written (compactly, before the board's combos are removed)."""
        return [f"{name}: {format_range(parse_range(t))}" for name, t in zip(("OOP", "IP"), self.range_text)]


def load_spot(path) -> Spot:
    """The spot of a TOML file (module docstring)."""
    p = Path(path)
    foreign = not_regular(p)
    if foreign is not None:  # a FIFO would block the read forever
        raise CfrlabError(f"{p}: cannot read the spot file ({foreign})")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CfrlabError(f"{p}: no such spot file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CfrlabError(f"{p}: cannot read the spot file ({e.__class__.__name__})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CfrlabError(f"{p}: not a TOML file ({' '.join(str(e).split())})") from None
    try:
        missing = [k for k in _REQUIRED if k not in _known(data, _FIELDS, "a spot")]
        if missing:
            raise CfrlabError(f"the spot has no {', '.join(missing)} (a spot file gives "
                              f"{', '.join(_REQUIRED)}: docs/spots.md)")
        return make_spot(**data)
    except CfrlabError as e:
        raise CfrlabError(f"{p}: {e}") from None


def make_spot(*, board, pot, stack, ranges=None, oop_range=None, ip_range=None,
              game="holdem-nolimit", bets=None, oop_position=None) -> Spot:
    """A spot from its fields (module docstring). ``ranges`` is ``{"oop": ..., "ip": ...}``
    or give ``oop_range`` and ``ip_range``; ``bets`` the ``[bets]`` table as a dict."""
    g = _game(game)
    cards = _board(board, g)
    pot, stack = _chips(pot, "pot"), _chips(stack, "effective stack")
    if pot % 2:
        raise CfrlabError(f"the pot must be an even number of chips (each player put in half), "
                          f"got {pot}; double every amount")
    if pot // 2 + stack > INT32_MAX:
        raise CfrlabError(f"half the pot plus the stack must be at most {INT32_MAX} chips")
    texts = _range_texts(ranges, oop_range, ip_range)
    street = len(cards) - 2
    if oop_position is None:
        oop_position = g.first_player[street]
    if oop_position not in (0, 1) or isinstance(oop_position, bool):
        raise CfrlabError(f"oop_position is the position (0 or 1) of the player out of position, "
                          f"got {oop_position!r}")
    weights, lost = zip(*(_range(t, name, cards) for t, name in zip(texts, ("OOP", "IP"))))
    sizes, cap, allin = _sizes(bets, g)
    return Spot(g, tuple(cards), pot, stack, int(oop_position), tuple(weights), tuple(texts),
                tuple(lost), sizes, cap, allin)


# -- fields --------------------------------------------------------------------------------------
def _known(data: dict, keys: tuple[str, ...], what: str) -> dict:
    if not isinstance(data, dict):
        raise CfrlabError(f"{what} is a table of settings, got {data!r}")
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise CfrlabError(f"{what} has an unknown setting {unknown[0]!r} (settings: {', '.join(keys)})")
    return data


def _game(name) -> GameDef:
    if not isinstance(name, (str, GameDef)):
        raise CfrlabError(f"the game is a name such as 'holdem-nolimit' ({', '.join(GAMES)}), got {name!r}")
    g = name if isinstance(name, GameDef) else load_game(name)
    ok = (g.num_players == 2 and g.num_rounds == 4 and g.num_hole_cards == 2 and g.num_ranks == 13
          and g.num_suits == 4 and tuple(g.num_board_cards[:4]) == (0, 3, 1, 1))
    if not ok:
        raise CfrlabError(f"a spot is played in heads-up hold'em ({', '.join(GAMES)}), "
                          f"not {g.name or name}")
    return g


def _board(text, g: GameDef) -> list[int]:
    """The board's card ids from text (``"Qs Jh 2h"``) or a list of cards (texts or ids)."""
    if isinstance(text, str):
        cards = parse_cards(text)
    elif isinstance(text, (list, tuple)) and all(_is_card(c) for c in text):
        cards = [_card(c) for c in text]
    else:
        raise CfrlabError(f"the board is text such as 'Qs Jh 2h' (or a list of cards), got {text!r}")
    if not 3 <= len(cards) <= 5:
        raise CfrlabError(f"a board has 3 to 5 cards (flop, turn or river), got {len(cards)}")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise CfrlabError(f"the board holds {cards_text([twice])} twice")
    return cards


def _is_card(c) -> bool:
    """A card as a list item: its text or its id (0 to 51)."""
    if isinstance(c, str):
        return True
    return isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < 52


def _card(c) -> int:
    if not isinstance(c, str):
        return int(c)
    one = parse_cards(c)
    if len(one) != 1:
        raise CfrlabError(f"a board given as a list holds one card per item, got {c!r}")
    return one[0]


def _chips(value, name: str) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or value != int(value)):
        raise CfrlabError(f"the {name} is a whole number of chips, got {value!r}")
    if value <= 0:
        raise CfrlabError(f"the {name} must be positive, got {value!r}")
    return int(value)


def _range_texts(ranges, oop_range, ip_range) -> list[str]:
    if ranges is not None:
        _known(ranges, PLAYERS, "[ranges]")
        oop_range, ip_range = ranges.get("oop", oop_range), ranges.get("ip", ip_range)
    for name, text in (("OOP", oop_range), ("IP", ip_range)):
        if text is None:
            raise CfrlabError(f"the {name} range is missing (range text such as 'AA, KK:0.5, AQs+')")
        if not isinstance(text, str):
            raise CfrlabError(f"the {name} range is range text such as 'AA, KK:0.5, AQs+', got {text!r}")
    return [oop_range, ip_range]


def _range(text: str, name: str, board: list[int]) -> tuple[np.ndarray, int]:
    try:
        weights = parse_range(text)
    except CfrlabError as e:
        raise CfrlabError(f"the {name} range: {e}") from None
    for c in single_combos(text):
        if weights[c] > 0 and np.isin(COMBOS[c], board).any():
            raise CfrlabError(f"the {name} range holds {combo_text(c)}, which uses a board card")
    out, lost = with_board(weights, board)
    if not out.any():
        raise CfrlabError(f"the {name} range has no combo left once the board's cards are removed")
    return out, lost


# -- bet sizes ---------------------------------------------------------------------------------
def _sizes(bets, g: GameDef) -> tuple[dict, int | None, float]:
    """(sizes by (player, street, kind), cap, allin) of the ``[bets]`` table."""
    if g.is_limit:
        if bets:
            raise CfrlabError(f"{g.name} is a limit game: its raises have one size, so a spot in it "
                              "takes no bet sizes")
        return {}, None, 0.0
    bets = _known(bets or {}, (*KINDS[:2], *_BET_OPTIONS, *PLAYERS, *STREETS), "[bets]")
    options = ";".join(f"{k}={bets[k]}" for k in _BET_OPTIONS if k in bets)
    probe = parse_bets("-" + (";" + options if options else ""))
    cap = probe.cap[0] if probe.cap else None
    streets = {st: _known(bets.get(st, {}), KINDS, f"[bets.{st}]") for st in STREETS}
    sizes = {}
    for who in PLAYERS:
        mine = _known(bets.get(who, {}), (*KINDS, *STREETS), f"[bets.{who}]")
        for street in STREETS:
            here = _known(mine.get(street, {}), KINDS, f"[bets.{who}.{street}]")
            if who == "ip" and ("donk" in here or "donk" in mine):
                raise CfrlabError("donk bets are the out-of-position player's (set them under [bets.oop] "
                                  "or a street's table)")
            for kind in KINDS:
                if kind == "donk" and who == "ip":
                    continue
                # the most specific table that sets it: this player's street, the street (both
                # players), this player, every street (no default for donk: it falls back to bet)
                chain = (here, streets[street], mine) + (() if kind == "donk" else (bets,))
                text = next((t[kind] for t in chain if kind in t), None if kind == "donk" else DEFAULT_SIZES)
                if text is None:
                    continue
                sizes[(who, street, kind)] = _one_round(text, f"{who} {street} {kind}")
    return sizes, cap, probe.allin


def _one_round(text, where: str) -> BetSpec:
    if not isinstance(text, str) or ";" in text or "/" in text:
        raise CfrlabError(f"the {where} sizes are one list such as '50%, p, a', got {text!r}")
    spec = parse_bets(text)
    if spec is None or spec.name:
        raise CfrlabError(f"the {where} sizes are a list such as '50%, p, a', not a preset ({text!r})")
    if any(s.kind in ("x", "bb") for s in spec.rounds[0]):
        raise CfrlabError(f"the {where} sizes are pot fractions or all-in ('50%', '0.5p', 'p', 'a'), "
                          f"got {text!r}")
    return spec
