"""Helpers every command shares: output paths checked before any work, the game as the first
positional argument, seeds drawn and printed, the memory a job would need, and --json's line.

The conventions they implement are listed in docs/cli.md."""

from __future__ import annotations

import json
import math
import os
import secrets
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from cfrlab.errors import CfrlabError


def say(text: str) -> None:
    """One ``cfrlab: ...`` note on stderr (never on stdout, which may carry --json)."""
    print(f"cfrlab: {text}", file=sys.stderr, flush=True)


def print_json(obj: Any) -> None:
    """``obj`` as one JSON line on stdout (--json), after everything printed before it."""
    sys.stdout.flush()
    print(json.dumps(obj))


def json_summary(summary: dict, as_json: bool) -> dict:
    """A command's ``summary``, printed first as its --json line when ``as_json``."""
    if as_json:
        print_json(summary)
    return summary


class BarView:
    """A progress display drawn by a rich progress bar, ``self.progress`` (on stderr): used as
    a context manager, it shows the bar while inside."""

    progress: Any

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)


def command_group(app: typer.Typer, name: str, help: str) -> typer.Typer:
    """A group of subcommands, ``cfrlab NAME ...``, that prints its help when called bare."""
    group = typer.Typer(help=help, no_args_is_help=True)
    app.add_typer(group, name=name)
    return group


# -- output paths ----------------------------------------------------------------------------


def check_output(path: Path | None, what: str, *, atomic: bool = True) -> Path | None:
    """Check, before any work, that ``path`` can be written; refuse with one line naming it.

    ``what`` names the output in messages ("strategy", "log", ...). A missing parent folder
    is created, and said so on stderr. ``atomic`` outputs are written to a temporary file
    beside them and renamed over them, so they must be (or become) regular files; direct
    writes (logs) may go to a device such as /dev/null.
    """
    if path is None:
        return None
    path = Path(path)

    def refuse(reason: str) -> CfrlabError:
        return CfrlabError(f"{path}: cannot write the {what} ({reason})")

    if path.is_dir():
        raise refuse("it is a directory; give a file name")
    if path.exists() or path.is_symlink():
        if atomic and not path.is_file():
            raise refuse("it exists and is not a regular file")
        if not atomic and not os.access(path, os.W_OK):
            raise refuse("the file is not writable")
    folder = path.parent
    missing: list[Path] = []
    q = folder
    while not q.exists():
        if q.is_symlink():
            raise refuse(f"{q} is a broken link")
        missing.append(q)
        q = q.parent
    if not q.is_dir():
        raise refuse(f"{q} is not a folder")
    _probe(q, refuse)
    if missing:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise refuse(f"cannot create the folder {folder}: {e.strerror or e}") from None
        say(f"created the folder {folder} for the {what}")
    return path


def check_new_output(path: Path | None, force: bool, what: str) -> Path | None:
    """``check_output``, and an existing file is replaced only with ``--force``."""
    check_output(path, what)
    if path is not None and Path(path).exists() and not force:
        raise CfrlabError(f"{path} exists; use --force to overwrite it")
    return path


def check_output_dir(path: Path, what: str) -> Path:
    """A folder outputs go into: made if missing (said so), refused when it cannot hold files."""
    path = Path(path)

    def refuse(reason: str) -> CfrlabError:
        return CfrlabError(f"{path}: cannot write the {what} ({reason})")

    if path.exists() and not path.is_dir():
        raise refuse("it is a file, not a folder")
    if not path.exists():
        q = path.parent
        while not q.exists():
            q = q.parent
        if not q.is_dir():
            raise refuse(f"{q} is not a folder")
        _probe(q, refuse)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise refuse(f"cannot create it: {e.strerror or e}") from None
        say(f"created the folder {path} for the {what}")
    _probe(path, refuse)
    return path


def _probe(folder: Path, refuse) -> None:
    """Create and remove a file in ``folder``: the one test that read-only mounts, /proc and
    permissions (even for root) all answer truthfully."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".cfrlab-probe.")
    except OSError as e:
        raise refuse(f"no file can be created in {folder}: {e.strerror or e}") from None
    os.close(fd)
    try:
        os.unlink(tmp)
    except OSError:
        pass


@contextmanager
def writing(path: Path, what: str) -> Iterator[None]:
    """Turn an OSError while writing ``path`` into one line naming ``path`` (not a temp file)."""
    try:
        yield
    except OSError as e:
        raise CfrlabError(f"{path}: cannot write the {what} ({e.strerror or e})") from None


# -- the game as the first positional argument -----------------------------------------------


def split_game(args: Sequence[str], game_option: str | None, names: Sequence[str], command: str,
               *, at_least: int | None = None) -> tuple[str, list[str]]:
    """``GAME ARG...`` (the convention) or ``ARG... --game GAME`` (the older spelling).

    ``names`` are the metavars of the arguments after the game (for messages); a command with a
    variable number of them passes ``at_least``."""
    args = list(args)
    want = " ".join(["GAME", *names])
    see = f"(see cfrlab {command} --help)"
    if game_option is not None:
        game, rest = game_option, args
    elif args:
        game, rest = args[0], args[1:]
    else:
        raise CfrlabError(f"missing the game: cfrlab {command} {want} {see}")
    if at_least is None:
        if len(rest) != len(names):
            got = "too many arguments" if len(rest) > len(names) else f"missing {names[len(rest)]}"
            raise CfrlabError(f"{got}: cfrlab {command} {want} {see}")
    elif len(rest) < at_least:
        raise CfrlabError(f"give at least {at_least} agents: cfrlab {command} {want} {see}")
    return game, rest


# -- seeds -----------------------------------------------------------------------------------


def shown(text: str, limit: int = 40) -> str:
    """A value the user typed, quoted for an error line and cut to ``limit`` characters (a
    5,000-digit port is not echoed whole)."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text):,} characters)"


def check_host_port(host: str, port_text: str, command: str) -> int:
    """The dealer's address as ``connect`` takes it: a host name of at most 253 characters
    (DNS's limit) and a port 1-65535."""
    if not host or len(host) > 253 or any(not 0 < len(part) <= 63 for part in host.rstrip(".").split(".")):
        raise CfrlabError(f"HOST is not a host name or address, got {shown(host)} "
                          f"(see cfrlab {command} --help)")
    digits = port_text.isascii() and port_text.isdigit() and len(port_text.lstrip("0")) <= 5
    if not (digits and 1 <= int(port_text) <= 65535):
        raise CfrlabError(f"PORT must be a number from 1 to 65535, got {shown(port_text)} "
                          f"(see cfrlab {command} --help)")
    return int(port_text)


def seed_or_random(seed: int | None, *, bits: int = 32) -> tuple[int, bool]:
    """The seed to use and whether it was drawn (then the command prints it)."""
    if seed is not None:
        if seed < 0:
            raise CfrlabError("--seed must be a non-negative integer")
        return int(seed), False
    return secrets.randbits(bits), True


# -- workers -------------------------------------------------------------------------------


def check_workers(workers: int, ray: str | None = None) -> int:
    """Refuse ``--workers`` below 1 or above the cap (4 per CPU; 1,024 Ray actors) before any
    work: each worker is a process that imports cfrlab and loads the job."""
    from cfrlab.jobs import workers_problem  # the cap lives with the runner

    problem = workers_problem(workers, ray is not None)
    if problem is not None:
        raise CfrlabError(f"--workers {problem}")
    return workers


# -- times -----------------------------------------------------------------------------------

MAX_SECONDS = 365 * 86400  # an option that is a time: a year at most


def check_seconds(seconds: float | None, flag: str, unset: str | None = None) -> float | None:
    """Refuse a time option (``flag``) that is not a finite number of seconds from above 0 up
    to ``MAX_SECONDS``, in one line (1e308 is finite, but rate * 1e308 overflows a count);
    ``unset`` says what leaving the option out means ("no time limit")."""
    if seconds is None:
        return None
    hint = f"; leave it out for {unset}" if unset else ""
    if not math.isfinite(seconds):
        raise CfrlabError(f"{flag} must be a finite number of seconds, got {seconds}{hint}")
    if not seconds > 0:
        raise CfrlabError(f"{flag} must be above 0 seconds, got {seconds:g}")
    if seconds > MAX_SECONDS:
        raise CfrlabError(f"{flag} must be at most {MAX_SECONDS:,} seconds (a year), got "
                          f"{seconds:g}{hint}")
    return seconds


# -- a strategy file or a bot ---------------------------------------------------------------


# the arguments of commands that take a strategy file or a bot (lbr, exploit-real)
TargetArg = Annotated[str, typer.Argument(help="strategy file (.npz), deep:FILE (networks), or a bot name (with --game)")]
BotGameOpt = Annotated[str | None, typer.Option("--game", help="the game (for a bot)")]
SolvedInOpt = Annotated[str | None, typer.Option(
    "--abstraction", help="the abstraction file the strategy was solved in")]
WorkersOpt = Annotated[int, typer.Option("--workers", help="local worker processes")]


def strategy_or_bot(target: str, game: str | None, abstraction: str | None, *, parallel: bool):
    """(game, opponent) for ``target``, a strategy file or a bot name: a file is loaded here
    (header checks, its game, its abstraction; ``game``, if given, must be its game) and is the
    opponent itself, or, for ``parallel`` runs, a ``StrategyFile`` each process loads; a bot
    needs ``game`` and is an ``AgentSpec``."""
    from cfrlab.games import load_game
    from cfrlab.realgame.br import AgentSpec, StrategyFile
    from cfrlab.strategy import Strategy

    if target.startswith("deep:"):  # networks: an agent (per decision where the game is too large)
        from cfrlab.deep import load_nets

        own = load_nets(target[len("deep:"):]).game
        if game is not None and load_game(game).to_text() != own.to_text():
            raise CfrlabError(f"{target} holds networks for {own.name or 'another game'}, not for {game}")
        return own, AgentSpec(target)
    p = Path(target)
    if not (p.suffix == ".npz" or _is_file(p)):
        if game is None:
            raise CfrlabError(_no_game(target))
        return load_game(game), AgentSpec(target)
    if not _is_file(p):
        raise CfrlabError(f"no such strategy file {target}")
    s = Strategy.load(str(p), model=abstraction)
    g = s.game
    if game is not None and load_game(game).to_text() != g.to_text():
        raise CfrlabError(f"{target} is a strategy for {g.name or 'another game'}, not for {game}")
    return g, StrategyFile(str(p), abstraction) if parallel else s


def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except (OSError, ValueError):  # a name too long for the file system
        return False


def _no_game(target: str) -> str:
    """What is wrong with ``target`` given without --game when it is no strategy file: a file
    with agent options, a file that is not there, or a bot (which needs the game)."""
    from cfrlab.agents.registry import BOT_NAMES

    base, colon, _ = target.rpartition(":")
    if colon and _is_file(Path(base)):
        return (f"{target}: a strategy file with options after ':' plays as an agent, which needs --game; "
                f"the file alone ({base}) needs none")
    if colon and base.endswith(".npz"):
        return f"no such strategy file {base}"
    if Path(target).suffix or "/" in target or "\\" in target:
        return f"no such strategy file {target}"
    kinds = ("value:", "team:", "py:", "subgame:", "nested:")
    if target.lower() in BOT_NAMES or target.lower().startswith(kinds):
        return f"{target}: a bot needs --game"
    return (f"{target}: no such strategy file, and not a bot name ({', '.join(BOT_NAMES)}); "
            "a bot also needs --game")


# -- memory and time -------------------------------------------------------------------------


def human_seconds(s: float) -> str:
    """A duration for progress lines: seconds, minutes or hours ("?" while not known)."""
    if s < 0:
        return "?"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"



def available_memory() -> int | None:
    """Bytes the kernel says can be allocated without swapping (MemAvailable), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
