"""ACPC games: definitions, built-ins, the rules engine and match-state strings."""

from cfrlab.games.gamedef import BettingType, GameDef, parse_game, write_game  # noqa: F401
from cfrlab.games.builtins import BUILTIN_NAMES, builtin_game, load_game  # noqa: F401

try:  # the rules engine lands separately; keep the definitions importable without it
    from cfrlab.games.state import State, parse_match_state  # noqa: F401
except ImportError:  # pragma: no cover
    pass
