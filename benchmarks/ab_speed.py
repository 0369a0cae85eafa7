"""Per-iteration speed of the Leduc solvers and the 3-player CFR+, and the board engine's
walks (the TexasSolver benchmark spot's iterations, the real-game best response of a bucketed
strategy on a reduced deck, CFR-BR on Leduc), in CPU time, for A/B comparisons of two source
trees run in turn on the same machine (``--part engine|board`` for one half):

    git archive REV src | tar -x -C /tmp/base
    for i in 1 2 3; do PYTHONPATH=/tmp/base/src python benchmarks/ab_speed.py; \
                       PYTHONPATH=src python benchmarks/ab_speed.py; done

Each figure is the best of five timed calls (``time.process_time``, so other jobs on the
cores count less); compare the best of the interleaved runs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # same_bits, beside this file

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


def board_walks() -> None:
    """The walks issue 42 moved onto the board engine, through interfaces both trees have
    (as benchmarks/same_bits.py)."""
    from same_bits import ROOT, holdem

    from cfrlab.abstraction.bucketed import BucketedModel
    from cfrlab.abstraction.buckets import BucketSpec
    from cfrlab.games import parse_game
    from cfrlab.realgame import real_best_response
    from cfrlab.realgame.cfrbr import CardMap, cfrbr
    from cfrlab.spot import load_spot
    from cfrlab.spot.solve import solve_spot
    from cfrlab.strategy import Strategy

    spot = load_spot(ROOT / "examples" / "spots" / "texassolver_benchmark.toml")
    solve_spot(spot, "dcfr", target_pct=None, iterations=1, check_every=1)  # compile
    n = 10
    t = cpu(lambda: solve_spot(spot, "dcfr", target_pct=None, iterations=n, check_every=n), reps=3)
    print("spot texassolver dcfr", f"{t / n:.3f} CPU s/it (one exploitability check per {n})")
    g = parse_game(holdem(5, 2, "0 3 1"), name="holdem-5x2")
    tree = build_tree_for(g)
    model = BucketedModel.build(g, BucketSpec.make(3, "3-4-5"), use_cache=False)
    s = make_solver(tree, model, "cfr+")
    s.iterate(30)
    st = Strategy.from_policy(g, s.average_policy(), tree=tree, model=model)
    real_best_response(st)
    print("real BR bucketed 5x2", f"{cpu(lambda: real_best_response(st), reps=3):.3f} CPU s")
    m = CardMap("leduc", lambda hole, board, r: (hole[0] // 4 == 12,) if r == 0 else
                (hole[0] // 4 == 12, hole[0] // 4 == board[0] // 4))
    cfrbr("leduc", m, iterations=2, opponent="real")
    print("cfrbr leduc real", f"{60 / cpu(lambda: cfrbr('leduc', m, iterations=60, opponent='real'), reps=3):,.1f} it/s")


def main() -> None:
    part = sys.argv[sys.argv.index("--part") + 1] if "--part" in sys.argv else "all"
    if part in ("all", "engine"):
        engine_solvers()
    if part in ("all", "board"):
        board_walks()


def engine_solvers() -> None:
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
