"""AIVAT against money (and DIVAT): means, 95% CIs, variance ratios and speed.

    python benchmarks/aivat.py [--hands N] [--game G] [--a SPEC] [--b SPEC] [--known both|a|b]
                               [--value auto|exact|calldown] [--json]

Plays a match (fast engine, not duplicate: the variance of single hands is what AIVAT
reduces) with a log, scores it with AIVAT from the known strategies and with DIVAT, and
prints one JSON line per estimator. With the defaults (Leduc, CFR+ 1,000 iterations against
CFR 10 iterations, 10^6 hands) the exact expected value is printed beside them; strategy
files (e.g. ``out/cfr5.npz``, with ``--abstraction out/b5.npz``) play hold'em.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import cfrlab
from cfrlab.agents import make_agent
from cfrlab.evaluate.aivat import aivat_log
from cfrlab.evaluate.divat import divat_log
from cfrlab.evaluate.match import play_match
from cfrlab.games import load_game
from cfrlab.games.units import to_unit

_MODELS: dict = {}


def _agent(spec: str, game, abstraction):
    if spec.startswith(("cfr+:", "cfr:")):
        algo, n = spec.split(":")
        return make_agent(cfrlab.solve(game, algo, iterations=int(n)).strategy, game), spec
    if spec.endswith(".npz"):
        s = cfrlab.Strategy.load(spec, model=_MODELS.get(abstraction, abstraction))
        _MODELS.setdefault(abstraction, s.model)  # one copy of the abstraction for both agents
        return make_agent(s, game), Path(spec).stem
    return make_agent(spec, game), spec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--game", default="leduc")
    ap.add_argument("--a", default="cfr+:1000")
    ap.add_argument("--b", default="cfr:10")
    ap.add_argument("--abstraction", default=None)
    ap.add_argument("--known", default="both", choices=["both", "a", "b"])
    ap.add_argument("--value", default="auto", choices=["auto", "exact", "calldown"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    game = load_game(args.game)
    a, la = _agent(args.a, game, args.abstraction)
    b, lb = _agent(args.b, game, args.abstraction)
    log = Path(tempfile.mkdtemp()) / "m.log"
    t0 = time.perf_counter()
    r = play_match(game, a, b, args.hands, seed=args.seed, log=log, names=("A", "B"), exact=True)
    t_match = time.perf_counter() - t0
    known = {"strategy": a if args.known in ("both", "a") else None,
             "opponent": b if args.known in ("both", "b") else None, "value": args.value}
    t0 = time.perf_counter()
    av = aivat_log(log, "A", **known, game=game)
    t_first = time.perf_counter() - t0  # loads the kernels (and hold'em's preflop table)
    t0 = time.perf_counter()
    av = aivat_log(log, "A", **known, game=game)
    t_aivat = time.perf_counter() - t0
    t0 = time.perf_counter()
    dv = divat_log(log, "A", game)
    t_divat = time.perf_counter() - t0
    rows = []
    est = {**av.estimates(), "showdown_divat": dv.estimates()["showdown_divat"], "divat": dv.estimates()["divat"]}
    ratios = {**av.variance_ratios(), **dv.variance_ratios(), "money": 1.0}
    for name, e in est.items():
        rows.append({"game": game.name, "a": la, "b": lb, "known": args.known, "value": args.value, "hands": av.hands,
                     "estimator": name, "mean": to_unit(game, e.mean), "ci95": to_unit(game, e.ci95),
                     "std": to_unit(game, e.std), "variance_ratio": ratios[name],
                     "exact": to_unit(game, r.exact_chips) if r.exact_chips is not None else None})
    speed = {"match_seconds": t_match, "aivat_first_seconds": t_first, "aivat_seconds": t_aivat, "aivat_hands_per_s": av.hands / t_aivat,
             "divat_seconds": t_divat}
    for row in rows:
        print(json.dumps(row) if args.json else
              f"{row['estimator']:15s} {row['mean']:+10.4f} +/- {row['ci95']:.4f}  std {row['std']:9.4f}  "
              f"variance / {row['variance_ratio']:.2f}" + (f"  exact {row['exact']:+.4f}" if row["exact"] is not None else ""))
    print(json.dumps(speed) if args.json else
          f"AIVAT over the log {t_aivat:.1f} s ({av.hands / t_aivat:,.0f} hands/s, log reading included; "
          f"first call {t_first:.1f} s); "
          f"DIVAT {t_divat:.1f} s; match {t_match:.1f} s")


if __name__ == "__main__":
    main()
