"""The environments' errors and argument checks: one place that says what an action id, a seed,
a hand index and a bet spec are, and what a call out of order is.

Every error is a ``CfrlabError`` (one line), with the builtin base the calling convention
expects: ``KeyError`` for an unknown agent (what PettingZoo's per-agent dicts raise),
``ValueError`` for an action (``IllegalActionError``; PettingZoo raises ``ValueError`` when a
terminated agent steps with an action), ``IndexError`` for a hand index, ``RuntimeError`` for a
call the environment's state does not allow yet or any more.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from cfrlab.errors import CfrlabError, IllegalActionError


class ResetNeededError(CfrlabError, RuntimeError):
    """A call the hand does not allow: before the first ``reset()``, or once the hand is over
    (Gymnasium's ``step`` after ``terminated``; PettingZoo's once every agent has stepped out)."""


class UnknownAgentError(CfrlabError, KeyError):
    """An agent that is not one of the environment's ``possible_agents``."""

    def __str__(self) -> str:  # KeyError would quote the message
        return Exception.__str__(self)


class NotAnActionError(IllegalActionError):
    """A value that is not an action id at all (not an integer, or outside the action space):
    refused under every illegal-action rule, ``illegal="call"`` included."""


class HandIndexError(CfrlabError, IndexError):
    """A hand index of the batched environment that is not an integer 0 .. num_envs - 1."""


def as_int(value) -> int | None:
    """``value`` as a Python int when it is an integer (int, numpy integer, a 0-d integer array:
    what ``operator.index`` takes), None otherwise; bools are not integers here."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def action_id(value, size: int, describe: Callable[[], str]) -> int:
    """``value`` as an action id 0 .. size - 1, or ``NotAnActionError`` (its message ends with
    ``describe()``, the ids' names)."""
    a = as_int(value)
    if a is None or not 0 <= a < size:
        raise NotAnActionError(f"{short_repr(value)} is not an action id: give an integer 0..{size - 1} ({describe()})")
    return a


def check_seed(seed):
    """``seed`` unchanged when it is None or a non-negative integer, else one CfrlabError line."""
    if seed is None:
        return None
    s = as_int(seed)
    if s is None or s < 0:
        raise CfrlabError(f"seed must be a non-negative integer or None, got {short_repr(seed)}")
    return s


def check_bets(bets):
    """``bets`` unchanged when it is None or text, else one CfrlabError line."""
    if bets is not None and not isinstance(bets, str):
        raise CfrlabError(f"bets must be a bet spec such as '0.5p,p,2p,a' or 'fullgame' (text), got {short_repr(bets)}")
    return bets


def hand_index(value, num_envs: int) -> int:
    """``value`` as a hand index 0 .. num_envs - 1, or ``HandIndexError``."""
    i = as_int(value)
    if i is None or not 0 <= i < num_envs:
        raise HandIndexError(f"hand index must be an integer 0..{num_envs - 1}, got {short_repr(value)}")
    return i


def short_repr(value) -> str:
    """``repr(value)`` on one line, cut to 60 characters."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."
