"""Counter-strategies at full size: an opponent model from a hold'em log, and RNR / DBR at 5 buckets.

Usage: python benchmarks/counter.py --strategy out/cfr5.npz --abstraction out/b5.npz
           [--hands 100000] [--iterations 475] [--p 0.5] [--method rnr|dbr] [--json]

1. A match of ``--hands`` hands between the opponent (the strategy made looser: half of each
   row's mass moved to check/call, an exploitable "calling station" near CFR5) and the random
   bot is logged; the model is built from the log: hands per second.
2. RNR (or DBR on that model) at p (P_max) runs ``--iterations`` iterations of CFR+: seconds
   per iteration, then the gap to the restricted game's equilibrium (mbb/g), the counter-
   strategy's exploitation of the opponent and its exploitability, and the peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

import cfrlab
from cfrlab.counter import build_model
from cfrlab.counter.responses import confidence
from cfrlab.counter.restricted import RestrictedSolver


def loosened(s: cfrlab.Strategy) -> cfrlab.Strategy:
    legal = np.repeat(s.tree.legal, np.diff(s.row_offset), axis=0)
    pol = s.policy.copy()
    pol[:, 1] += 1.0
    pol = np.where(legal, pol, 0.0)
    pol /= pol.sum(axis=1, keepdims=True)
    return cfrlab.Strategy.from_policy(s.game, pol, tree=s.tree, model=s.model, algorithm="loosened")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="out/cfr5.npz")
    ap.add_argument("--abstraction", default="out/b5.npz")
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--iterations", type=int, default=475)
    ap.add_argument("--p", type=float, default=0.5)
    ap.add_argument("--method", choices=("rnr", "dbr"), default="rnr")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out: dict = {"method": args.method, "p": args.p}
    base = cfrlab.Strategy.load(args.strategy, model=args.abstraction)
    opponent = loosened(base)
    g = base.game
    mbb = 1000.0 / max(g.blind)
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "m.log"
        t = time.perf_counter()
        cfrlab.play_match(g, opponent, "random", args.hands, seed=1, log=log, names=("target", "field"))
        out["match_seconds"] = time.perf_counter() - t
        t = time.perf_counter()
        model = build_model([log], g, "target", abstraction=base.model)
        out["model_seconds"] = time.perf_counter() - t
        out["model_hands_per_second"] = args.hands / out["model_seconds"]
    print(f"model from {args.hands:,} hands: {out['model_seconds']:.1f} s "
          f"({out['model_hands_per_second']:,.0f} hands/s)", flush=True)
    fixed = opponent.policy if args.method == "rnr" else model.policy
    kw = {"p": args.p} if args.method == "rnr" else {"conf": confidence(model.observations, args.p)}
    solver = RestrictedSolver(base.tree, base.model, fixed, **kw)
    t = time.perf_counter()
    solver.iterate(1)
    out["first_iteration_seconds"] = time.perf_counter() - t
    t = time.perf_counter()
    solver.iterate(args.iterations - 1)
    rest = time.perf_counter() - t
    out["seconds_per_iteration"] = rest / max(1, args.iterations - 1)
    out["solve_seconds"] = out["first_iteration_seconds"] + rest
    out["iterations"] = solver.iterations
    t = time.perf_counter()
    out["gap_mbb"] = solver.gap() * mbb
    r = solver.evaluate()
    out["evaluate_seconds"] = time.perf_counter() - t
    out["exploitation_mbb"] = r.exploitation * mbb
    out["exploitability_mbb"] = r.exploitability * mbb
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for k, v in out.items():
        print(f"{k:26s} {v:.4g}" if isinstance(v, float) else f"{k:26s} {v}")
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
