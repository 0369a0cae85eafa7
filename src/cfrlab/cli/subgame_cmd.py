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
    from cfrlab.games.units import to_unit, unit_of
    from cfrlab.subgame import resolve_strategy
    from cfrlab.subgame.resolve import check_iterations, check_method, subgame_round

    check_method(method)
    check_iterations(iterations)
    check_new_output(out, force, "combined strategy")
    s = _blueprint(blueprint, game, abstraction)
    g = s.game
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
    _save(r.strategy, out)
    summary = {"blueprint": blueprint, "game": g.name, "method": method, "round": r.round,
               "iterations": iterations, "roots": r.roots, "seconds": r.seconds, "unit": unit,
               "blueprint_exploitability": to_unit(g, before), "exploitability": to_unit(g, after),
               "out": None if out is None else str(out)}
    return json_summary(summary, as_json)


def _blueprint(blueprint: str, game: str | None, abstraction: str | None):
    """The blueprint's Strategy, checked against ``game`` when one is named."""
    from cfrlab.games import load_game
    from cfrlab.strategy import Strategy

    p = Path(blueprint)
    if not p.is_file():
        raise CfrlabError(f"no such strategy file {blueprint}")
    s = Strategy.load(str(p), model=abstraction)
    if game is not None and load_game(game).to_text() != s.game.to_text():
        raise CfrlabError(f"{blueprint} is a strategy for {s.game.name or 'another game'}, not for {game}")
    return s


def _save(strategy, out: Path | None) -> None:
    if out is not None:
        with writing(out, "combined strategy"):
            strategy.save(out, overwrite=True)
        print(f"saved the combined strategy to {out}")


def run_search(blueprint: str, game: str | None = None, abstraction: str | None = None, depth: int = 1,
               k: int = 4, factor: float = 5.0, nested: bool = True, next_method: str = "resolve",
               iterations: int = 300, out: Path | None = None, force: bool = False,
               as_json: bool = False, continual: bool = False, actions: int | None = None,
               nets: list[Path] | None = None) -> dict:
    """Depth-limited search from the game's root written out as a strategy; prints both exact
    exploitabilities (and a JSON line with ``as_json``), saves it to ``out``. ``nets``: value
    network files whose leaves replace the continuations."""
    from cfrlab.deep.cfvnet import load_cfvnet
    from cfrlab.games.units import to_unit, unit_of
    from cfrlab.subgame.cut import blueprint_of
    from cfrlab.subgame.depth import check_depth, depth_limited_strategy
    from cfrlab.subgame.resolve import check_iterations, check_method
    from cfrlab.subgame.valuenet import ValueNets

    check_depth(depth, k, factor)
    if actions is not None:
        check_depth(actions, 1, factor, "actions")
    check_method(next_method)
    check_iterations(iterations)
    check_new_output(out, force, "search strategy")
    s = _blueprint(blueprint, game, abstraction)
    g = s.game
    values = None
    if nets:
        loaded = [load_cfvnet(p, g) for p in nets]
        values = ValueNets(blueprint_of(s, later_round=False), {n.round: n for n in loaded})
    r = depth_limited_strategy(s, depth=depth, k=k, factor=factor, nested=nested, next_method=next_method,
                               iterations=iterations, continual=continual, actions=actions, values=values)
    unit = unit_of(g)
    before, after = r.blueprint_exploitability(), r.exploitability()
    per = r.seconds_per_solve()
    print(f"blueprint: exploitability {to_unit(g, before):.6g} {unit} (exact cards)")
    what = (f"continual re-solving (at every own decision, by {next_method})" if continual
            else f"search (re-solving below the leaves by {next_method})" if nested else "one depth-limited solve")
    reach = "to the end of the game (exact leaves)" if depth >= g.num_rounds else f"depth {depth} round(s)"
    if actions is not None:
        reach += f" or {actions} action(s)"
    leaves = "value networks at the leaves" if values else f"k = {k}, factor {factor:g}"
    print(f"{what}, {reach}, {leaves}, {iterations} iterations per solve, "
          f"{human_seconds(r.seconds)}: exploitability {to_unit(g, after):.6g} {unit}")
    print("seconds per solve of one public subgame (every board), by round: "
          + ", ".join(f"{rnd}: {t:.3g}" for rnd, t in per.items()))
    _save(r.strategy, out)
    summary = {"blueprint": blueprint, "game": g.name, "depth": depth, "k": k, "factor": factor,
               "nested": nested or continual, "continual": continual, "actions": actions, "next_method": next_method,
               "iterations": iterations, "nets": [str(p) for p in nets or []],
               "seconds": r.seconds, "seconds_per_solve": {str(a): b for a, b in per.items()}, "unit": unit,
               "blueprint_exploitability": to_unit(g, before), "exploitability": to_unit(g, after),
               "out": None if out is None else str(out)}
    return json_summary(summary, as_json)


def run_value_net(game: str, data: Path, out: Path, round: int = 1, situations: int = 20000,
                  solve_iterations: int = 300, hidden: str = "256,256,256", steps: int = 6000, seed: int = 0,
                  force: bool = False, as_json: bool = False) -> dict:
    """Solve random situations into ``data`` (resuming the chunks there), train a value network
    on them, print its held-out error and save it to ``out``."""
    from cfrlab.fileio import human_size
    from cfrlab.games import load_game
    from cfrlab.strategy import Strategy
    from cfrlab.subgame.cut import blueprint_of
    from cfrlab.subgame.valuedata import check_training, generate, train_value_net

    check_new_output(out, force, "value network")
    try:
        widths = tuple(int(x) for x in hidden.split(","))
    except ValueError:
        raise CfrlabError(f"--hidden is widths separated by commas (e.g. 256,256,256), got {hidden!r}") from None
    check_training(widths, steps, 1024, 0.1)  # before any situation is solved
    g = load_game(game)
    if g.num_players != 2:
        raise CfrlabError(f"value networks are for 2-player games; {g.name or game} has {g.num_players} players")
    bp = blueprint_of(Strategy.uniform(g), later_round=round != 0)
    rep = generate(bp, round, data, situations=situations, iterations=solve_iterations, seed=seed,
                   progress=lambda k, n: print(f"\rsituations: chunk {k}/{n}", end="", flush=True))
    print()
    print(f"data: {rep.situations:,} situations (one per round start and board) in {data}, "
          f"{human_size(rep.bytes)}, {human_seconds(rep.seconds)} of solving ({rep.resumed} of {rep.chunks} "
          f"chunks kept from before); mean solve gap {rep.gap:.3g} chips")
    net, nr = train_value_net(bp, round, data, hidden=widths, steps=steps, seed=seed)
    print(f"network {'-'.join(str(x) for x in net.layers)}: mean absolute error on {nr.held_out:,} held-out "
          f"situations {nr.mae_held_out:.4g} chips (training {nr.mae_train:.4g}; predicting 0: "
          f"{nr.mae_zero:.4g}), trained in {human_seconds(nr.seconds)}")
    with writing(out, "value network"):
        net.save(out)
    print(f"saved the value network to {out}")
    summary = {"game": g.name, "round": round, "situations": rep.situations, "data": str(data),
               "data_bytes": rep.bytes, "solve_seconds": rep.seconds, "resumed_chunks": rep.resumed,
               "mean_gap_chips": rep.gap, "layers": list(net.layers), "steps": steps,
               "mae_held_out_chips": nr.mae_held_out, "mae_train_chips": nr.mae_train,
               "mae_zero_chips": nr.mae_zero, "train_seconds": nr.seconds, "out": str(out)}
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

    @app.command("search")
    def search(
        blueprint: Annotated[str, typer.Argument(help="the blueprint's strategy file (.npz)")],
        game: Annotated[str | None, typer.Option("--game", help="the blueprint's game (checked)")] = None,
        abstraction: SolvedInOpt = None,
        depth: Annotated[int, typer.Option("--depth", help="rounds each solve looks ahead")] = 1,
        actions: Annotated[int | None, typer.Option("--actions", help="also stop each solve after this many "
                                                    "actions (a depth in actions)")] = None,
        k: Annotated[int, typer.Option("--k", help="continuation strategies at the leaves: the blueprint, "
                                       "then fold-, call- and raise-biased (1 to 4)")] = 4,
        factor: Annotated[float, typer.Option("--factor", help="how much a biased continuation "
                                              "multiplies its actions' probability")] = 5.0,
        nested: Annotated[bool, typer.Option("--nested/--once", help="re-solve below every leaf (the "
                                             "search agent), or solve once and play the blueprint "
                                             "below the leaves")] = True,
        next_method: Annotated[str, typer.Option("--next-method", help="how the re-solves below the "
                                                 "leaves treat the opponent: resolve (CFR-D gadget), "
                                                 "maxmargin, reach or unsafe")] = "resolve",
        continual: Annotated[bool, typer.Option("--continual", help="also solve again at every own decision "
                                                "(continual re-solving, as DeepStack); with a --depth past "
                                                "the last round the leaves are exact")] = False,
        nets: Annotated[list[Path] | None, typer.Option("--net", help="a value network file (`cfrlab value-net`) "
                                                         "valuing the leaves of its round instead of the "
                                                         "continuations (repeat for more rounds)")] = None,
        iterations: Annotated[int, typer.Option("--iterations", "-n", help="CFR+ iterations per solve")] = 300,
        out: Annotated[Path | None, typer.Option("--out", "-o", help="save the search's strategy here")] = None,
        force: Annotated[bool, typer.Option("--force", help="overwrite --out")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
    ) -> None:
        """Depth-limited search from the game's root, measured exactly: each seat solves the
        game to --depth rounds, the opponent picking at each leaf one of --k continuation
        strategies, then re-solves every subgame below the leaves the same way (Brown, Sandholm
        and Amos, "Depth-Limited Solving for Imperfect-Information Games"). The searches of
        every situation are written out as one strategy in exact cards; both exploitabilities
        are exact."""
        run_search(blueprint, game, abstraction, depth, k, factor, nested, next_method, iterations, out,
                   force, as_json, continual, actions, nets)

    @app.command("value-net")
    def value_net(
        game: Annotated[str, typer.Argument(help="built-in game name or .game file (2 players)")],
        data: Annotated[Path, typer.Option("--data", help="directory of the solved situations (made if "
                                           "missing; a second run continues after the chunks there)")],
        out: Annotated[Path, typer.Option("--out", "-o", help="save the network here (.npz)")],
        round: Annotated[int, typer.Option("--round", help="the round whose starts it values (1 is the "
                                           "second round)")] = 1,
        situations: Annotated[int, typer.Option("--situations", help="random situations to solve (each on "
                                                "every board of the round)")] = 20000,
        solve_iterations: Annotated[int, typer.Option("--solve-iterations", help="CFR+ iterations per "
                                                      "situation's solve")] = 300,
        hidden: Annotated[str, typer.Option("--hidden", help="hidden layer widths")] = "256,256,256",
        steps: Annotated[int, typer.Option("--steps", help="Adam steps of training")] = 6000,
        seed: Annotated[int, typer.Option("--seed", help="seed of the situations and the network")] = 0,
        force: Annotated[bool, typer.Option("--force", help="overwrite --out")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
    ) -> None:
        """Train a counterfactual value network for depth-limited search (DeepStack's leaf values:
        Moravčík et al., "DeepStack: Expert-level artificial intelligence in heads-up no-limit
        poker"): random ranges at the round's starts, each situation solved by the engine, a
        tenth held out and the network's error on it printed in chips. Needs the deep extra
        (JAX). Use it with `cfrlab search --net FILE` or the agent search:BLUEPRINT:net=FILE."""
        run_value_net(game, data, out, round, situations, solve_iterations, hidden, steps, seed, force, as_json)
