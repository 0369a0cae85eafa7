"""Networks playing real cards one decision at a time: no table, any game size (HULHE).

``NetPolicy(nets)`` answers ``probs(node, holes, board)``: the networks' action probabilities
at one decision node of the public tree for a batch of hands on one board, computed from the
features of ``cfrlab.deep.features`` (the node's head plus the cards), exactly what the
tabulated policy (``DeepNets.table``) holds in that row where a table exists:

* Deep CFR: the average network's softmax over the legal columns;
* SD-CFR: the mixture of the stored networks' regret-matched strategies weighted by iteration
  times the player's own reach under each network, the reach taken along the node's betting
  path with the cards the player saw at each of its earlier decisions.

``NetAgent`` plays it in matches (``act`` per decision); ``NetBatchPolicy`` hands it to the
local best response: a ``BatchPolicy`` of kind ``"network"`` whose table holds the current
round's decision nodes only, refilled by ``enter(node, board, deck)`` each time a round starts
(every other row reads NaN, so a walk that does not call ``enter`` fails visibly).
"""

from __future__ import annotations

from math import comb

import numpy as np

from cfrlab.abstraction.lossless import MAX_STATES
from cfrlab.cards.cards import deck as card_deck
from cfrlab.deep.features import add_cards, card_layout, node_heads
from cfrlab.deep.network import DeepNets, check_shape
from cfrlab.deep.policy import finish_average, masked_softmax, mlp_forward, regret_matching
from cfrlab.engine import build_tree_for
from cfrlab.errors import CfrlabError
from cfrlab.games.agent import Agent
from cfrlab.games.matchstate import MatchState
from cfrlab.tree import CHANCE, DECISION
from cfrlab.tree.betting_tree import node_of_betting

NETWORK = "network"  # the BatchPolicy kind of NetBatchPolicy
ACTIONS = "fcr"


def fits_table(game) -> bool:
    """Whether ``game``'s lossless private states can be enumerated (then the networks'
    policy is tabulated; otherwise it is played one decision at a time)."""
    if game.num_players != 2:
        return False
    D, h = game.num_ranks * game.num_suits, game.num_hole_cards
    return all(comb(D, game.total_board_cards(r)) * comb(D - game.total_board_cards(r), h) <= MAX_STATES
               for r in range(game.num_rounds))


class NetPolicy:
    """The networks' policy on real cards, one decision node at a time (module docstring)."""

    def __init__(self, nets: DeepNets, tree=None) -> None:
        self.nets = nets
        self.game = nets.game
        self.tree = tree if tree is not None else build_tree_for(nets.game)
        self.heads = node_heads(self.tree, self.game)
        self.layout = card_layout(self.game)
        check_shape(nets.layers, self.heads.shape[1], self.tree.num_actions, f"the {self.game.name or 'game'} networks")
        self.legal = np.asarray(self.tree.legal, bool)
        self._head_cache: dict[tuple[int, int], np.ndarray] = {}  # (network, node) -> head @ W1 + b1
        self._w1_cache: dict[int, np.ndarray] = {}  # the networks live as long as self.nets

    def features(self, node: int, holes, board) -> np.ndarray:
        """float32[n, F]: the rows of ``holes`` int[n, h] at ``node`` on ``board`` (the cards
        the node's round shows are used; later ones are ignored)."""
        d, r = int(self.tree.decision[node]), int(self.tree.round[node])
        holes = np.asarray(holes, np.int64).reshape(-1, self.game.num_hole_cards)
        x = np.repeat(self.heads[d][None, :], len(holes), axis=0)
        return add_cards(x, self.layout, holes, np.asarray(board, np.int64)[:self.game.total_board_cards(r)])

    def probs(self, node: int, holes, board) -> np.ndarray:
        """float64[n, A]: the action probabilities of hands ``holes`` int[n, h] at decision
        ``node`` on ``board``."""
        tree = self.tree
        if tree.kind[node] != DECISION:
            raise CfrlabError(f"node {node} is not a decision node")
        d, p = int(tree.decision[node]), int(tree.player[node])
        holes = np.asarray(holes, np.int64).reshape(-1, self.game.num_hole_cards)
        legal = np.repeat(self.legal[d][None, :], len(holes), axis=0)
        if self.nets.method == "deepcfr":
            return masked_softmax(self.forward(self.nets.nets["avg"][0], node, holes, board), legal)
        earlier = [(m, np.repeat(self.legal[int(tree.decision[m])][None, :], len(holes), axis=0), a)
                   for m, a in self._own_path(node, p)]
        num = np.zeros(legal.shape)
        den = np.zeros(len(holes))
        for net, w in zip(self.nets.nets[f"adv{p}"], self.nets.net_weights["adv0"]):
            reach = np.ones(len(holes))
            for m, lm, a in earlier:
                reach = reach * regret_matching(self.forward(net, m, holes, board), lm)[:, a]
            r = w * reach
            num += r[:, None] * regret_matching(self.forward(net, node, holes, board), legal)
            den += r
        return finish_average(num, den, legal)

    def forward(self, net, node: int, holes: np.ndarray, board) -> np.ndarray:
        """``mlp_forward(net, features)`` with the first layer taken apart: the node's head
        times W1 (cached per network and node) plus the W1 rows of the cards (the card
        entries are counts), so a batch of hands costs gathers and the hidden layers only."""
        w1 = self._w1(net)
        key = (id(net), node)
        head = self._head_cache.get(key)
        if head is None:
            d = int(self.tree.decision[node])
            head = self._head_cache[key] = self.heads[d].astype(np.float64) @ w1 + np.asarray(net[0][1], np.float64)
        lay = self.layout
        D, K = lay.num_cards, lay.num_ranks
        board = np.asarray(board, np.int64)[:self.game.total_board_cards(int(self.tree.round[node]))]
        h = np.repeat(head[None, :], len(holes), axis=0)
        for j in range(holes.shape[1]):
            c = holes[:, j]
            h += w1[lay.at + lay.pos[c]] + w1[lay.at + D + c // 4 - lay.top_rank]
        if len(board):
            h += (w1[lay.at + D + K + lay.pos[board]] + w1[lay.at + 2 * D + K + board // 4 - lay.top_rank]).sum(axis=0)
            pairs = (holes[:, :, None] // 4 == (board // 4)[None, None, :]).sum(axis=(1, 2))
            h += pairs[:, None] * w1[lay.pairs]
        return mlp_forward(net[1:], np.maximum(h, 0.0)) if len(net) > 1 else h

    def _w1(self, net) -> np.ndarray:
        w = self._w1_cache.get(id(net))
        if w is None:
            w = self._w1_cache[id(net)] = np.asarray(net[0][0], np.float64)
        return w

    def _own_path(self, node: int, p: int) -> list[tuple[int, int]]:
        """(decision node, action column taken) of player p's decisions before ``node``."""
        out = []
        n = node
        while self.tree.parent[n] >= 0:
            m = int(self.tree.parent[n])
            if self.tree.kind[m] == DECISION and int(self.tree.player[m]) == p:
                out.append((m, int(self.tree.action[n])))
            n = m
        return out[::-1]


class NetAgent(Agent):
    """Plays ``NetPolicy`` in matches: each decision the networks are queried for the seat's
    cards and the board (``distribution``), and an action sampled from the legal ones."""

    def __init__(self, nets: DeepNets, name: str | None = None) -> None:
        self.policy = NetPolicy(nets)
        self.name = name or nets.method
        self.tree = self.policy.tree

    def begin_match(self, game, seed: int | None = None) -> None:
        if game.to_text() != self.policy.game.to_text():
            raise CfrlabError(f"networks {self.name!r} are for {self.policy.game.name or 'another game'}, "
                              f"not for {game.name or 'this game'}")
        super().begin_match(game, seed)

    def distribution(self, view: MatchState) -> np.ndarray:
        """Probabilities of (fold, call, raise) at this view."""
        node = node_of_betting(self.tree, view.betting_string())
        return self.policy.probs(node, [view.my_cards], view.visible_board())[0]

    def act(self, view: MatchState) -> str:
        probs = self.distribution(view)
        legal = [ACTIONS.index(a[0]) for a in view.legal_actions()]
        p = np.array([probs[a] if a in legal else 0.0 for a in range(3)])
        if p.sum() <= 0:
            return "c"
        return ACTIONS[int(self.rng.choice(3, p=p / p.sum()))]

    def batch_policy(self, tree) -> NetBatchPolicy:
        if tree.game.to_text() != self.policy.game.to_text():
            raise CfrlabError(f"networks {self.name!r} are for another game")
        return NetBatchPolicy(self.policy)


class NetBatchPolicy:
    """``cfrlab.realgame.BatchPolicy`` of a network, one round at a time (module docstring):
    ``policy`` float64[rows, A] holds, for each round, a block of (decision node of the
    round's window) x (hand of the deck) rows; ``row_offset[d]`` points into the current
    window for its decisions and at a NaN row block for every other decision."""

    kind = NETWORK
    suit_symmetric = False

    def __init__(self, net: NetPolicy) -> None:
        self.net = net
        tree, game = net.tree, net.game
        cards = card_deck(game.num_ranks, game.num_suits)
        self.H = comb(len(cards), game.num_hole_cards)
        self.windows = _round_windows(tree)
        sizes = [max(len(w) for w in per.values()) for per in self.windows]
        self.start = np.cumsum([0] + [s * self.H for s in sizes])
        self.nan_row = int(self.start[-1])
        self.policy = np.full((self.nan_row + self.H, tree.num_actions), np.nan)
        self.row_offset = np.full(tree.num_decisions, self.nan_row, np.int64)
        self.hands: np.ndarray | None = None
        self._preflop_done = False

    def states(self, round: int, board, deck, valid) -> np.ndarray:
        """Hand i's rows are its own (state i); the probabilities come with ``enter``."""
        return np.arange(deck.num_hands, dtype=np.int64)

    def enter(self, node: int, board, deck) -> None:
        """Fill the rows of the decisions of ``node``'s round reachable from ``node`` (the
        first node of a round) for every hand of ``deck`` on ``board`` (the real-game walk's
        local card ids: ``deck.to_global`` gives the cards)."""
        tree = self.net.tree
        r = int(tree.round[node])
        if r == 0 and self._preflop_done:  # no board: the same for every deal
            return
        to_global = np.asarray(deck.to_global, np.int64)
        self.hands = to_global[np.asarray(deck.hands, np.int64)]
        board = to_global[np.asarray(board, np.int64)]
        for d in np.flatnonzero(self.row_offset != self.nan_row):
            if int(tree.round[int(tree.decision_node[d])]) == r:
                self.row_offset[d] = self.nan_row
        for k, n in enumerate(self.windows[r][node]):
            d = int(tree.decision[n])
            at = int(self.start[r]) + k * self.H
            self.policy[at:at + self.H] = self.net.probs(n, self.hands, board)
            self.row_offset[d] = at
        self._preflop_done = self._preflop_done or r == 0


def _round_windows(tree) -> list[dict[int, list[int]]]:
    """Per round, for every node that starts it (the root, a chance node's child), the
    decision nodes of that round below it (before the next chance node)."""
    out: list[dict[int, list[int]]] = [{} for _ in range(tree.num_rounds)]
    starts = [0] + [int(tree.child[int(tree.first_child[n])]) for n in range(tree.num_nodes) if tree.kind[n] == CHANCE]
    for s in starts:
        found, stack = [], [s]
        while stack:
            n = stack.pop()
            if tree.kind[n] != DECISION:
                continue
            found.append(n)
            f = int(tree.first_child[n])
            stack.extend(int(c) for c in tree.child[f:f + int(tree.num_children[n])])
        out[int(tree.round[s])][s] = sorted(found)
    return out
