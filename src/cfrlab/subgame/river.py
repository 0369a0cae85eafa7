"""One river subgame of real cards, built directly: for games whose deals are too many to
enumerate (heads-up limit hold'em), where ``cut`` cannot run.

The subgame is the public subtree below a last-round root on one board. Its private states
are the H hands that miss the board (1,081 in hold'em), in the lossless model's order (the
hole-card subsets of the cards left, lexicographic), so on a deck that also enumerates the
arrays equal the ``Cut``'s (tests/test_subgame_agent.py). Both ranges are the blueprint's
along the actual public history (each hand's row per round through the blueprint's chance
model, the product of its action probabilities); the opponent's alternative values are its
counterfactual best-response values against the blueprint in the subtree, with exact
showdowns. Every value is in the engine's units: a (board sequence, hand, hand) deal has the
chance probability of one deal.

Terminals cost O(H) (``BoardCards``): a fold pays the other's reach over the hands disjoint
from mine (total minus the sums of my cards plus my own hand), a showdown the reach of the
disjoint hands I beat minus those I lose to, in one sweep over the hands sorted by rank
(Johanson, Waugh, Bowling and Zinkevich, "Accelerating best response calculation in large
extensive games", IJCAI 2011).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from cfrlab.cards.cards import deck as card_deck
from cfrlab.cards.evaluator import rank_batch
from cfrlab.engine.kernels import disjoint_sum, showdown_sweep
from cfrlab.errors import CfrlabError
from cfrlab.subgame.local import Family, RoundBlocks, subtree_family
from cfrlab.subgame.methods import Ranges, family_values
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN


class BoardCards:
    """The terminal values of one board of real cards (``local.terminal_value``'s hook).

    ``cards`` int64[H, h] deck positions of each hand, ``ranks`` its showdown rank on the
    board, ``weight`` the chance probability of one deal, ``D`` the deck size."""

    def __init__(self, cards: np.ndarray, ranks: np.ndarray, weight: float, D: int) -> None:
        self.cards = np.ascontiguousarray(cards, dtype=np.int64)
        self.weight, self.D = float(weight), int(D)
        self._all = np.zeros(0, dtype=np.int64)  # disjoint_sum's hand list: every hand
        order = np.argsort(ranks, kind="stable")
        rs = np.asarray(ranks)[order]
        ends = np.append(np.flatnonzero(np.diff(rs)) + 1, len(rs))
        self.order = order.astype(np.int64)
        self.grp_end = np.repeat(ends, np.diff(np.concatenate([[0], ends]))).astype(np.int64)

    def disjoint(self, r: np.ndarray) -> np.ndarray:
        """The chance-weighted reach of the hands disjoint from each hand (P_r @ r)."""
        out = np.empty(len(r))
        disjoint_sum(np.ascontiguousarray(r, dtype=np.float64), self.cards, self.cards.shape[1],
                     np.zeros(self.D), out, 1.0, self._all, -1)
        return self.weight * out

    def terminal(self, kind: int, i: int, opp: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Player i's values at a terminal from the other's reach ``opp`` [G, nb, H], as
        ``local.terminal_value`` (u: player 0's fold winnings or the showdown stake, [G, 1, 1])."""
        flat = opp.reshape(-1, opp.shape[-1])
        out = np.empty_like(flat)
        csum = np.zeros(self.D)
        for k in range(len(flat)):
            r = np.ascontiguousarray(flat[k])
            if kind == FOLD:
                disjoint_sum(r, self.cards, self.cards.shape[1], csum, out[k], 1.0, self._all, -1)
            elif kind == SHOWDOWN:
                showdown_sweep(r, self.cards, self.cards.shape[1], self.D, self.order, self.grp_end, 1.0, out[k])
            else:
                raise CfrlabError("a subgame node that is neither a decision, a chance node nor a terminal")
        v = (self.weight * out).reshape(opp.shape)
        # a fold: P_r is symmetric, its sign is the stake's; a showdown: W^T = -W from the other side
        return u * v if (i == 0 or kind == SHOWDOWN) else -u * v


@dataclass
class RiverSubgame:
    """One river subgame: its family (G = 1, one board), the blueprint in it, the ranges and
    the opponent's alternative values, and the hands (ACPC ids, ascending in each hand)."""

    family: Family
    sigma: dict  # local decision -> float64[children, 1, 1, H]: the blueprint below the root
    ranges: Ranges
    reach: tuple  # float64[H] each: the players' blueprint ranges at the root
    cbv: np.ndarray  # float64[2, H]: each player's counterfactual best-response value at the root
    hands: np.ndarray  # int64[H, h] ACPC card ids

    def hand_index(self, hole) -> int:
        """The row of the hand ``hole`` (ACPC ids, any order)."""
        hit = np.flatnonzero((self.hands == np.sort(np.asarray(hole, dtype=np.int64))).all(axis=1))
        if not len(hit):
            raise CfrlabError("the hole cards are not a hand of this board (a card repeats or is not in the deck)")
        return int(hit[0])


def board_sequences(game) -> int:
    """The number of board sequences to the last round (each round's new cards as a set)."""
    D = game.num_ranks * game.num_suits
    n, seen = 1, 0
    for nb in game.num_board_cards:
        n *= comb(D - seen, nb)
        seen += nb
    return n


def deal_weight(game) -> float:
    """The chance probability of one (board sequence, hole cards, hole cards) at the last round."""
    h = game.num_hole_cards
    m = game.num_ranks * game.num_suits - game.total_board_cards()
    return 1.0 / (board_sequences(game) * comb(m, h) * comb(m - h, h))


def river_root(tree, node: int) -> int:
    """The last-round root (first decision after the last chance node) above ``node``."""
    R = tree.game.num_rounds
    if int(tree.round[node]) != R - 1:
        raise CfrlabError(f"node {node} is not in the last round")
    n = int(node)
    while tree.kind[tree.parent[n]] != CHANCE:
        n = int(tree.parent[n])
    return n


def river_subgame(strategy, node: int, board, opponent: int) -> RiverSubgame:
    """The river subgame below last-round root ``node`` of ``strategy``'s tree on ``board``
    (ACPC card ids in deal order), with ``opponent``'s alternative values (module docstring)."""
    game, tree = strategy.game, strategy.tree
    if game.num_players != 2:
        raise CfrlabError(f"subgame solving needs a 2-player game; {game.name or 'this game'} has "
                          f"{game.num_players} players")
    if game.num_hole_cards not in (1, 2):
        raise CfrlabError("a river subgame of real cards takes games of 1 or 2 hole cards")
    R = game.num_rounds
    if river_root(tree, node) != node:
        raise CfrlabError(f"node {node} does not start the last round")
    board = [int(c) for c in board][:game.total_board_cards()]
    deck = np.array(card_deck(game.num_ranks, game.num_suits), dtype=np.int64)
    pos = {int(c): k for k, c in enumerate(deck)}
    if len(board) != game.total_board_cards() or any(c not in pos for c in board) or len(set(board)) != len(board):
        raise CfrlabError(f"the board needs {game.total_board_cards()} distinct cards of this game's deck")
    rest = [k for k in range(len(deck)) if int(deck[k]) not in set(board)]
    hand_pos = np.array(list(combinations(rest, game.num_hole_cards)), dtype=np.int64)
    hands = deck[hand_pos]
    H = len(hands)
    ranks = rank_batch(np.concatenate([hands, np.broadcast_to(board, (H, len(board)))], axis=1))
    states = _states(strategy.model, game, hands, board, rest, deck)
    policy, offsets = strategy.policy, np.asarray(strategy.row_offset, dtype=np.int64)
    reach = _path_reach(tree, node, policy, offsets, states)
    cards = BoardCards(hand_pos, ranks, deal_weight(game), len(deck))
    rb = RoundBlocks(0, 1, H, np.zeros((1, 0, 0)), 1, None, None, None, cards)
    fam = subtree_family(tree, node, {R - 1: rb})
    sigma = {}
    for m in range(fam.size):
        if fam.kind[m] == DECISION:
            rows = policy[offsets[fam.decision[0, m]] + states[:, R - 1]][:, fam.cols[m]]
            sigma[m] = rows.T.reshape(len(fam.cols[m]), 1, 1, H)
    root = (reach[0][None, None], reach[1][None, None])
    cbv = np.stack([family_values(fam, sigma, root, p, "br")[0, 0] for p in (0, 1)])
    weight = cards.disjoint(reach[1 - opponent])[None, None]
    ranges = Ranges(root, cbv[opponent][None, None], weight)
    return RiverSubgame(fam, sigma, ranges, reach, cbv, hands)


def _states(model, game, hands: np.ndarray, board: list, rest: list, deck: np.ndarray) -> np.ndarray:
    """int64[H, R]: each hand's private state per round in ``model`` (seat 0, the other seat's
    cards any that miss it and the board: a state depends only on the cards its player sees)."""
    h = game.num_hole_cards
    spare = deck[rest[:2 * h]]  # the other seat takes the first h of these that miss the hand
    clash = (spare[None, :, None] == hands[:, None, :]).any(axis=2)
    pick = np.argsort(clash, axis=1, kind="stable")[:, :h]
    other = spare[pick]
    deals = np.concatenate([hands, other, np.broadcast_to(board, (len(hands), len(board)))], axis=1)
    return np.asarray(model.deal_states_batch(deals), dtype=np.int64)[:, 0, :]


def _path_reach(tree, node: int, policy: np.ndarray, offsets: np.ndarray, states: np.ndarray) -> tuple:
    """Both players' blueprint reach of ``node`` per hand: the product of their action
    probabilities along the public path."""
    reach = [np.ones(len(states)), np.ones(len(states))]
    n = int(node)
    while n > 0:
        q = int(tree.parent[n])
        if tree.kind[q] == DECISION:
            p, r = int(tree.player[q]), int(tree.round[q])
            reach[p] = reach[p] * policy[offsets[tree.decision[q]] + states[:, r], int(tree.action[n])]
        n = q
    return reach[0], reach[1]
