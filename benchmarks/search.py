"""Depth-limited solving and the search agent, measured exactly (issue: search).

    python benchmarks/search.py                       # Leduc, then the 3-round reduced hold'em
    python benchmarks/search.py --part leduc --iterations 300 --json
    python benchmarks/search.py --part holdem --ks 1,4 --depths 1,2

Each search agent is written out as a full-game strategy (``cfrlab.subgame.depth``:
``depth_limited_strategy``) and its exploitability computed exactly. Rows:

- ``dls``: one depth-limited solve from the game's root to ``depth`` rounds, the blueprint's
  rows below the leaves (what a searcher that stops searching after its first solve plays);
- ``search``: the same solve, then each seat re-solves every subgame below its leaves from its
  own range and the opponent's values under its best continuation (``next_method``: the CFR-D
  gadget, ``resolve``; or ``unsafe``, the opponent's range taken from the solve), to ``depth``
  rounds again, to the end of the game;
- ``continual``: continual re-solving (DeepStack's): ``search`` that also solves again at each
  of the seat's own decisions; ``depth`` past the last round means exact leaves;
- ``full``: the whole game re-solved from the root (no leaves): the oracle the others approach.

(a) Leduc: lossless blueprints of two qualities (CFR after 100 and 1,000 iterations). (b) a
3-round limit hold'em on 8 cards (ranks 4 x suits 2, boards 0 2 1) whose blueprint is a
3-bucket card abstraction solved by CFR+ (read with real cards), the case search is for.
Exploitability in chips per game; ``s/solve`` is one seat's solve of one public subgame
(every board) at the root round and at the next.

(c) no-limit Leduc over every legal amount (``--stacks``: 7 is the built-in game; 9 has 5,796
nodes against 1,700): the blueprint is a CFR+ solve of the fcpa betting abstraction, played in
the full game by pseudo-harmonic translation (``translate(...).full_game_strategy()``); the
searches solve the full tree, so the opponent's every amount is searched, not translated.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cfrlab
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.agents.translation import translate
from cfrlab.games import load_game, parse_game
from cfrlab.subgame.depth import depth_limited_strategy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from game_texts import holdem_text

# (d) no-limit hold'em on 8 cards (ranks 4 x suits 2), boards 0 2 1, blinds 2/1, stacks of 8: its
# full tree has 970 nodes (348 decisions), every amount
NLHE = ("GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 3\nstack = 8 8\nblind = 2 1\nfirstPlayer = 2 1 1\n"
        "numSuits = 2\nnumRanks = 4\nnumHoleCards = 2\nnumBoardCards = 0 2 1\nEND GAMEDEF\n")


def rows(name: str, blueprint, depths, ks, iterations: int, full_depth: int, continual: bool = False,
         once: bool = True) -> list[dict]:
    out = []
    base = None

    def run(kind: str, **kw) -> None:
        nonlocal base
        t0 = time.perf_counter()
        r = depth_limited_strategy(blueprint, iterations=iterations, **kw)
        row = {"game": name, "kind": kind, "depth": kw.get("depth"), "k": kw.get("k", 4),
               "next_method": kw.get("next_method", "resolve") if kind in ("search", "continual") else None,
               "iterations": iterations, "exploitability": r.exploitability(),
               "seconds": time.perf_counter() - t0,
               "s_per_solve": {str(k): v for k, v in r.seconds_per_solve().items()}}
        if base is None:
            base = r.blueprint_exploitability()
            print(f"{name}: blueprint exploitability {base:.4f} chips/g", flush=True)
        row["blueprint"] = base
        out.append(row)
        print(f"  {kind:6s} depth {row['depth']} k {row['k']} {row['next_method'] or '':8s} "
              f"{row['exploitability']:.4f}  ({row['seconds']:.0f} s; s/solve "
              f"{', '.join(f'r{k} {v:.2f}' for k, v in row['s_per_solve'].items())})", flush=True)

    for depth in depths:
        for k in ks:
            run("search", depth=depth, k=k, nested=True)
        run("search", depth=depth, k=max(ks), nested=True, next_method="unsafe")
        for k in (min(ks), max(ks)) if once else ():
            run("dls", depth=depth, k=k)
    if continual:
        for k in (min(ks), max(ks)):
            run("continual", depth=1, k=k, continual=True)
        run("continual", depth=full_depth, k=1, continual=True)
    run("full", depth=full_depth, k=1)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("all", "leduc", "holdem", "nolimit", "nlhe"), default="all")
    ap.add_argument("--stacks", default="7", help="no-limit Leduc stacks (every amount in the full tree)")
    ap.add_argument("--iterations", type=int, default=300, help="CFR+ iterations per solve")
    ap.add_argument("--ks", default="1,2,4")
    ap.add_argument("--depths", default="1", help="depths in rounds for the 3-round game (Leduc: 1)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    ks = [int(x) for x in a.ks.split(",")]
    out = []
    if a.part in ("all", "leduc"):
        for its in (100, 1000):
            bp = cfrlab.solve("leduc", "cfr", iterations=its).strategy
            out += rows(f"leduc cfr-{its}", bp, [1], ks, a.iterations, 2, continual=True)
    if a.part in ("all", "holdem"):
        g = parse_game(holdem_text(4, 2, "0 2 1", "2 2 2"), name="holdem-4x2")
        model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, 3), use_cache=False)
        bp = cfrlab.solve(g, "cfr+", iterations=200, abstraction=model).strategy
        out += rows("holdem-4x2 3-bucket cfr+-200", bp, [int(x) for x in a.depths.split(",")], ks,
                    a.iterations, 3)
    if a.part in ("all", "nolimit"):
        base = load_game("leduc-nolimit").to_text()
        for stack in (int(x) for x in a.stacks.split(",")):
            g = parse_game(base.replace("stack = 7 7", f"stack = {stack} {stack}"), name=f"leduc-nolimit-{stack}")
            abstract = cfrlab.solve(g, "cfr+", bets="fcpa", iterations=500).strategy
            bp = translate(abstract).full_game_strategy()  # the blueprint as it plays every amount
            out += rows(f"leduc-nolimit stack {stack}, fcpa cfr+-500 translated", bp, [1], ks, a.iterations, 2,
                        continual=True, once=False)
    if a.part in ("all", "nlhe"):
        g = parse_game(NLHE, name="nlhe-4x2-stack8")
        abstract = cfrlab.solve(g, "cfr+", bets="fcpa", iterations=300).strategy
        bp = translate(abstract).full_game_strategy()
        out += rows("no-limit hold'em 4x2, boards 0 2 1, stack 8, fcpa cfr+-300 translated", bp, [1], ks,
                    a.iterations, 3, once=False)
    if a.json:
        print(json.dumps({"rows": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
