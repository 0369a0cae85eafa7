"""Which full-width CFR variant gets lowest fastest in a HULHE bucket abstraction: the same
iterations for each, exact exploitability (mbb/g) at fixed points, and seconds per iteration.

    python benchmarks/holdem_algorithms.py --abstraction out/holdem-limit-ehs2-perfect-5.npz
    python benchmarks/holdem_algorithms.py --abstraction out/b5.npz -a cfr+ -a dcfr -a dcfr:gamma=3 --json

An algorithm is a preset name, optionally with parameters (``dcfr:gamma=3,alpha=2``). Every
variant's iteration costs the same walk, so the iterations needed to reach a figure are what
tells them apart; at 10 buckets one iteration is half a minute, so this is measured at 5.
JSON (last line): ``{"abstraction", "runs": [{"algorithm", "params", "curve": [[it, s, mbb]]}]}``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def parse_variant(text: str) -> tuple[str, dict]:
    """``preset[:key=value,...]``; ValueError naming the bad part."""
    name, _, rest = text.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if key == "predictive":
            params[key] = value.lower() in ("1", "true", "yes")
            continue
        try:
            params[key] = float(value)
        except ValueError:
            raise ValueError(f"{text!r}: {item!r} is not key=number") from None
    return name, params


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--abstraction", type=Path, required=True)
    ap.add_argument("-a", "--algorithm", action="append", default=None,
                    help="preset[:key=value,...] (repeatable; default cfr+, dcfr, pcfr+)")
    ap.add_argument("--iterations", type=int, default=400)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from cfrlab.engine import load_abstraction
    from cfrlab.errors import CfrlabError
    from cfrlab.games import load_game
    from cfrlab.games.units import to_unit
    from cfrlab.solvers import PRESETS, make_solver
    from cfrlab.tree import build_tree

    texts = args.algorithm or ["cfr+", "dcfr", "pcfr+"]
    try:
        variants = [parse_variant(t) for t in texts]
    except ValueError as e:
        ap.error(str(e))
    for name, _ in variants:
        if PRESETS.get(name, PRESETS["cs"]).sampling != "full":
            ap.error(f"{name!r} is not a full-width preset ({', '.join(k for k, p in PRESETS.items() if p.sampling == 'full')})")
    try:
        g = load_game("holdem-limit")
        model = load_abstraction(args.abstraction, g)
    except CfrlabError as e:
        ap.error(str(e))
    tree = build_tree(g)
    make_solver(tree, model, "cfr+").iterate(1)  # compile once, outside every timing
    runs = []
    for text, (name, params) in zip(texts, variants):
        try:
            s = make_solver(tree, model, name, **params)
        except CfrlabError as e:
            ap.error(str(e))
        curve, spent = [], 0.0
        while s.iterations < args.iterations:
            t = time.perf_counter()
            s.iterate(min(args.eval_every, args.iterations - s.iterations))
            spent += time.perf_counter() - t
            mbb = to_unit(g, s.exploitability())
            curve.append([s.iterations, round(spent, 2), round(mbb, 4)])
            print(f"{text:>16}  it {s.iterations:5d}  {spent:7.1f} s  {mbb:9.3f} mbb/g", flush=True)
        runs.append({"algorithm": name, "params": params, "curve": curve})
        del s
    if args.json:
        print(json.dumps({"abstraction": str(args.abstraction), "runs": runs}))


if __name__ == "__main__":
    main()
