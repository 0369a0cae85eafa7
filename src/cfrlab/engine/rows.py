"""Row helpers of the policy layout (docs/ENGINE.md, "Policies"): rows per decision node and
private state, ``row_offset`` from ``row_offsets(tree, model)``, columns the tree's actions.
Every policy, regret or average table in that layout is read through these, whatever the
player count: which columns each row may use, the uniform policy, a table's rows as
distributions, and the greedy (most likely action) form."""

from __future__ import annotations

import numpy as np

from cfrlab.engine._match_kernels import regret_match


def legal_rows(tree, row_offset) -> np.ndarray:
    """bool[rows, A]: each row's legal columns (its decision node's)."""
    return np.repeat(np.asarray(tree.legal, dtype=bool), np.diff(np.asarray(row_offset)), axis=0)


def uniform_over(legal: np.ndarray) -> np.ndarray:
    """float64[rows, A]: every legal column of each row equally likely."""
    legal = np.asarray(legal, dtype=np.float64)
    return legal / legal.sum(axis=1, keepdims=True)


def uniform_rows(tree, row_offset) -> np.ndarray:
    """The uniform policy over legal actions, in the layout of ``row_offset``."""
    return uniform_over(legal_rows(tree, row_offset))


def normalized_rows(table: np.ndarray, legal: np.ndarray, positive_only: bool = False) -> np.ndarray:
    """Rows of ``table`` (regrets with ``positive_only``: regret matching, the engine's one
    numpy form; or average-strategy sums) as distributions over the legal columns; uniform
    where nothing is left."""
    if positive_only:
        return regret_match(table, legal)
    t = np.where(legal, table, 0.0)
    total = t.sum(axis=1, keepdims=True)
    return np.where(total > 0, t / np.where(total > 0, total, 1.0), uniform_over(legal))


def greedy_rows(policy: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Each row's most likely legal action with probability 1 (ties: the first column)."""
    masked = np.where(legal, policy, -1.0)
    out = np.zeros_like(policy)
    out[np.arange(len(policy)), masked.argmax(axis=1)] = 1.0
    return out
