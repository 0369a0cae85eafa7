"""Action translation rules: an off-tree bet of a no-limit game -> the abstract sizes around it.

Sizes are pot fractions. A raise to ``to`` at a state where the actor must call ``to_call`` into
``pot`` chips (every chip put in so far) has the size

    x = (to - max_spent) / (pot + to_call)

so the pot-size raise is 1 (the ``p`` of ``cfrlab.tree.bets``); a check or call is 0. An
opponent's real size x between two abstract sizes A < x < B (computed at the abstract state)
maps to A with a probability f_A(x) and to B otherwise (Ganzfried and Sandholm, "Action
translation in extensive-form games with large action spaces: axioms, paradoxes, and the
pseudo-harmonic mapping", IJCAI 2013). Rules, by name:

- ``pseudo-harmonic`` (the default, randomized): f_A(x) = (B - x)(1 + A) / ((B - A)(1 + x));
- ``pseudo-harmonic-det``: A when f_A(x) >= 1/2, else B;
- ``geometric``: A when x <= sqrt(A * B), else B (with A = 0, a check, every bet maps to B);
- ``nearest``: the size nearest x (ties to A).

Below the smallest abstract raise, the check/call (size 0) is A; above the largest, x maps to
the largest (the all-in is the largest); an exact match maps to itself. Every rule meets the
axioms f(A) = 1, f(B) = 0, f non-increasing in x, and depends only on the ratios of the bet,
the sizes and the pot (scale invariance).

``Spot`` holds the betting quantities of one decision the rules read (from a ``games.State`` or
from a tree node).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from cfrlab.errors import CfrlabError
from cfrlab.games.state import State

PSEUDO_HARMONIC = "pseudo-harmonic"
RULES = (PSEUDO_HARMONIC, "pseudo-harmonic-det", "geometric", "nearest")
DEFAULT_RULE = PSEUDO_HARMONIC
RANDOMIZED = frozenset({PSEUDO_HARMONIC})
_EXACT = 1e-12  # sizes this close (relative) are the same size


def check_rule(rule: str) -> str:
    """The rule's canonical name; a one-line error listing the rules for any other text."""
    name = str(rule).strip().lower() if isinstance(rule, str) else ""
    if name not in RULES:
        raise CfrlabError(f"unknown translation rule {rule!r}; choose from {', '.join(RULES)}")
    return name


def pseudo_harmonic(a: float, b: float, x: float) -> float:
    """Ganzfried and Sandholm's f_A(x): the probability of mapping x (A <= x <= B) to A."""
    return (b - x) * (1.0 + a) / ((b - a) * (1.0 + x))


def lower_probability(rule: str, a: float, b: float, x: float) -> float:
    """The probability that ``rule`` maps a size x in [A, B] (A < B) to A."""
    if x <= a:
        return 1.0
    if x >= b:
        return 0.0
    if rule == PSEUDO_HARMONIC:
        return pseudo_harmonic(a, b, x)
    if rule == "pseudo-harmonic-det":
        return 1.0 if pseudo_harmonic(a, b, x) >= 0.5 else 0.0
    if rule == "geometric":
        return 1.0 if x * x <= a * b else 0.0
    if rule == "nearest":
        return 1.0 if x - a <= b - x else 0.0
    raise CfrlabError(f"unknown translation rule {rule!r}; choose from {', '.join(RULES)}")


def map_size(x: float, sizes: list[float], rule: str) -> list[tuple[int, float]]:
    """The sizes a real size ``x`` maps to: [(index into ``sizes``, probability)], one or two
    entries with positive probability. ``sizes`` are increasing (a check/call, when it is a
    candidate, is the first, 0.0)."""
    if not sizes:
        raise CfrlabError("an action translates only to an abstract size; none was given")
    last = len(sizes) - 1
    for i, s in enumerate(sizes):
        if abs(x - s) <= _EXACT * max(1.0, abs(s)):
            return [(i, 1.0)]
    if x < sizes[0]:
        return [(0, 1.0)]
    if x > sizes[last]:
        return [(last, 1.0)]
    hi = next(i for i, s in enumerate(sizes) if s > x)
    p = lower_probability(rule, sizes[hi - 1], sizes[hi], x)
    return [(i, q) for i, q in ((hi - 1, p), (hi, 1.0 - p)) if q > 0.0]


class Spot(NamedTuple):
    """The betting at one decision, as the rules read it: the actor and round, the chips in the
    pot, the current bet (``max_spent``), the actor's amount to call, its legal raise-to range
    (``lo``, ``hi``; 0, 0 when it cannot raise), whether it can fold, and its stack."""

    player: int
    round: int
    pot: int
    max_spent: int
    to_call: int
    lo: int
    hi: int
    can_fold: bool
    stack: int

    @property
    def can_raise(self) -> bool:
        return self.hi > 0

    def fraction(self, raise_to: int) -> float:
        """The pot fraction of a raise to ``raise_to`` here (module docstring)."""
        return (raise_to - self.max_spent) / (self.pot + self.to_call)

    def raise_to(self, fraction: float, all_in: bool = False, allin_threshold: float = 0.0) -> int | None:
        """The legal raise-to total of a raise of ``fraction`` times the pot after the call (the
        all-in for ``all_in``), rounded as ``cfrlab.tree.bets`` rounds, clamped to the legal
        range; one that leaves less than ``allin_threshold`` of the stack becomes the all-in.
        None where raising is not legal."""
        if not self.can_raise:
            return None
        if all_in:
            return self.hi
        to = self.max_spent + math.floor(fraction * (self.pot + self.to_call) + 0.5)
        to = min(max(to, self.lo), self.hi)
        if self.hi - to < allin_threshold * self.stack:
            to = self.hi
        return to


def spot_of_state(state: State) -> Spot:
    """The ``Spot`` of the player to act at ``state`` (a state where someone acts)."""
    p = state.current_player()
    if p < 0:
        raise CfrlabError(f"nobody acts at {state!r}: the hand is over")
    bounds = state.raise_range()
    lo, hi = bounds if bounds is not None and not state.game.is_limit else (0, 0)
    top = state.max_spent
    return Spot(p, state.round, state.pot, top, top - state.spent[p], lo, hi,
                state.is_legal("f"), state.game.stack[p])


def spot_of_node(tree, node: int) -> Spot:
    """The ``Spot`` at a decision node of a no-limit ``PublicTree``; ``lo`` and ``hi`` are the
    smallest and largest raise the node holds (the legal range in a full-game tree)."""
    p = int(tree.player[node])
    spent = tree.spent[node]
    top = int(spent.max())
    kids = tree.children(node)
    raises = [int(tree.raise_to[c]) for c in kids if tree.action[c] >= 2]
    lo, hi = (min(raises), max(raises)) if raises else (0, 0)
    can_fold = bool(tree.legal[tree.decision[node], 0])
    return Spot(p, int(tree.round[node]), int(spent.sum()), top, top - int(spent[p]), lo, hi,
                can_fold, int(tree.game.stack[p]))
