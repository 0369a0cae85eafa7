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
from cfrlab.solvers.kernels import es_values, walk_on
from cfrlab.solvers.kernels import sample_action as _sample
from cfrlab.solvers.kernels import subtree_end as _subtree_end
from cfrlab.solvers.kernels import uniform as _uniform


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
    (kind, player, rnd, first_child, num_children, child, action, _spent, decision, legal,
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
    sigma = np.zeros((n_nodes, A))
    value = np.zeros(n_nodes)
    visited = np.empty(n_nodes, np.int64)
    mine = np.empty(n_nodes, np.int64)
    no_regret = np.zeros((0, 3))  # es_values then lists the traverser's decisions in mine
    for _ in range(traversals):
        k = int(_uniform(rng) * n_deals)
        states = deal_states[k]
        active[0] = True
        n, count = walk_on(0, 0, kind, first_child, child, end, active, visited)
        while n < n_nodes:
            p = player[n]
            row = row_offset[decision[n]] + states[p, rnd[n]]
            for b in range(A):
                sigma[n, b] = policy[row, b]
            sampled[n] = _open_children(n, p == traverser, sigma[n], rng, first_child, num_children, child, action,
                                        active, A)
            if p != traverser and record_strategy:
                i = _slot(st_seen, st_rows.shape[0], rng)
                if i >= 0:
                    st_rows[i] = row
                    st_weight[i] = weight
                    for b in range(A):
                        st_target[i, b] = sigma[n, b]
            n, count = walk_on(n + 1, count, kind, first_child, child, end, active, visited)
        for i in range(es_values(visited, count, traverser, deal_value[k], sigma, tree, sampled, value, mine,
                                  no_regret, row_offset, states)):
            n = mine[i]  # the traverser's decisions, deepest first
            s = _slot(adv_seen, adv_rows.shape[0], rng)
            if s >= 0:
                adv_rows[s] = row_offset[decision[n]] + states[traverser, rnd[n]]
                adv_weight[s] = weight
                for b in range(A):
                    adv_target[s, b] = 0.0
                f = first_child[n]
                for j in range(num_children[n]):
                    c = child[f + j]
                    adv_target[s, action[c]] = (value[c] - value[n]) / scale
