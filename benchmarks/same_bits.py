"""Same bits: a fingerprint of every walk the board engine, the one table of update rules and
the one regret matching now serve, for comparing two source trees (before and after a
refactoring) bit for bit:

    git archive REV src | tar -x -C /tmp/base
    PYTHONPATH=/tmp/base/src python benchmarks/same_bits.py > /tmp/base.txt
    PYTHONPATH=src python benchmarks/same_bits.py > /tmp/head.txt
    diff /tmp/base.txt /tmp/head.txt        # nothing: the same bits

Each line names a computation and prints a SHA-256 prefix of its arrays (a policy, a walk's
tables) and its figures in ``repr`` (every bit). It uses only interfaces both trees have:
the engine's CFR family and MCCFR on Kuhn and Leduc, the N-player CFR+ on 3-player Leduc,
the spot walk (the TexasSolver benchmark spot at a fixed iteration count, and a small flop
spot in every algorithm and storage), the real-game best response of a bucketed strategy on a
reduced deck (its walk, lanes and round pass), CFR-BR (the lossless engine's best response,
and the trunk), PCS over hole pairs on an imperfect-recall abstraction, and the Leduc rows of
the subgame table (``resolve_strategy``). A few minutes on one core. ``hulhe-units`` (not in
the default parts; ``python benchmarks/same_bits.py hulhe-units``) gives CFR5's real-game best
response on a few full-HULHE units (its docstring says what it reads).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.engine import build_tree_for, exploitability, load_abstraction, model_for_game
from cfrlab.games import load_game, parse_game
from cfrlab.realgame import real_best_response
from cfrlab.realgame.hands import first_round_units
from cfrlab.realgame.opponents import batch_policy_of
from cfrlab.realgame.walk import Walker
from cfrlab.solvers import make_solver
from cfrlab.solvers.nplayer import NSolver
from cfrlab.spot import load_spot, make_spot
from cfrlab.spot.solve import solve_spot
from cfrlab.strategy import Strategy
from cfrlab.subgame import METHODS, resolve_strategy

ROOT = Path(__file__).resolve().parents[1]


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def line(name: str, *figures) -> None:
    print(name, *(repr(f) if not isinstance(f, str) else f for f in figures), flush=True)


def holdem(ranks: int, suits: int, boards: str) -> str:
    n = len(boards.split())
    return (f"GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = {n}\nblind = 2 1\nraiseSize = {' '.join(['2'] * n)}\n"
            f"firstPlayer = {' '.join(['2'] + ['1'] * (n - 1))}\nmaxRaises = {' '.join(['2'] * n)}\n"
            f"numSuits = {suits}\nnumRanks = {ranks}\nnumHoleCards = 2\nnumBoardCards = {boards}\nEND GAMEDEF\n")


def engine_family() -> None:
    for name in ("kuhn", "leduc"):
        g = load_game(name)
        tree, model = build_tree_for(g), model_for_game(g)
        for alg, n in (("cfr", 200), ("cfr+", 200), ("lcfr", 200), ("dcfr", 200), ("pcfr+", 200),
                       ("pcs", 300), ("cs", 3000), ("es", 3000), ("os", 3000)):
            s = make_solver(tree, model, alg, seed=7)
            s.iterate(n)
            pol = s.average_policy()
            line(f"{name} {alg} {n}", digest(pol), exploitability(tree, model, pol))
    s = NSolver("leduc-3p", "cfr+")
    s.iterate(10)
    line("leduc-3p cfr+ 10", digest(s.average_policy()))


def spots() -> None:
    spot = load_spot(ROOT / "examples" / "spots" / "texassolver_benchmark.toml")
    sol = solve_spot(spot, "dcfr", target_pct=None, iterations=20, check_every=20)
    w = sol.walk
    line("texassolver spot dcfr 20", digest(*(w.cum[n] for n in sorted(w.cum)), *(w.reg[n] for n in sorted(w.reg))),
         sol.ev("oop"), sol.exploitability, [f for _, f in sol.frequencies(0)])
    args = {"board": "Qs Jh 2h", "pot": 10, "stack": 30, "oop_range": "AA, 87s, QJs, AhKh",
            "ip_range": "KK, T9s, 76s", "bets": {"bet": "p", "raise": "a"}}
    for alg in ("dcfr", "dcfr+", "cfr+"):
        for storage in ("float32", "int16", "float64"):
            sol = solve_spot(make_spot(**args), alg, target_pct=None, iterations=6, check_every=3,
                             storage=storage)
            w = sol.walk
            line(f"flop spot {alg} {storage} 6", digest(*(w.cum[n] for n in sorted(w.cum)),
                                                        *(w.reg[n] for n in sorted(w.reg))),
                 sol.exploitability, sol.values, [h[2] for h in sol.history])


def real_game() -> None:
    g = parse_game(holdem(5, 2, "0 3 1"), name="holdem-5x2")
    tree = build_tree_for(g)
    model = BucketedModel.build(g, BucketSpec.make(3, "3-4-5"), use_cache=False)
    s = make_solver(tree, model, "cfr+")
    s.iterate(30)
    r = real_best_response(Strategy.from_policy(g, s.average_policy(), tree=tree, model=model))
    line("real BR bucketed 5x2 cfr+ 30", r.exploitability, r.br, digest(r.root_values))
    ir = BucketedModel.build(g, BucketSpec.make(3, "3-4-5", history=False, recall="imperfect"), use_cache=False)
    p = make_solver(tree, ir, "pcs", seed=5, alpha=1.5, beta=0.0, gamma=2.0)
    p.iterate(40)
    line("pcs hole pairs 5x2 dcfr 40", digest(p.regret, p.avg))


def cfrbr_runs() -> None:
    from cfrlab.realgame.cfrbr import CardMap, cfrbr

    def leduc_map(hole, board, r):  # an ace or not, then whether it pairs the board (lossy)
        high = hole[0] // 4 == 12
        return (high,) if r == 0 else (high, hole[0] // 4 == board[0] // 4)

    m = CardMap("leduc", leduc_map)
    for opponent in ("br", "abstract", "real"):
        r = cfrbr("leduc", m, iterations=60, opponent=opponent)
        line(f"cfrbr leduc {opponent} 60", r.exploitability, r.br, digest(r.strategy.policy))


def subgames() -> None:
    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    s = make_solver(tree, model, "cfr")
    s.iterate(20)
    blueprint = s.average_policy()
    bp = Strategy.from_policy(g, blueprint, tree=tree, model=model)
    for method in METHODS:
        res = resolve_strategy(bp, method, iterations=100)
        line(f"leduc subgame {method} 100", digest(res.strategy.policy),
             exploitability(tree, model, res.strategy.policy))


def hulhe_units() -> None:
    """Full HULHE: the real-game best response's values of a few units (flops) of CFR5, as
    ``exploit-real`` computes them, in float64 and float32. Needs CFRLAB_CFR5 = the strategy
    file and CFRLAB_B5 = the 5-bucket abstraction file (each tree reads the abstraction in its
    own format; the policy array is read as stored, so a strategy header that names another
    hash format does not matter); CFRLAB_UNITS = unit numbers (default "0,1,2"). Minutes a unit."""
    g = load_game("holdem-limit")
    tree = build_tree_for(g)
    model = load_abstraction(os.environ["CFRLAB_B5"], g)
    with np.load(os.environ["CFRLAB_CFR5"], allow_pickle=False) as z:
        policy = z["policy"]
    bp = batch_policy_of(Strategy.from_policy(g, policy, tree=tree, model=model), tree)
    which = [int(u) for u in os.environ.get("CFRLAB_UNITS", "0,1,2").split(",")]
    for precision in ("float64", "float32"):
        w = Walker(g, tree, bp, precision)
        units = first_round_units(g, w.deck, w.opp.suit_symmetric)
        for i in which:
            v = w.unit_values(units[i])
            line(f"hulhe cfr5 real-br unit {i} {precision}", digest(v), float(v.sum()))


def main() -> None:
    t = time.perf_counter()
    parts = sys.argv[1:] or ["engine", "spots", "real", "cfrbr", "subgame"]
    table = {"engine": engine_family, "spots": spots, "real": real_game, "cfrbr": cfrbr_runs, "subgame": subgames,
             "hulhe-units": hulhe_units}
    for p in parts:
        table[p]()
    print(f"# {time.perf_counter() - t:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
