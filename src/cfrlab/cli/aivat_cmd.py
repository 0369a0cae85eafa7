"""``cfrlab aivat``: money and AIVAT of one player over ACPC logs, given a known strategy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cfrlab.agents.registry import make_agent
from cfrlab.cli.divat_cmd import Json, LogGame, Logs, Player, log_game, report
from cfrlab.evaluate.aivat import aivat_log, ratio_text
from cfrlab.games import load_game

HELP = ("Money and AIVAT per hand of one player in ACPC logs (every hand's cards recorded), "
        "given the strategy of the player, of its opponent, or both (strategy files or bot "
        "names), with 95% confidence intervals and the variance reduction. AIVAT: Burch, "
        "Schmid, Moravcik, Morrill and Bowling, \"AIVAT: a new variance reduction technique "
        "for agent evaluation in imperfect information games\". See docs/aivat.md.")

LABELS = {"money": "money", "aivat_chance": "AIVAT, cards only", "aivat": "AIVAT"}


def register(app: typer.Typer) -> None:
    @app.command("aivat", help=HELP)
    def aivat_command(
        logs: Logs,
        player: Player,
        strategy: Annotated[str | None, typer.Option("--strategy", metavar="SPEC",
                                                     help="the player's own strategy (file or bot), if known")] = None,
        opponent: Annotated[str | None, typer.Option("--opponent", metavar="SPEC",
                                                     help="the opponent's strategy (file or bot), if known")] = None,
        value: Annotated[str, typer.Option("--value", metavar="V", help=(
            "value function: exact (small games: the known strategies' expected values), calldown "
            "(any game), or auto (exact where it fits)"))] = "auto",
        game: LogGame = None,
        as_json: Json = False,
    ) -> None:
        g = load_game(game) if game is not None else log_game(Path(logs[0]))
        mine = make_agent(strategy, g) if strategy is not None else None
        theirs = make_agent(opponent, g) if opponent is not None else None
        res = aivat_log(logs, player, strategy=mine, opponent=theirs, game=g, value=value)  # CfrlabError: one line
        report(player, g, res.hands, res.estimates("chips/g"), res.variance_ratios(), LABELS, as_json, ratio_text)
