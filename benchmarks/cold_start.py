"""Cold start: a fresh Python process that imports cfrlab and solves Leduc to 1e-3 chips.

Usage: python benchmarks/cold_start.py [--runs N] [--json]

Each run is a new interpreter (``python -c``), timed from outside, with the per-machine numba
cache as it is (warm after ``make warmup`` or any earlier run: the issue's "warm cache"). Also
reported, from inside one run: import of ``cfrlab``, of ``cfrlab.api``, and the solve.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

CODE = ("import time; t0 = time.perf_counter(); import cfrlab; t1 = time.perf_counter(); "
        "import cfrlab.api; t2 = time.perf_counter(); r = cfrlab.solve('leduc', 'cfr+', target=1e-3); "
        "t3 = time.perf_counter(); import json; print(json.dumps({'import_cfrlab': t1 - t0, "
        "'import_api': t2 - t1, 'solve': t3 - t2, 'iterations': r.iterations, "
        "'exploitability': r.exploitability}))")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    walls, inside = [], []
    for _ in range(args.runs):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
        walls.append(time.perf_counter() - t)
        inside.append(json.loads(out.stdout.strip().splitlines()[-1]))
    result = {"runs": args.runs, "wall_median_s": statistics.median(walls), "wall_min_s": min(walls),
              "wall_max_s": max(walls), **{k: statistics.median(r[k] for r in inside)
                                           for k in ("import_cfrlab", "import_api", "solve")},
              "iterations": inside[0]["iterations"], "exploitability": inside[0]["exploitability"],
              "target_s": 1.5}
    for k, v in result.items():
        print(f"{k:16s} {v:.4g}" if isinstance(v, float) else f"{k:16s} {v}")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
