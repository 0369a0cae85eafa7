"""N-player CFR (cfrlab.engine.nplayer, cfrlab.solvers.nplayer) against OpenSpiel's C++ CFR on 3-player Kuhn and Leduc.

    python benchmarks/multiplayer.py                # both games, all algorithms
    python benchmarks/multiplayer.py --json         # last line: one JSON object
    python benchmarks/multiplayer.py --games kuhn-3p --openspiel-leduc 1000   # no extrapolation

For each game and algorithm (cfr, cfr-alt, cfr+, lcfr, dcfr): NashConv (chips, exact) against
iterations and solver seconds. OpenSpiel's ``pyspiel.CFRSolver`` (vanilla CFR, alternating
updates) runs in the same process; its NashConv after 1,000 iterations is the target, and for
each cfrlab algorithm the benchmark reports the solver seconds to reach it (checked after
every step of a 10%-growing schedule, so an upper bound) and the ratio to OpenSpiel's time.

Leduc-3p: OpenSpiel takes about 7 s per iteration, so by default it runs ``--openspiel-leduc``
(3) iterations: its time for 1,000 is that rate times 1,000, and its NashConv after 1,000 is
cfrlab's ``cfr-alt`` after 1,000, the same algorithm: the benchmark checks that the two
average policies agree (to 1e-12) after the iterations OpenSpiel did run.
Monte Carlo CFR (``es`` external sampling, ``cs`` chance sampling; ``--seed``): NashConv against
iterations and seconds at ``SAMPLED_POINTS``, and the solver seconds to reach the same target
(checked on a 25%-growing schedule from 1,000 iterations, at most ``--sampled-seconds`` of
solving), in ``sampled_curves`` and ``sampled_to_target``.

JSON keys: ``games`` -> game -> ``openspiel`` {iterations_run, seconds_per_iteration,
seconds_1000, nash_conv_1000, extrapolated, agreement}, ``curves`` (algorithm -> list of
{iterations, seconds, nash_conv}), ``to_target`` (algorithm -> {iterations, seconds, speedup}),
``sampled_curves`` / ``sampled_to_target`` (the same for es and cs, with ``seed`` and
``iterations_per_second``).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyspiel

from cfrlab.engine.nplayer import get_engine
from cfrlab.interop.openspiel_nplayer import from_openspiel, load_openspiel_game
from cfrlab.solvers.nmccfr import NSampledSolver
from cfrlab.solvers.nplayer import NSolver

ALGORITHMS = ["cfr", "cfr-alt", "cfr+", "lcfr", "dcfr"]
CURVE_POINTS = {"kuhn-3p": [1, 10, 30, 100, 300, 1000, 3000, 10000], "leduc-3p": [1, 10, 30, 100, 300]}
TARGET_LIMIT = {"kuhn-3p": 100_000, "leduc-3p": 3000}  # iterations at most while chasing the target
SAMPLED = ["es", "cs"]
SAMPLED_POINTS = {"kuhn-3p": [1000, 10_000, 100_000, 1_000_000], "leduc-3p": [1000, 10_000, 100_000]}


def warm_up(game: str) -> None:
    for alg in ALGORITHMS:
        s = NSolver(game, alg)
        s.iterate(1)
        get_engine(game).nash_conv(s.average_policy())


def curve(game: str, alg: str, points: list[int]) -> list[dict]:
    s = NSolver(game, alg)
    e = s.engine
    out = []
    for n in points:
        s.iterate(n - s.iterations)
        out.append({"iterations": n, "seconds": s.seconds, "nash_conv": e.nash_conv(s.average_policy())})
    return out


def to_target(game: str, alg: str, target: float, limit: int) -> dict:
    s = NSolver(game, alg)
    e = s.engine
    n = 1
    while s.iterations < limit:
        s.iterate(n - s.iterations)
        nc = e.nash_conv(s.average_policy())
        if nc <= target:
            return {"iterations": s.iterations, "seconds": s.seconds, "nash_conv": nc}
        n = max(n + 1, int(n * 1.1))
    return {"iterations": None, "seconds": None, "nash_conv": None, "limit": limit}


def sampled_curve(game: str, alg: str, points: list[int], seed: int) -> list[dict]:
    s = NSampledSolver(game, alg, seed=seed)
    e = s.engine
    out = []
    for n in points:
        s.iterate(n - s.iterations)
        out.append({"iterations": n, "seconds": s.seconds, "nash_conv": e.nash_conv(s.average_policy()),
                    "iterations_per_second": n / s.seconds})
    return out


def sampled_to_target(game: str, alg: str, target: float, seed: int, max_seconds: float) -> dict:
    s = NSampledSolver(game, alg, seed=seed)
    e = s.engine
    n = 1000
    while s.seconds < max_seconds:
        s.iterate(n - s.iterations)
        nc = e.nash_conv(s.average_policy())
        if nc <= target:
            return {"iterations": s.iterations, "seconds": s.seconds, "nash_conv": nc, "seed": seed}
        n = int(n * 1.25)
    return {"iterations": None, "seconds": None, "nash_conv": nc, "seed": seed, "limit_seconds": max_seconds,
            "iterations_run": s.iterations}


def openspiel_run(game: str, iterations: int) -> dict:
    """OpenSpiel's CFR for ``iterations``; its time and NashConv (exact, cfrlab's evaluation:
    tests/test_multiplayer_openspiel.py checks it equals pyspiel.nash_conv)."""
    os_game = load_openspiel_game(game)
    solver = pyspiel.CFRSolver(os_game)
    start = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    seconds = time.perf_counter() - start
    policy = from_openspiel(solver.average_policy(), game)
    return {"iterations": iterations, "seconds": seconds, "policy": policy,
            "nash_conv": get_engine(game).nash_conv(policy)}


def bench_game(game: str, os_iterations: int, log, seed: int = 0, sampled_seconds: float = 60.0) -> dict:
    warm_up(game)
    for alg in SAMPLED:
        NSampledSolver(game, alg, seed=seed).iterate(1)
    os = openspiel_run(game, os_iterations)
    rate = os["seconds"] / os_iterations
    info = {"iterations_run": os_iterations, "seconds_per_iteration": rate, "seconds_1000": rate * 1000,
            "extrapolated": os_iterations != 1000}
    if os_iterations == 1000:
        info["nash_conv_1000"] = os["nash_conv"]
        info["agreement"] = None
    else:
        twin = NSolver(game, "cfr-alt")
        twin.iterate(os_iterations)
        info["agreement"] = float(np.abs(twin.average_policy() - os["policy"]).max())
        twin.iterate(1000 - os_iterations)
        info["nash_conv_1000"] = get_engine(game).nash_conv(twin.average_policy())
    log(f"\n{game}: OpenSpiel CFR {os_iterations} iterations in {os['seconds']:.2f} s "
        f"({rate * 1e3:.3f} ms/iteration); NashConv after 1,000: {info['nash_conv_1000']:.6g}"
        + (f" (cfrlab cfr-alt, agrees with OpenSpiel's {os_iterations} iterations to {info['agreement']:.1e}; "
           f"time for 1,000 extrapolated: {info['seconds_1000']:.1f} s)" if info["extrapolated"] else ""))
    curves = {}
    for alg in ALGORITHMS:
        curves[alg] = curve(game, alg, CURVE_POINTS[game])
        pts = "  ".join(f"{c['iterations']}:{c['nash_conv']:.3g}" for c in curves[alg])
        log(f"  {alg:8s} NashConv by iterations  {pts}  ({curves[alg][-1]['seconds']:.3f} s)")
    reach = {}
    for alg in ALGORITHMS:
        r = to_target(game, alg, info["nash_conv_1000"], TARGET_LIMIT[game])
        if r["seconds"]:
            r["speedup"] = info["seconds_1000"] / r["seconds"]
            log(f"  {alg:8s} reaches OpenSpiel's NashConv@1000 ({info['nash_conv_1000']:.4g}) after "
                f"{r['iterations']} iterations, {r['seconds'] * 1e3:.2f} ms: {r['speedup']:,.0f}x sooner")
        else:
            r["speedup"] = None
            log(f"  {alg:8s} does not reach it within {TARGET_LIMIT[game]} iterations")
        reach[alg] = r
    s_curves, s_reach = {}, {}
    for alg in SAMPLED:
        s_curves[alg] = c = sampled_curve(game, alg, SAMPLED_POINTS[game], seed)
        pts = "  ".join(f"{x['iterations']}:{x['nash_conv']:.3g}" for x in c)
        log(f"  {alg:8s} NashConv by iterations  {pts}  ({c[-1]['seconds']:.3f} s, "
            f"{c[-1]['iterations_per_second']:,.0f} it/s, seed {seed})")
    for alg in SAMPLED:
        r = sampled_to_target(game, alg, info["nash_conv_1000"], seed, sampled_seconds)
        if r["seconds"]:
            r["speedup"] = info["seconds_1000"] / r["seconds"]
            log(f"  {alg:8s} reaches OpenSpiel's NashConv@1000 ({info['nash_conv_1000']:.4g}) after "
                f"{r['iterations']:,} iterations, {r['seconds']:.3f} s: {r['speedup']:,.2f}x OpenSpiel's speed")
        else:
            r["speedup"] = None
            log(f"  {alg:8s} does not reach it within {sampled_seconds:g} s of solving "
                f"({r['iterations_run']:,} iterations, NashConv {r['nash_conv']:.4g})")
        s_reach[alg] = r
    return {"openspiel": info, "curves": curves, "to_target": reach, "sampled_curves": s_curves,
            "sampled_to_target": s_reach}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["kuhn-3p", "leduc-3p"])
    ap.add_argument("--openspiel-leduc", type=int, default=3, help="OpenSpiel CFR iterations run on leduc-3p")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sampling solvers (es, cs)")
    ap.add_argument("--sampled-seconds", type=float, default=60.0,
                    help="solver seconds at most for es / cs chasing OpenSpiel's NashConv@1000")
    ap.add_argument("--json", action="store_true", help="last line: one JSON object")
    a = ap.parse_args()
    out = {"games": {}}
    for game in a.games:
        n = 1000 if game == "kuhn-3p" else a.openspiel_leduc
        out["games"][game] = bench_game(game, n, print, a.seed, a.sampled_seconds)
    if a.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
