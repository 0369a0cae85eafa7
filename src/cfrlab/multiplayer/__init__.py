"""N-player limit poker on enumerable decks (3-player Kuhn and Leduc): the public tree, a
deal-vectorized CFR family, Monte Carlo CFR (chance and external sampling: ``mccfr``), exact
best responses and NashConv, strategy files and OpenSpiel exchange. Two-player games keep their own engine (``cfrlab.engine``); this one accepts them
too (tests compare the two), but the CLI sends only N > 2 here.

    >>> from cfrlab import multiplayer
    >>> r = multiplayer.solve("kuhn-3p", "cfr+", 200)
    >>> r.evaluation.nash_conv < 0.01
    True
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from cfrlab.engine.nplayer import Evaluation, NEngine, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.multiplayer.nstrategy import NStrategy
from cfrlab.solvers.nmccfr import NSampledSolver, make_nsolver, solver_params
from cfrlab.solvers.nplayer import ALGORITHMS, PRESETS, SAMPLED, NParams, NSolver, params_for

__all__ = ["ALGORITHMS", "PRESETS", "SAMPLED", "Evaluation", "NEngine", "NParams", "NSampledSolver", "NSolver",
           "NStrategy", "SolveResult", "evaluate", "get_engine", "is_multiplayer", "make_nsolver", "params_for",
           "solve"]


def is_multiplayer(game: GameDef | str) -> bool:
    return load_game(game).num_players > 2


@dataclass
class SolveResult:
    """What ``solve`` returns: the average strategy (with its header), its exact evaluation,
    and the convergence curve: (iterations, seconds, NashConv) at the checkpoints."""

    strategy: NStrategy
    evaluation: Evaluation
    curve: list[tuple[int, float, float]] = field(default_factory=list)

    @property
    def nash_conv(self) -> float:
        return self.evaluation.nash_conv

    def to_json(self) -> dict:
        h = self.strategy.header
        return {"game": self.strategy.game.name, "num_players": self.strategy.num_players,
                "algorithm": h.get("algorithm"), "iterations": h.get("iterations"), "seconds": h.get("seconds"),
                **self.evaluation.to_json(),
                "curve": [{"iterations": i, "seconds": s, "nash_conv": nc} for i, s, nc in self.curve]}


def solve(game: GameDef | str, algorithm: str = "cfr+", iterations: int = 1000, *, checkpoints: int = 0,
          seed: int | None = None, **params) -> SolveResult:
    """Run a full-width CFR variant (``cfr``, ``cfr-alt``, ``cfr+``, ``lcfr``, ``dcfr``; ``params``
    override its ``NParams``) or Monte Carlo CFR (``cs`` chance sampling, ``es`` external
    sampling; ``seed`` makes the run reproducible, None draws one, recorded in the header) on an
    N-player limit game; ``checkpoints`` > 0 measures NashConv that many times along the way
    (evaluation time not counted in the seconds)."""
    game = load_game(game)
    if iterations < 0:
        raise CfrlabError(f"iterations must be >= 0, got {iterations}")
    solver = make_nsolver(game, algorithm, seed=seed, **params)
    engine = solver.engine
    curve: list[tuple[int, float, float]] = []
    marks = sorted({max(1, round(iterations * (k + 1) / checkpoints)) for k in range(checkpoints)}) \
        if checkpoints and iterations else []
    for m in marks:
        solver.iterate(m - solver.iterations)
        curve.append((solver.iterations, solver.seconds, engine.nash_conv(solver.average_policy())))
    solver.iterate(iterations - solver.iterations)
    start = time.perf_counter()
    policy = solver.average_policy()
    strategy = NStrategy.from_policy(game, policy, algorithm=solver.algorithm, params=solver_params(solver),
                                     iterations=solver.iterations, seconds=solver.seconds,
                                     extra={"seed": solver.seed})
    ev = strategy.evaluate()
    strategy.header["evaluation_seconds"] = time.perf_counter() - start
    return SolveResult(strategy, ev, curve)


def evaluate(strategy: NStrategy) -> Evaluation:
    return strategy.evaluate()
