"""Monte Carlo CFR for N players: chance sampling (``cs``) and external sampling (``es``)
(Lanctot, Waugh, Zinkevich and Bowling, "Monte Carlo sampling for regret minimization in
extensive games", NIPS 2009) on the N-player public tree and deals of ``cfrlab.engine.nplayer``.

- ``cs``: each iteration draws one deal and walks the whole betting tree with every player's
  reach, updating every player's regrets and average strategy (vanilla CFR's simultaneous
  rule, with chance sampled: Zinkevich et al. 2007's chance-sampled CFR).
- ``es``: each iteration runs one traversal per player (0, 1, ..., N-1), each on a freshly
  drawn deal: the traverser's actions are all explored, the other players' actions sampled
  from their current strategies. The usual choice with three players: an iteration costs
  about |A|^(the traverser's decisions) nodes, not the whole tree.

Tables have the full-width engine's layout (``NEngine``: ``float64[rows, 3]``), so the average
strategy becomes the same ``Strategy`` file and gets the same exact evaluation. The random
stream is a splitmix64 state (``uint64[1]``, seeded from the seed by ``numpy.random.SeedSequence``
as the 2-player ``es`` does) advanced inside the kernels and saved by ``state_dict``: the same
seed gives the same strategy bit for bit, and ``iterate(a); iterate(b)`` equals ``iterate(a + b)``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cfrlab.engine.kernels import normalize_row_range
from cfrlab.engine.nplayer import NEngine, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.solvers import _nmccfr_kernels as MK
from cfrlab.solvers.nplayer import SAMPLED, EngineSolver, NSolver, params_for
from cfrlab.solvers.protocol import MCCFR_KIND, check_resumed_tables, resolve_seed

ALGORITHMS: tuple[str, ...] = SAMPLED


@dataclass(frozen=True)
class SampledParams:
    """``cs`` and ``es`` have no parameters of their own (as the 2-player ``es``)."""


class NSampledSolver(EngineSolver):
    """Chance- or external-sampling MCCFR for N players, with ``NSolver``'s interface:
    ``iterate(n)``, ``average_policy()``, ``current_policy()``, ``state_dict()`` /
    ``load_state_dict(d)`` (the random state included), ``iterations``, ``seconds``, ``seed``."""

    kind = MCCFR_KIND

    def __init__(self, game: GameDef | str, algorithm: str = "es", seed: int | None = None,
                 engine: NEngine | None = None) -> None:
        name = algorithm.lower()
        if name not in ALGORITHMS:
            raise CfrlabError(f"unknown sampling algorithm {algorithm!r}; use one of {', '.join(ALGORITHMS)}")
        self.engine = engine or get_engine(game)
        self.game = self.engine.game
        self.algorithm = name
        self.params = SampledParams()
        e = self.engine
        t = e.tree
        self._skip = MK.skip_table(t.events, t.num_nodes)
        self._buf = MK.make_buffers(t.max_depth, self.game.num_players, self.game.num_rounds)
        self.seed = resolve_seed(seed)
        self.rng = np.random.SeedSequence(self.seed).generate_state(1, dtype=np.uint64)
        self.regret = np.zeros((e.rows, 3))
        self.avg = np.zeros((e.rows, 3))
        self.iterations = 0
        self.seconds = 0.0

    def iterate(self, n: int = 1) -> None:
        n = int(n)
        if n < 0:
            raise CfrlabError(f"iterations must be >= 0, got {n}")
        if n == 0:
            return
        e = self.engine
        start = time.perf_counter()
        run = MK.es_iterations if self.algorithm == "es" else MK.cs_iterations
        run(e.T, e.D, self._skip, n, self.regret, self.avg, self.rng, self._buf)
        self.iterations += n
        self.seconds += time.perf_counter() - start

    def current_policy(self) -> np.ndarray:
        out = np.empty_like(self.regret)
        from_regrets(self.engine, self.regret, out)
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "seed": self.seed, "rng": self.rng.copy(), "regret": self.regret.copy(),
                "avg": self.avg.copy(), "iterations": self.iterations, "seconds": self.seconds}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        if d.get("algorithm") != self.algorithm:
            raise CfrlabError(f"checkpoint is for {d.get('algorithm')!r}, not {self.algorithm!r}")
        for key in ("regret", "avg"):
            arr = np.asarray(d[key], dtype=np.float64)
            if arr.shape != self.regret.shape:
                raise CfrlabError(f"checkpoint {key} has shape {arr.shape}, expected {self.regret.shape}")
            setattr(self, key, arr.copy())
        check_resumed_tables(self.regret, self.avg)
        rng = np.asarray(d["rng"], dtype=np.uint64).reshape(-1)
        if rng.shape != (1,):
            raise CfrlabError("checkpoint rng is one unsigned 64-bit state")
        self.rng = rng.copy()
        self.seed = int(d["seed"])
        self.iterations = int(d["iterations"])
        self.seconds = float(d.get("seconds", 0.0))


def from_regrets(engine: NEngine, regret: np.ndarray, out: np.ndarray) -> None:
    """out = regret matching of every row (the current strategy)."""
    normalize_row_range(regret, engine.tree.legal, engine.dec_of_row, out, 0, regret.shape[0])


def make_nsolver(game: GameDef | str, algorithm: str, *, seed: int | None = None,
                 engine: NEngine | None = None, **params) -> NSolver | NSampledSolver:
    """An N-player solver by name: the full-width presets (``NParams`` overrides in ``params``)
    or ``cs`` / ``es`` (a ``seed``; no parameters)."""
    name = algorithm.lower()
    if name in ALGORITHMS:
        if params:
            raise CfrlabError(f"{name} takes no parameters (got {', '.join(sorted(params))})")
        return NSampledSolver(game, name, seed=seed, engine=engine)
    return NSolver(game, name, params_for(name, **params), engine=engine)


def solver_params(solver: NSolver | NSampledSolver) -> dict:
    return asdict(solver.params)


__all__ = ["ALGORITHMS", "NSampledSolver", "SampledParams", "make_nsolver", "solver_params"]
