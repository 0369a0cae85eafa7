"""Learned leaf values for depth-limited solving: DeepStack's counterfactual value networks
(Moravčík et al., "DeepStack: Expert-level artificial intelligence in heads-up no-limit
poker", Science 2017), trained on situations that the engine solves.

**A situation** is a round start (a node of the game tree where round ``r`` begins), a board
block of that round (its public cards) and the two players' ranges there. Its targets are
both players' counterfactual values when the rest of the game is solved from those ranges
(``unsafe`` re-solving: CFR+ for both players), read under the solve's average strategies.

**Units.** With the ranges normalized on each board (r̂_i = r_i / m_i, m_i their mass), p's
counterfactual value at its state x is ``c * m_o * pot * f_p(x)``: c the chance weight of
one pair of states (the round's largest fold-table entry), pot the chips both have put in,
and f_p what the network predicts: p's expected winnings per chip of the pot against the
normalized range. ``f_p * pot`` is in chips, the unit the reported errors use.

**Features** (``LAYOUT``): the block one-hot (the round's board blocks), r̂_0 and r̂_1 (the
round's states per block), each player's chips in the pot over the tree's largest pot.
Outputs: f_0 then f_1. Predictions are made zero-sum as DeepStack does (r̂_0 . f_0 +
r̂_1 . f_1 = 0 holds exactly for the true values: half the excess is taken from each player).

The situations, their solves and the training are ``cfrlab.subgame.valuedata``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfrlab.deep.cfvnet import CfvNet, check_fits
from cfrlab.errors import CfrlabError
from cfrlab.subgame.cut import Blueprint
from cfrlab.subgame.depth import LeafPlaces, entry
from cfrlab.subgame.local import Family

LAYOUT = 1


@dataclass(frozen=True)
class RoundShape:
    """What one round's network reads: ``blocks`` board blocks of ``states`` states each, the
    chance weight ``c`` of one pair of states, the tree's largest pot ``top`` (chips)."""

    round: int
    blocks: int
    states: int
    c: float
    top: float

    @property
    def inputs(self) -> int:
        return self.blocks + 2 * self.states + 2

    @property
    def outputs(self) -> int:
        return 2 * self.states


def round_shape(bp: Blueprint, rnd: int) -> RoundShape:
    fold, _ = bp.model.fold_blocks(rnd)
    fold = np.asarray(fold, np.float64)
    return RoundShape(int(rnd), int(bp.engine.num_blocks(rnd)), int(fold.shape[1]), float(fold.max()),
                      float(bp.tree.spent.max(axis=0).sum()))


def normalize_ranges(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(r / mass, mass) per board; a board with no mass gets the uniform range."""
    m = r.sum(axis=-1)
    u = np.full_like(r, 1.0 / r.shape[-1])
    return np.where(m[..., None] > 0, r / np.where(m > 0, m, 1.0)[..., None], u), m


def features(shape: RoundShape, blocks: np.ndarray, pots: np.ndarray, r0n: np.ndarray, r1n: np.ndarray) -> np.ndarray:
    """float32[G * nb, inputs]: the features of G roots (``pots`` [G, 2] chips put in by each
    player) on the board blocks ``blocks`` [nb] with normalized ranges [G, nb, H]."""
    G, nb, _ = r0n.shape
    onehot = np.zeros((G, nb, shape.blocks), np.float32)
    onehot[:, np.arange(nb), blocks] = 1.0
    pot = np.broadcast_to((pots / shape.top)[:, None, :], (G, nb, 2))
    return np.concatenate([onehot, r0n, r1n, pot], axis=-1).reshape(G * nb, -1).astype(np.float32)


def zero_sum(f: np.ndarray, r0n: np.ndarray, r1n: np.ndarray) -> np.ndarray:
    """f [N, 2H] with half of r̂_0 . f_0 + r̂_1 . f_1 taken from each player's values."""
    H = r0n.shape[-1]
    e = (r0n * f[:, :H]).sum(axis=1) + (r1n * f[:, H:]).sum(axis=1)
    return f - 0.5 * e[:, None]


# -- the leaves -----------------------------------------------------------------------------
class ValueNets:
    """Networks per round for one blueprint's game, as leaf values of depth-limited solves
    (``depth_limited_strategy(..., values=ValueNets(...))``)."""

    def __init__(self, bp: Blueprint, nets: dict[int, CfvNet]) -> None:
        self.bp = bp
        self.shapes = {}
        for r, net in nets.items():
            if net.game.to_text() != bp.tree.game.to_text():
                raise CfrlabError(f"the value network is for {net.game.name or 'another game'}, "
                                  f"not for {bp.tree.game.name or 'this game'}")
            shape = round_shape(bp, r)
            check_fits(net, r, LAYOUT, shape.inputs, shape.outputs)
            self.shapes[r] = shape
        self.nets = dict(nets)

    def leaves(self, fam: Family, leaves: dict[int, int], searcher: int) -> NetLeaves:
        return NetLeaves(self, fam, leaves, searcher)


class NetLeaves(LeafPlaces):
    """The leaves of one depth-limited family valued by the networks: at each leaf the two
    reaches are dealt to the next round's boards, normalized, and both players' values read
    from its round's network (the same interface as ``depth.Leaves``)."""

    def __init__(self, nets: ValueNets, fam: Family, leaves: dict[int, int], searcher: int) -> None:
        super().__init__(fam, leaves, searcher)
        self.nets = nets
        tree = nets.bp.tree
        self.at = {}
        for m, lm in leaves.items():
            c = entry(fam, lm)
            r = int(fam.rnd[c])
            if r not in nets.nets:
                raise CfrlabError(f"no value network for round {r + 1}, where a leaf of this search starts")
            rb = fam.rounds[r]
            self.at[m] = (r, rb.first + np.arange(rb.nb), tree.spent[fam.roots + c].astype(np.float64))

    def both(self, m: int, r0: np.ndarray, r1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both players' counterfactual values [G, nb, H] at leaf m's next round start from the
        reaches there."""
        r, blocks, spent = self.at[m]
        shape, net = self.nets.shapes[r], self.nets.nets[r]
        (r0n, m0), (r1n, m1) = normalize_ranges(r0), normalize_ranges(r1)
        G, nb, H = r0.shape
        f = zero_sum(net.predict(features(shape, blocks, spent, r0n, r1n)), r0n.reshape(-1, H), r1n.reshape(-1, H))
        f = f.reshape(G, nb, 2 * H)
        scale = shape.c * spent.sum(axis=1)[:, None, None]
        return f[..., :H] * scale * m1[..., None], f[..., H:] * scale * m0[..., None]

    def value(self, m: int, i: int, reach, mode: str) -> np.ndarray:
        return self.up(m, self.both(m, self.down(m, reach[0]), self.down(m, reach[1]))[i])

    def opponent_values(self, m: int, searcher_reach: np.ndarray, opponent_reach: np.ndarray) -> np.ndarray:
        pair = [None, None]
        pair[self.s], pair[self.o] = self.down(m, searcher_reach), self.down(m, opponent_reach)
        return self.both(m, *pair)[self.o]
