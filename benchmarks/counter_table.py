"""HULHE counter-strategy tables: the thesis's Tables 4.2 (FBR) and 5.1 (RNR) over a family of opponents.

Usage: python benchmarks/counter_table.py [--strategy out/cfr5.npz] [--abstraction out/b5.npz]
           [--bonus out/bonus7.npz] [--opponents loose,tight,passive,bonus7,value]
           [--hands 100000] [--rnr-iterations 150] [--match 200000] [--save-models DIR] [--save-strategies DIR] [--json]

The family (each reproducible from CFR5 and this command): "loose" (every CFR5 row moved
halfway to check/call), "tight" (halfway to fold wherever folding is legal), "passive" (three
quarters of every raise turned into a call), "bonus7" (the 7% winner's bonus equilibrium:
`cfrlab counter perturbed holdem-limit --bonus 0.07 -n 475 --abstraction out/b5.npz --out
out/bonus7.npz`) and "value" (the rule bot `value:0.7,0.4`: raise above 70% hand strength,
call above 40%). For each, a model is built from ``--hands`` hands of it against the random
bot, then the FBR and the RNR (p = 0.5, ``--rnr-iterations`` of CFR+) counter-strategies.
Every counter-strategy and CFR5 play duplicate matches of ``--match`` deals against every
opponent; values in mbb/g with 95% confidence intervals, beside each one's exploitability in
the abstraction. Prints a Markdown table; ``--json``: the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

import cfrlab
from cfrlab.counter import build_model, fbr, rnr

FAMILY = ("loose", "tight", "passive", "bonus7", "value")


def _moved(base, column: int | None, weight: float, raise_to_call: float = 0.0):
    """CFR5 with each legal row mixed with a pure action (``column``) or raises turned into calls."""
    legal = np.repeat(base.tree.legal, np.diff(base.row_offset), axis=0)
    pol = base.policy.copy()
    if column is not None:
        target = np.zeros_like(pol)
        target[:, column] = 1.0
        ok = legal[:, column]
        pol[ok] = (1 - weight) * pol[ok] + weight * target[ok]
    if raise_to_call:
        moved = pol[:, 2] * raise_to_call
        pol[:, 2] -= moved
        pol[:, 1] += moved
    pol = np.where(legal, pol, 0.0)
    pol /= pol.sum(axis=1, keepdims=True)
    return cfrlab.Strategy.from_policy(base.game, pol, tree=base.tree, model=base.model)


def opponent(name: str, base, bonus_file: str):
    if name == "loose":
        return _moved(base, 1, 0.5)
    if name == "tight":
        return _moved(base, 0, 0.5)
    if name == "passive":
        return _moved(base, None, 0.0, raise_to_call=0.75)
    if name == "bonus7":
        return cfrlab.Strategy.load(bonus_file, model=base.model)
    if name == "value":
        return "value:0.7,0.4"
    raise SystemExit(f"unknown opponent {name!r} (known: {', '.join(FAMILY)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="out/cfr5.npz")
    ap.add_argument("--abstraction", default="out/b5.npz")
    ap.add_argument("--bonus", default="out/bonus7.npz")
    ap.add_argument("--opponents", default=",".join(FAMILY))
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--rnr-iterations", type=int, default=150)
    ap.add_argument("--match", type=int, default=200_000)
    ap.add_argument("--save-models", metavar="DIR", default=None,
                    help="also write each opponent's model here (DIR/model-NAME.npz: for cfrlab counter sweep)")
    ap.add_argument("--save-strategies", metavar="DIR", default=None,
                    help="also write the counter-strategies here (DIR/fbr-NAME.npz, DIR/rnr-NAME.npz: for teams)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    base = cfrlab.Strategy.load(args.strategy, model=args.abstraction or None)
    mbb = 1000.0 / max(base.game.blind)
    names = [n.strip() for n in args.opponents.split(",") if n.strip()]
    opponents = {n: opponent(n, base, args.bonus) for n in names}
    rows = {"cfr5": base}
    seconds = {}
    with tempfile.TemporaryDirectory() as d:
        for name, opp in opponents.items():
            t0 = time.perf_counter()
            log = Path(d) / f"{name}.log"
            cfrlab.play_match(base.game, opp, "random", args.hands, seed=11, log=log, names=("target", "field"))
            model = build_model([log], base.game, "target", abstraction=base.model)
            if args.save_models:
                Path(args.save_models).mkdir(parents=True, exist_ok=True)
                model.save(Path(args.save_models) / f"model-{name}.npz", overwrite=True)
            rows[f"fbr-{name}"] = fbr(model).strategy
            rows[f"rnr-{name}"] = rnr(model, 0.5, iterations=args.rnr_iterations).strategy
            if args.save_strategies:
                Path(args.save_strategies).mkdir(parents=True, exist_ok=True)
                for kind in ("fbr", "rnr"):
                    rows[f"{kind}-{name}"].save(Path(args.save_strategies) / f"{kind}-{name}.npz", overwrite=True)
            seconds[name] = time.perf_counter() - t0
            print(f"{name}: model of {model.info()['infosets_seen']:,} information sets seen; "
                  f"FBR and RNR in {seconds[name]:.0f} s", flush=True)
    table = {}
    for rn, s in rows.items():
        line = {"exploitability_mbb": cfrlab.exploit(s).exploitability}
        for on, o in opponents.items():
            est = cfrlab.play_match(base.game, s, o, args.match, seed=5, duplicate=True).overall("chips/g")
            line[on] = [est.mean * mbb, est.ci95 * mbb]
        table[rn] = line
        cells = "  ".join(f"{on} {line[on][0]:+8.1f} +- {line[on][1]:4.1f}" for on in opponents)
        print(f"{rn:14s} {cells}  exploitability {line['exploitability_mbb']:8.1f}", flush=True)
    print()
    print("| counter-strategy | " + " | ".join(f"vs {n}" for n in opponents) + " | exploitability |")
    print("|---|" + "---|" * (len(opponents) + 1))
    for rn, line in table.items():
        cells = []
        for on in opponents:
            m, c = line[on]
            cell = f"{m:+.1f} ± {c:.1f}"
            cells.append(f"**{cell}**" if rn.endswith(f"-{on}") else cell)
        print(f"| {rn} | " + " | ".join(cells) + f" | {line['exploitability_mbb']:,.1f} |")
    if args.json:
        print(json.dumps({"table": table, "seconds": seconds, "hands": args.hands,
                          "rnr_iterations": args.rnr_iterations, "match": args.match}))


if __name__ == "__main__":
    main()
