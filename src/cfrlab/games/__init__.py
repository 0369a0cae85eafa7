"""ACPC games: definitions, built-ins, the rules engine and match-state strings.

The rules engine (``State``) and match-state strings (``MatchState``, ``parse_log_line``, ...)
load on first use: they need numpy, which listing and reading game definitions do not
(``cfrlab games``, ``cfrlab game show``).
"""

from cfrlab.games.builtins import BUILTIN_NAMES, builtin_game, load_game  # noqa: F401
from cfrlab.games.gamedef import BettingType, GameDef, parse_game, write_game  # noqa: F401
from cfrlab.lazy import lazy_names

_LAZY = {
    "State": "cfrlab.games.state",
    "LogLine": "cfrlab.games.matchstate",
    "MatchState": "cfrlab.games.matchstate",
    "parse_log_line": "cfrlab.games.matchstate",
    "parse_match_state": "cfrlab.games.matchstate",
}


__getattr__, __dir__ = lazy_names("cfrlab.games", _LAZY, lambda: [*globals(), *_LAZY])
