"""``cfrlab solve`` (run a solver to a stop rule, with progress, checkpoints and resume)
and ``cfrlab exploit`` (exact best response to a strategy file)."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from cfrlab import api, known_values
from cfrlab.cli.common import (
    BarView,
    available_memory,
    check_output,
    check_seconds,
    print_json,
    writing,
)
from cfrlab.engine import build_tree_for, model_for_game, tree_for
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.games.builtins import builtin_text
from cfrlab.games.units import CHIPS, format_unit, from_unit, to_unit, unit_of
from cfrlab.solvers.driver import (
    ALGORITHMS,
    FULL_WIDTH,
    Interrupted,
    StopRule,
    Tick,
    thin_history,
)
from cfrlab.solvers.nplayer import ALGORITHMS as N_ALGORITHMS
from cfrlab.solvers.nplayer import PRESETS as N_PRESETS
from cfrlab.strategy import Strategy

HISTORY_POINTS = 100  # --json: at most this many (iteration, solver s, exploitability) points
KNOWN_VALUES = {"kuhn": known_values.KUHN_GAME_VALUE, "leduc": known_values.LEDUC_GAME_VALUE}


def checkpoint_path(out: Path) -> Path:
    """``leduc.npz`` -> ``leduc.ckpt.npz`` (next to the strategy file)."""
    stem = out.name.removesuffix(".npz")
    return out.with_name(stem + ".ckpt.npz")


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``["alpha=1.5", "alternating=false"]`` -> ``{"alpha": 1.5, "alternating": False}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise CfrlabError(f"--param expects KEY=VALUE, got {item!r}")
        v = raw.strip()
        low = v.lower()
        value: Any
        if low in ("none", "null"):
            value = None
        elif low in ("true", "yes"):
            value = True
        elif low in ("false", "no"):
            value = False
        else:
            try:
                value = int(v)
            except ValueError:
                try:
                    value = float(v)
                except ValueError:
                    value = v
        out[key.strip()] = value
    return out


def known_value(game: GameDef) -> float | None:
    for name, value in KNOWN_VALUES.items():
        if builtin_text(name) is not None and load_game(name).to_text() == game.to_text():
            return value
    return None


def game_label(game: GameDef, given: str) -> str:
    return game.name or Path(given).stem


def size_report(game: GameDef, tree, model, algorithm: str, build_bytes: int = 0) -> tuple[str, dict[str, Any]]:
    """The size line; the memory estimate is the larger of the solve's and ``build_bytes``
    (the lossless tables' packing, ``abstraction.sizes.lossless_build_bytes``)."""
    from cfrlab.engine.core import get_engine

    states = [int(s) for s in model.num_states]
    rows = sum(states[int(tree.round[n])] for n in tree.decision_node)
    mem = max(get_engine(tree, model).memory_estimate(), build_bytes)
    info = {"nodes": int(tree.num_nodes), "decisions": int(tree.num_decisions),
            "private_states": states, "infosets": rows, "memory_mb": mem / 2**20}
    text = (f"size: {tree.num_nodes:,} public nodes, {tree.num_decisions:,} decisions "
            f"({'/'.join(str(x) for x in tree.decisions_by_round())} by round); private states per round "
            f"{' / '.join(f'{s:,}' for s in states)}; {rows:,} information sets; "
            f"memory estimate {_mb(mem)}")
    return text, info


def check_fits(size_info: dict[str, Any], tree, available: int | None) -> None:
    """Refuse, before the solver's tables are allocated, a solve whose memory estimate is above
    what the machine has available (one line with the size)."""
    need = size_info["memory_mb"] * 2**20
    if available is None or need <= available:
        return
    what = f"betting abstraction {tree.bets}" if not tree.game.is_limit else "this game"
    raise CfrlabError(
        f"solving {what} needs about {_mb(need)} ({size_info['infosets']:,} information sets, "
        f"{tree.num_decisions:,} decisions), more than the {_mb(available)} available; "
        "use fewer raise sizes (cfrlab abstract sizes GAME --bets SPEC shows sizes) or fewer buckets")


def nplayer_size_report(game: GameDef) -> tuple[str, dict[str, Any]]:
    """The size line of the N-player engine (exact deals, no abstraction)."""
    from cfrlab.engine.nplayer import get_engine

    e = get_engine(game)
    t = e.tree
    states = [int(s) for s in e.deals.num_states]
    mem = 3 * 8 * t.num_actions * e.rows + 8 * sum(e.deals.num_prefixes) * game.num_players * t.max_depth
    info = {"nodes": int(t.num_nodes), "decisions": int(t.num_decisions), "private_states": states,
            "infosets": int(e.rows), "memory_mb": mem / 2**20}
    text = (f"size: {game.num_players}-player engine, {t.num_nodes:,} public nodes, {t.num_decisions:,} "
            f"decisions; private states per round {' / '.join(f'{s:,}' for s in states)}; {e.rows:,} "
            f"information sets; {sum(e.deals.num_prefixes):,} deal prefixes; memory estimate {_mb(mem)}")
    return text, info


def _mb(nbytes: float) -> str:
    return f"{nbytes / 2**20:.1f} MB" if nbytes >= 2**20 else f"{nbytes / 1024:.0f} kB"


class ProgressView(BarView):
    """A rich progress bar on stderr: iterations, iterations/s, latest exploitability."""

    def __init__(self, game: GameDef, algorithm: str, stop: StopRule, enabled: bool = True):
        self.game = game
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.fields[it]}"), TextColumn("{task.fields[speed]}"),
            TextColumn("{task.fields[expl]}"), TimeElapsedColumn(),
            console=Console(stderr=True), disable=not enabled, transient=False)
        self.task = self.progress.add_task(algorithm, total=1000, it="starting (numba compiles kernels on first use)",
                                           speed="", expl="")

    def update(self, t: Tick) -> None:
        speed = f"{t.iterations_per_second:,.0f} it/s" if t.iterations_per_second else ""
        expl = (f"expl {format_unit(self.game, t.exploitability)} @ {t.measured_at:,}"
                if t.exploitability is not None else "")
        self.progress.update(self.task, completed=1000 * (t.fraction or 0.0),
                             it=f"{t.iterations:,} it", speed=speed, expl=expl)


class LineProgress:
    """Progress lines on stderr when it is not a terminal (logs of background runs), throttled
    by time: a new measurement is printed when at least ``max(2 s, 5% of the time so far)``
    (at most a minute) passed since the last line, a line without a new measurement after a
    minute of silence, and ``finish`` prints the last measurement if it was not printed."""

    MIN_INTERVAL = 2.0
    MAX_INTERVAL = 60.0
    FRACTION = 0.05

    def __init__(self, game: GameDef, clock=time.perf_counter, out=None):
        self.game = game
        self.clock = clock
        self.out = out
        self.last: int | None = None       # iteration of the last measurement printed
        self.t0 = clock()
        self.printed_at: float | None = None
        self.pending: Tick | None = None   # the newest tick not printed

    def _interval(self, now: float) -> float:
        return min(self.MAX_INTERVAL, max(self.MIN_INTERVAL, self.FRACTION * (now - self.t0)))

    def update(self, t: Tick) -> None:
        now = self.clock()
        since = None if self.printed_at is None else now - self.printed_at
        fresh = t.measured_at is not None and t.measured_at == t.iterations and t.measured_at != self.last
        if fresh and (since is None or since >= self._interval(now)) or since is not None and since >= self.MAX_INTERVAL:
            self._print(t, now)
        else:
            self.pending = t

    def finish(self) -> None:
        t = self.pending
        if t is not None and t.measured_at is not None and t.measured_at != self.last:
            self._print(t, self.clock())

    def _print(self, t: Tick, now: float) -> None:
        self.printed_at, self.pending = now, None
        speed = f"{t.iterations_per_second:,.2f} it/s" if t.iterations_per_second else "- it/s"
        if t.measured_at is None:
            expl = "expl not measured yet"
        else:
            at = "" if t.measured_at == t.iterations else f" (at {t.measured_at:,})"
            expl = f"expl {format_unit(self.game, t.exploitability)}{at}"
            self.last = t.measured_at if t.measured_at == t.iterations else self.last
        print(f"[{now - self.t0:8.1f} s] it {t.iterations:,}  solver {t.solver_seconds:.1f} s  {speed}  {expl}",
              file=self.out or sys.stderr, flush=True)


def prepare_output(out: Path | None, resume: bool, force: bool, checkpoint_every: int | None) -> Path | None:
    """Refuse to overwrite without --force; return the checkpoint path (None: no checkpoints).
    --force starts over (the checkpoint is deleted) unless --resume is also given: then the run
    continues from its checkpoint and --force only lets it replace the output file."""
    if out is None:
        if resume or checkpoint_every:
            raise CfrlabError("--resume and --checkpoint-every need --out FILE (the checkpoint sits next to it)")
        return None
    ckpt = checkpoint_path(out)
    if force and not resume:
        ckpt.unlink(missing_ok=True)
    elif resume:
        if not ckpt.exists() and out.exists() and not force:
            raise CfrlabError(f"{out} exists but there is no checkpoint {ckpt} to resume from; "
                              "use --force to solve again and overwrite it")
    else:
        if out.exists():
            raise CfrlabError(f"{out} exists; use --resume to continue its run or --force to overwrite it")
        if ckpt.exists():
            raise CfrlabError(f"{ckpt} holds an unfinished run; use --resume to continue it or --force to start over")
    return ckpt if (checkpoint_every or resume) else None


def register(app: typer.Typer) -> None:
    @app.command("solve")
    def solve(
        game: Annotated[str, typer.Argument(metavar="GAME", help="built-in game name (kuhn, leduc, ...) or .game file")],
        algorithm: Annotated[str, typer.Option("--algorithm", "-a", metavar="ALG",
                                               help=f"one of {', '.join(ALGORITHMS)}")],
        iterations: Annotated[int | None, typer.Option("--iterations", "-n", metavar="N",
                                                       help="stop after N iterations in all")] = None,
        seconds: Annotated[float | None, typer.Option("--seconds", metavar="S",
                                                      help="stop after S seconds of solving (at most a year)")] = None,
        target: Annotated[float | None, typer.Option("--target", "-t", metavar="T",
                                     help="stop once exploitability <= T (chips for ante games, mbb/g for blinds)")] = None,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED",
                                                 help="seed of the sampling solvers (default: drawn and printed)")] = None,
        param: Annotated[list[str] | None, typer.Option("--param", "-p", metavar="KEY=VALUE",
                                                        help="solver parameter (e.g. alpha=1.5); repeatable")] = None,
        eval_every: Annotated[int | None, typer.Option("--eval-every", metavar="N", help=(
            "measure exploitability every N iterations (default: at 10, 20, ..., 100, 150, 200, ...: "
            "fewer as the run goes on)"))] = None,
        checkpoint_every: Annotated[int | None, typer.Option("--checkpoint-every", metavar="N",
                                                             help="checkpoint every N iterations")] = None,
        out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", help="strategy file (.npz) to write")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="continue from the checkpoint next to --out")] = False,
        force: Annotated[bool, typer.Option("--force", help="overwrite --out and discard its checkpoint")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
        show: Annotated[int, typer.Option("--show", metavar="N",
                                          help="print the opening moves for the first N private states (0: none)")] = 0,
        progress: Annotated[bool, typer.Option("--progress/--no-progress", help="show the progress bar")] = True,
        abstraction: Annotated[Path | None, typer.Option(
            "--abstraction", metavar="FILE", help="card abstraction file (cfrlab abstract build) to solve in")] = None,
        bets: Annotated[str | None, typer.Option(
            "--bets", metavar="SPEC", help=("no-limit betting abstraction: fc, fcpa, default, or sizes per "
                                            "round such as '0.5p,p,a/p,a;cap=3' (default: every amount)"))] = None,
        real: Annotated[bool, typer.Option("--real/--no-real", help=(
            "imperfect-recall abstraction: measure the strategy in the real game at the end (exact, "
            "one process; --no-real skips it: cfrlab exploit FILE --real --workers N measures it later)"))] = True,
    ) -> None:
        """Solve a game; print exploitability and (with --out) save the strategy."""
        check_seconds(seconds, "--seconds", "no time limit")  # 1e308 overflowed the chunk size
        if show < 0:
            raise CfrlabError(f"--show takes a number of private states, 0 (none, the default) or "
                              f"more, got {show}")
        g = load_game(game)
        many = g.num_players > 2  # the N-player engine: same options, same files
        alg = algorithm.lower()
        known = N_ALGORITHMS if many else ALGORITHMS
        if alg not in known:
            why = f" ({alg} is for 2-player games)" if many and alg in ALGORITHMS else ""
            raise CfrlabError(f"unknown algorithm {algorithm!r} for a {g.num_players}-player game{why}; "
                              f"choose from {', '.join(known)}")
        params = parse_params(param)
        if eval_every is not None and eval_every < 1 or checkpoint_every is not None and checkpoint_every < 1:
            raise CfrlabError("--eval-every and --checkpoint-every must be at least 1")
        console = Console(highlight=False, soft_wrap=True)
        label = game_label(g, game)
        if alg != "lp" and iterations is None and seconds is None and target is None:
            raise CfrlabError("say when to stop: --iterations N, --seconds S or --target EXPLOITABILITY")
        stop = None if alg == "lp" else StopRule(iterations, seconds, None if target is None else from_unit(g, target))
        check_output(out, "strategy")  # a directory, /proc, a read-only folder: refused before any work
        ckpt = prepare_output(out, resume, force, checkpoint_every)
        if ckpt is not None:
            check_output(ckpt, "checkpoint")
            if resume and not ckpt.exists():
                console.print(f"no checkpoint {ckpt} yet: starting at iteration 0")
        if many:
            model_for_game(g, abstraction)  # an abstraction is refused in one line
            tree_for(g, bets)  # and a betting abstraction
            size_text, size_info = nplayer_size_report(g)
        else:
            tree, lossless_bytes = build_tree_for(g, bets), 0
            if abstraction is None:  # counted from the deck before minutes of building, not after
                from cfrlab.abstraction.sizes import check_lossless

                lossless_bytes = check_lossless(g, available_memory())
            model = model_for_game(g, abstraction)
            if abstraction is not None:
                console.print(f"abstraction {abstraction}: {model.spec.label()} (hash {model.hash[:12]})")
            if not g.is_limit:
                console.print(f"betting abstraction: {tree.bets}")
            size_text, size_info = size_report(g, tree, model, alg, lossless_bytes)
            check_fits(size_info, tree, available_memory())
        console.print(f"[bold]{label}[/]: {g.summary()}")
        console.print(size_text)
        if alg == "lp":
            console.print("solving the sequence-form linear program with HiGHS (exact)")
            result = api.solve(g, "lp", abstraction=model, bets=bets)
        else:
            params = {**params, "bets": bets} if bets is not None else params
            if not real and (eval_every is not None or target is not None):
                raise CfrlabError("--no-real measures nothing: it takes no --eval-every or --target")
            result = _solve_iterative(g, game, None if many else model, alg, params, seed, stop, eval_every,
                                      checkpoint_every, ckpt, console, progress, real)
        strategy = result.strategy
        if out is not None:
            with writing(out, "strategy"):
                strategy.save(out, overwrite=True)  # prepare_output refused it without --force
        _report(g, label, strategy, result, out, ckpt, console)
        if show:
            from cfrlab.cli.strategy_cmd import print_opening

            print_opening(strategy, show, console)
        if as_json:
            summary = {"game": label, **_summary(g, strategy, result), **size_info,
                       "out": None if out is None else str(out)}
            print_json(summary)

    @app.command("exploit")
    def exploit(
        file: Annotated[Path, typer.Argument(help="strategy file (.npz); with --real also a bot name (and --game)")],
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
        abstraction: Annotated[Path | None, typer.Option(
            "--abstraction", help="the abstraction file the strategy was solved in")] = None,
        real: Annotated[bool, typer.Option(
            "--real", help="best response in the real game (real cards), not in the abstraction")] = False,
        game: Annotated[str | None, typer.Option("--game", help="with --real: the game of a bot")] = None,
        workers: Annotated[int, typer.Option("--workers", help="with --real: local worker processes")] = 1,
        ray: Annotated[str | None, typer.Option(
            "--ray", help="with --real: run on an existing Ray cluster, 'auto' or HOST:PORT")] = None,
        resume: Annotated[bool, typer.Option(
            "--resume", help="with --real: continue a stopped run from its checkpoints")] = False,
        checkpoint: Annotated[str | None, typer.Option(
            "--checkpoint", help="with --real: directory of finished units (default: STRATEGY.realbr)")] = None,
        br_out: Annotated[Path | None, typer.Option("--br-out", metavar="FILE", help=(
            "with --real: also save the best response itself, a lossless strategy playing both "
            "positions (games small enough to store it: Kuhn, Leduc, reduced decks)"))] = None,
        force: Annotated[bool, typer.Option("--force", help="replace an existing --br-out file")] = False,
        precision: Annotated[str, typer.Option("--precision", help=(
            "with --real: float32 runs the last round in single precision (1.7x faster in "
            "hold'em, values within about 3e-7 of the largest); float64 (default)"))] = "float64",
    ) -> None:
        """Exact best response to a strategy: what each seat's best response wins, exploitability
        (in the strategy's abstraction; --real: in the real game, Johanson, Waugh, Bowling and
        Zinkevich, "Accelerating best response calculation in large extensive games")."""
        from cfrlab.cli.nplayer_cmd import cli_exploit, is_multiplayer_file
        from cfrlab.cli.realbr_cmd import run_exploit_real

        if real:
            run_exploit_real(str(file), game, str(abstraction) if abstraction else None, workers, resume,
                             checkpoint, as_json, ray=ray, br_out=br_out, force=force,
                             precision=precision)
            return
        if (game is not None or workers != 1 or ray is not None or resume or checkpoint is not None
                or br_out is not None or precision != "float64"):
            raise CfrlabError("--game, --workers, --ray, --resume, --checkpoint, --br-out and "
                              "--precision go with --real")
        if is_multiplayer_file(file):  # NashConv and per-player values
            cli_exploit(file, as_json)
            return
        from cfrlab.cli.strategy_cmd import header_line, recorded_exploitability

        s = Strategy.load(file, model=abstraction)
        g = s.game
        br = api.exploit(s)
        b0, b1 = br.chips
        expl = 0.5 * (b0 + b1)
        value = s.game_value(CHIPS)
        unit = unit_of(g)
        print(header_line(s, recorded=False))
        print(f"best response as player 0 wins {to_unit(g, b0):.6g} {unit}; "
              f"as player 1 wins {to_unit(g, b1):.6g} {unit}")
        print(f"exploitability {format_unit(g, expl)} (mean of the two, measured now); "
              f"value of the strategy against itself for player 0: {to_unit(g, value):.6g} {unit}")
        recorded = recorded_exploitability(s)
        if recorded is not None and not math.isclose(recorded, expl, rel_tol=1e-6, abs_tol=1e-12):
            print(f"note: the file records {format_unit(g, recorded)} at save, not what was measured now")
        if as_json:
            print(json.dumps({"game": g.name or str(file), "file": str(file), "algorithm": s.algorithm,
                              "iterations": s.iterations, "unit": unit,
                              "exploitability": to_unit(g, expl), "exploitability_chips": expl,
                              "best_response_values": [to_unit(g, b0), to_unit(g, b1)],
                              "game_value": to_unit(g, value)}))


def _solve_iterative(g, given, model, alg, params, seed, stop, eval_every, checkpoint_every,
                     ckpt, console, show_progress, real=True) -> api.SolveResult:
    if (alg in FULL_WIDTH or alg in N_PRESETS and g.num_players > 2) and seed is not None:
        print(f"cfrlab: note: {alg} is deterministic; --seed changes nothing (a time budget is --seconds)",
              file=sys.stderr)
    if seed is not None and seed < 0:
        raise CfrlabError("--seed must be a non-negative integer")
    rule = [f"{stop.iterations:,} iterations" if stop.iterations else None,
            f"{stop.seconds:g} s" if stop.seconds else None,
            f"exploitability <= {format_unit(g, stop.target)}" if stop.target else None]

    def on_start(plan: api.SolvePlan) -> None:
        if plan.seed_drawn:
            console.print(f"seed {plan.seed} (drawn at random; --seed {plan.seed} repeats this run)")
        if plan.resumed_from is not None:
            console.print(f"resuming from {ckpt} at iteration {plan.resumed_from:,}")
        console.print(f"solving with {alg} until {' or '.join(r for r in rule if r)} "
                      f"(exploitability measured {plan.measuring})")

    interactive = show_progress and Console(stderr=True).is_terminal
    lines = LineProgress(g) if show_progress and not interactive else None
    target = None if stop.target is None else to_unit(g, stop.target)
    try:
        with ProgressView(g, alg, stop, enabled=interactive) as view:
            def on_tick(t: Tick) -> None:
                view.update(t)
                if lines is not None:
                    lines.update(t)
            result = api.solve(g if g.name else given, alg, iterations=stop.iterations, seconds=stop.seconds,
                               target=target, eval_every=eval_every, abstraction=model, seed=seed,
                               progress=on_tick, checkpoint=ckpt, checkpoint_every=checkpoint_every,
                               on_start=on_start, real=real, **params)
        if lines is not None:
            lines.finish()
    except OSError as e:
        raise CfrlabError(f"{ckpt}: cannot write the checkpoint ({e.strerror or e})") from None
    except Interrupted as e:
        where = f"; checkpoint {e.checkpoint} saved: run the same command with --resume to continue" \
            if e.checkpoint else "; nothing saved (use --out FILE --checkpoint-every N to keep progress)"
        print(f"cfrlab: interrupted at iteration {e.iterations:,}{where}", file=sys.stderr)
        raise SystemExit(130) from None
    return result


def _summary(g: GameDef, strategy: Strategy, result: api.SolveResult) -> dict[str, Any]:
    h = strategy.header
    expl = h["exploitability"]  # None: an imperfect-recall solve not measured (--no-real)
    out = {"algorithm": h["algorithm"], "iterations": h["iterations"], "seconds": h["seconds"],
           "exploitability": None if expl is None else to_unit(g, expl), "exploitability_chips": expl,
           "unit": unit_of(g), "game_value": None if h["game_value"] is None else to_unit(g, h["game_value"]), "game_value_chips": h["game_value"],
           "params": h.get("params"), "seed": h.get("seed")}
    if strategy.num_players > 2:  # NashConv and each player's figures (chips per game)
        out.update({"num_players": strategy.num_players, "nash_conv": h["nash_conv"], "values": h["values"],
                    "br_values": h["br_values"], "gains": [b - v for b, v in zip(h["br_values"], h["values"])]})
    if result.algorithm != "lp":
        out.update({"stopped_by": result.stopped_by, "eval_seconds": result.eval_seconds,
                    "first_iteration_seconds": result.first_iteration_seconds or 0.0,
                    "resumed_from": result.resumed_from,
                    "iterations_per_second": result.iterations_per_second,
                    "history": [[i, s, from_unit(g, e)] for i, s, e in
                                thin_history(result.curve, HISTORY_POINTS)]})
    return out


def _report(g, label, strategy, result, out, ckpt, console) -> None:
    h = strategy.header
    unit = unit_of(g)
    if result.algorithm == "lp":
        console.print(f"[bold]solved {label} exactly[/] in {h['seconds']:.2f} s")
    else:
        s = _summary(g, strategy, result)
        rate = s["iterations_per_second"]
        speed = f" ({rate:,.0f} it/s" if rate else " ("
        speed += f"; first iteration incl. compile {s['first_iteration_seconds']:.2f} s)"
        why = {"target": "target reached", "iterations": "iteration budget used",
               "seconds": "time budget used"}[result.stopped_by]
        console.print(f"[bold]solved {label} with {h['algorithm']}[/]: {h['iterations']:,} iterations in "
                      f"{h['seconds']:.3f} s{speed}; {why}")
    expl = h["exploitability"]
    if expl is None:  # imperfect recall with --no-real
        console.print("exploitability not measured (--no-real; cfrlab exploit FILE --real measures it)")
    else:
        milli = f" = {1000 * expl:.3g} milli-chips" if unit == CHIPS else ""
        console.print(f"exploitability [bold]{format_unit(g, expl)}[/]{milli}")
    if strategy.num_players > 2:
        from cfrlab.cli.nplayer_cmd import figures

        for line in figures(g, strategy.evaluate()):
            console.print(line)
    known = known_value(g)
    kv = f" (known value {known:.9f})" if known is not None else ""
    if h["game_value"] is None:  # an imperfect-recall abstraction: measured in the real game
        console.print("game value for player 0: not computed (imperfect recall)")
    else:
        console.print(f"game value for player 0: {to_unit(g, h['game_value']):.6f} {unit}{kv}")
    if out is not None:
        extra = f"; checkpoint {ckpt}" if ckpt is not None and ckpt.exists() else ""
        console.print(f"saved {out}{extra}")
