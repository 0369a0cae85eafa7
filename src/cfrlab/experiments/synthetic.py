"""A synthetic perfect-recall bucket model with consistent joint tables (profiling without
building a real abstraction, and engine tests on game shapes no abstraction covers).

Round r has ``B**(r+1)`` bucket sequences (``counts[r]`` buckets added per round), player 0's
and player 1's last-round sequences are drawn from a random symmetric joint table ``P_R``;
earlier rounds' tables are its marginals through the parent maps (so every table is exactly
consistent with the last one, as a real abstraction's are), and ``W = P_R * tanh(k (h0 - h1))``
with a random "strength" ``h`` per sequence is antisymmetric with ``|W| <= P_R``.
"""

from __future__ import annotations

import hashlib

import numpy as np

from cfrlab.abstraction.model import SYNTHETIC, keep_engine_views


class SyntheticBucketModel:
    """ChanceModel contract (docs/ENGINE.md) for ``game`` with ``counts[r]`` buckets per round."""

    kind = SYNTHETIC

    def __init__(self, game, counts, seed: int = 0, sparsity: float = 0.0) -> None:
        R = game.num_rounds
        counts = [int(counts)] * R if np.isscalar(counts) else [int(c) for c in counts]
        self.game = game
        self.counts = counts
        self.num_states = tuple(int(np.prod(counts[:r + 1])) for r in range(R))
        rng = np.random.default_rng(seed)
        n = self.num_states[-1]
        A = rng.random((n, n))
        if sparsity > 0:
            A *= rng.random((n, n)) >= sparsity
        P = A + A.T
        P /= P.sum()
        self._fold = [P]
        par = []
        for r in range(R - 1, 0, -1):
            p = (np.arange(self.num_states[r]) // counts[r]).astype(np.int32)
            par.append(p)
            m = self.num_states[r - 1]
            Q = np.zeros((m, self._fold[0].shape[0]))
            np.add.at(Q, p, self._fold[0])
            Q2 = np.zeros((m, m))
            np.add.at(Q2.T, p, Q.T)
            self._fold.insert(0, Q2)
        self.parent = [np.full(self.num_states[0], -1, dtype=np.int32)] + par[::-1]
        h = rng.normal(size=n)
        self._W = P * np.tanh(3.0 * (h[:, None] - h[None, :]))
        self.hash = hashlib.sha256(f"synthetic {game.to_text()} {counts} {seed} {sparsity}".encode()).hexdigest()

    def fold_matrix(self, r: int) -> np.ndarray:
        return self._fold[r]

    def showdown_matrix(self) -> np.ndarray:
        return -self._neg_W if self._W is None else self._W

    def share_tables(self, fold_ops: list, showdown_op: tuple) -> None:
        """As ``BucketedModel.share_tables``: keep the engine's packed views (P_r, and -W for
        W) instead of copies, so that memory figures match a real abstraction's."""
        neg_W = keep_engine_views(self._fold, self._W, fold_ops, showdown_op)
        if neg_W is not None:
            self._neg_W, self._W = neg_W, None

    def describe_state(self, r: int, s: int) -> str:
        return f"s{s}"
