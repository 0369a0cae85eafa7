"""``cfrlab games`` and ``cfrlab game show``."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from cfrlab.cli.common import command_group
from cfrlab.games import load_game
from cfrlab.games.builtins import BUILTIN_HELP

# The matrix games of ``cfrlab matrix``, listed here so that ``cfrlab games`` loads no solver.
MATRIX_HELP = {
    "rps": "rock-paper-scissors: win +1, tie 0, loss -1 (zero-sum)",
    "dominance": "3x3 general-sum game solved by removing dominated strategies; equilibrium "
                 "(a1, b1) paying (10, 2)",
    "battle": "tennis or Power Rangers (battle of the sexes): two pure equilibria and a mixed one "
              "paying 6/5 each",
    "tree": "a two-move perfect-information tree in normal form: the column player's plans are "
            "(reply to Left, reply to Right); value 3 (zero-sum)",
}


def register(app: typer.Typer) -> None:
    game_app = command_group(app, "game", "Inspect game definitions.")

    @app.command("games")
    def games() -> None:
        """List the built-in games."""
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
        for name, desc in MATRIX_HELP.items():
            m.add_row(name, desc)
        console.print(m)

    @game_app.command("show")
    def show(game: str = typer.Argument(..., metavar="GAME", help="built-in name or .game file")) -> None:
        """Print a game's ACPC definition and a summary."""
        g = load_game(game)
        print(g.to_text(), end="")
        print(f"# {g.name or game}: {g.summary()}")
