"""``cfrlab deep train|tabulate``: Deep CFR and SD-CFR (the optional extra ``cfrlab[deep]``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cfrlab.cli.common import check_new_output, check_output, command_group, writing
from cfrlab.deep import METHODS, DeepParams, fits_table, load_nets, require_jax, train
from cfrlab.deep.network import check_layers
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.games.units import format_unit

DEFAULTS = DeepParams()


def _hidden(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise CfrlabError(f"--hidden takes widths separated by commas (e.g. 64,64), got {text!r}") from None
    check_layers(widths, "--hidden")
    return widths


def _positive(**values: int | None) -> None:
    for name, v in values.items():
        if v is not None and v < 1:
            raise CfrlabError(f"--{name.replace('_', '-')} must be at least 1, got {v}")


def register(app: typer.Typer) -> None:
    deep_app = command_group(app, "deep", "Deep CFR and Single Deep CFR: neural strategies measured exactly.")

    @deep_app.command("train")
    def train_cmd(
        game: Annotated[str, typer.Argument(metavar="GAME", help="built-in game name or .game file (2 players)")],
        method: Annotated[str, typer.Option("--method", metavar="M", help="sdcfr or deepcfr")] = "sdcfr",
        iterations: Annotated[int, typer.Option("--iterations", "-n", metavar="N", help="CFR iterations")] = 100,
        traversals: Annotated[int, typer.Option("--traversals", "-k", metavar="K",
                                                help="traversals per player per iteration")] = 1000,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED",
                                                 help="seed (default: drawn and printed)")] = None,
        out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE",
                                                 help="weights file (.npz) to write")] = None,
        strategy_out: Annotated[Path | None, typer.Option("--strategy-out", metavar="FILE", help=(
            "also write the tabulated policy as a strategy file"))] = None,
        force: Annotated[bool, typer.Option("--force", help="overwrite the output files")] = False,
        hidden: Annotated[str, typer.Option("--hidden", metavar="W,W", help="hidden layer widths")] = ",".join(
            str(h) for h in DEFAULTS.hidden),
        adv_steps: Annotated[int, typer.Option("--adv-steps", metavar="N",
                                               help="minibatch steps per advantage network")] = DEFAULTS.adv_steps,
        batch: Annotated[int, typer.Option("--batch", metavar="B", help="minibatch size")] = DEFAULTS.adv_batch,
        avg_steps: Annotated[int, typer.Option("--avg-steps", metavar="N",
                                               help="deepcfr: steps of the average network")] = DEFAULTS.avg_steps,
        lr: Annotated[float, typer.Option("--lr", metavar="LR", help="Adam learning rate")] = DEFAULTS.learning_rate,
        buffer: Annotated[int, typer.Option("--buffer", metavar="N", help="reservoir capacity")] = DEFAULTS.buffer,
        warm_start: Annotated[bool, typer.Option("--warm-start", help=(
            "continue each advantage network from the previous one (default: from scratch)"))] = False,
        eval_every: Annotated[int | None, typer.Option("--eval-every", metavar="N", help=(
            "measure the exact exploitability every N iterations (default: 10 points)"))] = None,
        checkpoint: Annotated[Path | None, typer.Option("--checkpoint", metavar="FILE", help=(
            "games too large to tabulate: save the run after every iteration and resume from FILE "
            "when it exists"))] = None,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
    ) -> None:
        """Train Deep CFR or SD-CFR networks; print the exact exploitability of their tabulated policy
        (games too large to tabulate, such as holdem-limit, train on dealt cards and play per decision:
        measure them with cfrlab lbr and cfrlab match)."""
        require_jax()
        if method not in METHODS:
            raise CfrlabError(f"unknown method {method!r}; choose --method {' or '.join(METHODS)}")
        _positive(iterations=iterations, traversals=traversals, adv_steps=adv_steps, batch=batch,
                  avg_steps=avg_steps, buffer=buffer, eval_every=eval_every)
        if not (math.isfinite(lr) and lr > 0):
            raise CfrlabError(f"--lr must be a finite number above 0, got {lr}")
        params = DeepParams(hidden=_hidden(hidden), adv_steps=adv_steps, adv_batch=batch, avg_steps=avg_steps,
                            avg_batch=max(batch, DEFAULTS.avg_batch), learning_rate=lr, buffer=buffer,
                            warm_start=warm_start)
        check_new_output(out, force, "weights")
        check_new_output(strategy_out, force, "strategy")
        g = load_game(game)
        tabulated = fits_table(g)
        if not tabulated and strategy_out is not None:
            raise CfrlabError(f"--strategy-out: {g.name or 'this game'} is too large to tabulate")
        if tabulated and checkpoint is not None:
            raise CfrlabError("--checkpoint is for games too large to tabulate (these runs are short)")
        console = Console(highlight=False, soft_wrap=True)
        console.print(f"[bold]{g.name or Path(game).stem}[/]: {method}, {iterations} iterations x {traversals} "
                      f"traversals per player, networks {params.hidden}, seed {seed if seed is not None else 'drawn'}")

        def show(point: dict) -> None:
            e = point["exploitability"]
            console.print(f"iteration {point['iteration']:>5}  traversals {point['traversals']:>10,}  "
                          f"{point['seconds']:8.1f} s ({point['cpu_seconds']:.1f} s CPU)"
                          + ("" if e is None else f"  exploitability {format_unit(g, e)}"))

        every = eval_every or max(1, iterations // 10)
        if checkpoint is not None:
            check_output(checkpoint, "checkpoint")
        result = train(g, method, iterations, traversals, seed, params, every, progress=show, checkpoint=checkpoint)
        nets, strategy = result.nets, result.strategy
        if out is not None:
            with writing(out, "weights"):
                nets.save(out)
        if strategy_out is not None:
            with writing(strategy_out, "strategy"):
                strategy.save(strategy_out, overwrite=True)
        expl = None if strategy is None else float(strategy.header["exploitability"])
        console.print(f"seed {nets.header['seed']}; "
                      + ("not tabulated (too large): measure with cfrlab lbr / cfrlab match" if expl is None
                         else f"exploitability of the tabulated policy {format_unit(g, expl)}")
                      + (f"; wrote {out}" if out is not None else ""))
        if as_json:
            sys.stdout.flush()
            print(json.dumps({"game": g.name or str(game), "method": method, "iterations": iterations,
                              "traversals": traversals, "seed": nets.header["seed"], "exploitability": expl,
                              "seconds": round(result.seconds, 3), "cpu_seconds": round(result.cpu_seconds, 3),
                              "curve": result.curve, "out": None if out is None else str(out),
                              "strategy_out": None if strategy_out is None else str(strategy_out)}))

    @deep_app.command("tabulate")
    def tabulate_cmd(
        file: Annotated[Path, typer.Argument(metavar="FILE", help="weights file from cfrlab deep train")],
        out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE",
                                                 help="strategy file (.npz) to write")] = None,
        force: Annotated[bool, typer.Option("--force", help="overwrite --out")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
    ) -> None:
        """The networks' policy on every information set, as a strategy; its exact exploitability."""
        check_new_output(out, force, "strategy")
        nets = load_nets(file)
        if not fits_table(nets.game):
            raise CfrlabError(f"{file}: {nets.game.name or 'its game'} is too large to tabulate; play the networks "
                              f"per decision as the agent deep:{file} (cfrlab lbr, cfrlab match)")
        strategy = nets.strategy()
        expl = float(strategy.header["exploitability"])
        if out is not None:
            with writing(out, "strategy"):
                strategy.save(out, overwrite=True)
        g = nets.game
        print(f"{g.name or 'game'}: {nets.method}, {nets.header.get('iterations', '?')} iterations; "
              f"exploitability {format_unit(g, expl)}" + (f"; wrote {out}" if out is not None else ""))
        if as_json:
            print(json.dumps({"game": g.name, "method": nets.method, "file": str(file), "exploitability": expl,
                              "out": None if out is None else str(out)}))
