"""Numba kernels of the local best response (``lbr``): equity, the decision, one round of play.

Cards are deck-local ids (``hands.Deck``); the evaluator takes ACPC ids (``to_global``). A hand's
evaluator key and flush bits (``hkey``, ``hbits``: sums and ORs of ``CARD_KEY`` / ``CARD_BIT``
over its cards) are computed once, so ranking a hand on a board is one addition and one lookup.

Arguments travel in named bundles (namedtuples; ``lbr`` builds them once, ``equity`` the
``BoardKey``):

- ``HandKeys`` (``cfrlab.cards.kernels``): the deck's hands, ``hands``, ``hands_g``,
  ``to_global``, ``hkey``, ``hbits``;
- ``BoardKey``: the known board of an equity, its key sum ``kb``, flush bits ``bb`` and the
  number of cards of a full hand ``ncards``;
- ``LbrTree``: the betting tree (``cfrlab.tree.arrays``), ``kind``, ``player``, ``spent``
  int64[N, 2], ``nxt`` int64[N, 3] (child by action, f c r), ``decision``, ``legal``
  bool[decisions, 3];
- ``OpponentTable`` (``_kernels``): the opponent's ``policy`` float64[rows, 3] and
  ``row_offset`` (its ``BatchPolicy``).

Random numbers come from a splitmix64 stream in a ``uint64[1]`` state, so a deal's cards, the
opponent's sampled actions and any sampled equity boards depend only on the deal's seed, not
on which process played it.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cfrlab.cards.kernels import (
    KEY_INIT,
    NO_RANK,
    add_card_keys,
    cards_left,
    next_combination,
    rank_of_key,
)
from cfrlab.config import NUMBA_CACHE
from cfrlab.realgame._kernels import OpponentTable  # noqa: F401 (lbr builds it from here)
from cfrlab.tree import DECISION

EPS = 1e-9  # chips: an action replaces call (or fold replaces the best) only if better by more

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)

BoardKey = namedtuple("BoardKey", "kb bb ncards")
LbrTree = namedtuple("LbrTree", "kind player spent nxt decision legal")


@njit(cache=NUMBA_CACHE)
def next_u64(state):
    """The next 64-bit number of the splitmix64 stream in ``state`` (uint64[1])."""
    z = state[0] + _GAMMA
    state[0] = z
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=NUMBA_CACHE)
def uniform(state):
    """A float in [0, 1)."""
    return float(next_u64(state) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=NUMBA_CACHE)
def randint(state, n):
    """An int in [0, n)."""
    k = int(uniform(state) * n)
    return k if k < n else n - 1


@njit(cache=NUMBA_CACHE)
def draw_cards(state, pool, n, need, out):
    """out[:need] = ``need`` distinct cards of ``pool[:n]``, uniformly (a partial Fisher-Yates
    that leaves ``pool`` shuffled in place)."""
    for q in range(need):
        t = q + randint(state, n - q)
        x = pool[q]
        pool[q] = pool[t]
        pool[t] = x
        out[q] = pool[q]


@njit(cache=NUMBA_CACHE)
def deal_cards(state, D, need, out):
    """out[:need] = ``need`` distinct cards of 0..D-1, uniformly."""
    draw_cards(state, np.arange(D), D, need, out)


@njit(cache=NUMBA_CACHE)
def _add_completion(lbr, comp, board, keys, hand_ok, mark, eq, cnt):
    """Scores one completion ``comp`` (local ids) of the known board (``BoardKey``): for
    every hand j of ``keys`` allowed and disjoint from it, cnt[j] += 1 and eq[j] += 1 if the
    responder's hand ``lbr`` wins, 1/2 if it ties."""
    hands, hands_g, to_global, hkey, hbits = keys
    H, h = hands.shape
    key, bits = add_card_keys(comp, to_global, board.kb, board.bb)
    ncards = board.ncards
    for q in range(comp.shape[0]):
        mark[comp[q]] = True
    rl = rank_of_key(key + hkey[lbr], bits | hbits[lbr], ncards, hands_g[lbr, 0])
    for j in range(H):
        if not hand_ok[j]:
            continue
        if mark[hands[j, 0]]:
            continue
        if h == 2 and mark[hands[j, 1]]:
            continue
        rj = rank_of_key(key + hkey[j], bits | hbits[j], ncards, hands_g[j, 0])
        cnt[j] += 1.0
        if rl > rj:
            eq[j] += 1.0
        elif rl == rj:
            eq[j] += 0.5
    for q in range(comp.shape[0]):
        mark[comp[q]] = False


@njit(cache=NUMBA_CACHE)
def equity(lbr, known, k, exact, samples, state, keys, hand_ok, eq):
    """eq[j]: the probability that hand ``lbr`` beats hand j at a showdown after the board
    ``known`` (local ids) is completed by ``k`` more cards, ties counting one half, for every
    hand j of ``keys`` (``HandKeys``) with ``hand_ok[j]`` (0 for the others). Completions are
    the boards of k cards that miss both hands, all of them (``exact``) or ``samples`` boards
    drawn uniformly from those that miss ``lbr`` (each j then averages over the draws that
    also miss it)."""
    hands = keys.hands
    H, h = hands.shape
    D = keys.to_global.shape[0]
    used = np.zeros(D, dtype=np.bool_)
    for q in range(h):
        used[hands[lbr, q]] = True
    for q in range(known.shape[0]):
        used[known[q]] = True
    kb, bb = add_card_keys(known, keys.to_global, KEY_INIT, np.int64(0))
    board = BoardKey(kb, bb, h + known.shape[0] + k)
    rest = cards_left(used)
    n = rest.shape[0]
    cnt = np.zeros(H)
    eq[:] = 0.0
    mark = np.zeros(D, dtype=np.bool_)
    comp = np.empty(k, dtype=np.int64)
    if exact:
        idx = np.arange(max(k, 1))
        while True:
            for q in range(k):
                comp[q] = rest[idx[q]]
            _add_completion(lbr, comp, board, keys, hand_ok, mark, eq, cnt)
            if not next_combination(idx, k, n):
                break
    else:
        pool = rest.copy()
        for _ in range(samples):
            draw_cards(state, pool, n, k, comp)
            _add_completion(lbr, comp, board, keys, hand_ok, mark, eq, cnt)
    for j in range(H):
        if hand_ok[j]:
            eq[j] = eq[j] / cnt[j] if cnt[j] > 0 else 0.5
        else:
            eq[j] = 0.0


@njit(cache=NUMBA_CACHE)
def action_values(node, seat, reach, states, eq, tree, table, out):
    """The responder's action values at decision ``node`` (lbr module docstring): out[0] fold,
    out[1] call, out[2] raise (-inf if illegal), relative to folding; returns the win
    probability against the range ``reach`` (the hands' weights; ``states`` their private
    states, ``eq`` the responder's equity against each)."""
    spent, nxt, decision, legal = tree.spent, tree.nxt, tree.decision, tree.legal
    policy, row_offset = table
    H = reach.shape[0]
    d = decision[node]
    W = 0.0
    WE = 0.0
    for j in range(H):
        w = reach[j]
        W += w
        WE += w * eq[j]
    wp = WE / W if W > 0.0 else 0.5
    me = float(spent[node, seat])
    op = float(spent[node, 1 - seat])
    pot = me + op
    asked = op - me
    out[0] = 0.0 if legal[d, 0] else -np.inf
    out[1] = wp * pot - (1.0 - wp) * asked
    out[2] = -np.inf
    if legal[d, 2]:
        ch = nxt[node, 2]
        b = float(spent[ch, seat]) - op  # chips the raise adds beyond the call
        fp = 0.0
        dd = decision[ch]
        if dd >= 0 and W > 0.0:
            ro = row_offset[dd]
            F = 0.0
            for j in range(H):
                w = reach[j]
                if w != 0.0:
                    F += w * policy[ro + states[j], 0]
            fp = F / W
        out[2] = fp * pot + (1.0 - fp) * (wp * (pot + b) - (1.0 - wp) * (asked + b))
    return wp


@njit(cache=NUMBA_CACHE)
def choose(vals):
    """The action with the best value; ties (within EPS) go to call, then raise, then fold."""
    best = 1
    if vals[2] > vals[1] + EPS:
        best = 2
    if vals[0] > vals[best] + EPS:
        best = 0
    return best


@njit(cache=NUMBA_CACHE)
def play_round(node, seat, opp, calls, eq_ready, reach, states, eq, state, tree, table, vals):
    """Plays from ``node`` until a chance node, a terminal, or a decision of the responder
    (``seat``) that needs the round's equity while ``eq_ready`` is False; returns that node.
    The opponent (holding hand ``opp``) samples its action from its row; every hand's weight
    in ``reach`` (the responder's view of its range; ``states`` the hands' private states,
    ``eq`` the responder's equity against each) is multiplied by its probability of the action
    (Bayes' rule). With ``calls`` the responder calls without computing (lbr's
    ``call_rounds``)."""
    kind, player, nxt, decision, legal = tree.kind, tree.player, tree.nxt, tree.decision, tree.legal
    policy, row_offset = table
    H = reach.shape[0]
    while kind[node] == DECISION:
        d = decision[node]
        if player[node] == seat:
            if calls:
                a = 1
            else:
                if not eq_ready:
                    return node
                action_values(node, seat, reach, states, eq, tree, table, vals)
                a = choose(vals)
        else:
            ro = row_offset[d]
            row = ro + states[opp]
            u = uniform(state)
            acc = 0.0
            a = -1
            for x in range(3):
                p = policy[row, x]
                if p > 0.0 and legal[d, x]:
                    acc += p
                    a = x
                    if u < acc:
                        break
            if a < 0:  # an all-zero row: call
                a = 1
            for j in range(H):
                if reach[j] != 0.0:
                    reach[j] *= policy[ro + states[j], a]
        node = nxt[node, a]
    return node


@njit(cache=NUMBA_CACHE)
def equity_from_ranks(lbr, ranks, m, per_hand, hand_ok, eq):
    """``equity`` (all completions) from ``board_ranks``: completions that meet the responder's
    hand ``lbr`` (its rank is ``NO_RANK``) are skipped; each other hand j is averaged over the
    ``per_hand`` completions that miss both hands (those meeting j hold ``NO_RANK``: they add
    nothing)."""
    H = ranks.shape[1]
    eq[:] = 0.0
    for c in range(m):
        rl = ranks[c, lbr]
        if rl == NO_RANK:
            continue
        for j in range(H):
            rj = ranks[c, j]
            eq[j] += (1.0 if rl > rj else 0.0) + (0.5 if rl == rj else 0.0)
    for j in range(H):
        eq[j] = eq[j] / per_hand if hand_ok[j] else 0.0
