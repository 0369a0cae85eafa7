"""The N-player tests' view of a solve: ``cfrlab.solve`` with NashConv figures (chips per game)."""

from __future__ import annotations

from dataclasses import dataclass, field

import cfrlab
from cfrlab.engine.values import Evaluation
from cfrlab.games.units import from_unit
from cfrlab.strategy import Strategy


@dataclass
class NSolve:
    strategy: Strategy
    evaluation: Evaluation
    curve: list[tuple[int, float, float]] = field(default_factory=list)  # (iterations, seconds, NashConv)

    @property
    def nash_conv(self) -> float:
        return self.evaluation.nash_conv


def solve(game, algorithm: str, iterations: int, *, checkpoints: int = 0, seed: int | None = None) -> NSolve:
    """``iterations`` of ``algorithm``; NashConv measured ``checkpoints`` times along the way."""
    every = max(1, iterations // checkpoints) if checkpoints else max(1, iterations)
    r = cfrlab.solve(game, algorithm, iterations=iterations, seed=seed, eval_every=every)
    n = r.strategy.num_players
    curve = [(i, s, n * from_unit(r.strategy.game, e)) for i, s, e in r.curve] if checkpoints else []
    return NSolve(r.strategy, r.strategy.evaluate(), curve)
