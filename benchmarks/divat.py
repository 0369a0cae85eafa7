"""DIVAT speed and variance: hands/s of the DIVAT kernel on HULHE, and the estimators' means,
95% CIs and variance ratios over a match between two fixed bots.

    python benchmarks/divat.py [--hands N] [--game G] [--a BOT] [--b BOT] [--json]

The match log is written by cfrlab's fast match engine, then read with ``divat_log``;
``kernel_hands_per_s`` times the kernel alone on the parsed arrays (second run: compiled),
``end_to_end_hands_per_s`` includes reading the log. The first hold'em run builds the
preflop equity table once (cached under the cfrlab cache directory).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from cfrlab.agents import make_agent
from cfrlab.evaluate.divat import _Reader, _run, divat_log, divat_tables
from cfrlab.evaluate.match import play_match
from cfrlab.games import load_game
from cfrlab.games.units import to_unit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--game", default="holdem-limit")
    ap.add_argument("--a", default="value:0.7,0.4")
    ap.add_argument("--b", default="probe")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    game = load_game(args.game)
    t0 = time.perf_counter()
    tables = divat_tables(game)
    t_tables = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "m.log"
        a, b = make_agent(args.a, game), make_agent(args.b, game)
        t0 = time.perf_counter()
        r = play_match(game, a, b, args.hands, seed=args.seed, log=log)
        t_match = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = divat_log(log, r.names[0], game)
        t_e2e = time.perf_counter() - t0
        holes, boards, paths, _pos, _v = _Reader(tables).read(log, r.names[0])
    t0 = time.perf_counter()
    _run(tables, holes, boards, paths)
    t_kernel = time.perf_counter() - t0
    est = res.estimates()
    ratios = res.variance_ratios()
    out = {"game": game.name, "hands": res.hands, "a": r.names[0], "b": r.names[1],
           "tables_s": t_tables, "match_s": t_match,
           "kernel_hands_per_s": res.hands / t_kernel, "end_to_end_hands_per_s": res.hands / t_e2e,
           "estimators": {k: {"mean": to_unit(game, e.mean), "ci95": to_unit(game, e.ci95),
                              "std": to_unit(game, e.std)} for k, e in est.items()},
           "variance_ratio": ratios,
           "money_minus_divat_mean": to_unit(game, float(np.mean(res.money - res.divat)))}
    if args.json:
        print(json.dumps(out))
        return
    print(f"{game.name}: {res.hands} hands of {r.names[0]} vs {r.names[1]}")
    print(f"  tables {t_tables:.1f} s, match {t_match:.1f} s")
    print(f"  DIVAT kernel {out['kernel_hands_per_s']:,.0f} hands/s, with log reading "
          f"{out['end_to_end_hands_per_s']:,.0f} hands/s")
    for k, e in out["estimators"].items():
        extra = "" if k == "money" else f"   variance / {ratios[k]:.2f}"
        print(f"  {k:15s} {e['mean']:+10.2f} +/- {e['ci95']:.2f}   std {e['std']:.1f}{extra}")


if __name__ == "__main__":
    main()
