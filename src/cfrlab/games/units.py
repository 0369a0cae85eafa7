"""Reporting units, in one place.

Payoffs are chips everywhere inside cfrlab. Ante games (Kuhn, Leduc: every player posts the
same amount) are reported in chips per game; blind games (limit hold'em) in milli-big-blinds
per game (mbb/g: in limit hold'em the big blind is the small bet, so this is the "millibets
per hand" of the early papers).
"""

from __future__ import annotations

import math

from cfrlab.games.gamedef import GameDef

CHIPS = "chips"
MBB = "mbb/g"


def is_ante_game(game: GameDef) -> bool:
    """Kuhn and Leduc post equal antes (ACPC writes them as equal blinds)."""
    return len(set(game.blind[: game.num_players])) == 1


def unit_of(game: GameDef) -> str:
    """The game's reporting unit: ``CHIPS`` or ``MBB``."""
    return CHIPS if is_ante_game(game) else MBB


def rate_unit(game: GameDef) -> str:
    """The unit of a per-game rate (match results): ``chips/g`` or ``mbb/g``."""
    return "chips/g" if is_ante_game(game) else MBB


def mbb_factor(game: GameDef) -> float | None:
    """Multiply chips per game by this for mbb/g (1000 / big blind); None without blinds."""
    return 1000.0 / game.big_blind if game.big_blind > 0 else None


def display_factor(game: GameDef) -> float:
    """Chips per game -> the game's reporting unit (1 for ante games)."""
    return 1.0 if is_ante_game(game) else 1000.0 / game.big_blind


def to_unit(game: GameDef, chips: float) -> float:
    """Chips per game in the game's reporting unit."""
    return chips * display_factor(game)


def from_unit(game: GameDef, value: float) -> float:
    """A value in the game's reporting unit back in chips per game."""
    return value / display_factor(game)


def format_unit(game: GameDef, chips: float | None) -> str:
    """``"0.0123 chips"`` / ``"3.41 mbb/g"``; ``"n/a"`` for None or NaN."""
    if chips is None or (isinstance(chips, float) and math.isnan(chips)):
        return "n/a"
    v = to_unit(game, chips)
    return f"{v:.3g} {unit_of(game)}" if abs(v) < 1e-2 else f"{v:.4f} {unit_of(game)}"
