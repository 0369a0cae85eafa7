"""``cfrlab connect``, ``cfrlab dealer``, ``cfrlab play`` and ``cfrlab serve``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.errors import CfrlabError

AGENT_HELP = "a built-in bot (always-call, always-raise, probe, random, value, ...) or a strategy file"


def _make_agent(spec: str, game, seed: int | None):
    from cfrlab.agents.registry import make_agent

    return make_agent(spec, game, seed)


def _open_log(path: Path | None):
    if path is None:
        return None
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise CfrlabError(f"{path}: cannot write the log ({e.strerror or e})") from None


def register(app: typer.Typer) -> None:
    @app.command("connect")
    def connect(
        host: Annotated[str, typer.Argument(help="the dealer's host (e.g. 127.0.0.1)")],
        port: Annotated[int, typer.Argument(help="the port the dealer opened for this seat")],
        agent: Annotated[str, typer.Option("--agent", "-a", help=AGENT_HELP)],
        game: Annotated[str, typer.Option("--game", "-g", help="built-in game name or .game file (the dealer's game)")],
        log: Annotated[Path | None, typer.Option("--log", help="write a transcript (lines in and out, warnings, hand values)")] = None,
        seed: Annotated[int | None, typer.Option("--seed", help="seed of the agent's random choices")] = None,
        timeout: Annotated[float | None, typer.Option("--timeout", help="give up after this many seconds without a message")] = None,
    ) -> None:
        """Play an agent in a match run by an ACPC dealer (protocol 2.0.0)."""
        from cfrlab.games import load_game
        from cfrlab.play.client import run_client
        from cfrlab.play.protocol import format_chips

        g = load_game(game)
        a = _make_agent(agent, g, seed)
        fh = _open_log(log)
        try:
            res = run_client(host, port, g, a, seed=seed, log=fh, idle_timeout=timeout)
        finally:
            if fh is not None:
                fh.close()
        per = res.total / res.hands if res.hands else 0.0
        print(f"{a.name}: {res.hands} hands, {format_chips(res.total)} chips ({per:+.4f} per hand), "
              f"{res.actions} actions, {res.fallbacks} replaced by call, {res.ignored_lines} bad lines ignored",
              file=sys.stderr)
        if res.error:
            raise CfrlabError(res.error)

    @app.command("dealer")
    def dealer(
        game: Annotated[str, typer.Argument(help="built-in game name or .game file")],
        hands: Annotated[int, typer.Option("--hands", "-n", help="number of hands")] = 1000,
        seed: Annotated[int, typer.Option("--seed", "-s", help="deck seed: cards depend only on it and the hand number")] = 0,
        port: Annotated[list[int] | None, typer.Option("--port", "-p", help="port per seat, in seat order (0 or absent: any free port)")] = None,
        host: Annotated[str, typer.Option("--host", help="address to listen on")] = "127.0.0.1",
        log: Annotated[Path | None, typer.Option("--log", help="write the ACPC log (STATE lines, then SCORE)")] = None,
        names: Annotated[str | None, typer.Option("--names", help="comma-separated player names in seat order")] = None,
        t_response: Annotated[int, typer.Option("--t-response", help="ms allowed for one response")] = 600_000,
        t_hand: Annotated[int, typer.Option("--t-hand", help="ms a seat may use within one hand")] = 600_000,
        t_per_hand: Annotated[int, typer.Option("--t-per-hand", help="average ms per hand a seat may use over the match")] = 7_000,
        t_start: Annotated[int, typer.Option("--t-start", help="ms to wait for every seat to connect and send its version (-1: forever)")] = -1,
        fixed_seats: Annotated[bool, typer.Option("--fixed-seats", help="no button rotation: seat = position")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="stderr gets only warnings, errors and the score")] = False,
        match_name: Annotated[str, typer.Option("--name", help="match name written in the log header")] = "match",
    ) -> None:
        """Run an ACPC-compatible match: prints the ports, then SCORE:<seat totals>:<names>."""
        from cfrlab.games import load_game
        from cfrlab.play.dealer import Dealer, DealerConfig

        g = load_game(game)
        ports = list(port) if port else [0] * g.num_players
        name_list = [x.strip() for x in names.split(",")] if names else []
        cfg = DealerConfig(g, hands, seed, ports, names=name_list, host=host, log_path=log,
                           match_name=match_name, t_response_ms=t_response, t_hand_ms=t_hand,
                           t_per_hand_ms=t_per_hand, t_start_ms=t_start, fixed_seats=fixed_seats, quiet=quiet)
        d = Dealer(cfg)
        print(" ".join(str(p) for p in d.listen()), flush=True)
        result = d.run()
        if not result.completed:
            raise typer.Exit(1)

    @app.command("play")
    def play(
        game: Annotated[str, typer.Argument(help="built-in game name or .game file")],
        vs: Annotated[str, typer.Option("--vs", help=AGENT_HELP)],
        hands: Annotated[int | None, typer.Option("--hands", "-n", help="stop after this many hands (default: until you quit)")] = None,
        seed: Annotated[int | None, typer.Option("--seed", "-s", help="deck seed (default: random)")] = None,
    ) -> None:
        """Play against an agent in the terminal (f = fold, c = check/call, r = bet/raise)."""
        from cfrlab.games import load_game
        from cfrlab.play.session import HumanTable
        from cfrlab.play.terminal import TerminalPlay

        if hands is not None and hands < 1:
            raise CfrlabError("--hands must be at least 1 (leave it out to play until you quit)")
        if seed is not None and seed < 0:
            raise CfrlabError("--seed must be a non-negative integer")
        g = load_game(game)
        agents = [_make_agent(vs, g, None if seed is None else seed + i) for i in range(g.num_players - 1)]
        table = HumanTable(g, agents, seed=seed, agent_seed=seed)
        TerminalPlay(table).play(hands)

    @app.command("serve")
    def serve(
        vs: Annotated[str, typer.Option("--vs", help=AGENT_HELP)],
        game: Annotated[str, typer.Option("--game", "-g", help="built-in game name or .game file")] = "leduc",
        port: Annotated[int, typer.Option("--port", "-p", help="port to serve on")] = 8000,
        host: Annotated[str, typer.Option("--host", help="address to serve on (127.0.0.1: this machine only)")] = "127.0.0.1",
        seed: Annotated[int | None, typer.Option("--seed", "-s", help="deck seed for every session (default: random per session)")] = None,
    ) -> None:
        """Play against an agent in the browser: open http://HOST:PORT/ (one session per visitor)."""
        from cfrlab.games import load_game
        from cfrlab.play.web import bind_socket, create_app
        from cfrlab.play.web import serve as run_server

        if seed is not None and seed < 0:
            raise CfrlabError("--seed must be a non-negative integer")
        g = load_game(game)
        _make_agent(vs, g, None)  # fail now, with one line, if the agent spec is bad
        app_ = create_app(g, lambda s: _make_agent(vs, g, s), seed=seed, title=f"cfrlab: you vs {vs}")
        sock = bind_socket(host, port)  # a port in use is one line, before anything starts
        port = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        print(f"cfrlab: playing {g.name or game} against {vs} at http://{shown}:{port}/ (Ctrl-C to stop)",
              file=sys.stderr, flush=True)
        run_server(app_, sock=sock)
