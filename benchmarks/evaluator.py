"""Hand evaluator benchmark: full 7-card enumeration and random batch evaluation vs PyPI peers.

Usage: python benchmarks/evaluator.py [--hands N] [--peer-hands M] [--seed S] [--json]

Prints, in one run: the seconds to evaluate all 133,784,560 seven-card hands with their
category counts (all numba threads, then one), random 7-card evaluations per second with the
batch API on one core (after a warm-up whose compile time is reported separately) and on all
threads, and the same random hands through each installed PyPI evaluator's fastest API from
Python, with ratios. With --json the last line is one JSON object (keys below).
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numba
import numpy as np


def _best_rate(fn, n: int, repeats: int) -> float:
    """Best items/second over `repeats` timed calls of fn()."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


def _peer_eval7(hands: np.ndarray):
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import eval7
    except ImportError:
        return None
    from cfrlab.cards import card_text

    table = [eval7.Card(card_text(c)) for c in range(52)]
    lists = [[table[c] for c in row] for row in hands.tolist()]
    return "eval7.evaluate(list of Card), map over prebuilt lists", (
        lambda: list(map(eval7.evaluate, lists))
    )


def _peer_phevaluator(hands: np.ndarray):
    try:
        from phevaluator import _pheval  # C extension behind evaluate_cards; same card ids
    except ImportError:
        return None
    columns = [hands[:, j].tolist() for j in range(7)]
    return "phevaluator _pheval.evaluate_7cards(7 ints), map over columns", (
        lambda: list(map(_pheval.evaluate_7cards, *columns))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000_000, help="random hands for cfrlab")
    parser.add_argument("--peer-hands", type=int, default=500_000, help="random hands for peers")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (best is kept)")
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = parser.parse_args()

    t0 = time.perf_counter()
    from cfrlab import known_values
    from cfrlab.cards import _eval_kernels as kernels
    from cfrlab.cards.evaluator import (
        random_hands,
        rank7_batch,
        rank_hand,
        seven_card_category_counts,
    )

    import_seconds = time.perf_counter() - t0

    # Warm-up: compile (or load from numba's cache) every kernel timed below.
    t0 = time.perf_counter()
    tiny = random_hands(64, 7, seed=args.seed)
    rank7_batch(tiny)
    rank7_batch(tiny, parallel=True)
    kernels._enumerate_from(45, 46, np.zeros(kernels.NUM_CATEGORIES, np.int64))
    kernels.count_seven_card_categories(1)  # also a first, untimed full pass
    warmup_seconds = time.perf_counter() - t0
    threads = numba.get_num_threads()
    print(
        f"cfrlab evaluator: import {import_seconds:.2f} s (tables built at import), "
        f"warm-up/compile {warmup_seconds:.2f} s, numba threads {threads}, "
        f"{platform.processor() or platform.machine()}"
    )

    # Full 7-card enumeration with category counts.
    t0 = time.perf_counter()
    counts = seven_card_category_counts()
    enum_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts_one = seven_card_category_counts(num_threads=1)
    enum_seconds_one = time.perf_counter() - t0
    ok = counts == known_values.SEVEN_CARD_COUNTS and counts_one == counts
    print(
        f"all {sum(counts.values()):,} seven-card hands: {enum_seconds:.3f} s "
        f"({threads} threads), {enum_seconds_one:.3f} s (1 thread); "
        f"counts {'match' if ok else 'DO NOT match'} the known values"
    )
    for name, n in counts.items():
        print(f"  {name:16s} {n:>12,}")

    # Random 7-card hands through the batch API.
    hands = random_hands(args.hands, 7, seed=args.seed)
    ours = _best_rate(lambda: rank7_batch(hands), len(hands), args.repeats)
    ours_par = _best_rate(lambda: rank7_batch(hands, parallel=True), len(hands), args.repeats)
    print(
        f"random 7-card hands, cfrlab rank7_batch (uint8 (N,7), N={len(hands):,}): "
        f"{ours / 1e6:.1f} M/s on one core, {ours_par / 1e6:.1f} M/s on {threads} threads"
    )

    peer_hands = hands[: args.peer_hands]
    one_by_one = [list(map(int, h)) for h in peer_hands[:100_000].tolist()]
    scalar = _best_rate(lambda: [rank_hand(h) for h in one_by_one], len(one_by_one), 1)
    print(f"  (cfrlab rank_hand one Python call per hand: {scalar / 1e6:.2f} M/s)")

    peers: dict[str, float] = {}
    apis: dict[str, str] = {}
    for name, make in (("eval7", _peer_eval7), ("phevaluator", _peer_phevaluator)):
        found = make(peer_hands)
        if found is None:
            print(f"  {name}: not installed")
            continue
        apis[name], fn = found
        peers[name] = _best_rate(fn, len(peer_hands), args.repeats)
        print(
            f"  {name:12s} {peers[name] / 1e6:6.2f} M/s  -> cfrlab one core is "
            f"{ours / peers[name]:.1f}x faster  [{apis[name]}, N={len(peer_hands):,}]"
        )

    if args.json:
        print(
            json.dumps(
                {
                    "seven_card_counts": counts,
                    "seven_card_counts_match_known": ok,
                    "seven_card_enumeration_seconds": round(enum_seconds, 4),
                    "seven_card_enumeration_seconds_one_thread": round(enum_seconds_one, 4),
                    "random_evals_per_second": round(ours),
                    "random_evals_per_second_all_threads": round(ours_par),
                    "rank_hand_python_calls_per_second": round(scalar),
                    "peers": {k: round(v) for k, v in peers.items()},
                    "peer_apis": apis,
                    "ratios_vs_peers": {k: round(ours / v, 2) for k, v in peers.items()},
                    "import_seconds": round(import_seconds, 3),
                    "warmup_compile_seconds": round(warmup_seconds, 3),
                    "numba_threads": threads,
                    "random_hands": len(hands),
                    "peer_hands": len(peer_hands),
                }
            )
        )


if __name__ == "__main__":
    main()
