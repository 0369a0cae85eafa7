"""A spot over many flops: each flop solved to the target, its root figures collected, and the
totals weighted by how often each flop comes (an aggregate report).

A batch is a spot file whose ``board`` is ``"*"`` (every flop, one per suit class: the 1,755
strategically different flops, each weighted by the 4, 12 or 24 flops of its class out of
22,100) or a list of flops (``board = ["Ks 7h 2h", "As 8d 3c"]``, each weighted 1). Every
other setting is the one spot's. ``"*"`` needs ranges that treat the suits alike (then a flop
and its suit images have the same solution); a range that does not is refused in one line.

Each flop is a unit of ``cfrlab.jobs``: solved in a local worker process (``workers``; its
walk in ``threads`` threads) or as a task on an existing Ray cluster (``ray``: its address),
and, with a checkpoint directory, written there as soon as it is solved, so a stopped batch
(Ctrl-C, a killed worker or driver, a reboot) continues with ``resume`` where it stopped.
A flop's figures do not depend on where or in which order it was solved: a Ray batch gives
the serial batch's values bit for bit.

Per flop (``FIELDS``, then one column per root action): the exploitability reached (percent
of the pot), the iterations, both players' EVs (chips, as ``SpotSolution.ev``), the OOP
player's equity (its share of the pot at showdown over the runouts, ties split, over the two
ranges on that flop) and the root's action frequencies.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

import numpy as np

from cfrlab.cards.cards import cards_text, parse_cards
from cfrlab.cards.isomorphism import board_orbits, suit_permutations
from cfrlab.cards.ranges import parse_range, suit_group
from cfrlab.errors import CfrlabError
from cfrlab.fileio import atomic_open
from cfrlab.jobs import UnitStore, connect_ray, run_units
from cfrlab.spot.config import make_spot, read_spot_file
from cfrlab.spot.report import WalkReader, action_label
from cfrlab.spot.show import action_colors
from cfrlab.spot.solve import solve_spot
from cfrlab.spot.tree import spot_tree

ALL_FLOPS = "*"
FIELDS = ("exploitability_pct", "iterations", "ev_oop", "ev_ip", "equity_oop")


@dataclass(frozen=True)
class Batch:
    """A spot's settings without its board (``make_spot``'s keywords) and the flops to solve
    with their weights."""

    config: dict
    flops: tuple[tuple[int, int, int], ...]
    weights: tuple[int, ...]

    def spot(self, i: int):
        return make_spot(**{**self.config, "board": list(self.flops[i])})

    def actions(self) -> list[str]:
        """The root's actions (the same tree on every flop): ``check``, ``bet N`` (chips)."""
        tree = spot_tree(self.spot(0))
        return [action_label(tree, 0, int(c)) for c in np.flatnonzero(tree.legal[0])]


def flop_classes() -> list[tuple[tuple[int, int, int], int]]:
    """(representative flop, number of flops in its suit class) for the 1,755 classes."""
    return [(rep, len(images)) for rep, images in board_orbits([], 3, 52, 4, suit_permutations(4))]


def load_batch(path) -> Batch:
    """The batch of a spot file (module docstring), checked: its spot builds on the first flop."""
    return read_spot_file(path, make_batch)


def make_batch(*, board, **config) -> Batch:
    """A batch from a spot's fields with ``board`` "*" or a list of flops."""
    if board == ALL_FLOPS:
        flops, weights = zip(*flop_classes())
    elif isinstance(board, list) and board and all(isinstance(b, str) and len(parse_cards(b)) > 1 for b in board):
        flops = tuple(tuple(parse_cards(b)) for b in board)
        bad = next((b for b, f in zip(board, flops) if len(f) != 3), None)
        if bad is not None:
            raise CfrlabError(f"a batch's boards are flops (3 cards), got {bad!r}")
        seen = {}
        for b, f in zip(board, flops):
            if tuple(sorted(f)) in seen:
                raise CfrlabError(f"the flop {b!r} is listed twice ({seen[tuple(sorted(f))]!r})")
            seen[tuple(sorted(f))] = b
        weights = (1,) * len(flops)
    else:
        raise CfrlabError(f"a batch's board is '*' (every flop) or a list of flops such as "
                          f"[\"Ks 7h 2h\", \"As 8d 3c\"], got {board!r}")
    batch = Batch(dict(config), tuple(flops), tuple(weights))
    first = batch.spot(0)  # every setting checked once, on the first flop
    if first.street != 1:
        raise CfrlabError("a batch solves flop spots")
    if board == ALL_FLOPS:
        for name, text in zip(("OOP", "IP"), first.range_text):
            if len(suit_group((), [parse_range(text)])) < 24:
                raise CfrlabError(f"board = '*' solves one flop per suit class, which needs ranges that treat "
                                  f"the suits alike; the {name} range does not: list the flops instead")
    return batch


class FlopUnits:
    """A worker's job (``cfrlab.jobs``): unit i solves flop i and returns its figures."""

    def __init__(self, config: str, flops: list, options: dict) -> None:
        self.batch = Batch(json.loads(config), tuple(tuple(f) for f in flops), (1,) * len(flops))
        self.options = options

    def run(self, i: int) -> np.ndarray:
        return flop_figures(self.batch.spot(i), **self.options)


def _setup(config: str, flops: list, options: dict) -> FlopUnits:
    return FlopUnits(config, flops, options)


def flop_figures(spot, target_pct: float | None, iterations: int | None, algorithm: str, storage: str,
                 threads: int | None) -> np.ndarray:
    """float64[len(FIELDS) + actions]: one flop solved and its root read (module docstring)."""
    sol = solve_spot(spot, algorithm, target_pct=target_pct, iterations=iterations, storage=storage,
                     threads=threads)
    root = WalkReader(sol).node("")
    ok = np.isfinite(root.equity) & (root.weight > 0)
    eq = float(root.weight[ok] @ root.equity[ok] / root.weight[ok].sum())
    if root.player != "oop":
        eq = 1.0 - eq
    freqs = [f for _, f in sol.frequencies(0)]
    return np.array([sol.exploitability_pct, sol.iterations, sol.ev("oop"), sol.ev("ip"), eq, *freqs])


@dataclass(frozen=True)
class BatchResult:
    """Per flop (rows in the batch's order) and weighted totals of ``FIELDS`` and the root's
    action frequencies (``actions``)."""

    batch: Batch
    actions: list[str]
    rows: np.ndarray  # [flops, len(FIELDS) + len(actions)]
    seconds: dict

    @property
    def columns(self) -> list[str]:
        return [*FIELDS, *self.actions]

    def totals(self) -> np.ndarray:
        """The flops' figures averaged with their weights (the iterations too)."""
        w = np.asarray(self.batch.weights, dtype=np.float64)
        return w @ self.rows / w.sum()

    def table(self) -> list[dict]:
        out = [{"flop": cards_text(f), "weight": w, **dict(zip(self.columns, map(float, r)))}
               for f, w, r in zip(self.batch.flops, self.batch.weights, self.rows)]
        out.append({"flop": "weighted", "weight": int(sum(self.batch.weights)),
                    **dict(zip(self.columns, map(float, self.totals())))})
        return out

    def write_csv(self, path) -> None:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=["flop", "weight", *self.columns], lineterminator="\n")
        w.writeheader()
        for row in self.table():
            w.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in row.items()})
        with atomic_open(path) as f:
            f.write(buf.getvalue().encode())

    def draw(self, path) -> None:
        """A PNG: one bar per flop (the weighted total first) split by the root's frequencies."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        k = len(FIELDS)
        colors = action_colors(["x" if a == "check" else "b" for a in self.actions])
        rows = [("weighted", self.totals()), *((cards_text(f), r) for f, r in zip(self.batch.flops, self.rows))]
        fig, ax = plt.subplots(figsize=(8, 0.22 * len(rows) + 1.5))
        for y, (_, r) in enumerate(rows):
            left = 0.0
            for f, c in zip(r[k:], colors):
                ax.barh(y, f, left=left, color=c, height=0.8)
                left += f
            ax.text(1.01, y, f"EV {r[2]:.2f}, eq {r[4]:.1%}", va="center", fontsize=7)
        ax.set_yticks(range(len(rows)), [name for name, _ in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.legend(self.actions, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=min(4, len(colors)),
                  frameon=False)
        ax.set_title(f"OOP's root strategy (share of its range) on {len(self.batch.flops)} flops; EV and "
                     f"equity OOP's", fontsize=9)
        with atomic_open(path) as f:
            fig.savefig(f, format="png", dpi=80, bbox_inches="tight")
        plt.close(fig)


def solve_batch(batch: Batch, target_pct: float | None = 0.5, iterations: int | None = 1000,
                algorithm: str = "dcfr", storage: str = "float32", threads: int | None = None,
                workers: int = 1, checkpoint=None, resume: bool = False, ray: str | None = None,
                progress=None) -> BatchResult:
    """Solve every flop of ``batch`` (module docstring) and collect the figures."""
    options = {"target_pct": target_pct, "iterations": iterations, "algorithm": algorithm,
               "storage": storage, "threads": threads}
    actions = batch.actions()
    config = json.dumps(batch.config, sort_keys=True)
    flops = [list(map(int, f)) for f in batch.flops]
    meta = {"job": "spot-batch", "config": config, "flops": flops, "options": options}
    shape = (len(FIELDS) + len(actions),)
    store = UnitStore(checkpoint, meta, resume, shape=shape) if checkpoint is not None else None
    module = connect_ray(ray) if ray is not None else None
    results, seconds = run_units(len(flops), _setup, (config, flops, options), workers=workers, store=store,
                                 progress=progress, ray=module)
    rows = np.stack([results[i] for i in range(len(flops))])
    return BatchResult(batch, actions, rows, seconds)
