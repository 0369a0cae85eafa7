"""``cfrlab deep train|tabulate``: Deep CFR and SD-CFR (the optional extra ``cfrlab[deep]``)."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from cfrlab.cli.common import (
    BarView,
    available_memory,
    check_new_output,
    check_output,
    command_group,
    print_json,
    writing,
)
from cfrlab.deep import METHODS, DeepParams, fits_table, load_nets, require_jax, train
from cfrlab.deep.network import check_layers
from cfrlab.deep.sizes import MAX_BATCH, MAX_BUFFER, train_memory
from cfrlab.errors import CfrlabError, human_bytes
from cfrlab.games import load_game
from cfrlab.games.units import format_unit
from cfrlab.solvers.driver import Interrupted

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


class TrainProgress(BarView):
    """What ``deep train`` is doing, on stderr, from its first second: the phase (building,
    traversals, training a network, compiling it on first use, measuring), the iterations done,
    the networks' latest loss and exploitability. On a terminal a rich bar; elsewhere (logs of
    background runs) a line when the phase changes and at least ``max(2 s, 5% of the time so
    far)`` (at most a minute) passed since the last one; the first line and each compile are
    printed at once."""

    MIN_INTERVAL = 2.0
    MAX_INTERVAL = 60.0
    FRACTION = 0.05

    def __init__(self, game, method: str, iterations: int, *, enabled: bool = True, interactive: bool | None = None,
                 clock=time.perf_counter, out=None) -> None:
        self.game, self.iterations, self.enabled = game, iterations, enabled
        self.interactive = enabled and (Console(stderr=True).is_terminal if interactive is None else interactive)
        self.clock, self.out = clock, out
        self.t0 = clock()
        self.printed_at: float | None = None
        self.done = 0
        self.loss: dict = {}
        self.expl: float | None = None
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(bar_width=20), TextColumn("{task.fields[it]}"),
                            TextColumn("{task.fields[what]}"), TextColumn("{task.fields[extra]}"), TimeElapsedColumn(),
                            console=Console(stderr=True), disable=not self.interactive, transient=False)
        self.task = self.progress.add_task(method, total=iterations, it=f"0/{iterations:,} it", what="starting",
                                      extra="")

    def status(self, s: dict) -> None:
        """A phase of the run started (``cfrlab.deep.training.Watch``)."""
        phase = s["phase"]
        self.done = s["done"]
        if phase == "trained":
            self.loss[s["player"]] = s["loss"]
        text = self._describe(s)
        if self.interactive:
            self.progress.update(self.task, completed=self.done, it=f"{self.done:,}/{self.iterations:,} it", what=text,
                            extra=self._extra())
            return
        if not self.enabled:
            return
        now = self.clock()
        # the first iteration's phases are each new (numba and JAX compile there): all shown
        urgent = self.printed_at is None or self.done == 0 or phase in ("setup", "resumed") or s.get("compiling")
        if urgent or now - self.printed_at >= self._interval(now):
            self.printed_at = now
            extra = self._extra()
            print(f"[{now - self.t0:8.1f} s] it {self.done:,}/{self.iterations:,}  {text}" + (f"  {extra}" if extra else ""),
                  file=self.out or sys.stderr, flush=True)

    def point(self, p: dict) -> None:
        """An exploitability measured (tabulated games)."""
        self.expl = p["exploitability"]
        if self.interactive:
            self.progress.update(self.task, extra=self._extra())

    def _interval(self, now: float) -> float:
        return min(self.MAX_INTERVAL, max(self.MIN_INTERVAL, self.FRACTION * (now - self.t0)))

    def _extra(self) -> str:
        parts = []
        if self.loss:
            parts.append("loss " + " ".join(f"{'avg' if k is None else f'p{k}'} {v:.4g}" for k, v in
                                            sorted(self.loss.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))))
        if self.expl is not None:
            parts.append(f"expl {format_unit(self.game, self.expl)}")
        return "  ".join(parts)

    @staticmethod
    def _describe(s: dict) -> str:
        phase, t = s["phase"], s.get("iteration")
        avg = s.get("player") is None
        net = "the average-strategy network" if avg else f"player {s['player']}'s network"
        at = "" if avg else f"iteration {t:,}: "
        if phase == "setup":
            return "building the tree, features and chance tables"
        if phase == "resumed":
            return f"resumed from the checkpoint after {_iterations(s['done'])}"
        if phase == "traversals":
            return f"iteration {t:,}: {s['traversals']:,} traversals for player {s['player']}"
        if phase == "training":
            return (f"{at}training {net} ({s['steps']:,} steps on {s['samples']:,} samples"
                    + ("; JAX compiles it first" if s.get("compiling") else "") + ")")
        if phase == "trained":
            return f"{at}{net} trained"
        if phase == "measuring":
            return f"measuring the exact exploitability after {_iterations(s['done'])}"
        if phase == "tabulating":
            return "tabulating the networks' policy and measuring it"
        return f"{_iterations(s['done'])} done"


def _check_memory(est: dict, available: int | None, force: bool) -> None:
    """Refuse, before any work, a run whose memory estimate (``cfrlab.deep.sizes``) is above
    what is available, unless ``--force``."""
    if available is None or est["total"] <= available or force:
        return
    parts = sorted(((v, k) for k, v in est.items() if k not in ("total", "parameters") and v), reverse=True)[:2]
    raise CfrlabError(f"this run needs about {human_bytes(est['total'])} of memory ("
                      + ", ".join(f"{k} {human_bytes(v)}" for v, k in parts)
                      + f"; {est['parameters']:,} parameters a network) and {human_bytes(available)} is available: "
                      "narrower --hidden, fewer --iterations or a smaller --buffer fit (--force trains anyway)")


def _iterations(n: int) -> str:
    return f"{n:,} iteration{'' if n == 1 else 's'}"


def _interrupted(e: Interrupted, tabulated: bool) -> None:
    """Ctrl-C (or SIGTERM): one line saying what was kept, exit code 130."""
    if e.checkpoint is not None:
        where = f"; the checkpoint {e.checkpoint} holds them: run the same command to continue"
    else:
        where = "; nothing saved" + ("" if tabulated else " (--checkpoint FILE keeps the iterations done)")
    print(f"cfrlab: interrupted after {_iterations(e.iterations)}{where}", file=sys.stderr, flush=True)
    raise SystemExit(130)


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
        force: Annotated[bool, typer.Option("--force", help=(
            "overwrite the output files, and train even when the memory estimate is above what is available"))] = False,
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
        progress: Annotated[bool, typer.Option("--progress/--no-progress", help=(
            "show what the run is doing on stderr (phase, iterations, loss)"))] = True,
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
        if batch > MAX_BATCH:
            raise CfrlabError(f"--batch {batch:,} is above the {MAX_BATCH:,} rows a minibatch may have")
        if buffer > MAX_BUFFER:
            raise CfrlabError(f"--buffer {buffer:,} is above the {MAX_BUFFER:,} items a reservoir may hold")
        check_new_output(out, force, "weights")
        check_new_output(strategy_out, force, "strategy")
        g = load_game(game)
        tabulated = fits_table(g)
        if not tabulated and strategy_out is not None:
            raise CfrlabError(f"--strategy-out: {g.name or 'this game'} is too large to tabulate")
        if tabulated and checkpoint is not None:
            raise CfrlabError("--checkpoint is for games too large to tabulate (these runs are short)")
        _check_memory(train_memory(g, method, iterations, traversals, params), available_memory(), force)
        console = Console(highlight=False, soft_wrap=True)
        console.print(f"[bold]{g.name or Path(game).stem}[/]: {method}, {iterations} iterations x {traversals} "
                      f"traversals per player, networks {params.hidden}, seed {seed if seed is not None else 'drawn'}")

        every = eval_every or max(1, iterations // 10)
        if checkpoint is not None:
            check_output(checkpoint, "checkpoint")
        try:
            with TrainProgress(g, method, iterations, enabled=progress) as view:
                def show(point: dict) -> None:
                    e = point["exploitability"]
                    view.point(point)
                    console.print(f"iteration {point['iteration']:>5}  traversals {point['traversals']:>10,}  "
                                  f"{point['seconds']:8.1f} s ({point['cpu_seconds']:.1f} s CPU)"
                                  + ("" if e is None else f"  exploitability {format_unit(g, e)}"))

                result = train(g, method, iterations, traversals, seed, params, every, progress=show,
                               checkpoint=checkpoint, status=view.status)
        except Interrupted as e:
            _interrupted(e, tabulated)
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
            print_json({"game": g.name or str(game), "method": method, "iterations": iterations,
                        "traversals": traversals, "seed": nets.header["seed"], "exploitability": expl,
                        "seconds": round(result.seconds, 3), "cpu_seconds": round(result.cpu_seconds, 3),
                        "curve": result.curve, "out": None if out is None else str(out),
                        "strategy_out": None if strategy_out is None else str(strategy_out)})

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
