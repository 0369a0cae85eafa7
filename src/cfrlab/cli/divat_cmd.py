"""``cfrlab divat``: money, showdown DIVAT and DIVAT of one player over ACPC logs.

Also the parts ``cfrlab aivat`` shares: the game a log names, and the summary of per-hand
estimators (one JSON object, or a line per estimator)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.errors import CfrlabError
from cfrlab.evaluate.divat import NoGameError, divat_log, game_of_log
from cfrlab.evaluate.stats import Estimate, json_ready
from cfrlab.games import GameDef
from cfrlab.games.units import rate_unit, to_unit

HELP = ("Money, showdown DIVAT and DIVAT per hand of one player in ACPC logs (both hands "
        "shown), with 95% confidence intervals and each estimator's variance reduction. "
        "DIVAT: Billings and Kan, \"A tool for the direct assessment of poker decisions\"; "
        "unbiased as advantage-sum estimators (Zinkevich, Bowling, Bard, Kan and Billings, "
        "\"Optimal unbiased estimators for evaluating agent performance\"). See docs/divat.md.")

LABELS = {"money": "money", "showdown_divat": "showdown DIVAT", "divat": "DIVAT"}

# the arguments and options of both commands
Logs = Annotated[list[Path], typer.Argument(metavar="LOG...", help="ACPC match logs")]
Player = Annotated[str, typer.Option("--player", metavar="NAME", help="the player to score")]
LogGame = Annotated[str | None, typer.Option("--game", "-g", metavar="G",
                                             help="game name or .game file (default: the log's header)")]
Json = Annotated[bool, typer.Option("--json", help="print one JSON summary")]


def register(app: typer.Typer) -> None:
    @app.command("divat", help=HELP)
    def divat_command(logs: Logs, player: Player, game: LogGame = None, as_json: Json = False) -> None:
        if game is None and logs:
            game = log_game(logs[0])
        res = divat_log(logs, player, game)  # a CfrlabError becomes main's one-line error
        report(player, res.game, res.hands, res.estimates(), res.variance_ratios(), LABELS, as_json)


def report(player: str, g: GameDef, hands: int, est: dict[str, Estimate], ratios: dict[str, float],
           labels: dict[str, str], as_json: bool, ratio_text: Callable[[float], str] = "{:.2f}".format) -> None:
    """Print per-hand estimators' means (``est``, chips per game) in the game's rate unit with
    their variance ratios: one JSON summary, or a line per estimator named by ``labels``."""
    unit = rate_unit(g)
    summary = {"player": player, "game": g.name, "hands": hands, "unit": unit, "estimators": {}}
    for name, e in est.items():
        summary["estimators"][name] = {
            "mean": to_unit(g, e.mean), "ci95": to_unit(g, e.ci95), "std": to_unit(g, e.std),
            "variance_ratio": 1.0 if name == "money" else ratios[name]}
    if as_json:
        print(json.dumps(json_ready(summary)))
        return
    width = max(len(label) for label in labels.values()) + 1
    print(f"{player} over {hands} hands of {g.name or 'the game'} ({unit}, 95% CI):")
    for name, e in summary["estimators"].items():
        print(f"  {labels[name]:{width}s} {e['mean']:+12.4f} +/- {e['ci95']:.4f}   std {e['std']:.4f}   "
              f"variance / {ratio_text(e['variance_ratio'])}")


def log_game(log: Path) -> GameDef:
    """The game the log's header names; the error says which option gives it."""
    try:
        return game_of_log(log)
    except NoGameError as e:
        raise CfrlabError(f"{e} with --game") from None
