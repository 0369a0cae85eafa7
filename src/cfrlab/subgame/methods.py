"""The re-solving methods on one family of subgames, by CFR+ (regret matching+, alternating
updates, linearly weighted average).

- ``unsafe``: both ranges fixed at the root (endgame solving: Ganzfried and Sandholm, "Endgame
  solving in large imperfect-information games", AAMAS 2015); one solve gives both players.
- ``resolve``: the re-solving gadget of CFR-D (Burch, Johanson and Bowling, "Solving imperfect
  information games using decomposition", AAAI 2014): at each of its root states the opponent
  either enters the subgame or takes its blueprint counterfactual best-response value.
- ``maxmargin``: the gadget of Moravčík, Schmid, Ha, Hladík and Gaukrodger ("Refining subgames
  in large imperfect information games", AAAI 2016): the opponent picks one of its root states
  (regret matching over the states of a board) and gets the margin, its value there per unit
  of weight minus the blueprint's; the re-solver maximizes the smallest margin.
- ``reach``: maxmargin with each alternative value raised by the opponent's gifts (Brown and
  Sandholm, "Safe and nested subgame solving for imperfect-information games", NIPS 2017):
  reach-maxmargin, with the gift split over the roots as ``cut._gifts`` says.

The re-solver's range is its blueprint reach at the root; in ``resolve``, ``maxmargin`` and
``reach`` the opponent's range is not used (its counterfactual values are), which is what makes
them safe: the blueprint is a solution of the gadget with every margin 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from cfrlab.engine.kernels import regret_match
from cfrlab.subgame.local import Family, backward, forward
from cfrlab.tree.betting_tree import DECISION

METHODS = ("unsafe", "resolve", "maxmargin", "reach")
GADGETS = ("resolve", "maxmargin", "reach")


@dataclass
class Ranges:
    """A family's root data for one re-solve, each float64[G, nb, H] (per player where paired)."""

    reach: tuple  # the blueprint reach of players 0 and 1
    alt: np.ndarray  # the opponent's alternative (counterfactual) values
    weight: np.ndarray  # the opponent's counterfactual weights


class Gadget:
    """The opponent's root choice: its reach into the subgame and its regret update."""

    def __init__(self, method: str, ranges: Ranges, opponent: int) -> None:
        self.method, self.r, self.o = method, ranges, opponent
        shape = ranges.alt.shape
        self.live = ranges.weight > 0
        if method == "resolve":
            self.regret = np.zeros((2, *shape))
        else:
            self.regret = np.zeros(shape)

    def reach(self) -> np.ndarray:
        if self.method == "unsafe":
            return self.r.reach[self.o]
        if self.method == "resolve":
            return regret_match(self.regret, axis=0)[0]
        q = regret_match(self.regret, self.live)
        return np.divide(q, self.r.weight, out=np.zeros_like(q), where=self.live)

    def update(self, v: np.ndarray) -> None:
        """CFR+ on the opponent's root choice given its root values ``v``."""
        alt = self.r.alt
        if self.method == "resolve":
            f = regret_match(self.regret, axis=0)
            g = f[0] * v + f[1] * alt
            self.regret[0] = np.maximum(self.regret[0] + v - g, 0.0)
            self.regret[1] = np.maximum(self.regret[1] + alt - g, 0.0)
        elif self.method != "unsafe":
            margin = np.divide(v - alt, self.r.weight, out=np.zeros_like(v), where=self.live)
            q = self.reach() * self.r.weight
            g = (q * margin).sum(axis=-1, keepdims=True)
            self.regret = np.where(self.live, np.maximum(self.regret + margin - g, 0.0), 0.0)


def solve_family(fam: Family, method: str, player: int, ranges: Ranges, iterations: int, *,
                 average: tuple | None = None, deadline: float | None = None,
                 info: dict | None = None, leaves=None) -> dict:
    """CFR+ on the family's subgames; returns {local decision: average policy float64[G, nb, H,
    A]} for ``player``'s decisions (both players' with ``unsafe``; the decisions of the players
    in ``average`` if given), rows never reached all 0.

    ``deadline`` (a ``time.perf_counter()`` time) stops after the iteration that passes it (at
    least one is run); ``info["iterations"]`` is then set to the iterations done. ``leaves``:
    the values of a depth-limited family's ``LEAF`` nodes (``subgame.depth.Leaves``)."""
    opp = 1 - player
    gadget = Gadget(method, ranges, opp)
    movers = (0, 1) if method == "unsafe" else (player, opp)
    dec = [m for m in range(fam.size) if fam.kind[m] == DECISION]
    base = ranges.reach[0]
    regret = {m: np.zeros((len(fam.children[m]), *_shape_at(fam, m, base))) for m in dec}
    keep = (0, 1) if method == "unsafe" else (player,)
    avg = {m: np.zeros_like(regret[m]) for m in dec if fam.player[m] in (keep if average is None else average)}
    sigma = {m: regret_match(regret[m], axis=0) for m in dec}
    for t in range(1, iterations + 1):
        for i in movers:
            root = [ranges.reach[0], ranges.reach[1]]
            root[opp] = gadget.reach()
            reach = forward(fam, sigma, tuple(root))

            def update(m, cv, v, own, t=t):
                reg = regret[m]
                reg += cv
                reg -= v[None]
                np.maximum(reg, 0.0, out=reg)
                if m in avg:
                    avg[m] += (t * own)[None] * sigma[m]

            vals = backward(fam, sigma, reach, i, "cfr", update, None if leaves is None else leaves.value)
            for m in dec:  # the traverser's new strategy for the next walk
                if fam.player[m] == i:
                    sigma[m] = regret_match(regret[m], axis=0)
            if i == opp:
                gadget.update(vals[0])
        if info is not None:
            info["iterations"] = t
        if deadline is not None and time.perf_counter() >= deadline:
            break
    return {m: _columns(fam, m, a) for m, a in avg.items()}


def _columns(fam: Family, m: int, a: np.ndarray) -> np.ndarray:
    """A child-first table [children, ...] in the tree's action columns [..., A] (0 in the
    others)."""
    out = np.zeros((*a.shape[1:], fam.legal.shape[1]))
    out[..., fam.cols[m]] = np.moveaxis(a, 0, -1)
    return out


def _shape_at(fam: Family, m: int, base: np.ndarray) -> tuple:
    rb = fam.rounds[int(fam.rnd[m])]
    return (base.shape[0], rb.nb, rb.H)


def normalized(avg: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(policy, reached): the average's rows as distributions, and which rows had weight."""
    tot = avg.sum(axis=-1, keepdims=True)
    reached = tot[..., 0] > 0
    pol = np.where(tot > 0, avg / np.where(tot > 0, tot, 1.0), legal / legal.sum())
    return pol, reached


def family_values(fam: Family, sigma: dict, root_reach: tuple, i: int, mode: str = "value",
                  leaves=None) -> np.ndarray:
    """Player i's root values (float64[G, nb, H]) under the family policy ``sigma`` (mode
    "value"), or its best response to the other player's part of it (mode "br")."""
    reach = forward(fam, sigma, root_reach)
    return backward(fam, sigma, reach, i, mode, None, None if leaves is None else leaves.value)[0]
