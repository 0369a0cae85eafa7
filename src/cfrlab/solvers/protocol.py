"""What every iterative solver offers (the CLI, the driver and checkpoints rely on it).

``kind`` says which family a solver belongs to, so callers branch on a declared name:
``"cfr"`` (the vector CFR family on the engine, full width or chance-sampled) or ``"mccfr"``
(external / outcome sampling on enumerated deals). ``params`` is a dataclass of the update
rule's parameters (``CFRParams``, ``MCCFRParams``). Sampling solvers take an integer seed; with
``None`` they draw one and record it in ``seed``, so every run can be repeated.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from cfrlab.errors import CfrlabError

CFR_KIND = "cfr"
MCCFR_KIND = "mccfr"


@runtime_checkable
class Solver(Protocol):
    """What every iterative solver offers; ``make_solver(tree, model, algorithm)`` builds one.

    ``kind``: ``"cfr"`` or ``"mccfr"`` (module docstring); ``algorithm``: its name in
    ``ALGORITHMS`` (``"cfr+"``, ``"dcfr"``, ``"es"``, ...); ``iterations``: how many it has run;
    ``seed``: the sampling seed (None for full-width solvers); ``tree`` and ``model``: the
    public tree and the chance model it solves; ``params``: the update rule's parameters.

    ``iterate(n)`` runs ``n`` more iterations. ``average_policy()`` (what converges to an
    equilibrium) and ``current_policy()`` return float64 ``[rows, 3]`` arrays in
    ``Strategy.policy``'s layout (``Strategy.from_solver(solver)`` wraps the average with a
    header). ``exploitability(average=True)`` measures the average (or current) policy exactly,
    in chips per game (``cfrlab.games.units.to_unit`` gives the game's unit).
    ``state_dict()`` / ``load_state_dict(d)`` save and restore everything a resumed run needs
    (numpy arrays and JSON-able values; ``cfrlab.solvers.driver.Checkpointer`` writes them).

    It is a ``typing.Protocol``: a class of one's own that has these members is a Solver for
    ``run_solve`` and the checkpoints, without inheriting from anything.
    """

    kind: str
    algorithm: str
    iterations: int
    seed: int | None
    tree: Any
    model: Any

    @property
    def params(self) -> Any: ...

    def iterate(self, n: int = 1) -> None: ...

    def average_policy(self) -> np.ndarray: ...

    def current_policy(self) -> np.ndarray: ...

    def exploitability(self, average: bool = True) -> float: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, d: dict[str, Any]) -> None: ...


def check_resumed_tables(regret: np.ndarray, avg: np.ndarray, *, regret_floor: bool = False) -> None:
    """Refuse (one line) tables no run could have written: regrets must be finite (CFR+
    floors them at 0), average-strategy sums finite and >= 0 (weights are never negative)."""
    if not np.isfinite(regret).all():
        raise CfrlabError("its regrets hold NaN or infinite values")
    if regret_floor and (regret < 0).any():
        raise CfrlabError("its regrets go below 0, which a solver that floors them at 0 never writes")
    if not np.isfinite(avg).all() or (avg < 0).any():
        raise CfrlabError("its average-strategy sums hold NaN, infinite or negative values")


def resolve_seed(seed: int | None) -> int:
    """``seed`` as an int in [0, 2**63); None draws a fresh one from the OS's entropy."""
    if seed is None:
        return int(np.random.SeedSequence().entropy % (2**63))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**63:
        raise CfrlabError(f"a seed is an integer from 0 to 2**63 - 1, got {seed!r}")
    return int(seed)
