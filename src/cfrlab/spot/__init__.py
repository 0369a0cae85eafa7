"""Postflop spots: a board, two ranges, the pot, the stacks and the bet sizes (docs/spots.md).

``load_spot`` / ``make_spot`` (``cfrlab.spot.config``) give a validated ``Spot``;
``spot_tree`` its public betting tree and ``spot_size`` its size and the memory of an exact
solve, before anything big is built (``cfrlab.spot.tree``); ``SpotModel`` the chance of the
two ranges with exact cards (``cfrlab.spot.model``); ``solve_spot`` the CFR family on them, to
an exploitability in percent of the pot (``cfrlab.spot.solve``).
"""

from cfrlab.spot.config import Spot, load_spot, make_spot
from cfrlab.spot.model import SpotModel
from cfrlab.spot.solve import SpotSolution, pot_percent, solve_spot
from cfrlab.spot.tree import SpotBets, SpotSize, spot_size, spot_tree

__all__ = ["Spot", "SpotBets", "SpotModel", "SpotSize", "SpotSolution", "load_spot", "make_spot",
           "pot_percent", "solve_spot", "spot_size", "spot_tree"]
