"""Re-solving a blueprint's subgames: the combined strategy (the blueprint outside, the re-solved
strategy inside) and its exact exploitability.

    >>> import cfrlab
    >>> from cfrlab.subgame import resolve_strategy
    >>> blueprint = cfrlab.solve("leduc", "cfr", iterations=30).strategy
    >>> r = resolve_strategy(blueprint, "maxmargin", iterations=200)
    >>> r.exploitability() <= r.blueprint_exploitability() + 1e-3
    True

Each player's subgame strategy comes from its own re-solve (as an agent playing that seat
would compute it): the re-solver's range is its blueprint reach at the root, the opponent's
is fixed (``unsafe``) or replaced by a gadget on its blueprint values (``methods``). Every
root of the round and every board is re-solved; ``resolve_root`` re-solves one root and one
board, the unit an agent needs when it reaches a subgame.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cfrlab.engine import exploitability
from cfrlab.errors import CfrlabError
from cfrlab.strategy import Strategy
from cfrlab.subgame.cut import Blueprint, Cut, blueprint_of, cut
from cfrlab.subgame.local import Family, families, family_sigma
from cfrlab.subgame.methods import METHODS, Ranges, family_values, normalized, solve_family

ROUND_NAMES = {"preflop": 0, "flop": 1, "turn": 2}
MAX_ITERATIONS = 1_000_000


@dataclass
class SubgameResult:
    """A re-solve: ``strategy`` is the combined strategy in exact cards (a lossless Strategy),
    ``blueprint`` the blueprint in exact cards (lifted when it was card-abstracted)."""

    strategy: Strategy
    blueprint: Strategy
    method: str
    round: int  # 0-based round the subgames start at
    iterations: int
    roots: int  # public roots re-solved (betting sequences), each over every board
    seconds: float
    _cache: dict = field(default_factory=dict, repr=False)

    def exploitability(self) -> float:
        """The combined strategy's exact exploitability in chips per game."""
        if "combined" not in self._cache:
            s = self.strategy
            self._cache["combined"] = float(exploitability(s.tree, s.model, s.policy))
        return self._cache["combined"]

    def blueprint_exploitability(self) -> float:
        """The blueprint's exact exploitability in chips per game (exact cards)."""
        if "blueprint" not in self._cache:
            b = self.blueprint
            self._cache["blueprint"] = float(exploitability(b.tree, b.model, b.policy))
        return self._cache["blueprint"]


def subgame_round(game, round: int | str = "last") -> int:
    """The 0-based round a subgame starts at: an int (1 to rounds-1), "last" or "river" (the
    last round), "flop" or "turn" (rounds 1 and 2)."""
    R = game.num_rounds
    if isinstance(round, str):
        name = round.strip().lower()
        if name in ("last", "river"):
            return R - 1
        if name not in ROUND_NAMES:
            raise CfrlabError(f"unknown round {round!r}: give last, river, flop, turn or a number 1 to {R - 1}")
        r = ROUND_NAMES[name]
    elif isinstance(round, (int, np.integer)) and not isinstance(round, bool):
        r = int(round)
    else:
        raise CfrlabError(f"a round is a number or a name, got {round!r}")
    if not 1 <= r < R:
        raise CfrlabError(f"a subgame starts at the start of a later round: round must be 1 to {R - 1} "
                          f"(0 is the first round) in {game.name or 'this game'}, got {r}")
    return r


def check_method(method: str) -> str:
    m = str(method).strip().lower()
    if m not in METHODS:
        raise CfrlabError(f"unknown subgame method {method!r}: choose one of {', '.join(METHODS)}")
    return m


def check_iterations(iterations) -> int:
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)):
        raise CfrlabError(f"iterations must be a whole number, got {iterations!r}")
    if not 1 <= int(iterations) <= MAX_ITERATIONS:
        raise CfrlabError(f"iterations must be 1 to {MAX_ITERATIONS:,}, got {iterations}")
    return int(iterations)


def resolve_strategy(blueprint: Strategy, method: str = "resolve", *, round: int | str = "last",
                     iterations: int = 300) -> SubgameResult:
    """Re-solve every subgame starting at ``round`` (every public root of that round, every
    board) of the 2-player ``blueprint`` with ``method`` (one of ``METHODS``: unsafe,
    resolve, maxmargin, reach) by ``iterations`` of CFR+ each; the result's ``strategy`` is
    the blueprint with the re-solved subgames in place, in exact cards."""
    m = check_method(method)
    n = check_iterations(iterations)
    t0 = time.perf_counter()
    bp = blueprint_of(blueprint)
    rnd = subgame_round(bp.strategy.game, round)
    c = cut(bp, rnd)
    policy = bp.policy.copy()
    B = int(bp.engine.num_blocks(rnd))
    for fam in families(bp, rnd, c.roots, (0, B)):
        _resolve_family(c, fam, m, n, policy)
    return _result(bp, policy, m, rnd, n, len(c.roots), time.perf_counter() - t0)


def resolve_root(subgames: Cut, node: int, block: int, method: str, player: int,
                 iterations: int = 300) -> dict[int, np.ndarray]:
    """Re-solve one subgame: the root ``node`` (a decision node starting ``subgames.round``) on
    board ``block`` of the lossless model, for ``player``; returns {decision index: float64[H,
    A]}, ``player``'s re-solved rows of that board at each of its decisions below the root."""
    m = check_method(method)
    n = check_iterations(iterations)
    if player not in (0, 1):
        raise CfrlabError(f"player must be 0 or 1, got {player}")
    bp = subgames.blueprint
    k = subgames.root_index(node)
    B = int(bp.engine.num_blocks(subgames.round))
    if not 0 <= block < B:
        raise CfrlabError(f"board block must be 0 to {B - 1}, got {block}")
    (fam,) = families(bp, subgames.round, subgames.roots[[k]], (block, block + 1))
    fam.index = np.array([k])
    avg = solve_family(fam, m, player, _ranges(subgames, fam, m, 1 - player), n)
    out = {}
    for lm, a in avg.items():
        if fam.player[lm] == player:
            pol, _ = normalized(a, fam.legal[lm])
            out[int(fam.decision[0, lm])] = pol[0, 0]
    return out


def _ranges(c: Cut, fam: Family, method: str, opp: int) -> Ranges:
    """The family's root ranges and the opponent's alternative values (blueprint best-response
    values; plus the gifts with ``reach``)."""
    rb = fam.rounds[c.round]
    cols = slice(rb.first * rb.H, (rb.first + rb.nb) * rb.H)
    shape = (len(fam.index), rb.nb, rb.H)
    at = lambda a, p: a[fam.index, p, cols].reshape(shape)
    alt = at(c.cbv, opp)
    weight = at(c.weight, opp)
    if method == "reach":
        alt = alt + weight * at(c.gift, opp)
    return Ranges((at(c.reach, 0), at(c.reach, 1)), alt, weight)


def _resolve_family(c: Cut, fam: Family, method: str, iterations: int, policy: np.ndarray) -> None:
    players = ((0, 1),) if method == "unsafe" else ((0,), (1,))
    for group in players:
        p = group[0]
        avg = solve_family(fam, method, p, _ranges(c, fam, method, 1 - p), iterations)
        for lm, a in avg.items():
            if fam.player[lm] in group:
                _write(c.blueprint, fam, lm, a, policy)


def _write(bp: Blueprint, fam: Family, lm: int, avg: np.ndarray, policy: np.ndarray) -> None:
    """The re-solved rows of local decision ``lm`` into ``policy``; rows the average never
    reached (the player never holds those cards there) keep the blueprint's."""
    pol, reached = normalized(avg, fam.legal[lm])
    rb = fam.rounds[int(fam.rnd[lm])]
    A = policy.shape[1]
    for g in range(len(fam.roots)):
        d = int(fam.decision[g, lm])
        start = int(bp.engine.row_offset[d]) + rb.first * rb.H
        rows = np.arange(start, start + rb.nb * rb.H)
        hit = reached[g].reshape(-1)
        policy[rows[hit]] = pol[g].reshape(-1, A)[hit]


def _result(bp: Blueprint, policy: np.ndarray, method: str, rnd: int, iterations: int, roots: int,
            seconds: float) -> SubgameResult:
    src = bp.strategy
    game = src.game
    lifted = src if src.model is bp.model else Strategy.from_policy(
        game, bp.policy, tree=bp.tree, model=bp.model, algorithm=src.algorithm,
        extra={"lifted_from": str(src.model.kind)})
    combined = Strategy.from_policy(
        game, policy, tree=bp.tree, model=bp.model, algorithm=f"subgame-{method}",
        params={"blueprint": src.algorithm, "method": method, "round": rnd, "iterations": iterations},
        iterations=iterations, seconds=seconds)
    return SubgameResult(combined, lifted, method, rnd, iterations, roots, seconds)


def subgame_values(c: Cut, policy: np.ndarray) -> np.ndarray:
    """float64[K, B]: player 0's expected winnings in each subgame (root x board) of the cut when
    both players follow ``policy`` (in the blueprint's lossless layout) inside it, reached with
    the blueprint's ranges. The values of all subgames add up to player 0's winnings from them."""
    bp = c.blueprint
    B = int(bp.engine.num_blocks(c.round))
    out = np.zeros((len(c.roots), B))
    for fam in families(bp, c.round, c.roots, (0, B)):
        sigma = family_sigma(fam, policy, bp.engine.row_offset)
        r = _ranges(c, fam, "unsafe", 1)
        v0 = family_values(fam, sigma, r.reach, 0)
        out[fam.index] = (r.reach[0] * v0).sum(axis=-1)
    return out
