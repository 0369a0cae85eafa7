"""``cfrlab match`` and ``cfrlab crosstable``: agents against each other, with 95% CIs."""

from __future__ import annotations

import csv
import io
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from cfrlab.cli.common import (
    available_memory,
    check_output,
    check_workers,
    split_game,
)
from cfrlab.errors import CfrlabError, human_bytes
from cfrlab.games.units import MBB

AGENT_HELP = ("a built-in bot (always-fold, always-call, always-raise/teddy, probe, random, value) "
              "or a strategy file (PATH, PATH:greedy; an abstraction strategy finds its abstraction "
              "file beside it, or name it: PATH:abstraction=FILE), or py:FILE.py:Class")
PROGRESS_MIN_GAMES = 200_000  # fast engine: show progress from this many games
PROGRESS_MIN_PYTHON = 2_000  # python engine
BYTES_PER_GAME = 24  # a match keeps 4 bytes per game; its statistics briefly need about 20 more
GAME_HELP = "built-in game name or .game file (first argument; --game GAME also works)"


def check_match_memory(hands: int, duplicate: bool, what: str = "a match") -> None:
    """Refuse, before dealing a card, a match whose per-game results would not fit in memory:
    a match keeps every game's result (for its confidence interval), ``BYTES_PER_GAME`` in all."""
    games = hands * (2 if duplicate else 1)
    need = games * BYTES_PER_GAME
    free = available_memory()
    if free is not None and need > 0.8 * free:
        most = int(0.8 * free / BYTES_PER_GAME) // (2 if duplicate else 1)
        raise CfrlabError(f"{what} of {hands:,} deals ({games:,} games) would need about {human_bytes(need)} "
                          f"of memory ({BYTES_PER_GAME} bytes per game) and {human_bytes(free)} is available: "
                          f"give --hands {most:,} or fewer here")


def _counting(cb):
    """A progress callback that remembers how many games were played (for Ctrl-C)."""
    done = [0]

    def call(d: int, total: int) -> None:
        done[0] = d
        if cb is not None:
            cb(d, total)
    return call, done


def _interrupted(done: int, total: int, log: Path | None) -> None:
    where = ""
    if log is not None and log.exists():
        where = f"; log kept in {log}"
        try:
            if log.stat().st_size < 200 * 2**20:
                with open(log, encoding="utf-8", errors="replace") as f:
                    kept = sum(1 for line in f if line.startswith("STATE:"))
                where += f" ({kept:,} hands, no SCORE line)"
        except OSError:
            pass
    print(f"cfrlab: interrupted (about {done:,} of {total:,} games played{where})", file=sys.stderr, flush=True)
    raise SystemExit(130)


@contextmanager
def _progress(label: str, total: int, show: bool):
    """A rich progress bar on stderr (only on a terminal); yields the callback or None."""
    if not show or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,} games"),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done, tot: bar.update(task, completed=done)


def _show_match(summary: dict, show, *, log: Path | None, json_out: bool, no_exact: str | None) -> None:
    """A played match: the note why no exact value (``no_exact``, when asked for), the table
    (``show``; on stderr with ``json_out``), where the log went, and the JSON line."""
    if no_exact is not None:
        Console(stderr=True).print(f"note: no exact value: {no_exact}")
    console = Console(stderr=json_out)
    show(summary, console)
    if log:
        console.print(f"log written to {log}")
    if json_out:
        print(json.dumps(summary, allow_nan=False))


def _play_crosstable(play, total: int, slow: bool, show, write_csv, *, csv_path: Path | None,
                     json_path: Path | None, json_out: bool) -> None:
    """Play a crosstable (``play(progress)`` returns its table) with a progress bar (``slow``: the
    Python engine, which shows one for fewer games) and Ctrl-C handled; then ``show`` it and write
    the CSV (``write_csv``), JSON file and JSON line asked for."""
    try:
        with _progress("crosstable", total, total >= (PROGRESS_MIN_PYTHON if slow else PROGRESS_MIN_GAMES)) as cb:
            counter, done = _counting(cb)
            table = play(counter)
    except KeyboardInterrupt:
        _interrupted(done[0], total, None)
    show(table, Console(stderr=json_out))
    if csv_path:
        write_csv(table, csv_path)
    if json_path:
        _write_text(json_path, json.dumps(table, indent=1, allow_nan=False) + "\n", "JSON")
    if json_out:
        print(json.dumps(table, allow_nan=False))


def _fmt(mean: float | None, ci: float | None, unit: str = MBB) -> str:
    """mbb/g with 2 decimals, chips/g (ante games, values near 1) with 4; "—" for no value and
    "± ?" for no interval (a single sample)."""
    if mean is None:
        return "—"
    d = 2 if unit == MBB else 4
    text = f"{mean:+.{d}f}" if abs(mean) < 1e5 else f"{mean:+.4g}"
    if ci is None:
        return f"{text} ± ?"
    return f"{text} ± {ci:.{d}f}" if abs(mean) < 1e5 else f"{text} ± {ci:.2g}"


def _scaled(x: float | None, f: float) -> float | None:
    return None if x is None else x * f


def _significant(mean: float | None, ci: float | None) -> bool:
    return mean is not None and ci is not None and abs(mean) > ci


def _print_match(summary: dict, console: Console) -> None:
    unit = summary["unit"]
    f = 1000.0 / summary["big_blind"] if unit == MBB else 1.0
    a, b = summary["players"]
    kind = "duplicate " if summary["duplicate"] else ""
    t = Table(title=f"{a} vs {b} in {summary['game']}: {summary['hands']:,} {kind}deals, "
                    f"{summary['games']:,} games, seed {summary['seed']}")
    t.add_column(f"{a}'s winnings")
    t.add_column(f"{unit} ± 95% CI", justify="right")
    t.add_column("games", justify="right")
    if "exact_chips" in summary:
        t.add_column(f"exact {unit}", justify="right")
    rows = [("overall" + (" (per-deal pair means)" if summary["duplicate"] else ""), summary["mean_chips"],
             summary["ci95_chips"], summary["games"], summary.get("exact_chips"))]
    for s in summary["per_seat"]:
        rows.append((f"as {s['label']}", s["mean_chips"], s["ci95_chips"], s["hands"], s.get("exact_chips")))
    for label, m, ci, n, ex in rows:
        cells = [label, _fmt(_scaled(m, f), _scaled(ci, f), unit), f"{n:,}"]
        if "exact_chips" in summary:
            cells.append("" if ex is None else f"{ex * f:+.4f}")
        t.add_row(*cells)
    console.print(t)
    speed = summary.get("hands_per_second")
    verdict = "significant" if _significant(summary["mean_chips"], summary["ci95_chips"]) else "not significant"
    console.print(f"{verdict} at 95%; {summary['engine']} engine, {summary['seconds']:.2f} s"
                  + (f", {speed:,.0f} games/s" if speed else ""))
    av = summary.get("aivat")
    if av is not None:
        console.print(f"AIVAT: {_fmt(_scaled(av['mean_chips'], f), _scaled(av['ci95_chips'], f), unit)} "
                      f"(variance / {av['variance_ratio_text']} against money)")


def register(app: typer.Typer) -> None:
    @app.command("match")
    def match(
        args: Annotated[list[str] | None, typer.Argument(metavar="GAME A B [C...]", show_default=False, help=(
            f"the game ({GAME_HELP.split(' (')[0]}), then one agent per seat (two, or three in "
            f"kuhn-3p / leduc-3p): {AGENT_HELP}"))] = None,
        game_opt: Annotated[str | None, typer.Option("--game", "-g", hidden=True, help=GAME_HELP)] = None,
        hands: Annotated[int, typer.Option("--hands", "-n", metavar="N",
                                           help=("number of deals: N games, or 2N with --duplicate (each "
                                                 "deal played again with the seats swapped; cfrlab lbr "
                                                 "--hands N counts games: N/2 deals)"))] = 10_000,
        duplicate: Annotated[bool, typer.Option("--duplicate", "-d", help="play every deal again with the seats swapped")] = False,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED",
                                                 help="deal seed (default: drawn and printed)")] = None,
        log: Annotated[Path | None, typer.Option("--log", metavar="FILE",
                                                 help="write the hands as an ACPC log (STATE lines, SCORE)")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="print the summary as one JSON object on the last line")] = False,
        exact: Annotated[bool, typer.Option("--exact", help="also compute the exact expected value (enumerable games)")] = False,
        engine: Annotated[str, typer.Option("--engine", metavar="ENGINE", help="auto, fast (numba, limit games) or python")] = "auto",
        aivat: Annotated[bool, typer.Option("--aivat", help=(
            "also score every hand with AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling): unbiased, "
            "lower variance, from the strategies of the agents that are strategy files or bots"))] = False,
        workers: Annotated[int, typer.Option("--workers", metavar="N", help=(
            "play the deals in blocks in N local processes (fast engine; the same hands as one process)"))] = 1,
        ray: Annotated[str | None, typer.Option("--ray", metavar="ADDRESS", help=(
            "play the blocks on an existing Ray cluster, 'auto' or HOST:PORT"))] = None,
    ) -> None:
        """Play A against B; report A's winnings (mbb/g, or chips/g in ante games) with a 95% CI.

        With three players every deal is played once per seating of the agents (all 6), and each
        agent's mean comes with its 95% CI."""
        from cfrlab.agents import play_match as play_specs
        from cfrlab.agents.registry import make_agent
        from cfrlab.evaluate.match import fast_reason, play_match
        from cfrlab.games import load_game

        game, specs = _game_and_agents(args or [], game_opt, "match")
        if len(specs) > 2:
            if aivat:
                raise CfrlabError("--aivat takes 2-player matches")
            if workers > 1 or ray is not None:
                raise CfrlabError("--workers and --ray take 2-player matches")
            _match_n(game, specs, hands=hands, seed=seed, log=log, json_out=json_out, exact=exact, engine=engine)
            return
        agent_a, agent_b = specs
        if hands < 1:
            raise CfrlabError("--hands must be at least 1")
        check_workers(workers, ray)
        for flag, given in (("--log", log), ("--aivat", aivat)):
            if given and (workers > 1 or ray is not None):
                raise CfrlabError(f"{flag} plays in one process: leave out --workers/--ray")
        if seed is not None and seed < 0:
            raise CfrlabError("--seed must be a non-negative integer")
        games = hands * (2 if duplicate else 1)
        check_match_memory(hands, duplicate)
        check_output(log, "log", atomic=False)
        g = load_game(game)
        a = make_agent(agent_a, g)
        b = make_agent(agent_b, g)
        slow = engine == "python" or (engine == "auto" and fast_reason(g, a, b) is not None)
        show = games >= (PROGRESS_MIN_PYTHON if slow else PROGRESS_MIN_GAMES)
        try:
            with _progress(f"{a.name} vs {b.name}", games, show) as cb:
                counter, done = _counting(cb)
                labels = (_label(agent_a, a), _label(agent_b, b))
                if workers > 1 or ray is not None:
                    res = play_specs(g, agent_a, agent_b, hands, seed=seed, duplicate=duplicate,
                                     log=log, names=labels, engine=engine, progress=counter,
                                     exact=exact, aivat=aivat, workers=workers, ray=ray)
                else:
                    res = play_match(g, a, b, hands, seed=seed, duplicate=duplicate, log=log,
                                     names=labels, engine=engine, progress=counter, exact=exact,
                                     aivat=aivat)
        except KeyboardInterrupt:
            _interrupted(done[0], games, log)
        summary = res.summary()
        missing = exact and "exact_chips" not in summary
        _show_match(summary, _print_match, log=log, json_out=json_out,
                    no_exact=summary.get("exact_unavailable", "not computable") if missing else None)

    @app.command("crosstable")
    def crosstable_cmd(
        args: Annotated[list[str] | None, typer.Argument(metavar="GAME AGENT...", show_default=False, help=(
            f"the game, then two or more agents (three or more in a 3-player game): {AGENT_HELP}"))] = None,
        game_opt: Annotated[str | None, typer.Option("--game", "-g", hidden=True, help=GAME_HELP)] = None,
        hands: Annotated[int, typer.Option("--hands", "-n", metavar="N", help="deals per match")] = 10_000,
        duplicate: Annotated[bool, typer.Option("--duplicate/--no-duplicate", "-d",
                                                help="duplicate matches (default)")] = True,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED",
                                                 help="deal seed, the same for every match (default: drawn and printed)")] = None,
        csv_path: Annotated[Path | None, typer.Option("--csv", metavar="FILE",
                                                      help="write one row per ordered pair as CSV")] = None,
        json_path: Annotated[Path | None, typer.Option("--json-out", metavar="FILE",
                                                       help="write the table and every match summary as JSON")] = None,
        engine: Annotated[str, typer.Option("--engine", metavar="ENGINE", help="auto, fast or python")] = "auto",
        json_out: Annotated[bool, typer.Option("--json", help="print the table as one JSON object on the last line")] = False,
        exact: Annotated[bool, typer.Option("--exact", help=(
            "3-player games: also compute each agent's exact expected value"))] = False,
    ) -> None:
        """Every pair of agents plays a match; prints the row player's winnings ± 95% CI.

        In a 3-player game every three agents play a rotated-seat match on the same deals, and
        each agent's result over the field is its mean over its matches."""
        from cfrlab.agents.registry import make_agent
        from cfrlab.evaluate.match import crosstable, fast_reason
        from cfrlab.games import load_game

        game, agents = split_game(args or [], game_opt, ("AGENT", "AGENT..."), "crosstable", at_least=2)
        if _players_of(game) > 2:
            _crosstable_n(game, agents, hands=hands, seed=seed, csv_path=csv_path, json_path=json_path,
                          json_out=json_out, exact=exact, engine=engine)
            return
        if hands < 1:
            raise CfrlabError("--hands must be at least 1")
        if seed is not None and seed < 0:
            raise CfrlabError("--seed must be a non-negative integer")
        check_match_memory(hands, duplicate, "each match")
        check_output(csv_path, "CSV")  # refuse now, not after every match has been played
        check_output(json_path, "JSON")
        g = load_game(game)
        built = [make_agent(s, g) for s in agents]
        labels = [_label(s, a) for s, a in zip(agents, built)]
        pairs = len(built) * (len(built) - 1) // 2
        total = pairs * hands * (2 if duplicate else 1)
        slow = engine == "python" or (engine == "auto" and any(
            fast_reason(g, a, b) is not None for i, a in enumerate(built) for b in built[i + 1:]))

        def play(progress):
            return crosstable(g, built, hands, labels=labels, seed=seed, duplicate=duplicate,
                              engine=engine, progress=progress)

        _play_crosstable(play, total, slow, _print_crosstable, _write_csv,
                         csv_path=csv_path, json_path=json_path, json_out=json_out)


    @app.command("log")
    def log_cmd(
        args: Annotated[list[str] | None, typer.Argument(metavar="GAME FILE", show_default=False, help=(
            "the game the log was played in (built-in name or .game file), then an ACPC match log "
            "(cfrlab match/dealer --log, or the ACPC dealer's)"))] = None,
        game_opt: Annotated[str | None, typer.Option("--game", "-g", hidden=True, help=GAME_HELP)] = None,
        json_out: Annotated[bool, typer.Option("--json", help="print the summary as one JSON object on the last line")] = False,
    ) -> None:
        """Read a match log back: check every hand, print each player's winnings ± 95% CI."""
        from cfrlab.evaluate.histories import read_log
        from cfrlab.games import load_game

        game, (file,) = split_game(args or [], game_opt, ("FILE",), "log")
        path = Path(file)
        g = load_game(game)
        summary = log_summary(read_log(path, g), str(path))
        console = Console(stderr=json_out)
        _print_log(summary, console)
        if json_out:
            print(json.dumps(summary, allow_nan=False))


def _players_of(game: str) -> int:
    """The game's player count (2 when the name does not load: the caller's own checks then say why)."""
    from cfrlab.games import load_game

    try:
        return load_game(game).num_players
    except CfrlabError:
        return 2


def _game_and_agents(args: list[str], game_opt: str | None, command: str) -> tuple[str, list[str]]:
    """``GAME A B ...`` with one agent per seat of the game (A B in a 2-player game)."""
    raw = game_opt if game_opt is not None else (args[0] if args else None)
    n = _players_of(raw) if raw else 2
    names = tuple("ABCDEFGHIJ"[:n])
    if n > 2:
        got = len(args) - (0 if game_opt is not None else 1)
        if got != n:
            raise CfrlabError(f"{raw} has {n} seats: give {n} agents, got {got} (cfrlab {command} GAME "
                              f"{' '.join(names)}; see cfrlab {command} --help)")
    return split_game(args, game_opt, names, command)


def _check_hands_seed(hands: int, seed: int | None) -> None:
    if hands < 1:
        raise CfrlabError("--hands must be at least 1")
    if seed is not None and seed < 0:
        raise CfrlabError("--seed must be a non-negative integer")


def _seat_games(n: int) -> int:
    import math

    return math.factorial(n)


def _match_n(game: str, specs: list[str], *, hands: int, seed: int | None, log: Path | None, json_out: bool,
             exact: bool, engine: str) -> None:
    """``cfrlab match`` in a game of more than two players: a rotated-seat match."""
    from cfrlab.agents.nmatch import check_seats, fast_reason, play_nmatch
    from cfrlab.agents.registry import make_agent
    from cfrlab.games import load_game

    _check_hands_seed(hands, seed)
    g = load_game(game)
    check_seats(g, len(specs))
    games = hands * _seat_games(g.num_players)
    check_match_memory(games * g.num_players, False)
    check_output(log, "log", atomic=False)
    built = [make_agent(s, g) for s in specs]
    slow = engine == "python" or (engine == "auto" and fast_reason(g, built) is not None)
    show = games >= (PROGRESS_MIN_PYTHON if slow else PROGRESS_MIN_GAMES)
    try:
        with _progress(" vs ".join(a.name for a in built), games, show) as cb:
            counter, done = _counting(cb)
            res = play_nmatch(g, built, hands, seed=seed, names=[_label(s, a) for s, a in zip(specs, built)],
                              engine=engine, exact=exact, log=log, progress=counter)
    except KeyboardInterrupt:
        _interrupted(done[0], games, None)
    summary = res.summary()
    _show_match(summary, _print_match_n, log=log, json_out=json_out,
                no_exact=summary.get("exact_unavailable") if exact else None)


def _print_match_n(summary: dict, console: Console) -> None:
    unit = summary["unit"]
    f = 1000.0 / summary["big_blind"] if unit == MBB and summary.get("big_blind") else 1.0
    n = summary["num_players"]
    has_exact = any("exact_chips" in a for a in summary["agents"])
    t = Table(title=f"{', '.join(summary['players'])} in {summary['game']}: {summary['hands']:,} deals x "
                    f"{summary['seat_assignments']} seatings = {summary['games']:,} games, seed {summary['seed']}")
    t.add_column("agent", no_wrap=True)
    t.add_column(f"{unit} ± 95% CI", justify="right", no_wrap=True)
    if has_exact:
        t.add_column(f"exact {unit}", justify="right", no_wrap=True)
    for p in range(n):
        t.add_column(f"pos {p + 1}", justify="right", no_wrap=True)
    d = 2 if unit == MBB else 4
    for a in summary["agents"]:
        cells = [a["name"], _fmt(_scaled(a["mean_chips"], f), _scaled(a["ci95_chips"], f), unit)]
        if has_exact:
            cells.append("" if a.get("exact_chips") is None else f"{a['exact_chips'] * f:+.{d}f}")
        for pp in a["per_position"]:
            cells.append("—" if pp["mean_chips"] is None else f"{pp['mean_chips'] * f:+.{d}f}")
        t.add_row(*cells)
    console.print(t)
    speed = summary.get("games_per_second")
    console.print(f"pos k: the agent's mean at position k (1 acts first); the means add up to "
                  f"{summary['sum_of_means_chips'] * f:+.2g} (zero-sum, deal by deal)")
    console.print(f"{summary['engine']} engine, {summary['seconds']:.2f} s" + (f", {speed:,.0f} games/s" if speed else ""))


def _crosstable_n(game: str, specs: list[str], *, hands: int, seed: int | None, csv_path: Path | None,
                  json_path: Path | None, json_out: bool, exact: bool, engine: str) -> None:
    """``cfrlab crosstable`` in a game of more than two players: every N agents play a match."""
    from math import comb

    from cfrlab.agents.nmatch import fast_reason, ncrosstable
    from cfrlab.agents.registry import make_agent
    from cfrlab.games import load_game

    _check_hands_seed(hands, seed)
    g = load_game(game)
    n = g.num_players
    if len(specs) < n:
        raise CfrlabError(f"{g.name or 'this game'} has {n} seats: a crosstable needs at least {n} agents, "
                          f"got {len(specs)}")
    games = hands * _seat_games(n)
    check_match_memory(games * n, False, "each match")
    check_output(csv_path, "CSV")
    check_output(json_path, "JSON")
    built = [make_agent(s, g) for s in specs]
    labels = [_label(s, a) for s, a in zip(specs, built)]
    total = comb(len(built), n) * games
    slow = engine == "python" or (engine == "auto" and fast_reason(g, built) is not None)

    def play(progress):
        return ncrosstable(g, built, hands, labels=labels, seed=seed, engine=engine, exact=exact,
                           progress=progress)

    _play_crosstable(play, total, slow, _print_crosstable_n, _write_csv_n,
                     csv_path=csv_path, json_path=json_path, json_out=json_out)


def _print_crosstable_n(table: dict, console: Console) -> None:
    from rich import box

    unit = table["unit"]
    d = 2 if unit == MBB else 4
    has_exact = any("exact" in r for r in table["field"])
    t = Table(title=f"{table['game']}: each agent over the field, {unit} ± 95% CI ({len(table['matches'])} "
                    f"matches of {table['hands']:,} deals x {table['seat_assignments']} seatings, seed {table['seed']})",
              box=box.SIMPLE_HEAD)
    t.add_column("agent")
    t.add_column("matches", justify="right")
    t.add_column(f"mean {unit}", justify="right")
    if has_exact:
        t.add_column(f"exact {unit}", justify="right")
    order = sorted(range(len(table["field"])), key=lambda i: -(table["field"][i]["mean"] or 0.0))
    for i in order:
        r = table["field"][i]
        text = _fmt(r["mean"], r["ci95"], unit)
        cells = [r["name"], str(r["matches"]), f"[bold]{text}[/bold]" if _significant(r["mean"], r["ci95"]) else text]
        if has_exact:
            cells.append(f"{r['exact']:+.{d}f}" if r.get("exact") is not None else "")
        t.add_row(*cells)
    console.print(t)
    n = table["num_players"]
    rows = []
    for match in table["matches"]:
        cells = []
        for p in range(n):
            cell = f"{match['players'][p]} {_fmt(match['mean'][p], match['ci95'][p], unit).replace(' ± ', '±')}"
            if "exact" in match:
                cell += f" (exact {match['exact'][p]:+.{d}f})"
            cells.append(cell)
        rows.append(cells)
    widths = [max(len(f"agent {p + 1}"), *(len(r[p]) for r in rows)) for p in range(n)]
    m = Table(title="the matches: each member's winnings", box=box.SIMPLE_HEAD)
    for p in range(n):
        m.add_column(f"agent {p + 1}", no_wrap=True, min_width=widths[p])
    for cells in rows:
        m.add_row(*cells)
    need = sum(widths) + 3 * n + 2
    Console(width=max(need, console.width), file=console.file).print(m)
    console.print("bold: significant at 95%")


def _write_csv_n(table: dict, path: Path) -> None:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["match", "agent", "players", f"mean_{table['unit'].replace('/', '_per_')}", "ci95", "exact", "unit",
                "hands", "seed"])
    for k, match in enumerate(table["matches"]):
        for p, name in enumerate(match["players"]):
            w.writerow([k + 1, name, " ".join(match["players"]), match["mean"][p], match["ci95"][p],
                        match["exact"][p] if "exact" in match else "", table["unit"], table["hands"], table["seed"]])
    _write_text(path, buf.getvalue(), "CSV")


def _label(spec: str, agent) -> str:
    p = Path(spec.split(":")[0])
    return agent.name if not p.suffix else p.stem + (":greedy" if spec.endswith(":greedy") else "")


def _print_crosstable(table: dict, console: Console) -> None:
    from rich import box

    names, unit = table["players"], table["unit"]
    kind = "duplicate " if table["duplicate"] else ""
    t = Table(title=f"{table['game']}: row player's winnings in {unit} ± 95% CI "
                    f"({table['hands']:,} {kind}deals per match, seed {table['seed']})", box=box.SIMPLE_HEAD)
    cells_by_row = []
    for i, row in enumerate(names):
        cells = [row]
        for j in range(len(names)):
            if i == j:
                cells.append("—")
                continue
            m, ci = table["mean"][i][j], table["ci95"][i][j]
            text = _fmt(m, ci, unit).replace(" ± ", "±")
            cells.append(f"[bold]{text}[/bold]" if _significant(m, ci) else text)
        cells.append(f"{table['row_mean'][i]:+.{2 if unit == MBB else 4}f}")
        cells_by_row.append(cells)
    headers = ["", *names, "mean"]
    widths = [max(len(h), *(len(r[k].replace("[bold]", "").replace("[/bold]", "")) for r in cells_by_row))
              for k, h in enumerate(headers)]
    for k, h in enumerate(headers):
        t.add_column(h, justify="left" if k == 0 else "right", no_wrap=True, min_width=widths[k])
    for cells in cells_by_row:
        t.add_row(*cells)
    need = sum(widths) + 3 * len(widths) + 2
    if need > console.width:  # never crop a crosstable: let the terminal wrap instead
        console = Console(width=need, file=console.file)
    console.print(t)
    console.print("bold: significant at 95%")


def _write_text(path: Path, text: str, what: str) -> None:
    from cfrlab.fileio import atomic_write_text

    try:
        atomic_write_text(path, text)
    except OSError as e:
        raise CfrlabError(f"{path}: cannot write the {what} ({e.strerror or e})") from None


def _write_csv(table: dict, path: Path) -> None:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["row", "column", f"mean_{table['unit'].replace('/', '_per_')}", "ci95", "unit",
                "hands", "duplicate", "seed"])
    names = table["players"]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                w.writerow([a, b, table["mean"][i][j], table["ci95"][i][j], table["unit"],
                            table["hands"], table["duplicate"], table["seed"]])
    _write_text(path, buf.getvalue(), "CSV")


def log_summary(log, path: str) -> dict:
    """Per player (by name): hands, total chips, mean chips per hand with its 95% CI (JSON-ready)."""
    from cfrlab.evaluate.stats import estimate, json_ready
    from cfrlab.games.units import display_factor, mbb_factor, rate_unit

    g = log.game
    per_name: dict[str, list[float]] = {}
    for h in log.hands:
        for name, v in zip(h.names, h.values):
            per_name.setdefault(name, []).append(v)
    mbb = mbb_factor(g) or float("nan")
    players = {}
    for name, values in per_name.items():
        e = estimate(values)
        players[name] = {"hands": e.n, "total_chips": float(sum(values)), "mean_chips": e.mean, "ci95_chips": e.ci95,
                         "mean_mbb": e.mean * mbb, "ci95_mbb": e.ci95 * mbb,
                         "mean": e.mean * display_factor(g), "ci95": e.ci95 * display_factor(g)}
    return json_ready({"file": path, "game": g.name or "custom", "hands": len(log.hands), "unit": rate_unit(g),
                       "players": players, "scores": [{"totals": t, "names": n} for t, n in log.scores]})


def _print_log(summary: dict, console: Console) -> None:
    unit = summary["unit"]
    t = Table(title=f"{summary['file']}: {summary['hands']:,} hands of {summary['game']}")
    t.add_column("player")
    t.add_column("hands", justify="right")
    t.add_column("total chips", justify="right")
    t.add_column(f"{unit} ± 95% CI", justify="right")
    for name, p in summary["players"].items():
        t.add_row(name, f"{p['hands']:,}", f"{p['total_chips']:+g}", _fmt(p["mean"], p["ci95"], unit))
    console.print(t)
    checked = "every hand's values match its cards and betting"
    if summary["scores"]:
        checked += f"; {len(summary['scores'])} SCORE line(s), each the sum of the hands above it"
    console.print(checked)
