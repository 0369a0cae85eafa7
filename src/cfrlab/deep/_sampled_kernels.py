"""Numba kernel of Deep CFR's traversals on real dealt cards, the networks evaluated in place
(games too large to tabulate: HULHE). Plain arrays only:

- ``tree``: the ``TreeArrays`` bundle; ``end`` int64[N] (``_traverse_kernels.subtree_end``);
- ``deal`` = (``deals`` int64[K, 2h + B]: player 0's hole cards, player 1's, the whole board
  in ACPC order; ``showdown0`` float64[K]: player 0's showdown result per chip, +1, 0 or -1;
  ``before`` int64[R]: board cards visible in each round);
- ``nets`` = (``hw`` float64[2, D, H]: each player's network's first layer on each decision
  node's head features, bias included; ``w1`` float64[2, F, H] the first layer's weights (the
  card entries are added per deal); ``wh`` float64[2, L, H, H], ``bh`` float64[2, L, H] the
  hidden layers; ``wo`` float64[2, H, A], ``bo`` float64[2, A] the output layer; ``has_net``
  bool[2]: False plays uniformly (before the first network));
- ``lay`` = (``pos`` int64[52], ``at``, ``D``, ``K``, ``top``): the card entries of the
  features (``cfrlab.deep.features.CardLayout``);
- a buffer is (``dec`` int32[cap], ``cards`` int8[cap, h + B] (the player's hole cards and the
  board it sees, -1 padded), ``target`` float32[cap, A], ``weight`` float32[cap], ``seen``
  int64[1]).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cfrlab.config import NUMBA_CACHE
from cfrlab.deep._traverse_kernels import _open_children, _slot
from cfrlab.solvers.kernels import es_values, walk_on


@njit(cache=NUMBA_CACHE)
def _card_rows(nets, lay, deal_cards, h, before, cw):
    """cw[q, r, :]: the first-layer sum of player q's card entries in round r."""
    w1 = nets[1]
    pos, at, D, K, top = lay
    B = deal_cards.shape[0] - 2 * h
    Hd = cw.shape[2]
    cw[:] = 0.0
    for q in range(2):
        for r in range(before.shape[0]):
            for i in range(h):
                c = deal_cards[q * h + i]
                for j in range(Hd):
                    cw[q, r, j] += w1[q, at + pos[c], j] + w1[q, at + D + c // 4 - top, j]
            pairs = 0
            for b in range(min(before[r], B)):
                c = deal_cards[2 * h + b]
                for j in range(Hd):
                    cw[q, r, j] += w1[q, at + D + K + pos[c], j] + w1[q, at + 2 * D + K + c // 4 - top, j]
                for i in range(h):
                    if deal_cards[q * h + i] // 4 == c // 4:
                        pairs += 1
            if pairs:
                for j in range(Hd):
                    cw[q, r, j] += pairs * w1[q, at + 2 * (D + K), j]


@njit(cache=NUMBA_CACHE)
def _strategy(nets, q, d, r, cw, legal_row, out, h1, h2):
    """Player q's regret-matched strategy at decision d (round r) into out[:A]."""
    hw, _w1, wh, bh, wo, bo, has_net = nets
    A = out.shape[0]
    if not has_net[q]:
        m = 0.0
        for a in range(A):
            m += 1.0 if legal_row[a] else 0.0
        for a in range(A):
            out[a] = (1.0 if legal_row[a] else 0.0) / m
        return
    Hd = hw.shape[2]
    for j in range(Hd):
        h1[j] = max(hw[q, d, j] + cw[q, r, j], 0.0)
    for layer in range(wh.shape[1]):
        for j in range(Hd):
            s = bh[q, layer, j]
            for i in range(Hd):
                s += h1[i] * wh[q, layer, i, j]
            h2[j] = max(s, 0.0)
        for j in range(Hd):
            h1[j] = h2[j]
    total = 0.0
    best, best_v = -1, -np.inf
    for a in range(A):
        s = bo[q, a]
        for i in range(Hd):
            s += h1[i] * wo[q, i, a]
        out[a] = max(s, 0.0) if legal_row[a] else 0.0
        total += out[a]
        if legal_row[a] and s > best_v:
            best, best_v = a, s
    for a in range(A):
        if total > 0.0:
            out[a] = out[a] / total
        else:
            out[a] = 1.0 if a == best else 0.0


@njit(cache=NUMBA_CACHE)
def _store(buf, rng, d, cards_row, target_row, weight):
    dec, cards, target, wgt, seen = buf
    i = _slot(seen, dec.shape[0], rng)
    if i >= 0:
        dec[i] = d
        for j in range(cards.shape[1]):
            cards[i, j] = cards_row[j]
        for a in range(target.shape[1]):
            target[i, a] = target_row[a]
        wgt[i] = weight


@njit(cache=NUMBA_CACHE)
def traverse_sampled(tree, end, deal, nets, lay, traverser, weight, scale, adv, strat, record_strategy, rng):
    """One external-sampling traversal for ``traverser`` per deal of ``deal`` (as
    ``_traverse_kernels.traverse``, the strategies computed by the networks at the nodes
    visited): sampled regrets of the traverser's nodes to ``adv``, with ``record_strategy``
    the opponent's strategies to ``strat``; every item weighted by ``weight``."""
    (kind, player, rnd, first_child, num_children, child, action, _spent, decision, legal,
     _next_node) = tree
    deals, showdown0, before = deal
    hw = nets[0]
    n_nodes = kind.shape[0]
    A = legal.shape[1]
    Hd = hw.shape[2]
    C = adv[1].shape[1]
    h = deals.shape[1] - C  # 2h + B - (h + B) = h
    B = C - h
    R = before.shape[0]
    cw = np.zeros((2, R, Hd))
    h1 = np.zeros(Hd)
    h2 = np.zeros(Hd)
    sigma = np.zeros((n_nodes, A))
    active = np.zeros(n_nodes, np.bool_)
    sampled = np.full(n_nodes, -1, np.int64)
    value = np.zeros(n_nodes)
    visited = np.empty(n_nodes, np.int64)
    mine = np.empty(n_nodes, np.int64)
    no_regret = np.zeros((0, 3))  # es_values then lists the traverser's decisions in mine
    seen_cards = np.full((2, R, C), -1, np.int8)
    regrets = np.zeros(A)
    for k in range(deals.shape[0]):
        cards = deals[k]
        _card_rows(nets, lay, cards, h, before, cw)
        for q in range(2):
            for r in range(R):
                for i in range(h):
                    seen_cards[q, r, i] = cards[q * h + i]
                for b in range(B):
                    seen_cards[q, r, h + b] = cards[2 * h + b] if b < before[r] else -1
        active[:] = False
        active[0] = True
        n, count = walk_on(0, 0, kind, first_child, child, end, active, visited)
        while n < n_nodes:
            p = player[n]
            d = decision[n]
            _strategy(nets, p, d, rnd[n], cw, legal[d], sigma[n], h1, h2)
            sampled[n] = _open_children(n, p == traverser, sigma[n], rng, first_child, num_children, child, action,
                                        active, A)
            if p != traverser and record_strategy:
                _store(strat, rng, d, seen_cards[p, rnd[n]], sigma[n], weight)
            n, count = walk_on(n + 1, count, kind, first_child, child, end, active, visited)
        for i in range(es_values(visited, count, traverser, showdown0[k], sigma, tree, sampled, value, mine,
                                  no_regret, mine, mine[:0].reshape(0, 0))):
            n = mine[i]  # the traverser's decisions, deepest first
            regrets[:] = 0.0
            f = first_child[n]
            for j in range(num_children[n]):
                c = child[f + j]
                regrets[action[c]] = (value[c] - value[n]) / scale
            _store(adv, rng, decision[n], seen_cards[traverser, rnd[n]], regrets, weight)
