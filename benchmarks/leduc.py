"""Leduc hold'em: cfrlab's solvers against OpenSpiel's C++ CFR+ and CFR, in one run.

Usage: python benchmarks/leduc.py [--cap S] [--openspiel-cap S] [--solvers a,b,..] [--json]

For each cfrlab solver: iterations per second (steady state, after compilation) and the
solver seconds until the average strategy's exploitability first falls to 1e-3, 1e-4 and
1e-5 chips. Compilation (the first iterate and the first best response of a throwaway solver)
is timed and reported separately. The exploitability is measured at a geometric schedule of
iteration counts (every iteration at first, then every RATIO-fold more), and measuring is
not counted as solving; a threshold's time is the solver time at the first measurement
below it, so it is accurate to about (RATIO - 1).

OpenSpiel runs the same protocol on ``pyspiel.load_game("leduc_poker")`` with
``pyspiel.CFRPlusSolver`` / ``pyspiel.CFRSolver``: ``evaluate_and_update_policy()`` is
timed, ``pyspiel.exploitability(game, solver.average_policy())`` (NashConv / 2, the same
convention as cfrlab's) is not. Each run stops at 1e-5 or at its time cap.

With --json the last line is one JSON object: ``solvers`` (name -> {iterations_per_second,
seconds_to_1e-3, seconds_to_1e-4, seconds_to_1e-5, ...}), ``openspiel`` (same shape for
``cfr+`` and ``cfr``), ``speedup_cfr+_1e-3`` (OpenSpiel's seconds / cfrlab's; the CFR
ratios use ``cfr-alternating``, whose iterates are OpenSpiel CFRSolver's), and
``peak_rss_mb``. A threshold not reached within the cap is null.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import time

THRESHOLDS = (1e-3, 1e-4, 1e-5)
RATIO = 1.03  # measurement schedule: next measurement at iteration * RATIO (at least +1)
ALL_SOLVERS = ("cfr", "cfr-alternating", "cfr+", "lcfr", "dcfr", "cs", "pcs", "es", "os")
# OpenSpiel's CFRSolver updates the players in turn; cfrlab's `cfr` preset updates both at
# once (Zinkevich 2007). `cfr-alternating` is cfrlab's `cfr` with alternating=True: the same
# iterates as pyspiel.CFRSolver, so the CFR speedups compare it with OpenSpiel's CFR.
VARIANTS = {"cfr-alternating": ("cfr", {"alternating": True})}
PEER_OF = {"cfr+": "cfr+", "cfr": "cfr-alternating"}
SEED = 0


def key(t: float) -> str:
    return f"seconds_to_{t:.0e}".replace("e-0", "e-")


def converge(step, measure, cap: float) -> dict:
    """Run ``step(n)`` (timed) and ``measure()`` (not timed) on the geometric schedule.

    Returns iterations, solver seconds, the time and iteration count to each threshold,
    and the last exploitability measured.
    """
    it, solver_s, wall0 = 0, 0.0, time.perf_counter()
    out: dict = {key(t): None for t in THRESHOLDS}
    out.update({f"iterations_to_{t:.0e}".replace("e-0", "e-"): None for t in THRESHOLDS})
    expl = math.inf
    while True:
        n = max(1, math.ceil(it * RATIO) - it)
        t0 = time.perf_counter()
        step(n)
        solver_s += time.perf_counter() - t0
        it += n
        expl = measure()
        for t in THRESHOLDS:
            if expl <= t and out[key(t)] is None:
                out[key(t)] = solver_s
                out[f"iterations_to_{t:.0e}".replace("e-0", "e-")] = it
        if expl <= THRESHOLDS[-1] or solver_s >= cap or time.perf_counter() - wall0 >= 4 * cap:
            break
    out.update(iterations=it, seconds=solver_s, final_exploitability=expl)
    return out


def steady_rate(step, seconds: float = 0.5) -> float:
    """Iterations per second over about ``seconds`` of large chunks."""
    n, t = 1, 0.0
    while t < 0.05:
        t0 = time.perf_counter()
        step(n)
        t = time.perf_counter() - t0
        n *= 4 if t < 0.05 else 1
    block = max(1, int(n / t * seconds))
    t0 = time.perf_counter()
    step(block)
    return block / (time.perf_counter() - t0)


def bench_cfrlab(name: str, cap: float) -> dict:
    from cfrlab.engine import build_tree_for, model_for_game
    from cfrlab.engine.values import exploitability
    from cfrlab.games import load_game
    from cfrlab.solvers import make_solver

    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    algorithm, params = VARIANTS.get(name, (name, {}))
    t0 = time.perf_counter()
    warm = make_solver(tree, model, algorithm, seed=SEED, **params)
    warm.iterate(1)
    exploitability(tree, model, warm.average_policy())
    compile_s = time.perf_counter() - t0
    rate = steady_rate(warm.iterate)
    solver = make_solver(tree, model, algorithm, seed=SEED, **params)
    res = converge(solver.iterate, lambda: exploitability(tree, model, solver.average_policy()), cap)
    return {"iterations_per_second": rate, **res, "compile_seconds": compile_s}


def bench_openspiel(name: str, cap: float) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("leduc_poker")
    make = {"cfr+": pyspiel.CFRPlusSolver, "cfr": pyspiel.CFRSolver}[name]
    t0 = time.perf_counter()
    solver = make(game)
    setup = time.perf_counter() - t0

    def step(n: int) -> None:
        for _ in range(n):
            solver.evaluate_and_update_policy()

    res = converge(step, lambda: pyspiel.exploitability(game, solver.average_policy()), cap)
    rate = res["iterations"] / res["seconds"] if res["seconds"] > 0 else None
    return {"iterations_per_second": rate, **res, "setup_seconds": setup}


def lp_seconds() -> dict:
    from cfrlab.engine import build_tree_for, model_for_game
    from cfrlab.games import load_game
    from cfrlab.solvers.lp import solve_lp

    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    t0 = time.perf_counter()
    _, value = solve_lp(tree, model)
    return {"seconds": time.perf_counter() - t0, "game_value": value}


def fmt_s(x) -> str:
    return "      -" if x is None else (f"{x:7.4f}" if x < 10 else f"{x:7.1f}")


def print_row(name: str, r: dict) -> None:
    rate = r.get("iterations_per_second") or 0.0
    cells = " ".join(fmt_s(r[key(t)]) for t in THRESHOLDS)
    extra = r.get("compile_seconds", r.get("setup_seconds", 0.0))
    print(f"{name:16s} {rate:12,.0f} {cells}  {r['iterations']:>10,} {r['final_exploitability']:10.2e} "
          f"{extra:8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cap", type=float, default=20.0, help="solver seconds per cfrlab run (default 20)")
    ap.add_argument("--openspiel-cap", type=float, default=60.0, help="solver seconds per OpenSpiel run")
    ap.add_argument("--solvers", default=",".join(ALL_SOLVERS), help="cfrlab solvers, comma separated")
    ap.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = ap.parse_args()

    print(f"Leduc hold'em, time to exploitability thresholds (chips); caps {args.cap:g} s (cfrlab), "
          f"{args.openspiel_cap:g} s (OpenSpiel); measured every x{RATIO} iterations")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    head = " ".join(f"{'to ' + format(t, '.0e'):>7s}" for t in THRESHOLDS)
    print(f"{'solver':16s} {'iter/s':>12s} {head}  {'iterations':>10s} {'last expl':>10s} {'compile':>8s}")
    solvers = {}
    for name in [s.strip() for s in args.solvers.split(",") if s.strip()]:
        solvers[name] = bench_cfrlab(name, args.cap)
        print_row(name, solvers[name])
    openspiel = {}
    for name in ("cfr+", "cfr"):
        r = bench_openspiel(name, args.openspiel_cap)
        if r is None:
            print("OpenSpiel (pyspiel) is not installed: no comparison")
            break
        openspiel[name] = r
        print_row(f"openspiel {name}", r)
    lp = lp_seconds()
    print(f"sequence-form LP (HiGHS): exact value {lp['game_value']:.12f} in {lp['seconds']:.2f} s")

    ratios = {}
    for name in openspiel:
        for t in THRESHOLDS:
            ours, theirs = solvers.get(PEER_OF[name], {}).get(key(t)), openspiel[name][key(t)]
            ratios[f"speedup_{name}_{t:.0e}".replace("e-0", "e-")] = (
                theirs / ours if ours and theirs else None)
    for name in openspiel:
        ours = solvers.get(PEER_OF[name], {}).get("iterations_per_second")
        theirs = openspiel[name]["iterations_per_second"]
        ratios[f"speedup_{name}_iterations_per_second"] = ours / theirs if ours and theirs else None
    for k, v in ratios.items():
        print(f"{k}: {'n/a (a side did not reach it)' if v is None else f'{v:,.0f}x'}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"peak RSS {peak:.0f} MB")
    if args.json:
        print(json.dumps({"game": "leduc", "thresholds": list(THRESHOLDS), "cap_seconds": args.cap,
                          "openspiel_cap_seconds": args.openspiel_cap, "solvers": solvers,
                          "openspiel": openspiel, **ratios, "lp": lp, "peak_rss_mb": peak,
                          "load_average": list(os.getloadavg()), "cpu_count": os.cpu_count()}))


if __name__ == "__main__":
    main()
