"""``cfrlab aivat``: money and AIVAT of one player over ACPC logs, given a known strategy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.agents.registry import make_agent
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.aivat import aivat_log, ratio_text
from cfrlab.evaluate.divat import NoGameError, game_of_log
from cfrlab.evaluate.stats import json_ready
from cfrlab.games import load_game
from cfrlab.games.units import rate_unit, to_unit

HELP = ("Money and AIVAT per hand of one player in ACPC logs (every hand's cards recorded), "
        "given the strategy of the player, of its opponent, or both (strategy files or bot "
        "names), with 95% confidence intervals and the variance reduction. AIVAT: Burch, "
        "Schmid, Moravcik, Morrill and Bowling, \"AIVAT: a new variance reduction technique "
        "for agent evaluation in imperfect information games\". See docs/aivat.md.")


def register(app: typer.Typer) -> None:
    @app.command("aivat", help=HELP)
    def aivat_command(
        logs: Annotated[list[Path], typer.Argument(metavar="LOG...", help="ACPC match logs")],
        player: Annotated[str, typer.Option("--player", metavar="NAME", help="the player to score")],
        strategy: Annotated[str | None, typer.Option("--strategy", metavar="SPEC",
                                                     help="the player's own strategy (file or bot), if known")] = None,
        opponent: Annotated[str | None, typer.Option("--opponent", metavar="SPEC",
                                                     help="the opponent's strategy (file or bot), if known")] = None,
        value: Annotated[str, typer.Option("--value", metavar="V", help=(
            "value function: exact (small games: the known strategies' expected values), calldown "
            "(any game), or auto (exact where it fits)"))] = "auto",
        game: Annotated[str | None, typer.Option("--game", "-g", metavar="G",
                                                 help="game name or .game file (default: the log's header)")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON summary")] = False,
    ) -> None:
        g = load_game(game) if game is not None else _game_of(Path(logs[0]))
        mine = make_agent(strategy, g) if strategy is not None else None
        theirs = make_agent(opponent, g) if opponent is not None else None
        res = aivat_log(logs, player, strategy=mine, opponent=theirs, game=g, value=value)  # CfrlabError: one line
        unit = rate_unit(g)
        ratios = res.variance_ratios()
        summary = {"player": player, "game": g.name, "hands": res.hands, "unit": unit, "estimators": {}}
        for name, e in res.estimates("chips/g").items():
            summary["estimators"][name] = {
                "mean": to_unit(g, e.mean), "ci95": to_unit(g, e.ci95), "std": to_unit(g, e.std),
                "variance_ratio": 1.0 if name == "money" else ratios[name]}
        if as_json:
            print(json.dumps(json_ready(summary)))
            return
        print(f"{player} over {res.hands} hands of {g.name or 'the game'} ({unit}, 95% CI):")
        for name, e in summary["estimators"].items():
            label = {"money": "money", "aivat_chance": "AIVAT, cards only", "aivat": "AIVAT"}[name]
            print(f"  {label:18s} {e['mean']:+12.4f} +/- {e['ci95']:.4f}   std {e['std']:.4f}   "
                  f"variance / {ratio_text(e['variance_ratio'])}")


def _game_of(log: Path):
    """The game the log's header names; the error says which option gives it."""
    try:
        return game_of_log(log)
    except NoGameError as e:
        raise CfrlabError(f"{e} with --game") from None
