"""DBR against RNR by the amount of data (HULHE, 5 buckets): models of the 7% winner's-bonus
opponent from 1,000, 10,000 and 100,000 hands; RNR (p = 0.5) and DBR (P_max = 0.5, linear:10),
150 CFR+ iterations each, then a duplicate match of 200,000 deals against the real opponent.

Usage: python benchmarks/counter_data_size.py   (needs out/cfr5.npz, out/b5.npz, out/bonus7.npz)
Prints one JSON line per (hands, method), values in mbb/g.
"""
import json
import tempfile
import time
from pathlib import Path

import cfrlab
from cfrlab.counter import build_model, dbr, rnr

base = cfrlab.Strategy.load("out/cfr5.npz", model="out/b5.npz")
opp = cfrlab.Strategy.load("out/bonus7.npz", model=base.model)
d = Path(tempfile.mkdtemp())
log = d / "b.log"
cfrlab.play_match(base.game, opp, "random", 100_000, seed=21, log=log, names=("target", "field"))
for n in (1_000, 10_000, 100_000):
    m = build_model([log], base.game, "target", abstraction=base.model, max_hands=n)
    for name, respond in (("rnr", rnr), ("dbr", dbr)):
        t = time.time(); cs = respond(m, 0.5, iterations=150)
        est = cfrlab.play_match(base.game, cs.strategy, opp, 200_000, seed=5, duplicate=True).overall()
        print(json.dumps({"hands": n, "method": name, "vs_opponent": [est.mean * 100, est.ci95 * 100],
                          "model_exploitation": cs.exploitation * 100, "exploitability": cs.exploitability * 100,
                          "seconds": time.time() - t}), flush=True)
