"""Memory and speed of full-width CFR+ on a HULHE bucket abstraction of a given size, without
building the abstraction: a synthetic perfect-recall model with the same table shapes
(``cfrlab.experiments.synthetic``; it shares its tables with the engine as a real abstraction
does). A real abstraction adds its card -> bucket lookup tables (a few hundred MB).

Usage: python benchmarks/holdem_size.py [--buckets 10] [--iterations 4] [--json]

Prints the set-up time, each iteration's seconds, one exact exploitability measurement and the
peak RSS after each step. The first iteration is the slowest (uniform strategies reach every
terminal row); later ones skip the rows CFR+ has zeroed.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

from cfrlab.experiments.synthetic import SyntheticBucketModel
from cfrlab.games import load_game
from cfrlab.solvers import make_solver
from cfrlab.tree import build_tree


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # Linux: kB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--buckets", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    game = load_game("holdem-limit")
    t = time.perf_counter()
    tree = build_tree(game)
    model = SyntheticBucketModel(game, args.buckets, seed=1)
    model_s = time.perf_counter() - t
    print(f"{args.buckets} buckets: states per round {model.num_states}; synthetic model "
          f"{model_s:.1f} s, peak {peak_gb():.2f} GB", flush=True)
    t = time.perf_counter()
    solver = make_solver(tree, model, "cfr+")
    setup_s = time.perf_counter() - t
    print(f"  solver set up {setup_s:.1f} s, {solver.regret.shape[0]:,} policy rows, "
          f"peak {peak_gb():.2f} GB", flush=True)
    its = []
    for i in range(args.iterations):
        t = time.perf_counter()
        solver.iterate(1)
        its.append(time.perf_counter() - t)
        print(f"  iteration {i + 1}: {its[-1]:.1f} s, peak {peak_gb():.2f} GB", flush=True)
    t = time.perf_counter()
    solver.exploitability()
    br_s = time.perf_counter() - t
    print(f"  exact exploitability {br_s:.1f} s, peak {peak_gb():.2f} GB", flush=True)
    if args.json:
        print(json.dumps({"buckets": args.buckets, "infosets": int(solver.regret.shape[0]),
                          "model_seconds": round(model_s, 1), "setup_seconds": round(setup_s, 1),
                          "iteration_seconds": [round(x, 2) for x in its],
                          "best_response_seconds": round(br_s, 1),
                          "peak_rss_gb": round(peak_gb(), 2)}))


if __name__ == "__main__":
    main()
