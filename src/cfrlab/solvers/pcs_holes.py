"""Public chance sampling on bucketed models: one board per iteration, vectors over every hole
pair that misses it, each pair reading and updating its bucket sequence's rows.

A bucketed model has no per-board blocks (its states mix boards), so the block-slicing PCS
of the lossless models does not apply. Here the sampled board fixes every round's public
cards; all C(m, 2) hole pairs of the m cards left are the slots of both players, their
bucket sequences come from the model's card lookup (``deal_states_batch``), and the
terminal values are exact on that board with card removal (``_pcs_holes_kernels``).
Each joint pair of disjoint holes gets weight 1 / (C(m, 2) C(m - 2, 2)), so an iteration's
regret increments are, in expectation over the board, the full-width increments.
Discounts (DCFR, linear averaging) and the CFR+ floor act on whole tables per iteration.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from cfrlab import cards as _cards
from cfrlab.cards.cards import deck
from cfrlab.engine.kernels import (
    discounts as _discounts,
)
from cfrlab.errors import CfrlabError
from cfrlab.solvers._pcs_holes_kernels import (
    BoardTables,
    HoleTree,
    discount_tables,
    holes_iteration,
)


class HolePairPCS:
    """Per-solver state of hole-pair public chance sampling (arenas, deck, pair tables)."""

    def __init__(self, tree, model, engine) -> None:
        game = tree.game
        if game.num_hole_cards != 2:
            raise CfrlabError("public chance sampling on a bucketed model needs two hole cards")
        R = game.num_rounds
        self.model, self.engine = model, engine
        self.cards = np.asarray(deck(game.num_ranks, game.num_suits), dtype=np.int64)
        self.D = len(self.cards)
        self.nb = game.total_board_cards(R - 1)
        m = self.D - self.nb
        if m < 4:
            raise CfrlabError("the deck is too small for two players' hole cards after the board")
        self.pairs = np.array(list(combinations(range(m), 2)), dtype=np.int64)
        H = len(self.pairs)
        self.scale = 1.0 / (H * comb(m - 2, 2))
        N = len(engine.nodes)
        self.reach = np.zeros((2, N, H))
        self.values = np.zeros((2, N, H))
        self.node_u = np.ascontiguousarray(engine.node_u, dtype=np.float64)

    def board_tables(self, board: np.ndarray):
        """(smap int64[2, R, H], cards int64[H, 2], order, gend) for a board of deck positions."""
        rest = np.setdiff1d(np.arange(self.D), board)
        c0, c1 = rest[self.pairs[:, 0]], rest[self.pairs[:, 1]]
        H = len(c0)
        b = np.broadcast_to(self.cards[board], (H, len(board)))
        # an opponent hand for the lookup: the first two of rest[:4] that miss the pair
        four = rest[:4]
        free = (four[None, :] != c0[:, None]) & (four[None, :] != c1[:, None])
        pick = np.argsort(~free, axis=1, kind="stable")[:, :2]
        o0, o1 = four[pick[:, 0]], four[pick[:, 1]]
        mine, other = (self.cards[c0], self.cards[c1]), (self.cards[o0], self.cards[o1])
        smap = np.empty((2, self.engine.num_states.shape[0], H), dtype=np.int64)
        for p, holes in enumerate(((*mine, *other), (*other, *mine))):
            states = self.model.deal_states_batch(np.column_stack([*holes, b]))  # [H, 2, R]
            smap[p] = np.asarray(states, dtype=np.int64)[:, p, :].T
        ranks = _cards.rank_batch(np.column_stack([self.cards[c0], self.cards[c1], b]))
        order = np.argsort(ranks, kind="stable").astype(np.int64)
        sr = ranks[order]
        gend = np.searchsorted(sr, sr, side="right").astype(np.int64)
        return smap, np.column_stack([c0, c1]).astype(np.int64), order, gend

    def iterate(self, solver, board: np.ndarray, t: int) -> None:
        """Iteration t of ``solver``'s update rule on one board."""
        e = self.engine
        rule = solver.rule
        pos_f, neg_f, avg_f = _discounts(rule, t)
        reg = solver.regret
        if pos_f != 1.0 or neg_f != 1.0 or avg_f != 1.0:
            discount_tables(reg, solver.avg, pos_f, neg_f, avg_f, False)
        smap, cards, order, gend = self.board_tables(board)
        tree = HoleTree(e.nodes, e.child, e.row_offset, e.legal, self.node_u)
        tables = BoardTables(smap, cards, self.D, order, gend)
        passes = ((True, False), (False, True)) if rule.alternating else ((True, True),)
        for trav in passes:
            holes_iteration(tree, tables, self.scale, reg, solver.avg, solver._sigma,
                            self.reach, self.values, np.array(trav))
            if rule.regret_floor:
                discount_tables(reg, solver.avg, 1.0, 1.0, 1.0, True)

    def run(self, solver, n: int) -> None:
        for k in range(n):
            board = solver._rng.choice(self.D, self.nb, replace=False).astype(np.int64)
            self.iterate(solver, board, solver.iterations + k + 1)
