"""Real-game evaluation of limit strategies: exact best response over real cards.

``real_best_response(opponent, game, workers=N, checkpoint=DIR, resume=..., ray=ADDRESS)``
walks the public tree with vectors over every hand (Johanson, Waugh, Bowling and Zinkevich,
"Accelerating best response calculation in large extensive games"), split into independent
units (one per class of first-round boards) that local worker processes, or actors of a Ray
cluster, run and checkpoint (against card-independent opponents such as the bots, a faster
exact method needs no units). ``local_best_response(opponent, game, hands=N)`` plays the
local best response (Lisý and Bowling) against it: a lower bound with a confidence interval,
in minutes. ``real_best_response_strategy(opponent, game)`` returns the best
response itself where the real game is small enough to store it. See docs/realgame.md.

The names below load their modules on first use: the walk ranks hold'em hands with the
seven-card evaluator, whose tables are built at import, and ``import cfrlab`` for a Leduc solve
should not pay for that.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "AgentSpec": "br",
    "RealBestResponse": "br",
    "StrategyFile": "br",
    "real_best_response": "br",
    "BatchPolicy": "opponents",
    "StrategyPolicy": "opponents",
    "TablePolicy": "opponents",
    "LBRResult": "lbr",
    "local_best_response": "lbr",
    "lift": "brstrategy",
    "real_best_response_strategy": "brstrategy",
}
__all__ = ["AgentSpec", "BatchPolicy", "LBRResult", "RealBestResponse", "StrategyFile", "StrategyPolicy",
           "TablePolicy", "lift", "local_best_response", "real_best_response",
           "real_best_response_strategy"]


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"cfrlab.realgame.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'cfrlab.realgame' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
