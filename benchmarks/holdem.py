"""HULHE in E[HS^2] percentile perfect-recall bucket abstractions: full-width CFR+ to the
exploitability Zinkevich et al. reached ("Regret Minimization in Games with Incomplete
Information", NIPS 2007), and chance-sampled CFR's iterations per second (theirs: 750/s).

    python benchmarks/holdem.py --abstraction out/b5.npz --seconds 600 --target 3.4
    python benchmarks/holdem.py --abstraction out/b5.npz --abstraction out/b6.npz --json
    python benchmarks/holdem.py --abstraction out/b5.npz --out-dir out   # keeps out/cfr5.npz

Each abstraction is solved in its own process (its peak RSS is its own). JSON (last line):
``{"runs": [{buckets, infosets, states, iterations, seconds, exploitability_mbb,
seconds_to_target, peak_rss_gb (the solve), target_mbb, algorithm, cs_iterations_per_second,
peak_rss_gb_with_cs}], ...}``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

PAPER_TARGET = {5: 3.4, 6: 3.1, 8: 2.7, 10: 2.2}


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def cs_rate(abstraction: Path, iterations: int = 200_000) -> float:
    from cfrlab.engine import load_abstraction
    from cfrlab.games import load_game
    from cfrlab.solvers import make_solver
    from cfrlab.tree import build_tree

    g = load_game("holdem-limit")
    model = load_abstraction(abstraction, g)
    s = make_solver(build_tree(g), model, "cs", seed=0)
    s.iterate(1000)  # compile
    t = time.perf_counter()
    s.iterate(iterations)
    return iterations / (time.perf_counter() - t)


def child(abstraction: Path, algorithm: str, seconds: float, target: float | None, every: int,
          out_dir: Path | None = None, resume: bool = False) -> dict:
    from cfrlab.experiments.convergence import run_curve, seconds_to_target

    stem = f"{algorithm.replace('+', 'p')}{abstraction.stem.rsplit('-', 1)[-1]}"
    ck = None if out_dir is None else out_dir / f"{stem}.ckpt.npz"  # its curve: experiment convergence
    c = run_curve(abstraction, algorithm, seconds, every, target, checkpoint=ck, resume=resume,
                  log=lambda m: print("   ", m, file=sys.stderr, flush=True))
    solver = c.pop("solver")
    if out_dir is not None:  # the strategy, for matches (the abstraction file sits beside it)
        from cfrlab.games.units import from_unit
        from cfrlab.strategy import Strategy

        i, s, e = c["history"][-1]
        g = solver.tree.game
        path = out_dir / f"{stem}.npz"
        Strategy.from_solver(solver, g, seconds=s, exploitability=from_unit(g, e)).save(path, overwrite=True)
        print(f"    saved {path}", file=sys.stderr, flush=True)
    del solver
    tgt = target if target is not None else PAPER_TARGET.get(c["buckets"])
    i, s, e = c["history"][-1]
    out = {"buckets": c["buckets"], "infosets": c["infosets"], "states": c["states"],
           "algorithm": algorithm, "iterations": i, "seconds": round(s, 1),
           "exploitability_mbb": round(e, 4), "target_mbb": tgt,
           "seconds_to_target": None if tgt is None else seconds_to_target(c["history"], tgt),
           "wall_seconds": round(c["wall_seconds"], 1), "history": c["history"]}
    out["peak_rss_gb"] = round(peak_gb(), 2)  # the solve's: before cs builds a second solver
    out["cs_iterations_per_second"] = round(cs_rate(abstraction))
    out["peak_rss_gb_with_cs"] = round(peak_gb(), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--abstraction", type=Path, action="append", required=True)
    ap.add_argument("--algorithm", default="cfr+")
    ap.add_argument("--seconds", type=float, default=600.0, help="solver budget per abstraction")
    ap.add_argument("--target", type=float, default=None, help="stop at this mbb/g (default: none)")
    ap.add_argument("--eval-every", type=int, default=25)
    ap.add_argument("--out-dir", type=Path, default=None,
                    help="save each strategy and checkpoint here (cfrp<B>.npz for holdem-limit-...-<B>.npz)")
    ap.add_argument("--resume", action="store_true",
                    help="continue from the checkpoint in --out-dir (--seconds counts the whole run)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.abstraction[0], a.algorithm, a.seconds, a.target, a.eval_every,
                               a.out_dir, a.resume)))
        return
    runs = []
    for ab in a.abstraction:
        print(f"{ab}: {a.algorithm}, {a.seconds:g} s budget", flush=True)
        cmd = [sys.executable, __file__, "--child", "--abstraction", str(ab), "--algorithm", a.algorithm,
               "--seconds", str(a.seconds), "--eval-every", str(a.eval_every)]
        if a.target is not None:
            cmd += ["--target", str(a.target)]
        if a.out_dir is not None:
            cmd += ["--out-dir", str(a.out_dir)]
        if a.resume:
            cmd += ["--resume"]
        res = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True)
        r = json.loads(res.stdout.strip().splitlines()[-1])
        r.pop("history")
        runs.append(r)
        tt = r["seconds_to_target"]
        print(f"  {r['buckets']} buckets, {r['infosets']:,} infosets, {r['states']:.3g} states: "
              f"{r['iterations']:,} iterations in {r['seconds']:,.0f} s -> {r['exploitability_mbb']:.3f} mbb/g; "
              f"the paper's {r['target_mbb']} mbb/g after {'-' if tt is None else f'{tt:,.0f} s'}; "
              f"cs {r['cs_iterations_per_second']:,} it/s (paper 750/s); peak {r['peak_rss_gb']} GB", flush=True)
    if a.json:
        print(json.dumps({"runs": runs, "note": "2 cores shared with other jobs"}))


if __name__ == "__main__":
    main()
