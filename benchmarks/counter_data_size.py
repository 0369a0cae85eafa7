"""DBR against RNR by the amount of data (HULHE, 5 buckets): models of the 7% winner's-bonus
opponent from 1,000, 10,000 and 100,000 hands; RNR (p = 0.5) and DBR (P_max = 0.5, linear:10),
150 CFR+ iterations each, then a duplicate match of 200,000 deals against the real opponent.

Usage: python benchmarks/counter_data_size.py [--sizes 1000,10000,100000] [--log-hands N]
(needs out/cfr5.npz, out/b5.npz, out/bonus7.npz). The models are the first N hands of one log
of ``--log-hands`` hands (default: the largest size). Prints one JSON line per (hands, method),
values in mbb/g.
"""
import argparse
import json
import tempfile
import time
from pathlib import Path

import cfrlab
from cfrlab.counter import build_model, dbr, rnr

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--sizes", default="1000,10000,100000")
ap.add_argument("--log-hands", type=int, default=None)
args = ap.parse_args()
sizes = [int(x) for x in args.sizes.split(",")]
base = cfrlab.Strategy.load("out/cfr5.npz", model="out/b5.npz")
opp = cfrlab.Strategy.load("out/bonus7.npz", model=base.model)
d = Path(tempfile.mkdtemp())
log = d / "b.log"
cfrlab.play_match(base.game, opp, "random", args.log_hands or max(sizes), seed=21, log=log,
                  names=("target", "field"))
for n in sizes:
    m = build_model([log], base.game, "target", abstraction=base.model, max_hands=n)
    for name, respond in (("rnr", rnr), ("dbr", dbr)):
        t = time.time(); cs = respond(m, 0.5, iterations=150)
        est = cfrlab.play_match(base.game, cs.strategy, opp, 200_000, seed=5, duplicate=True).overall("chips/g")
        print(json.dumps({"hands": n, "method": name, "vs_opponent": [est.mean * 100, est.ci95 * 100],
                          "model_exploitation": cs.exploitation_chips * 100, "exploitability": cs.exploitability_chips * 100,
                          "seconds": time.time() - t}), flush=True)
