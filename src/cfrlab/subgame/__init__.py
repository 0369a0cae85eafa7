"""Subgame solving of a blueprint: cut the subgames that start a round, re-solve them with
exact cards, and put them back (the combined strategy).

``resolve_strategy(blueprint, method, round="last", iterations=N)`` re-solves every subgame of
a round by one of ``METHODS``: ``unsafe`` (Ganzfried and Sandholm, AAMAS 2015), ``resolve``
(the CFR-D gadget of Burch, Johanson and Bowling, AAAI 2014), ``maxmargin`` (Moravčík, Schmid,
Ha, Hladík and Gaukrodger, AAAI 2016) and ``reach`` (reach-maxmargin, Brown and Sandholm, NIPS
2017). ``cut`` gives the ranges and blueprint values at the roots, ``resolve_root`` re-solves
one root on one board. See docs/subgame.md.
"""

from cfrlab.subgame.cut import Blueprint, Cut, blueprint_of, cut  # noqa: F401
from cfrlab.subgame.methods import GADGETS, METHODS  # noqa: F401
from cfrlab.subgame.resolve import (  # noqa: F401
    SubgameResult,
    resolve_root,
    resolve_strategy,
    subgame_round,
    subgame_values,
)
