"""Subgame solving of a blueprint, measured exactly: unsafe, resolve, maxmargin and reach.

    python benchmarks/subgame.py                              # (a) Leduc and (b) reduced hold'em
    python benchmarks/subgame.py --part leduc --iterations 1000 --json
    python benchmarks/subgame.py --part holdem --ranks 5 --suits 2 --buckets 3,5

(a) Leduc: blueprints of several qualities (CFR after a few iterations, and a near-equilibrium
CFR+), the last round re-solved by each method (``cfrlab.subgame.resolve_strategy``, CFR+ for
--iterations per re-solve); the exact exploitability of the blueprint and of the combined
strategy. cfrlab's card abstractions are for two hole cards (hold'em style), so Leduc's
blueprints are all lossless; the card-abstracted blueprints are in (b).

(b) Reduced-deck limit hold'em (hold'em betting with blinds 2/1, --ranks x --suits cards, two
hole cards, boards --boards, at most --raises raises per round): the deck small enough that
the whole real game is enumerable, so the real-game exploitability of a card-abstracted
strategy is exact (the lossless engine's best response to it read with real cards, which is
``cfrlab.realgame.lift`` + ``exploit``). CFRk: the k-bucket E[HS^2] percentile abstraction
(perfect recall) solved by CFR+ for --blueprint-iterations; then its last round ("river")
re-solved with exact cards by each method.

JSON (last line with --json): ``leduc`` (rows: ``blueprint``, ``blueprint_exploitability``
and per method ``{exploitability, seconds}``, chips/g), ``holdem`` (``game``, rows:
``buckets``, ``abstract_exploitability`` (in its abstraction), ``real_exploitability``, per
method ``{exploitability, seconds}``, mbb/g).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import cfrlab
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.games import parse_game
from cfrlab.games.units import to_unit
from cfrlab.subgame import METHODS, resolve_strategy

LEDUC_BLUEPRINTS = (("cfr", 10), ("cfr", 30), ("cfr", 100), ("cfr", 300), ("cfr+", 3000))


def holdem_text(ranks: int, suits: int, boards: str, raises: int) -> str:
    n = len(boards.split())
    return (f"GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = {n}\nblind = 2 1\n"
            f"raiseSize = {' '.join(['2'] * n)}\nfirstPlayer = {' '.join(['2'] + ['1'] * (n - 1))}\n"
            f"maxRaises = {' '.join([str(raises)] * n)}\nnumSuits = {suits}\nnumRanks = {ranks}\n"
            f"numHoleCards = 2\nnumBoardCards = {boards}\nEND GAMEDEF\n")


def methods_row(blueprint, a: argparse.Namespace, unit_game) -> dict:
    row = {}
    for m in a.methods:
        t = time.perf_counter()
        r = resolve_strategy(blueprint, m, round="last", iterations=a.iterations)
        row[m] = {"exploitability": to_unit(unit_game, r.exploitability()),
                  "seconds": round(time.perf_counter() - t, 2)}
        row["_blueprint"] = to_unit(unit_game, r.blueprint_exploitability())
        print(f"  {m:9s} {row[m]['exploitability']:.6g}  ({row[m]['seconds']:.1f} s)", file=sys.stderr)
    return row


def leduc(a: argparse.Namespace) -> dict:
    g = cfrlab.load_game("leduc")
    rows = []
    for alg, n in LEDUC_BLUEPRINTS:
        s = cfrlab.solve(g, alg, iterations=n).strategy
        print(f"leduc {alg} {n}:", file=sys.stderr)
        row = methods_row(s, a, g)
        rows.append({"blueprint": f"{alg} {n}", "blueprint_exploitability": row.pop("_blueprint"), **row})
    return {"game": "leduc", "unit": "chips/g", "iterations": a.iterations, "rows": rows}


def holdem(a: argparse.Namespace) -> dict:
    g = parse_game(holdem_text(a.ranks, a.suits, a.boards, a.raises), name=f"holdem-{a.ranks}x{a.suits}")
    rows = []
    for b in a.buckets:
        t = time.perf_counter()
        model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, b), use_cache=False)
        res = cfrlab.solve(g, "cfr+", iterations=a.blueprint_iterations, abstraction=model)
        solve_s = time.perf_counter() - t
        print(f"holdem CFR{b} ({a.blueprint_iterations} CFR+ iterations, {solve_s:.0f} s):", file=sys.stderr)
        row = methods_row(res.strategy, a, g)
        rows.append({"buckets": b, "abstract_exploitability": to_unit(g, res.exploitability),
                     "real_exploitability": row.pop("_blueprint"), "solve_seconds": round(solve_s, 1), **row})
    return {"game": g.name, "definition": g.to_text(), "unit": "mbb/g", "iterations": a.iterations,
            "blueprint_iterations": a.blueprint_iterations, "rows": rows}


def table(part: dict, key: str, label: str, methods) -> str:
    head = f"| {label} | blueprint | " + " | ".join(methods) + " |"
    lines = [head, "|" + "---|" * (2 + len(methods))]
    for r in part["rows"]:
        bp = r.get("blueprint_exploitability", r.get("real_exploitability"))
        cells = [f"{r[m]['exploitability']:.4g}" for m in methods]
        lines.append(f"| {r[key]} | {bp:.4g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("leduc", "holdem", "both"), default="both")
    p.add_argument("--iterations", type=int, default=300, help="CFR+ iterations per re-solve")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--suits", type=int, default=2)
    p.add_argument("--boards", default="0 2 1")
    p.add_argument("--raises", type=int, default=2)
    p.add_argument("--buckets", default="2,3,5")
    p.add_argument("--blueprint-iterations", type=int, default=300)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    a.methods = [m.strip() for m in a.methods.split(",")]
    a.buckets = [int(b) for b in a.buckets.split(",")]
    out = {}
    if a.part in ("leduc", "both"):
        out["leduc"] = leduc(a)
        print(table(out["leduc"], "blueprint", "Leduc blueprint (chips/g)", a.methods))
    if a.part in ("holdem", "both"):
        out["holdem"] = holdem(a)
        print(table(out["holdem"], "buckets", f"{out['holdem']['game']} CFRk, k = (mbb/g)", a.methods))
    if a.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
