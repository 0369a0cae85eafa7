"""The CFR family for N players on the N-player engine (``cfrlab.engine.nplayer``): the
update rules (``NParams``, presets by name) and the full-width solver ``NSolver``."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from cfrlab.engine.kernels import normalize_rows, nplayer_iterate
from cfrlab.engine.nplayer import NEngine, get_engine
from cfrlab.engine.rules import RULES, CFRParams
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.solvers.protocol import CFR_KIND, check_resumed_tables

# -- the CFR family ------------------------------------------------------------------------

# the N-player walk runs the one table's rules (``cfrlab.engine.rules``) that it can: alternating
# or simultaneous updates, regret floor, DCFR discounts and the averaging weight
NParams = CFRParams
N_FIELDS = ("alternating", "regret_floor", "alpha", "beta", "gamma")
PRESETS: dict[str, CFRParams] = {name: RULES[name] for name in ("cfr", "cfr-alt", "cfr+", "lcfr", "dcfr")}
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
    known = set(N_FIELDS)
    bad = sorted(set(overrides) - known)
    if bad:
        raise CfrlabError(f"unknown parameter {bad[0]!r} for {name}; known: {', '.join(sorted(known))}")
    return replace(p, **overrides) if overrides else p


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
