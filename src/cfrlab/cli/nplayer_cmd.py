"""What ``cfrlab solve`` and ``cfrlab exploit`` do for games of more than two players
(the CLI hands N-player games and files here)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from cfrlab.engine.nplayer import get_engine
from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader, printable
from cfrlab.games import GameDef
from cfrlab.games.units import unit_of
from cfrlab.multiplayer.nstrategy import MODEL_KIND, NStrategy
from cfrlab.solvers.nmccfr import make_nsolver, solver_params
from cfrlab.solvers.nplayer import SAMPLED, NParams, params_for
from cfrlab.strategy import STRATEGY_KIND

CHUNK_SECONDS = 0.25  # a --seconds run checks the clock about this often


def is_multiplayer_file(path: str | Path) -> bool:
    """True when ``path`` is a strategy file written by the N-player engine."""
    with NpzReader(path, kind=STRATEGY_KIND) as z:
        return z.header.get("model_kind") == MODEL_KIND


def _params(algorithm: str, overrides: dict[str, Any] | None) -> NParams | None:
    if algorithm in SAMPLED:
        if overrides:
            raise CfrlabError(f"{algorithm} takes no parameters (got {', '.join(sorted(overrides))})")
        return None
    names = {f.name for f in fields(NParams)}
    bad = sorted(set(overrides or {}) - names)
    if bad:
        raise CfrlabError(f"unknown parameter {bad[0]!r} for {algorithm}; known: {', '.join(sorted(names))}")
    return params_for(algorithm, **(overrides or {}))


def _figures(game: GameDef, ev) -> list[str]:
    unit = unit_of(game)
    lines = []
    for p, (v, b) in enumerate(zip(ev.values, ev.br_values)):
        lines.append(f"player {p}: value {v:+.6f} {unit}; best response {b:+.6f} {unit} (gains {b - v:.6g})")
    lines.append(f"NashConv {ev.nash_conv:.6g} {unit} (sum of the gains; 0 at a Nash equilibrium)")
    return lines


def cli_solve(game: GameDef, label: str, algorithm: str, iterations: int | None, seconds: float | None,
              out: Path | None, force: bool, as_json: bool, params: dict[str, Any] | None = None,
              seed: int | None = None) -> dict:
    """Solve an N-player game with a full-width CFR variant or MCCFR (``cs``, ``es``: ``seed``,
    drawn and printed when None); print per-player values and NashConv."""
    alg = algorithm.lower()
    p = _params(alg, params)
    if iterations is None and seconds is None:
        raise CfrlabError("say when to stop: --iterations N and/or --seconds S")
    if iterations is not None and iterations < 0:
        raise CfrlabError(f"--iterations must be >= 0, got {iterations}")
    if out is not None and Path(out).exists() and not force:
        raise CfrlabError(f"{out} exists; pass --force to replace it")
    solver = make_nsolver(game, alg, seed=seed) if p is None else make_nsolver(game, alg, **asdict(p))
    e = solver.engine
    print(f"{label}: {game.summary()}")
    print(f"{game.num_players}-player engine: {e.tree.summary()}; {e.rows:,} information sets; "
          f"{sum(e.deals.num_prefixes):,} deal prefixes")
    if solver.seed is not None:
        print(f"seed {solver.seed}")
    start = time.perf_counter()
    step = 1
    while True:
        left = None if iterations is None else iterations - solver.iterations
        if left is not None and left <= 0:
            break
        if seconds is not None and time.perf_counter() - start >= seconds:
            break
        n = step if left is None else min(step, left)
        t0 = time.perf_counter()
        solver.iterate(n)
        if seconds is not None and time.perf_counter() - t0 < CHUNK_SECONDS / 2:
            step *= 2
        elif seconds is None:
            step = left or 1
    strategy = NStrategy.from_policy(game, solver.average_policy(), algorithm=alg, params=solver_params(solver),
                                     iterations=solver.iterations, seconds=solver.seconds,
                                     extra={"seed": solver.seed})
    ev = strategy.evaluate()
    print(f"{alg}: {solver.iterations:,} iterations in {solver.seconds:.2f} s")
    for line in _figures(game, ev):
        print(line)
    if out is not None:
        strategy.save(out, overwrite=True)
        print(f"wrote {out}")
    summary = {"game": label, "num_players": game.num_players, "algorithm": alg, "seed": solver.seed,
               "iterations": solver.iterations, "seconds": solver.seconds, "unit": unit_of(game), **ev.to_json(),
               "exploitability": ev.nash_conv / game.num_players, "out": None if out is None else str(out)}
    if as_json:
        sys.stdout.flush()
        print(json.dumps(summary))
    return summary


def cli_exploit(path: Path, as_json: bool) -> dict:
    """Exact evaluation of an N-player strategy file: values, best responses, NashConv."""
    s = NStrategy.load(path)
    ev = s.evaluate()
    print(printable(s.describe()))  # header strings come from the file
    for line in _figures(s.game, ev):
        print(line)
    summary = {"game": s.game.name or str(path), "file": str(path), "num_players": s.num_players,
               "algorithm": s.algorithm, "iterations": s.iterations, "unit": unit_of(s.game), **ev.to_json(),
               "exploitability": ev.nash_conv / s.num_players}
    if as_json:
        sys.stdout.flush()
        print(json.dumps(summary))
    return summary


__all__ = ["cli_exploit", "cli_solve", "get_engine", "is_multiplayer_file"]
