"""``cfrlab exploit-real``: exact best response in the real game (cfrlab.realgame).

``run_exploit_real(...)`` does the work, so ``cfrlab exploit STRATEGY --real`` can call it
with the same options.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.cli.common import (
    BotGameOpt,
    SolvedInOpt,
    TargetArg,
    WorkersOpt,
    check_new_output,
    check_workers,
    human_seconds,
    json_summary,
    strategy_or_bot,
)
from cfrlab.errors import CfrlabError


def default_checkpoint(target: str, game_name: str) -> Path:
    """Where a run keeps its finished units unless told: beside the strategy file, or in the
    working directory for a bot."""
    p = Path(target)
    if p.suffix == ".npz":
        return p.with_name(p.name + ".realbr")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{target}-{game_name}")
    return Path(f"realbr-{safe}")


def _results_units(path: str) -> int:
    """How many units a results file holds (0 if it cannot be read)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            return len(data["units"])
    except Exception:  # noqa: BLE001 - only for the message
        return 0


def run_exploit_real(target: str, game: str | None = None, abstraction: str | None = None,
                     workers: int = 1, resume: bool = False, checkpoint: str | None = None,
                     as_json: bool = False, quiet: bool = False, ray: str | None = None,
                     br_out: Path | None = None, force: bool = False,
                     results: str | None = None, precision: str = "float64") -> dict:
    """Real-game best response to a strategy file or a bot; prints the result (and a JSON line
    with ``as_json``) and returns the summary dict. ``br_out``: also save the best response
    itself (a lossless strategy playing both positions), where the game is small enough.
    ``results``: a results file instead of the checkpoint directory (continued if it exists).
    ``precision``: float32 runs the last round in single precision (``real_best_response``)."""
    from cfrlab.games.units import format_unit, to_unit
    from cfrlab.realgame import real_best_response, real_best_response_strategy
    from cfrlab.realgame.brstrategy import check_storable

    check_workers(workers, ray)
    if results is not None and (checkpoint is not None or resume):
        raise CfrlabError("--results replaces --checkpoint and --resume (a run continues from "
                          "its results file)")
    g, opponent = strategy_or_bot(target, game, abstraction, parallel=workers > 1 or bool(ray))
    ck = Path(checkpoint) if checkpoint else default_checkpoint(target, g.name or "game")
    if br_out is not None:  # refuse before any work: a game too large, a file in the way
        check_storable(g)
        check_new_output(br_out, force, "best response")
    last = [0.0]

    def progress(done, total, elapsed, eta):
        if quiet:
            return
        now = time.perf_counter()
        if done < total and now - last[0] < 2.0:
            return
        last[0] = now
        print(f"\runits {done:,}/{total:,}  elapsed {human_seconds(elapsed)}  left "
              f"{human_seconds(eta)}   ", end="" if done < total else "\n", file=sys.stderr,
              flush=True)

    try:
        r = real_best_response(opponent, g, workers=workers, checkpoint=None if results else ck,
                               resume=resume, progress=progress, ray=ray, results=results,
                               precision=precision)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the finished units are on disk
        if results is not None:
            kept = _results_units(results)
            print(f"\ncfrlab: interrupted; {kept:,} finished units kept in {results}: run the same "
                  "command to continue (here, or on another machine with the strategy)",
                  file=sys.stderr, flush=True)
            raise SystemExit(130) from None
        kept = len(list(ck.glob("unit-*.npz"))) if ck.is_dir() else 0
        print(f"\ncfrlab: interrupted; {kept:,} finished units kept in {ck}: run the same "
              "command with --resume to continue", file=sys.stderr, flush=True)
        raise SystemExit(130) from None
    except CfrlabError as e:  # the API says resume=True; the CLI user types --resume
        raise CfrlabError(str(e).replace("(resume=True)", "(--resume)")) from None
    b0, b1 = r.br
    unit = r.unit
    if br_out is not None:
        _, br = real_best_response_strategy(opponent, g)
        br.save(br_out, overwrite=True)
    print(f"real game: best response as player 0 wins {to_unit(g, b0):.6g} {unit}; "
          f"as player 1 wins {to_unit(g, b1):.6g} {unit}")
    if r.method == "fixed":
        print(f"real-game exploitability {format_unit(g, r.exploitability)} (mean of the two) in "
              f"{human_seconds(r.seconds)} (a card-independent opponent: {r.units:,} board classes, "
              "no checkpoints needed)")
    else:
        print(f"real-game exploitability {format_unit(g, r.exploitability)} (mean of the two); "
              f"{r.units:,} units ({r.units_computed:,} computed now) in {human_seconds(r.seconds)}, "
              + (f"results in {results}" if results else f"checkpoints in {ck}")
              + ("; float32 lanes (values within about 3e-7 of the largest)"
                 if r.precision == "float32" else ""))
    summary = {"game": g.name or "custom", "target": target, "unit": unit,
               "exploitability": to_unit(g, r.exploitability),
               "exploitability_chips": r.exploitability,
               "best_response_values": [to_unit(g, b0), to_unit(g, b1)],
               "units": r.units, "units_computed": r.units_computed, "seconds": r.seconds,
               "workers": workers, "ray": ray,
               "checkpoint": None if r.method == "fixed" or results else str(ck), "results": results,
               "method": r.method, "precision": r.precision,
               "br_out": None if br_out is None else str(br_out)}
    if br_out is not None:
        print(f"best response saved to {br_out} (a lossless strategy playing both positions)")
    return json_summary(summary, as_json)


PRECISION_HELP = ("float32: the last round in single precision, 1.7x faster in hold'em, values "
                  "within about 3e-7 of the largest (measured); float64 (default): exact to rounding")
BR_OUT_HELP = ("with --real: also save the best response itself, a lossless strategy playing "
               "both positions (games small enough to store it: Kuhn, Leduc, reduced decks)")


def register(app: typer.Typer) -> None:
    @app.command("exploit-real")
    def exploit_real(
        target: TargetArg, game: BotGameOpt = None, abstraction: SolvedInOpt = None,
        workers: WorkersOpt = 1,
        ray: Annotated[str | None, typer.Option(
            "--ray", help="run the units on an existing Ray cluster: 'auto' or HOST:PORT")] = None,
        resume: Annotated[bool, typer.Option(
            "--resume", help="continue a stopped run from its checkpoint directory")] = False,
        checkpoint: Annotated[str | None, typer.Option(
            "--checkpoint", help="directory for finished units (default: STRATEGY.realbr)")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
        br_out: Annotated[Path | None, typer.Option("--br-out", metavar="FILE", help=BR_OUT_HELP)] = None,
        force: Annotated[bool, typer.Option("--force", help="replace an existing --br-out file")] = False,
        results: Annotated[str | None, typer.Option(
            "--results", metavar="FILE", help="keep the finished units' summed values in one file "
                                              "(instead of --checkpoint); a run continues from it, "
                                              "on this machine or another")] = None,
        precision: Annotated[str, typer.Option("--precision", help=PRECISION_HELP)] = "float64",
    ) -> None:
        """Exact best response in the real game (real cards, no abstraction): each seat's value
        and the exploitability, computed by independent units that a stopped run resumes."""
        run_exploit_real(target, game, abstraction, workers, resume, checkpoint, as_json, ray=ray,
                         br_out=br_out, force=force, results=results, precision=precision)
