"""Numba kernels of external- and outcome-sampling MCCFR over the public tree arrays.

Plain arrays only (docs/ENGINE.md layouts):

- tree: ``kind`` int8[N], ``player`` int8[N], ``round`` int8[N], ``first_child`` int32[N],
  ``num_children`` int8[N], ``child`` int32[E], ``action`` int8[N], ``spent`` int32[N, 2],
  ``decision`` int32[N], ``legal`` bool[D, A], ``row_offset`` int64[D + 1] (A action columns:
  3 in a limit tree, 2 + raise sizes in a no-limit one);
- deals: ``deal_states`` int32[K, 2, R] (each player's private state per round) and
  ``deal_value`` float64[K] (player 0's showdown result per chip of stake: +1, 0, -1 for
  lossless models); every deal equally likely;
- tables: ``regret`` and ``avg`` float64[rows, A], row = row_offset[d] + state;
- ``rng`` uint64[1]: splitmix64 state, advanced in place (so runs resume bit for bit).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine.kernels import match_row_into as _regret_matching
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30, _U27, _U31, _U11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=NUMBA_CACHE)
def uniform(rng):
    """A double in [0, 1) from splitmix64."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    z = z ^ (z >> _U31)
    return float(z >> _U11) * _INV53


@njit(cache=NUMBA_CACHE)
def sample_action(probs, u, A):
    """Index of the action drawn by u in [0, 1) from probs[:A] (last positive on round-off)."""
    acc = 0.0
    last = -1
    for a in range(A):
        if probs[a] > 0.0:
            acc += probs[a]
            last = a
            if u < acc:
                return a
    return last


@njit(cache=NUMBA_CACHE)
def terminal_value(kind, player, spent, n, traverser, showdown0):
    """Traverser's chips at terminal n (showdown0 = player 0's result per chip of stake)."""
    if kind[n] == FOLD:
        if player[n] == traverser:
            return -float(spent[n, traverser])
        return float(spent[n, 1 - traverser])
    v0 = min(spent[n, 0], spent[n, 1]) * showdown0  # the stake: what both put in
    return v0 if traverser == 0 else -v0


@njit(cache=NUMBA_CACHE)
def subtree_end(first_child, num_children, child, n_nodes):
    """end[n]: one past the last node of n's subtree (preorder numbering)."""
    end = np.empty(n_nodes, np.int64)
    for n in range(n_nodes - 1, -1, -1):
        e = n + 1
        for j in range(num_children[n]):
            c = child[first_child[n] + j]
            e = max(e, end[c])
        end[n] = e
    return end


@njit(cache=NUMBA_CACHE, inline="always")
def walk_on(n, count, kind, first_child, child, end, active, visited):
    """The forward pass of an external-sampling walk (MCCFR's and Deep CFR's) from node n on,
    in preorder: the nodes of the sampled part (``active``; the others are skipped with their
    subtrees) are appended to ``visited[count:]`` and a chance node opens its one child (the
    deal is drawn already); stops at the next decision node, whose children the caller opens
    (all of the traverser's, one drawn action of another player's). Returns (that node, or
    the number of nodes at the end; the new count)."""
    n_nodes = kind.shape[0]
    while n < n_nodes:
        if not active[n]:
            n = end[n]
            continue
        visited[count] = n
        count += 1
        if kind[n] == DECISION:
            return n, count
        if kind[n] == CHANCE:
            active[child[first_child[n]]] = True
        n += 1
    return n, count


@njit(cache=NUMBA_CACHE, inline="always")
def es_values(visited, count, traverser, showdown0, sigma, tree, sampled, value, mine, regret,
              row_offset, states):
    """The backward pass of an external-sampling walk (MCCFR's and Deep CFR's): value[n] for
    the traverser of each of the ``count`` nodes listed in ``visited`` (the walk's sampled
    part, in preorder), deepest first: a terminal's (``terminal_value``), a chance node's
    child's, another player's sampled child's (``sampled[n]``), and at the traverser's
    decisions the children's values weighted by ``sigma[n]`` (its strategy over the action
    columns). Given a ``regret`` table (rows; MCCFR), the traverser's sampled regrets
    v(a) - v are added to it there, in the same pass (row ``row_offset[d] + states[traverser,
    round]``); without one (zero rows: Deep CFR), those decisions are listed in ``mine``,
    deepest first, for the caller. Returns how many are listed."""
    (kind, player, rnd, first_child, num_children, child, action, spent, decision, _legal,
     _next_node) = tree
    m = 0
    for i in range(count - 1, -1, -1):
        n = visited[i]
        kd = kind[n]
        if kd == FOLD or kd == SHOWDOWN:
            value[n] = terminal_value(kind, player, spent, n, traverser, showdown0)
        elif kd == CHANCE:
            value[n] = value[child[first_child[n]]]
        elif player[n] != traverser:
            value[n] = value[sampled[n]]
        else:
            f = first_child[n]
            v = 0.0
            for j in range(num_children[n]):
                c = child[f + j]
                v += sigma[n, action[c]] * value[c]
            value[n] = v
            if regret.shape[0] > 0:
                row = row_offset[decision[n]] + states[traverser, rnd[n]]
                for j in range(num_children[n]):
                    c = child[f + j]
                    regret[row, action[c]] += value[c] - v
            else:
                mine[m] = n
                m += 1
    return m


@njit(cache=NUMBA_CACHE)
def es_iterations(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations):
    """External sampling on a limit tree (three action columns); ``_es`` says how."""
    _es(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, False)


@njit(cache=NUMBA_CACHE)
def es_wide_iterations(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations):
    """External sampling on a no-limit tree (more than three action columns)."""
    _es(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, True)


@njit(cache=NUMBA_CACHE, inline="always")
def _es(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, wide):
    """External sampling (Lanctot 2009): per iteration, one traversal per player, each with a
    freshly sampled deal; the opponent's actions are sampled from its current strategy, the
    traverser's all explored. Regrets: r(I, a) += v(a) - v(sigma) (the sampling probabilities
    of chance and the opponent cancel their reach; the values: ``es_values``). Average: at the
    opponent's information sets, avg += sigma (an unbiased estimate of reach-weighted
    averaging). The children of a decision are opened here, not in a call per node: that call
    (``open_children`` of Deep CFR's traversals) costs this walk half again its time."""
    (kind, player, rnd, first_child, num_children, child, action, _spent, decision, legal,
     _next_node) = tree
    n_nodes = kind.shape[0]
    end = subtree_end(first_child, num_children, child, n_nodes)
    n_deals = deal_states.shape[0]
    active = np.zeros(n_nodes, np.bool_)
    sampled = np.full(n_nodes, -1, np.int64)
    A = legal.shape[1] if wide else 3  # a constant in the limit kernel
    sigma = np.zeros((n_nodes, A))
    value = np.zeros(n_nodes)
    visited = np.empty(n_nodes, np.int64)
    mine = np.empty(n_nodes, np.int64)
    for _ in range(iterations):
        for traverser in range(2):
            k = int(uniform(rng) * n_deals)
            states = deal_states[k]
            showdown0 = deal_value[k]
            active[0] = True
            n, count = walk_on(0, 0, kind, first_child, child, end, active, visited)
            while n < n_nodes:
                d = decision[n]
                p = player[n]
                row = row_offset[d] + states[p, rnd[n]]
                _regret_matching(regret, row, legal[d], sigma[n], A)
                f = first_child[n]
                if p == traverser:
                    for j in range(num_children[n]):
                        active[child[f + j]] = True
                else:
                    a = sample_action(sigma[n], uniform(rng), A)
                    for j in range(num_children[n]):
                        c = child[f + j]
                        active[c] = action[c] == a
                        if action[c] == a:
                            sampled[n] = c
                    for b in range(A):
                        avg[row, b] += sigma[n, b]
                n, count = walk_on(n + 1, count, kind, first_child, child, end, active, visited)
            es_values(visited, count, traverser, showdown0, sigma, tree, sampled, value, mine, regret,
                      row_offset, states)


@njit(cache=NUMBA_CACHE)
def os_iterations(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, epsilon):
    """Outcome sampling on a limit tree (three action columns); ``_os`` says how."""
    _os(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, epsilon, False)


@njit(cache=NUMBA_CACHE)
def os_wide_iterations(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, epsilon):
    """Outcome sampling on a no-limit tree (more than three action columns)."""
    _os(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, epsilon, True)


@njit(cache=NUMBA_CACHE, inline="always")
def _os(tree, row_offset, deal_states, deal_value, regret, avg, rng, iterations, epsilon, wide):
    """Outcome sampling (Lanctot 2009), one sampled trajectory per player per iteration.

    The traverser samples from epsilon * uniform(legal) + (1 - epsilon) * sigma, the opponent
    from sigma. Walking back up, with W = opponent reach / sampling reach at the node and
    x = (value returned by the child) / q(sampled action):
    regret(a) += W * ([a sampled] * x - sigma(sampled) * x); the returned value is
    sigma(sampled) * x. Average (at the traverser's nodes): avg += own reach * sigma /
    sampling reach. Chance is sampled at its own probabilities, which cancel.
    """
    (kind, player, rnd, first_child, num_children, child, action, spent, decision, legal,
     _next_node) = tree
    n_deals = deal_states.shape[0]
    max_depth = kind.shape[0]
    path = np.empty(max_depth, np.int64)
    path_action = np.empty(max_depth, np.int64)
    A = legal.shape[1] if wide else 3  # a constant in the limit kernel
    path_sigma = np.zeros((max_depth, A))
    path_q = np.empty(max_depth)
    path_my = np.empty(max_depth)
    path_opp = np.empty(max_depth)
    path_sample = np.empty(max_depth)
    q = np.zeros(A)
    for _ in range(iterations):
        for traverser in range(2):
            k = int(uniform(rng) * n_deals)
            states = deal_states[k]
            my_reach, opp_reach, sample_reach = 1.0, 1.0, 1.0
            depth = 0
            n = 0
            while kind[n] == DECISION or kind[n] == CHANCE:
                if kind[n] == CHANCE:
                    n = child[first_child[n]]
                    continue
                d = decision[n]
                p = player[n]
                row = row_offset[d] + states[p, rnd[n]]
                sig = path_sigma[depth]
                _regret_matching(regret, row, legal[d], sig, A)
                if p == traverser:
                    n_legal = 0
                    for a in range(A):
                        if legal[d, a]:
                            n_legal += 1
                    for a in range(A):
                        q[a] = epsilon / n_legal + (1.0 - epsilon) * sig[a] if legal[d, a] else 0.0
                else:
                    for a in range(A):
                        q[a] = sig[a]
                a = sample_action(q, uniform(rng), A)
                path[depth] = n
                path_action[depth] = a
                path_q[depth] = q[a]
                path_my[depth] = my_reach
                path_opp[depth] = opp_reach
                path_sample[depth] = sample_reach
                depth += 1
                if p == traverser:
                    my_reach *= sig[a]
                else:
                    opp_reach *= sig[a]
                sample_reach *= q[a]
                f = first_child[n]
                for j in range(num_children[n]):
                    c = child[f + j]
                    if action[c] == a:
                        n = c
                        break
            value = terminal_value(kind, player, spent, n, traverser, deal_value[k])
            for i in range(depth - 1, -1, -1):
                n = path[i]
                a = path_action[i]
                sig = path_sigma[i]
                x = value / path_q[i]
                value = sig[a] * x
                if player[n] == traverser:
                    d = decision[n]
                    row = row_offset[d] + states[traverser, rnd[n]]
                    w = path_opp[i] / path_sample[i]
                    for b in range(A):
                        if legal[d, b]:
                            regret[row, b] -= w * value
                    regret[row, a] += w * x
                    g = path_my[i] / path_sample[i]
                    for b in range(A):
                        avg[row, b] += g * sig[b]
