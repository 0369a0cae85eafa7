"""Match statistics: means and 95% confidence intervals in the units the poker literature uses.

Units (docs/ENGINE.md, Conventions): blind games report milli-big-blinds per game, ``mbb/g = 1000 * chips /
big blind``; ante games (every blind equal, e.g. Kuhn, Leduc) report chips per game.

A sampled mean's 95% confidence interval is ``1.96 * s / sqrt(n)`` with ``s`` the sample
standard deviation (normal approximation; matches are thousands of hands or more). For a
duplicate match the samples are the per-deal pair means (Johanson 2007, section 2.2.1):
the two plays of one deal are strongly correlated, so they are one sample, not two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile


@dataclass(frozen=True)
class Estimate:
    """A mean per game with its 95% half-width, over ``n`` samples, in ``unit`` (chips per
    game unless it says otherwise)."""

    mean: float
    ci95: float
    n: int
    std: float
    unit: str = "chips/g"

    def scaled(self, factor: float) -> tuple[float, float]:
        return self.mean * factor, self.ci95 * factor

    def in_unit(self, factor: float, unit: str) -> Estimate:
        """The same estimate with its values multiplied by ``factor``, labelled ``unit``."""
        return Estimate(self.mean * factor, self.ci95 * factor, self.n, self.std * factor, unit)

    def __str__(self) -> str:
        return f"{self.mean:+.4f} +- {self.ci95:.4f} {self.unit} ({self.n:,} samples)"


def estimate(samples: np.ndarray) -> Estimate:
    """Mean and 95% CI half-width of 1-D samples (float64 accumulation)."""
    x = np.asarray(samples, dtype=np.float64).ravel()
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), 0, float("nan"))
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if n > 1 else float("inf")
    ci = Z95 * std / math.sqrt(n) if n > 1 else float("inf")
    return Estimate(mean, ci, n, std)


def json_ready(obj):
    """``obj`` with every non-finite float (a CI over one sample, a mean over none) replaced
    by None, so that ``json.dumps`` writes strict JSON (no ``NaN`` / ``Infinity``)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    return obj


def significant(est: Estimate) -> bool:
    """True when zero lies outside the 95% interval."""
    return abs(est.mean) > est.ci95
