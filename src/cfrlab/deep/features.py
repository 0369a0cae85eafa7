"""Information-state features of the networks: one float32 vector per policy row.

A row of the ENGINE.md layout is one information set (decision node d, the acting player's
private state s at that round), so the features are a table ``float32[rows, F]`` built once per
game and the networks see nothing else. For a row at node n (round r, acting player p) the
vector is, in this order (``feature_names`` spells each entry):

* ``player``: one-hot of p (2 entries);
* ``round``: one-hot of r (R entries);
* ``hole card`` / ``hole rank``: counts of the player's hole cards per deck card (D entries)
  and per rank (num_ranks entries);
* ``board card`` / ``board rank``: the same for the public cards dealt so far;
* ``pairs``: the number of (hole card, board card) pairs of one rank (a made pair in Leduc);
* ``bet``: for each round and each slot k of that round's betting (up to the longest action
  sequence a round of the tree holds), a one-hot of the action column taken (fold, call/check,
  raise...: A entries), zeros for slots not reached (the betting so far, OpenSpiel-style);
* ``chips``: what p and its opponent have put in, divided by the most either can put in.

Cards come from a lossless chance model (``state_cards``); a bucketed model has no cards to
show, so it is refused. The layout is versioned (``FEATURES_VERSION``): a weights file records
it, and a file of another version or width is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfrlab.abstraction import LOSSLESS
from cfrlab.cards.cards import deck
from cfrlab.engine import model_kind, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.tree import CHANCE

FEATURES_VERSION = "cfrlab-deep-features-1"


def round_slots(tree) -> list[int]:
    """Per round, the most actions one path of the tree takes within that round."""
    slots = [0] * tree.num_rounds
    count = np.zeros(tree.num_nodes, np.int64)  # actions taken in the node's round so far
    for n in range(1, tree.num_nodes):
        m = int(tree.parent[n])
        count[n] = 0 if tree.kind[m] == CHANCE else count[m] + 1
        r = int(tree.round[m])
        slots[r] = max(slots[r], int(count[n]))
    return slots


def feature_names(tree, model) -> list[str]:
    """One short name per feature column (see the module docstring)."""
    game = model.game
    cards = deck(game.num_ranks, game.num_suits)
    ranks = range(game.num_ranks)
    names = ["player 0", "player 1"] + [f"round {r}" for r in range(game.num_rounds)]
    names += [f"hole card {c}" for c in cards] + [f"hole rank {k}" for k in ranks]
    names += [f"board card {c}" for c in cards] + [f"board rank {k}" for k in ranks] + ["pairs"]
    for r, k in enumerate(round_slots(tree)):
        names += [f"bet r{r} slot {j} col {a}" for j in range(k) for a in range(tree.num_actions)]
    return names + ["chips own", "chips opponent"]


@dataclass(frozen=True)
class CardLayout:
    """Where the card entries sit in a feature vector: ``at`` is the first (hole card) column;
    ``pos`` int64[52] maps a card id to its deck position (-1: not in the deck)."""

    at: int
    num_cards: int  # D
    num_ranks: int  # K
    top_rank: int  # the deck's lowest rank: ranks are counted from it
    pos: np.ndarray

    @property
    def pairs(self) -> int:
        return self.at + 2 * (self.num_cards + self.num_ranks)


def card_layout(game) -> CardLayout:
    cards = deck(game.num_ranks, game.num_suits)
    pos = np.full(52, -1, np.int64)
    pos[cards] = np.arange(len(cards))
    return CardLayout(2 + game.num_rounds, len(cards), game.num_ranks, min(cards) // 4, pos)


def node_heads(tree, game) -> np.ndarray:
    """float32[decisions, F]: every feature of a decision node's rows but the cards (player,
    round, betting, chips); a row's vector is its node's head plus its cards
    (``add_cards``)."""
    if game.num_players != 2:
        raise CfrlabError(f"Deep CFR here is for 2-player games; {game.name or 'this game'} has {game.num_players}")
    lay = card_layout(game)
    R, A = game.num_rounds, tree.num_actions
    slots = round_slots(tree)
    bet_start = np.cumsum([0] + [k * A for k in slots])
    base = lay.pairs + 1
    width = base + int(bet_start[-1]) + 2
    most = float(max(int(np.max(tree.spent)), 1))
    out = np.zeros((len(tree.decision_node), width), np.float32)
    for d, n in enumerate(tree.decision_node):
        n = int(n)
        p, r = int(tree.player[n]), int(tree.round[n])
        head = out[d]
        head[p] = 1.0
        head[2 + r] = 1.0
        counts = [0] * R
        for m, a in tree.decisions_to(n):
            rr = int(tree.round[m])
            head[base + bet_start[rr] + counts[rr] * A + a] = 1.0
            counts[rr] += 1
        head[width - 2] = tree.spent[n, p] / most
        head[width - 1] = tree.spent[n, 1 - p] / most
    return out


def add_cards(x: np.ndarray, lay: CardLayout, hole: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Add the card entries of hands ``hole`` int[n, h] on ``board`` int[nb] (the cards dealt so
    far, the same for every row) to the rows of ``x`` float32[n, F], in place; returns ``x``."""
    hole = np.asarray(hole, np.int64).reshape(len(x), -1)
    board = np.asarray(board, np.int64).ravel()
    rows = np.arange(len(x))
    D, K = lay.num_cards, lay.num_ranks
    for j in range(hole.shape[1]):
        c = hole[:, j]
        np.add.at(x, (rows, lay.at + lay.pos[c]), 1.0)
        np.add.at(x, (rows, lay.at + D + c // 4 - lay.top_rank), 1.0)
    for c in board:
        x[:, lay.at + D + K + lay.pos[c]] += 1.0
        x[:, lay.at + 2 * D + K + c // 4 - lay.top_rank] += 1.0
    if len(board):
        pairs = (hole[:, :, None] // 4 == (board // 4)[None, None, :]).sum(axis=(1, 2))
        x[:, lay.pairs] += pairs.astype(np.float32)
    return x


def info_features(tree, model) -> np.ndarray:
    """float32[rows, F]: the features of every policy row (rows of ``row_offsets(tree, model)``)."""
    if model_kind(model) != LOSSLESS:
        raise CfrlabError(f"the networks' features need real cards (a lossless model), not a {model_kind(model)} model")
    game = model.game
    heads = node_heads(tree, game)
    lay = card_layout(game)
    offsets = row_offsets(tree, model)
    out = np.zeros((int(offsets[-1]), heads.shape[1]), np.float32)
    for d, n in enumerate(tree.decision_node):
        r = int(tree.round[int(n)])
        block = out[offsets[d]:offsets[d + 1]]
        block[:] = heads[d]
        for s in range(model.num_states[r]):
            hole, board = model.state_cards(r, s)
            _cards_into(block[s], hole, board, lay)
    return out


def _cards_into(row: np.ndarray, hole, board, lay: CardLayout) -> None:
    """Write the card one-hots (and the pair count) of one private state into ``row``."""
    at, D, K = lay.at, lay.num_cards, lay.num_ranks
    for c in hole:
        row[at + lay.pos[c]] += 1.0
        row[at + D + c // 4 - lay.top_rank] += 1.0
    for c in board:
        row[at + D + K + lay.pos[c]] += 1.0
        row[at + 2 * D + K + c // 4 - lay.top_rank] += 1.0
    row[lay.pairs] = sum(1.0 for h in hole for b in board if h // 4 == b // 4)
