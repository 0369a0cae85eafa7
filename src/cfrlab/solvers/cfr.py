"""The CFR family on the vector engine: one configurable solver, named presets.

Every variant is an update rule on the same walk (``cfrlab.engine._kernels``), named in the
one table of rules (``cfrlab.engine.rules.RULES``, which also documents ``CFRParams``):

- ``alternating``: update player 0, then player 1 against 0's new strategy (else both at once);
- ``regret_floor``: clip accumulated regrets at 0 after each update (CFR+);
- ``alpha`` / ``beta``: before iteration t adds its regrets, multiply positive accumulated
  regrets by (t-1)^alpha / ((t-1)^alpha + 1) and negative ones by the same in beta
  (DCFR, Brown & Sandholm 2019; None = no discount);
- ``gamma``: the average strategy is sum_t t^gamma * reach * sigma_t (0 uniform as in
  vanilla CFR, 1 linear as in CFR+, 2 as in DCFR), kept as a running discounted sum;
- ``predictive``: choose the next strategy by regret matching on the accumulated regrets plus
  the last iteration's instantaneous regrets, the prediction that the next ones will be alike
  (PCFR+, Farina, Kroer & Sandholm 2021); full-width walks only.

Sampling schemes change what one iteration visits: ``full`` (every deal), ``pcs`` (public
chance sampling: one final board per iteration, vectors over all private states on it) and
``cs`` (chance sampling: one joint deal per iteration, as Zinkevich 2007). Sampling solvers
draw two uniforms per iteration from a ``numpy.random.Generator`` seeded by ``seed``, so a
run is reproducible and ``iterate(a); iterate(b)`` equals ``iterate(a + b)``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, replace

import numpy as np

from cfrlab.abstraction import BUCKETED
from cfrlab.engine import exploitability
from cfrlab.engine import kernels as K
from cfrlab.engine.core import Engine, get_engine
from cfrlab.engine.rules import RULES, CFRParams
from cfrlab.errors import CfrlabError
from cfrlab.solvers import _cs_kernels as CS
from cfrlab.solvers.pcs_holes import HolePairPCS
from cfrlab.solvers.protocol import CFR_KIND, check_resumed_tables, resolve_seed

SAMPLING = {"full": K.FULL, "pcs": K.PCS, "cs": K.CS}
MAX_UNIFORMS = 1 << 20
# auto float32: terminal products of one dense table at least this wide run as float32 GEMMs.
# Regrets, average sums and exact evaluation stay float64; a float32 product of H terms has a
# relative error of about sqrt(H) * 6e-8 (< 1e-5 at H = 10,000), far below the changes the
# solver tracks (exploitability targets of 1e-3 big blinds on values of order 10 chips).
FLOAT32_MIN_STATES = 256  # uniforms drawn per kernel call at most (memory bound for long runs)


# the full-width rules of the one table (``cfrlab.engine.rules``), and the sampled forms
PRESETS: dict[str, CFRParams] = {
    **{name: RULES[name] for name in ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+")},
    "cs": CFRParams(sampling="cs"),
    "pcs": CFRParams(sampling="pcs"),
}


class CFRSolver:
    """A CFR-family solver over (tree, chance model).

    Tables use the ENGINE.md layout: ``regret`` and ``avg`` float64[rows, 3] with row
    ``row_offset[d] + state``; ``avg`` holds the (discounted) sums of reach * sigma.
    """

    kind = CFR_KIND

    def __init__(self, tree, model, algorithm: str, params: CFRParams,
                 seed: int | None = None, engine: Engine | None = None) -> None:
        if params.sampling not in SAMPLING:
            raise CfrlabError(f"unknown sampling {params.sampling!r}; use one of {', '.join(SAMPLING)}")
        if params.predictive and params.sampling != "full":
            raise CfrlabError("predictive regret matching needs full-width iterations (sampling 'full')")
        self.tree = tree
        self.model = model
        self.algorithm = algorithm
        self.params = params
        # sampling solvers draw from a Generator seeded by an int (drawn when None, recorded)
        self.seed = resolve_seed(seed) if params.sampling != "full" else seed
        self.engine = engine or get_engine(tree, model)
        e = self.engine
        self.row_offset = e.row_offset
        self.iterations = 0
        self.seconds = 0.0  # time spent in iterate (Strategy.from_solver records it)
        A = tree.num_actions  # 3 in limit games; a no-limit tree has a column per raise size
        self.regret = np.zeros((e.num_rows, A))
        self.avg = np.zeros((e.num_rows, A))
        self._sigma = np.zeros((e.num_rows, A))
        self._pred = np.zeros((e.num_rows if params.predictive else 0, A))
        self._rng = np.random.default_rng(self.seed) if params.sampling != "full" else None
        self._holes = None  # public chance sampling over hole pairs (bucketed models)
        self._setup_sampling()
        if params.sampling == "full":  # scratch shared with evaluation walks: fully rewritten
            self._reach, self._values = self.engine.scratch()
        elif params.sampling == "pcs" and self._holes is None:
            self._reach, self._values = self._layout.arenas()
        else:
            self._reach = self._values = None
        use32 = params.float32
        if use32 is None:
            use32 = params.sampling == "full" and int(self.engine.num_states[-1]) >= FLOAT32_MIN_STATES
        self._opbuf32 = self.engine.opbuf32() if use32 else np.zeros(0, dtype=np.float32)
        self.rule = params.rule()

    # -- sampling tables ----------------------------------------------------------------
    def _setup_sampling(self) -> None:
        e = self.engine
        R = len(e.num_states)
        self._cdf = np.zeros(1)
        self._bpar = np.zeros(1, dtype=np.int64)
        self._bpar_off = np.zeros(R, dtype=np.int64)
        self._bsize = np.zeros(R, dtype=np.int64)
        self._bmass = np.zeros(1)
        mode = self.params.sampling
        if mode == "full":
            self._layout = e.layout()
            return
        if mode == "cs":
            blocks, B = e.op_blocks(int(e.fold_op[R - 1]))  # G_0 = P^T blocks
            Kb = blocks.shape[0]
            # marginal of player 0's final state: row sums of P = column sums of G_0
            marg = np.concatenate([blocks[b % Kb].sum(axis=0) for b in range(B)])
            self._cdf = np.cumsum(marg)
            self._layout = None  # the scalar walk needs no arenas
            N = len(e.nodes)
            self._cs_scratch = (np.zeros((2, N)), np.zeros((2, N)))
            return
        if e.block_parents is None:
            if self.model.kind == BUCKETED:  # deals map to bucket sequences: hole-pair slots
                self._holes = HolePairPCS(self.tree, self.model, e)
                self._layout = None
                return
            raise CfrlabError("public chance sampling needs a chance model with board blocks "
                              "(block_parent / fold_blocks), such as LosslessModel, or a "
                              "bucketed hold'em model")
        masses, pars = [], []
        for r in range(R):
            blocks, B = e.op_blocks(int(e.fold_op[r]))
            Kb = blocks.shape[0]
            sums = blocks.reshape(Kb, -1).sum(axis=1)
            masses.append(sums[np.arange(B) % Kb])
            pars.append(e.block_parents[r])
            self._bsize[r] = e.block_size(r)
        self._bmass = np.concatenate(masses)
        self._bpar = np.concatenate(pars).astype(np.int64)
        self._bpar_off = np.concatenate([[0], np.cumsum([len(m) for m in masses])[:-1]]).astype(np.int64)
        self._cdf = np.cumsum(masses[-1])
        self._layout = e.layout(self._bsize)

    # -- solving ------------------------------------------------------------------------
    def iterate(self, n: int = 1) -> None:
        """Run n iterations (numbered from ``iterations + 1``)."""
        n = int(n)
        if n < 0:
            raise CfrlabError("the number of iterations must be >= 0")
        t = time.perf_counter()
        while n > 0:
            k = min(n, MAX_UNIFORMS) if self._rng is not None else n
            self._run(k)
            n -= k
        self.seconds += time.perf_counter() - t

    def _run(self, n: int) -> None:
        if self._holes is not None:
            self._holes.run(self, n)
            self.iterations += n
            return
        self._run_uniforms(n, self._rng.random((n, 2)) if self._rng is not None else np.zeros((0, 2)))

    def _run_uniforms(self, n: int, uniforms: np.ndarray) -> None:
        """n iterations; a sampling solver's iteration k draws from ``uniforms[k]`` (float64[n, 2])."""
        e, lay = self.engine, self._layout
        if self.params.sampling == "cs":
            reach, val = self._cs_scratch
            run = CS.run_cs_iterations if self.regret.shape[1] == 3 else CS.run_wide_cs_iterations
            run(
                CS.CsTree(e.nodes, e.child, e.row_offset, e.legal, e.node_u, e.subtree_end, e.pmap,
                          e.pmap_off),
                CS.CsChance(e.optab, e.opbuf, e.fold_op, e.showdown_ops[0], self._cdf),
                K.SolverTables(self.regret, self._pred, self.avg, self._sigma),
                reach, val, self.rule, self.iterations, n, uniforms)
            self.iterations += n
            return
        run = K.run_iterations if self.regret.shape[1] == 3 else K.run_wide_iterations
        run(
            K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off),
            K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, self._opbuf32, e.opint, e.opc),
            K.SolverTables(self.regret, self._pred, self.avg, self._sigma),
            self._reach, self._values, self.rule, self.iterations, n, SAMPLING[self.params.sampling],
            uniforms, K.PcsBlocks(self._cdf, self._bpar, self._bpar_off, self._bsize, self._bmass),
            e.num_states)
        self.iterations += n

    # -- policies -----------------------------------------------------------------------
    def average_policy(self, out: np.ndarray | None = None) -> np.ndarray:
        """float64[rows, 3]: the average strategy (uniform over legal actions where never reached)."""
        out = np.empty_like(self.avg) if out is None else out
        K.normalize_rows(self.avg, self.engine.legal, self.engine.decision_of_row, out)
        return out

    def current_policy(self) -> np.ndarray:
        """float64[rows, 3]: regret matching on the accumulated regrets."""
        out = np.empty_like(self.regret)
        K.normalize_rows(self.regret, self.engine.legal, self.engine.decision_of_row, out)
        return out

    def exploitability(self, average: bool = True) -> float:
        # The full-width kernels recompute every sigma row when an iterate() call starts, so
        # between calls that buffer is free: measuring there saves a policy-sized array
        # (1.4 GB at 10 buckets). The chance-sampled walk keeps its sigma: no reuse there.
        scratch = self._sigma if self.params.sampling != "cs" else None
        if average:
            pol = self.average_policy(scratch)
        else:
            pol = scratch if scratch is not None else np.empty_like(self.regret)
            K.normalize_rows(self.regret, self.engine.legal, self.engine.decision_of_row, pol)
        return exploitability(self.tree, self.model, pol)

    # -- checkpoints ----------------------------------------------------------------------
    # -- what walks built on this solver's arrays read (``cfrlab.counter.perturbed``) -------------
    @property
    def layout(self):
        """The engine's terminal layout of this solver's arenas (None for the scalar walk)."""
        return self._layout

    @property
    def opbuf32(self) -> np.ndarray:
        """The float32 operator buffer (empty when the terminals run in float64)."""
        return self._opbuf32

    @property
    def tables(self):
        """``engine.kernels.SolverTables`` of this solver: regrets, predictions, averages and
        the current strategy, the arrays themselves (updated in place by walks)."""
        return K.SolverTables(self.regret, self._pred, self.avg, self._sigma)

    @property
    def arenas(self) -> tuple[np.ndarray, np.ndarray]:
        """The reach and value arenas the walk writes."""
        return self._reach, self._values

    def state_dict(self) -> dict:
        """Arrays (``regret``, ``avg``) and JSON-able scalars; enough to resume bit for bit."""
        return {
            "algorithm": self.algorithm,
            "iterations": int(self.iterations),
            "params": asdict(self.params),
            "seed": self.seed,
            "rng_state": json.dumps(self._rng.bit_generator.state) if self._rng is not None else "",
            "num_rows": int(self.engine.num_rows),
            "regret": self.regret.copy(),
            "avg": self.avg.copy(),
            **({"pred": self._pred.copy()} if self.params.predictive else {}),
        }

    def load_state_dict(self, d: dict) -> None:
        if d.get("algorithm") != self.algorithm:
            raise CfrlabError(f"checkpoint is for algorithm {d.get('algorithm')!r}, not {self.algorithm!r}")
        shape = (self.engine.num_rows, self.tree.num_actions)
        regret = np.asarray(d["regret"], dtype=np.float64)
        avg = np.asarray(d["avg"], dtype=np.float64)
        if regret.shape != shape or avg.shape != shape:
            raise CfrlabError(f"checkpoint tables have shape {regret.shape}, this game needs {shape}")
        params = d.get("params")
        if params is not None and CFRParams(**params) != self.params:
            raise CfrlabError("checkpoint was made with other solver parameters")
        if self.params.predictive and ("pred" not in d or np.shape(d["pred"]) != shape):
            raise CfrlabError(f"checkpoint of a predictive solver needs its predicted regrets, shape {shape}")
        check_resumed_tables(regret, avg, regret_floor=bool(self.params.regret_floor))
        if self.params.predictive and not np.isfinite(d["pred"]).all():
            raise CfrlabError("its predicted regrets hold NaN or infinite values")
        self.regret[...] = regret
        self.avg[...] = avg
        if self.params.predictive:
            self._pred[...] = d["pred"]
        self.iterations = int(d["iterations"])
        if self._rng is not None and d.get("rng_state"):
            self._rng.bit_generator.state = json.loads(d["rng_state"])


def make_cfr_solver(tree, model, algorithm: str, seed: int | None = None, **params) -> CFRSolver:
    """A preset of ``PRESETS`` with any of ``CFRParams``' fields overridden."""
    base = PRESETS[algorithm]
    unknown = set(params) - set(asdict(base))
    if unknown:
        raise CfrlabError(f"unknown parameter(s) for {algorithm}: {', '.join(sorted(unknown))}")
    return CFRSolver(tree, model, algorithm, replace(base, **params), seed=seed)
