"""``cfrlab strategy show|export|import``, and the strategy tables ``cfrlab solve --show`` prints."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from cfrlab.cli.common import check_output, command_group, split_game, writing
from cfrlab.errors import CfrlabError
from cfrlab.fileio import printable
from cfrlab.games import load_game
from cfrlab.games.situation import action_word
from cfrlab.games.units import format_unit
from cfrlab.strategy import Strategy
from cfrlab.tree import DECISION

MAX_ROWS = 60  # private states listed per node by default (kuhn-100 has 100, HULHE buckets fewer)


def recorded_exploitability(strategy: Strategy) -> float | None:
    """The exploitability the file's header records, when it could be a measurement: a finite
    number >= 0 (a header is text anyone can edit; None otherwise)."""
    v: Any = strategy.header.get("exploitability")
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
    return float(v) if ok else None


def header_line(strategy: Strategy, *, recorded: bool = True) -> str:
    """What the file says of itself, every header string escaped (``printable``); its
    exploitability labelled as recorded at save, never as a measurement (``cfrlab exploit``
    measures it). ``recorded=False`` leaves the recorded figure out."""
    h, g = strategy.header, strategy.game
    text = (f"{printable(g.name or 'a custom game', 60)}: {printable(h.get('algorithm'), 60)} after "
            f"{h.get('iterations', 0):,} iterations ({h.get('seconds', 0.0):.2f} s); "
            f"{strategy.policy.shape[0]:,} rows; model {printable(h.get('model_kind'), 20)} "
            f"{printable(str(h.get('model_hash') or '?')[:12])}")
    if not recorded:
        return text
    expl = recorded_exploitability(strategy)
    if expl is not None:
        return f"{text}; exploitability recorded at save: {format_unit(g, expl)}"
    if h.get("exploitability") is None:
        return f"{text}; no exploitability recorded"
    return f"{text}; the recorded exploitability is not a measurement (below 0), ignored"


def action_names(strategy: Strategy, node: int) -> list[str]:
    """Words for the legal actions at a decision: check/bet when nothing is to call; a no-limit
    raise with its raise-to total ("bet 4", "raise 6")."""
    tree = strategy.tree
    legal = tree.legal[int(tree.decision[node])]
    words = []
    for a in np.flatnonzero(legal):
        word = action_word(min(int(a), 2), bool(legal[0]))
        if a >= 2 and not tree.game.is_limit:
            word += f" {int(tree.raise_to[tree.child_by_action(node, int(a))])}"
        words.append(word)
    return words


def node_title(strategy: Strategy, node: int) -> str:
    tree = strategy.tree
    b = tree.betting[node]
    who = f"P{int(tree.player[node])}"
    return f"{who} opens" if b == "" else f"{who} after {b}"


OPENING_COLUMNS = 10


def opening_nodes(strategy: Strategy) -> list[int]:
    """The root and the decisions right after it: the first moves of a hand (as many as fit
    in OPENING_COLUMNS action columns: a no-limit root has a child per amount)."""
    tree = strategy.tree
    nodes = [0]
    columns = int(tree.num_children[0])
    for c in tree.children(0):
        if int(tree.kind[c]) == DECISION:
            columns += int(tree.num_children[c])
            if columns > OPENING_COLUMNS:
                break
            nodes.append(int(c))
    return nodes


def strategy_table(strategy: Strategy, nodes: list[int], max_rows: int | None, *,
                   title: str | None = None) -> Table:
    """One row per private state (of the first node's round), a column group per node."""
    tree = strategy.tree
    rnd = int(tree.round[nodes[0]])
    labels, _, _ = strategy.node_table(nodes[0])
    n = len(labels)
    shown = list(range(n if max_rows is None else min(n, max_rows)))
    t = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    t.add_column("cards" if rnd == 0 else "cards|board", style="bold")
    groups = []
    for node in nodes:
        if int(tree.round[node]) != rnd:
            raise CfrlabError("strategy_table: nodes of different rounds")
        _, _, probs = strategy.node_table(node)
        names = action_names(strategy, node)
        for j, name in enumerate(names):
            t.add_column(f"{node_title(strategy, node)}\n{name}" if j == 0 else f"\n{name}", justify="right")
        groups.append(probs)
    for s in shown:
        cells = [labels[s]]
        for probs in groups:
            row = probs[s]
            best = int(np.argmax(row))
            for j, p in enumerate(row):
                txt = f"{p:.3f}"
                cells.append(f"[bold green]{txt}[/]" if j == best and p >= 0.5 else
                             (f"[dim]{txt}[/]" if p < 0.005 else txt))
        t.add_row(*cells)
    if len(shown) < n:
        t.caption = f"{len(shown)} of {n} private states shown"
        t.caption_justify = "left"
    return t


def print_opening(strategy: Strategy, rows: int, console: Console) -> None:
    """The strategy's opening moves: the root and its children, ``rows`` private states."""
    nodes = opening_nodes(strategy)
    console.print(strategy_table(strategy, nodes, rows,
                                 title="Opening moves (probabilities; P0 is player 0 = ACPC position 0)"))


def register(app: typer.Typer) -> None:
    strategy_app = command_group(app, "strategy", "Inspect, export and import strategy files.")

    @strategy_app.command("show")
    def show(
        file: Annotated[Path, typer.Argument(metavar="FILE", help="strategy file (.npz) written by `cfrlab solve`")],
        betting: Annotated[str | None, typer.Option("--betting", "-b",
                                    help="ACPC betting string of the situation, e.g. 'rc/r' ('' = root)")] = None,
        cards: Annotated[str | None, typer.Option("--cards", "-c",
                                  help="the acting player's cards, e.g. 'Ks', 'Ks/Kh' or ACPC '|Ks/Kh'")] = None,
        rows: Annotated[int, typer.Option("--rows", metavar="N", help="private states listed per situation")] = MAX_ROWS,
        abstraction: Annotated[Path | None, typer.Option(
            "--abstraction", metavar="FILE", help="the abstraction file the strategy was solved in")] = None,
    ) -> None:
        """Print a strategy's header and its action probabilities in readable situations
        (the exploitability shown is the one recorded at save; cfrlab exploit measures it)."""
        if rows < 1:
            raise CfrlabError(f"--rows takes the number of private states to list, at least 1, got {rows}")
        s = Strategy.load(file, model=abstraction)
        console = Console(highlight=False, soft_wrap=True)
        head = header_line(s)
        if betting is None and cards is None:
            console.print(head, markup=False)
            print_opening(s, rows, console)
            return
        node = s.node_of(betting or "")
        if cards is not None:
            probs = s.action_probs(cards, betting or "")
            names = action_names(s, node)
            text = ", ".join(f"{n} {p:.4f}" for n, p in zip(names, probs.values()))
            console.print(head, markup=False)
            console.print(f"{node_title(s, node)}, holding {printable(cards)}: {text}", markup=False)
            return
        console.print(head, markup=False)
        console.print(strategy_table(s, [node], rows))

    @strategy_app.command("export")
    def export(
        file: Annotated[Path, typer.Argument(metavar="FILE", help="strategy file (.npz)")],
        out: Annotated[Path, typer.Option("--out", "-o", metavar="FILE", help="where to write the exported file")],
        fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="export format (openspiel)")] = "openspiel",
        force: Annotated[bool, typer.Option("--force", help="overwrite an existing --out")] = False,
    ) -> None:
        """Write a strategy in another program's format (OpenSpiel info-state JSON)."""
        _check_format(fmt)
        _check_out(out, force, "exported strategy")
        from cfrlab.interop.openspiel import save_openspiel_json

        strategy = Strategy.load(file)
        with writing(out, "exported strategy"):
            count = save_openspiel_json(out, strategy)
        print(f"wrote {count} OpenSpiel information states to {out}")

    @strategy_app.command("import")
    def import_(
        args: Annotated[list[str] | None, typer.Argument(metavar="GAME FILE", show_default=False, help=(
            "the policy's game (kuhn, leduc, kuhn-3p, leduc-3p, or any other 2-player game as "
            "OpenSpiel's universal_poker), then the file to import (OpenSpiel info-state JSON)"))] = None,
        out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", help="strategy file (.npz) to write")] = None,
        game_opt: Annotated[str | None, typer.Option("--game", "-g", hidden=True,
                                                     help="the game (first argument; --game GAME also works)")] = None,
        fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="import format (openspiel)")] = "openspiel",
        force: Annotated[bool, typer.Option("--force", help="overwrite an existing --out")] = False,
    ) -> None:
        """Read another program's strategy into a cfrlab strategy file."""
        game, (name,) = split_game(args or [], game_opt, ("FILE",), "strategy import")
        file = Path(name)
        if out is None:
            raise CfrlabError("missing option --out FILE: the strategy file to write (see cfrlab strategy import --help)")
        _check_format(fmt)
        _check_out(out, force, "strategy")
        from cfrlab.interop.openspiel import load_openspiel_json

        s = load_openspiel_json(file, load_game(game))
        s.header["exploitability"] = s.exploitability("chips/g")
        with writing(out, "strategy"):
            s.save(out, overwrite=True)  # _check_out refused an existing file without --force
        print(f"imported {file} as {out}: exploitability {s.header['exploitability']:.6g} chips/g")


def _check_format(fmt: str) -> None:
    if fmt.lower() != "openspiel":
        raise CfrlabError(f"unknown format {fmt!r}; supported: openspiel")


def _check_out(out: Path, force: bool, what: str) -> None:
    if out.exists() and not force and not out.is_dir():
        raise CfrlabError(f"{out} exists; pass --force to overwrite it")
    check_output(out, what)
