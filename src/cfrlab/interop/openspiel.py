"""Strategies to and from OpenSpiel's ``kuhn_poker`` and ``leduc_poker``.

The exchange format is OpenSpiel's tabular-policy content as JSON: a map
``{information-state string: {action id: probability}}`` over the acting player's legal
actions. Nothing here imports OpenSpiel (a dev dependency) except ``to_openspiel_policy``.

How the two games line up (checked against pyspiel in tests/test_openspiel.py):

- Cards. OpenSpiel deals cards ``0 .. n-1`` with rank ``card // suits``; cfrlab's deck in
  ascending id order has the same rank order, so OpenSpiel card i is ``deck()[i]``:
  Kuhn J Q K = Qs Ks As; Leduc J J Q Q K K = Qh Qs Kh Ks Ah As (suits never matter there).
- Kuhn strings: the card then the history, ``"1pb"`` = holding Ks after pass, bet. Actions:
  0 pass, 1 bet. Facing a bet, pass = fold and bet = call; otherwise pass = check and
  bet = raise.
- Leduc strings: ``[Observer: p][Private: c][Round r][Player: p][Pot: pot][Money: m0 m1]``,
  then ``[Public: b]`` in round 2, then ``[Round1: a a][Round2: a]`` (the action ids of each
  round, space separated). Pot is both players' chips in, money is 100 minus each player's
  chips in. Actions: 0 fold, 1 call/check, 2 raise, the same as cfrlab's columns.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cfrlab.cards import deck
from cfrlab.engine import build_tree_for, model_for_game, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.fileio import atomic_write_text
from cfrlab.games import load_game
from cfrlab.strategy import Strategy
from cfrlab.tree import DECISION

OPENSPIEL_GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
LEDUC_STARTING_MONEY = 100  # OpenSpiel leduc_poker's default stack
PROB_TOLERANCE = 1e-6  # how far an imported distribution may sum from 1 before it is refused




def openspiel_game_name(game) -> str:
    """``"kuhn_poker"`` or ``"leduc_poker"`` for cfrlab's kuhn / leduc (compared by rules)."""
    for ours, theirs in OPENSPIEL_GAMES.items():
        if load_game(ours).to_text() == game.to_text():
            return theirs
    raise CfrlabError(
        f"{game.name or 'this game'} has no OpenSpiel counterpart; OpenSpiel interop covers "
        f"{' and '.join(OPENSPIEL_GAMES)} only"
    )


@dataclass(frozen=True)
class InfoState:
    """One OpenSpiel information state and where it lives in cfrlab's tree."""

    key: str
    node: int
    player: int
    round: int
    hole: tuple[int, ...]
    board: tuple[int, ...]


def _path(tree, node: int) -> list[tuple[int, int]]:
    """(decision node, action) pairs from the root to `node`."""
    out = []
    n = node
    while tree.parent[n] >= 0:
        p = int(tree.parent[n])
        if tree.kind[p] == DECISION:
            out.append((p, int(tree.action[n])))
        n = p
    return out[::-1]


def _kuhn_action(tree, node: int, a: int) -> int:
    """OpenSpiel Kuhn action (0 pass, 1 bet) of cfrlab action a at `node`."""
    facing_bet = bool(tree.legal[tree.decision[node], 0])
    return a if facing_bet else a - 1


def _our_actions(tree, node: int, os_name: str) -> dict[int, int]:
    """OpenSpiel action id -> cfrlab column, for the legal actions at `node`."""
    legal = np.flatnonzero(tree.legal[tree.decision[node]])
    if os_name == "kuhn_poker":
        return {_kuhn_action(tree, node, int(a)): int(a) for a in legal}
    return {int(a): int(a) for a in legal}


def openspiel_infostates(game, tree) -> Iterator[InfoState]:
    """Every OpenSpiel information state of the game (one per decision node and cards)."""
    name = openspiel_game_name(game)
    cards = deck(game.num_ranks, game.num_suits)
    for n in tree.decision_node:
        n = int(n)
        p, r = int(tree.player[n]), int(tree.round[n])
        path = _path(tree, n)
        if name == "kuhn_poker":
            hist = "".join("pb"[_kuhn_action(tree, m, a)] for m, a in path)
            for i, c in enumerate(cards):
                yield InfoState(f"{i}{hist}", n, p, r, (c,), ())
            continue
        rounds = [[], []]
        for m, a in path:
            rounds[int(tree.round[m])].append(str(a))
        s0, s1 = int(tree.spent[n, 0]), int(tree.spent[n, 1])
        head = (
            f"[Observer: {p}][Private: {{c}}][Round {r + 1}][Player: {p}][Pot: {s0 + s1}]"
            f"[Money: {LEDUC_STARTING_MONEY - s0} {LEDUC_STARTING_MONEY - s1}]"
        )
        tail = f"[Round1: {' '.join(rounds[0])}][Round2: {' '.join(rounds[1])}]"
        for i, c in enumerate(cards):
            if r == 0:
                yield InfoState(head.format(c=i) + tail, n, p, r, (c,), ())
                continue
            for j, b in enumerate(cards):
                if j != i:
                    yield InfoState(head.format(c=i) + f"[Public: {j}]" + tail, n, p, r, (c,), (b,))


def export_openspiel(strategy) -> dict[str, dict[int, float]]:
    """``{OpenSpiel information state: {action id: probability}}`` for a Kuhn or Leduc
    strategy (``cfrlab.strategy.Strategy``), legal actions only."""
    tree, model, off, policy = strategy.tree, strategy.model, strategy.row_offset, strategy.policy
    name = openspiel_game_name(strategy.game)
    out: dict[str, dict[int, float]] = {}
    for info in openspiel_infostates(strategy.game, tree):
        row = int(off[tree.decision[info.node]]) + int(
            model.state_of(info.player, list(info.hole), list(info.board), info.round)
        )
        out[info.key] = {
            os_a: float(policy[row, a]) for os_a, a in _our_actions(tree, info.node, name).items()
        }
    return out


def import_openspiel(
    game, mapping: Mapping, *, tree=None, model=None, algorithm: str = "openspiel"
):
    """A ``Strategy`` from an OpenSpiel map (``{state: {action: prob}}`` or, as pyspiel's
    ``TabularPolicy`` takes it, ``{state: [(action, prob), ...]}``; action ids may be strings).

    Every information state must be present, with a distribution over its legal actions;
    anything else is refused with a message naming the state.
    """
    name = openspiel_game_name(game)
    tree = tree if tree is not None else build_tree_for(game)
    model = model if model is not None else model_for_game(game)
    off = row_offsets(tree, model)
    policy = np.full((int(off[-1]), 3), np.nan)
    infos = list(openspiel_infostates(game, tree))
    known = {info.key for info in infos}
    if mapping and not any(k in known for k in mapping):
        raise CfrlabError(
            f"not an OpenSpiel {name} policy: none of its {len(mapping)} keys is one of "
            f"{name}'s information states (first key {next(iter(mapping))!r})"
        )
    for info in infos:
        if info.key not in mapping:
            raise CfrlabError(f"OpenSpiel policy lacks information state {info.key!r}")
        probs = _distribution(info.key, mapping[info.key], _our_actions(tree, info.node, name))
        row = int(off[tree.decision[info.node]]) + int(
            model.state_of(info.player, list(info.hole), list(info.board), info.round)
        )
        if not np.isnan(policy[row, 0]) and not np.allclose(policy[row], probs, atol=1e-12):
            raise CfrlabError(
                f"OpenSpiel states sharing one cfrlab private state disagree at {info.key!r}"
            )
        policy[row] = probs
    unknown = [k for k in mapping if k not in known]
    if unknown:
        raise CfrlabError(
            f"{unknown[0]!r} is not an information state of OpenSpiel's {name} "
            f"({len(unknown)} unknown key(s))"
        )
    # rows no OpenSpiel state reaches (none for lossless models): uniform over legal actions
    legal = np.repeat(np.asarray(tree.legal, float), np.diff(off), axis=0)
    missing = np.isnan(policy[:, 0])
    policy[missing] = legal[missing] / legal[missing].sum(axis=1, keepdims=True)
    return Strategy.from_policy(
        game, policy, tree=tree, model=model, algorithm=algorithm, extra={"imported_from": name}
    )


def _distribution(key: str, entry, actions: dict[int, int]) -> np.ndarray:
    """cfrlab row (f, c, r) from one OpenSpiel entry over the legal OpenSpiel actions."""
    items = entry.items() if isinstance(entry, Mapping) else entry
    row = np.zeros(3)
    try:
        pairs = [(int(a), float(p)) for a, p in items]
    except (TypeError, ValueError):
        raise CfrlabError(f"{key!r}: expected {{action id: probability}}, got {entry!r}") from None
    for a, p in pairs:
        if not np.isfinite(p) or p < 0:
            raise CfrlabError(f"{key!r}: probability {p} of action {a} is not a probability")
        if a not in actions:
            if p > 0:
                raise CfrlabError(
                    f"{key!r}: action {a} is not legal there (legal: {sorted(actions)})"
                )
            continue
        row[actions[a]] += p
    total = row.sum()
    if abs(total - 1.0) > PROB_TOLERANCE:
        raise CfrlabError(f"{key!r}: probabilities sum to {total}, not 1")
    # rescale only what is visibly off, so that export -> import is bit-identical
    return row if abs(total - 1.0) <= 1e-12 else row / total


# -- files ----------------------------------------------------------------------------


def save_openspiel_json(path: str | Path, strategy) -> int:
    """Write ``export_openspiel(strategy)`` as JSON (atomic); returns the number of states."""
    mapping = export_openspiel(strategy)
    text = json.dumps({k: {str(a): p for a, p in v.items()} for k, v in mapping.items()}, indent=1)
    atomic_write_text(path, text + "\n")
    return len(mapping)


def load_openspiel_json(path: str | Path, game):
    """Read a JSON map written by ``save_openspiel_json`` (or by hand / OpenSpiel scripts)."""
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
    return import_openspiel(game, data)


# -- OpenSpiel objects (needs open_spiel) -----------------------------------------------


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


def _pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise CfrlabError("OpenSpiel is not installed (pip install open_spiel)") from None
    return pyspiel


def to_openspiel(strategy):
    """The strategy (Kuhn or Leduc) as an ``open_spiel.python.policy.TabularPolicy`` of
    OpenSpiel's ``kuhn_poker`` / ``leduc_poker``, whose integer action ids it uses; its
    ``.game`` is the loaded pyspiel game.

        >>> import cfrlab
        >>> tab = to_openspiel(cfrlab.Strategy.uniform("kuhn"))
        >>> tab.action_probability_array.shape
        (12, 2)
    """
    pyspiel = _pyspiel()
    os_game = pyspiel.load_game(openspiel_game_name(strategy.game))
    return to_openspiel_policy(export_openspiel(strategy), os_game)


def from_openspiel(policy, game=None, *, algorithm: str = "openspiel"):
    """A cfrlab ``Strategy`` from an OpenSpiel policy of ``kuhn_poker`` or ``leduc_poker``:
    a Python ``TabularPolicy``, a pyspiel C++ policy (``pyspiel.CFRSolver(g).average_policy()``)
    or a solver itself (Python or C++: its ``average_policy()`` is taken). ``game`` (a cfrlab
    game or name) is needed only when the policy does not say which game it is for."""
    if hasattr(policy, "average_policy") and callable(policy.average_policy):
        policy = policy.average_policy()
    if game is None:
        os_game = getattr(policy, "game", None)
        if os_game is None:
            raise CfrlabError("say which game this OpenSpiel policy is for: from_openspiel(policy, game)")
        theirs = os_game.get_type().short_name
        ours = {v: k for k, v in OPENSPIEL_GAMES.items()}.get(theirs)
        if ours is None or os_game.num_players() != 2:
            raise CfrlabError(f"OpenSpiel game {theirs!r} has no cfrlab counterpart "
                              f"({' and '.join(OPENSPIEL_GAMES.values())}, 2 players, only)")
        game = ours
    game = load_game(game)
    if hasattr(policy, "state_lookup"):  # a Python TabularPolicy
        mapping = from_openspiel_policy(policy)
    elif hasattr(policy, "get_state_policy"):  # a pyspiel (C++) policy: ask state by state
        tree = build_tree_for(game)
        mapping = {}
        for info in openspiel_infostates(game, tree):
            try:
                mapping[info.key] = {int(a): float(p) for a, p in policy.get_state_policy(info.key)}
            except Exception as e:  # noqa: BLE001 - pyspiel raises its own types
                raise CfrlabError(f"the OpenSpiel policy has no entry for {info.key!r} ({e})") from None
    else:
        raise CfrlabError(f"not an OpenSpiel policy or solver: {type(policy).__name__}")
    return import_openspiel(game, mapping, algorithm=algorithm)
