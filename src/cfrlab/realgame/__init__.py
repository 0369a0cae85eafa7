"""Real-game evaluation of limit strategies: exact best response over real cards.

``real_best_response(opponent, game, workers=N, checkpoint=DIR, resume=...)`` walks the
public tree with vectors over every hand (Johanson, Waugh, Bowling and Zinkevich,
"Accelerating best response calculation in large extensive games"), split into independent
units (one per class of first-round boards) that local worker processes run and checkpoint.
See docs/realgame.md.
"""

from cfrlab.realgame.br import (  # noqa: F401
    AgentSpec,
    RealBestResponse,
    StrategyFile,
    real_best_response,
)
from cfrlab.realgame.opponents import BatchPolicy, StrategyPolicy, TablePolicy  # noqa: F401
