"""Nested re-solving of off-tree bets against action translation in no-limit Leduc (docs/results/subgame.md).

    python benchmarks/nested.py                 # fcpa blueprint, stack 7
    python benchmarks/nested.py --json          # last line: one JSON object

A blueprint is solved by CFR+ in a coarse betting abstraction (``--bets``, fcpa). (a) For each
off-tree size (``--sizes``, pot fractions), the real game is restricted to the abstraction's
sizes at every real state plus that size for the opponent; the exact best responses of both
seats there give the exploitability of the blueprint played with the pseudo-harmonic
translation and of the nested agent by method (``cfrlab.subgame.nested``: every reachable
off-tree bet re-solved, nested ones too). (b) Against opponents that bet other sizes (a
strategy of another abstraction, translated, and a DCFR strategy of the full game), the exact
expected winnings (both seats' average, full-tree tables) and a duplicate match with its 95%
interval, nested (resolve) and translated. Chips per game. JSON keys: ``blueprint``
(``bets``, ``iterations``, ``exploitability``), ``restricted`` (size -> agent ->
exploitability), ``resolves`` (size -> method -> re-solves), ``opponents`` (name -> agent ->
``exact``, ``match``, ``ci95``), ``seconds``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np

from cfrlab.agents import make_agent
from cfrlab.agents.matches import play_match
from cfrlab.agents.translation import TranslatedStrategy
from cfrlab.engine import build_tree_for, exploitability, model_for_game
from cfrlab.engine.values import expected_value
from cfrlab.games import load_game, parse_game
from cfrlab.solvers import make_solver
from cfrlab.strategy import Strategy
from cfrlab.subgame.nested import (
    NestedSolver,
    pot_fraction_children,
    restricted_exploitability,
    support,
)


def leduc_nolimit(stack: int):
    g = load_game("leduc-nolimit")
    if stack == 7:
        return g
    return parse_game(g.to_text().replace("stack = 7 7", f"stack = {stack} {stack}"), name=f"leduc-nolimit-{stack}")


def solve(game, bets: str | None, algorithm: str, iterations: int) -> Strategy:
    tree, model = build_tree_for(game, bets), model_for_game(game)
    solver = make_solver(tree, model, algorithm)
    solver.iterate(iterations)
    return Strategy.from_policy(game, solver.average_policy(), tree=tree, model=model, algorithm=algorithm)


def exact_winnings(solver: NestedSolver, agent_policy: np.ndarray, opp_policy: np.ndarray) -> float:
    """The agent's expected chips per game, both seats averaged, against the opponent's table."""
    F, m = solver.tree, solver.model
    return 0.5 * (expected_value(F, m, agent_policy, opp_policy) - expected_value(F, m, opp_policy, agent_policy))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stack", type=int, default=7)
    ap.add_argument("--bets", default="fcpa", help="the blueprint's betting abstraction")
    ap.add_argument("--iterations", type=int, default=1000, help="CFR+ iterations of the blueprint")
    ap.add_argument("--sizes", nargs="+", default=["0.5p", "2p"], help="off-tree sizes of the opponent")
    ap.add_argument("--methods", nargs="+", default=["resolve", "maxmargin", "unsafe"])
    ap.add_argument("--resolve-iterations", type=int, default=300)
    ap.add_argument("--opponent-bets", default="0.5p,2p,a")
    ap.add_argument("--full-iterations", type=int, default=300, help="DCFR iterations of the full-game opponent")
    ap.add_argument("--hands", type=int, default=2000, help="duplicate hands per match (0: none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    game = leduc_nolimit(args.stack)
    bp = solve(game, args.bets, "cfr+", args.iterations)
    out = {"game": game.name, "blueprint": {"bets": args.bets, "iterations": args.iterations,
                                            "exploitability": float(exploitability(bp.tree, bp.model, bp.policy))},
           "restricted": {}, "resolves": {}, "opponents": {}}
    translated = TranslatedStrategy(bp, "pseudo-harmonic").full_game_strategy().policy
    base = NestedSolver(bp, args.methods[0], args.resolve_iterations)
    for size in args.sizes:
        nested = {m: NestedSolver(bp, m, args.resolve_iterations) for m in args.methods}  # fresh per size
        kids = pot_fraction_children(base, size)
        row = {"translation": restricted_exploitability(base, translated, kids)}
        out["resolves"][size] = {}
        for m, s in nested.items():
            s.tabulate(pot_fraction_children(s, size))
            row[m] = restricted_exploitability(s, s.policy, pot_fraction_children(s, size))
            out["resolves"][size][m] = s.resolves
        out["restricted"][size] = row
        print(f"  size {size}: " + ", ".join(f"{k} {v:.4f}" for k, v in row.items()), flush=True)
    opponents = {f"{args.opponent_bets} (translated)": solve(game, args.opponent_bets, "cfr+", args.iterations),
                 f"full game (dcfr {args.full_iterations})": solve(game, None, "dcfr", args.full_iterations)}
    tmp = tempfile.TemporaryDirectory()
    path = f"{tmp.name}/bp.npz"
    bp.save(path)
    for name, o in opponents.items():
        opp = TranslatedStrategy(o, "pseudo-harmonic").full_game_strategy() if o.tree.bets != "fullgame" else o
        s = NestedSolver(bp, "resolve", args.resolve_iterations)
        s.tabulate(lambda n, s=s, opp=opp: support(s.tree, s.offsets, opp.policy, n))
        res = {"translation": {"exact": exact_winnings(s, translated, opp.policy)},
               "nested-resolve": {"exact": exact_winnings(s, s.policy, opp.policy)}}
        if args.hands:
            opp_path = f"{tmp.name}/opp{len(out['opponents'])}.npz"
            o.save(opp_path)
            for key, spec in (("translation", f"{path}:translation=pseudo-harmonic"),
                              ("nested-resolve", f"nested:{path}:resolve:{args.resolve_iterations}")):
                a = make_agent(spec, game, seed=args.seed)
                est = play_match(game, a, opp_path, args.hands, seed=args.seed, duplicate=True).overall("chips/g")
                res[key].update(match=float(est.mean), ci95=float(est.ci95))
        out["opponents"][name] = res
        print(f"  vs {name}: {res}", flush=True)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(markdown(out))
    if args.json:
        print(json.dumps(out))


def markdown(out: dict) -> str:
    b = out["blueprint"]
    lines = [f"Blueprint `{b['bets']}`, CFR+ {b['iterations']} it., abstract exploitability {b['exploitability']:.5f}",
             "", "| opponent's extra size | " + " | ".join(next(iter(out["restricted"].values()))) + " |",
             "|---|" + "---|" * len(next(iter(out["restricted"].values())))]
    for size, row in out["restricted"].items():
        lines.append(f"| {size} | " + " | ".join(f"{v:.4f}" for v in row.values()) + " |")
    lines += ["", "| opponent | agent | exact | match (duplicate) |", "|---|---|---|---|"]
    for name, res in out["opponents"].items():
        for key, r in res.items():
            m = f"{r['match']:+.4f} +- {r['ci95']:.4f}" if "match" in r else ""
            lines.append(f"| {name} | {key} | {r['exact']:+.4f} | {m} |")
    lines.append(f"\nwall time {out['seconds']} s")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
