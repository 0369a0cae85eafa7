"""Numba kernels of Monte Carlo CFR for N players on the public tree (Lanctot, Waugh, Zinkevich
and Bowling, "Monte Carlo sampling for regret minimization in extensive games", NIPS 2009).

Both sample one deal (a final-round prefix of ``cfrlab.abstraction.deals``: every player's hole
cards and the whole board; all equally likely) and walk the tree's enter / leave events
(``PublicTree.events``) with scalars per depth instead of the full-width walk's vectors over deals:

- chance sampling (``cs_walk``): every public node, every player's reach; a terminal gives
  player p its payoff times the others' reach (chance's probability is the sampling
  probability: it cancels). All players' regrets and averages are updated at once, as the
  full-width ``cfr`` does. Each row is visited at most once per deal, so a row's strategy is
  regret-matched from ``regret_in`` when its node is entered.
- external sampling (``es_traverse``): one traverser i; its actions are all explored, every
  other player's action is sampled from its current strategy, and a node's value is i's payoff
  (the others' reach and chance cancel with their sampling probabilities). Regrets of i:
  ``v(a) - v``. Average strategy: at another player j's node, ``sigma_j`` weighted by
  ``1 / prod_{k != i, j} reach_k``, the sampled reach of the players that are neither the
  traverser nor j: the node is visited with probability ``pi_c pi_j prod_k pi_k``, so the
  expected update is ``pi_c(h) pi_j(I) sigma_j(I)`` (j's own reach, chance a constant per row),
  the full-width average's weight. With two players the weight is 1: the 2-player rule.

In expectation over the deal (and the sampled actions), one walk's regret increments equal the
full-width walk's counterfactual regrets (``cfrlab.engine._nplayer_kernels.walk``, which weights
deals by their probability): tests/test_multiplayer_mccfr.py checks it.

Arrays: ``T`` TreeArrays and ``D`` DealArrays as in ``cfrlab.engine._nplayer_kernels``; ``skip``
int64[N]: the events index just past node n's leave event (a sampled-out subtree is jumped
over); ``regret_in`` is read for the strategies, ``regret_out`` / ``avg`` receive the updates
(the same array as ``regret_in`` in a run; separate in the tests, which keep the strategy
fixed); ``rng`` uint64[1] the splitmix64 state of ``cfrlab.solvers._mccfr_kernels``, advanced in
place, so runs are reproducible and ``iterate(a); iterate(b)`` equals ``iterate(a + b)``.
``S`` SampleBuffers: scratch sized by the tree's depth and the number of players.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import kernels as EK
from cfrlab.engine.kernels import match_row_into
from cfrlab.solvers._mccfr_kernels import sample_action as _sample
from cfrlab.solvers._mccfr_kernels import uniform as _uniform
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN

SampleBuffers = namedtuple("SampleBuffers", "reach val sig pick xr st pay")


def make_buffers(max_depth: int, num_players: int, num_rounds: int) -> SampleBuffers:
    k = max_depth + 1
    return SampleBuffers(np.zeros((k, num_players)), np.zeros((k, 3, num_players)), np.zeros((k, 3)),
                         np.zeros(k, np.int64), np.zeros(num_rounds, np.int64),
                         np.zeros((num_players, num_rounds), np.int64), np.zeros(num_players))


@njit(cache=NUMBA_CACHE)
def skip_table(events, n_nodes):
    """skip[n]: the index in ``events`` just past n's leave event."""
    skip = np.zeros(n_nodes, np.int64)
    for pos in range(events.shape[0]):
        e = events[pos]
        if e < 0:
            skip[-e - 1] = pos + 1
    return skip


@njit(cache=NUMBA_CACHE)
def _set_deal(D, xl, S):
    """The deal ``xl`` (a final-round prefix): its prefix per round and each player's state per round."""
    pre_off, state, ppar, _strength = D
    R = pre_off.shape[0] - 1
    P = state.shape[0]
    xr, st = S.xr, S.st
    xr[R - 1] = xl
    for r in range(R - 1, 0, -1):
        xr[r - 1] = ppar[pre_off[r] + xr[r]]
    for r in range(R):
        for p in range(P):
            st[p, r] = state[p, pre_off[r] + xr[r]]


@njit(cache=NUMBA_CACHE, inline="always")
def _enter_reach(T, n, k, reach, sig):
    """reach[k] of node n (at depth k) from its parent's: 1 at the root; below a decision,
    the acting player's times the probability ``sig[k - 1]`` gave the action."""
    q = T.parent[n]
    P = reach.shape[1]
    if q < 0:
        for p in range(P):
            reach[k, p] = 1.0
        return
    for p in range(P):
        reach[k, p] = reach[k - 1, p]
    if T.kind[q] == DECISION:
        reach[k, T.player[q]] *= sig[k - 1, T.action[n]]


@njit(cache=NUMBA_CACHE, inline="always")
def _update_regrets(legal_d, sig_k, val, k, p, regret_out, row):
    """The acting player p's value at depth k (``sig_k`` its strategy, children's values in
    ``val[k, a, p]``); each legal action's ``v(a) - v`` added to ``regret_out[row]``."""
    v = 0.0
    for a in range(3):
        if legal_d[a]:
            v += sig_k[a] * val[k, a, p]
    for a in range(3):
        if legal_d[a]:
            regret_out[row, a] += val[k, a, p] - v
    return v


@njit(cache=NUMBA_CACHE)
def cs_walk(T, D, skip, xl, regret_in, regret_out, avg, S):
    """One chance-sampled CFR walk of the whole public tree for the deal ``xl``: regrets and
    average sums of every player (simultaneous updates). Returns nothing; ``S.val[0, 0, p]``
    holds p's sampled value of the profile."""
    kind, player, rnd, _parent, depth, action, decision, spent, folded, legal, events, off = T
    reach, val, sig, _pick, _xr, st, pay = S
    P = reach.shape[1]
    _set_deal(D, xl, S)
    for pos in range(events.shape[0]):
        e = events[pos]
        if e >= 0:
            n = e
            k = depth[n]
            _enter_reach(T, n, k, reach, sig)
            if kind[n] == DECISION:
                d = decision[n]
                i = player[n]
                match_row_into(regret_in, off[d] + st[i, rnd[n]], legal[d], sig[k], 3)
            continue
        n = -e - 1
        k = depth[n]
        slot = action[n]
        kd = kind[n]
        if kd == FOLD or kd == SHOWDOWN:
            EK.nplayer_terminal_payoffs(kind, spent, folded, n, D.strength, xl, pay)
            for p in range(P):
                o = pay[p]
                for j in range(P):
                    if j != p:
                        o *= reach[k, j]
                val[k - 1, slot, p] = o
        elif kd == CHANCE:
            for p in range(P):
                val[k - 1, slot, p] = val[k, 0, p]
        else:
            d = decision[n]
            i = player[n]
            row = off[d] + st[i, rnd[n]]
            for p in range(P):
                v = 0.0
                if p == i:
                    v = _update_regrets(legal[d], sig[k], val, k, p, regret_out, row)
                    for a in range(3):
                        if legal[d, a]:
                            avg[row, a] += reach[k, i] * sig[k, a]
                else:
                    for a in range(3):
                        if legal[d, a]:
                            v += val[k, a, p]
                val[k - 1, slot, p] = v


@njit(cache=NUMBA_CACHE)
def es_traverse(T, D, skip, xl, i, regret_in, regret_out, avg, rng, S):
    """One external-sampling traversal for player ``i`` on the deal ``xl``; returns i's sampled value."""
    kind, player, rnd, parent, depth, action, decision, spent, folded, legal, events, off = T
    reach, val, sig, pick, _xr, st, pay = S
    P = reach.shape[1]
    _set_deal(D, xl, S)
    pos = 0
    ne = events.shape[0]
    while pos < ne:
        e = events[pos]
        pos += 1
        if e >= 0:
            n = e
            k = depth[n]
            q = parent[n]
            if q >= 0 and kind[q] == DECISION and player[q] != i and action[n] != pick[k - 1]:
                pos = skip[n]  # another player's action that was not sampled
                continue
            _enter_reach(T, n, k, reach, sig)
            if kind[n] == DECISION:
                d = decision[n]
                j = player[n]
                row = off[d] + st[j, rnd[n]]
                match_row_into(regret_in, row, legal[d], sig[k], 3)
                if j != i:
                    pick[k] = _sample(sig[k], _uniform(rng), 3)  # limit trees: three columns
                    w = 1.0
                    for p in range(P):
                        if p != i and p != j:
                            w /= reach[k, p]
                    for a in range(3):
                        if legal[d, a]:
                            avg[row, a] += w * sig[k, a]
            continue
        n = -e - 1
        k = depth[n]
        slot = action[n]
        kd = kind[n]
        if kd == FOLD or kd == SHOWDOWN:
            EK.nplayer_terminal_payoffs(kind, spent, folded, n, D.strength, xl, pay)
            val[k - 1, slot, 0] = pay[i]
        elif kd == CHANCE:
            val[k - 1, slot, 0] = val[k, 0, 0]
        elif player[n] != i:
            val[k - 1, slot, 0] = val[k, pick[k], 0]
        else:
            d = decision[n]
            row = off[d] + st[i, rnd[n]]
            val[k - 1, slot, 0] = _update_regrets(legal[d], sig[k], val, k, 0, regret_out, row)
    return val[0, 0, 0]


@njit(cache=NUMBA_CACHE)
def _draw_deal(D, rng):
    pre_off = D.pre_off
    R = pre_off.shape[0] - 1
    m = pre_off[R] - pre_off[R - 1]
    x = int(_uniform(rng) * m)
    return x if x < m else m - 1


@njit(cache=NUMBA_CACHE)
def cs_iterations(T, D, skip, n_iter, regret, avg, rng, S):
    """``n_iter`` iterations of chance-sampled CFR: one deal each, every player updated."""
    for _ in range(n_iter):
        cs_walk(T, D, skip, _draw_deal(D, rng), regret, regret, avg, S)


@njit(cache=NUMBA_CACHE)
def es_iterations(T, D, skip, n_iter, regret, avg, rng, S):
    """``n_iter`` iterations of external sampling: per iteration one traversal per player
    (0, 1, ..., each on a freshly drawn deal, against the others' newest regrets)."""
    P = S.reach.shape[1]
    for _ in range(n_iter):
        for i in range(P):
            es_traverse(T, D, skip, _draw_deal(D, rng), i, regret, regret, avg, rng, S)


@njit(cache=NUMBA_CACHE)
def es_fixed(T, D, skip, n_trav, i, regret_in, regret_out, avg, rng, S):
    """``n_trav`` traversals for player ``i`` against the fixed profile regret-matched from
    ``regret_in`` (updates summed into ``regret_out`` and ``avg``): sampled estimates of one
    iteration's regrets, for checking that their mean is the full-width counterfactual regret."""
    for _ in range(n_trav):
        es_traverse(T, D, skip, _draw_deal(D, rng), i, regret_in, regret_out, avg, rng, S)
