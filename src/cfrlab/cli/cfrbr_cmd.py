"""``cfrlab cfrbr``: CFR-BR in a card abstraction against a real-game best response
(cfrlab.realgame.cfrbr)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.cli.common import (
    check_new_output,
    check_output,
    check_seconds,
    check_workers,
    human_seconds,
    json_summary,
)
from cfrlab.errors import CfrlabError


def run_cfrbr(game: str, abstraction: Path, iterations: int, algorithm: str | None = None,
              opponent: str | None = None, policy: str | None = None, out: Path | None = None,
              force: bool = False, resume: bool = False, checkpoint_every: float = 60.0,
              progress: bool = True, as_json: bool = False, eval_every: int = 10,
              trunk: int | None = None, seed: int = 0, workers: int = 1) -> dict:
    """Run CFR-BR and print the result (a JSON line with ``as_json``); returns the summary.
    ``trunk``: CFR-BR with a sampled trunk (cfrlab.realgame.cfrbr_trunk), for games whose
    real information sets do not fit."""
    if iterations < 1:
        raise CfrlabError(f"--iterations must be at least 1, got {iterations}")
    if eval_every < 0:
        raise CfrlabError(f"--eval-every must be at least 0, got {eval_every}")
    check_seconds(checkpoint_every, "--checkpoint-every")
    check_workers(workers)  # 0 and 100,000 were taken (the cap: cfrlab.jobs.workers_problem)
    if trunk is not None and opponent not in (None, "br"):
        raise CfrlabError("--trunk plays against a best response below the trunk (--opponent br)")
    opponent = opponent or ("br" if trunk is not None else "real")
    from cfrlab.games import load_game  # after the checks: the real-game modules load kernels
    from cfrlab.realgame.cfrbr import cfrbr
    from cfrlab.realgame.cfrbr_trunk import cfrbr_trunk

    g = load_game(game)
    ckpt = None
    if out is not None:
        check_output(out, "strategy")
        if out.exists() and not (force or resume):
            raise CfrlabError(f"{out} exists; use --force to overwrite it")
        ckpt = Path(str(out) + ".ckpt")
        check_new_output(ckpt, force or resume, "checkpoint")
        if force and ckpt.exists() and not resume:
            ckpt.unlink()
    elif resume:
        raise CfrlabError("--resume needs --out FILE (the checkpoint sits next to it)")
    last = [0.0]

    def show(done: int, total: int, expl: float | None) -> None:
        now = time.perf_counter()
        if not progress or (done < total and now - last[0] < 2.0):
            return
        last[0] = now
        e = "" if expl is None else f"  {'current' if opponent == 'br' else which} strategy {expl:.6g}"
        print(f"\riteration {done:,}/{total:,}{e}   ", end="" if done < total else "\n",
              file=sys.stderr, flush=True)

    which = policy or ("current" if opponent == "br" else "average")
    if trunk is not None:
        r = cfrbr_trunk(g, abstraction, iterations=iterations, trunk=trunk,
                        algorithm=algorithm or "cfr+", policy=which, seed=seed, checkpoint=ckpt,
                        checkpoint_every=checkpoint_every, resume=resume, progress=show,
                        workers=workers)
    else:
        r = cfrbr(g, abstraction, iterations=iterations, algorithm=algorithm, opponent=opponent,
                  policy=which, checkpoint=ckpt, checkpoint_every=checkpoint_every, resume=resume,
                  eval_every=eval_every, progress=show)
    how = {"br": "CFR-BR" if trunk is None else f"CFR-BR with a sampled trunk ({trunk} round{'s' * (trunk != 1)})", "real": "CFR against a real-game opponent",
           "abstract": "CFR in the abstract game"}.get(opponent, opponent)
    algorithm = r.strategy.header["params"]["algorithm"]
    print(f"{how} ({algorithm}), {r.iterations:,} iterations in {human_seconds(r.seconds)}: the "
          f"{which} strategy's real-game exploitability {r.exploitability:.6g} {r.unit} "
          f"(best response as position 0 {r.br[0]:.6g}, as position 1 {r.br[1]:.6g})")
    if r.lower_bound is not None:
        print(f"no strategy of this abstraction is less exploitable than {r.lower_bound:.6g} {r.unit} "
              f"(its best response to the real opponent's average)")
    if out is not None:
        r.strategy.save(out, overwrite=True)
        print(f"saved {out}")
    summary = {"game": g.name, "abstraction": str(abstraction), "algorithm": algorithm,
               "opponent": opponent, "policy": which, "trunk": trunk, **r.summary(),
               "out": None if out is None else str(out),
               "history": [[i, e] for i, e in r.history]}
    return json_summary(summary, as_json)


def register(app: typer.Typer) -> None:
    @app.command("cfrbr")
    def cfrbr_command(
        game: Annotated[str, typer.Argument(help="game: a built-in name or a .game file")],
        abstraction: Annotated[Path, typer.Option(
            "--abstraction", metavar="FILE", help="card abstraction file (cfrlab abstract build)")],
        iterations: Annotated[int, typer.Option("--iterations", "-n", metavar="N",
                                                help="iterations (against br: a real-game best response per position each)")] = 1000,
        algorithm: Annotated[str | None, typer.Option("--algorithm", "-a", help=(
            "the abstract player's rule (and a real opponent's): cfr, cfr+ (regret matching+, "
            "linear average), dcfr (discounted, 1.5/0/2) or pcfr+ (predictive); default dcfr, "
            "cfr+ against br"))] = None,
        opponent: Annotated[str | None, typer.Option(
            "--opponent", help="real: a real-game regret minimizer (CFR-BR's optimum in far "
            "fewer iterations, the real game's tables in memory); br: a real-game best response "
            "every iteration (CFR-BR as in the paper); abstract: the abstract player itself "
            "(ordinary CFR in the abstraction, for comparison); default real, br with --trunk")] = None,
        policy: Annotated[str | None, typer.Option(
            "--policy", metavar="P", help="strategy returned: current (default against br, the "
            "paper's), average (default otherwise) or best (the best iterate against br; not with --trunk)")] = None,
        eval_every: Annotated[int, typer.Option(
            "--eval-every", metavar="N", help="against real or abstract: the strategy's exact "
            "real-game exploitability every N iterations (0: only at the end)")] = 10,
        out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE",
                                                 help="strategy file (.npz) to write")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="continue from the checkpoint next to --out")] = False,
        force: Annotated[bool, typer.Option("--force", help="overwrite --out and discard its checkpoint")] = False,
        checkpoint_every: Annotated[float, typer.Option(
            "--checkpoint-every", metavar="S", help="seconds between checkpoints (FILE.ckpt beside --out)")] = 60.0,
        progress: Annotated[bool, typer.Option("--progress/--no-progress", help="show progress on stderr")] = True,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
        trunk: Annotated[int | None, typer.Option(
            "--trunk", metavar="K", help="CFR-BR with a sampled trunk, for games whose real "
            "information sets do not fit (four rounds, HULHE): the opponent a real-game regret "
            "minimizer in the first K rounds (1: preflop; 2: and the flop, the paper's HULHE "
            "form), a best response below; one flop class sampled per iteration")] = None,
        seed: Annotated[int, typer.Option("--seed", help="with --trunk: the sampling's seed")] = 0,
        workers: Annotated[int, typer.Option(
            "--workers", metavar="N", help="with --trunk: processes for the final exact "
            "real-game best response")] = 1,
    ) -> None:
        """CFR-BR in a card abstraction (Johanson, Bard, Burch and Bowling 2012): the least
        exploitable strategy the abstraction can represent, by CFR against a real-game opponent
        (a regret minimizer by default, a best response every iteration with --opponent br).
        Prints the strategy's exact real-game exploitability; games whose real game the
        lossless engine holds (small hold'em decks), and with --trunk four-round games and HULHE."""
        run_cfrbr(game, abstraction, iterations, algorithm, opponent, policy, out, force, resume,
                  checkpoint_every, progress, as_json, eval_every, trunk, seed, workers)
