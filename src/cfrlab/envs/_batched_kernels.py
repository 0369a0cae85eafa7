"""Kernels of the batched environment: many hands walking the public tree at once.

Arguments travel in named bundles, built once by ``cfrlab.envs.batched``:

- ``EnvTree``: the game's public tree and the tables built from it: ``kind``, ``player``,
  ``rnd``, ``next_node`` and ``decision`` from ``compile_tree``; ``spent`` [N, P] and
  ``folded`` [N, P]; ``id_col`` [D, A] the tree column each action id plays at a decision (-1:
  illegal); ``public`` [N, K] the public part of the observation at each node; ``root`` the
  node where every hand starts.
- ``CardLayout``: where a deal's cards sit and where they go in an observation:
  ``card_index`` (card id -> index in the deck, -1 if absent), ``board_at`` [R + 1] (the
  deal position of each round's first board card), ``board_block`` [R] (the observation's
  board block of each round's cards, -1: none), ``num_hole`` cards per position and
  ``public_offset`` (where the public part starts).
- ``Hands``: the state of every hand: its ``node``, ``deals`` (card ids in the dealer's
  order), ``strength`` (each position's showdown rank on the full board), its ``deck``
  (``decks``, shuffled in place as cards are drawn), its random ``rng`` state (splitmix64,
  one stream per hand, so a seed fixes every hand whatever the batch does), and a shared
  ``scratch`` row for ranking one position's cards.
- ``Views``: what each hand shows: its observation ``obs`` [n, size], legal ``mask``
  [n, A] and player ``to_act`` [n].
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.cards.kernels import rank_cards
from cfrlab.config import NUMBA_CACHE
from cfrlab.tree import CHANCE, DECISION

EnvTree = namedtuple("EnvTree", "kind player rnd next_node decision spent folded id_col public root")
CardLayout = namedtuple("CardLayout", "card_index board_at board_block num_hole public_offset")
Hands = namedtuple("Hands", "node deals strength decks rng scratch")
Views = namedtuple("Views", "obs mask to_act")


@njit(cache=NUMBA_CACHE)
def next_random(rng, i):
    """The next 64-bit draw of stream ``i`` (splitmix64)."""
    z = rng[i] + np.uint64(0x9E3779B97F4A7C15)
    rng[i] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=NUMBA_CACHE)
def below(rng, i, n):
    """A draw in 0..n-1 of stream ``i`` (bias below 2**-50 for the n used here)."""
    return np.int64(next_random(rng, i) % np.uint64(n))


@njit(cache=NUMBA_CACHE)
def deal_hand(i, hands, num_hole):
    """Draw hand i's cards (a partial Fisher-Yates shuffle of its deck) and rank each
    position's hole cards with the whole board."""
    rng, decks, deals, strength, scratch = hands.rng, hands.decks, hands.deals, hands.strength, hands.scratch
    num_players = strength.shape[1]
    n = decks.shape[1]
    m = deals.shape[1]
    for k in range(m):
        j = k + below(rng, i, n - k)
        c = decks[i, j]
        decks[i, j] = decks[i, k]
        decks[i, k] = c
        deals[i, k] = c
    board = m - num_players * num_hole
    for p in range(num_players):
        for k in range(num_hole):
            scratch[k] = deals[i, p * num_hole + k]
        for k in range(board):
            scratch[num_hole + k] = deals[i, num_players * num_hole + k]
        strength[i, p] = rank_cards(scratch)


@njit(cache=NUMBA_CACHE)
def payoffs_into(out, i, spent, folded, strength_i):
    """Net chips of each position at a finished hand (``State.payoffs``: side pots from the
    distinct amounts put in, each split among the best hands in it)."""
    P = spent.shape[0]
    live = 0
    total = 0.0
    for p in range(P):
        out[i, p] = 0.0
        total += spent[p]
        if not folded[p]:
            live += 1
    if live == 1:
        for p in range(P):
            out[i, p] = (total - spent[p]) if not folded[p] else -float(spent[p])
        return
    prev = 0
    while True:
        level = -1  # the next distinct amount put in above prev
        for p in range(P):
            if spent[p] > prev and (level < 0 or spent[p] < level):
                level = spent[p]
        if level < 0:
            return
        size = level - prev
        prev = level
        best = np.int64(-1)
        members = 0
        for p in range(P):
            if spent[p] >= level:
                members += 1
                if not folded[p] and strength_i[p] > best:
                    best = strength_i[p]
        if best < 0:
            continue
        winners = 0
        for p in range(P):
            if spent[p] >= level and not folded[p] and strength_i[p] == best:
                winners += 1
        share = size * (members - winners) / winners
        for p in range(P):
            if spent[p] >= level:
                if not folded[p] and strength_i[p] == best:
                    out[i, p] += share
                else:
                    out[i, p] -= size


# inlined: called per hand, it reads a dozen bundle fields (a Leduc step at 4,096 hands took 1.3x
# as long as with positional arrays when it was a call, 0.9x inlined)
@njit(cache=NUMBA_CACHE, inline="always")
def write_view(i, node, hands, tree, layout, views):
    """Observation, mask and player to act of hand i at decision ``node``."""
    deals, card_index, num_hole = hands.deals, layout.card_index, layout.num_hole
    obs, mask = views.obs, views.mask
    num_players = tree.spent.shape[1]
    deck_size = hands.decks.shape[1]
    p = tree.player[node]
    views.to_act[i] = p
    for k in range(obs.shape[1]):
        obs[i, k] = 0.0
    obs[i, p] = 1.0
    for k in range(num_hole):
        obs[i, num_players + card_index[deals[i, p * num_hole + k]]] = 1.0
    for r in range(tree.rnd[node] + 1):
        block = layout.board_block[r]
        if block >= 0:
            at = num_players + deck_size * (1 + block)
            for k in range(layout.board_at[r], layout.board_at[r + 1]):
                obs[i, at + card_index[deals[i, k]]] = 1.0
    public = tree.public
    for k in range(public.shape[1]):
        obs[i, layout.public_offset + k] = public[node, k]
    d = tree.decision[node]
    id_col = tree.id_col
    for a in range(id_col.shape[1]):
        mask[i, a] = id_col[d, a] >= 0


@njit(cache=NUMBA_CACHE)
def first_illegal(actions, node, decision, id_col):
    """Index of the first hand whose action id is not legal, or -1."""
    A = id_col.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= A or id_col[decision[node[i]], a] < 0:
            return i
    return -1


@njit(cache=NUMBA_CACHE)
def step_hands(actions, hands, tree, layout, views, rewards, done):
    """One action in every hand; a hand that ends pays ``rewards`` (``done``) and is dealt anew."""
    node, kind, next_node, decision, id_col = hands.node, tree.kind, tree.next_node, tree.decision, tree.id_col
    P = tree.spent.shape[1]
    for i in range(actions.shape[0]):
        n = node[i]
        n = next_node[n, id_col[decision[n], actions[i]]]
        while kind[n] == CHANCE:
            n = next_node[n, 1]
        if kind[n] == DECISION:
            done[i] = False
            for p in range(P):
                rewards[i, p] = 0.0
        else:
            done[i] = True
            payoffs_into(rewards, i, tree.spent[n], tree.folded[n], hands.strength[i])
            deal_hand(i, hands, layout.num_hole)
            n = tree.root
        node[i] = n
        write_view(i, n, hands, tree, layout, views)


@njit(cache=NUMBA_CACHE)
def reset_hands(hands, tree, layout, views):
    """Deal a new hand everywhere and show its first decision."""
    for i in range(hands.node.shape[0]):
        deal_hand(i, hands, layout.num_hole)
        hands.node[i] = tree.root
        write_view(i, tree.root, hands, tree, layout, views)


@njit(cache=NUMBA_CACHE)
def random_legal(mask, rng, out):
    """A uniformly random legal id of each hand (its own stream)."""
    for i in range(mask.shape[0]):
        legal = 0
        for a in range(mask.shape[1]):
            if mask[i, a]:
                legal += 1
        k = below(rng, i, legal)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
