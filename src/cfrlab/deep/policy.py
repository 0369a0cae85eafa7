"""From network outputs to behaviour policies, in numpy (no JAX needed to play or tabulate).

Layouts are ENGINE.md's: a table is float64[rows, A] with row ``row_offset[d] + state``;
``legal_rows`` bool[rows, A] is ``tree.legal`` repeated over each decision's rows.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from cfrlab.engine import row_offsets
from cfrlab.engine.kernels import regret_match
from cfrlab.engine.rows import legal_rows as _legal_rows
from cfrlab.engine.rows import uniform_over
from cfrlab.tree import CHANCE, DECISION


def legal_rows(tree, model) -> np.ndarray:
    """bool[rows, A]: each row's legal action columns."""
    return _legal_rows(tree, row_offsets(tree, model))


def mlp_forward(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """ReLU MLP: ``x @ W + b`` per layer, ReLU between layers, linear output (float64)."""
    h = np.asarray(x, np.float64)
    for i, (w, b) in enumerate(layers):
        h = h @ np.asarray(w, np.float64) + np.asarray(b, np.float64)
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return h


# rows of predicted advantages -> strategies: positive parts normalized over the legal columns;
# where none is positive, the legal column of highest advantage with probability 1 (Brown et
# al. 2019, section 4): the engine's one regret matching in its greedy form
regret_matching = partial(regret_match, greedy=True)


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax over the legal columns (0 elsewhere)."""
    z = np.where(legal, logits, -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


uniform = uniform_over  # every legal column of each row equally likely


def own_reach(tree, model, policy: np.ndarray) -> np.ndarray:
    """float64[rows]: at each row, the probability that the acting player's own actions
    (under ``policy``) lead to that decision in that private state (perfect recall: a state's
    earlier-round states are ``model.parent``)."""
    offsets = row_offsets(tree, model)
    out = np.zeros(int(offsets[-1]))
    reach: list[list[np.ndarray | None]] = [[None, None] for _ in range(tree.num_nodes)]
    reach[0] = [np.ones(model.num_states[0]), np.ones(model.num_states[0])]
    for n in range(tree.num_nodes):
        mine = reach[n]
        if tree.kind[n] == DECISION:
            d, p = int(tree.decision[n]), int(tree.player[n])
            rows = slice(int(offsets[d]), int(offsets[d + 1]))
            out[rows] = mine[p]
        start = int(tree.first_child[n])
        for c in tree.child[start:start + int(tree.num_children[n])]:
            c = int(c)
            if tree.kind[n] == CHANCE:
                up = np.asarray(model.parent[int(tree.round[c])])
                reach[c] = [mine[0][up], mine[1][up]]
            elif tree.kind[n] == DECISION:
                child = list(mine)
                child[p] = mine[p] * policy[rows, int(tree.action[c])]
                reach[c] = child
        reach[n] = [None, None]  # children hold what they need
    return out


def average_of(tables: list[np.ndarray], weights: list[float], tree, model, legal: np.ndarray) -> np.ndarray:
    """The average strategy of a sequence of strategies: per row,
    sum_t w_t * reach_t * sigma_t / sum_t w_t * reach_t (reach: the acting player's own, under
    sigma_t), uniform where no strategy reaches the row. This is the strategy SD-CFR's
    network-per-hand sampling plays (Steinberger 2019)."""
    num = np.zeros_like(tables[0])
    den = np.zeros(num.shape[0])
    for table, w in zip(tables, weights):
        r = w * own_reach(tree, model, table)
        num += r[:, None] * table
        den += r
    return finish_average(num, den, legal)


def finish_average(num: np.ndarray, den: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """num / den per row; uniform over legal columns where den is 0."""
    ok = den > 0
    out = uniform(legal).copy()
    out[ok] = num[ok] / den[ok, None]
    return np.where(legal, out, 0.0)
