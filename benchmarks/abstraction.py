"""Card abstraction of HULHE on the full deck: metric tables, then E[HS^2] percentile
perfect-recall abstractions with their exact joint tables.

    python benchmarks/abstraction.py                      # metric tables + 5, 8, 10 buckets
    python benchmarks/abstraction.py --buckets 5 --json   # last line: one JSON object
    python benchmarks/abstraction.py --kmeans 5,10 --ranks 6   # k-means / OCHS, 24-card deck
    python benchmarks/abstraction.py --kmeans 5-25-125-625 --ranks 6 --kinds potential
    python benchmarks/abstraction.py --buckets 5 --ranks 9 --profile   # 36-card deck, by phase

Prints wall time and peak memory of each part. Metric tables are built once into the cache
(``CFRLAB_CACHE``, default ~/.cache/cfrlab; ``--rebuild-metrics`` times a fresh build); each
abstraction is built in its own process (so its peak memory is its own) and saved under
``--out-dir``. The full metric tables are checked against eval7 on random classes and the
preflop order is printed. JSON keys: ``canonical_counts``, ``metric_tables_seconds``,
``builds`` (bucket count -> ``seconds``, ``peak_rss_gb``, ``file``, ``phases``), ``checks``.

``--ranks N`` (N < 13) builds the percentile abstractions of the reduced deck of the top N
ranks, four suits, instead (no eval7 checks): the same code at a size that runs in a minute
or two. ``--profile`` prints each build's phases (metric tables, the bucket maps of every
round, the joint tables of every round) with their seconds and share.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np

from cfrlab.abstraction.metrics import clear_cache, metric_tables
from cfrlab.abstraction.sizes import canonical_counts, sizes
from cfrlab.cards import cards_text
from cfrlab.config import cache_dir
from cfrlab.games import load_game


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux


PHASE_ENDS = ("metrics round", "buckets round", "joint tables round")  # progress lines that end a phase


def build_child(buckets: int, out: Path, ranks: int = 13) -> dict:
    """Runs in a fresh process: one abstraction, timed, with the seconds of each phase (the
    time up to each progress line that ends one)."""
    from cfrlab.abstraction.bucketed import BucketedModel, clear_build_cache
    from cfrlab.abstraction.buckets import BucketSpec

    g = load_game("holdem-limit") if ranks >= 13 else reduced(ranks)
    spec = BucketSpec.make(4, buckets)
    clear_build_cache(g, spec)  # time a whole build, not a resumed one
    t0 = time.perf_counter()
    phases, last = [], [t0]

    def say(msg: str) -> None:
        now = time.perf_counter()
        print(f"    [{now - t0:7.1f} s] {msg}", file=sys.stderr, flush=True)
        if msg.startswith(PHASE_ENDS):
            phases.append((msg.split(":")[0], round(now - last[0], 2)))
            last[0] = now

    model = BucketedModel.build(g, spec, progress=say)
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    model.save(out)
    phases.append(("save (hash included)", round(time.perf_counter() - t1, 2)))
    P3, W = model.fold_matrix(3), model.showdown_matrix()
    return {"seconds": round(seconds, 1), "peak_rss_gb": round(peak_gb(), 2), "file": str(out),
            "hash": model.hash, "P3_sum": float(P3.sum()),
            "max_asym_W": float(np.abs(W + W.T).max()), "phases": phases}


def print_phases(rec: dict) -> None:
    total = sum(s for _, s in rec["phases"])
    for name, s in rec["phases"]:
        print(f"    {name:28} {s:9.2f} s  {100 * s / max(total, 1e-9):5.1f}%", flush=True)


def kmeans_child(spec_text: str, out: Path) -> dict:
    """Runs in a fresh process: one k-means (EMD), OCHS or potential-aware abstraction of a
    reduced deck, timed. ``spec_text``: "KIND:BUCKETS:RANKS" (kind kmeans, ochs or potential)."""
    from cfrlab.abstraction.bucketed import BucketedModel
    from cfrlab.abstraction.buckets import BucketSpec
    from cfrlab.abstraction.metrics import last_round_table
    from cfrlab.abstraction.sizes import build_estimate

    kind, buckets, ranks = spec_text.split(":")
    g = reduced(int(ranks))
    spec = BucketSpec.kmeans(4, buckets, "emd" if kind == "kmeans" else "ochs", seed=1,
                             earlier="pa" if kind == "potential" else "emd")
    est = build_estimate(g, spec)
    last_round_table(g)  # the metric table is cached once: the rows time the clustering
    t0 = time.perf_counter()
    model = BucketedModel.build(g, spec)
    seconds = time.perf_counter() - t0
    model.save(out)
    return {"seconds": round(seconds, 1), "peak_rss_gb": round(peak_gb(), 3),
            "estimate_gb": round(est["peak"] / 2**30, 3), "file": str(out), "hash": model.hash}


def reduced(ranks: int):
    """The ACPC limit hold'em game on the deck of its top ``ranks`` ranks, four suits."""
    import re

    from cfrlab.games import parse_game
    from cfrlab.games.builtins import builtin_text

    text = re.sub(r"numRanks = \d+", f"numRanks = {ranks}", builtin_text("holdem-limit"))
    return parse_game(text, name=f"holdem-{ranks}x4")


def run_kmeans(args) -> None:
    out_dir = args.out_dir or cache_dir() / "abstractions"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = {}
    for kind in args.kinds.split(","):
        for b in [x for x in args.kmeans.split(",") if x]:
            key = f"{kind}:{b}:{args.ranks}"
            out = out_dir / f"holdem-{args.ranks}x4-{kind}-{b}.npz"
            proc = subprocess.run([sys.executable, __file__, "--kmeans-child", key, "--child-out",
                                   str(out)], stdout=subprocess.PIPE, text=True, check=True)
            rows[key] = rec = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"  {kind:9} {b:>12} buckets, {args.ranks}x4 deck: {rec['seconds']} s, peak "
                  f"{rec['peak_rss_gb']} GB (estimate {rec['estimate_gb']} GB)", flush=True)
    if args.json:
        print(json.dumps({"kmeans_builds": rows}))


def eval7_checks(mt, n_river: int, n_turn: int, seed: int = 0) -> dict:
    """Largest |table - eval7| over random classes (river HS, turn E[HS] and E[HS^2])."""
    try:
        import eval7
    except ImportError:
        return {"skipped": "eval7 not installed"}
    every = eval7.HandRange("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32")
    E = {c: eval7.Card(cards_text([c])) for c in range(52)}
    rng = np.random.default_rng(seed)
    worst = {"river_hs": 0.0, "turn_ehs": 0.0, "turn_ehs2": 0.0}
    for r, n in ((3, n_river), (2, n_turn)):
        ix = mt.indexers[r]
        e1, e2 = mt.ehs(r), mt.ehs2(r)
        for i in rng.integers(0, ix.size, n):
            cards = ix.unindex(int(i))
            hole, board = cards[:2], cards[2:]
            rest = [c for c in range(52) if c not in cards]
            hs = [eval7.py_hand_vs_range_exact([E[c] for c in hole], every,
                                               [E[c] for c in board + list(x)])
                  for x in combinations(rest, 5 - len(board))]
            if r == 3:
                worst["river_hs"] = max(worst["river_hs"], abs(e1[i] - hs[0]))
            else:
                worst["turn_ehs"] = max(worst["turn_ehs"], abs(e1[i] - np.mean(hs)))
                worst["turn_ehs2"] = max(worst["turn_ehs2"], abs(e2[i] - np.mean(np.square(hs))))
    return {k: float(v) for k, v in worst.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--buckets", default="5,8,10", help="comma-separated bucket counts")
    ap.add_argument("--out-dir", type=Path, default=None,
                    help="where abstractions go (default: CFRLAB_CACHE/abstractions)")
    ap.add_argument("--rebuild-metrics", action="store_true",
                    help="time a fresh metric build (ignore cached tables)")
    ap.add_argument("--checks", type=int, default=300, help="random classes checked vs eval7")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--kmeans", default=None,
                    help="instead: k-means (EMD) and OCHS builds of a reduced deck, bucket counts "
                         "comma-separated (e.g. 5,10 or 10-20-20-20)")
    ap.add_argument("--ranks", type=int, default=None,
                    help="ranks of the 4-suit deck: the builds' (default 13, the full deck) or "
                         "--kmeans's (default 6)")
    ap.add_argument("--profile", action="store_true",
                    help="print each build's phases with their seconds")
    ap.add_argument("--kinds", default="kmeans,ochs",
                    help="with --kmeans: kinds, of kmeans, ochs and potential (comma-separated)")
    ap.add_argument("--kmeans-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(build_child(args.child, args.child_out, args.ranks or 13)))
        return
    if args.kmeans_child is not None:
        print(json.dumps(kmeans_child(args.kmeans_child, args.child_out)))
        return
    if args.kmeans:
        args.ranks = args.ranks or 6
        run_kmeans(args)
        return
    ranks = args.ranks or 13
    if not 5 <= ranks <= 13:
        ap.error(f"--ranks is 5 to 13, got {ranks}")
    if ranks < 13:
        run_reduced(args, ranks)
        return

    g = load_game("holdem-limit")
    out_dir = args.out_dir or cache_dir() / "abstractions"
    out_dir.mkdir(parents=True, exist_ok=True)
    result: dict = {"canonical_counts": canonical_counts(g)}
    print(f"canonical classes per round: {result['canonical_counts']}")
    for B in (5, 10):
        s = sizes(g, B)
        print(f"  {B} buckets: {s['infosets']:.3e} information sets, {s['states']:.3e} states")

    if args.rebuild_metrics:
        clear_cache(g)
    t0 = time.perf_counter()
    mt = metric_tables(g, progress=lambda s: print(f"  {s}", flush=True))
    result["metric_tables_seconds"] = round(time.perf_counter() - t0, 1)
    print(f"metric tables: {result['metric_tables_seconds']} s, peak {peak_gb():.2f} GB")

    ix0 = mt.indexers[0]
    order = np.argsort(-mt.ehs(0), kind="stable")
    top = [cards_text(ix0.unindex(int(i))) for i in order[:3]]
    bottom = [cards_text(ix0.unindex(int(i))) for i in order[-3:]]
    print(f"preflop E[HS]: best {top}, worst {bottom} "
          f"({mt.ehs(0)[order[-1]]:.4f}; 7-2 offsuit is "
          f"{mt.lookup([20, 1], [])[0]:.4f})")
    checks = eval7_checks(mt, args.checks, max(args.checks // 5, 1)) if args.checks else {}
    checks.update({"preflop_best": top[0], "preflop_worst": bottom[-1]})
    result["checks"] = checks
    print(f"eval7 checks (largest differences): {checks}")
    del mt

    result["builds"] = {}
    for B in [int(x) for x in args.buckets.split(",") if x]:
        out = out_dir / f"holdem-limit-ehs2-perfect-{B}.npz"
        print(f"building {B} buckets -> {out}", flush=True)
        result["builds"][str(B)] = build_in_child(B, out, 13, args.profile)
    if args.json:
        print(json.dumps(result))


def build_in_child(B: int, out: Path, ranks: int, profile: bool) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", str(B), "--child-out", str(out),
                           "--ranks", str(ranks)], capture_output=False, stdout=subprocess.PIPE,
                          text=True, check=True)
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"  {B} buckets: {rec['seconds']} s, peak {rec['peak_rss_gb']} GB", flush=True)
    if profile:
        print_phases(rec)
    return rec


def run_reduced(args, ranks: int) -> None:
    """Percentile builds of the reduced deck: metric tables (timed, cached), then each build."""
    g = reduced(ranks)
    out_dir = args.out_dir or cache_dir() / "abstractions"
    out_dir.mkdir(parents=True, exist_ok=True)
    result: dict = {"deck": f"{ranks}x4", "canonical_counts": canonical_counts(g)}
    print(f"{ranks} ranks x 4 suits: canonical classes per round {result['canonical_counts']}")
    if args.rebuild_metrics:
        clear_cache(g)
    t0 = time.perf_counter()
    metric_tables(g, progress=lambda s: print(f"  {s}", flush=True))
    result["metric_tables_seconds"] = round(time.perf_counter() - t0, 1)
    print(f"metric tables: {result['metric_tables_seconds']} s", flush=True)
    result["builds"] = {}
    for B in [int(x) for x in args.buckets.split(",") if x]:
        out = out_dir / f"holdem-{ranks}x4-ehs2-perfect-{B}.npz"
        print(f"building {B} buckets -> {out}", flush=True)
        result["builds"][str(B)] = build_in_child(B, out, ranks, args.profile)
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
