"""Counterfactual value networks as leaf values (issue: search, item 2c), measured exactly.

    python benchmarks/value_net.py                                  # Leduc
    python benchmarks/value_net.py --game leduc-nolimit --situations 40000 --json
    python benchmarks/value_net.py --data runs/cfvdata-leduc        # keep (and resume) the data

For one game: random situations at the second round's starts solved by the engine (CFR+,
``--solve-iterations``), written in resumable chunks under ``--data``; a network trained on
them with a tenth held out (its mean absolute error in chips on the held-out situations,
beside predicting 0); then DeepStack's loop, continual re-solving with a depth of one round,
with the network's leaves, written out as a full-game strategy and its exploitability
computed exactly, beside the same loop with the blueprint's k = 4 continuations (item 2b),
with exact leaves (item 2a: the rest of the game solved) and the blueprint itself.

The blueprint: CFR after 100 iterations (Leduc) or the fcpa abstraction's CFR+ solve
translated to every amount (no-limit Leduc). Exploitability in chips per game.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time

import cfrlab
from cfrlab.agents.translation import translate
from cfrlab.deep.cfvnet import load_cfvnet
from cfrlab.subgame.cut import blueprint_of
from cfrlab.subgame.depth import depth_limited_strategy
from cfrlab.subgame.valuedata import generate, train_value_net
from cfrlab.subgame.valuenet import ValueNets


def blueprint(game: str):
    if game == "leduc":
        return cfrlab.solve("leduc", "cfr", iterations=100).strategy
    abstract = cfrlab.solve(game, "cfr+", bets="fcpa", iterations=500).strategy
    return translate(abstract).full_game_strategy()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="leduc", choices=("leduc", "leduc-nolimit"))
    ap.add_argument("--situations", type=int, default=20000, help="situations (each on every board)")
    ap.add_argument("--solve-iterations", type=int, default=300, help="CFR+ iterations per situation's solve")
    ap.add_argument("--data", default=None, help="data directory (default: a temporary one)")
    ap.add_argument("--hidden", default="256,256,256")
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--iterations", default="50,200", help="CFR+ iterations per re-solve")
    ap.add_argument("--out", default=None, help="save the network here")
    ap.add_argument("--net", default=None, help="measure this network file instead of making one")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    s = blueprint(a.game)
    bp = blueprint_of(s, later_round=False)
    result: dict = {"game": a.game, "situations_asked": a.situations, "solve_iterations": a.solve_iterations}
    if a.net:
        net = load_cfvnet(a.net, s.game)
        result["network"] = {"file": a.net, "layers": list(net.layers),
                             **{k: net.header.get(k) for k in ("situations", "held_out", "steps", "train_seconds",
                                                               "mae_train_chips", "mae_held_out_chips",
                                                               "mae_zero_chips")}}
        print(f"network {a.net} {net.layers}: held-out MAE {net.header.get('mae_held_out_chips'):.4f} chips "
              f"(read from the file)", flush=True)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            data = a.data or tmp
            t0 = time.perf_counter()
            rep = generate(bp, 1, data, situations=a.situations, iterations=a.solve_iterations,
                           progress=lambda k, n: print(f"\rdata: chunk {k}/{n}", end="", file=sys.stderr, flush=True))
            print(file=sys.stderr)
            result["data"] = {"situations": rep.situations, "chunks": rep.chunks, "resumed_chunks": rep.resumed,
                              "bytes": rep.bytes, "solve_seconds": rep.seconds, "mean_gap_chips": rep.gap,
                              "seconds_this_run": time.perf_counter() - t0}
            print(f"data: {rep.situations:,} situations, {rep.bytes / 1e6:.1f} MB, {rep.seconds:.0f} s of solving "
                  f"({rep.resumed} chunks resumed), mean solve gap {rep.gap:.2g} chips", flush=True)
            net, nr = train_value_net(bp, 1, data, hidden=tuple(int(x) for x in a.hidden.split(",")), steps=a.steps)
        if a.out:
            net.save(a.out)
        result["network"] = {"layers": list(net.layers), "steps": a.steps, "examples": nr.examples,
                             "held_out": nr.held_out, "mae_train_chips": nr.mae_train,
                             "mae_held_out_chips": nr.mae_held_out, "mae_zero_chips": nr.mae_zero,
                             "train_seconds": nr.seconds}
        print(f"network {net.layers}: held-out MAE {nr.mae_held_out:.4f} chips (train {nr.mae_train:.4f}; "
              f"predicting 0: {nr.mae_zero:.4f}), {nr.seconds:.0f} s", flush=True)
    nets = ValueNets(bp, {1: net})
    rows = []
    base = None
    for its in (int(x) for x in a.iterations.split(",")):
        for kind, kw in (("network", {"values": nets}), ("continuations k=4", {"k": 4}),
                         ("exact", {"depth": 2})):
            t0 = time.perf_counter()
            r = depth_limited_strategy(s, **{"depth": 1, **kw}, continual=True, iterations=its)
            row = {"leaves": kind, "iterations": its, "exploitability": r.exploitability(),
                   "seconds": time.perf_counter() - t0,
                   "s_per_solve": {str(k): v for k, v in r.seconds_per_solve().items()}}
            if base is None:
                base = r.blueprint_exploitability()
                print(f"blueprint exploitability {base:.4f} chips/g", flush=True)
            rows.append(row)
            print(f"  continual, {kind:18s} {its:5d} it.  {row['exploitability']:.4f}  ({row['seconds']:.0f} s)",
                  flush=True)
    result["blueprint_exploitability"] = base
    result["rows"] = rows
    if a.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
