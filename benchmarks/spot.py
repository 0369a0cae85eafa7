"""The TexasSolver benchmark spot (examples/spots/texassolver_benchmark.toml) solved to a target
exploitability: seconds (wall and CPU), peak memory (RSS), exploitability in percent of the pot,
the OOP player's EV and the root's frequencies, for float32 storage and the 16-bit storage
beside it (each in its own process, so each peak RSS is its own). The machine's load average
is printed: on shared cores the wall time is not the solver's.

    python benchmarks/spot.py --json
    python benchmarks/spot.py --storage int16 --target 1 --iterations 50
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPOT = ROOT / "examples" / "spots" / "texassolver_benchmark.toml"
TEXASSOLVER = {"seconds": 175, "threads": 6, "memory_bytes": 1.6e9}  # its README, version 0.1.0


def run_one(args) -> dict:
    """Solve once in this process and return the figures."""
    from cfrlab.spot import load_spot, solve_spot, spot_tree
    from cfrlab.spot.fast import SpotGame
    from cfrlab.spot.model import SpotModel
    from cfrlab.spot.solve import solve_memory

    spot = load_spot(args.spot)
    wall, cpu = time.perf_counter(), time.process_time()
    tree, model = spot_tree(spot), SpotModel(spot)
    game = SpotGame(spot, tree, True)
    need = solve_memory(spot, tree, model, args.algorithm, args.storage, True, game)
    setup = time.perf_counter() - wall
    setup_cpu = time.process_time() - cpu
    curve = []

    def progress(its: int, seconds: float, pct: float) -> None:
        # CPU seconds beside each measurement: on shared cores the wall time is not the solver's
        curve.append([its, round(time.process_time() - cpu, 2), pct])
        print(json.dumps({"iterations": its, "cpu_seconds": curve[-1][1], "pct": pct}),
              file=sys.stderr, flush=True)

    sol = solve_spot(spot, args.algorithm, target_pct=args.target, iterations=args.iterations,
                     seconds=args.seconds, check_every=args.check_every, tree=tree, model=model,
                     storage=args.storage, game=game, progress=progress)
    return {"storage": args.storage, "algorithm": args.algorithm, "target_pct": args.target,
            "iterations": sol.iterations, "exploitability_pct": sol.exploitability_pct,
            "wall_seconds": round(time.perf_counter() - wall, 2),
            "cpu_seconds": round(time.process_time() - cpu, 2), "setup_seconds": round(setup, 2),
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "memory_estimate_bytes": need, "boards": [lev.B for lev in game.levels],
            "ev_oop": sol.ev("oop"), "ev_ip": sol.ev("ip"),
            "root": [{"action": a, "frequency": f} for a, f in sol.frequencies(0)],
            "history": [[i, round(s, 2), p] for i, s, p in sol.history],
            "history_cpu": curve,
            "cpu_seconds_per_iteration": round((time.process_time() - cpu - setup_cpu) / max(sol.iterations, 1), 3),
            "load_average": os.getloadavg()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spot", default=str(SPOT))
    ap.add_argument("--target", type=float, default=0.3, help="percent of the pot")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--check-every", type=int, default=10)
    ap.add_argument("--algorithm", default="dcfr")
    ap.add_argument("--storage", default=None, help="one storage only (default: float32, then int16)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_one(args)))
        return
    runs = []
    for storage in ([args.storage] if args.storage else ["float32", "int16"]):
        cmd = [sys.executable, __file__, "--child", "--spot", args.spot, "--target", str(args.target),
               "--iterations", str(args.iterations), "--check-every", str(args.check_every),
               "--algorithm", args.algorithm, "--storage", storage]
        if args.seconds is not None:
            cmd += ["--seconds", str(args.seconds)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False,
                             env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        if out.returncode != 0:
            sys.exit(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "the solve failed")
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        if not args.json:
            r = runs[-1]
            print(f"{storage}: {r['iterations']} iterations, {r['exploitability_pct']:.3f}% of the pot, "
                  f"{r['wall_seconds']} s wall, {r['cpu_seconds']} s CPU, peak RSS "
                  f"{r['peak_rss_bytes'] / 1e9:.2f} GB, EV OOP {r['ev_oop']:.3f}, load {r['load_average'][0]:.1f}",
                  flush=True)
    result = {"spot": str(Path(args.spot).name), "runs": runs, "texassolver_readme": TEXASSOLVER,
              "texassolver_console": "not built here"}
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
