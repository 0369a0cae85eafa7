"""Postflop spots: a board, two ranges, the pot, the stacks and the bet sizes (docs/spots.md).

``load_spot`` / ``make_spot`` (``cfrlab.spot.config``) give a validated ``Spot``;
``spot_tree`` its public betting tree and ``spot_size`` its size and the memory of an exact
solve, before anything big is built (``cfrlab.spot.tree``). Solving comes next.
"""

from cfrlab.spot.config import Spot, load_spot, make_spot
from cfrlab.spot.tree import SpotBets, SpotSize, spot_size, spot_tree

__all__ = ["Spot", "SpotBets", "SpotSize", "load_spot", "make_spot", "spot_size", "spot_tree"]
