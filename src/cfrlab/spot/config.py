"""A postflop spot: a board, the pot, the effective stack, two ranges and the bet sizes.

From keyword arguments (``make_spot``) or a TOML file (``load_spot``), with the same fields::

    game = "holdem-nolimit"        # or "holdem-limit" (then no bet sizes: limit raises have one)
    board = "Qs Jh 2h"             # 3 to 5 cards: the spot starts on the flop, turn or river
    pot = 10                       # chips in the pot at the start of the spot
    stack = 95                     # effective stack: chips behind for each player
    dead = 0                       # optional: chips of the pot neither player put in (a folded
                                   # blind); the rest of the pot is the players', half each
    big_blind = 100                # optional: chips per big blind, for amounts written in big
                                   # blinds (pot = "5.5bb"; default 100 chips)
    [rake]                         # optional: taken from the pot at showdown and when a player
    percent = 5                    # folds (no flop, no drop: a spot is after the flop)
    cap = "1bb"                    # optional: at most this many chips (or big blinds)
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
``bets.<player>``, then ``bets``. A ``donk`` list not given falls back to the ``bet`` list.
Facing a bet, ``raise`` lists may hold multiples of it: ``3x`` raises to three times the
bet faced (a bet or donk list may not: there is nothing to multiply). Chips are whole numbers
in the spot's own unit (no blinds: the smallest bet is one chip); ``pot``, ``stack``, ``dead``
and the rake's ``cap`` may also be written in big blinds (``"97.5bb"``), ``big_blind`` chips
each. Pot-fraction sizes are fractions of the whole pot, dead money included.
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
_FIELDS = ("game", "board", "pot", "stack", "dead", "big_blind", "rake", "oop_position", "ranges", "bets")
_RAKE = ("percent", "cap")
DEFAULT_BIG_BLIND = 100  # chips per big blind where amounts are written in big blinds
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
    dead: int = 0  # chips of the pot neither player put in
    big_blind: int = DEFAULT_BIG_BLIND  # chips per big blind (amounts written in bb; reports)
    rake_percent: float = 0.0  # of the pot, at showdown and when a player folds
    rake_cap: int | None = None  # at most this many chips (None: no cap)

    @property
    def put_in(self) -> int:
        """Chips each player has put in the pot at the start (the pot less the dead money, halved)."""
        return (self.pot - self.dead) // 2

    @property
    def raked(self) -> bool:
        return self.rake_percent > 0 and self.rake_cap != 0

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
        total = self.put_in + self.stack
        return replace(self.game, stack=(total, total), blind=(0, 0), first_player=first,
                       name=f"{self.game.name} spot")

    def summary(self) -> str:
        street = STREETS[self.street - 1]
        combos = [int(np.count_nonzero(r)) for r in self.ranges]
        extra = (f" ({self.dead} dead)" if self.dead else "")
        rake = ""
        if self.raked:
            rake = f", rake {self.rake_percent:g}%" + (f" capped at {self.rake_cap}" if self.rake_cap is not None else "")
        return (f"{self.game.name} {street} spot: board {cards_text(self.board)}, pot {self.pot}{extra}, "
                f"effective stack {self.stack}{rake}; OOP (position {self.oop_position}) {combos[0]} combos, "
                f"IP {combos[1]} combos")

    def describe_ranges(self) -> list[str]:
        """Each range as written (compactly, before the board's combos are removed)."""
        return [f"{name}: {format_range(parse_range(t))}" for name, t in zip(("OOP", "IP"), self.range_text)]


def load_spot(path) -> Spot:
    """The spot of a TOML file (module docstring)."""
    return read_spot_file(path, make_spot)


def read_spot_file(path, build):
    """``build(**fields)`` of a spot file's fields, checked (a regular file, TOML, known
    settings, the required ones there); every refusal one line naming the file."""
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
        return build(**data)
    except CfrlabError as e:
        raise CfrlabError(f"{p}: {e}") from None


def make_spot(*, board, pot, stack, ranges=None, oop_range=None, ip_range=None,
              game="holdem-nolimit", bets=None, oop_position=None, dead=0, big_blind=None,
              rake=None) -> Spot:
    """A spot from its fields (module docstring). ``ranges`` is ``{"oop": ..., "ip": ...}``
    or give ``oop_range`` and ``ip_range``; ``bets`` the ``[bets]`` table and ``rake`` the
    ``[rake]`` table as dicts."""
    g = _game(game)
    cards = _board(board, g)
    bb = DEFAULT_BIG_BLIND if big_blind is None else _chips(big_blind, "big blind")
    pot, stack = _chips(pot, "pot", bb), _chips(stack, "effective stack", bb)
    dead = 0 if dead is None else _chips(dead, "dead money", bb, zero=True)
    if dead >= pot:
        raise CfrlabError(f"the dead money ({dead} chips) must be less than the pot ({pot} chips)")
    if (pot - dead) % 2:
        raise CfrlabError(f"the pot less the dead money is what the two players put in, half each: "
                          f"{pot} - {dead} chips is odd (give the odd chip as dead money, or double every amount)")
    if (pot - dead) // 2 + stack > INT32_MAX:
        raise CfrlabError(f"half the players' pot plus the stack must be at most {INT32_MAX} chips")
    rake_percent, rake_cap = _rake(rake, bb)
    texts = _range_texts(ranges, oop_range, ip_range)
    street = len(cards) - 2
    if oop_position is None:
        oop_position = g.first_player[street]
    if oop_position not in (0, 1) or isinstance(oop_position, bool):
        raise CfrlabError(f"oop_position is the position (0 or 1) of the player out of position, "
                          f"got {oop_position!r}")
    weights, lost = zip(*(_range(t, name, cards) for t, name in zip(texts, ("OOP", "IP"))))
    sizes, cap, allin = _sizes(bets, g)
    if g.is_limit and (dead or rake_percent):
        raise CfrlabError(f"{g.name} spots take no dead money or rake (they are solved on the engine's "
                          "tables, whose payoffs are the tree's); use holdem-nolimit")
    return Spot(g, tuple(cards), pot, stack, int(oop_position), tuple(weights), tuple(texts),
                tuple(lost), sizes, cap, allin, dead, bb, rake_percent, rake_cap)


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


def _chips(value, name: str, big_blind: int | None = None, zero: bool = False) -> int:
    """A positive whole number of chips (0 too with ``zero``), or big blinds written
    ``"5.5bb"`` where ``big_blind`` (chips per big blind) is given."""
    if isinstance(value, str) and big_blind is not None and value.strip().lower().endswith("bb"):
        try:
            bbs = float(value.strip()[:-2])
        except ValueError:
            raise CfrlabError(f"the {name} is chips or big blinds such as '5.5bb', got {value!r}") from None
        if not math.isfinite(bbs):
            raise CfrlabError(f"the {name} is chips or big blinds such as '5.5bb', got {value!r}")
        chips = bbs * big_blind
        if abs(chips - round(chips)) > 1e-9 * max(1.0, abs(chips)):
            raise CfrlabError(f"the {name} {value} is {chips:g} chips at {big_blind} chips a big blind, "
                              f"not a whole number (set big_blind)")
        value = round(chips)
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or value != int(value)):
        unit = " (big blinds are written '5.5bb')" if big_blind is not None else ""
        raise CfrlabError(f"the {name} is a whole number of chips, got {value!r}{unit}")
    if value < 0 or (value == 0 and not zero):
        raise CfrlabError(f"the {name} must be {'at least 0' if zero else 'positive'}, got {value!r}")
    return int(value)


def _rake(rake, big_blind: int) -> tuple[float, int | None]:
    """(percent, cap in chips or None) of the ``[rake]`` table."""
    if rake is None:
        return 0.0, None
    _known(rake, _RAKE, "[rake]")
    pct = rake.get("percent", 0.0)
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not math.isfinite(pct) or not 0 <= pct <= 100:
        raise CfrlabError(f"the rake's percent is a number from 0 to 100, got {pct!r}")
    cap = rake.get("cap")
    if cap is not None:
        if isinstance(cap, (int, float)) and not isinstance(cap, bool) and cap < 0:
            raise CfrlabError(f"the rake's cap must be at least 0 chips, got {cap!r}")
        cap = _chips(cap, "rake's cap", big_blind, zero=True)
    return float(pct), cap


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
    kinds = {s.kind for s in spec.rounds[0]}
    if "bb" in kinds:
        raise CfrlabError(f"the {where} sizes are pot fractions, multiples of the bet faced or all-in "
                          f"('50%', '0.5p', 'p', '3x', 'a'), got {text!r}")
    if "x" in kinds and not where.endswith(" raise"):
        raise CfrlabError(f"the {where} sizes open the betting, with no bet to multiply: '3x' is a raise "
                          f"size (under raise), got {text!r}")
    return spec
