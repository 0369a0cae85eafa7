"""Cold start: fresh Python processes for ``import cfrlab``, ``cfrlab --help``, ``cfrlab games``,
and a solve of Leduc to 1e-3 chips.

Usage: python benchmarks/cold_start.py [--runs N] [--startup] [--json]

Each run is a new interpreter, timed from outside (wall clock, the interpreter's own start
included), ``--runs`` times; the median is compared with the target. The process's CPU time
(user + system) is shown beside it: on a machine shared with other jobs it is the steadier figure. The CLI is the ``cfrlab``
script beside this Python when there is one (``python -m cfrlab.cli.main`` otherwise). The solve
uses the per-machine numba cache as it is (warm after ``make warmup`` or any earlier run: the
issue's "warm cache"); from inside its runs also come the import of ``cfrlab``, of ``cfrlab.api``,
and the solve itself. ``--startup`` measures only the three start-up figures.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

CODE = ("import time; t0 = time.perf_counter(); import cfrlab; t1 = time.perf_counter(); "
        "import cfrlab.api; t2 = time.perf_counter(); r = cfrlab.solve('leduc', 'cfr+', target=1e-3); "
        "t3 = time.perf_counter(); import json; print(json.dumps({'import_cfrlab': t1 - t0, "
        "'import_api': t2 - t1, 'solve': t3 - t2, 'iterations': r.iterations, "
        "'exploitability': r.exploitability}))")


def cli() -> list[str]:
    script = Path(sys.executable).with_name("cfrlab")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cfrlab.cli.main"]


# name -> (command, target seconds): issue 27's goals for what a newcomer types first
STARTUP = {
    "import cfrlab": ([sys.executable, "-c", "import cfrlab"], 0.3),
    "cfrlab --help": ([*cli(), "--help"], 0.5),
    "cfrlab games": ([*cli(), "games"], 0.5),
}


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup(runs: int) -> dict:
    """Median (and range) wall and CPU seconds of each start-up command (interleaved runs)."""
    walls = {name: [] for name in STARTUP}
    cpus = {name: [] for name in STARTUP}
    for cmd, _ in STARTUP.values():
        timed(cmd)  # once unmeasured: .pyc files written, the OS file cache warm
    for _ in range(runs):
        for name, (cmd, _) in STARTUP.items():
            w, c = timed(cmd)
            walls[name].append(w)
            cpus[name].append(c)
    return {name: {"median_s": statistics.median(w), "min_s": min(w), "max_s": max(w),
                   "cpu_median_s": statistics.median(cpus[name]), "target_s": STARTUP[name][1],
                   "met": statistics.median(w) < STARTUP[name][1]}
            for name, w in walls.items()}


def solve(runs: int) -> dict:
    walls, inside = [], []
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
        walls.append(time.perf_counter() - t)
        inside.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {"runs": runs, "wall_median_s": statistics.median(walls), "wall_min_s": min(walls),
            "wall_max_s": max(walls), **{k: statistics.median(r[k] for r in inside)
                                         for k in ("import_cfrlab", "import_api", "solve")},
            "iterations": inside[0]["iterations"], "exploitability": inside[0]["exploitability"],
            "target_s": 1.5}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--startup", action="store_true", help="only the three start-up figures")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = {"startup": startup(args.runs)}
    print(f"start-up, wall seconds of a fresh process, median of {args.runs} (min-max):")
    for name, r in result["startup"].items():
        print(f"  {name:14s} {r['median_s']:.3f} s ({r['min_s']:.3f}-{r['max_s']:.3f}),"
              f" CPU {r['cpu_median_s']:.3f} s;"
              f" target < {r['target_s']} s: {'met' if r['met'] else 'NOT met'}")
    if not args.startup:
        result["solve"] = solve(args.runs)
        print(f"leduc cfr+ to 1e-3 chips from a fresh process, median of {args.runs}:")
        for k, v in result["solve"].items():
            print(f"  {k:16s} {v:.4g}" if isinstance(v, float) else f"  {k:16s} {v}")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
