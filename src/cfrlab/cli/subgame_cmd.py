"""``cfrlab subgame``: re-solve a blueprint's subgames with exact cards (cfrlab.subgame)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cfrlab.cli.common import SolvedInOpt, check_new_output, human_seconds, json_summary, writing
from cfrlab.errors import CfrlabError


def run_subgame(blueprint: str, game: str | None = None, abstraction: str | None = None,
                method: str = "resolve", round: str = "last", iterations: int = 300,
                out: Path | None = None, force: bool = False, as_json: bool = False) -> dict:
    """Re-solve, print both exact exploitabilities (and a JSON line with ``as_json``), save the
    combined strategy to ``out``; returns the summary dict."""
    from cfrlab.games import load_game
    from cfrlab.games.units import to_unit, unit_of
    from cfrlab.strategy import Strategy
    from cfrlab.subgame import resolve_strategy
    from cfrlab.subgame.resolve import check_iterations, check_method, subgame_round

    check_method(method)
    check_iterations(iterations)
    check_new_output(out, force, "combined strategy")
    p = Path(blueprint)
    if not p.is_file():
        raise CfrlabError(f"no such strategy file {blueprint}")
    s = Strategy.load(str(p), model=abstraction)
    g = s.game
    if game is not None and load_game(game).to_text() != g.to_text():
        raise CfrlabError(f"{blueprint} is a strategy for {g.name or 'another game'}, not for {game}")
    rnd: int | str = int(round) if round.strip().lstrip("-").isdigit() else round
    if g.num_players == 2 and g.num_rounds > 1:
        subgame_round(g, rnd)  # refused before any work
    r = resolve_strategy(s, method, round=rnd, iterations=iterations)
    unit = unit_of(g)
    before, after = r.blueprint_exploitability(), r.exploitability()
    print(f"blueprint: exploitability {to_unit(g, before):.6g} {unit} (exact cards)")
    print(f"{method} re-solve of round {r.round} ({r.roots} public roots, every board, "
          f"{iterations} iterations each, {human_seconds(r.seconds)}): exploitability "
          f"{to_unit(g, after):.6g} {unit}")
    if out is not None:
        with writing(out, "combined strategy"):
            r.strategy.save(out, overwrite=True)
        print(f"saved the combined strategy to {out}")
    summary = {"blueprint": blueprint, "game": g.name, "method": method, "round": r.round,
               "iterations": iterations, "roots": r.roots, "seconds": r.seconds, "unit": unit,
               "blueprint_exploitability": to_unit(g, before), "exploitability": to_unit(g, after),
               "out": None if out is None else str(out)}
    return json_summary(summary, as_json)


def register(app: typer.Typer) -> None:
    @app.command("subgame")
    def subgame(
        blueprint: Annotated[str, typer.Argument(help="the blueprint's strategy file (.npz)")],
        game: Annotated[str | None, typer.Option("--game", help="the blueprint's game (checked)")] = None,
        abstraction: SolvedInOpt = None,
        method: Annotated[str, typer.Option(
            "--method", help="unsafe, resolve (CFR-D gadget), maxmargin or reach (reach-maxmargin)")] = "resolve",
        round: Annotated[str, typer.Option(
            "--round", help="the round the subgames start at: last (or river), flop, turn, or its "
            "number (1 is the second round)")] = "last",
        iterations: Annotated[int, typer.Option("--iterations", "-n", help="CFR+ iterations per re-solve")] = 300,
        out: Annotated[Path | None, typer.Option("--out", "-o", help="save the combined strategy here")] = None,
        force: Annotated[bool, typer.Option("--force", help="overwrite --out")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
    ) -> None:
        """Re-solve a blueprint's subgames with exact cards (unsafe, resolve, maxmargin, reach);
        print both exploitabilities. Every subgame that starts the round (every public root,
        every board) of a 2-player blueprint is re-solved, each player's part by its own
        re-solve; both exploitabilities are exact (the combined strategy's in exact cards).
        Methods: unsafe (Ganzfried and Sandholm, endgame solving), resolve (Burch, Johanson and
        Bowling, CFR-D), maxmargin (Moravčík et al.), reach (Brown and Sandholm, safe and nested
        subgame solving). A card-abstracted blueprint (with --abstraction) is read with real cards."""
        run_subgame(blueprint, game, abstraction, method, round, iterations, out, force, as_json)
