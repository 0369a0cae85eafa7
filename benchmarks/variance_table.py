"""The DIVAT variance table (Johanson 2007, section 2.2.2) for HULHE matchups, with AIVAT beside.

Usage: python benchmarks/variance_table.py [--hands 500000] [--strategy out/cfr5.npz]
           [--abstraction out/b5.npz] [--bonus out/bonus7.npz] [--counter out/counter] [--json]

Each matchup is a plain (not duplicate) match of ``--hands`` hands with a log; the log is
scored with money, showdown DIVAT, DIVAT and AIVAT (both strategies known). Prints a
Markdown table of means and standard deviations per hand in mbb/g (the thesis: money's
standard deviation is about 6 small bets a hand, 6,000 mbb/g, a small bet being a big
blind); ``--json`` one line per matchup. The family opponents
(loose, tight, passive) are built from CFR5 as in ``benchmarks/counter_table.py``; the RNR
and FBR counter-strategies come from its ``--save-strategies`` directory when present.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import tempfile
import time
from pathlib import Path

import cfrlab
from cfrlab.agents import make_agent
from cfrlab.evaluate.aivat import aivat_log
from cfrlab.evaluate.divat import divat_log
from cfrlab.evaluate.match import play_match
from cfrlab.games.units import to_unit

_spec = importlib.util.spec_from_file_location("counter_table", Path(__file__).with_name("counter_table.py"))
counter_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(counter_table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=500_000)
    ap.add_argument("--strategy", default="out/cfr5.npz")
    ap.add_argument("--abstraction", default="out/b5.npz")
    ap.add_argument("--bonus", default="out/bonus7.npz")
    ap.add_argument("--counter", default="out/counter")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    base = cfrlab.Strategy.load(args.strategy, model=args.abstraction)
    g = base.game

    def strat(name):
        if name == "cfr5":
            return base
        if name.startswith(("rnr-", "fbr-")):
            return cfrlab.Strategy.load(Path(args.counter) / f"{name}.npz", model=base.model)
        return counter_table.opponent(name, base, args.bonus)

    pairs = [("cfr5", "bonus7"), ("cfr5", "loose"), ("cfr5", "tight"), ("cfr5", "passive"), ("cfr5", "value"),
             ("cfr5", "always-call"), ("cfr5", "random"), ("rnr-tight", "tight"), ("fbr-tight", "tight"),
             ("rnr-loose", "loose")]
    rows = []
    for a_name, b_name in pairs:
        if a_name.startswith(("rnr-", "fbr-")) and not (Path(args.counter) / f"{a_name}.npz").exists():
            continue
        sa = strat(a_name)
        sb = strat(b_name) if b_name not in ("always-call", "random") else b_name
        A, B = make_agent(sa, g), make_agent(sb, g)
        log = Path(tempfile.mkdtemp()) / "m.log"
        t0 = time.perf_counter()
        play_match(g, A, B, args.hands, seed=args.seed, log=log, names=("A", "B"))
        d = divat_log(log, "A", g)
        av = aivat_log(log, "A", strategy=A, opponent=B, game=g)
        row = {"a": a_name, "b": b_name, "hands": d.hands, "seconds": time.perf_counter() - t0}
        for name, x in (("money", d.money), ("showdown_divat", d.showdown), ("divat", d.divat),
                        ("aivat", av.aivat)):
            row[name] = {"mean": to_unit(g, float(x.mean())), "std": to_unit(g, float(x.std()))}
        rows.append(row)
        print(json.dumps(row) if args.json else
              f"{a_name} vs {b_name}: " + ", ".join(f"{k} {row[k]['mean']:+.1f} (std {row[k]['std']:.0f})"
                                                     for k in ("money", "showdown_divat", "divat", "aivat")),
              flush=True)
    if not args.json:
        print("\n| matchup | money | std | showdown DIVAT std | DIVAT | std | AIVAT | std |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['a']} vs {r['b']} | {r['money']['mean']:+.1f} | {r['money']['std']:,.0f} | "
                  f"{r['showdown_divat']['std']:,.0f} | {r['divat']['mean']:+.1f} | {r['divat']['std']:,.0f} | "
                  f"{r['aivat']['mean']:+.1f} | {r['aivat']['std']:,.0f} |")


if __name__ == "__main__":
    main()
