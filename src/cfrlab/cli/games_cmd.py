"""``cfrlab games`` and ``cfrlab game show``."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from cfrlab.games import load_game
from cfrlab.games.builtins import BUILTIN_HELP


def register(app: typer.Typer) -> None:
    game_app = typer.Typer(help="Inspect game definitions.", no_args_is_help=True)
    app.add_typer(game_app, name="game")

    @app.command("games")
    def games() -> None:
        """List the built-in games."""
        from cfrlab.cli.matrix_cmd import builtin_matrix_help

        t = Table(title="built-in games (a .game file works wherever a name does)")
        t.add_column("name")
        t.add_column("description")
        for name, desc in BUILTIN_HELP.items():
            t.add_row(name, desc)
        console = Console()
        console.print(t)
        m = Table(title="matrix games for cfrlab matrix (a CSV or text file of payoffs works too)")
        m.add_column("name")
        m.add_column("description")
        for name, desc in builtin_matrix_help().items():
            m.add_row(name, desc)
        console.print(m)

    @game_app.command("show")
    def show(game: str = typer.Argument(..., metavar="GAME", help="built-in name or .game file")) -> None:
        """Print a game's ACPC definition and a summary."""
        g = load_game(game)
        print(g.to_text(), end="")
        print(f"# {g.name or game}: {g.summary()}")
