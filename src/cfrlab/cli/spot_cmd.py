"""``cfrlab spot sizes``: a postflop spot's betting tree and the memory of an exact solve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from cfrlab.cli.common import command_group, human_bytes

SUMMARY = "Postflop spots: a board, two ranges, the pot, the stacks and the bet sizes."


def register(app: typer.Typer) -> None:
    sp = command_group(app, "spot", SUMMARY)

    @sp.command("sizes")
    def sizes_cmd(
        config: Annotated[Path, typer.Argument(metavar="CONFIG.toml", help="spot file (docs/spots.md)")],
        as_json: Annotated[bool, typer.Option("--json", help="one JSON object")] = False,
    ) -> None:
        """The spot's betting tree (decisions, nodes and terminals per street) and the memory
        of an exact solve's tables, counted before anything big is built."""
        from cfrlab.spot import load_spot, spot_size

        spot = load_spot(config)
        size = spot_size(spot)
        if as_json:
            print(json.dumps({"spot": spot.summary(), "lost_to_board": list(spot.lost), **size.as_dict()}))
            return
        print(spot.summary())
        for line in spot.describe_ranges():
            print(f"  {line}")
        print(f"  combos lost to the board: OOP {spot.lost[0]}, IP {spot.lost[1]}")
        print(f"{'street':8}{'decisions':>11}{'nodes':>9}{'terminals':>11}{'boards':>9}")
        for row in zip(size.streets, size.decisions, size.nodes, size.terminals, size.runouts):
            print(f"{row[0]:8}{row[1]:>11,}{row[2]:>9,}{row[3]:>11,}{row[4]:>9,}")
        print(f"{'total':8}{sum(size.decisions):>11,}{sum(size.nodes):>9,}{sum(size.terminals):>11,}")
        print(f"exact solve (float32, 3 tables, no suit isomorphism): about {human_bytes(size.memory)}")
