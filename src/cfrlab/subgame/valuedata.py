"""Situations for counterfactual value networks, solved by the engine, and the networks
trained on them (``cfrlab.subgame.valuenet`` says what a situation, a feature and a target
are).

**Data** are written in chunks of ``CHUNK`` situations (``cfvdata`` .npz files, atomic) under
a directory, each from its own seed, so a run that stops keeps its chunks and the next run
with the same settings continues after them and makes the same data. Each situation's solve
gap (its exploitability in chips) is kept beside its targets.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cfrlab.deep.cfvfit import fit_cfvnet
from cfrlab.deep.cfvnet import CfvNet
from cfrlab.deep.network import check_layers
from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader, printable, save_npz
from cfrlab.games.builtins import game_of_file
from cfrlab.subgame.cut import Blueprint, round_roots
from cfrlab.subgame.local import Family, families
from cfrlab.subgame.methods import Ranges, family_values, normalized, solve_family
from cfrlab.subgame.valuenet import (
    LAYOUT,
    RoundShape,
    features,
    normalize_ranges,
    round_shape,
    zero_sum,
)

DATA_KIND = "cfvdata"
CHUNK = 256  # situations a chunk


def random_ranges(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Ranges [G, nb, H] of varied shape: uniform draws raised to a power from 1/4 to 4 (flat
    to peaked), a random share of the states (up to 60%) left out; never all zero."""
    G, nb, H = shape
    e = np.exp(rng.uniform(np.log(0.25), np.log(4.0), (G, nb, 1)))
    r = rng.random(shape) ** e
    r *= rng.random(shape) >= rng.uniform(0.0, 0.6, (G, nb, 1))
    empty = r.sum(axis=-1) == 0
    r[empty, rng.integers(0, H, empty.sum())] = 1.0
    return r


def solve_situations(bp: Blueprint, fam: Family, r0: np.ndarray, r1: np.ndarray,
                     iterations: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(b0, b1, gap) at the family's roots [G, nb, H] from ranges r0, r1, after an unsafe
    solve: each player's best-response counterfactual values to the other's average strategy,
    and per board the solve's exploitability in the same units (what the best responses gain
    over the average strategies, averaged over the two players). For a state the solve reaches
    its best-response value is its value in the solve to within the gap; for one it never
    reaches (a range may leave states out) it is what the state would win by entering, the
    value CFR-D's trunk needs there (the average strategy's own rows there are uniform)."""
    ranges = Ranges((r0, r1), np.zeros_like(r0), np.ones_like(r0))
    avg = solve_family(fam, "unsafe", 0, ranges, iterations, average=(0, 1))
    sigma = {m: np.moveaxis(normalized(a, fam.legal[m])[0][..., fam.cols[m]], -1, 0) for m, a in avg.items()}
    v = [family_values(fam, sigma, (r0, r1), i) for i in (0, 1)]
    br = [family_values(fam, sigma, (r0, r1), i, "br") for i in (0, 1)]
    gap = 0.5 * (((br[0] - v[0]) * r0).sum(-1) + ((br[1] - v[1]) * r1).sum(-1))
    return br[0], br[1], gap


def _chunk(bp: Blueprint, shape: RoundShape, roots: np.ndarray, rng, iterations: int) -> dict:
    """One chunk of situations at the round starts ``roots``: features, targets, the pots (to
    turn targets into chips) and each board's solve gap (chips)."""
    B = shape.blocks
    xs, ys, pots, gaps = [], [], [], []
    for fam in families(bp, shape.round, roots, (0, B)):
        rb = fam.rounds[shape.round]
        G = len(fam.roots)
        r0, r1 = random_ranges(rng, (G, rb.nb, rb.H)), random_ranges(rng, (G, rb.nb, rb.H))
        v0, v1, gap = solve_situations(bp, fam, r0, r1, iterations)
        (r0n, m0), (r1n, m1) = normalize_ranges(r0), normalize_ranges(r1)
        spent = bp.tree.spent[fam.roots].astype(np.float64)  # [G, 2]
        pot = spent.sum(axis=1)[:, None]
        f0 = v0 / (shape.c * m1 * pot)[..., None]
        f1 = v1 / (shape.c * m0 * pot)[..., None]
        xs.append(features(shape, rb.first + np.arange(rb.nb), spent, r0n, r1n))
        ys.append(np.concatenate([f0, f1], axis=-1).reshape(G * rb.nb, -1))
        pots.append(np.broadcast_to(pot, (G, rb.nb)).reshape(-1))
        gaps.append((gap / (shape.c * m0 * m1)).reshape(-1))
    return {"x": np.concatenate(xs), "y": np.concatenate(ys).astype(np.float32),
            "pot": np.concatenate(pots), "gap": np.concatenate(gaps)}


@dataclass
class DataReport:
    """What ``generate`` did and holds: situations (one per root and board block), chunks
    written now and kept from before, bytes on disk, seconds spent solving (all chunks, as
    their files record), the mean solve gap in chips."""

    situations: int
    chunks: int
    resumed: int
    bytes: int
    seconds: float
    gap: float


def generate(bp: Blueprint, rnd: int, data: str | Path, *, situations: int = 4096, iterations: int = 400,
             seed: int = 0, progress: Callable[[int, int], None] | None = None) -> DataReport:
    """Solve ``situations`` random situations at round ``rnd``'s starts into chunk files
    under ``data`` (module docstring), continuing after the chunks already there when they
    were made with the same game, round, seed and iterations (refused otherwise)."""
    if isinstance(rnd, bool) or not isinstance(rnd, (int, np.integer)) or not 1 <= rnd < bp.tree.game.num_rounds:
        raise CfrlabError(f"value networks are for rounds 2 to {bp.tree.game.num_rounds} "
                          f"(round 1 starts the game), got round {printable(rnd, 20)!s}")
    for name, v in (("situations", situations), ("iterations", iterations)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise CfrlabError(f"{name} must be a whole number of at least 1, got {printable(v, 20)!s}")
    shape = round_shape(bp, int(rnd))
    roots = round_roots(bp.tree, int(rnd))
    d = Path(data)
    d.mkdir(parents=True, exist_ok=True)
    n_chunks = -(-int(situations) // CHUNK)
    game = bp.tree.game
    meta = {"game": game.to_text(), "round": int(rnd), "layout": LAYOUT, "seed": int(seed),
            "iterations": int(iterations)}
    resumed = 0
    for k in range(n_chunks):
        path = d / f"chunk-{k:05d}.npz"
        if path.exists():
            _check_chunk(path, meta, game)
            resumed += 1
        else:
            t0 = time.perf_counter()
            rng = np.random.default_rng([int(seed), int(rnd), k])
            pick = rng.choice(roots, size=CHUNK)
            arrays = _chunk(bp, shape, np.sort(pick), rng, int(iterations))
            header = {**meta, "kind": DATA_KIND, "game_name": game.name, "chunk": k,
                      "seconds": time.perf_counter() - t0}
            save_npz(path, header, arrays)
        if progress is not None:
            progress(k + 1, n_chunks)
    return data_report(d, n_chunks, resumed)


def _check_chunk(path: Path, meta: dict, game) -> dict:
    with NpzReader(path, kind=DATA_KIND) as z:
        h = z.header
    game_of_file(path, h, "value-network data file", game, holds="holds situations")
    for key, want in meta.items():
        if key != "game" and h.get(key) != want:
            raise CfrlabError(f"{path} holds situations made with {key} {printable(h.get(key), 30)}, this run "
                              f"makes them with {want}: use another directory or the same settings")
    return h


def data_report(d: Path, n_chunks: int, resumed: int = 0) -> DataReport:
    files = sorted(d.glob("chunk-*.npz"))[:n_chunks]
    seconds, gap, n, size = 0.0, 0.0, 0, 0
    for f in files:
        with NpzReader(f, kind=DATA_KIND) as z:
            seconds += float(z.header.get("seconds", 0.0))
            g = z.read("gap", dtype=np.float64, what="solve gaps")
        gap += float(g.sum())
        n += len(g)
        size += f.stat().st_size
    return DataReport(n, len(files), resumed, size, seconds, gap / max(n, 1))


def load_data(bp: Blueprint, rnd: int, data: str | Path) -> dict:
    """Every chunk under ``data`` for this game and round, checked (shapes, finite numbers)."""
    shape = round_shape(bp, rnd)
    files = sorted(Path(data).glob("chunk-*.npz"))
    if not files:
        raise CfrlabError(f"{data} holds no value-network data (chunk-*.npz files)")
    out: dict[str, list] = {"x": [], "y": [], "pot": []}
    game = bp.tree.game
    for f in files:
        with NpzReader(f, kind=DATA_KIND) as z:
            h = z.header
            game_of_file(f, h, "value-network data file", game, holds="holds situations")
            if h.get("round") != rnd or h.get("layout") != LAYOUT:
                raise CfrlabError(f"{f} holds situations of round {printable(h.get('round'), 20)} in layout "
                                  f"{printable(h.get('layout'), 20)}, not round {rnd} in layout {LAYOUT}")
            x = z.read("x", dtype=np.float32, what="features")
            n = x.shape[0]
            if x.shape != (n, shape.inputs):
                raise CfrlabError(f"{f}: features of shape {x.shape}, this round needs [N, {shape.inputs}]")
            y = z.read("y", shape=(n, shape.outputs), dtype=np.float32, what="targets")
            pot = z.read("pot", shape=(n,), dtype=np.float64, what="pots")
        if not (np.isfinite(x).all() and np.isfinite(y).all() and np.isfinite(pot).all() and (pot > 0).all()):
            raise CfrlabError(f"{f} holds NaN, infinite or non-positive numbers")
        out["x"].append(x)
        out["y"].append(y)
        out["pot"].append(pot)
    return {k: np.concatenate(v) for k, v in out.items()}


def check_training(hidden, steps, batch, held_out) -> None:
    """Refuse training settings no run can use, before any data are read or made."""
    check_layers(hidden)
    for name, v in (("steps", steps), ("batch", batch)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise CfrlabError(f"{name} must be a whole number of at least 1, got {printable(v, 20)!s}")
    if not (isinstance(held_out, (int, float)) and 0 <= held_out < 1):
        raise CfrlabError(f"the held-out share is a fraction from 0 to below 1, got {printable(held_out, 20)!s}")


@dataclass
class NetReport:
    """A trained network's errors in chips (mean absolute, over every state of every
    situation), on the training and the held-out situations, beside the error of predicting
    0 on the held-out ones."""

    examples: int
    held_out: int
    mae_train: float
    mae_held_out: float
    mae_zero: float
    seconds: float


def mae_chips(net: CfvNet, shape: RoundShape, x: np.ndarray, y: np.ndarray, pot: np.ndarray) -> float:
    H, B = shape.states, shape.blocks
    f = zero_sum(net.predict(x), x[:, B:B + H], x[:, B + H:B + 2 * H])
    return float((np.abs(f - y) * pot[:, None]).mean())


def train_value_net(bp: Blueprint, rnd: int, data: str | Path, *, hidden=(256, 256, 256), steps: int = 6000,
                    batch: int = 1024, lr: float = 1e-3, seed: int = 0,
                    held_out: float = 0.1) -> tuple[CfvNet, NetReport]:
    """A network fitted to the situations under ``data``, a ``held_out`` share of them (the
    last chunks) kept out of training and measured."""
    check_training(hidden, steps, batch, held_out)
    shape = round_shape(bp, rnd)
    d = load_data(bp, rnd, data)
    n = len(d["x"])
    k = max(1, round(n * float(held_out))) if held_out > 0 else 0
    if n - k < 1:
        raise CfrlabError(f"{data} holds {n} situations: too few to train on and hold {k} out")
    tr, te = slice(0, n - k), slice(n - k, n)
    t0 = time.perf_counter()
    net = fit_cfvnet(bp.tree.game, rnd, LAYOUT, d["x"][tr], d["y"][tr], hidden=hidden, steps=steps,
                     batch=batch, lr=lr, seed=seed, header={"situations": n, "held_out": k})
    mae_te = mae_chips(net, shape, d["x"][te], d["y"][te], d["pot"][te]) if k else float("nan")
    zero = float((np.abs(d["y"][te]) * d["pot"][te][:, None]).mean()) if k else float("nan")
    rep = NetReport(n, k, mae_chips(net, shape, d["x"][tr], d["y"][tr], d["pot"][tr]), mae_te, zero,
                    time.perf_counter() - t0)
    net.header.update({"mae_train_chips": rep.mae_train, "mae_held_out_chips": rep.mae_held_out,
                       "mae_zero_chips": rep.mae_zero})
    return net, rep


