"""Solvers by name: the one list of iterative algorithms the CLI, the API and docs use."""

from __future__ import annotations

from cfrlab.errors import CfrlabError
from cfrlab.solvers import mccfr
from cfrlab.solvers.cfr import PRESETS, CFRSolver, make_cfr_solver

ALGORITHMS: tuple[str, ...] = (*PRESETS, *mccfr.ALGORITHMS)


def make_solver(tree, model, algorithm: str, seed: int | None = None, **params):
    """Solver by name: the CFR family and its chance-sampled forms (``cfr``), es / os (``mccfr``).

    ``params`` override the preset's (``CFRParams`` fields; ``epsilon`` for os)."""
    name = algorithm.lower()
    if name in PRESETS:
        return make_cfr_solver(tree, model, name, seed=seed, **params)
    if name in mccfr.ALGORITHMS:
        return mccfr.make_mccfr_solver(tree, model, name, seed=seed, **params)
    if name == "lp":
        raise CfrlabError("lp is an exact solver, not an iterative one: use cfrlab.solvers.lp")
    raise CfrlabError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)} (or lp)")


__all__ = ["ALGORITHMS", "CFRSolver", "make_solver"]
