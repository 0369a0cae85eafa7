"""Entry point: ``cfrlab``. Errors become one readable line and a non-zero exit.

Usage errors (a missing argument, an unknown option, a bad value) are one line too:
``cfrlab: error: <message> (see cfrlab CMD --help)``, exit 2. The conventions every command
follows are in docs/cli.md. A command's module, and the numba kernels it uses, load only when
it runs: ``cfrlab --help`` and ``cfrlab games`` start in a fraction of a second."""

from __future__ import annotations

import sys

# Ctrl-C while Python loads the CLI: one line and 130, as anywhere else (see main()); before this
# module runs (the package's own imports), cfrlab/__init__.py's hooks do the same for the command
try:
    import importlib
    from collections.abc import MutableMapping
    from typing import Annotated

    import typer
    import typer.core

    from cfrlab.errors import CfrlabError
    from cfrlab.numba_cache import announce_compiles
except KeyboardInterrupt:
    print("cfrlab: error: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

_EXC = []
try:  # recent typer carries its own copy of click
    from typer._click import exceptions as _typer_click_exceptions

    _EXC.append(_typer_click_exceptions)
except ImportError:  # pragma: no cover - older typer uses click itself
    pass
try:
    import click.exceptions as _click_exceptions

    _EXC.append(_click_exceptions)
except ImportError:  # pragma: no cover
    pass
USAGE_ERRORS = tuple(m.UsageError for m in _EXC)
NO_ARGS_HELP = tuple(m.NoArgsIsHelpError for m in _EXC if hasattr(m, "NoArgsIsHelpError"))
CLICK_ERRORS = tuple(m.ClickException for m in _EXC)
ABORTS = (typer.Abort, *(m.Abort for m in _EXC if hasattr(m, "Abort")))

# name -> (module of cfrlab.cli that registers it, the summary ``cfrlab --help`` lists), in the
# listed order. Each module defines ``register(app)`` (one module per command group keeps files
# focused) and is imported only when one of its commands runs or shows its help: ``cfrlab --help``
# imports no numba, numpy or kernel (tests/test_cold_start.py checks the summaries against the
# commands' own help).
COMMANDS = {
    "games": ("games_cmd", "List the built-in games."),
    "solve": ("solve_cmd", ("Solve a game; print exploitability and (with --out) "
                            "save the strategy.")),
    "exploit": ("solve_cmd", ("Exact best response to a strategy: what each seat's best response "
                              "wins, exploitability.")),
    "match": ("match_cmd", ("Play A against B; report A's winnings (mbb/g, or chips/g in ante "
                            "games) with a 95% CI.")),
    "crosstable": ("match_cmd", ("Every pair of agents plays a match; prints the row player's "
                                 "winnings ± 95% CI.")),
    "log": ("match_cmd", ("Read a match log back: check every hand, print each player's winnings "
                          "± 95% CI.")),
    "connect": ("play_cmd", "Play an agent in a match run by an ACPC dealer (protocol 2.0.0)."),
    "dealer": ("play_cmd", ("Run an ACPC-compatible match: prints the ports, then "
                            "SCORE:<seat totals>:<names>.")),
    "play": ("play_cmd", ("Play against an agent in the terminal (f = fold, c = check/call, "
                          "r = bet/raise).")),
    "serve": ("play_cmd", ("Play against an agent in the browser: open http://HOST:PORT/ (one "
                           "session per visitor).")),
    "matrix": ("matrix_cmd", ("Matrix games: regret matching in self-play or against a fixed "
                              "strategy, and the exact solution.")),
    "exploit-real": ("realbr_cmd", ("Exact best response in the real game (real cards, no "
                                    "abstraction).")),
    "cfrbr": ("cfrbr_cmd", ("CFR-BR in a card abstraction: the least exploitable strategy it can "
                            "represent (against a real-game opponent; exact real-game exploitability).")),
    "lbr": ("lbr_cmd", ("Local best response (Lisý and Bowling), limit and no-limit: a lower bound "
                        "on the real-game exploitability.")),
    "divat": ("divat_cmd", ("Money, showdown DIVAT and DIVAT per hand of one player in ACPC logs "
                            "(both hands shown).")),
    "aivat": ("aivat_cmd", ("Money and AIVAT per hand of one player in ACPC logs (every hand's "
                            "cards recorded).")),
    "game": ("games_cmd", "Inspect game definitions."),
    "strategy": ("strategy_cmd", "Inspect, export and import strategy files."),
    "abstract": ("abstract_cmd", "Card abstraction (bucketing) for hold'em-style games."),
    "experiment": ("experiment_cmd", ("Reproduce published experiments (Zinkevich et al. 2007, "
                                      "Figure 1).")),
    "counter": ("counter_cmd", "Opponent models from logs and counter-strategies (FBR, RNR, DBR)."),
    "spot": ("spot_cmd", "Postflop spots: a board, two ranges, the pot, the stacks and the bet sizes."),
    "deep": ("deep_cmd", "Deep CFR and Single Deep CFR: neural strategies measured exactly."),
    "subgame": ("subgame_cmd", ("Re-solve a blueprint's subgames with exact cards (unsafe, resolve, "
                                "maxmargin, reach); print both exploitabilities.")),
    "search": ("subgame_cmd", ("Depth-limited search from the game's root, measured exactly: the "
                               "search of every situation written out as one strategy.")),
    "value-net": ("subgame_cmd", "Train a counterfactual value network for depth-limited search."),
}


def load_commands(module: str) -> dict:
    """The click commands ``cfrlab.cli.<module>`` registers, by name (imports the module)."""
    sub = typer.Typer()
    importlib.import_module(f"cfrlab.cli.{module}").register(sub)
    return dict(typer.main.get_group(sub).commands)


class LazyCommands(MutableMapping):
    """A group's commands by name, each module imported on the first access to one of its
    commands (names and membership need no import)."""

    def __init__(self, commands):
        self._loaded = dict(commands)

    def __getitem__(self, name):
        if name not in self._loaded and name in COMMANDS:
            for n, cmd in load_commands(COMMANDS[name][0]).items():
                self._loaded.setdefault(n, cmd)
        return self._loaded[name]

    def __contains__(self, name):
        return name in COMMANDS or name in self._loaded

    def __iter__(self):
        return iter(dict.fromkeys([*COMMANDS, *self._loaded]))

    def __len__(self):
        return len(dict.fromkeys([*COMMANDS, *self._loaded]))

    def __setitem__(self, name, cmd):
        self._loaded[name] = cmd

    def __delitem__(self, name):
        del self._loaded[name]


class LazyGroup(typer.core.TyperGroup):
    """cfrlab's top-level group: commands load when they run; its help lists the summaries."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.commands = LazyCommands(self.commands)
        self._listing = False

    def list_commands(self, ctx):
        return list(self.commands)

    def get_command(self, ctx, cmd_name):
        if self._listing and cmd_name in COMMANDS:
            return typer.core.TyperCommand(cmd_name, help=COMMANDS[cmd_name][1])
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx, formatter):
        self._listing = True
        try:
            return super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="cfrlab",
    cls=LazyGroup,
    help="Counterfactual regret minimization for poker: solve, evaluate, exploit and play.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _flag_type(self, ctx):
    """Help shows no ``<bool>`` after flags such as --json: they take no value."""
    return None if getattr(self, "is_flag", False) else _option_type(self, ctx)


_option_type = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_type


def _argument_type(self, ctx):
    """An argument with a metavar (GAME, FILE, GAME A B) needs no ``<str>`` after it."""
    return None if self.metavar is not None else _plain_argument_type(self, ctx)


def _argument_usage(self):
    """Usage shows ``GAME A B`` as written, not ``{GAME A B}...``; optional ones in brackets."""
    if self.metavar is None:
        return _plain_argument_usage(self)
    return self.metavar if self.required or " " in self.metavar else f"[{self.metavar}]"


_plain_argument_type = typer.core.TyperArgument.display_type_rich
_plain_argument_usage = typer.core.TyperArgument._usage_display_name
typer.core.TyperArgument.display_type_rich = _argument_type
typer.core.TyperArgument._usage_display_name = _argument_usage


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("cfrlab")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        print(f"cfrlab {version()}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                               help="Print cfrlab's version and exit.")] = False,
) -> None:
    """Counterfactual regret minimization for poker: solve, evaluate, exploit and play."""


# A terminal hears once that kernels compile (the first run on a machine); scripts reading stderr
# see the same lines with a warm or a cold cache.
announce_compiles("terminal")


def fail(message: str, code: int = 2) -> None:
    """Print one line to stderr and exit non-zero (control characters a file put in the
    message escaped: a file can neither clear the terminal nor forge a second line)."""
    from cfrlab.errors import printable

    print(f"cfrlab: error: {printable(message)}", file=sys.stderr)
    raise SystemExit(code)


def usage_fail(e) -> None:
    """A click usage error as one line, with where to look."""
    message = e.format_message().strip().rstrip(".")
    message = message[:1].lower() + message[1:] if message[:2] != message[:2].upper() else message
    where = getattr(getattr(e, "ctx", None), "command_path", None) or "cfrlab"
    fail(f"{message} (see {where} --help)", 2)


def main(argv: list[str] | None = None) -> None:
    try:
        code = typer.main.get_command(app).main(args=argv, prog_name="cfrlab", standalone_mode=False)
    except NO_ARGS_HELP:  # `cfrlab` or `cfrlab GROUP` alone: the help was printed
        raise SystemExit(2) from None
    except USAGE_ERRORS as e:
        usage_fail(e)
    except CLICK_ERRORS as e:
        fail(e.format_message())
    except ABORTS:  # end of input at a prompt
        fail("interrupted", 130)
    except CfrlabError as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except (BrokenPipeError, ConnectionError) as e:
        fail(f"connection lost: {e}", 3)
    except MemoryError:
        fail("out of memory", 4)
    except OSError as e:
        fail(f"{e.filename or ''}: {e.strerror or e}".lstrip(": "), 2)
    if code == 130:  # typer turns Ctrl-C outside a command's own handling into exit code 130
        fail("interrupted", 130)
    if isinstance(code, int) and code:
        raise SystemExit(code)


if __name__ == "__main__":
    main()
