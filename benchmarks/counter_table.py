"""A small HULHE counter-strategy table (the thesis's Tables 4.2 and 5.1 in miniature).

Usage: python benchmarks/counter_table.py [--strategy out/cfr5.npz] [--abstraction out/b5.npz]
           [--bonus out/bonus7.npz] [--hands 100000] [--rnr-iterations 200] [--match 200000] [--json]

Two exploitable opponents near CFR5: "loose" (CFR5 with every row moved halfway to
check/call) and "bonus7" (the 7% winner's bonus equilibrium: `cfrlab counter perturbed
holdem-limit --bonus 0.07 -n 475 --abstraction out/b5.npz --out out/bonus7.npz`). For each,
a model is built from ``--hands`` hands of it against the random bot, then FBR and RNR
(p = 0.5) counter-strategies. Every counter-strategy and CFR5 play duplicate matches of
``--match`` deals against both opponents; values in mbb/g with 95% confidence intervals,
beside each one's exploitability in the abstraction.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

import cfrlab
from cfrlab.counter import build_model, fbr, rnr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="out/cfr5.npz")
    ap.add_argument("--abstraction", default="out/b5.npz")
    ap.add_argument("--bonus", default="out/bonus7.npz")
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--rnr-iterations", type=int, default=200)
    ap.add_argument("--match", type=int, default=200_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    base = cfrlab.Strategy.load(args.strategy, model=args.abstraction)
    mbb = 1000.0 / max(base.game.blind)
    legal = np.repeat(base.tree.legal, np.diff(base.row_offset), axis=0)
    pol = base.policy.copy()
    pol[:, 1] += 1.0
    pol = np.where(legal, pol, 0.0)
    pol /= pol.sum(axis=1, keepdims=True)
    opponents = {"loose": cfrlab.Strategy.from_policy(base.game, pol, tree=base.tree, model=base.model),
                 "bonus7": cfrlab.Strategy.load(args.bonus, model=base.model)}
    rows = {"cfr5": base}
    with tempfile.TemporaryDirectory() as d:
        for name, opp in opponents.items():
            log = Path(d) / f"{name}.log"
            cfrlab.play_match(base.game, opp, "random", args.hands, seed=11, log=log, names=("target", "field"))
            model = build_model([log], base.game, "target", abstraction=base.model)
            rows[f"fbr-{name}"] = fbr(model).strategy
            rows[f"rnr-{name}"] = rnr(model, 0.5, iterations=args.rnr_iterations).strategy
            print(f"{name}: model of {model.info()['infosets_seen']:,} information sets seen", flush=True)
    table = {}
    for rn, s in rows.items():
        line = {"exploitability_mbb": cfrlab.exploit(s).exploitability}
        for on, o in opponents.items():
            est = cfrlab.play_match(base.game, s, o, args.match, seed=5, duplicate=True).overall()
            line[on] = [est.mean * mbb, est.ci95 * mbb]
        table[rn] = line
        cells = "  ".join(f"{on} {m:+8.1f} +- {c:4.1f}" for on, (m, c) in
                          ((k, v) for k, v in line.items() if k != "exploitability_mbb"))
        print(f"{rn:12s} {cells}  exploitability {line['exploitability_mbb']:8.1f}", flush=True)
    if args.json:
        print(json.dumps(table))


if __name__ == "__main__":
    main()
