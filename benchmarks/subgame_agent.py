"""Time of one river re-solve of the ``subgame:`` agent in heads-up limit hold'em.

    PYTHONPATH=src python benchmarks/subgame_agent.py out/cfr5.npz --boards 10 --json

For ``--boards`` random boards and river roots (a check-call line and a raised line), builds the
river subgame on real cards (1,081 hands) from the blueprint and re-solves it by each method at
``--iterations`` of CFR+; prints the seconds per subgame, wall clock and CPU (the machine may
be shared: CPU time is what the re-solve costs).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from cfrlab.agents.registry import load_strategy_agent
from cfrlab.cards.cards import deck
from cfrlab.games import load_game
from cfrlab.subgame.methods import solve_family
from cfrlab.subgame.river import river_subgame

LINES = ("cc/cc/cc/", "rc/crc/cc/", "crrc/crc/crc/")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("blueprint")
    ap.add_argument("--abstraction", default=None)
    ap.add_argument("--boards", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--methods", default="resolve,unsafe,maxmargin")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    g = load_game("holdem-limit")
    s = load_strategy_agent(a.blueprint, g, abstraction=a.abstraction).strategy
    rng = np.random.default_rng(a.seed)
    cards = np.array(deck(13, 4))
    rows = {m: {"wall": [], "cpu": []} for m in a.methods.split(",")}
    build = {"wall": [], "cpu": []}
    for k in range(a.boards):
        board = [int(c) for c in rng.choice(cards, 5, replace=False)]
        node = s.node_of(LINES[k % len(LINES)])
        t, c = time.perf_counter(), time.process_time()
        sub = river_subgame(s, node, board, 1)
        build["wall"].append(time.perf_counter() - t)
        build["cpu"].append(time.process_time() - c)
        for m in rows:
            t, c = time.perf_counter(), time.process_time()
            solve_family(sub.family, m, 0, sub.ranges, a.iterations)
            rows[m]["wall"].append(time.perf_counter() - t)
            rows[m]["cpu"].append(time.process_time() - c)
    out = {"game": "holdem-limit", "hands": int(sub.hands.shape[0]), "iterations": a.iterations,
           "subgames": a.boards, "build": {k: float(np.median(v[1:] or v)) for k, v in build.items()},
           "resolve_seconds": {m: {k: float(np.median(v[1:] or v)) for k, v in r.items()} for m, r in rows.items()}}
    if a.json:
        print(json.dumps(out))
        return
    print(f"river subgame of {out['hands']} hands, {a.iterations} CFR+ iterations, median of {a.boards} "
          f"(the first left out: compiling): build {out['build']['wall']:.3f} s wall / {out['build']['cpu']:.3f} s CPU")
    for m, r in out["resolve_seconds"].items():
        print(f"  {m:10s} {r['wall']:.3f} s wall  {r['cpu']:.3f} s CPU")


if __name__ == "__main__":
    main()
