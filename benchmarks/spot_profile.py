"""Where a board-walk iteration goes: the walk's kernels timed one by one (each call wrapped in
a timer; one thread, so the times add up to the iteration), after one warm-up iteration.

    python benchmarks/spot_profile.py examples/spots/texassolver_benchmark.toml --storage float32
    python benchmarks/spot_profile.py examples/spots/real_flop.toml --storage int16 --iterations 1
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

import cfrlab.engine.board_walk as walk
from cfrlab.spot import load_spot, spot_tree
from cfrlab.spot.fast import FastSolver, SpotGame


class Timed:
    """The kernels module with every function timed (seconds and calls per name)."""

    def __init__(self, kernels) -> None:
        self.kernels, self.seconds, self.calls = kernels, collections.Counter(), collections.Counter()

    def __getattr__(self, name):
        f = getattr(self.kernels, name)

        def timed(*args):
            t = time.perf_counter()
            out = f(*args)
            self.seconds[name] += time.perf_counter() - t
            self.calls[name] += 1
            return out

        return timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spot", nargs="?", default=str(Path(__file__).resolve().parents[1] / "examples" / "spots" /
                                                     "texassolver_benchmark.toml"))
    ap.add_argument("--storage", default="float32")
    ap.add_argument("--algorithm", default="dcfr")
    ap.add_argument("--iterations", type=int, default=3)
    args = ap.parse_args()
    spot = load_spot(args.spot)
    tree = spot_tree(spot)
    solver = FastSolver(SpotGame(spot, tree, True), args.algorithm, args.storage, 1)
    solver.iterate(1)  # compiled and warm
    timed = Timed(walk.K)
    walk.K = timed
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        solver.iterate(args.iterations)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        walk.K = timed.kernels
    n = args.iterations
    rows = [{"kernel": k, "seconds_per_iteration": round(v / n, 4), "calls_per_iteration": timed.calls[k] // n}
            for k, v in timed.seconds.most_common()]
    print(json.dumps({"spot": Path(args.spot).name, "storage": args.storage, "iterations": n,
                      "wall_seconds_per_iteration": round(wall / n, 4), "cpu_seconds_per_iteration": round(cpu / n, 4),
                      "python_seconds_per_iteration": round((wall - sum(timed.seconds.values())) / n, 4),
                      "kernels": rows}, indent=1))


if __name__ == "__main__":
    main()
