"""``cfrlab matrix``: normal-form (matrix) games, the tutorials' starting point.

Regret matching (and regret matching+) in self-play or against a fixed opponent, the exact
minimax solution by linear programming for zero-sum games, and for general-sum games the
iterated removal of dominated strategies and every equilibrium by support enumeration.
Built-in examples follow Neller and Lanctot, "An Introduction to Counterfactual Regret
Minimization" (2013): rock-paper-scissors, and the small games of the normal-form chapter.
A user's game is a CSV or whitespace-separated text file (format in docs/matrix.md).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from cfrlab.cli.games_cmd import MATRIX_HELP
from cfrlab.errors import CfrlabError
from cfrlab.solvers import matrix as M


@dataclass
class MatrixGame:
    name: str
    description: str
    A: np.ndarray                      # row player's payoffs
    B: np.ndarray | None               # column player's payoffs (None: zero-sum, B = -A)
    rows: list[str]
    cols: list[str]

    @property
    def zero_sum(self) -> bool:
        return self.B is None or bool(np.allclose(self.A + self.B, 0.0))


def _builtins() -> dict[str, MatrixGame]:
    plans = [f"{a}{b}" for a in "lr" for b in "lr"]  # player 2's reply to Left, then to Right
    d = MATRIX_HELP
    return {
        "rps": MatrixGame("rps", d["rps"], M.RPS, None, list(M.RPS_ACTIONS), list(M.RPS_ACTIONS)),
        "dominance": MatrixGame("dominance", d["dominance"], M.DOMINANCE_A, M.DOMINANCE_B,
                                ["a1", "a2", "a3"], ["b1", "b2", "b3"]),
        "battle": MatrixGame("battle", d["battle"], M.BATTLE_A, M.BATTLE_B,
                             ["tennis", "power-rangers"], ["tennis", "power-rangers"]),
        "tree": MatrixGame("tree", d["tree"], M.TREE_NORMAL_FORM, None, ["Left", "Right"], plans),
    }


BUILTIN_NAMES = ("rps", "dominance", "battle", "tree")


# -- reading a user's matrix -----------------------------------------------------------------

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?\d+/\d+$")


def _number(text: str) -> float | None:
    t = text.strip()
    if not _NUMBER.match(t):
        return None
    try:
        return float(Fraction(t)) if "/" in t else float(t)
    except (ValueError, ZeroDivisionError):
        return None


def _cells(line: str) -> list[str]:
    if "," in line or ";" in line:
        return [c.strip() for c in re.split(r"[,;]", line)]
    return line.split()


def _block(path: Path, lines: list[tuple[int, str]]) -> tuple[np.ndarray, list[str] | None, list[str] | None]:
    rows = [(n, _cells(t)) for n, t in lines]
    header = None
    first_n, first = rows[0]
    names = first[1:] if len(first) > 1 else first
    if all(_number(c) is None for c in names) and (first[0] == "" or _number(first[0]) is None):
        header = first
        rows = rows[1:]
        if not rows:
            raise CfrlabError(f"{path}:{first_n}: a header line with no payoff rows under it")
    labelled = any(_number(cells[0]) is None for _, cells in rows)
    values, row_names = [], []
    for n, cells in rows:
        if labelled:
            row_names.append(cells[0])
            cells = cells[1:]
        nums = []
        for c in cells:
            x = _number(c)
            if x is None or not math.isfinite(x):
                raise CfrlabError(f"{path}:{n}: {c!r} is not a number (payoffs are numbers such as 3, -1.5 or 2/3)")
            nums.append(x)
        if not nums:
            raise CfrlabError(f"{path}:{n}: a row without payoffs")
        if values and len(nums) != len(values[0]):
            raise CfrlabError(f"{path}:{n}: {len(nums)} payoffs in this row, {len(values[0])} in the first one")
        values.append(nums)
    cols = None
    if header is not None:
        cols = header[1:] if labelled or len(header) == len(values[0]) + 1 else header
        if len(cols) != len(values[0]):
            raise CfrlabError(f"{path}:{first_n}: {len(cols)} column names for {len(values[0])} columns")
    return np.array(values, dtype=np.float64), (row_names if labelled else None), cols


def read_matrix_file(path: Path) -> MatrixGame:
    """A payoff matrix from a CSV or whitespace-separated text file: the row player's payoffs
    (a zero-sum game), or two blocks separated by a blank line (row's, then column's payoffs).
    Optional column names on the first line and row names in the first column; ``#`` comments."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CfrlabError(f"{path}: no such file (a matrix game is {', '.join(BUILTIN_NAMES)} or a CSV/text file)"
                          ) from None
    except IsADirectoryError:
        raise CfrlabError(f"{path} is a directory, not a matrix file") from None
    except UnicodeDecodeError:
        raise CfrlabError(f"{path} is not a text file (a matrix file is CSV or plain text)") from None
    except OSError as e:
        raise CfrlabError(f"{path}: cannot read it ({e.strerror or e})") from None
    blocks: list[list[tuple[int, str]]] = [[]]
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line or not line.strip(",; \t"):
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append((n, line))
    blocks = [b for b in blocks if b]
    if not blocks:
        raise CfrlabError(f"{path}: no payoffs in it")
    if len(blocks) > 2:
        raise CfrlabError(f"{path}:{blocks[2][0][0]}: more than two payoff blocks (a general-sum game is the "
                          "row player's matrix, a blank line, then the column player's)")
    A, rows, cols = _block(path, blocks[0])
    B = None
    if len(blocks) == 2:
        B, rows2, cols2 = _block(path, blocks[1])
        if B.shape != A.shape:
            raise CfrlabError(f"{path}: the column player's matrix is {B.shape[0]}x{B.shape[1]}, "
                              f"the row player's {A.shape[0]}x{A.shape[1]}")
        rows, cols = rows or rows2, cols or cols2
    m, n = A.shape
    rows = rows or [f"r{i + 1}" for i in range(m)]
    cols = cols or [f"c{j + 1}" for j in range(n)]
    kind = "zero-sum" if B is None else "general-sum"
    return MatrixGame(path.stem, f"{path.name}: {m}x{n} {kind}", A, B, rows, cols)


def load_matrix_game(spec: str) -> MatrixGame:
    games = _builtins()
    if spec.lower() in games:
        return games[spec.lower()]
    p = Path(spec)
    if not p.exists() and not p.suffix:
        raise CfrlabError(f"unknown matrix game {spec!r}: give {', '.join(BUILTIN_NAMES)} or a CSV/text file")
    return read_matrix_file(p)


def parse_mix(text: str, names: list[str], who: str) -> np.ndarray:
    """``0.4,0.3,0.3`` or ``rock=0.4,paper=0.3,scissors=0.3`` (fractions allowed): a mixed strategy."""
    parts = [p.strip() for p in re.split(r"[,\s]+", text.strip()) if p.strip()]
    mix = np.zeros(len(names))
    if parts and all("=" in p for p in parts):
        for p in parts:
            key, _, val = p.partition("=")
            if key not in names:
                raise CfrlabError(f"--vs: {key!r} is not one of the {who}'s actions ({', '.join(names)})")
            x = _number(val)
            if x is None:
                raise CfrlabError(f"--vs: {val!r} is not a probability")
            mix[names.index(key)] = x
    else:
        if len(parts) != len(names):
            raise CfrlabError(f"--vs needs {len(names)} probabilities for the {who} ({', '.join(names)}), "
                              f"got {len(parts)}")
        for k, p in enumerate(parts):
            x = _number(p)
            if x is None:
                raise CfrlabError(f"--vs: {p!r} is not a probability")
            mix[k] = x
    if np.any(mix < 0) or not math.isclose(mix.sum(), 1.0, abs_tol=1e-9):
        raise CfrlabError(f"--vs: probabilities must be non-negative and sum to 1 (they sum to {mix.sum():g})")
    return mix


# -- output ----------------------------------------------------------------------------------


def _frac(x: float) -> str:
    x = float(x) + 0.0  # no "-0"
    f = Fraction(x).limit_denominator(1000)
    return str(f) if abs(float(f) - x) < 1e-9 and f.denominator > 1 else f"{x:.4f}".rstrip("0").rstrip(".")


def _mix_text(mix: np.ndarray, names: list[str]) -> str:
    return "  ".join(f"{n} {p:.4f}" for n, p in zip(names, mix))


def _payoff_table(g: MatrixGame) -> Table:
    title = "row player's payoffs" if g.B is None else "payoffs (row player, column player)"
    t = Table(title=title, title_justify="left")
    t.add_column("")
    for c in g.cols:
        t.add_column(c, justify="right")
    for i, r in enumerate(g.rows):
        if g.B is None:
            cells = [f"{g.A[i, j]:g}" for j in range(len(g.cols))]
        else:
            cells = [f"{g.A[i, j]:g}, {g.B[i, j]:g}" for j in range(len(g.cols))]
        t.add_row(r, *cells)
    return t


ALGORITHMS = ("rm", "rm+")


def register(app: typer.Typer) -> None:
    @app.command("matrix")
    def matrix(
        game: Annotated[str, typer.Argument(metavar="GAME", help=(
            "a built-in matrix game (rps, dominance, battle, tree) or a CSV/text file of payoffs"))],
        iterations: Annotated[int, typer.Option("--iterations", "-n", metavar="N",
                                                help="regret-matching iterations")] = 10_000,
        algorithm: Annotated[str, typer.Option("--algorithm", "-a", metavar="ALG",
                                               help="rm (regret matching) or rm+ (regret matching+)")] = "rm",
        vs: Annotated[str | None, typer.Option("--vs", metavar="MIX", help=(
            "the column player's fixed strategy, e.g. 0.4,0.3,0.3 or rock=0.4,paper=0.3,scissors=0.3: "
            "the row player learns against it"))] = None,
        sampled: Annotated[bool, typer.Option("--sampled", help=(
            "with --vs: sample one action per side each round and update on the realised regrets"))] = False,
        seed: Annotated[int | None, typer.Option("--seed", "-s", metavar="SEED",
                                                 help="seed of --sampled (default: drawn and printed)")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="last stdout line: one JSON summary")] = False,
    ) -> None:
        """Matrix games: regret matching in self-play or against a fixed strategy, and the exact solution."""
        from cfrlab.cli.common import seed_or_random

        alg = algorithm.lower()
        if alg not in ALGORITHMS:
            raise CfrlabError(f"unknown algorithm {algorithm!r} for matrix games; choose rm or rm+")
        if iterations < 1:
            raise CfrlabError("--iterations must be at least 1")
        if sampled and vs is None:
            raise CfrlabError("--sampled needs --vs MIX (sampled play against a fixed strategy)")
        g = load_matrix_game(game)
        opponent = None if vs is None else parse_mix(vs, g.cols, "column player")
        console = Console(highlight=False, soft_wrap=True)
        console.print(f"[bold]{g.name}[/]: {g.description}")
        console.print(_payoff_table(g))
        plus = alg == "rm+"
        label = "regret matching+" if plus else "regret matching"
        summary: dict = {"game": g.name, "rows": g.rows, "columns": g.cols, "zero_sum": g.zero_sum,
                         "algorithm": alg, "iterations": iterations}
        if opponent is not None:
            rng_seed = None
            if sampled:
                rng_seed, drawn = seed_or_random(seed)
                if drawn:
                    console.print(f"seed {rng_seed} (drawn at random; --seed {rng_seed} repeats this run)")
            res = M.learn_against(g.A, opponent, iterations, plus=plus, seed=rng_seed)
            best, best_value = M.best_response(g.A, opponent)
            how = "sampled actions, realised regrets" if sampled else "expected payoffs"
            console.print(f"{label}, {iterations:,} rounds against the column player's fixed "
                          f"{_mix_text(opponent, g.cols)} ({how}):")
            console.print(f"  average strategy  {_mix_text(res.average_strategy, g.rows)}")
            console.print(f"  final strategy    {_mix_text(res.current_strategy, g.rows)}")
            console.print(f"  mean payoff {res.average_payoff:+.4f} per round; the best response is "
                          f"{g.rows[best]}, worth {best_value:+.4f}")
            summary.update({"vs": opponent.tolist(), "sampled": sampled, "seed": rng_seed,
                            "average_strategy": res.average_strategy.tolist(),
                            "final_strategy": res.current_strategy.tolist(),
                            "mean_payoff": res.average_payoff, "best_response": g.rows[best],
                            "best_response_value": best_value})
        elif g.zero_sum:
            res = M.self_play(g.A, iterations, plus=plus)
            x, y = res.average_row, res.average_column
            expl = M.exploitability(g.A, x, y)
            console.print(f"{label}, {iterations:,} iterations of self-play (average strategies):")
            console.print(f"  row     {_mix_text(x, g.rows)}")
            console.print(f"  column  {_mix_text(y, g.cols)}")
            console.print(f"  value to the row player {float(x @ g.A @ y):+.6f}; exploitability {expl:.3g}")
            summary.update({"average_row": x.tolist(), "average_column": y.tolist(), "exploitability": expl,
                            "value": float(x @ g.A @ y)})
        if g.zero_sum:
            lx, ly, v = M.solve_zero_sum(g.A)
            console.print(f"exact (minimax linear program): value {_frac(v)} to the row player")
            console.print("  row     " + "  ".join(f"{n} {_frac(p)}" for n, p in zip(g.rows, lx)))
            console.print("  column  " + "  ".join(f"{n} {_frac(p)}" for n, p in zip(g.cols, ly)))
            summary["equilibrium"] = {"row": lx.tolist(), "column": ly.tolist(), "value": v + 0.0}
        else:
            B = g.B if g.B is not None else -g.A
            rows, cols = M.eliminate_dominated(g.A, B)
            gone_r = [g.rows[i] for i in range(len(g.rows)) if i not in rows]
            gone_c = [g.cols[j] for j in range(len(g.cols)) if j not in cols]
            console.print("strictly dominated strategies removed, in turn: "
                          f"rows {', '.join(gone_r) or 'none'}; columns {', '.join(gone_c) or 'none'}; "
                          f"left: {', '.join(g.rows[i] for i in rows)} x {', '.join(g.cols[j] for j in cols)}")
            eqs = M.support_enumeration(g.A, B) if max(g.A.shape) <= 10 else []
            if max(g.A.shape) > 10:
                console.print("equilibria: not enumerated (more than 10 actions a side)")
            else:
                console.print(f"equilibria (support enumeration, nondegenerate games): {len(eqs)}")
            out = []
            for x, y in eqs:
                pa, pb = float(x @ g.A @ y), float(x @ B @ y)
                console.print("  row " + " ".join(f"{n} {_frac(p)}" for n, p in zip(g.rows, x)) +
                              " | column " + " ".join(f"{n} {_frac(p)}" for n, p in zip(g.cols, y)) +
                              f" | payoffs {_frac(pa)}, {_frac(pb)}")
                out.append({"row": x.tolist(), "column": y.tolist(), "payoffs": [pa, pb]})
            summary.update({"dominated_rows": gone_r, "dominated_columns": gone_c, "equilibria": out})
        if as_json:
            print(json.dumps(summary))
