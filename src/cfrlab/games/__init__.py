"""ACPC games: definitions, built-ins, the rules engine and match-state strings."""

from cfrlab.games.builtins import BUILTIN_NAMES, builtin_game, load_game  # noqa: F401
from cfrlab.games.gamedef import BettingType, GameDef, parse_game, write_game  # noqa: F401
from cfrlab.games.matchstate import LogLine, MatchState, parse_log_line, parse_match_state  # noqa: F401
from cfrlab.games.state import State  # noqa: F401
