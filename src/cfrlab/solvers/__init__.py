"""Solvers: the CFR family on the engine's vector walk (``cfr``), MCCFR (``mccfr``), the
sequence-form LP (``lp``), matrix games (``matrix``); ``make_solver`` picks one by name."""

from cfrlab.solvers.cfr import PRESETS, CFRParams, CFRSolver  # noqa: F401
from cfrlab.solvers.protocol import Solver  # noqa: F401
from cfrlab.solvers.registry import ALGORITHMS, make_solver  # noqa: F401
