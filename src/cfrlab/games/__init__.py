"""ACPC games: definitions, built-ins, the rules engine and match-state strings.

The rules engine (``State``) and match-state strings (``MatchState``, ``parse_log_line``, ...)
load on first use: they need numpy, which listing and reading game definitions do not
(``cfrlab games``, ``cfrlab game show``).
"""

import importlib

from cfrlab.games.builtins import BUILTIN_NAMES, builtin_game, load_game  # noqa: F401
from cfrlab.games.gamedef import BettingType, GameDef, parse_game, write_game  # noqa: F401

_LAZY = {
    "State": "cfrlab.games.state",
    "LogLine": "cfrlab.games.matchstate",
    "MatchState": "cfrlab.games.matchstate",
    "parse_log_line": "cfrlab.games.matchstate",
    "parse_match_state": "cfrlab.games.matchstate",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cfrlab.games' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__():
    return sorted([*globals(), *_LAZY])
