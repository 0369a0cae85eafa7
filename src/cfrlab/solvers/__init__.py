"""Solvers: the CFR family on the vector engine (``cfr``), MCCFR (``mccfr``), the
sequence-form LP (``lp``), matrix games (``matrix``). See docs/ENGINE.md."""

from cfrlab.solvers.cfr import ALGORITHMS, PRESETS, CFRParams, CFRSolver, make_solver  # noqa: F401
from cfrlab.solvers.engine import Engine, get_engine, tree_layout  # noqa: F401
