"""Real-game exploitability of abstraction kinds at equal numbers of information sets.

    python benchmarks/abstraction_ladder.py                         # 6x4 deck, size 5, all kinds
    python benchmarks/abstraction_ladder.py --sizes 3,5 --kinds percentile,ochs --seconds 300,600
    python benchmarks/abstraction_ladder.py --kinds percentile --iterations 1000,3400  # by iterations
    python benchmarks/abstraction_ladder.py --plot docs/figures/abstraction-ladder.png --json

The measurement of Johanson, Burch, Valenzano and Bowling ("Evaluating state-space
abstractions in extensive-form games", AAMAS 2013) on the 24-card deck of
``benchmarks/real_ladder.py`` (HULHE betting, 6 ranks x 4 suits), where the exact real-game
best response takes minutes. A *size* b is the perfect-recall b-bucket abstraction's: b, b^2,
b^3, b^4 private states per round. Each kind gets the same states per round, so the same
information sets:

- ``pr``: perfect-recall E[HS^2] percentile buckets, b per round within each history (the
  ladder's rows: CFR+ 1,000 iterations, ``real_ladder.rung``, files in --pr-dir);
- ``percentile``: imperfect-recall E[HS^2] percentile, b-b^2-b^3-b^4 buckets (``--recall
  imperfect``);
- ``kmeans``: k-means with the earth mover's distance on hand-strength histograms, every round;
- ``ochs``: the same, with opponent-cluster hand strength on the river;
- ``potential``: OCHS on the river, each earlier round potential-aware (Ganzfried and
  Sandholm, AAAI 2014: k-means on histograms over the next round's clusters).

Imperfect-recall rows are solved by public chance sampling (``cfrlab solve -a pcs --no-real``,
one checkpointed run resumed to each budget of --seconds or --iterations, the strategy copied
at each; --rule dcfr adds DCFR's discounts), and every row is measured by ``cfrlab exploit
--real`` (``--resume``: a stopped run continues). With --flat-check, every budget of that kind
is measured, so whether the real-game value still moves between budgets says how near the
solve is to its abstraction's equilibrium. Files go to --out-dir and are reused by a second
run. --plot also writes the points to a .csv and every budget's to a .budgets.csv.
JSON (last line with --json): ``game``, ``rows`` (``kind``, ``size``, ``buckets``,
``infosets``, ``solver``, ``iterations``, ``solve_seconds``, ``cpu_seconds`` (the solve's, both
threads), ``abstract_mbb`` (perfect recall only),
``real_mbb``, ``real_by_position``, ``real_seconds``, ``budget`` (seconds, or iterations with
--iterations)).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from real_ladder import cached, cfrlab, game_dir, reduced_holdem, rung

IMPERFECT = ("percentile", "kmeans", "ochs", "potential")
KINDS = ("pr", *IMPERFECT)
LABELS = {"pr": "perfect recall, E[HS^2] percentile", "percentile": "imperfect recall, E[HS^2] percentile",
          "kmeans": "imperfect recall, k-means/EMD", "ochs": "imperfect recall, k-means/EMD + OCHS river",
          "potential": "imperfect recall, potential-aware + OCHS river"}


# The ladder's perfect-recall rows as docs/results/realgame.md records them (2026-11-25, CFR+
# 1,000 iterations): --recorded-pr uses these instead of re-running real_ladder (about 15 min
# a row).
RECORDED_PR = {2: (96056, 1.037, 519.17, (433.0, 605.3), 505), 3: (476934, 1.038, 427.41, (278.1, 576.8), 545),
               4: (1492992, 1.048, 452.61, (339.0, 566.3), 578), 5: (3624290, 0.984, 408.34, (303.8, 512.9), 647)}

# The first imperfect-recall rows (docs/results/abstraction.md, 2026-11-26: vanilla pcs, the
# one-thread walk): --recorded-ir plots them beside the new ones. (kind, iterations, solve s, real, by position, BR s)
RECORDED_IR = [("percentile", 1080, 481, 639.52, (473.4, 805.6), 833),
               ("percentile", 3400, 1003, 550.66, (392.3, 709.02), 760),
               ("ochs", 3400, 482, 625.01, (459.99, 790.04), 820)]


def recorded_ir_rows() -> list[dict]:
    return [{"kind": k, "size": 5, "buckets": per_round(5), "infosets": 3624290, "solver": "pcs",
             "cpu_seconds": None, "iterations": it, "solve_seconds": s, "budget": None, "abstract_mbb": None,
             "real_mbb": real, "real_by_position": list(pos), "real_seconds": br, "recorded": True}
            for k, it, s, real, pos, br in RECORDED_IR]


def per_round(size: int, rounds: int = 4) -> list[int]:
    """States per round of the perfect-recall ``size``-bucket abstraction: size^(r+1)."""
    return [size ** (r + 1) for r in range(rounds)]


def build(game: Path, kind: str, size: int, a: argparse.Namespace, path: Path) -> None:
    spec = "-".join(str(b) for b in per_round(size))
    extra = ["--recall", "imperfect"] if kind == "percentile" else \
        ["--kind", kind, "--seed", str(a.seed), "--bins", str(a.bins), "--opp-clusters", str(a.opp_clusters)]
    cfrlab("abstract", "build", str(game), "--buckets", spec, *extra, "--out", str(path), "-q",
           summary=False)


def infosets(tree, model) -> int:
    """Information sets as ``cfrlab solve`` counts them: each decision's acting-round states."""
    states = [int(s) for s in model.num_states]
    return sum(states[int(tree.round[n])] for n in tree.decision_node)


# pcs update rules (``cfrlab solve -a pcs -p KEY=VALUE``): vanilla CFR as pcs's preset, or
# DCFR's discounts (alpha 1.5, beta 0, gamma 2), which sampled solvers use
RULES = {"pcs": [], "dcfr": ["alpha=1.5", "beta=0", "gamma=2"]}


def solve_ir(game: Path, abst: Path, budgets: list[float], a: argparse.Namespace, out: dict[float, Path],
             unit: str = "s") -> dict:
    """``cfrlab solve -a pcs --no-real`` in ``abst`` until each budget (solver seconds, or
    iterations with ``unit`` "it"), resuming one checkpointed run, the average strategy copied
    at each budget; CPU seconds (both threads) beside the solver's wall seconds."""
    import resource
    import shutil

    run = out[budgets[0]].with_name(out[budgets[0]].name.rsplit("-", 1)[0] + "-run.npz")
    params = [x for kv in RULES[a.rule] for x in ("-p", kv)]
    marks, infosets = {}, None
    for t in budgets:
        stop = ["--iterations", str(int(t))] if unit == "it" else ["--seconds", str(t)]
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = cfrlab("solve", str(game), "-a", "pcs", "--abstraction", str(abst), "-s", str(a.seed), *params,
                   *stop, "--no-real", "--out", str(run), "--resume", "--checkpoint-every", "200",
                   "--no-progress")
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        shutil.copyfile(run, out[t])
        prev = marks[str(budgets[budgets.index(t) - 1])]["cpu_seconds"] if marks else 0.0
        marks[str(t)] = {"iterations": int(r["iterations"]), "seconds": r["seconds"],
                         "cpu_seconds": prev + used.ru_utime - cpu.ru_utime}
        infosets = r["infosets"]
        print(f"  {abst.name}: {r['iterations']:,} {a.rule} iterations in {r['seconds']:.0f} s "
              f"({marks[str(t)]['cpu_seconds']:.0f} s CPU) -> {out[t].name}", flush=True)
    return {"infosets": infosets, "rule": a.rule, "budgets": marks}


def real_br(strat: Path, game: Path, a: argparse.Namespace) -> dict:
    return cached(strat.with_suffix(".br.json"), lambda: cfrlab(
        "exploit", str(strat), "--real", "--game", str(game), "--workers", str(a.workers), "--resume"))


def imperfect_rows(d: Path, game: Path, kind: str, size: int, a: argparse.Namespace) -> list[dict]:
    abst = d / f"{kind}{size}.npz"
    if not abst.exists():
        t = time.perf_counter()
        build(game, kind, size, a, abst)
        print(f"  built {abst.name} in {time.perf_counter() - t:.0f} s", flush=True)
    u = a.unit
    tag = "" if a.rule == "pcs" else f"-{a.rule}"
    out = {t: d / f"s-{kind}{size}{tag}-{t:g}{u}.npz" for t in a.budgets}
    solved = cached(d / f"s-{kind}{size}{tag}{'-it' if u == 'it' else ''}.json",
                    lambda: solve_ir(game, abst, a.budgets, a, out, u))
    measured = a.budgets if kind in a.flat_check else a.budgets[-1:]
    rows = []
    for t in measured:
        real = real_br(out[t], game, a)
        mark = solved["budgets"][str(t)]
        rows.append({"kind": kind, "size": size, "buckets": per_round(size), "infosets": solved["infosets"],
                     "solver": solved.get("rule", "pcs"), "cpu_seconds": mark.get("cpu_seconds"),
                     "iterations": mark["iterations"], "solve_seconds": mark["seconds"], "budget": t,
                     "abstract_mbb": None, "real_mbb": real["exploitability"],
                     "real_by_position": real["best_response_values"], "real_seconds": real["seconds"]})
    return rows


def pr_row(game: Path, size: int, a: argparse.Namespace) -> dict:
    """The ladder's perfect-recall row (its files in --pr-dir; computed there when missing)."""
    if a.recorded_pr:
        sets, abstract, real, by_pos, br_s = RECORDED_PR[size]
        return {"kind": "pr", "size": size, "buckets": per_round(size), "infosets": sets,
                "iterations": 1000, "solve_seconds": None, "budget": None, "abstract_mbb": abstract,
                "real_mbb": real, "real_by_position": list(by_pos), "real_seconds": br_s, "recorded": True}
    d = Path(a.pr_dir)
    d.mkdir(parents=True, exist_ok=True)
    g = d / game.name
    if not g.exists():
        g.write_text(game.read_text())
    ladder = argparse.Namespace(iterations=1000, workers=a.workers, lbr_hands=20000, seed=1)
    r = rung(d, g, size, ladder)
    return {"kind": "pr", "size": size, "buckets": per_round(size), "infosets": r["infosets"],
            "iterations": 1000, "solve_seconds": r["solve_seconds"], "budget": None,
            "abstract_mbb": r["abstract_mbb"], "real_mbb": r["real_mbb"],
            "real_by_position": r["real_by_position"], "real_seconds": r["real_seconds"]}


def solver_of(r: dict) -> str:
    return "CFR+" if r["kind"] == "pr" else r.get("solver", "pcs")


def plot(rows: list[dict], path: Path) -> None:
    """Real-game exploitability against information sets, one marker set per kind and solver
    (the longest solve of each imperfect-recall row); the points also go to a .csv beside the
    figure, and every budget's point to its .budgets.csv (the real-game curves)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    final = {}
    for r in rows:  # the longest solve of each (kind, solver, size)
        key = (r["kind"], solver_of(r), r["size"])
        if key not in final or r["iterations"] >= final[key]["iterations"]:
            final[key] = r
    fig, (ax, cx) = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.1, 1]})
    series = sorted({(k, sv) for k, sv, _ in final}, key=lambda ks: (KINDS.index(ks[0]), ks[1]))
    for (kind, solver), marker in zip(series, "osD^vP*X"):
        got = sorted((r["infosets"], r["real_mbb"], r["iterations"]) for (k, sv, _), r in final.items()
                     if (k, sv) == (kind, solver))
        its = "/".join(sorted({f"{n:,}" for _, _, n in got}))
        line = ax.plot([x for x, _, _ in got], [y for _, y, _ in got], marker=marker,
                       linestyle="-" if len(got) > 1 else "", label=f"{LABELS[kind]} ({solver} {its} it.)")[0]
        if kind == "pr":  # the perfect-recall rows' value at each size, as a level on the right
            for x, y, _ in got:
                if x == max(r["infosets"] for r in rows if r["kind"] != "pr"):
                    cx.axhline(y, color=line.get_color(), linestyle="--", label=f"perfect recall, same size ({y:.0f})")
                    cx.axhline(0.75 * y, color="grey", linestyle=":", label=f"25% less: the goal ({0.75 * y:.0f})")
            continue
        curve = sorted((r["iterations"], r["real_mbb"]) for r in rows if (r["kind"], solver_of(r)) == (kind, solver))
        cx.plot([i for i, _ in curve], [y for _, y in curve], marker=marker, color=line.get_color(),
                label=f"{LABELS[kind]} ({solver})")
    cx.set_xlabel("imperfect-recall solve: iterations (boards sampled)")
    cx.set_ylabel("real-game exploitability (mbb/g)")
    cx.set_title("the same size (5-25-125-625) against solve length")
    cx.grid(True, alpha=0.3)
    cx.legend(fontsize=7)
    ax.set_xscale("log")
    ax.margins(x=0.08, y=0.08)
    ax.set_xlabel("information sets")
    ax.set_ylabel("real-game exploitability (mbb/g)")
    ax.set_title("24-card deck (6 ranks x 4 suits), HULHE betting")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    head = "kind,solver,size,buckets,infosets,iterations,solve_seconds,cpu_seconds,real_mbb,br_pos0,br_pos1,br_seconds"

    def line(r: dict) -> str:
        p0, p1 = r["real_by_position"]
        cpu = r.get("cpu_seconds")
        return (f"{r['kind']},{solver_of(r)},{r['size']},{'-'.join(map(str, r['buckets']))},{r['infosets']},"
                f"{r['iterations']},{r['solve_seconds'] or 0:.0f},{'' if cpu is None else f'{cpu:.0f}'},"
                f"{r['real_mbb']:.2f},{p0:.2f},{p1:.2f},{r['real_seconds']:.0f}")
    order = sorted(final.items(), key=lambda kv: (kv[0][2], KINDS.index(kv[0][0]), kv[0][1]))
    path.with_suffix(".csv").write_text("\n".join([head, *(line(r) for _, r in order)]) + "\n")
    every = sorted(rows, key=lambda r: (r["size"], KINDS.index(r["kind"]), solver_of(r), r["iterations"]))
    path.with_suffix(".budgets.csv").write_text("\n".join([head, *(line(r) for r in every)]) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=6)
    ap.add_argument("--suits", type=int, default=4)
    ap.add_argument("--sizes", default="5", help="perfect-recall bucket counts b (b^(r+1) states in round r)")
    ap.add_argument("--pr-sizes", default=None, help="sizes of the pr rows (default: --sizes)")
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    ap.add_argument("--seconds", default="600", help="pcs budgets (solver seconds), comma-separated")
    ap.add_argument("--iterations", default=None, help="instead: pcs budgets in iterations, comma-separated")
    ap.add_argument("--flat-check", default="percentile",
                    help="kinds measured at every budget (the others at the last)")
    ap.add_argument("--seed", type=int, default=1, help="seed of pcs and of k-means++")
    ap.add_argument("--rule", default="pcs", choices=sorted(RULES),
                    help="imperfect-recall solves: pcs (vanilla CFR) or dcfr (alpha 1.5, beta 0, gamma 2)")
    ap.add_argument("--bins", type=int, default=50, help="kmeans/ochs/potential: hand-strength histogram bins")
    ap.add_argument("--opp-clusters", type=int, default=8, help="ochs/potential: opponent preflop clusters")
    ap.add_argument("--workers", type=int, default=2, help="worker processes for the best response")
    ap.add_argument("--out-dir", default=None, help="default: out/abstraction-ladder-RxS")
    ap.add_argument("--pr-dir", default=None, help="the perfect-recall ladder's files (default: out/ladder-RxS)")
    ap.add_argument("--recorded-pr", action="store_true",
                    help="pr rows as docs/results/realgame.md records them (sizes 2-5), not re-run")
    ap.add_argument("--recorded-ir", action="store_true",
                    help="with --plot: also the first imperfect-recall rows (vanilla pcs) as docs/results/abstraction.md records them")
    ap.add_argument("--plot", default=None, help="PNG of exploitability against information sets (+ .csv)")
    ap.add_argument("--also", action="append", default=[],
                    help="with --plot: also the rows of another run's --json output (repeatable)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    kinds = a.kinds.split(",")
    if any(k not in KINDS for k in kinds):
        sys.exit(f"--kinds: each of {', '.join(KINDS)}")
    a.unit = "it" if a.iterations else "s"
    a.budgets = sorted(float(x) for x in (a.iterations or a.seconds).split(","))
    a.flat_check = a.flat_check.split(",")
    d = Path(a.out_dir or f"out/abstraction-ladder-{a.ranks}x{a.suits}")
    a.pr_dir = a.pr_dir or f"out/ladder-{a.ranks}x{a.suits}"
    game = game_dir(d, f"holdem-{a.ranks}x{a.suits}.game", reduced_holdem(a.ranks, a.suits))
    print(f"{a.ranks} ranks x {a.suits} suits, HULHE betting; pcs budgets {a.budgets} {a.unit}; files in {d}",
          flush=True)
    rows = []
    sizes = [int(x) for x in a.sizes.split(",")]
    pr_sizes = [int(x) for x in a.pr_sizes.split(",")] if a.pr_sizes else sizes
    for size in sorted(set(sizes) | (set(pr_sizes) if "pr" in kinds else set())):
        for kind in kinds:
            if size not in (pr_sizes if kind == "pr" else sizes):
                continue
            got = [pr_row(game, size, a)] if kind == "pr" else imperfect_rows(d, game, kind, size, a)
            for r in got:
                rows.append(r)
                p0, p1 = r["real_by_position"]
                print(f"{kind:>10} {'-'.join(map(str, r['buckets'])):>14} {r['infosets']:>10,} "
                      f"{r['iterations']:>8,} it {r['solve_seconds'] or 0:>6.0f} s  real {r['real_mbb']:>7.2f} "
                      f"({p0:.1f} / {p1:.1f}) BR {r['real_seconds']:.0f} s", flush=True)
    print("(mbb/g; real: exact best response with real cards, as position 0 / 1)")
    for f in a.also:  # rows of other runs (their --json line), e.g. budgets in other units
        rows += json.loads(Path(f).read_text().strip().splitlines()[-1])["rows"]
    if a.recorded_ir:
        rows += recorded_ir_rows()
    if a.plot:
        plot(rows, Path(a.plot))
    if a.json:
        print(json.dumps({"game": game.name, "rows": rows}))


if __name__ == "__main__":
    main()
