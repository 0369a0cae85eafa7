"""Heads-up no-limit hold'em: the thesis's no-limit agent recipe (Johanson 2007, section 7.2.3:
E[HS^2] buckets, actions fold, call, pot and all-in) in ACPC's 200-big-blind game, solved,
played through action translation, and measured by local best response (Lisý and Bowling,
"Equilibrium approximation quality of current no-limit poker bots", 2017) and duplicate
matches against the bots.

    python benchmarks/nolimit.py --abstraction out/b8.npz --bets fcpa --seconds 5400 --out out/hunl-fcpa.npz
    python benchmarks/nolimit.py --strategy out/hunl-fcpa.npz --lbr-hands 20000 --match-hands 20000 --json

Steps (each skipped when its inputs say so): the sizes (nothing built); the card abstraction
(built with ``--buckets`` when ``--abstraction`` does not exist); the solve (CFR+ by default,
``--seconds`` of solver time, exploitability in the abstract game measured every
``--eval-every`` iterations, checkpointed beside ``--out``, so the same command continues a
stopped run); LBR in the paper's two settings (responder calls through the flop, then fold,
call, pot, all-in; and fold/call only) with duplicate deals and 95% intervals; duplicate
matches of the translated agent against the bots. JSON (last line with ``--json``): every
figure, with wall times and peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

# Lisý and Bowling 2017, Table 2 (mbb/g): LBR in the paper's first setting (calls preflop and
# on the flop, then fold / call / pot / all-in) and in the fold/call setting
PUBLISHED_LBR = {
    "Hyperborean 2014": (3852, 721),
    "Slumbot 2016": (4020, 522),
    "Act1 2016": (2597, 407),
    "always-fold": (750, 750),
}
BOTS = ("always-call", "always-raise", "random", "probe")


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def sizes_step(game: str, bets: str, buckets: int) -> dict:
    from cfrlab.abstraction.sizes import sizes
    from cfrlab.games import load_game

    sz = sizes(load_game(game), [buckets] * 4, "perfect", bets)
    keep = ("bets", "decision_nodes", "decision_nodes_by_round", "infosets", "solve_bytes")
    return {k: sz[k] for k in keep}


def abstraction_step(path: Path, game: str, buckets: int) -> dict:
    if path.exists():
        return {"file": str(path), "built": False}
    from cfrlab.abstraction.bucketed import BucketedModel
    from cfrlab.abstraction.buckets import BucketSpec
    from cfrlab.games import load_game

    g = load_game(game)
    t = time.perf_counter()
    spec = BucketSpec.make(g.num_rounds, buckets, "ehs2")
    model = BucketedModel.build(g, spec, progress=say)
    model.save(path)
    return {"file": str(path), "built": True, "seconds": round(time.perf_counter() - t, 1),
            "hash": model.hash[:16]}


def solve_step(args) -> dict:
    import cfrlab
    from cfrlab.games import load_game
    from cfrlab.games.units import format_unit

    g = load_game(args.game)
    out = Path(args.out)
    ck = out.with_name(out.stem + ".ckpt.npz")

    def tick(tk) -> None:
        if tk.exploitability is not None and tk.measured_at == tk.iterations:
            say(f"  it {tk.iterations:,}  {tk.solver_seconds:,.0f} s  {format_unit(g, tk.exploitability)}")

    t = time.perf_counter()
    r = cfrlab.solve(g, args.algorithm, seconds=args.seconds, target=args.target,
                     eval_every=args.eval_every, abstraction=str(args.abstraction), bets=args.bets,
                     checkpoint=ck, checkpoint_every=args.eval_every, progress=tick)
    r.strategy.save(out, overwrite=True)
    return {"strategy": str(out), "algorithm": args.algorithm, "iterations": r.iterations,
            "solver_seconds": round(r.seconds, 1), "wall_seconds": round(time.perf_counter() - t, 1),
            "exploitability_abstract": r.exploitability, "unit": r.unit,
            "curve": [[i, round(s, 1), e] for i, s, e in r.curve], "peak_rss_gb": round(peak_gb(), 2)}


def lbr_step(strategy: str, hands: int, workers: int, seed: int) -> list[dict]:
    from cfrlab.realgame import local_best_response

    rows = []
    for actions in ("fcpa", "fc"):
        t = time.perf_counter()
        res = local_best_response(strategy, "holdem-nolimit", hands=hands, seed=seed, actions=actions,
                                  workers=workers)
        wall = time.perf_counter() - t
        rows.append({"actions": actions, "mbb_g": round(res.value_unit, 1), "ci95": round(res.ci95_unit, 1),
                     "seats": [round(v * res.factor, 1) for v in res.seat_values], "hands": res.hands,
                     "seconds": round(wall, 1), "hands_per_minute": round(60 * res.hands / wall)})
        say(f"  LBR {actions}: {res.value_unit:,.0f} +- {res.ci95_unit:,.0f} mbb/g "
            f"({res.hands:,} hands, {60 * res.hands / wall:,.0f} hands/min)")
    return rows


def match_step(strategy: str, hands: int, seed: int, opponents) -> list[dict]:
    from cfrlab.agents import play_match

    rows = []
    for bot in opponents:
        t = time.perf_counter()
        m = play_match("holdem-nolimit", strategy, bot, hands, seed=seed, duplicate=True)
        e = m.overall()
        rows.append({"opponent": bot, "mean": round(e.mean, 1), "ci95": round(e.ci95, 1), "unit": e.unit,
                     "hands": hands, "seconds": round(time.perf_counter() - t, 1)})
        say(f"  vs {bot}: {e.mean:+,.0f} +- {e.ci95:,.0f} {e.unit} ({hands:,} hands)")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="holdem-nolimit")
    ap.add_argument("--bets", default="fcpa")
    ap.add_argument("--buckets", type=int, default=8)
    ap.add_argument("--abstraction", type=Path, default=Path("out/b8.npz"))
    ap.add_argument("--algorithm", default="cfr+")
    ap.add_argument("--seconds", type=float, default=None, help="solver budget (the solve is skipped without it)")
    ap.add_argument("--target", type=float, default=None, help="stop the solve at this mbb/g")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--out", default="out/hunl-fcpa.npz", help="the strategy file (and its checkpoint)")
    ap.add_argument("--strategy", default=None, help="measure this strategy file instead of solving")
    ap.add_argument("--lbr-hands", type=int, default=0)
    ap.add_argument("--match-hands", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    report: dict = {"game": a.game, "bets": a.bets, "buckets": a.buckets}
    t0 = time.perf_counter()
    report["sizes"] = sizes_step(a.game, a.bets, a.buckets)
    say(f"sizes: {report['sizes']}")
    strategy = a.strategy
    if strategy is None and a.seconds is not None:
        report["abstraction"] = abstraction_step(a.abstraction, a.game, a.buckets)
        report["solve"] = solve_step(a)
        strategy = report["solve"]["strategy"]
    if strategy is not None and a.lbr_hands:
        report["lbr"] = lbr_step(strategy, a.lbr_hands, a.workers, a.seed)
        report["lbr_published"] = PUBLISHED_LBR
    if strategy is not None and a.match_hands:
        report["matches"] = match_step(strategy, a.match_hands, a.seed, BOTS)
    report["wall_seconds"] = round(time.perf_counter() - t0, 1)
    report["peak_rss_gb"] = round(peak_gb(), 2)
    if a.json:
        print(json.dumps(report))
    else:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
