"""Counter-strategies to a fixed opponent: FBR, RNR, DBR, and the sweep over their parameter.

Each returns a ``Counter``: the counter-strategy as a ``Strategy`` (both positions; the header
records the method, its parameter, the figures and the model it was made against) and two
figures per game in the game's unit (``Counter.unit``: mbb/g in a blind game, chips/g in an
ante game; ``cfrlab.games.units``), mean over the positions: ``exploitation`` (what it wins
against the model) and ``exploitability`` (what a best response wins against it); the
``*_chips`` fields hold them in chips per game. The trade-off
between them is what RNR and DBR tune (Johanson, Zinkevich and Bowling, "Computing Robust
Counter-Strategies", NIPS 2007; Johanson and Bowling, "Data Biased Robust Counter
Strategies", AISTATS 2009).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cfrlab.counter.model import OpponentModel, frequentist_best_response
from cfrlab.counter.restricted import RestrictedSolver
from cfrlab.engine import exploitability as _exploitability
from cfrlab.errors import CfrlabError
from cfrlab.games.units import CHIPS, format_value, parse_amount, to_unit, unit_of
from cfrlab.strategy import VERSION, Strategy

CONFIDENCE_KINDS = ("linear", "step")


@dataclass(repr=False)
class Counter:
    """A counter-strategy and its figures (module docstring); ``exploitation``,
    ``exploitability`` and ``gap`` (the distance to the restricted game's equilibrium, when a
    target asked for it) are per game in ``unit``."""

    strategy: Strategy
    method: str
    parameter: float | None
    exploitation_chips: float
    exploitability_chips: float
    iterations: int = 0
    objective: float | None = None
    gap_chips: float | None = None

    @property
    def unit(self) -> str:
        """The game's unit: "mbb/g" in a blind game, "chips/g" in an ante game."""
        return unit_of(self.strategy.game)

    @property
    def exploitation(self) -> float:
        """What the counter-strategy wins against the model, per game in ``unit``."""
        return to_unit(self.strategy.game, self.exploitation_chips)

    @property
    def exploitability(self) -> float:
        """What a best response wins against the counter-strategy, per game in ``unit``."""
        return to_unit(self.strategy.game, self.exploitability_chips)

    @property
    def gap(self) -> float | None:
        """The distance to the restricted game's equilibrium in ``unit`` (None: not measured)."""
        return None if self.gap_chips is None else to_unit(self.strategy.game, self.gap_chips)

    def __repr__(self) -> str:
        param = "" if self.parameter is None else f" {self.parameter:g}"
        gap = "" if self.gap is None else f", gap {format_value(self.gap, self.unit)}"
        return (f"<Counter {self.method}{param}: exploitation {format_value(self.exploitation, self.unit)}, "
                f"exploitability {format_value(self.exploitability, self.unit)}{gap}>")


def _target(opponent) -> tuple[Strategy, OpponentModel | None]:
    if isinstance(opponent, OpponentModel):
        return opponent.strategy(), opponent
    if isinstance(opponent, Strategy):
        return opponent, None
    raise CfrlabError(f"not an opponent model or a strategy: {opponent!r}")


def _finish(target: Strategy, policy, method, parameter, exploitation, exploitability, iterations=0,
            objective=None, extra=None, gap=None) -> Counter:
    header = {"counter": {"method": method, "parameter": parameter, "exploitation": exploitation,
                          "against": target.header.get("opponent_model") or target.algorithm,
                          **(extra or {})},
              "cfrlab_version": VERSION}
    s = Strategy.from_policy(target.game, policy, tree=target.tree, model=target.model, algorithm=method,
                             iterations=iterations, exploitability=exploitability, extra=header)
    s.header["game_value"] = s.game_value(CHIPS)
    return Counter(s, method, parameter, exploitation, exploitability, iterations, objective, gap)


def fbr(opponent) -> Counter:
    """The frequentist best response: exact best response to the model at each position."""
    target, _ = _target(opponent)
    policy, value = frequentist_best_response(target.tree, target.model, target.policy)
    own = float(_exploitability(target.tree, target.model, policy))
    return _finish(target, policy, "fbr", None, float(value), own)


def confidence(observations: np.ndarray, p_max: float, kind: str = "linear", full: float = 10.0) -> np.ndarray:
    """P_conf per row from the observations of each information set: ``linear`` rises from 0
    (never seen) to ``p_max`` at ``full`` observations; ``step`` is 0 below ``full``, then
    ``p_max`` (the DBR paper's "0-10 linear" is ``linear`` with full = 10)."""
    if not 0.0 <= float(p_max) <= 1.0:
        raise CfrlabError(f"P_max is a probability from 0 to 1, got {p_max!r}")
    if kind not in CONFIDENCE_KINDS:
        raise CfrlabError(f"unknown confidence function {kind!r}; choose from {', '.join(CONFIDENCE_KINDS)}")
    if not 0 < full < math.inf:  # 1e400 reads as inf: a confidence that never rises
        raise CfrlabError(f"the confidence function's observation count must be a positive finite number, got {full!r}")
    n = np.asarray(observations, dtype=np.float64)
    if kind == "linear":
        return float(p_max) * np.minimum(1.0, n / float(full))
    return np.where(n >= float(full), float(p_max), 0.0)


def rnr(opponent, p: float, *, iterations: int = 1000, algorithm: str = "cfr+",
        progress: Callable[[int], None] | None = None, target: float | str | None = None) -> Counter:
    """Restricted Nash response with model probability ``p`` after ``iterations`` of CFR, or
    sooner once its gap to the restricted game's equilibrium is at most ``target``
    (``RestrictedSolver.gap``, measured at 100 iterations and every 50 after): a number in the
    game's unit, or a string that names its unit (``"5 mbb/g"``, ``"0.01 chips/g"``)."""
    aim, _ = _target(opponent)
    solver = RestrictedSolver(aim.tree, aim.model, aim.policy, p=p, algorithm=algorithm)
    gap = _run(solver, iterations, progress, _gap_target(aim, target))
    r = solver.evaluate()
    return _finish(aim, r.policy, "rnr", float(p), r.exploitation, r.exploitability, solver.iterations,
                   r.objective, {"algorithm": algorithm}, gap)


def dbr(model: OpponentModel, p_max: float, *, kind: str = "linear", full: float = 10.0, iterations: int = 1000,
        algorithm: str = "cfr+", progress: Callable[[int], None] | None = None,
        target: float | str | None = None) -> Counter:
    """Data-biased response: the model is trusted at each information set in proportion to
    how often it was observed there (``confidence``), up to ``p_max``; ``target`` as in ``rnr``."""
    if not isinstance(model, OpponentModel):
        raise CfrlabError("DBR needs an opponent model with observation counts (cfrlab counter model)")
    aim = model.strategy()
    conf = confidence(model.observations, p_max, kind, full)
    solver = RestrictedSolver(aim.tree, aim.model, aim.policy, conf=conf, algorithm=algorithm)
    gap = _run(solver, iterations, progress, _gap_target(aim, target))
    r = solver.evaluate()
    return _finish(aim, r.policy, "dbr", float(p_max), r.exploitation, r.exploitability, solver.iterations,
                   r.objective, {"algorithm": algorithm, "confidence": f"{kind}:{full:g}"}, gap)


def _gap_target(aim: Strategy, target: float | str | None) -> float | None:
    """A target gap in chips per game (None: no target)."""
    return None if target is None else parse_amount(aim.game, target, "the target gap")


GAP_FIRST, GAP_EVERY = 100, 50  # when a target is set: first gap check, then every this many


def _run(solver, iterations: int, progress, target: float | None = None) -> float | None:
    """Iterate up to ``iterations``; with a ``target`` gap, stop at the first check that meets
    it. Returns the last gap measured (None without a target)."""
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise CfrlabError(f"iterations is a positive integer, got {iterations!r}")
    if target is not None and not target > 0:
        raise CfrlabError(f"the target gap must be positive, got {target!r}")
    step = max(1, iterations // 50)
    gap = None
    check = GAP_FIRST
    while solver.iterations < iterations:
        stop = min(iterations, check) if target is not None else iterations
        solver.iterate(min(step, stop - solver.iterations))
        if progress is not None:
            progress(solver.iterations)
        if target is not None and solver.iterations == stop:
            gap = solver.gap()
            if gap <= target:
                break
            check += GAP_EVERY
    if target is not None and gap is None:
        gap = solver.gap()
    return gap


def sweep(opponent, values, *, method: str = "rnr", iterations: int = 1000, algorithm: str = "cfr+",
          kind: str = "linear", full: float = 10.0, on_point: Callable[[Counter], None] | None = None,
          target: float | str | None = None) -> list[Counter]:
    """One counter-strategy per parameter value (p for RNR, P_max for DBR), in order; each
    stops early at the ``target`` gap when one is given (see ``rnr``)."""
    out = []
    for v in values:
        if method == "rnr":
            c = rnr(opponent, v, iterations=iterations, algorithm=algorithm, target=target)
        elif method == "dbr":
            c = dbr(opponent, v, kind=kind, full=full, iterations=iterations, algorithm=algorithm, target=target)
        else:
            raise CfrlabError(f"unknown sweep method {method!r} (rnr or dbr)")
        out.append(c)
        if on_point is not None:
            on_point(c)
    return out


def mixture_line(first: Counter, last: Counter, n: int = 11) -> list[tuple[float, float]]:
    """The straight line from ``first`` to ``last`` in (exploitability, exploitation), in their
    unit (``Counter.unit``): what
    choosing between the two by a coin before each game guarantees at most (its exploitation
    is on the line, its exploitability at most on it). RNR's curve lies above it."""
    qs = np.linspace(0.0, 1.0, n)
    return [((1 - q) * first.exploitability + q * last.exploitability,
             (1 - q) * first.exploitation + q * last.exploitation) for q in qs]

