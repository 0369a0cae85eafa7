"""What ``cfrlab solve`` and ``cfrlab exploit`` do for games of more than two players
(the CLI hands N-player games and files here)."""

from __future__ import annotations

from pathlib import Path

from cfrlab.abstraction import NPLAYER as MODEL_KIND
from cfrlab.cli.common import json_summary
from cfrlab.fileio import NpzReader, printable
from cfrlab.games import GameDef
from cfrlab.games.units import unit_of
from cfrlab.strategy import STRATEGY_KIND, Strategy

CHUNK_SECONDS = 0.25  # a --seconds run checks the clock about this often


def is_multiplayer_file(path: str | Path) -> bool:
    """True when ``path`` is a strategy file written by the N-player engine."""
    with NpzReader(path, kind=STRATEGY_KIND) as z:
        return z.header.get("model_kind") == MODEL_KIND


def figures(game: GameDef, ev) -> list[str]:
    unit = unit_of(game)
    lines = []
    for p, (v, b) in enumerate(zip(ev.values, ev.br_values)):
        lines.append(f"player {p}: value {v:+.6f} {unit}; best response {b:+.6f} {unit} (gains {b - v:.6g})")
    lines.append(f"NashConv {ev.nash_conv:.6g} {unit} (sum of the gains; 0 at a Nash equilibrium)")
    return lines


def cli_exploit(path: Path, as_json: bool) -> dict:
    """Exact evaluation of an N-player strategy file: values, best responses, NashConv."""
    s = Strategy.load(path)
    ev = s.evaluate()
    print(printable(s.describe()))  # header strings come from the file
    for line in figures(s.game, ev):
        print(line)
    summary = {"game": s.game.name or str(path), "file": str(path), "num_players": s.num_players,
               "algorithm": s.algorithm, "iterations": s.iterations, "unit": unit_of(s.game), **ev.to_json(),
               "exploitability": ev.nash_conv / s.num_players}
    return json_summary(summary, as_json)


__all__ = ["cli_exploit", "figures", "is_multiplayer_file"]
