"""Entry point: ``cfrlab``. Errors become one readable line and a non-zero exit.

Usage errors (a missing argument, an unknown option, a bad value) are one line too:
``cfrlab: error: <message> (see cfrlab CMD --help)``, exit 2. The conventions every command
follows are in docs/cli.md."""

from __future__ import annotations

import importlib
import sys
from typing import Annotated

import typer
import typer.core

from cfrlab.errors import CfrlabError
from cfrlab.numba_cache import announce_compiles

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

app = typer.Typer(
    name="cfrlab",
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

# Each module defines ``register(app)``; one module per command group keeps files focused.
COMMAND_MODULES = (
    "cfrlab.cli.games_cmd",
    "cfrlab.cli.solve_cmd",
    "cfrlab.cli.strategy_cmd",
    "cfrlab.cli.abstract_cmd",
    "cfrlab.cli.match_cmd",
    "cfrlab.cli.play_cmd",
    "cfrlab.cli.experiment_cmd",
    "cfrlab.cli.matrix_cmd",
    "cfrlab.cli.counter_cmd",
    "cfrlab.cli.realbr_cmd",
    "cfrlab.cli.lbr_cmd",
    "cfrlab.cli.divat_cmd",
    "cfrlab.cli.aivat_cmd",
)

announce_compiles()  # a terminal hears once that kernels compile (the first run on a machine)
for _mod in COMMAND_MODULES:
    try:
        importlib.import_module(_mod).register(app)
    except ModuleNotFoundError as e:  # a command group not written yet (development only)
        if e.name != _mod:
            raise


def fail(message: str, code: int = 2) -> None:
    """Print one line to stderr and exit non-zero (control characters a file put in the
    message escaped: a file can neither clear the terminal nor forge a second line)."""
    from cfrlab.fileio import printable

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
