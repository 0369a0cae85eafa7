"""``cfrlab connect``, ``cfrlab dealer``, ``cfrlab play`` and ``cfrlab serve``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.cli.common import check_host_port, check_output, say, seed_or_random, split_game
from cfrlab.errors import CfrlabError

AGENT_HELP = "a built-in bot (always-call, always-raise, probe, random, value, ...) or a strategy file"
GAME_HELP = "built-in game name or .game file (first argument; --game GAME also works)"
DEFAULT_SERVE_GAME = "leduc"  # `cfrlab serve --vs A` without a game (the older spelling)
TRAINER_HELP = ("trainer mode: after each of your decisions, what the strategy does with your hand there "
                "and the EV your choice gave up against it; at the end, your costliest mistakes (the "
                "strategy: the opponent's strategy file, or --trainer-strategy)")
TRAINER_STRATEGY_HELP = ("the strategy file the trainer compares your play with (PATH or PATH:abstraction=FILE; "
                         "default: the opponent's); implies --trainer")


def _make_agent(spec: str, game, seed: int | None):
    from cfrlab.agents.registry import make_agent

    return make_agent(spec, game, seed)


def agent_copier(prototype, game):
    """A per-session agent factory that never reads the agent's file again: each call returns a
    shallow copy of ``prototype`` (its strategy tables shared, read-only) with its own random
    generator, seeded by ``begin_match``."""
    import copy

    def make(seed: int | None):
        agent = copy.copy(prototype)
        agent.begin_match(game, seed)
        return agent
    return make


def opponents(vs: list[str] | None, game) -> list[str]:
    """One agent spec per seat beside the human: ``--vs A`` fills every seat with A, or give
    ``--vs`` once per seat (``--vs A --vs B`` in a 3-player game)."""
    seats = game.num_players - 1
    if not vs:
        raise CfrlabError("missing option --vs AGENT: the bot or strategy file to play against")
    if len(vs) == 1:
        return list(vs) * seats
    if len(vs) != seats:
        raise CfrlabError(f"{game.name or 'this game'} has {seats} seat(s) beside you: give --vs once (the same "
                          f"agent in every seat) or {seats} times, got {len(vs)}")
    return list(vs)


def make_trainer(enabled: bool, spec: str | None, specs: list[str], agents: list, game):
    """The trainer of ``--trainer`` / ``--trainer-strategy`` (None when neither is given): the
    strategy of ``spec``, else the opponent's; one line when there is none to compare with."""
    from cfrlab.play.trainer import Trainer, reference_strategy

    if not enabled and spec is None:
        return None
    if game.num_players != 2:
        raise CfrlabError(f"--trainer is for two-player games; {game.name or 'this game'} has {game.num_players}")
    if spec is not None:
        try:
            agent = _make_agent(spec, game, None)
        except CfrlabError as e:
            raise CfrlabError(f"--trainer-strategy: {e}") from None
        strategy = reference_strategy(agent, game, f"--trainer-strategy {spec}")
    else:
        try:
            strategy = reference_strategy(agents[0], game, f"the opponent {specs[0]}")
        except CfrlabError:
            raise CfrlabError(f"--trainer needs a strategy to compare with: the opponent {specs[0]} plays none; "
                              "give one with --trainer-strategy FILE") from None
    trainer = Trainer(strategy, game)
    say(f"trainer mode: your decisions are rated against {strategy.name} (EVs exact, both continuing with it)")
    return trainer


def _open_log(path: Path | None):
    if path is None:
        return None
    check_output(path, "log", atomic=False)
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise CfrlabError(f"{path}: cannot write the log ({e.strerror or e})") from None


def register(app: typer.Typer) -> None:
    @app.command("connect")
    def connect(
        args: Annotated[list[str] | None, typer.Argument(metavar="GAME HOST PORT", show_default=False, help=(
            "the dealer's game (built-in name or .game file), its host (e.g. 127.0.0.1) and the port "
            "it opened for this seat"))] = None,
        agent: Annotated[str | None, typer.Option("--agent", metavar="AGENT", help=AGENT_HELP)] = None,
        game_opt: Annotated[str | None, typer.Option("--game", "-g", hidden=True, help=GAME_HELP)] = None,
        log: Annotated[Path | None, typer.Option("--log", metavar="FILE", help=(
            "write a transcript (lines in and out, warnings, hand values)"))] = None,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED", help=(
            "seed of the agent's random choices (default: drawn and printed)"))] = None,
        timeout: Annotated[float | None, typer.Option("--timeout", metavar="S", help=(
            "give up after S seconds without a message"))] = None,
    ) -> None:
        """Play an agent in a match run by an ACPC dealer (protocol 2.0.0)."""
        from cfrlab.games import load_game
        from cfrlab.play.client import run_client
        from cfrlab.play.protocol import format_chips

        game, (host, port_text) = split_game(args or [], game_opt, ("HOST", "PORT"), "connect")
        if agent is None:
            raise CfrlabError("missing option --agent AGENT: the bot or strategy file that plays "
                              "(see cfrlab connect --help)")
        port = check_host_port(host, port_text, "connect")
        seed, drawn = seed_or_random(seed)
        g = load_game(game)
        a = _make_agent(agent, g, seed)
        fh = _open_log(log)
        if drawn:
            say(f"agent seed {seed} (drawn at random; --seed {seed} repeats the agent's choices)")
        try:
            res = run_client(host, port, g, a, seed=seed, log=fh, idle_timeout=timeout)
        except KeyboardInterrupt:  # before the match started (connecting)
            where = f"; log kept in {log}" if log is not None else ""
            print(f"cfrlab: interrupted (no hand played{where})", file=sys.stderr, flush=True)
            raise SystemExit(130) from None
        finally:
            if fh is not None:
                fh.close()
        if res.interrupted:
            where = f"; log kept in {log}" if log is not None else ""
            print(f"cfrlab: interrupted ({res.hands:,} hands played{where})", file=sys.stderr, flush=True)
            raise SystemExit(130)
        per = res.total / res.hands if res.hands else 0.0
        print(f"{a.name}: {res.hands} hands, {format_chips(res.total)} chips ({per:+.4f} per hand), "
              f"{res.actions} actions, {res.fallbacks} replaced by call, {res.ignored_lines} bad lines ignored",
              file=sys.stderr)
        if res.error:  # docs/cli.md: 3 a lost connection, 1 a match that did not complete
            print(f"cfrlab: error: {res.error}", file=sys.stderr, flush=True)
            raise SystemExit(3 if res.lost else 1)

    @app.command("dealer")
    def dealer(
        game: Annotated[str, typer.Argument(metavar="GAME", help="built-in game name or .game file")],
        hands: Annotated[int, typer.Option("--hands", "-n", metavar="N", help="number of hands")] = 1000,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED", help=(
            "deck seed: cards depend only on it and the hand number (default: drawn and printed)"))] = None,
        port: Annotated[list[int] | None, typer.Option("--port", metavar="PORT", help=(
            "port per seat, in seat order (0 or absent: any free port); repeatable"))] = None,
        host: Annotated[str, typer.Option("--host", metavar="ADDRESS", help="address to listen on")] = "127.0.0.1",
        log: Annotated[Path | None, typer.Option("--log", metavar="FILE",
                                                 help="write the ACPC log (STATE lines, then SCORE)")] = None,
        names: Annotated[str | None, typer.Option("--names", metavar="A,B",
                                                  help="comma-separated player names in seat order")] = None,
        t_response: Annotated[int, typer.Option("--t-response", metavar="MS", help="ms allowed for one response")] = 600_000,
        t_hand: Annotated[int, typer.Option("--t-hand", metavar="MS", help="ms a seat may use within one hand")] = 600_000,
        t_per_hand: Annotated[int, typer.Option("--t-per-hand", metavar="MS",
                                                help="average ms per hand a seat may use over the match")] = 7_000,
        t_start: Annotated[int, typer.Option("--t-start", metavar="MS", help=(
            "ms to wait for every seat to connect and send its version (-1: forever)"))] = -1,
        fixed_seats: Annotated[bool, typer.Option("--fixed-seats", help="no button rotation: seat = position")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help=(
            "stderr gets only a drawn seed, warnings, errors and the score"))] = False,
        match_name: Annotated[str, typer.Option("--name", metavar="NAME", help="match name written in the log header")] = "match",
    ) -> None:
        """Run an ACPC-compatible match: prints the ports, then SCORE:<seat totals>:<names>."""
        from cfrlab.games import load_game
        from cfrlab.play.dealer import Dealer, DealerConfig

        seed, drawn = seed_or_random(seed)
        g = load_game(game)
        check_output(log, "log", atomic=False)
        ports = list(port) if port else [0] * g.num_players
        name_list = [x.strip() for x in names.split(",")] if names else []
        cfg = DealerConfig(g, hands, seed, ports, names=name_list, host=host, log_path=log,
                           match_name=match_name, t_response_ms=t_response, t_hand_ms=t_hand,
                           t_per_hand_ms=t_per_hand, t_start_ms=t_start, fixed_seats=fixed_seats, quiet=quiet)
        d = Dealer(cfg)
        try:
            listening = d.listen()
            if drawn:  # before the ports: whoever reads the ports may act at once
                say(f"deck seed {seed} (drawn at random; --seed {seed} deals the same cards)")
            print(" ".join(str(p) for p in listening), flush=True)
            result = d.run()
        except KeyboardInterrupt:
            d.close_interrupted()  # a no-op on the log when run() already ended it
            where = f"; log kept in {log}" if log is not None else ""
            print(f"cfrlab: interrupted ({d.hands_played:,} of {hands:,} hands played{where})",
                  file=sys.stderr, flush=True)
            raise SystemExit(130) from None
        if not result.completed:
            raise typer.Exit(1)

    @app.command("play")
    def play(
        game: Annotated[str, typer.Argument(metavar="GAME", help="built-in game name or .game file")],
        vs: Annotated[list[str], typer.Option("--vs", metavar="AGENT", help=(
            f"{AGENT_HELP}; in a 3-player game give it once (both seats) or twice (one per seat)"))],
        hands: Annotated[int | None, typer.Option("--hands", "-n", metavar="N",
                                                  help="stop after N hands (default: until you quit)")] = None,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED",
                                                 help="deck seed (default: drawn and printed)")] = None,
        trainer: Annotated[bool, typer.Option("--trainer", help=TRAINER_HELP)] = False,
        trainer_strategy: Annotated[str | None, typer.Option("--trainer-strategy", metavar="STRATEGY",
                                                             help=TRAINER_STRATEGY_HELP)] = None,
    ) -> None:
        """Play against an agent in the terminal (f = fold, c = check/call, r = bet/raise)."""
        from cfrlab.games import load_game
        from cfrlab.play.session import HumanTable
        from cfrlab.play.terminal import TerminalPlay

        if hands is not None and hands < 1:
            raise CfrlabError("--hands must be at least 1 (leave it out to play until you quit)")
        seed, drawn = seed_or_random(seed)
        g = load_game(game)
        specs = opponents(vs, g)
        agents = [_make_agent(spec, g, seed + i) for i, spec in enumerate(specs)]
        coach = make_trainer(trainer, trainer_strategy, specs, agents, g)
        if drawn:
            print(f"deck seed {seed} (drawn at random; --seed {seed} deals the same cards)")
        table = HumanTable(g, agents, seed=seed, agent_seed=seed, trainer=coach)
        TerminalPlay(table).play(hands)

    @app.command("serve")
    def serve(
        args: Annotated[list[str] | None, typer.Argument(metavar="GAME", show_default=False,
                                                         help="built-in game name or .game file")] = None,
        vs: Annotated[list[str] | None, typer.Option("--vs", metavar="AGENT", help=(
            f"{AGENT_HELP}; in a 3-player game give it once (both seats) or twice (one per seat)"))] = None,
        game_opt: Annotated[str | None, typer.Option("--game", "-g", hidden=True, help=GAME_HELP)] = None,
        port: Annotated[int, typer.Option("--port", metavar="PORT", help="port to serve on")] = 8000,
        host: Annotated[str, typer.Option("--host", metavar="ADDRESS",
                                          help="address to serve on (127.0.0.1: this machine only)")] = "127.0.0.1",
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED", help=(
            "deck seed for every session (default: each visitor gets random deals)"))] = None,
        trainer: Annotated[bool, typer.Option("--trainer", help=TRAINER_HELP)] = False,
        trainer_strategy: Annotated[str | None, typer.Option("--trainer-strategy", metavar="STRATEGY",
                                                             help=TRAINER_STRATEGY_HELP)] = None,
    ) -> None:
        """Play against an agent in the browser: open http://HOST:PORT/ (one session per visitor)."""
        from cfrlab.games import load_game
        from cfrlab.play.web import bind_socket, create_app
        from cfrlab.play.web import serve as run_server

        if len(args or []) > 1 or (args and game_opt is not None):
            raise CfrlabError("too many arguments: cfrlab serve GAME --vs AGENT (see cfrlab serve --help)")
        game = game_opt or (args[0] if args else None)
        if not vs:
            raise CfrlabError("missing option --vs AGENT: the bot or strategy file to play against "
                              "(see cfrlab serve --help)")
        if seed is not None and seed < 0:
            raise CfrlabError("--seed must be a non-negative integer")
        g = load_game(game or DEFAULT_SERVE_GAME)
        specs = opponents(vs, g)
        # each file loaded once: a moved or replaced file changes nothing
        protos = {spec: _make_agent(spec, g, None) for spec in dict.fromkeys(specs)}
        factories = [agent_copier(protos[spec], g) for spec in specs]
        shown_vs = " and ".join(dict.fromkeys(specs))
        coach = make_trainer(trainer, trainer_strategy, specs, [protos[spec] for spec in specs], g)
        app_ = create_app(g, factories if len(set(specs)) > 1 else factories[0], seed=seed,
                          title=f"cfrlab: you vs {shown_vs}", trainer=coach)
        sock = bind_socket(host, port)  # a port in use is one line, before anything starts
        port = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        default = "" if game else f" (no game given: the default; name it with cfrlab serve GAME --vs {shown_vs})"
        print(f"cfrlab: playing {g.name or game}{default} against {shown_vs} at http://{shown}:{port}/ (Ctrl-C to stop)",
              file=sys.stderr, flush=True)
        run_server(app_, sock=sock)
