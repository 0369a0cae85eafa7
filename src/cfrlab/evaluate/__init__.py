"""Evaluation: exact best response, exploitability, expected value; matches and statistics."""

from cfrlab.engine.values import (  # noqa: F401
    best_response,
    best_response_values,
    expected_value,
    exploitability,
    game_value,
    uniform_policy,
)
