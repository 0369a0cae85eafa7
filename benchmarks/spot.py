"""The TexasSolver benchmark spot (examples/spots/texassolver_benchmark.toml) solved to a target
exploitability: seconds (wall and CPU), peak memory (RSS), exploitability in percent of the pot,
the OOP player's EV and the root's frequencies, for float32 storage and the 16-bit storage
beside it (each in its own process, so each peak RSS is its own). The machine's load average
is printed: on shared cores the wall time is not the solver's.

TexasSolver's console solver, when given (``--texassolver PATH`` or the ``TEXASSOLVER``
environment variable; its ``resources`` directory beside the binary's directory, or
``--texassolver-resources``), solves the same spot in the same run: a config written from the
spot (its ranges class by class, the same sizes, 2 threads, isomorphism, accuracy 0.3). The
whole run to the target costs it about 1,000 s of CPU, so by default it runs
``--texassolver-iterations`` (20) and its CPU time to the target is projected: its setup (a run
without the solve) plus the measured CPU per iteration (its exploitability evaluations every
10 iterations included, as ours are) times the iterations its own published log needed for
0.3% (161); ``--texassolver-iterations 0`` runs it to the target instead. The ratio is its CPU
seconds (projected or measured) over ours.

``--real-flop`` solves a player's real flop instead (examples/spots/real_flop.toml: BTN
against BB in a single-raised pot, 100 big blinds, Ks 7h 2h, two sizes a street, 3x and all-in
raises) to 0.5% of the pot within 10 minutes, in 16-bit storage unless ``--storage`` says
otherwise (float32 needs about 18 GB); the goals (0.5% in 600 s, 8 GB in float32, 4 GB
compressed) are printed beside the figures.

    python benchmarks/spot.py --json
    python benchmarks/spot.py --storage int16 --target 1 --iterations 50
    python benchmarks/spot.py --json --texassolver /path/to/console_solver
    python benchmarks/spot.py --real-flop --json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SPOT = ROOT / "examples" / "spots" / "texassolver_benchmark.toml"
REAL_FLOP = ROOT / "examples" / "spots" / "real_flop.toml"
REAL_FLOP_GOALS = {"target_pct": 0.5, "seconds": 600, "float32_bytes": 8e9, "compressed_bytes": 4e9}
TEXASSOLVER = {"seconds": 175, "threads": 6, "memory_bytes": 1.6e9}  # its README, version 0.1.0
TS_ITERATIONS_TO_TARGET = 161  # its benchmark/benchmark_outputs log: 0.276% of the pot at Iter 161


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
                     storage=args.storage, game=game, progress=progress, threads=args.threads)
    return {"storage": args.storage, "algorithm": args.algorithm, "target_pct": args.target,
            "threads": sol.walk.threads if sol.walk is not None else 1,
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


# -- TexasSolver's console solver on the same spot ----------------------------------------------
def _ts_range(weights: np.ndarray) -> str:
    """A 1,326-weight range in TexasSolver's notation: hand classes (AA, AKs, AKo) with a weight
    after a colon; a class whose combos differ in weight cannot be written."""
    from cfrlab.cards.cards import RANKS
    from cfrlab.cards.ranges import COMBOS

    classes: dict = {}
    for c, (a, b) in enumerate(COMBOS):
        hi, lo = max(a // 4, b // 4), min(a // 4, b // 4)
        kind = "" if hi == lo else ("s" if a % 4 == b % 4 else "o")
        classes.setdefault((hi, lo, kind), []).append(float(weights[c]))
    out = []
    for (hi, lo, kind), ws in sorted(classes.items(), reverse=True):
        if max(ws) == 0:
            continue
        if min(ws) != max(ws):
            raise SystemExit(f"TexasSolver's config takes whole hand classes: {RANKS[hi]}{RANKS[lo]}{kind} "
                             "has combos of different weights")
        out.append(f"{RANKS[hi]}{RANKS[lo]}{kind}" + ("" if ws[0] == 1 else f":{ws[0]:g}"))
    return ",".join(out)


def texassolver_config(spot, threads: int, accuracy: float, iterations: int, solve: bool = True) -> str:
    """TexasSolver console commands for ``spot`` (the same tree: pot-fraction sizes per player,
    street and kind, all-in where any list of the street has it, donk bets on turn and river)."""
    from cfrlab.cards.cards import card_text
    from cfrlab.cards.ranges import parse_range

    lines = [f"set_pot {spot.pot}", f"set_effective_stack {spot.stack}",
             "set_board " + ",".join(card_text(c) for c in spot.board),
             f"set_range_oop {_ts_range(parse_range(spot.range_text[0]))}",
             f"set_range_ip {_ts_range(parse_range(spot.range_text[1]))}"]
    for who in ("oop", "ip"):
        for street in ("flop", "turn", "river"):
            allin = False
            for kind in ("bet", "donk", "raise"):
                spec = spot.sizes.get((who, street, kind))
                if spec is None or (kind == "donk" and street == "flop"):
                    continue
                pcts = [f"{100 * b.value:g}" for b in spec.rounds[0] if b.kind == "p"]
                allin |= any(b.kind == "a" for b in spec.rounds[0])
                if pcts:
                    lines.append(f"set_bet_sizes {who},{street},{kind},{','.join(pcts)}")
            if allin:
                lines.append(f"set_bet_sizes {who},{street},allin")
    lines += [f"set_allin_threshold {1.0 - spot.allin:g}", "build_tree"]
    if solve:
        lines += [f"set_thread_num {threads}", f"set_accuracy {accuracy:g}",
                  f"set_max_iteration {iterations}", "set_print_interval 10", "set_use_isomorphism 1",
                  "start_solve"]
    return "\n".join(lines) + "\n"


def _run_ts(binary: Path, resources: Path, config: str, work: Path, name: str) -> dict:
    """Run the console solver once; its CPU seconds (user + system), wall and stdout."""
    cfg = work / f"{name}.txt"
    cfg.write_text(config)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    out = subprocess.run([str(binary), "-i", str(cfg), "-r", str(resources)], capture_output=True,
                         text=True, cwd=work, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"TexasSolver failed ({out.returncode}): {out.stderr.strip()[-300:]}")
    return {"cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "wall": time.perf_counter() - wall, "peak_rss_bytes": after.ru_maxrss * 1024,
            "stdout": out.stdout.replace("\r", "\n")}


def run_texassolver(args, spot) -> dict:
    """TexasSolver on the benchmark spot (module docstring): measured or projected CPU seconds
    to the target, its exploitability curve, its peak RSS."""
    binary = Path(args.texassolver)
    resources = Path(args.texassolver_resources) if args.texassolver_resources else binary.parent.parent / "resources"
    full = args.texassolver_iterations == 0
    iterations = 1000 if full else args.texassolver_iterations + 1  # evaluations at 0, 10, 20, ...
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        setup = _run_ts(binary, resources, texassolver_config(spot, 2, args.target, 0, solve=False), work, "setup")
        run = _run_ts(binary, resources, texassolver_config(spot, 2, args.target, iterations), work, "solve")
    iters = [int(x) for x in re.findall(r"Iter: (\d+)", run["stdout"])]
    pcts = [float(x) for x in re.findall(r"Total exploitability ([-0-9.e]+) precent", run["stdout"])]
    done = max(iters) if iters else iterations
    per_iteration = (run["cpu"] - setup["cpu"]) / iterations
    result = {"binary": str(binary), "threads": 2, "iterations": iterations,
              "curve": [[i, p] for i, p in zip(iters, pcts)],
              "cpu_seconds": round(run["cpu"], 2), "wall_seconds": round(run["wall"], 2),
              "setup_cpu_seconds": round(setup["cpu"], 2), "peak_rss_bytes": run["peak_rss_bytes"],
              "cpu_seconds_per_iteration": round(per_iteration, 3), "last_iter": done}
    if full:
        result["cpu_seconds_to_target"] = round(run["cpu"], 2)
        result["projected"] = False
    else:
        result["cpu_seconds_to_target"] = round(setup["cpu"] + per_iteration * TS_ITERATIONS_TO_TARGET, 1)
        result["projected"] = f"setup + {TS_ITERATIONS_TO_TARGET} iterations at the measured CPU per iteration"
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spot", default=str(SPOT))
    ap.add_argument("--target", type=float, default=0.3, help="percent of the pot")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--check-every", type=int, default=10)
    ap.add_argument("--algorithm", default="dcfr")
    ap.add_argument("--storage", default=None, help="one storage only (default: float32, then int16)")
    ap.add_argument("--threads", type=int, default=None, help="threads of the walk (default: every core)")
    ap.add_argument("--texassolver", default=os.environ.get("TEXASSOLVER"),
                    help="TexasSolver's console_solver binary (default: $TEXASSOLVER)")
    ap.add_argument("--texassolver-resources", default=None, help="its resources directory")
    ap.add_argument("--texassolver-iterations", type=int, default=20,
                    help="its iterations, then projected to the target (0: run it to the target)")
    ap.add_argument("--real-flop", action="store_true",
                    help="the real flop (examples/spots/real_flop.toml) to 0.5%% in 600 s, int16")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_one(args)))
        return
    if args.real_flop:
        args.spot, args.target = str(REAL_FLOP), REAL_FLOP_GOALS["target_pct"]
        args.seconds = REAL_FLOP_GOALS["seconds"] if args.seconds is None else args.seconds
        args.storage = args.storage or "int16"
        args.texassolver = None  # its config writer knows neither dead money nor 3x raises
    runs = []
    for storage in ([args.storage] if args.storage else ["float32", "int16"]):
        cmd = [sys.executable, __file__, "--child", "--spot", args.spot, "--target", str(args.target),
               "--iterations", str(args.iterations), "--check-every", str(args.check_every),
               "--algorithm", args.algorithm, "--storage", storage]
        if args.seconds is not None:
            cmd += ["--seconds", str(args.seconds)]
        if args.threads is not None:
            cmd += ["--threads", str(args.threads)]
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
              "texassolver_console": texassolver(args, runs[0]), "load_average": os.getloadavg()}
    if args.real_flop:
        result["goals"] = REAL_FLOP_GOALS
    if args.json:
        print(json.dumps(result))
    else:
        print(f"TexasSolver: {json.dumps(result['texassolver_console'])}")


def texassolver(args, ours: dict):
    """TexasSolver's figures and the ratio of its CPU seconds to ours, or "not found"."""
    found = args.texassolver and (shutil.which(args.texassolver) or Path(args.texassolver).is_file())
    if not found:
        return "not found (give --texassolver PATH or set TEXASSOLVER)"
    sys.path.insert(0, str(ROOT / "src"))
    from cfrlab.spot import load_spot

    ts = run_texassolver(args, load_spot(args.spot))
    ts["cpu_ratio_to_cfrlab"] = round(ts["cpu_seconds_to_target"] / ours["cpu_seconds"], 2)
    return ts


if __name__ == "__main__":
    main()
