"""Real-game exploitability of translated abstract strategies in no-limit Leduc (docs/results/nolimit.md).

    python benchmarks/translation_table.py                    # stacks 10 and 15
    python benchmarks/translation_table.py --stacks 10 --json # last line: one JSON object

For each stack, each betting abstraction is solved by CFR+ until its own exploitability is
below ``--target`` (or ``--max-iterations``); the strategy is then translated by each rule
(``cfrlab.tree.translation.RULES``), written out in the full game (every legal amount,
``TranslatedStrategy.full_game_strategy``) and its exploitability there computed exactly. The
real game's value for the first player comes from DCFR on the full tree: it lies within
[-u1(s0, BR), u0(BR, s1)], printed as the midpoint +- half the width (the full-game strategy's
exploitability). Figures in chips per game (blinds 1 and 1). JSON keys: ``stacks`` (stack ->
``value``, ``value_bound``, ``value_iterations``, ``value_algorithm``, ``full_decisions``, ``rows``: one per
abstraction with ``bets``, ``decisions``, ``iterations``, ``abstract_exploitability``,
``abstract_value``, ``real`` (rule -> exploitability)), ``seconds``.
"""

from __future__ import annotations

import argparse
import json
import time

from cfrlab.agents.translation import TranslatedStrategy
from cfrlab.engine import (
    best_response_values,
    build_tree_for,
    exploitability,
    game_value,
    model_for_game,
)
from cfrlab.games import load_game, parse_game
from cfrlab.solvers import make_solver
from cfrlab.strategy import Strategy
from cfrlab.tree.translation import RULES

ABSTRACTIONS = ("fc", "fcpa", "0.5p,p,a", "0.5p,p,2p,a", "p,a;cap=1")


def leduc_nolimit(stack: int):
    text = load_game("leduc-nolimit").to_text().replace("stack = 7 7", f"stack = {stack} {stack}")
    return parse_game(text, name=f"leduc-nolimit-{stack}")


def solve_abstract(game, bets: str, target: float, max_iterations: int) -> tuple[Strategy, int, float]:
    tree, model = build_tree_for(game, bets), model_for_game(game)
    solver = make_solver(tree, model, "cfr+")
    expl = float("inf")
    while solver.iterations < max_iterations and expl > target:
        solver.iterate(100)
        expl = exploitability(tree, model, solver.average_policy())
    pol = solver.average_policy()
    return Strategy.from_policy(game, pol, tree=tree, model=model, algorithm="cfr+"), solver.iterations, expl


def real_value(game, iterations: int, algorithm: str) -> tuple[float, float, int]:
    """(value, half-width of its bound, full-tree decisions) from a solve of the full tree."""
    tree, model = build_tree_for(game), model_for_game(game)
    solver = make_solver(tree, model, algorithm)
    solver.iterate(iterations)
    b0, b1 = best_response_values(tree, model, solver.average_policy())
    return (b0 - b1) / 2, (b0 + b1) / 2, tree.num_decisions


def table_for(stack: int, args) -> dict:
    game = leduc_nolimit(stack)
    t0 = time.perf_counter()
    value, bound, full = real_value(game, args.value_iterations, args.value_algorithm) if args.value_iterations else (None, None, 0)
    out = {"value": value, "value_bound": bound, "value_iterations": args.value_iterations,
           "value_algorithm": args.value_algorithm,
           "full_decisions": full, "value_seconds": round(time.perf_counter() - t0, 1), "rows": []}
    for bets in args.bets:
        t1 = time.perf_counter()
        s, its, expl = solve_abstract(game, bets, args.target, args.max_iterations)
        row = {"bets": bets, "decisions": s.tree.num_decisions, "iterations": its,
               "abstract_exploitability": expl, "abstract_value": game_value(s.tree, s.model, s.policy),
               "real": {rule: TranslatedStrategy(s, rule).real_exploitability() for rule in RULES}}
        row["seconds"] = round(time.perf_counter() - t1, 1)
        out["rows"].append(row)
        print(f"  stack {stack} {bets}: {row['seconds']} s", flush=True)
    return out


def markdown(stacks: dict) -> str:
    head = "| stack | bets | decisions | abstract expl. | abstract value | " + " | ".join(RULES) + " |"
    lines = [head, "|" + "---|" * (5 + len(RULES))]
    for stack, t in stacks.items():
        for r in t["rows"]:
            real = " | ".join(f"{r['real'][rule]:.4f}" for rule in RULES)
            lines.append(f"| {stack} | `{r['bets']}` | {r['decisions']:,} | {max(r['abstract_exploitability'], 0.0):.5f} | "
                         f"{r['abstract_value']:+.4f} | {real} |")
        if t["value"] is not None:
            lines.append(f"| {stack} | full game | {t['full_decisions']:,} | (value: {t['value_algorithm']}, {t['value_iterations']} it.) "
                         f"| {t['value']:+.4f} +- {t['value_bound']:.4f} |" + " |" * len(RULES))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stacks", type=int, nargs="+", default=[10, 15])
    ap.add_argument("--bets", nargs="+", default=list(ABSTRACTIONS))
    ap.add_argument("--target", type=float, default=1e-4, help="abstract exploitability to stop at (chips)")
    ap.add_argument("--max-iterations", type=int, default=5000)
    ap.add_argument("--value-iterations", type=int, default=500, help="iterations on the full game (0: no value)")
    ap.add_argument("--value-algorithm", default="dcfr", help="the full game's solver (cfr+, dcfr, ...)")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args()
    t0 = time.perf_counter()
    stacks = {s: table_for(s, args) for s in args.stacks}
    seconds = round(time.perf_counter() - t0, 1)
    print(markdown(stacks))
    print(f"wall time {seconds} s")
    if args.json:
        print(json.dumps({"stacks": stacks, "seconds": seconds}))


if __name__ == "__main__":
    main()
