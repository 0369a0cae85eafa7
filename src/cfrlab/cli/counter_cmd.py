"""``cfrlab counter``: opponent models from logs, and FBR / RNR / DBR counter-strategies."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cfrlab.cli.common import check_new_output, check_output, command_group, print_json, writing
from cfrlab.counter import (
    DEFAULTS,
    OpponentModel,
    build_model,
    confidence,
    dbr,
    fbr,
    mixture_line,
    rnr,
)
from cfrlab.counter.perturbed import PerturbedSolver
from cfrlab.counter.responses import CONFIDENCE_KINDS, Counter
from cfrlab.engine import build_tree_for, exploitability, model_for_game
from cfrlab.errors import CfrlabError
from cfrlab.fileio import atomic_write_text
from cfrlab.games import load_game
from cfrlab.games.units import format_unit, to_unit, unit_of
from cfrlab.strategy import Strategy

AbstractionOpt = Annotated[Path | None, typer.Option("--abstraction", metavar="FILE",
                                                     help="the card abstraction the model is in (hold'em)")]
OutOpt = Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", help="file to write (.npz)")]
ForceOpt = Annotated[bool, typer.Option("--force", help="overwrite --out")]
JsonOpt = Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")]
MAX_ITERATIONS = 2**31 - 1  # -n: a count the solvers' kernels hold (past int64 numba raised a traceback)
IterOpt = Annotated[int, typer.Option("--iterations", "-n", metavar="N",
                                      help=f"CFR iterations (1 to {MAX_ITERATIONS:,})")]
AlgOpt = Annotated[str, typer.Option("--algorithm", "-a", metavar="ALG", help="cfr, cfr+, lcfr or dcfr")]
TargetOpt = Annotated[float | None, typer.Option("--target", "-t", metavar="GAP", help=(
    "stop once the gap to the restricted game's equilibrium is at most GAP (mbb/g, chips/g in "
    "ante games; checked at 100 iterations, then every 50); -n stays the most"))]


def _load_opponent(path: Path, abstraction: Path | None, need_counts: bool = False):
    """An OpponentModel when the file has counts, else a plain Strategy (FBR and RNR take both)."""
    try:
        return OpponentModel.load(path, abstraction=abstraction)
    except CfrlabError as e:
        if need_counts or "not an opponent model" not in str(e):
            raise
    return Strategy.load(path, model=abstraction)


def _report(c: Counter, out: Path | None, as_json: bool) -> None:
    g = c.strategy.game
    console = Console(highlight=False, soft_wrap=True, stderr=as_json)
    param = "" if c.parameter is None else f" {'p' if c.method == 'rnr' else 'P_max'} = {c.parameter:g}"
    its = f" after {c.iterations:,} iterations" if c.iterations else ""
    gap = "" if c.gap is None else f"; gap to the restricted game's equilibrium {format_unit(g, c.gap_chips)}"
    console.print(f"[bold]{c.method.upper()}{param}[/]{its}: wins {format_unit(g, c.exploitation_chips)} against the "
                  f"model; exploitability {format_unit(g, c.exploitability_chips)}{gap}")
    if out is not None:
        with writing(out, "counter-strategy"):
            c.strategy.save(out, overwrite=True)
        console.print(f"saved {out}")
    if as_json:
        print(json.dumps(_row(c) | {"out": None if out is None else str(out)}))


def _row(c: Counter) -> dict:
    g = c.strategy.game
    return {"method": c.method, "parameter": c.parameter, "iterations": c.iterations, "unit": unit_of(g),
            "exploitation": c.exploitation, "exploitability": c.exploitability,
            "exploitation_chips": c.exploitation_chips, "exploitability_chips": c.exploitability_chips,
            "gap": c.gap}


def _check_iterations(iterations: int) -> int:
    """Refuse an ``-n`` outside 1..MAX_ITERATIONS in one line, before any work."""
    if not 1 <= iterations <= MAX_ITERATIONS:
        shown = f"{iterations:,}" if abs(iterations) < 10**30 else "a number of more than 30 digits"
        raise CfrlabError(f"--iterations must be 1 to {MAX_ITERATIONS:,}, got {shown}")
    return iterations


def _gap(opponent, target: float | None) -> float | None:
    """--target in the game's unit (what rnr and dbr take)."""
    if target is None:
        return None
    if not target > 0:
        raise CfrlabError(f"--target is a positive gap, got {target:g}")
    return target


def _values(text: str) -> list[float]:
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CfrlabError(f"--p takes comma-separated probabilities, e.g. 0,0.25,0.5,1; got {text!r}") from None
    if not out or any(not 0.0 <= v <= 1.0 for v in out):
        raise CfrlabError(f"--p values are probabilities from 0 to 1; got {text!r}")
    return out


def _check_probability(flag: str, p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise CfrlabError(f"{flag} is a probability from 0 to 1, got {p:g}")


def _confidence(text: str) -> tuple[str, float]:
    kind, _, n = text.partition(":")
    if kind not in CONFIDENCE_KINDS:
        raise CfrlabError(f"--confidence is linear:N or step:N, got {text!r}")
    try:
        full = float(n or 10)
    except ValueError:
        raise CfrlabError(f"--confidence is linear:N or step:N, got {text!r}") from None
    confidence([0.0], 0.0, kind, full)  # validates N
    return kind, full


def register(app: typer.Typer) -> None:
    counter_app = command_group(app, "counter",
                                "Opponent models from logs and counter-strategies (FBR, RNR, DBR).")

    @counter_app.command("model")
    def model_cmd(
        game: Annotated[str, typer.Argument(help="built-in game name or .game file")],
        logs: Annotated[list[Path], typer.Argument(metavar="LOG...", help="ACPC match logs")],
        player: Annotated[str, typer.Option("--player", metavar="NAME", help="whose decisions to count")],
        out: OutOpt = None, force: ForceOpt = False, abstraction: AbstractionOpt = None,
        default: Annotated[str, typer.Option("--default", help=f"play where never seen: {', '.join(DEFAULTS)}")] = "call",
        as_json: JsonOpt = False,
    ) -> None:
        """Count a player's actions per information set in ACPC logs: an opponent model."""
        if out is None:
            raise CfrlabError("missing option --out FILE: the opponent model to write")
        check_new_output(out, force, "opponent model")
        m = build_model(logs, load_game(game), player, abstraction=abstraction, default=default)
        info = m.info()
        with writing(out, "opponent model"):
            m.save(out, overwrite=True)
        rows = len(m.counts)
        print(f"{player}: {info['hands']:,} hands, {info['decisions']:,} decisions in {info['infosets_seen']:,} "
              f"of {rows:,} information sets; elsewhere '{default}'; saved {out}")
        if as_json:
            print(json.dumps(info | {"rows": rows, "out": str(out)}))

    @counter_app.command("fbr")
    def fbr_cmd(
        model: Annotated[Path, typer.Argument(metavar="MODEL", help="opponent model or strategy file")],
        out: OutOpt = None, force: ForceOpt = False, abstraction: AbstractionOpt = None, as_json: JsonOpt = False,
    ) -> None:
        """Frequentist best response: the exact best response to the model."""
        check_new_output(out, force, "counter-strategy")
        _report(fbr(_load_opponent(model, abstraction)), out, as_json)

    @counter_app.command("rnr")
    def rnr_cmd(
        model: Annotated[Path, typer.Argument(metavar="MODEL", help="opponent model or strategy file")],
        p: Annotated[float, typer.Option("--p", help="probability that the opponent plays the model")],
        iterations: IterOpt = 1000, algorithm: AlgOpt = "cfr+", target: TargetOpt = None,
        out: OutOpt = None, force: ForceOpt = False, abstraction: AbstractionOpt = None, as_json: JsonOpt = False,
    ) -> None:
        """Restricted Nash response: exploit the model with probability p, stay safe otherwise."""
        _check_iterations(iterations)
        check_new_output(out, force, "counter-strategy")
        _check_probability("--p", p)
        opponent = _load_opponent(model, abstraction)
        _report(rnr(opponent, p, iterations=iterations, algorithm=algorithm,
                    target=_gap(opponent, target)), out, as_json)

    @counter_app.command("dbr")
    def dbr_cmd(
        model: Annotated[Path, typer.Argument(metavar="MODEL", help="opponent model (cfrlab counter model)")],
        p_max: Annotated[float, typer.Option("--p-max", help="trust in the model where it is best observed")],
        conf: Annotated[str, typer.Option("--confidence", help="linear:N or step:N observations")] = "linear:10",
        iterations: IterOpt = 1000, algorithm: AlgOpt = "cfr+", target: TargetOpt = None,
        out: OutOpt = None, force: ForceOpt = False, abstraction: AbstractionOpt = None, as_json: JsonOpt = False,
    ) -> None:
        """Data-biased response: trust the model where it was observed often."""
        _check_iterations(iterations)
        check_new_output(out, force, "counter-strategy")
        _check_probability("--p-max", p_max)
        kind, full = _confidence(conf)
        m = _load_opponent(model, abstraction, need_counts=True)
        _report(dbr(m, p_max, kind=kind, full=full, iterations=iterations, algorithm=algorithm,
                    target=_gap(m, target)), out, as_json)

    @counter_app.command("perturbed")
    def perturbed_cmd(
        game: Annotated[str, typer.Argument(help="built-in game name or .game file")],
        bonus: Annotated[float, typer.Option("--bonus", help="the winner's bonus: 0.07 multiplies winnings by "
                                             "1.07 (more aggressive)")] = 0.0,
        penalty: Annotated[float, typer.Option("--penalty", help="the loser's penalty: 0.07 multiplies losses by "
                                               "1.07 (tighter, more passive)")] = 0.0,
        iterations: IterOpt = 1000, algorithm: AlgOpt = "cfr+",
        out: OutOpt = None, force: ForceOpt = False, abstraction: AbstractionOpt = None, as_json: JsonOpt = False,
    ) -> None:
        """A perturbed equilibrium: CFR on the game with a winner's bonus (a more aggressive style)
        or a loser's penalty (a tighter one); its exploitability is measured in the real
        (unperturbed) game."""
        _check_iterations(iterations)
        check_new_output(out, force, "strategy")
        g = load_game(game)
        tree, model = build_tree_for(g), model_for_game(g, abstraction)
        solver = PerturbedSolver(tree, model, bonus=bonus, penalty=penalty, algorithm=algorithm)
        solver.iterate(iterations)
        policy = solver.average_policy()
        s = Strategy.from_policy(g, policy, tree=tree, model=model, algorithm=f"{algorithm}+perturbed",
                                 params={"bonus": bonus, "penalty": penalty}, iterations=iterations,
                                 exploitability=exploitability(tree, model, policy))
        s.header["game_value"] = s.game_value("chips/g")
        expl = s.header["exploitability"]
        print(f"winner's bonus {bonus:g}, loser's penalty {penalty:g} after {iterations:,} iterations of "
              f"{algorithm}: exploitability in the real game {format_unit(g, expl)}")
        if out is not None:
            with writing(out, "strategy"):
                s.save(out, overwrite=True)
            print(f"saved {out}")
        if as_json:
            print(json.dumps({"bonus": bonus, "penalty": penalty, "iterations": iterations, "unit": unit_of(g),
                              "exploitability": to_unit(g, expl), "exploitability_chips": expl,
                              "out": None if out is None else str(out)}))

    @counter_app.command("sweep")
    def sweep_cmd(
        model: Annotated[Path, typer.Argument(metavar="MODEL", help="opponent model or strategy file")],
        p: Annotated[str, typer.Option("--p", help="comma-separated p (RNR) or P_max (DBR) values")] =
            "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1",
        method: Annotated[str, typer.Option("--method", help="rnr or dbr")] = "rnr",
        conf: Annotated[str, typer.Option("--confidence", help="DBR: linear:N or step:N")] = "linear:10",
        iterations: IterOpt = 1000, algorithm: AlgOpt = "cfr+", target: TargetOpt = None,
        csv_out: Annotated[Path | None, typer.Option("--csv", metavar="FILE", help="the points as CSV")] = None,
        plot: Annotated[Path | None, typer.Option("--plot", metavar="FILE", help="exploitation against "
                                                  "exploitability (PNG), with the mixture line")] = None,
        abstraction: AbstractionOpt = None, as_json: JsonOpt = False,
    ) -> None:
        """Counter-strategies over p: exploitation of the model against own exploitability."""
        _check_iterations(iterations)
        values = _values(p)
        if method not in ("rnr", "dbr"):
            raise CfrlabError(f"--method is rnr or dbr, got {method!r}")
        kind, full = _confidence(conf)
        for path, what in ((csv_out, "CSV"), (plot, "plot")):
            check_output(path, what)
        opponent = _load_opponent(model, abstraction, need_counts=method == "dbr")
        gap = _gap(opponent, target)
        points: list[Counter] = []
        console = Console(highlight=False, soft_wrap=True, stderr=as_json)
        for v in values:
            t0 = time.perf_counter()
            c = (rnr(opponent, v, iterations=iterations, algorithm=algorithm, target=gap) if method == "rnr" else
                 dbr(opponent, v, kind=kind, full=full, iterations=iterations, algorithm=algorithm, target=gap))
            g = c.strategy.game
            console.print(f"{method} {v:g}: exploitation {format_unit(g, c.exploitation_chips)}, "
                          f"exploitability {format_unit(g, c.exploitability_chips)}"
                          + (f", gap {format_unit(g, c.gap_chips)}" if c.gap is not None else "")
                          + f" ({c.iterations:,} iterations, {time.perf_counter() - t0:.0f} s)")
            points.append(c)
        if csv_out is not None:
            buf = io.StringIO()
            w = csv.writer(buf)
            w.writerow(["method", "parameter", "iterations", "unit", "exploitation", "exploitability", "gap"])
            for c in points:
                r = _row(c)
                w.writerow([r["method"], r["parameter"], r["iterations"], r["unit"], r["exploitation"],
                            r["exploitability"], "" if r["gap"] is None else r["gap"]])
            with writing(csv_out, "CSV"):
                atomic_write_text(csv_out, buf.getvalue())
            console.print(f"wrote {csv_out}")
        if plot is not None:
            _plot(points, plot, method)
            console.print(f"wrote {plot}")
        if as_json:
            print_json({"method": method, "points": [_row(c) for c in points]})


def _plot(points: list[Counter], path: Path, method: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = points[0].strategy.game
    unit = unit_of(g)
    xs = [c.exploitability for c in points]
    ys = [c.exploitation for c in points]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(xs, ys, "o-", label=method.upper())
    for c, x, y in zip(points, xs, ys):
        ax.annotate(f"{c.parameter:g}", (x, y), textcoords="offset points", xytext=(4, -10), fontsize=8)
    line = mixture_line(points[0], points[-1])
    ax.plot([a for a, _ in line], [b for _, b in line], "k:", label="mixture")
    ax.set_xlabel(f"exploitability ({unit})")
    ax.set_ylabel(f"exploitation of the model ({unit})")
    ax.legend()
    fig.tight_layout()
    with writing(path, "plot"):
        fig.savefig(path.with_name(path.name + ".tmp.png"))
        Path(path.with_name(path.name + ".tmp.png")).replace(path)
    plt.close(fig)
