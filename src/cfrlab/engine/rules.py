"""The CFR family's update rules: one table (``RULES``) that every walk reads, the engine's, the
N-player engine's, the board engine's and CFR-BR's.

Every variant is an update rule on the same walk:

- ``alternating``: update player 0, then player 1 against 0's new strategy (else both at once);
- ``regret_floor``: clip accumulated regrets at 0 after each update (CFR+, Tammelin 2014);
- ``alpha`` / ``beta``: before iteration t adds its regrets, multiply positive accumulated
  regrets by (t-1)^alpha / ((t-1)^alpha + 1) and negative ones by the same in beta
  (DCFR, Brown and Sandholm, "Solving imperfect-information games via discounted regret
  minimization", AAAI 2019; None = no discount);
- ``gamma``: the average strategy is sum_t t^gamma * reach * sigma_t (0 uniform as in
  vanilla CFR, 1 linear as in CFR+, 2 as in DCFR), kept as a running discounted sum;
- ``predictive``: choose the next strategy by regret matching on the accumulated regrets plus
  the last iteration's instantaneous regrets (PCFR+, Farina, Kroer and Sandholm 2021);
- ``sampling``: what one iteration visits (``full``; ``pcs``, ``cs``: ``cfrlab.solvers``).

``discounts(params, t)`` gives iteration t's three multipliers, computed by the engine's one
kernel (``_kernels._discounts``), so a rule means the same numbers on every walk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from cfrlab.engine._kernels import UpdateRule, _discounts
from cfrlab.errors import CfrlabError

SAMPLINGS = ("full", "pcs", "cs")


@dataclass(frozen=True)
class CFRParams:
    """Update rule of one CFR variant (see the module docstring)."""

    sampling: str = "full"
    alternating: bool = False
    regret_floor: bool = False
    alpha: float | None = None
    beta: float | None = None
    gamma: float = 0.0
    predictive: bool = False  # the next strategy also counts the last instantaneous regrets
    float32: bool | None = None  # single-precision terminal GEMMs; None = auto (engine solvers)

    def __post_init__(self) -> None:
        """Refuse wrong types and values (``alpha="2"``) with one line, not a kernel error."""
        if self.sampling not in SAMPLINGS:
            raise CfrlabError(f"sampling is one of {', '.join(SAMPLINGS)}, got {self.sampling!r}")
        for name in ("alternating", "regret_floor", "predictive"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise CfrlabError(f"{name} is true or false, got {getattr(self, name)!r}")
        if self.float32 is not None and not isinstance(self.float32, (bool, np.bool_)):
            raise CfrlabError(f"float32 is true, false or None, got {self.float32!r}")
        for name, optional in (("alpha", True), ("beta", True), ("gamma", False)):
            v = getattr(self, name)
            if v is None and optional:
                continue
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(v):
                raise CfrlabError(f"{name} is a finite number{' or None' if optional else ''}, got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.gamma < 0:
            raise CfrlabError(f"gamma (the averaging exponent) is at least 0, got {self.gamma}")

    def rule(self) -> UpdateRule:
        """The kernels' form of the rule (``engine.kernels.UpdateRule``)."""
        return UpdateRule(bool(self.alternating), bool(self.regret_floor), self.alpha is not None,
                          self.beta is not None, float(self.alpha or 0.0), float(self.beta or 0.0),
                          float(self.gamma))


RULES: dict[str, CFRParams] = {
    "cfr": CFRParams(),
    "cfr-alt": CFRParams(alternating=True),  # vanilla CFR, alternating (OpenSpiel's CFRSolver)
    "cfr+": CFRParams(alternating=True, regret_floor=True, gamma=1.0),
    "lcfr": CFRParams(alternating=True, alpha=1.0, beta=1.0, gamma=1.0),
    "dcfr": CFRParams(alternating=True, alpha=1.5, beta=0.0, gamma=2.0),
    "dcfr+": CFRParams(alternating=True, alpha=1.5, beta=0.5, gamma=3.0),
    "pcfr+": CFRParams(alternating=True, regret_floor=True, gamma=2.0, predictive=True),
}


def discounts(params: CFRParams, t: int) -> tuple[float, float, float]:
    """Iteration t's (positive-regret, negative-regret, average-sum) multipliers under
    ``params``: applied to the accumulated tables before iteration t adds its own."""
    return _discounts(_kernel_rule(params), int(t))


@lru_cache(maxsize=64)
def _kernel_rule(params: CFRParams) -> UpdateRule:
    """``params.rule()`` built once per rule (solvers that step from Python ask every step)."""
    return params.rule()
