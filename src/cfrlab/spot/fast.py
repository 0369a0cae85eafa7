"""The spot's walk: the board engine (``cfrlab.engine.board``, ``cfrlab.engine.board_walk``)
over a spot's board and ranges, and its average strategy in the engine's layout.

``SpotGame(spot, tree)`` is the board engine's ``BoardGame`` of the spot (its ranges in the tree's
player order); ``FastSolver`` is the engine's ``BoardSolver`` (alternating-update DCFR, DCFR+ or
CFR+ with O(n) terminals, suit isomorphism, float32, float64 or 16-bit storage, threads).
"""

from __future__ import annotations

import numpy as np

from cfrlab.engine.board import STORAGES, BoardGame, default_threads, storage_bytes, walk_bytes  # noqa: F401
from cfrlab.engine.board_walk import FAST_ALGORITHMS, BoardSolver  # noqa: F401
from cfrlab.engine.models import row_offsets
from cfrlab.spot.config import Spot
from cfrlab.tree.betting_tree import PublicTree

FastSolver = BoardSolver


class SpotGame(BoardGame):
    """The board engine's tables of a spot: its board, street and ranges (OOP's and IP's, in
    the tree's player order), its dead money and rake."""

    def __init__(self, spot: Spot, tree: PublicTree, isomorphism: bool = True) -> None:
        self.spot = spot
        ranges = [spot.ranges[0 if p == spot.oop_position else 1] for p in (0, 1)]
        super().__init__(spot.board, spot.street, ranges, tree, isomorphism, dead=spot.dead,
                         rake=spot.rake_percent / 100.0, rake_cap=spot.rake_cap)


def engine_policy(solver: FastSolver, model) -> np.ndarray:
    """The average strategy in docs/ENGINE.md's layout over the spot's tree and ``SpotModel``
    (every board's rows written out: the engine's exact values and the LP read it)."""
    tree = solver.game.tree
    offsets = row_offsets(tree, model)
    policy = np.zeros((int(offsets[-1]), tree.num_actions))
    for d, n in enumerate(tree.decision_node):
        n = int(n)
        cols = np.flatnonzero(tree.legal[d])
        start = int(offsets[d])
        for blk, extras in enumerate(model.block_extras(int(tree.round[n]))):
            rows = slice(start + blk * model.n, start + (blk + 1) * model.n)
            policy[rows, cols] = solver.strategy(n, extras)[model.combos]
    return policy

