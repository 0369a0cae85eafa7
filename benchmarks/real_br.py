"""Real-game best response of a HULHE strategy (cfrlab.realgame): per-unit time, projection.

    python benchmarks/real_br.py                                  # CFR5, 2 units, 1 worker
    python benchmarks/real_br.py --units 4 --workers 2 --json     # last line: one JSON object
    python benchmarks/real_br.py --strategy always-fold           # a bot (card-independent)
    python benchmarks/real_br.py --unit-ids 877 --json            # given units (one per flop type)
    python benchmarks/real_br.py --precision float64 --json       # the exact float64 lanes

A full best response is 1,755 units (one per class of flops under suit isomorphism); this
measures a few of them, spread over the unit list, and projects the full run. Units differ
in size (a flop with suit symmetry shares its turns' and rivers' walks: 675 river boards for
a monotone flop, 2,352 with none), so the projection counts river boards:
``projected_seconds = measured seconds per river board * river boards of all units /
workers``. With one worker (the default) the units run in this process and are timed in CPU
seconds (``time.process_time``: other jobs on a shared machine do not count), and the
projection is for ``--cores`` workers (default 2, this machine's cores) each as fast:
``projected_seconds = CPU seconds per river board * river boards / cores``. When every flop
type (rainbow, two-tone, monotone: the suits of the flop) has a measured unit, each type's
river boards are projected at its own rate (``by_type``). With more workers
the units' wall seconds are used instead. Peak memory is the largest resident set among this
process and its workers.
JSON keys: ``strategy``, ``precision``, ``units``, ``measured_units``, ``unit_seconds`` (unit -> s),
``unit_boards`` (unit -> river boards), ``mean_unit_seconds``, ``seconds_per_board``,
``boards`` (all units), ``workers``, ``clock`` ("cpu" or "wall": what ``unit_seconds``
measure), ``cores``, ``wall_seconds``, ``projected_seconds``,
``projected_hours``, ``projected_hours_by_nodes`` (N nodes of 2 cores -> hours, plus the
longest measured unit for the tail), ``peak_rss_gb``, ``target_hours`` (8), ``unit_types``
(unit -> flop type), ``by_type`` (type -> units, river boards of all its units, measured
seconds per board or null).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from cfrlab.games import load_game
from cfrlab.realgame import AgentSpec, StrategyFile, real_best_response
from cfrlab.realgame.hands import first_round_units, last_round_boards, make_deck

TARGET_HOURS = 8.0  # issue 30
TYPES = {1: "monotone", 2: "two-tone", 3: "rainbow"}


def flop_type(board, num_suits: int) -> str:
    """rainbow, two-tone or monotone: how many suits the flop's cards have."""
    return TYPES[len({c % num_suits for c in board})]


def peak_gb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1e6  # kB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="out/cfr5.npz", help="strategy file or bot name")
    ap.add_argument("--abstraction", default=None, help="its abstraction file (default: beside it)")
    ap.add_argument("--game", default="holdem-limit")
    ap.add_argument("--units", type=int, default=2, help="units to measure")
    ap.add_argument("--unit-ids", type=int, nargs="+", default=None,
                    help="measure these units (indices of the unit list) instead")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cores", type=int, default=2, help="with 1 worker: cores the projection assumes")
    ap.add_argument("--precision", default="float32", choices=("float64", "float32"),
                    help="the last round's lanes (default float32, as the full CFR5 run: 1.7x "
                         "faster than float64, values within ~1e-7 of the largest)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    g = load_game(a.game)
    t0 = time.perf_counter()
    if Path(a.strategy).suffix == ".npz":
        src = StrategyFile(a.strategy, a.abstraction)
        opponent = src if a.workers > 1 else src.load(g)
        symmetric = True  # bucketed strategies are; a lossless HULHE strategy cannot exist
    else:
        opponent = AgentSpec(a.strategy)
        symmetric = True
    load_s = time.perf_counter() - t0
    deck = make_deck(g)
    all_units = first_round_units(g, deck, symmetric)
    n_all = len(all_units)
    step = max(1, n_all // max(1, a.units))
    pick = [min(n_all - 1, i * step + step // 2) for i in range(a.units)]
    if a.unit_ids:
        pick = list(a.unit_ids)

    cpu_marks = [time.process_time()]  # with one worker: CPU time at each unit's end

    def progress(done, total, elapsed, eta):
        cpu_marks.append(time.process_time())
        print(f"  {done}/{total} units, {elapsed:.0f} s", flush=True)

    t1 = time.perf_counter()
    r = real_best_response(opponent, g, workers=a.workers, units=pick, progress=progress,
                           precision=a.precision)
    wall = time.perf_counter() - t1
    secs = {int(k): float(v) for k, v in r.unit_seconds.items()}
    clock, per = "wall", a.workers
    if a.workers == 1:  # units ran in pick order, one progress call after each
        cpu = [b - c for b, c in zip(cpu_marks[2:], cpu_marks[1:])]
        secs = {u: cpu[k] for k, u in enumerate(pick)}
        clock, per = "cpu", a.cores
    mean = sum(secs.values()) / len(secs)
    unit_boards = {u: last_round_boards(g, deck, all_units[u], symmetric) for u in secs}
    per_board = sum(secs.values()) / sum(unit_boards.values())
    all_boards = [last_round_boards(g, deck, u, symmetric) for u in all_units]
    boards = sum(all_boards)
    types = [flop_type(u.board, deck.num_suits) for u in all_units]
    by_type = {}
    for t in TYPES.values():
        mine = [u for u in secs if types[u] == t]
        rate = sum(secs[u] for u in mine) / sum(unit_boards[u] for u in mine) if mine else None
        by_type[t] = {"units": types.count(t), "boards": sum(b for b, x in zip(all_boards, types) if x == t),
                      "measured_units": sorted(mine), "seconds_per_board": rate}
    if all(v["seconds_per_board"] is not None for v in by_type.values()):
        projected = sum(v["seconds_per_board"] * v["boards"] for v in by_type.values()) / per
    else:
        projected = per_board * boards / per
    # N Ray nodes of this machine's kind (2 cores, one worker per core): the units are
    # independent, so the walk divides by 2N; the longest unit bounds the tail
    longest = max(secs.values())
    by_nodes = {n: (per_board * boards / (2 * n) + longest) / 3600 for n in (1, 2, 4, 8, 16)}
    out = {
        "strategy": a.strategy,
        "precision": a.precision,
        "units": r.units,
        "measured_units": sorted(secs),
        "unit_seconds": secs,
        "unit_boards": unit_boards,
        "mean_unit_seconds": mean,
        "seconds_per_board": per_board,
        "boards": boards,
        "workers": a.workers,
        "clock": clock,
        "cores": per,
        "load_seconds": load_s,
        "wall_seconds": wall,
        "projected_seconds": projected,
        "projected_hours": projected / 3600,
        "projected_hours_by_nodes": by_nodes,
        "peak_rss_gb": peak_gb(),
        "target_hours": TARGET_HOURS,
        "unit_types": {u: types[u] for u in secs},
        "by_type": by_type,
    }
    print(f"{a.strategy}: {len(secs)} of {r.units:,} units, mean {mean:.1f} {clock} s per unit, "
          f"{1e3 * per_board:.1f} ms per river board; {boards:,} river boards in all: projected "
          f"full run on {per} core(s) {projected / 3600:.1f} h "
          f"(target {TARGET_HOURS:g} h); peak memory {out['peak_rss_gb']:.2f} GB")
    for t, v in by_type.items():
        rate = "not measured" if v["seconds_per_board"] is None else f"{1e3 * v['seconds_per_board']:.1f} ms per river board"
        print(f"  {t}: {v['units']:,} units, {v['boards']:,} river boards; {rate}")
    print("  on N Ray nodes of 2 cores: " + ", ".join(f"{n}: {h:.1f} h" for n, h in by_nodes.items()))
    if a.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
