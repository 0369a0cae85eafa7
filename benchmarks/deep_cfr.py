"""Deep CFR and SD-CFR on Leduc against tabular external-sampling MCCFR, exact exploitability.

Usage: python benchmarks/deep_cfr.py [--iterations T] [--traversals K] [--seeds 0,1,2]
       [--methods sdcfr,deepcfr,es] [--eval-every N] [--openspiel] [--json]

Every method gets the same traversals: T iterations of K external-sampling traversals per
player for the networks (``cfrlab.deep``), T * K iterations of cfrlab's tabular ``es`` solver
(one traversal per player each). At every ``--eval-every`` iterations (the same traversal
counts for ``es``) the exploitability of the average policy is measured exactly (SD-CFR: the
mixture of its stored networks; Deep CFR: its average network, trained at that point; the
networks' policy tabulated on all 936 information sets, then cfrlab's exact best response).
Wall seconds and CPU seconds of the process (the machine may be shared; CPU time is the
figure that does not depend on the load) count training, not measuring, except for Deep CFR's
average network, which is part of its result and counted.

``--openspiel`` also runs OpenSpiel's JAX Deep CFR (``open_spiel.python.jax.deep_cfr``, which
needs flax and chex) on ``leduc_poker`` with the settings printed (by default the issue's: 100
iterations of 1,500 traversals, ``--os-iterations`` / ``--os-traversals``), its
exploitability (``nash_conv / 2``) measured exactly by OpenSpiel at the end, printed beside
cfrlab's table (``--methods none``: OpenSpiel alone).

With --json the last line is one JSON object: ``runs`` (one per method and seed: its curve of
points {iteration, traversals, seconds, cpu_seconds, exploitability}) and ``summary`` (per
method and traversal count: median, min and max exploitability over the seeds, median seconds
and CPU seconds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from cfrlab.deep import DeepParams, train
from cfrlab.engine import model_for_game, tree_for
from cfrlab.games import load_game
from cfrlab.solvers import make_solver

GAME = "leduc"


def run_deep(method: str, seed: int, args) -> list[dict]:
    params = DeepParams(hidden=tuple(int(h) for h in args.hidden.split(",")), adv_steps=args.adv_steps,
                        avg_steps=args.avg_steps, buffer=args.buffer, warm_start=args.warm_start)
    r = train(GAME, method, args.iterations, args.traversals, seed, params, args.eval_every,
              progress=lambda p: print(f"  {method} seed {seed}: {p}", file=sys.stderr, flush=True))
    return r.curve


def run_es(seed: int, args) -> list[dict]:
    g = load_game(GAME)
    tree, model = tree_for(g), model_for_game(g)
    solver = make_solver(tree, model, "es", seed=seed)
    curve, wall, cpu = [], 0.0, 0.0
    for it in range(args.eval_every, args.iterations + 1, args.eval_every):
        t0, c0 = time.perf_counter(), time.process_time()
        solver.iterate(args.eval_every * args.traversals)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        point = {"iteration": it, "traversals": 2 * it * args.traversals, "seconds": round(wall, 3),
                 "cpu_seconds": round(cpu, 3), "exploitability": solver.exploitability()}
        print(f"  es seed {seed}: {point}", file=sys.stderr, flush=True)
        curve.append(point)
    return curve


def run_openspiel(seed: int, args) -> dict:
    try:
        import pyspiel
        from open_spiel.python import policy
        from open_spiel.python.algorithms import exploitability
        from open_spiel.python.jax import deep_cfr
    except ImportError as e:
        return {"error": f"{type(e).__name__}: {e}"}
    settings = {"num_iterations": args.os_iterations, "num_traversals": args.os_traversals,
                "policy_network_layers": [64, 64], "advantage_network_layers": [64, 64],
                "learning_rate": 1e-3, "batch_size_advantage": 2048, "batch_size_strategy": 2048,
                "memory_capacity": 1_000_000, "policy_network_train_steps": 2000,
                "advantage_network_train_steps": 300, "reinitialize_advantage_networks": True}
    game = pyspiel.load_game("leduc_poker")
    t0, c0 = time.perf_counter(), time.process_time()
    solver = deep_cfr.DeepCFRSolver(game, seed=seed, **{k: tuple(v) if isinstance(v, list) else v
                                                         for k, v in settings.items()})
    solver.solve()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    avg = policy.tabular_policy_from_callable(game, solver.action_probabilities)
    expl = exploitability.nash_conv(game, avg) / 2
    return {"settings": settings, "seed": seed, "seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
            "traversals": 2 * args.os_iterations * args.os_traversals, "exploitability": float(expl)}


def summarize(runs: list[dict]) -> list[dict]:
    out = []
    for method in dict.fromkeys(r["method"] for r in runs):
        curves = [r["curve"] for r in runs if r["method"] == method]
        for points in zip(*curves):
            e = [p["exploitability"] for p in points]
            out.append({"method": method, "traversals": points[0]["traversals"], "seeds": len(points),
                        "median": statistics.median(e), "min": min(e), "max": max(e),
                        "seconds": statistics.median(p["seconds"] for p in points),
                        "cpu_seconds": statistics.median(p["cpu_seconds"] for p in points)})
    return out


def print_table(summary: list[dict]) -> None:
    print(f"{'method':8} {'traversals':>11} {'median':>8} {'min':>8} {'max':>8} {'wall s':>8} {'CPU s':>8}")
    for s in summary:
        print(f"{s['method']:8} {s['traversals']:>11,} {s['median']:8.4f} {s['min']:8.4f} {s['max']:8.4f} "
              f"{s['seconds']:8.1f} {s['cpu_seconds']:8.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=100, help="CFR iterations of the networks")
    ap.add_argument("--traversals", type=int, default=10000, help="traversals per player per iteration")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--methods", default="sdcfr,deepcfr,es", help="comma-separated; none: OpenSpiel only")
    ap.add_argument("--eval-every", type=int, default=25)
    ap.add_argument("--hidden", default="64,64")
    ap.add_argument("--adv-steps", type=int, default=DeepParams().adv_steps)
    ap.add_argument("--avg-steps", type=int, default=DeepParams().avg_steps)
    ap.add_argument("--buffer", type=int, default=DeepParams().buffer, help="reservoir capacity")
    ap.add_argument("--warm-start", action="store_true", help="continue each network from the previous one")
    ap.add_argument("--openspiel", action="store_true", help="also run OpenSpiel's JAX Deep CFR")
    ap.add_argument("--os-iterations", type=int, default=100, help="OpenSpiel: iterations (the issue's 100)")
    ap.add_argument("--os-traversals", type=int, default=1500, help="OpenSpiel: traversals per player and iteration (1,500)")
    ap.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    runs = []
    for method in [m for m in args.methods.split(",") if m and m != "none"]:
        for seed in seeds:
            curve = run_es(seed, args) if method == "es" else run_deep(method, seed, args)
            runs.append({"method": method, "seed": seed, "curve": curve})
    summary = summarize(runs)
    print_table(summary)
    openspiel = [run_openspiel(seed, args) for seed in seeds[:1]] if args.openspiel else []
    for o in openspiel:
        if "exploitability" in o:  # a row of the table above: one seed, so median = min = max
            e = o["exploitability"]
            print(f"{'openspiel':8} {o['traversals']:>11,} {e:8.4f} {e:8.4f} {e:8.4f} "
                  f"{o['seconds']:8.1f} {o['cpu_seconds']:8.1f}")
        print(f"openspiel deep_cfr: {o}")
    if args.json:
        print(json.dumps({"game": GAME, "iterations": args.iterations, "traversals_per_iteration": args.traversals,
                          "hidden": args.hidden, "adv_steps": args.adv_steps, "avg_steps": args.avg_steps, "buffer": args.buffer, "warm_start": args.warm_start,
                          "numpy": np.__version__, "runs": runs, "summary": summary, "openspiel": openspiel}))


if __name__ == "__main__":
    main()
