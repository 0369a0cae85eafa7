"""What the 2-player (``openspiel``) and N-player (``openspiel_nplayer``) OpenSpiel exchanges share.

Both speak the same format (``{information-state string: {action id: probability}}``) and
OpenSpiel writes ``kuhn_poker`` / ``leduc_poker`` states the same way for any player count, so
the paths, action ids, state strings, distributions, JSON files and TabularPolicy conversions
live here once. Nothing here imports OpenSpiel except the functions that build or read its objects.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cfrlab.cards import deck
from cfrlab.errors import CfrlabError
from cfrlab.fileio import atomic_write_text

LEDUC_STARTING_MONEY = 100  # OpenSpiel leduc_poker's default stack
PROB_TOLERANCE = 1e-6  # how far an imported distribution may sum from 1 before it is refused


@dataclass(frozen=True)
class InfoState:
    """One OpenSpiel information state and where it lives in cfrlab's tree."""

    key: str
    node: int
    player: int
    round: int
    hole: tuple[int, ...]
    board: tuple[int, ...]


def kuhn_action(tree, node: int, a: int) -> int:
    """OpenSpiel Kuhn action (0 pass, 1 bet) of cfrlab action a at `node`."""
    facing_bet = bool(tree.legal[tree.decision[node], 0])
    return a if facing_bet else a - 1


def legal_action_ids(tree, node: int, kuhn: bool) -> dict[int, int]:
    """OpenSpiel action id -> cfrlab column, for the legal actions at `node` (Kuhn's pass/bet
    ids, or Leduc's and limit universal_poker's, which are cfrlab's columns)."""
    legal = np.flatnonzero(tree.legal[tree.decision[node]])
    if kuhn:
        return {kuhn_action(tree, node, int(a)): int(a) for a in legal}
    return {int(a): int(a) for a in legal}


def kuhn_leduc_infostates(game, tree, kuhn: bool) -> Iterator[InfoState]:
    """Every information state of OpenSpiel's ``kuhn_poker`` (``kuhn``) or ``leduc_poker`` with
    the game's player count (the strings are in the module docs of openspiel / openspiel_nplayer)."""
    cards = deck(game.num_ranks, game.num_suits)
    P = game.num_players
    for n in tree.decision_node:
        n = int(n)
        p, r = int(tree.player[n]), int(tree.round[n])
        path = tree.decisions_to(n)
        if kuhn:
            hist = "".join("pb"[kuhn_action(tree, m, a)] for m, a in path)
            for i, c in enumerate(cards):
                yield InfoState(f"{i}{hist}", n, p, r, (c,), ())
            continue
        rounds: list[list[str]] = [[], []]
        for m, a in path:
            rounds[int(tree.round[m])].append(str(a))
        spent = [int(tree.spent[n, j]) for j in range(P)]
        money = " ".join(str(LEDUC_STARTING_MONEY - s) for s in spent)
        head = f"[Observer: {p}][Private: {{c}}][Round {r + 1}][Player: {p}][Pot: {sum(spent)}][Money: {money}]"
        tail = f"[Round1: {' '.join(rounds[0])}][Round2: {' '.join(rounds[1])}]"
        for i, c in enumerate(cards):
            if r == 0:
                yield InfoState(head.format(c=i) + tail, n, p, r, (c,), ())
                continue
            for j, b in enumerate(cards):
                if j != i:
                    yield InfoState(head.format(c=i) + f"[Public: {j}]" + tail, n, p, r, (c,), (b,))


def distribution(key: str, entry, actions: dict[int, int], width: int) -> np.ndarray:
    """cfrlab row (its ``width`` columns) from one OpenSpiel entry over the legal OpenSpiel actions."""
    items = entry.items() if isinstance(entry, Mapping) else entry
    row = np.zeros(width)
    try:
        pairs = [(int(a), float(p)) for a, p in items]
    except (TypeError, ValueError):
        raise CfrlabError(f"{key!r}: expected {{action id: probability}}, got {entry!r}") from None
    for a, p in pairs:
        if not np.isfinite(p) or p < 0:
            raise CfrlabError(f"{key!r}: probability {p} of action {a} is not a probability")
        if a not in actions:
            if p > 0:
                raise CfrlabError(f"{key!r}: action {a} is not legal there (legal: {sorted(actions)})")
            continue
        row[actions[a]] += p
    total = row.sum()
    if abs(total - 1.0) > PROB_TOLERANCE:
        raise CfrlabError(f"{key!r}: probabilities sum to {total}, not 1")
    # rescale only what is visibly off, so that export -> import is bit-identical
    return row if abs(total - 1.0) <= 1e-12 else row / total


# -- files ----------------------------------------------------------------------------


def write_policy_json(path: str | Path, mapping: Mapping) -> int:
    """Write an OpenSpiel map as JSON (atomic); returns the number of states."""
    text = json.dumps({k: {str(a): p for a, p in v.items()} for k, v in mapping.items()}, indent=1)
    atomic_write_text(path, text + "\n")
    return len(mapping)


def read_policy_json(path: str | Path) -> dict:
    """The JSON object of an OpenSpiel map file (checked to be an object, not yet against a game)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise CfrlabError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CfrlabError(f"{p}: not a JSON OpenSpiel policy ({e})") from None
    if not isinstance(data, dict):
        raise CfrlabError(
            f"{p}: expected a JSON object {{information state: {{action: probability}}}}"
        )
    return data


# -- OpenSpiel objects (need open_spiel) -----------------------------------------------


def pyspiel_module():
    """``pyspiel``, or a CfrlabError saying it is not installed."""
    try:
        import pyspiel
    except ImportError:
        raise CfrlabError("OpenSpiel is not installed (pip install open_spiel)") from None
    return pyspiel


def to_openspiel_policy(mapping: Mapping, os_game):
    """An ``open_spiel.python.policy.TabularPolicy`` holding `mapping`."""
    from open_spiel.python import policy as os_policy

    tab = os_policy.TabularPolicy(os_game)
    for key, idx in tab.state_lookup.items():
        row = np.zeros(tab.action_probability_array.shape[1])
        for a, prob in mapping[key].items():
            row[int(a)] = prob
        tab.action_probability_array[idx] = row
    return tab


def from_openspiel_policy(tab) -> dict[str, dict[int, float]]:
    """The map of an OpenSpiel ``TabularPolicy`` (legal actions only)."""
    out = {}
    for key, idx in tab.state_lookup.items():
        legal = np.flatnonzero(tab.legal_actions_mask[idx])
        out[key] = {int(a): float(tab.action_probability_array[idx, a]) for a in legal}
    return out


def policy_mapping(policy, infostates: Callable[[], Iterable[InfoState]]) -> dict[str, dict[int, float]]:
    """The map of an OpenSpiel policy: a Python ``TabularPolicy``, or a pyspiel (C++) policy asked
    state by state for each of ``infostates()`` (called only then: it may build a tree)."""
    if hasattr(policy, "state_lookup"):  # a Python TabularPolicy
        return from_openspiel_policy(policy)
    if not hasattr(policy, "get_state_policy"):
        raise CfrlabError(f"not an OpenSpiel policy or solver: {type(policy).__name__}")
    mapping = {}
    for info in infostates():
        try:
            mapping[info.key] = {int(a): float(p) for a, p in policy.get_state_policy(info.key)}
        except Exception as e:  # noqa: BLE001 - pyspiel raises its own types
            raise CfrlabError(f"the OpenSpiel policy has no entry for {info.key!r} ({e})") from None
    return mapping
