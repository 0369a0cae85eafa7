"""``cfrlab spot``: a postflop spot's betting tree and the memory of an exact solve (``sizes``),
its solution (``solve``, with locked nodes and saved to a file) and reading a saved solution
(``show``: any node's strategy, grid, EVs; a PNG; streamed JSON; ``serve``: the same in the
browser)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.cli.common import (
    WorkersOpt,
    available_memory,
    check_new_output,
    command_group,
    say,
    writing,
)
from cfrlab.errors import CfrlabError, human_bytes

SUMMARY = "Postflop spots: a board, two ranges, the pot, the stacks and the bet sizes."
PROGRESS_SECONDS = 2.0  # at most one progress line this often


def register(app: typer.Typer) -> None:
    sp = command_group(app, "spot", SUMMARY)

    @sp.command("sizes")
    def sizes_cmd(
        config: Annotated[Path, typer.Argument(metavar="CONFIG.toml", help="spot file (docs/spots.md)")],
        as_json: Annotated[bool, typer.Option("--json", help="one JSON object")] = False,
    ) -> None:
        """The spot's betting tree (decisions, nodes and terminals per street) and the memory
        of an exact solve, counted before anything big is built: on the spot's walk (suit
        isomorphism: the boards it solves per street; regrets and average strategy in float32
        or 16 bits) and as a plain upper bound (3 float32 tables, every board)."""
        from cfrlab.spot import load_spot, spot_size, spot_tree
        from cfrlab.spot.fast import SpotGame
        from cfrlab.spot.model import SpotModel
        from cfrlab.spot.solve import solve_memory

        spot = load_spot(config)
        size = spot_size(spot)
        tree = spot_tree(spot)
        model, game = SpotModel(spot), SpotGame(spot, tree, True)
        walk = {st: solve_memory(spot, tree, model, "dcfr", st, True, game) for st in ("float32", "int16")}
        canonical = [lev.B for lev in game.levels]
        if as_json:
            print(json.dumps({"spot": spot.summary(), "lost_to_board": list(spot.lost), **size.as_dict(),
                              "canonical_boards": canonical, "walk_memory_bytes": walk}))
            return
        print(spot.summary())
        for line in spot.describe_ranges():
            print(f"  {line}")
        print(f"  combos lost to the board: OOP {spot.lost[0]}, IP {spot.lost[1]}")
        print(f"{'street':8}{'decisions':>11}{'nodes':>9}{'terminals':>11}{'boards':>9}{'solved':>9}")
        for row in zip(size.streets, size.decisions, size.nodes, size.terminals, size.runouts, canonical):
            print(f"{row[0]:8}{row[1]:>11,}{row[2]:>9,}{row[3]:>11,}{row[4]:>9,}{row[5]:>9,}")
        print(f"{'total':8}{sum(size.decisions):>11,}{sum(size.nodes):>9,}{sum(size.terminals):>11,}")
        print(f"solve on the spot's walk (the boards solved up to suit symmetry): about "
              f"{human_bytes(walk['float32'])} in float32, {human_bytes(walk['int16'])} with --storage int16")
        print(f"plain upper bound (3 float32 tables, every board): about {human_bytes(size.memory)}")

    @sp.command("solve")
    def solve_cmd(
        config: Annotated[Path, typer.Argument(metavar="CONFIG.toml", help="spot file (docs/spots.md)")],
        target: Annotated[float, typer.Option("--target", help="stop at this exploitability, "
                                              "in percent of the pot")] = 0.3,
        seconds: Annotated[float | None, typer.Option("--seconds", help="stop after this long")] = None,
        iterations: Annotated[int, typer.Option("--iterations", help="stop after this many")] = 1000,
        algorithm: Annotated[str, typer.Option("--algorithm", help="dcfr, dcfr+, cfr+, lcfr, pcfr+ (the "
                                                 "spot's walk) or cfr (turn and river)")] = "dcfr",
        storage: Annotated[str, typer.Option("--storage", help="float32, int16 (half the memory) "
                                             "or float64")] = "float32",
        no_iso: Annotated[bool, typer.Option("--no-isomorphism", help="solve every turn and river "
                                             "card (no suit isomorphism)")] = False,
        threads: Annotated[int | None, typer.Option("--threads", help="threads of the spot's walk "
                                                    "(default: every core)")] = None,
        out: Annotated[Path | None, typer.Option("--out", help="write the result as JSON here")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="one JSON object on stdout")] = False,
        save: Annotated[Path | None, typer.Option("--save", help="save the solved spot (.npz) for "
                                                  "`cfrlab spot show`")] = None,
        save_depth: Annotated[str | None, typer.Option("--save-depth", metavar="STREET",
                                                       help="keep the strategy down to this street "
                                                       "only (flop or turn: a smaller file), or full: "
                                                       "the solver's state as well, so that --resume "
                                                       "continues it (about twice the size)")] = None,
        lock: Annotated[Path | None, typer.Option("--lock", help="TOML file of [[lock]] tables: nodes "
                                                  "whose strategy is fixed (docs/spots.md)")] = None,
        force: Annotated[bool, typer.Option("--force", help="replace an existing --out or --save "
                                            "file (never one of the command's inputs)")] = False,
        checkpoint: Annotated[Path | None, typer.Option("--checkpoint", metavar="FILE",
                                                        help="write the solver's tables here every "
                                                        "--checkpoint-every iterations, at the end and "
                                                        "on Ctrl-C")] = None,
        checkpoint_every: Annotated[int | None, typer.Option("--checkpoint-every", metavar="N",
                                                             help="iterations between checkpoints")] = None,
        resume: Annotated[Path | None, typer.Option("--resume", metavar="FILE",
                                                    help="continue the solve saved in this checkpoint "
                                                    "(bit for bit; it keeps checkpointing there), or in "
                                                    "a --save-depth full save (read, not written)")] = None,
    ) -> None:
        """Solve a flop, turn or river spot with exact cards: the memory it needs first, then
        progress, then the exploitability in percent of the pot, the EVs (chips each player
        expects to take from the pot minus what it puts in from here on) and the root's
        action frequencies (docs/spots.md). With --checkpoint FILE --checkpoint-every N the
        solve can be stopped (Ctrl-C, a kill, a reboot) and continued with --resume FILE; so can
        a solve saved with --save FILE --save-depth full."""
        from cfrlab.spot import SpotModel, load_spot, solve_spot, spot_tree
        from cfrlab.spot.solve import solve_memory

        for flag, value in (("--target", target), ("--seconds", seconds)):
            if value is not None and not value > 0:
                raise CfrlabError(f"{flag} must be positive, got {value}")
        if iterations < 1:
            raise CfrlabError(f"--iterations must be at least 1, got {iterations}")
        if threads is not None and threads < 1:
            raise CfrlabError(f"--threads must be at least 1, got {threads}")
        if checkpoint_every is not None and checkpoint_every < 1:
            raise CfrlabError(f"--checkpoint-every must be at least 1, got {checkpoint_every}")
        if checkpoint_every is not None and checkpoint is None and resume is None:
            raise CfrlabError("--checkpoint-every needs --checkpoint FILE (or --resume FILE)")
        if resume is not None and not resume.exists():
            raise CfrlabError(f"--resume {resume}: no such checkpoint or saved spot")
        if save_depth is not None and save_depth not in ("flop", "turn", "river", "full"):
            raise CfrlabError(f"--save-depth is flop, turn, river or full, got {save_depth!r}")
        if save_depth is not None and save is None:
            raise CfrlabError("--save-depth needs --save FILE")
        _check_outputs({"result": out, "solved spot": save, "checkpoint": checkpoint}, (config, lock, resume), force)
        from cfrlab.numba_cache import announce_compiles

        # the first compile on a machine (a minute or more before the first progress line) is
        # told once where this command reports its progress, a terminal or not
        announce_compiles(sys.stderr if as_json else sys.stdout)
        from cfrlab.spot.fast import FAST_ALGORITHMS, STORAGES, SpotGame
        from cfrlab.spot.tree import describe_decisions, solve_floor, spot_count

        if storage not in STORAGES:
            raise CfrlabError(f"--storage is one of {', '.join(STORAGES)}, got {storage!r}")
        if save_depth is not None and algorithm.lower() not in FAST_ALGORITHMS:
            raise CfrlabError(f"--save-depth keeps the tables of the spot's walk ({', '.join(FAST_ALGORITHMS)}), "
                              f"not of {algorithm}")
        spot = load_spot(config)
        if save_depth in ("flop", "turn") and ("flop", "turn", "river").index(save_depth) + 1 < spot.street:
            raise CfrlabError(f"--save-depth {save_depth}: this spot starts on a later street")
        count = spot_count(spot)  # counted, not built: a tree too large is refused in seconds
        floor = solve_floor(spot, count, 2 * STORAGES[storage][2])
        free = available_memory()
        if free is not None and floor > free:
            raise CfrlabError(f"this spot's betting tree has {count.nodes:,} nodes "
                              f"({describe_decisions(spot, count)}); solving it needs at least "
                              f"{human_bytes(floor)}, more than the {human_bytes(free)} available "
                              f"(fewer bet sizes, a cap or a smaller stack make it smaller)")
        tree, model = spot_tree(spot), SpotModel(spot)
        locks = ()
        if lock is not None:
            from cfrlab.spot.lock import Frame, load_locks, resolve_locks

            locks = load_locks(lock)
        fast = algorithm.lower() in FAST_ALGORITHMS
        game = SpotGame(spot, tree, not no_iso) if fast else None
        if locks:  # bad locks refused before the solve
            from cfrlab.spot.lock import walk_locks

            frame = Frame(spot, tree, model, None)
            fixed = (sum(int(h.sum()) for h, _ in walk_locks(game, frame, locks).values()) if fast
                     else len(resolve_locks(frame, locks)))
        need = solve_memory(spot, tree, model, algorithm if fast or not locks else "cfr+", storage,
                            not no_iso, game)
        if free is not None and need > free:
            raise CfrlabError(f"this spot needs about {human_bytes(need)} to solve, more than the "
                              f"{human_bytes(free)} available")
        if not as_json:
            print(spot.summary())
            boards = "" if game is None else f", boards per street {'/'.join(str(lev.B) for lev in game.levels)}"
            print(f"live combos {model.n}, decisions {tree.num_decisions}{boards}; "
                  f"memory needed: about {human_bytes(need)}", flush=True)
            if locks:
                what = "hands on their boards" if fast else "combo rows"
                print(f"locked: {len(locks)} node{'s' if len(locks) > 1 else ''}, {fixed:,} {what} "
                      f"(exploitability in the locked game)")
        last = [time.perf_counter()]

        def progress(it: int, sec: float, pct: float) -> None:
            if time.perf_counter() - last[0] >= PROGRESS_SECONDS:
                last[0] = time.perf_counter()
                line = f"iteration {it:,}: exploitability {pct:.4f}% of the pot ({sec:.1f} s)"
                say(line) if as_json else print(line, flush=True)

        from cfrlab.solvers.driver import Interrupted

        if checkpoint is not None and resume is None and force and checkpoint.exists():
            checkpoint.unlink()  # --force: this run starts over
        try:
            sol = solve_spot(spot, algorithm, target_pct=target, iterations=iterations, seconds=seconds,
                             progress=progress, tree=tree, model=model, storage=storage,
                             isomorphism=not no_iso, game=game, locks=locks, threads=threads,
                             checkpoint=checkpoint, checkpoint_every=checkpoint_every, resume=resume)
        except Interrupted as e:
            where = (f"; checkpoint {e.checkpoint} saved: run with --resume {e.checkpoint} to continue"
                     if e.checkpoint else "; nothing saved (--checkpoint FILE --checkpoint-every N keeps progress)")
            print(f"cfrlab: interrupted at iteration {e.iterations:,}{where}", file=sys.stderr)
            raise SystemExit(130) from None
        result = {"spot": spot.summary(), "memory_bytes": need, **sol.summary()}
        if locks:
            result["locks"] = [lk.as_dict() for lk in locks]
        if save is not None:
            from cfrlab.spot.store import save_solution

            with writing(save, "solved spot"):
                save_solution(sol, save, save_depth)
        if out is not None:
            from cfrlab.fileio import atomic_write_bytes

            with writing(out, "result"):
                atomic_write_bytes(out, (json.dumps(result, indent=1) + "\n").encode())
        if as_json:
            print(json.dumps(result))
            return
        print(f"done: {sol.iterations:,} iterations in {sol.seconds:.2f} s ({sol.cpu_seconds:.2f} s CPU)")
        _print_figures(sol)
        if save is not None:
            print(f"saved to {save}")

    @sp.command("batch")
    def batch_cmd(
        config: Annotated[Path, typer.Argument(metavar="CONFIG.toml", help="spot file whose board is "
                                               "'*' or a list of flops (docs/spots.md)")],
        target: Annotated[float, typer.Option("--target", help="solve each flop to this exploitability, "
                                              "in percent of the pot")] = 0.5,
        iterations: Annotated[int, typer.Option("--iterations", help="at most this many per flop")] = 1000,
        algorithm: Annotated[str, typer.Option("--algorithm", help="dcfr, dcfr+, cfr+, lcfr or pcfr+")] = "dcfr",
        storage: Annotated[str, typer.Option("--storage", help="float32, int16 or float64")] = "float32",
        threads: Annotated[int | None, typer.Option("--threads", help="threads of each flop's walk "
                                                    "(default: the cores over the workers)")] = None,
        workers: WorkersOpt = 1,
        ray: Annotated[str | None, typer.Option("--ray", metavar="ADDRESS", help="solve the flops on an "
                                                "existing Ray cluster: 'auto' or HOST:PORT")] = None,
        checkpoint: Annotated[Path | None, typer.Option("--checkpoint", metavar="DIR", help="write each "
                                                        "solved flop here at once")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="continue a stopped batch from its "
                                             "--checkpoint directory")] = False,
        out: Annotated[Path | None, typer.Option("--out", help="the table as CSV (a row per flop, then "
                                                 "the weighted totals)")] = None,
        png: Annotated[Path | None, typer.Option("--png", help="the root strategy per flop as a PNG")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="the table as JSON on stdout")] = False,
        force: Annotated[bool, typer.Option("--force", help="replace an existing --out or --png file")] = False,
    ) -> None:
        """An aggregate report: every flop of the spot (board '*': the 1,755 flops up to suit
        symmetry, weighted by how often each comes; or a list) solved to the target, its
        exploitability, EVs, OOP's equity and root strategy, and the weighted totals.
        Each solved flop is checkpointed (--checkpoint DIR); --resume continues."""
        from cfrlab.spot.batch import FIELDS, load_batch, solve_batch

        if not target > 0:
            raise CfrlabError(f"--target must be positive, got {target}")
        if iterations < 1:
            raise CfrlabError(f"--iterations must be at least 1, got {iterations}")
        if resume and checkpoint is None:
            raise CfrlabError("--resume needs --checkpoint DIR (where the stopped batch wrote its flops)")
        from cfrlab.spot.fast import FAST_ALGORITHMS

        if algorithm.lower() not in FAST_ALGORITHMS:
            raise CfrlabError(f"--algorithm is one of {', '.join(FAST_ALGORITHMS)} (the spot's walk), "
                              f"got {algorithm!r}")
        if threads is not None and threads < 1:
            raise CfrlabError(f"--threads must be at least 1, got {threads}")
        _check_outputs({"table": out, "chart": png}, (config,), force)
        batch = load_batch(config)
        if threads is None:
            threads = max(1, (os.cpu_count() or 1) // max(1, workers)) if ray is None else 1
        if not as_json:
            print(f"{len(batch.flops):,} flops (weights summing to {sum(batch.weights):,}); "
                  f"{batch.spot(0).summary().split(': ', 1)[1].split('; ', 1)[1]}", flush=True)
        last = [0.0]

        def progress(done: int, total: int, elapsed: float, eta: float) -> None:
            if time.perf_counter() - last[0] >= PROGRESS_SECONDS or done == total:
                last[0] = time.perf_counter()
                left = f", about {eta:.0f} s left" if eta >= 0 else ""
                line = f"flops solved: {done:,} of {total:,} ({elapsed:.0f} s{left})"
                say(line) if as_json else print(line, flush=True)

        try:
            res = solve_batch(batch, target, iterations, algorithm.lower(), storage, threads, workers,
                              checkpoint, resume, ray, progress)
        except KeyboardInterrupt:
            where = (f"; the solved flops are in {checkpoint}: run again with --resume to continue"
                     if checkpoint is not None else "; nothing kept (--checkpoint DIR keeps each solved flop)")
            print(f"cfrlab: interrupted{where}", file=sys.stderr)
            raise SystemExit(130) from None
        if out is not None:
            with writing(out, "table"):
                res.write_csv(out)
        if png is not None:
            with writing(png, "chart"):
                res.draw(png)
        if as_json:
            print(json.dumps({"columns": ["flop", "weight", *res.columns], "rows": res.table()}))
            return
        names = ["flop", "weight", *res.columns]
        width = [max(8, len(n)) for n in names]
        print("  ".join(f"{n:>{w}}" for n, w in zip(names, width)))
        rows = res.table()
        for row in rows if len(rows) <= 40 else [*rows[:20], None, *rows[-20:]]:
            if row is None:
                print(f"{'...':>8}")
                continue
            cells = [f"{row['flop']:>{width[0]}}", f"{row['weight']:>{width[1]}}"]
            for c, w in zip(res.columns, width[2:]):
                fmt = ".0f" if c == "iterations" else ".4f" if c in FIELDS else ".1%"
                cells.append(f"{row[c]:>{w}{fmt}}")
            print("  ".join(cells))
        for what, path in (("table", out), ("chart", png)):
            if path is not None:
                print(f"{what} written to {path}")

    @sp.command("show")
    def show_cmd(
        solved: Annotated[Path, typer.Argument(metavar="SOLVED.npz", help="a spot saved by `spot solve --save`")],
        node: Annotated[str, typer.Option("--node", help="action path from the root, such as 'x b10' "
                                          "(docs/spots.md); default the root; '*' for a card: the node "
                                          "on every card that may come there")] = "",
        grid: Annotated[bool, typer.Option("--grid/--no-grid", help="the 13x13 hand-class grid")] = True,
        combos: Annotated[bool, typer.Option("--combos/--no-combos", help="the table of combos")] = True,
        png: Annotated[Path | None, typer.Option("--png", help="draw the node's range grid to this PNG")] = None,
        json_out: Annotated[Path | None, typer.Option("--json", help="stream the node's subtree to this "
                                                      "JSON file, node by node")] = None,
        depth: Annotated[int | None, typer.Option("--depth", help="with --json: this many actions "
                                                  "below the node (default every one)")] = None,
        spot_file: Annotated[Path | None, typer.Option("--spot", help="refuse the file unless it solves "
                                                       "this spot (CONFIG.toml)")] = None,
        force: Annotated[bool, typer.Option("--force", help="replace an existing --png or --json file "
                                            "(never one of the command's inputs)")] = False,
        ranges: Annotated[bool, typer.Option("--ranges", help="print both players' ranges at the node "
                                             "in PioSOLVER's and GTO+'s notation (the next street's "
                                             "spot starts from them)")] = False,
    ) -> None:
        """Read a solved spot without solving it again: a node's strategy per combo and per hand
        class, each combo's EV and equity, the range's action frequencies; as a PNG grid or as
        JSON streamed node by node (docs/spots.md)."""
        from cfrlab.spot import load_spot
        from cfrlab.spot.report import card_reports, reader_of
        from cfrlab.spot.store import load_solution, spot_config

        if depth is not None and depth < 0:
            raise CfrlabError(f"--depth must be at least 0, got {depth}")
        _check_outputs({"PNG": png, "JSON": json_out}, (solved, spot_file), force)
        sol = load_solution(solved, load_spot(spot_file) if spot_file is not None else None)
        reader = reader_of(sol)
        every = card_reports(reader, node)
        if every is not None:  # a '*' card: the node on every card that may come there
            _show_every_card(sol, reader, node, *every, png, json_out)
            return
        report = reader.node(node)
        print(sol.spot.summary())
        _print_figures(sol, report if report.path == "" else reader.node(""))
        if sol.locks:
            print("locked nodes: " + "; ".join(lk.node or "the root" for lk in sol.locks))
        from rich.console import Console

        console = Console(highlight=False)
        for part in _tables(report, combos, grid, console.width):
            console.print(part)
        if ranges:
            _print_ranges(reader, node)
        if png is not None:
            from cfrlab.spot.show import draw_grid

            with writing(png, "PNG"):
                draw_grid(report, png)
            print(f"grid drawn to {png}")
        if json_out is not None:
            from cfrlab.spot.show import write_json

            with writing(json_out, "JSON"):
                n = write_json(reader, json_out, report.path, depth, header=spot_config(sol.spot))
            print(f"{n:,} nodes written to {json_out}")

    @sp.command("serve")
    def serve_cmd(
        solved: Annotated[Path, typer.Argument(metavar="SOLVED.npz", help="a spot saved by `spot solve --save`")],
        port: Annotated[int, typer.Option("--port", metavar="PORT", help="port to serve on (0: any free one)")] = 8000,
        host: Annotated[str, typer.Option("--host", metavar="ADDRESS",
                                          help="address to serve on (127.0.0.1: this machine only)")] = "127.0.0.1",
    ) -> None:
        """Read a solved spot in the browser: walk the tree, the 13x13 grid coloured by action
        frequencies, a hand's combos with strategy and EV; open http://HOST:PORT/."""
        from cfrlab.play.web import bind_socket
        from cfrlab.play.web import serve as run_server
        from cfrlab.spot.store import load_solution
        from cfrlab.spot.web import create_spot_app

        sock = bind_socket(host, port)  # a port in use is one line, before the file is read
        try:
            sol = load_solution(solved)
            app_ = create_spot_app(sol, title=f"cfrlab spot: {solved.name}")
        except BaseException:
            sock.close()
            raise
        shown = f"[{host}]" if ":" in host else host
        print(f"cfrlab: {sol.spot.summary()}\ncfrlab: serving {solved} at "
              f"http://{shown}:{sock.getsockname()[1]}/ (Ctrl-C to stop)", file=sys.stderr, flush=True)
        run_server(app_, sock=sock)


def _print_ranges(reader, node: str) -> None:
    import numpy as np

    from cfrlab.cards.ranges import format_range, format_range_gtoplus
    from cfrlab.spot.report import node_ranges

    for name, w in zip(("OOP", "IP"), node_ranges(reader, node)):
        print(f"{name} range (PioSOLVER): {format_range(np.round(w, 4)) or '(empty)'}")
        print(f"{name} range (GTO+): {format_range_gtoplus(w) or '(empty)'}")


def _show_every_card(sol, reader, node: str, first, rows, png, json_out) -> None:
    from rich.console import Console

    from cfrlab.spot.show import card_table, draw_cards, write_card_json
    from cfrlab.spot.store import spot_config

    print(sol.spot.summary())
    _print_figures(sol, reader.node(""))
    Console(highlight=False).print(card_table(first, rows, node))
    if png is not None:
        with writing(png, "PNG"):
            draw_cards(first, rows, png, node)
        print(f"chart drawn to {png}")
    if json_out is not None:
        with writing(json_out, "JSON"):
            write_card_json(json_out, first, rows, node, header=spot_config(sol.spot))
        print(f"{len(rows)} cards written to {json_out}")


def _check_outputs(outputs: dict, inputs: tuple, force: bool) -> None:
    """Before any work, each output file (what it holds -> path or None): never one of the
    command's inputs (not even with --force) nor another output, writable (``check_output``),
    and an existing file replaced only with ``force``."""
    seen: list[tuple[str, Path]] = []
    for what, path in outputs.items():
        if path is None:
            continue
        for other in inputs:
            if other is not None and _same_file(path, other):
                raise CfrlabError(f"{path}: cannot write the {what} there, it is an input of this "
                                  f"command ({other}); give another file")
        for what2, path2 in seen:
            if _same_file(path, path2):
                raise CfrlabError(f"{path}: the {what2} and the {what} cannot be one file")
        check_new_output(path, force, what)
        seen.append((what, path))


def _same_file(a: Path, b: Path) -> bool:
    """One file under two names (links included), or one path for a file not yet made."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _tables(report, combos: bool, grid: bool, width: int | None = None) -> list:
    from cfrlab.spot.show import node_tables

    return node_tables(report, combos=combos, grid=grid, width=width)


def _print_figures(sol, root=None) -> None:
    """The exploitability, the EVs and the root's frequencies. With ``root`` (the root's
    report of a spot read from a file) the exploitability is the file's record of the solve,
    said so (or dropped when it cannot be a measurement), and the EVs are measured on the
    strategy read."""
    spot = sol.spot
    if root is None:
        print(f"exploitability: {sol.exploitability_pct:.4f}% of the pot ({sol.exploitability:.5f} chips)")
        print(f"EV: OOP {sol.ev('oop'):.4f}, IP {sol.ev('ip'):.4f} (pot {spot.pot})")
    else:
        from cfrlab.spot.show import root_evs

        if sol.ignored:
            print(f"exploitability: the file's record is ignored ({sol.ignored}: not a measurement); "
                  f"`cfrlab spot solve` measures it")
        else:
            print(f"exploitability recorded at solve time: {sol.exploitability_pct:.4f}% of the pot "
                  f"({sol.exploitability:.5f} chips)")
        ev_oop, ev_ip = root_evs(root, spot.raked)
        print(f"EV: OOP {ev_oop:.4f}, IP {ev_ip:.4f} (pot {spot.pot}; of the strategy read)")
    freqs = ", ".join(f"{_action_name(sol, a)} {f:.1%}" for a, f in sol.frequencies(0))
    print(f"root (OOP): {freqs}")


def _action_name(sol, action: str) -> str:
    """A path token at the root (``x``, ``b10``) as a player reads it: check, or bet N chips."""
    return {"x": "check", "c": "call", "f": "fold"}.get(action) or f"bet {action[1:]}"