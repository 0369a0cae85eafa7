"""Exact best response, exploitability and expected value with the vector walk.

The walk is the solver's (``cfrlab.engine._kernels``) with the policy fixed: reach
vectors forward, terminal values through the chance tables, then bottom-up values that take
the maximum over actions at the responder's nodes (best response) or the expectation under
the policy (expected value). Values at the root are counterfactual, so a player's value is
the sum of its root vector over private states. Policies use the ENGINE.md layout
(float64[rows, 3], row = ``row_offset[d] + state``). Values are in chips.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfrlab.engine import _kernels as K
from cfrlab.engine.core import Engine, get_engine
from cfrlab.errors import CfrlabError

_NO_F32 = np.zeros(0, dtype=np.float32)  # exact walks run in float64


def _check_policy(engine: Engine, policy) -> np.ndarray:
    pol = np.ascontiguousarray(policy, dtype=np.float64)
    A = engine.num_actions
    if pol.shape != (engine.num_rows, A):
        raise CfrlabError(f"policy has shape {pol.shape}; this game and abstraction need ({engine.num_rows}, {A})")
    return pol


def _walk(engine: Engine, sigma: np.ndarray, player: int, mode: int, br_action=None) -> float:
    """Player's value under the fixed policy ``sigma`` (mode: K.MODE_VALUE or K.MODE_BR)."""
    lay = engine.layout()
    reach, values = engine.scratch()
    if br_action is None:
        br_action = np.zeros(engine.num_rows, dtype=np.int8)
    e = engine
    walk = K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off)
    ops = K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, _NO_F32, e.opint, e.opc)
    return K.evaluate_fixed(walk, ops, e.num_states, sigma, player, mode, reach, values, br_action)


def best_response(tree, model, policy, responder: int) -> tuple[float, np.ndarray]:
    """(value of the best response for ``responder`` in chips, br_policy float64[rows, 3]).

    ``br_policy`` is ``policy`` with the responder's rows replaced by its pure best response
    (ties go to the lowest action: fold, then call, then raise).
    """
    if responder not in (0, 1):
        raise CfrlabError(f"responder must be 0 or 1, got {responder}")
    e = get_engine(tree, model)
    pol = _check_policy(e, policy)
    br_action = np.zeros(e.num_rows, dtype=np.int8)
    value = _walk(e, pol, responder, K.MODE_BR, br_action)
    out = pol.copy()
    rows = e.player_of_row == responder
    out[rows] = 0.0
    out[np.flatnonzero(rows), br_action[rows]] = 1.0
    return value, out


def best_response_values(tree, model, policy) -> tuple[float, float]:
    """(u0(BR, s1), u1(s0, BR)) in chips."""
    e = get_engine(tree, model)
    pol = _check_policy(e, policy)
    return _walk(e, pol, 0, K.MODE_BR), _walk(e, pol, 1, K.MODE_BR)


def exploitability(tree, model, policy) -> float:
    """(u0(BR, s1) + u1(s0, BR)) / 2 in chips (docs/ENGINE.md convention; 0 at equilibrium)."""
    b0, b1 = best_response_values(tree, model, policy)
    return 0.5 * (b0 + b1)


def expected_value(tree, model, policy_a, policy_b) -> float:
    """Player 0's expected winnings (chips) when 0 follows policy_a and 1 follows policy_b."""
    e = get_engine(tree, model)
    a = _check_policy(e, policy_a)
    if policy_b is policy_a:  # self-play: no merged copy (a policy-sized array)
        return _walk(e, a, 0, K.MODE_VALUE)
    b = _check_policy(e, policy_b)
    sigma = np.where((e.player_of_row == 0)[:, None], a, b)
    return _walk(e, np.ascontiguousarray(sigma), 0, K.MODE_VALUE)


def game_value(tree, model, policy) -> float:
    """Player 0's expected winnings (chips) when both players follow ``policy``."""
    return expected_value(tree, model, policy, policy)


def uniform_policy(tree, model) -> np.ndarray:
    """float64[rows, 3]: every legal action equally likely."""
    e = get_engine(tree, model)
    leg = e.legal[e.decision_of_row].astype(np.float64)
    return leg / leg.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Evaluation:
    """Exact figures of a profile, chips per game: ``values[p]`` (everyone plays the profile),
    ``br_values[p]`` (p best-responds), ``nash_conv`` = sum(br_values - values)."""

    values: tuple[float, ...]
    br_values: tuple[float, ...]
    nash_conv: float

    @property
    def gains(self) -> tuple[float, ...]:
        """What each player gains by deviating to a best response."""
        return tuple(b - v for b, v in zip(self.br_values, self.values))

    def to_json(self) -> dict:
        return {"nash_conv": self.nash_conv, "values": list(self.values), "br_values": list(self.br_values),
                "gains": list(self.gains)}


class PairEvaluator:
    """The exact figures of 2-player policies on one (tree, chance model), with the interface
    the N-player engine has (``nplayer.NEngine``), so a caller asks either the same way
    (``models.evaluator_for`` picks). Zero-sum: player 1's value is minus player 0's, and
    NashConv is the sum of the two best-response values without a value walk."""

    num_players = 2

    def __init__(self, tree, model) -> None:
        self.tree, self.model = tree, model

    def profile_values(self, policy: np.ndarray) -> np.ndarray:
        v = expected_value(self.tree, self.model, policy, policy)
        return np.array([v, -v])

    def best_response(self, policy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
        return best_response(self.tree, self.model, policy, player)

    def best_response_values(self, policy: np.ndarray) -> np.ndarray:
        return np.array(best_response_values(self.tree, self.model, policy))

    def best_responses(self, policy: np.ndarray) -> tuple[tuple[float, ...], float]:
        """(each player's best-response value, NashConv)."""
        b0, b1 = best_response_values(self.tree, self.model, policy)
        return (float(b0), float(b1)), float(b0 + b1)

    def evaluate(self, policy: np.ndarray) -> Evaluation:
        v = float(expected_value(self.tree, self.model, policy, policy))
        (b0, b1), nc = self.best_responses(policy)
        return Evaluation((v, -v), (b0, b1), nc)

    def nash_conv(self, policy: np.ndarray) -> float:
        return self.best_responses(policy)[1]
