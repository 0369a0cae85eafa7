"""Local best response (cfrlab.realgame.lbr) speed: hands per second against a HULHE strategy.

    python benchmarks/lbr.py                                   # CFR5 (out/cfr5.npz), 2,000 hands
    python benchmarks/lbr.py --hands 4000 --workers 2 --json   # last line: one JSON object
    python benchmarks/lbr.py --strategy always-call            # a bot (card-independent)

One worker: the responder is built once (``setup_seconds``: loading the strategy and its
abstraction), warmed up (``warmup_seconds``: compiling or loading the kernels and the preflop
equities of the 169 hand classes, computed once per process), then timed over ``--hands`` hands
(``hands_per_second``, ``hands_per_minute``; ``cpu_seconds`` is this process's CPU time over the
timed part, which a busy machine does not inflate). Several workers: one timed call of
``local_best_response`` with every worker's own set-up and warm-up inside it. The target is
10,000 hands a minute. JSON keys: ``strategy``, ``hands``, ``workers``, ``call_rounds``,
``setup_seconds``, ``warmup_seconds``, ``seconds``, ``cpu_seconds``, ``hands_per_second``,
``hands_per_minute``, ``hands_per_cpu_minute``, ``lbr``, ``ci95``, ``unit``, ``target_hands_per_minute``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cfrlab.engine import build_tree_for
from cfrlab.games import load_game
from cfrlab.games.units import display_factor, unit_of
from cfrlab.realgame.br import AgentSpec, StrategyFile
from cfrlab.realgame.lbr import Z95, LocalBestResponse, local_best_response
from cfrlab.realgame.opponents import batch_policy_of

TARGET = 10000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="out/cfr5.npz", help="strategy file or bot name")
    ap.add_argument("--abstraction", default=None, help="its abstraction file (default: beside it)")
    ap.add_argument("--game", default="holdem-limit")
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--call-rounds", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    g = load_game(a.game)
    t0 = time.perf_counter()
    src = (StrategyFile(a.strategy, a.abstraction) if Path(a.strategy).suffix == ".npz"
           else AgentSpec(a.strategy))
    deals = (a.hands + 1) // 2
    factor = display_factor(g)
    if a.workers <= 1:
        opp = src.load(g)
        tree = build_tree_for(g)
        lbr = LocalBestResponse(g, tree, batch_policy_of(opp, tree), call_rounds=a.call_rounds)
        setup = time.perf_counter() - t0
        t1 = time.perf_counter()
        if a.call_rounds == 0:
            for h in range(lbr.H):
                lbr.equity(h, 0, ())
        lbr.play(a.seed + 1, 0, 5)
        warm = time.perf_counter() - t1
        t2, c2 = time.perf_counter(), time.process_time()
        w = lbr.play(a.seed, 0, deals)
        secs, cpu = time.perf_counter() - t2, time.process_time() - c2
        pair = w.mean(axis=1)
        value = float(pair.mean())
        ci = Z95 * float(pair.std(ddof=1)) / len(pair) ** 0.5 if len(pair) > 1 else float("inf")
    else:
        setup = warm = 0.0
        t2, c2 = time.perf_counter(), time.process_time()
        r = local_best_response(src, g, hands=a.hands, seed=a.seed, call_rounds=a.call_rounds,
                                workers=a.workers)
        secs, cpu = time.perf_counter() - t2, None
        value, ci = r.value, r.ci95
    hands = 2 * deals
    out = {
        "strategy": a.strategy, "hands": hands, "workers": a.workers,
        "call_rounds": a.call_rounds, "setup_seconds": setup, "warmup_seconds": warm,
        "seconds": secs, "cpu_seconds": cpu, "hands_per_second": hands / secs,
        "hands_per_minute": 60 * hands / secs,
        "hands_per_cpu_minute": 60 * hands / cpu if cpu else None,
        "lbr": value * factor, "ci95": ci * factor, "unit": unit_of(g),
        "target_hands_per_minute": TARGET,
    }
    print(f"{a.strategy}: {hands:,} hands in {secs:.1f} s = {out['hands_per_second']:.0f} hands/s, "
          f"{out['hands_per_minute']:,.0f} hands/min ({a.workers} worker(s); target {TARGET:,}); "
          f"LBR {value * factor:.1f} ± {ci * factor:.1f} {unit_of(g)}")
    if a.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
