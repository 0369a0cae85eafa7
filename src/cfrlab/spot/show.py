"""A solved spot's node for people: rich tables in the terminal, a PNG of the 13x13 range grid
(each cell split by its action frequencies, as the solvers draw it) and a JSON file written
node by node (``write_json``: the document is never held whole; a subtree and a depth bound
it). The figures are ``cfrlab.spot.report``'s."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cfrlab.cards.cards import card_text
from cfrlab.cards.ranges import combo_text
from cfrlab.fileio import atomic_open
from cfrlab.spot.report import GRID, NodeReport, class_grid

# check/call green, fold blue, bets from orange to dark red by size (the solvers' palette)
FOLD_COLOR, CHECK_COLOR = "#4a90d9", "#5cb85c"
BET_COLORS = ("#f0ad4e", "#e8743b", "#d9534f", "#a4262c", "#6b1018")
RICH_FOLD, RICH_CHECK = "blue", "green"
RICH_BETS = ("yellow", "dark_orange", "red", "magenta", "purple")


def action_colors(actions: list[str], bets=BET_COLORS, fold=FOLD_COLOR, check=CHECK_COLOR) -> list[str]:
    """A colour per action token: fold, check/call, then bets from the smallest."""
    out, k = [], 0
    for a in actions:
        if a == "f":
            out.append(fold)
        elif a in ("x", "c"):
            out.append(check)
        else:
            out.append(bets[min(k, len(bets) - 1)])
            k += 1
    return out


def root_evs(report: NodeReport, raked: bool = False) -> tuple[float, float]:
    """(OOP's EV, IP's EV) measured on the strategy from the root's report: the acting
    player's combos' EVs weighted by their weights, the other's the pot less it (the two sum
    to the pot: ``SpotSolution.ev``; NaN in a raked spot, whose EVs sum to the pot less the
    rake); NaN when no combo has an EV there."""
    ok = np.isfinite(report.ev) & (report.weight > 0)
    w = report.weight[ok]
    mine = float(w @ report.ev[ok] / w.sum()) if ok.any() else float("nan")
    other = float("nan") if raked else report.pot - mine
    return (mine, other) if report.player == "oop" else (other, mine)


# -- terminal -----------------------------------------------------------------------------------
def node_tables(report: NodeReport, combos: bool = True, grid: bool = True, width: int | None = None) -> list:
    """rich renderables: the node's header and frequencies, the class grid (each cell coloured
    by its most frequent action, with every action's percentage; on a terminal narrower than
    that grid, ``width`` columns, the most frequent action's percentage only), the combos'
    table."""
    from rich.table import Table
    from rich.text import Text

    colors = action_colors(report.actions, RICH_BETS, RICH_FOLD, RICH_CHECK)
    head = Text(f"{report.path or 'root'}: {report.player.upper()} acts on the {report.street}, "
                f"pot {report.pot}; {len(report.combos)} combos\n")
    for lab, f, c in zip(report.labels, report.frequencies, colors):
        head.append(f"  {lab} {f:.1%}", style=c)
    out = [head]
    if grid:
        names, weight, freq = class_grid(report)
        full = GRID * (4 + 4 * len(report.actions) + 1)  # "AKs " + "100/" per action + padding
        compact = width is not None and width < full
        t = Table(show_header=False, box=None, padding=(0, 1, 0, 0) if compact else (0, 1),
                  title="strategy by hand class")  # compact: 13 cells of 5 + 1 fit 80 columns
        for _ in range(GRID):
            t.add_column(justify="left", no_wrap=True)
        for i in range(GRID):
            cells = []
            for j in range(GRID):
                if weight[i, j] <= 0:
                    cells.append(Text(f"{names[i][j]:4}", style="bright_black"))
                    continue
                top = int(np.argmax(freq[i, j]))
                if compact:
                    pct = f"{round(100 * freq[i, j][top]):>2}" if freq[i, j][top] < 0.995 else "**"
                    cells.append(Text(f"{names[i][j]:3}{pct}", style=f"bold {colors[top]}"))
                    continue
                pct = "/".join(f"{round(100 * x)}" for x in freq[i, j])
                cells.append(Text(f"{names[i][j]:4}{pct}", style=f"bold {colors[top]}"))
            t.add_row(*cells)
        out.append(t)
        if compact:
            out.append(Text("cells: the most frequent action's share in % (its colour; ** = 100%)"))
        else:
            out.append(Text("cells: " + " / ".join(report.actions) + " in % of the class's combos"))
    if combos:
        t = Table(title="combos", show_lines=False)
        t.add_column("combo")
        t.add_column("weight", justify="right")  # significant digits: deep nodes hold tiny weights
        for lab, c in zip(report.labels, colors):
            t.add_column(lab, justify="right", style=c)
        t.add_column("EV", justify="right")
        t.add_column("equity", justify="right")
        order = np.lexsort((-report.equity, -report.ev))
        for k in order:
            name, w, strat, ev, eq = _row(report, int(k))
            t.add_row(name, f"{w:.4g}", *[f"{x:.1%}" for x in strat], _fmt(ev, "{:.3f}"), _fmt(eq, "{:.1%}"))
        out.append(t)
    return out


def _row(report: NodeReport, k: int):
    return (combo_text(int(report.combos[k])), float(report.weight[k]), report.strategy[k],
            float(report.ev[k]), float(report.equity[k]))


def _fmt(x: float, spec: str) -> str:
    return spec.format(x) if np.isfinite(x) else "-"


# -- PNG ------------------------------------------------------------------------------------------
def draw_grid(report: NodeReport, path, title: str | None = None) -> None:
    """The 13x13 grid as a PNG: each class's cell split left to right by its action
    frequencies, its height by the class's weight per combo (the densest class full height)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    names, weight, freq = class_grid(report)
    density = weight / _class_sizes()
    density /= density.max() if density.max() > 0 else 1.0
    colors = action_colors(report.actions)
    fig, ax = plt.subplots(figsize=(9, 9.6))
    for i in range(GRID):
        for j in range(GRID):
            y = GRID - 1 - i
            ax.add_patch(Rectangle((j, y), 1, 1, facecolor="#eeeeee", edgecolor="white", lw=1))
            if weight[i, j] > 0:
                h = max(float(density[i, j]), 0.08)  # a thin class still shows
                x = float(j)
                for f, c in zip(freq[i, j], colors):
                    if f > 0:
                        ax.add_patch(Rectangle((x, y), f, h, facecolor=c, edgecolor="none"))
                        x += f
            ax.text(j + 0.5, y + 0.5, names[i][j], ha="center", va="center", fontsize=8)
    ax.set_xlim(0, GRID)
    ax.set_ylim(0, GRID)
    ax.set_aspect("equal")
    ax.axis("off")
    freqs = report.frequencies
    ax.legend(handles=[Patch(color=c, label=f"{lab} {f:.1%}") for lab, f, c in zip(report.labels, freqs, colors)],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, len(colors)), frameon=False)
    ax.set_title(title or f"{report.path or 'root'}: {report.player.upper()} on the {report.street}, pot {report.pot}")
    with atomic_open(path) as f:
        fig.savefig(f, format="png", dpi=80, bbox_inches="tight")
    plt.close(fig)


def _class_sizes() -> np.ndarray:
    """Combos per class: 6 pairs, 4 suited, 12 offsuit."""
    out = np.full((GRID, GRID), 12.0)
    out[np.triu_indices(GRID, 1)] = 4.0
    np.fill_diagonal(out, 6.0)
    return out


# -- JSON ---------------------------------------------------------------------------------------
def write_json(reader, path, node: str = "", depth: int | None = None, combos: bool = True,
               header: dict | None = None) -> int:
    """Stream the reports of ``node``'s subtree (down to ``depth`` more actions) to ``path``
    atomically: ``{"spot": header, "nodes": [...]}``, one node written at a time, children
    before their parent. Returns the number of nodes written."""
    count = [0]
    with atomic_open(Path(path)) as f:
        f.write(b'{"spot": ' + json.dumps(header or {}).encode() + b',\n"nodes": [\n')

        def emit(rep: NodeReport) -> None:
            if count[0]:
                f.write(b",\n")
            f.write(json.dumps(rep.as_dict(combos=combos)).encode())
            count[0] += 1

        reader.walk(node, depth, emit)
        f.write(b"\n]}\n")
    return count[0]


# -- every card of a '*' path -------------------------------------------------------------------
def card_table(first: NodeReport, rows: list, path: str):
    """rich table: per card the acting player's reach share, action frequencies, EV, equity."""
    from rich.table import Table

    colors = action_colors(first.actions, RICH_BETS, RICH_FOLD, RICH_CHECK)
    total = sum(r.reach for r in rows)
    t = Table(title=f"{path}: {first.player.upper()} acts on the {first.street}, every card")
    t.add_column("card")
    t.add_column("reach", justify="right")
    for lab, c in zip(first.labels, colors):
        t.add_column(lab, justify="right", style=c)
    t.add_column("EV", justify="right")
    t.add_column("equity", justify="right")
    for r in rows:
        t.add_row(card_text(r.card), f"{r.reach / total:.2%}" if total > 0 else "-",
                  *[f"{x:.1%}" for x in r.frequencies], _fmt(r.ev, "{:.3f}"), _fmt(r.equity, "{:.1%}"))
    return t


def write_card_json(path, first: NodeReport, rows: list, node: str, header: dict | None = None) -> None:
    """``{"spot": header, "path": node, "player", "street", "actions", "labels", "cards": [...]}``
    atomically, a row per card (``CardRow.as_dict``)."""
    doc = {"spot": header or {}, "path": node, "player": first.player, "street": first.street,
           "actions": first.actions, "labels": first.labels, "cards": [r.as_dict(first.actions) for r in rows]}
    with atomic_open(Path(path)) as f:
        f.write(json.dumps(doc).encode())


def draw_cards(first: NodeReport, rows: list, path, node: str) -> None:
    """A PNG: one horizontal bar per card split by the action frequencies, the EV beside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = action_colors(first.actions)
    fig, ax = plt.subplots(figsize=(8, 0.22 * len(rows) + 1.5))
    for k, r in enumerate(rows):
        left = 0.0
        for f, c in zip(r.frequencies, colors):
            ax.barh(k, f, left=left, color=c, height=0.8)
            left += f
        ax.text(1.01, k, _fmt(r.ev, "EV {:.2f}"), va="center", fontsize=7)
    ax.set_yticks(range(len(rows)), [card_text(r.card) for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the range")
    ax.legend(first.labels, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=min(4, len(colors)),
              frameon=False)
    ax.set_title(f"{node}: {first.player.upper()} on the {first.street}, every card")
    with atomic_open(path) as f:
        fig.savefig(f, format="png", dpi=80, bbox_inches="tight")
    plt.close(fig)
