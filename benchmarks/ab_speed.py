"""Per-iteration speed of the Leduc solvers and the 3-player CFR+, in CPU time, for A/B
comparisons of two source trees run in turn on the same machine:

    git archive REV src | tar -x -C /tmp/base
    for i in 1 2 3; do PYTHONPATH=/tmp/base/src python benchmarks/ab_speed.py; \
                       PYTHONPATH=src python benchmarks/ab_speed.py; done

Each figure is the best of five timed calls (``time.process_time``, so other jobs on the
cores count less); compare the best of the interleaved runs.
"""

from __future__ import annotations

import time

from cfrlab.engine import build_tree_for, model_for_game
from cfrlab.games import load_game
from cfrlab.solvers import make_solver
from cfrlab.solvers.nplayer import NSolver


def cpu(fn, reps: int = 5) -> float:
    best = float("inf")
    for _ in range(reps):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    for alg, n in (("cfr+", 1000), ("dcfr", 1000), ("pcs", 3000), ("es", 20000)):
        s = make_solver(tree, model, alg, seed=1)
        s.iterate(5)  # compile
        print(alg, "leduc", f"{n / cpu(lambda s=s, n=n: s.iterate(n)):,.0f} it/s")
    s = NSolver("leduc-3p", "cfr+")
    s.iterate(2)
    print("cfr+ leduc-3p", f"{20 / cpu(lambda: s.iterate(20)):,.1f} it/s")


if __name__ == "__main__":
    main()
