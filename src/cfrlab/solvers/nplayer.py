"""The CFR family for N players on the N-player engine (``cfrlab.engine.nplayer``): the
update rules (``NParams``, presets by name) and the full-width solver ``NSolver``."""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, fields

import numpy as np

from cfrlab.engine.kernels import NUpdateRule, normalize_rows, nplayer_iterate
from cfrlab.engine.nplayer import NEngine, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.solvers.protocol import CFR_KIND, check_resumed_tables

# -- the CFR family ------------------------------------------------------------------------

@dataclass(frozen=True)
class NParams:
    """Update rule (as ``cfrlab.solvers.cfr.CFRParams``): alternating updates (player 0, then
    1, ... each against the others' newest strategies), regret floor (CFR+), DCFR discounts
    alpha / beta of positive / negative regrets, averaging weight t^gamma."""

    alternating: bool = False
    regret_floor: bool = False
    alpha: float | None = None
    beta: float | None = None
    gamma: float = 0.0

    def __post_init__(self) -> None:
        for name in ("alternating", "regret_floor"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise CfrlabError(f"{name} is true or false, got {getattr(self, name)!r}")
        for name in ("alpha", "beta", "gamma"):
            v = getattr(self, name)
            if v is None and name != "gamma":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise CfrlabError(f"{name} is a finite number, got {v!r}")
        if self.gamma < 0:
            raise CfrlabError(f"gamma is at least 0, got {self.gamma}")

    def rule(self) -> NUpdateRule:
        return NUpdateRule(bool(self.alternating), bool(self.regret_floor), self.alpha is not None,
                            self.beta is not None, float(self.alpha or 0.0), float(self.beta or 0.0),
                            float(self.gamma))


PRESETS: dict[str, NParams] = {
    "cfr": NParams(),
    "cfr-alt": NParams(alternating=True),  # vanilla CFR with alternating updates, as OpenSpiel's CFRSolver
    "cfr+": NParams(alternating=True, regret_floor=True, gamma=1.0),
    "lcfr": NParams(alternating=True, alpha=1.0, beta=1.0, gamma=1.0),
    "dcfr": NParams(alternating=True, alpha=1.5, beta=0.0, gamma=2.0),
}
SAMPLED = ("cs", "es")  # Monte Carlo CFR: cfrlab.solvers.nmccfr
TWO_PLAYER_ONLY = ("lp", "pcfr+", "pcs", "os")
ALGORITHMS = (*PRESETS, *SAMPLED)


def params_for(algorithm: str, **overrides) -> NParams:
    """The update rule of a full-width preset, with ``NParams`` overrides."""
    name = algorithm.lower()
    if name in TWO_PLAYER_ONLY:
        raise CfrlabError(f"{algorithm} is for 2-player games; with more players use one of "
                          f"{', '.join(ALGORITHMS)}")
    if name in SAMPLED:
        raise CfrlabError(f"{name} is a sampling solver without an update rule to tune "
                          "(cfrlab.solvers.nmccfr.make_nsolver builds it)")
    if name not in PRESETS:
        raise CfrlabError(f"unknown N-player algorithm {algorithm!r}; use one of {', '.join(ALGORITHMS)}")
    p = PRESETS[name]
    known = {f.name for f in fields(NParams)}
    bad = sorted(set(overrides) - known)
    if bad:
        raise CfrlabError(f"unknown parameter {bad[0]!r} for {name}; known: {', '.join(sorted(known))}")
    return NParams(**{**asdict(p), **overrides}) if overrides else p


class EngineSolver:
    """What every N-player solver shares for the Solver protocol (``cfrlab.solvers.protocol``):
    its tree and model are its engine's, an exact measure of its policies, and the average
    policy (``self.avg`` holds the average sums)."""

    engine: NEngine
    game: GameDef
    avg: np.ndarray

    @property
    def tree(self):
        return self.engine.tree

    @property
    def model(self):
        """The exact deals (the N-player chance model; ``Strategy`` reads its states)."""
        return self.engine.deals

    def exploitability(self, average: bool = True) -> float:
        """NashConv / N of the average (or current) policy, in chips per game (OpenSpiel's
        ``exploitability``; with two players the mean of the two best responses' gains)."""
        policy = self.average_policy() if average else self.current_policy()
        return self.engine.nash_conv(policy) / self.game.num_players

    def average_policy(self) -> np.ndarray:
        out = np.empty_like(self.avg)
        normalize_rows(self.avg, self.engine.tree.legal, self.engine.dec_of_row, out)
        return out


class NSolver(EngineSolver):
    """A full-width CFR variant for N players; a ``Solver`` (``cfrlab.solvers.protocol``)."""

    kind = CFR_KIND

    def __init__(self, game: GameDef | str, algorithm: str = "cfr", params: NParams | None = None,
                 engine: NEngine | None = None) -> None:
        self.engine = engine or get_engine(game)
        self.game = self.engine.game
        self.algorithm = algorithm
        self.params = params or params_for(algorithm)
        self.rule = self.params.rule()
        e = self.engine
        self.regret = np.zeros((e.rows, 3))
        self.avg = np.zeros((e.rows, 3))
        self.sigma = e.uniform_policy()
        self.iterations = 0
        self.seconds = 0.0
        self.seed = None

    def iterate(self, n: int = 1) -> None:
        if n < 0:
            raise CfrlabError(f"iterations must be >= 0, got {n}")
        e = self.engine
        start = time.perf_counter()
        nplayer_iterate(e.T, e.D, self.rule, self.iterations, int(n), self.regret, self.avg, self.sigma,
                  e.dec_of_row, e.buf)
        self.iterations += int(n)
        self.seconds += time.perf_counter() - start

    def current_policy(self) -> np.ndarray:
        return self.sigma.copy()

    def state_dict(self) -> dict:
        return {"regret": self.regret.copy(), "avg": self.avg.copy(), "sigma": self.sigma.copy(),
                "iterations": self.iterations, "seconds": self.seconds}

    def load_state_dict(self, d: dict) -> None:
        for key in ("regret", "avg", "sigma"):
            arr = np.asarray(d[key], dtype=np.float64)
            if arr.shape != self.regret.shape:
                raise CfrlabError(f"checkpoint {key} has shape {arr.shape}, expected {self.regret.shape}")
            setattr(self, key, arr.copy())
        check_resumed_tables(self.regret, self.avg, regret_floor=bool(self.params.regret_floor))
        self.iterations = int(d["iterations"])
        self.seconds = float(d.get("seconds", 0.0))
