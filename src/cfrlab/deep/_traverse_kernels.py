"""Numba kernels of Deep CFR's external-sampling traversals and reservoir buffers.

Plain arrays only (docs/ENGINE.md layouts, as ``cfrlab.solvers`` MCCFR reads them):

- ``tree``: the ``TreeArrays`` bundle (``cfrlab.tree.arrays.compile_tree``);
- ``row_offset`` int64[D + 1]; ``deal_states`` int32[K, 2, R] and ``deal_value`` float64[K]
  (``cfrlab.solvers.mccfr.deal_tables``: every deal equally likely);
- ``policy`` float64[rows, A]: the strategy both players follow this iteration (the networks'
  outputs on every row, regret-matched: the traversal needs no network call);
- a buffer is (``rows`` int32[cap], ``target`` float32[cap, A], ``weight`` float32[cap],
  ``seen`` int64[1]): reservoir sampling keeps a uniform sample of everything offered;
- ``rng`` uint64[1]: splitmix64 state, advanced in place.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.solvers.kernels import sample_action as _sample
from cfrlab.solvers.kernels import subtree_end as _subtree_end
from cfrlab.solvers.kernels import terminal_value as _terminal_value
from cfrlab.solvers.kernels import uniform as _uniform
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN


@njit(cache=NUMBA_CACHE)
def _slot(seen, cap, rng):
    """Reservoir sampling: where the next item goes (-1: dropped)."""
    s = seen[0]
    seen[0] = s + 1
    if s < cap:
        return s
    j = int(_uniform(rng) * (s + 1))
    return j if j < cap else -1


@njit(cache=NUMBA_CACHE)
def _open_children(n, explore, probs, rng, first_child, num_children, child, action, active, A):
    """Mark the children of decision n to walk: every one (``explore``, the traverser's node) or
    the one whose action is drawn from probs[:A]; returns the drawn child (-1 when exploring)."""
    f = first_child[n]
    if explore:
        for j in range(num_children[n]):
            active[child[f + j]] = True
        return -1
    a = _sample(probs, _uniform(rng), A)
    drawn = -1
    for j in range(num_children[n]):
        c = child[f + j]
        active[c] = action[c] == a
        if action[c] == a:
            drawn = c
    return drawn


@njit(cache=NUMBA_CACHE)
def _mixed_value(n, probs, value, first_child, num_children, child, action):
    """The value of decision n under probs: the children's values weighted by their actions'."""
    f = first_child[n]
    v = 0.0
    for j in range(num_children[n]):
        c = child[f + j]
        v += probs[action[c]] * value[c]
    return v


def subtree_end(first_child, num_children, child):
    """end[n]: one past the last node of n's subtree (preorder numbering)."""
    return _subtree_end(first_child, num_children, child, first_child.shape[0])


@njit(cache=NUMBA_CACHE)
def traverse(tree, end, row_offset, deals, policy, traverser, traversals, weight, scale, memories,
             record_strategy, rng):
    """``traversals`` external-sampling traversals for ``traverser`` (Lanctot 2009, as Deep CFR
    runs them): each on a fresh deal, the opponent's actions sampled from ``policy``, every
    traverser action explored. At each traverser row the sampled regrets v(a) - v(sigma) (over
    ``scale``: the networks learn numbers near 1) go to the advantage buffer ``adv``; with
    ``record_strategy``, each opponent row's ``policy`` goes to the strategy buffer ``strat``
    (Deep CFR's average-strategy memory). Every item carries ``weight`` (the iteration: linear
    CFR weighting). ``deals`` is (states, showdown values) per deal; ``memories`` is (adv, strat),
    each a (rows, target, weight, seen) tuple."""
    (kind, player, rnd, first_child, num_children, child, action, spent, decision, legal,
     _next_node) = tree
    deal_states, deal_value = deals
    adv, strat = memories
    adv_rows, adv_target, adv_weight, adv_seen = adv
    st_rows, st_target, st_weight, st_seen = strat
    n_nodes = kind.shape[0]
    n_deals = deal_states.shape[0]
    A = legal.shape[1]
    active = np.zeros(n_nodes, np.bool_)
    sampled = np.full(n_nodes, -1, np.int64)
    value = np.zeros(n_nodes)
    visited = np.empty(n_nodes, np.int64)
    for _ in range(traversals):
        k = int(_uniform(rng) * n_deals)
        states = deal_states[k]
        showdown0 = deal_value[k]
        count = 0
        active[0] = True
        n = 0
        while n < n_nodes:  # forward, preorder: mark the sampled part of the tree
            if not active[n]:
                n = end[n]
                continue
            visited[count] = n
            count += 1
            if kind[n] == DECISION:
                p = player[n]
                row = row_offset[decision[n]] + states[p, rnd[n]]
                sampled[n] = _open_children(n, p == traverser, policy[row], rng, first_child, num_children,
                                            child, action, active, A)
                if p != traverser and record_strategy:
                    i = _slot(st_seen, st_rows.shape[0], rng)
                    if i >= 0:
                        st_rows[i] = row
                        st_weight[i] = weight
                        for b in range(A):
                            st_target[i, b] = policy[row, b]
            elif kind[n] == CHANCE:
                active[child[first_child[n]]] = True
            n += 1
        for i in range(count - 1, -1, -1):  # backward over the visited nodes
            n = visited[i]
            kd = kind[n]
            if kd == FOLD or kd == SHOWDOWN:
                value[n] = _terminal_value(kind, player, spent, n, traverser, showdown0)
            elif kd == CHANCE:
                value[n] = value[child[first_child[n]]]
            elif player[n] != traverser:
                value[n] = value[sampled[n]]
            else:
                row = row_offset[decision[n]] + states[traverser, rnd[n]]
                f = first_child[n]
                v = _mixed_value(n, policy[row], value, first_child, num_children, child, action)
                value[n] = v
                s = _slot(adv_seen, adv_rows.shape[0], rng)
                if s >= 0:
                    adv_rows[s] = row
                    adv_weight[s] = weight
                    for b in range(A):
                        adv_target[s, b] = 0.0
                    for j in range(num_children[n]):
                        c = child[f + j]
                        adv_target[s, action[c]] = (value[c] - v) / scale
