"""Monte Carlo CFR (Lanctot et al. 2009): external sampling (``es``) and outcome sampling (``os``).

Each iteration runs one traversal per player, each on a freshly sampled deal: the deal is
drawn uniformly from every ordered deal of the game (enumerated once), and the players'
private states per round come from ``model.deal_states(deal)``. Showdown results come from
the chance model itself, ``W[s0, s1] / P_last[s0, s1]`` at the final-round states (exactly
+1/0/-1 for a lossless model), so the sampled game is the one the other solvers solve.

Tables use the ENGINE.md layout: ``regret`` and ``avg`` are float64[rows, A] (A = 3 in a
limit tree, 2 + raise sizes in a no-limit one) with rows
``row_offset[d] + state``. The random stream is a splitmix64 state (uint64[1]) passed into
the kernels and saved by ``state_dict``, so ``iterate(a); iterate(b)`` equals
``iterate(a + b)`` bit for bit and a checkpointed run resumes exactly.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from cfrlab.cards import deck
from cfrlab.engine import exploitability, row_offsets
from cfrlab.engine.rows import legal_rows, normalized_rows
from cfrlab.errors import CfrlabError
from cfrlab.solvers import _mccfr_kernels as K
from cfrlab.solvers.protocol import MCCFR_KIND, check_resumed_tables, resolve_seed
from cfrlab.tree.arrays import compile_tree

ALGORITHMS = ("es", "os")
DEFAULT_EPSILON = 0.6  # outcome sampling's exploration (OpenSpiel's default as well)
MAX_DEALS = 3_000_000  # deal tables above this would not fit a test machine's patience


def enumerate_deals(game) -> np.ndarray:
    """int64[K, 2h + board]: every ordered deal (hole cards by position, then the board round
    by round), each player's hole cards and each round's board cards in ascending order."""
    if game.num_deals > MAX_DEALS:
        raise CfrlabError(
            f"{game.name or 'this game'} has {game.num_deals:,} deals; es/os sample from an "
            f"enumerated deal table (at most {MAX_DEALS:,})"
        )
    cards = deck(game.num_ranks, game.num_suits)
    h = game.num_hole_cards
    groups = [h, h] + [int(b) for b in game.num_board_cards[: game.num_rounds] if b]
    out: list[tuple[int, ...]] = []

    def rec(rest: list[int], i: int, prefix: tuple[int, ...]) -> None:
        if i == len(groups):
            out.append(prefix)
            return
        for pick in itertools.combinations(rest, groups[i]):
            rec([c for c in rest if c not in pick], i + 1, prefix + pick)

    rec(cards, 0, ())
    return np.array(out, dtype=np.int64).reshape(len(out), sum(groups))


def deal_tables(tree, model) -> tuple[np.ndarray, np.ndarray]:
    """(deal_states int32[K, 2, R], deal_value float64[K]) for every deal of the game.

    ``deal_value`` is player 0's showdown result per chip of stake, W / P_last at the deal's
    final-round states (the conditional expectation given the states; +1/0/-1 when the
    states determine the cards).
    """
    deals = enumerate_deals(model.game)
    R = model.game.num_rounds
    states = np.empty((len(deals), 2, R), np.int32)
    for i, deal in enumerate(deals):
        states[i] = model.deal_states([int(c) for c in deal])
    s0, s1 = states[:, 0, R - 1], states[:, 1, R - 1]
    w = _entries(model.showdown_matrix(), s0, s1)
    p = _entries(model.fold_matrix(R - 1), s0, s1)
    if np.any(p <= 0):
        raise CfrlabError("chance model gives probability 0 to a possible deal")
    return states, w / p


def _entries(matrix, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    if isinstance(matrix, np.ndarray):
        return np.asarray(matrix[rows, cols], dtype=np.float64)
    return np.asarray(matrix.tocsr()[rows, cols], dtype=np.float64).ravel()


def _row_offsets(tree, model) -> np.ndarray:
    return np.ascontiguousarray(row_offsets(tree, model), dtype=np.int64)


@dataclass(frozen=True)
class ESParams:
    """External sampling has no parameters of its own."""


@dataclass(frozen=True)
class OSParams:
    """Outcome sampling's exploration: the traverser samples epsilon * uniform + (1 - epsilon) * sigma."""

    epsilon: float = DEFAULT_EPSILON


class MCCFRSolver:
    """External- or outcome-sampling MCCFR with the Solver interface of ENGINE.md.

    ``iterate(n)`` runs n iterations (one traversal per player each); ``average_policy()``
    and ``current_policy()`` return float64[rows, A]; ``state_dict()`` /
    ``load_state_dict(d)`` save and restore everything, the random stream included.
    """

    kind = MCCFR_KIND

    def __init__(
        self,
        tree,
        model,
        algorithm: str = "es",
        seed: int | None = None,
        epsilon: float = DEFAULT_EPSILON,
        deals: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise CfrlabError(
                f"unknown MCCFR algorithm {algorithm!r}; use one of {', '.join(ALGORITHMS)}"
            )
        if algorithm == "os" and not 0.0 < epsilon <= 1.0:
            raise CfrlabError("outcome sampling needs an exploration epsilon in (0, 1]")
        self.tree, self.model, self.algorithm = tree, model, algorithm
        self.epsilon = float(epsilon)
        self.row_offset = _row_offsets(tree, model)
        rows = int(self.row_offset[-1])
        self._legal_rows = legal_rows(tree, self.row_offset)
        self.deal_states, self.deal_value = deals if deals is not None else deal_tables(tree, model)
        self.seed = resolve_seed(seed)
        self.rng = np.random.SeedSequence(self.seed).generate_state(1, dtype=np.uint64)
        self.regret = np.zeros((rows, tree.num_actions))
        self.avg = np.zeros((rows, tree.num_actions))
        self.iterations = 0
        self.seconds = 0.0  # time spent in iterate (Strategy.from_solver records it)
        self._tree_arrays = compile_tree(tree)

    @property
    def params(self) -> ESParams | OSParams:
        return OSParams(self.epsilon) if self.algorithm == "os" else ESParams()

    def iterate(self, n: int = 1) -> None:
        if n <= 0:
            return
        t = time.perf_counter()
        args = (
            self._tree_arrays,
            self.row_offset,
            self.deal_states,
            self.deal_value,
            self.regret,
            self.avg,
            self.rng,
            int(n),
        )
        wide = self.tree.num_actions > 3  # the limit kernels unroll their three columns
        if self.algorithm == "es":
            (K.es_wide_iterations if wide else K.es_iterations)(*args)
        else:
            (K.os_wide_iterations if wide else K.os_iterations)(*args, self.epsilon)
        self.iterations += int(n)
        self.seconds += time.perf_counter() - t

    def current_policy(self) -> np.ndarray:
        return normalized_rows(self.regret, self._legal_rows, positive_only=True)

    def average_policy(self) -> np.ndarray:
        return normalized_rows(self.avg, self._legal_rows)

    def exploitability(self, average: bool = True) -> float:
        pol = self.average_policy() if average else self.current_policy()
        return float(exploitability(self.tree, self.model, pol))

    def state_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "iterations": self.iterations,
            "seed": self.seed,
            "epsilon": self.epsilon,
            "regret": self.regret.copy(),
            "avg": self.avg.copy(),
            "rng": self.rng.copy(),
        }

    def load_state_dict(self, d: dict[str, Any]) -> None:
        if d.get("algorithm") != self.algorithm:
            raise CfrlabError(f"checkpoint is for {d.get('algorithm')!r}, not {self.algorithm!r}")
        regret = np.asarray(d["regret"], np.float64)
        if regret.shape != self.regret.shape:
            raise CfrlabError(
                f"checkpoint tables have shape {regret.shape}, this game needs {self.regret.shape}"
            )
        avg = np.asarray(d["avg"], np.float64)
        if avg.shape != self.avg.shape:
            raise CfrlabError(f"checkpoint tables have shape {avg.shape}, this game needs {self.avg.shape}")
        check_resumed_tables(regret, avg)
        self.regret = regret.copy()
        self.avg = avg.copy()
        self.rng = np.asarray(d["rng"], np.uint64).copy()
        self.iterations = int(d["iterations"])
        self.seed = int(d["seed"])
        self.epsilon = float(d.get("epsilon", self.epsilon))


def make_mccfr_solver(
    tree, model, algorithm: str, seed: int | None = None, **params
) -> MCCFRSolver:
    """Entry point for ``cfrlab.solvers.make_solver(tree, model, 'es' | 'os', seed=..., ...)``.

    Params: ``epsilon`` (outcome sampling's exploration, default 0.6).
    """
    unknown = set(params) - {"epsilon"}
    if unknown:
        raise CfrlabError(f"unknown parameter(s) for {algorithm}: {', '.join(sorted(unknown))}")
    return MCCFRSolver(tree, model, algorithm, seed=seed, **params)


make_solver = make_mccfr_solver  # the name cfrlab.solvers.cfr.make_solver dispatches to
