"""Entry point: ``cfrlab``. Errors become one readable line and a non-zero exit."""

from __future__ import annotations

import importlib
import sys

import typer

from cfrlab._numba_cache import announce_compiles
from cfrlab.errors import CfrlabError

app = typer.Typer(
    name="cfrlab",
    help="Counterfactual regret minimization for poker: solve, evaluate, exploit and play.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# Each module defines ``register(app)``; one module per command group keeps files focused.
COMMAND_MODULES = (
    "cfrlab.cli.games_cmd",
    "cfrlab.cli.solve_cmd",
    "cfrlab.cli.strategy_cmd",
    "cfrlab.cli.abstract_cmd",
    "cfrlab.cli.match_cmd",
    "cfrlab.cli.play_cmd",
    "cfrlab.cli.experiment_cmd",
)

announce_compiles()  # a terminal hears once that kernels compile (the first run on a machine)
for _mod in COMMAND_MODULES:
    try:
        importlib.import_module(_mod).register(app)
    except ModuleNotFoundError as e:  # a command group not written yet (development only)
        if e.name != _mod:
            raise


def fail(message: str, code: int = 2) -> None:
    """Print one line to stderr and exit non-zero."""
    print(f"cfrlab: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, prog_name="cfrlab")
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


if __name__ == "__main__":
    main()
