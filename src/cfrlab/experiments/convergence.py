"""Exploitability against iterations and seconds for several abstractions (Zinkevich et al. 2007's
Figure 1(b)) and the Figure 1(a)-style table.

A run's curve is the ``history`` a solve keeps in its checkpoint header: (iteration, solver
seconds, exploitability in chips). ``run_curve`` solves one abstraction with a budget and
returns its curve; ``curve_from_checkpoint`` reads the curve of a run made by ``cfrlab solve
--checkpoint-every`` (so long runs are plotted without solving again).
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

from cfrlab.abstraction.sizes import sizes
from cfrlab.engine import load_abstraction
from cfrlab.errors import CfrlabError
from cfrlab.fileio import load_npz
from cfrlab.games import load_game
from cfrlab.games.units import from_unit, to_unit
from cfrlab.solvers import make_solver
from cfrlab.solvers.driver import Checkpointer, StopRule, run_solve
from cfrlab.tree import build_tree


def abstraction_sizes(model) -> dict:
    """Buckets, information sets and game states (counted as Zinkevich et al. 2007 count them) of a bucketed model."""
    sz = sizes(model.game, list(model.spec.counts), model.spec.recall)
    return {"buckets": int(model.spec.counts[0]), "infosets": int(sz["infosets"]),
            "states": int(sz["states"])}


def run_curve(abstraction: Path, algorithm: str = "cfr+", seconds: float = 600.0,
              eval_every: int = 25, target_mbb: float | None = None, checkpoint: Path | None = None,
              log=None, resume: bool = False) -> dict:
    """Solve in ``abstraction`` for ``seconds`` (or to ``target_mbb``); the run's curve.

    With ``resume`` the run continues from ``checkpoint`` when it exists (``seconds`` counts
    the solver time of the whole run, before and after the resume).
    """
    g = load_game("holdem-limit")
    model = load_abstraction(abstraction, g)
    tree = build_tree(g)
    solver = make_solver(tree, model, algorithm)
    stop = StopRule(None, seconds, None if target_mbb is None else from_unit(g, target_mbb))
    ck = None
    if checkpoint is not None:
        ck = Checkpointer(checkpoint, {"game": g.to_text(), "game_name": g.name, "model_hash": model.hash,
                                       "algorithm": algorithm, "params": None, "seed": None})
    run = ck.load(solver) if (resume and ck is not None and ck.exists()) else None
    if run is not None and log is not None:
        log(f"{abstraction.name}: resumed at iteration {solver.iterations} ({run.solver_seconds:.1f} s)")

    def tick(t):
        if log is not None and t.measured_at == t.iterations and t.exploitability is not None:
            log(f"{abstraction.name}: it {t.iterations} {t.solver_seconds:.1f} s "
                f"{to_unit(g, t.exploitability):.3f} mbb/g")

    t0 = time.perf_counter()
    res = run_solve(solver, stop, solver.exploitability,
                    eval_every=eval_every, checkpoint=ck, checkpoint_every=eval_every if ck else None,
                    run=run, on_tick=tick)
    hist = [(i, s, to_unit(g, e)) for i, s, e in res.state.history]
    return {"abstraction": str(abstraction), **abstraction_sizes(model), "algorithm": algorithm,
            "history": hist, "wall_seconds": time.perf_counter() - t0, "solver": solver}


def curve_from_checkpoint(path: Path, abstraction: Path) -> dict:
    """The curve stored in a ``cfrlab solve`` checkpoint (mbb/g)."""
    header, _ = load_npz(path, kind="checkpoint")
    model = load_abstraction(abstraction)
    if header.get("model_hash") != model.hash:
        raise CfrlabError(f"{path} was not made in abstraction {abstraction}")
    hist = [(int(i), float(s), to_unit(model.game, float(e)))
            for i, s, e in (header.get("run") or {}).get("history", [])]
    return {"abstraction": str(abstraction), **abstraction_sizes(model),
            "algorithm": header.get("algorithm"), "history": hist}


def seconds_to_target(history, target_mbb: float) -> float | None:
    for _, s, e in history:
        if e <= target_mbb:
            return s
    return None


def write_csv(curves: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["buckets", "infosets", "states", "algorithm", "iteration",
                    "iterations_per_infoset", "seconds", "exploitability_mbb"])
        for c in curves:
            for i, s, e in c["history"]:
                w.writerow([c["buckets"], c["infosets"], c["states"], c["algorithm"], i,
                            f"{i / c['infosets']:.6g}", f"{s:.3f}", f"{e:.6g}"])


def plot(curves: list[dict], path: Path) -> None:
    """Two panels: exploitability vs iterations / information sets, and vs seconds (log y)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for c in curves:
        if not c["history"]:
            continue
        it, s, e = zip(*c["history"])
        lab = f"CFR{c['buckets']} ({c['algorithm']})"
        a.plot([x / c["infosets"] for x in it], e, label=lab)
        b.plot(s, e, label=lab)
    a.set_xlabel("iterations / information sets")
    b.set_xlabel("solver seconds")
    for ax in (a, b):
        ax.set_yscale("log")
        ax.set_xscale("log")  # the paper plots over orders of magnitude
        for axis in (ax.xaxis, ax.yaxis):  # labels on decades only: short ranges overlap
            axis.set_minor_formatter(NullFormatter())
        ax.set_ylabel("exploitability in own abstraction (mbb/g)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table(curves: list[dict], targets: dict[int, float] | None = None) -> str:
    """Markdown, Zinkevich et al. 2007's Figure 1(a) columns plus the time to the paper's exploitability."""
    paper = {5: (6.45e9, 100e6, 33, 3.4), 6: (27.7e9, 200e6, 75, 3.1),
             8: (276e9, 750e6, 261, 2.7), 10: (1646e9, 2000e6, 326, 2.2)}
    rows = [("| buckets | infosets | states | iterations | solver time | exploitability (mbb/g) "
            "| time to the paper's figure | paper: iterations, time, mb/h |"),
            "|---|---|---|---|---|---|---|---|"]
    for c in curves:
        if not c["history"]:
            continue
        i, s, e = c["history"][-1]
        sd = paper.get(c["buckets"])
        tt = seconds_to_target(c["history"], sd[3]) if sd else None
        rows.append(f"| {c['buckets']} | {c['infosets']:,} | {c['states']:.3g} | {i:,} | {s:,.0f} s | "
                    f"{e:.3f} | {'-' if tt is None else f'{tt:,.0f} s'} | "
                    + (f"{sd[1]:.3g}, {sd[2]} h, {sd[3]}" if sd else "-") + " |")
    return "\n".join(rows)
