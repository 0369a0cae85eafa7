"""Reporting units, in one place: one rule for every game.

cfrlab computes in chips. Every figure it reports (a solve's exploitability and game value,
``Strategy.exploitability()``, best responses, match results, counter-strategies, the CLI) is
a value per game in the game's unit:

* ``"mbb/g"`` (milli-big-blinds per game, 1000 * chips / big blind) in a blind game: the
  players post different blinds (limit hold'em, or a custom game with ``blind = 1 2``). In
  limit hold'em the big blind is the small bet, so this is the "millibets per hand" of the
  early papers.
* ``"chips/g"`` (chips per game) in an ante game: every player posts the same amount (Kuhn,
  Leduc, a custom game with ``blind = 5 5``).

Every result carries that unit in a ``unit`` field and in its text. A figure kept in raw chips
says so in its name (``exact_chips``, ``BestResponse.chips``, a strategy header's
``exploitability``). An amount given to cfrlab (a solve's ``target``) is a number in the
game's unit or a string that names its unit: ``"5 mbb/g"``, ``"0.01 chips/g"``
(``parse_amount``).
"""

from __future__ import annotations

import math
import re

from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef

CHIPS = "chips/g"
MBB = "mbb/g"
UNITS = (CHIPS, MBB)
_ALIASES = {"chips/g": CHIPS, "chips": CHIPS, "chips/game": CHIPS, "chip": CHIPS,
            "mbb/g": MBB, "mbb": MBB, "mbb/game": MBB}
_AMOUNT = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]*)\s*", re.ASCII)


def is_ante_game(game: GameDef) -> bool:
    """Kuhn and Leduc post equal antes (ACPC writes them as equal blinds)."""
    return len(set(game.blind[: game.num_players])) == 1


def unit_of(game: GameDef) -> str:
    """The game's reporting unit: ``CHIPS`` ("chips/g") or ``MBB`` ("mbb/g")."""
    return CHIPS if is_ante_game(game) else MBB


def rate_unit(game: GameDef) -> str:
    """The unit of a per-game rate: the same as ``unit_of`` (every figure is per game)."""
    return unit_of(game)


def normalize_unit(unit: str) -> str:
    """``"chips/g"`` or ``"mbb/g"`` from a unit name (``"chips"``, ``"mbb"`` too)."""
    key = str(unit).strip().lower() if isinstance(unit, str) else None
    if key not in _ALIASES:
        raise CfrlabError(f"unknown unit {unit!r}; use {CHIPS!r} or {MBB!r}")
    return _ALIASES[key]


def mbb_factor(game: GameDef) -> float | None:
    """Multiply chips per game by this for mbb/g (1000 / big blind); None without blinds."""
    return 1000.0 / game.big_blind if game.big_blind > 0 else None


def factor(game: GameDef, unit: str) -> float:
    """Chips per game -> ``unit`` (1 for chips/g, 1000 / big blind for mbb/g)."""
    unit = normalize_unit(unit)
    if unit == CHIPS:
        return 1.0
    f = mbb_factor(game)
    if f is None:
        raise CfrlabError(f"{game.name or 'this game'} has no blinds: mbb/g is not defined")
    return f


def display_factor(game: GameDef) -> float:
    """Chips per game -> the game's reporting unit (1 for ante games)."""
    return factor(game, unit_of(game))


def to_unit(game: GameDef, chips: float, unit: str | None = None) -> float:
    """Chips per game in ``unit`` (default: the game's reporting unit)."""
    return chips * factor(game, unit or unit_of(game))


def from_unit(game: GameDef, value: float, unit: str | None = None) -> float:
    """A value in ``unit`` (default: the game's reporting unit) back in chips per game."""
    return value / factor(game, unit or unit_of(game))


def parse_amount(game: GameDef, amount: float | str, what: str = "the amount") -> float:
    """Chips per game from an amount a user gives: a number (in the game's unit) or a string
    naming its unit, ``"5 mbb/g"``, ``"0.01 chips/g"`` (``"5"`` alone: the game's unit).
    Refuses (one line naming ``what``) anything but a positive finite amount."""
    if isinstance(amount, bool) or not isinstance(amount, (int, float, str)):
        raise CfrlabError(f"{what} is a number or a string such as '5 mbb/g', got {amount!r}")
    if isinstance(amount, str):
        m = _AMOUNT.fullmatch(amount)
        if m is None:
            raise CfrlabError(f"{what} {amount!r}: expected a number and a unit, e.g. '5 mbb/g' or '0.01 chips/g'")
        value, unit = float(m.group(1)), (normalize_unit(m.group(2)) if m.group(2) else unit_of(game))
    else:
        value, unit = float(amount), unit_of(game)
    if not (math.isfinite(value) and value > 0):
        raise CfrlabError(f"{what} must be positive and finite, got {amount!r}")
    return from_unit(game, value, unit)


def format_unit(game: GameDef, chips: float | None, unit: str | None = None) -> str:
    """``"0.0123 chips/g"`` / ``"3.41 mbb/g"`` from chips per game; ``"n/a"`` for None or NaN."""
    if chips is None or (isinstance(chips, float) and math.isnan(chips)):
        return "n/a"
    unit = normalize_unit(unit or unit_of(game))
    return format_value(to_unit(game, chips, unit), unit)


def format_value(value: float | None, unit: str) -> str:
    """A value already in ``unit`` as text: ``"3.41 mbb/g"``; ``"n/a"`` for None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.3g} {unit}" if abs(value) < 1e-2 else f"{value:.4f} {unit}"
