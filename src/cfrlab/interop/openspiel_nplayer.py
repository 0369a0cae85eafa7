"""N-player strategies to and from OpenSpiel's ``kuhn_poker(players=N)`` and ``leduc_poker(players=N)``.

The exchange format is the one of ``cfrlab.interop.openspiel`` (2 players): a map
``{information-state string: {action id: probability}}`` over the legal actions. Nothing here
imports OpenSpiel except the functions that build or read OpenSpiel objects.

How the games line up (checked against pyspiel in tests/test_multiplayer_openspiel.py):

- OpenSpiel's N-player Kuhn deals N + 1 cards (cfrlab's ``kuhn-3p``: Js Qs Ks As), ante 1, one
  bet of 1. Its strings are the card index then the history in ``p`` / ``b``; action 0 (pass)
  folds facing a bet and checks otherwise, action 1 (bet) calls or bets.
- OpenSpiel's N-player Leduc deals 2 suits of N + 1 ranks (``leduc-3p``: Jh Js Qh Qs Kh Ks Ah As),
  antes 1, bets 2 then 4, two raises a round. Card i of OpenSpiel is cfrlab's i-th card in id
  order (same rank order). Strings: ``[Observer: p][Private: c][Round r][Player: p][Pot: pot]
  [Money: m0 m1 ...]`` (money = 100 minus the chips put in), ``[Public: b]`` from round 2, then
  ``[Round1: a a][Round2: a]``. Actions 0 fold, 1 call/check, 2 raise: cfrlab's columns.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cfrlab.cards import deck
from cfrlab.engine.nplayer import NEngine, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.fileio import atomic_write_text
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.tree import DECISION

LEDUC_STARTING_MONEY = 100
PROB_TOLERANCE = 1e-6


def _kuhn_text(n: int) -> str:
    return (f"GAMEDEF\nlimit\nnumPlayers = {n}\nnumRounds = 1\nblind = {' '.join(['1'] * n)}\nraiseSize = 1\n"
            f"firstPlayer = 1\nmaxRaises = 1\nnumSuits = 1\nnumRanks = {n + 1}\nnumHoleCards = 1\n"
            "numBoardCards = 0\nEND GAMEDEF\n")


def _leduc_text(n: int) -> str:
    return (f"GAMEDEF\nlimit\nnumPlayers = {n}\nnumRounds = 2\nblind = {' '.join(['1'] * n)}\nraiseSize = 2 4\n"
            f"firstPlayer = 1 1\nmaxRaises = 2 2\nnumSuits = 2\nnumRanks = {n + 1}\nnumHoleCards = 1\n"
            "numBoardCards = 0 1\nEND GAMEDEF\n")


def openspiel_game_string(game: GameDef) -> str:
    """``"kuhn_poker(players=3)"`` or ``"leduc_poker(players=3)"`` for the cfrlab game with the same rules."""
    n = game.num_players
    text = game.to_text()
    if n <= 9 and parse_game(_kuhn_text(n)).to_text() == text:
        return f"kuhn_poker(players={n})"
    if n <= 9 and parse_game(_leduc_text(n)).to_text() == text:
        return f"leduc_poker(players={n})"
    raise CfrlabError(f"{game.name or 'this game'} has no OpenSpiel counterpart; N-player OpenSpiel interop "
                      "covers kuhn_poker and leduc_poker with N + 1 ranks (kuhn-3p, leduc-3p)")


def game_of_openspiel(os_game) -> GameDef:
    """The cfrlab game of an OpenSpiel ``kuhn_poker(players=N)`` / ``leduc_poker(players=N)``."""
    name, n = os_game.get_type().short_name, os_game.num_players()
    texts = {"kuhn_poker": _kuhn_text, "leduc_poker": _leduc_text}
    if name not in texts:
        raise CfrlabError(f"OpenSpiel game {name!r} with {n} players has no cfrlab counterpart "
                          "(kuhn_poker and leduc_poker only)")
    return parse_game(texts[name](n), name=f"{name.split('_')[0]}-{n}p")


@dataclass(frozen=True)
class InfoState:
    key: str
    node: int
    player: int
    round: int
    hole: tuple[int, ...]
    board: tuple[int, ...]


def _path(tree, node: int) -> list[tuple[int, int]]:
    out = []
    n = node
    while tree.parent[n] >= 0:
        p = int(tree.parent[n])
        if tree.kind[p] == DECISION:
            out.append((p, int(tree.action[n])))
        n = p
    return out[::-1]


def _kuhn_action(tree, node: int, a: int) -> int:
    facing = bool(tree.legal[tree.decision[node], 0])
    return a if facing else a - 1


def _actions(tree, node: int, kuhn: bool) -> dict[int, int]:
    """OpenSpiel action id -> cfrlab column at a decision node."""
    legal = np.flatnonzero(tree.legal[tree.decision[node]])
    if kuhn:
        return {_kuhn_action(tree, node, int(a)): int(a) for a in legal}
    return {int(a): int(a) for a in legal}


def openspiel_infostates(engine: NEngine) -> Iterator[InfoState]:
    """Every OpenSpiel information state of the engine's game."""
    game, tree = engine.game, engine.tree
    kuhn = openspiel_game_string(game).startswith("kuhn")
    cards = deck(game.num_ranks, game.num_suits)
    P = game.num_players
    for n in tree.decision_node:
        n = int(n)
        p, r = int(tree.player[n]), int(tree.round[n])
        path = _path(tree, n)
        if kuhn:
            hist = "".join("pb"[_kuhn_action(tree, m, a)] for m, a in path)
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


def _row(engine: NEngine, info: InfoState) -> int:
    d = int(engine.tree.decision[info.node])
    return int(engine.row_offset[d]) + engine.deals.state_index(info.hole, info.board, info.round)


def export_openspiel(game: GameDef | str, policy: np.ndarray) -> dict[str, dict[int, float]]:
    """``{OpenSpiel information state: {action id: probability}}`` of an N-player policy."""
    engine = get_engine(game)
    policy = engine.check(policy)
    kuhn = openspiel_game_string(engine.game).startswith("kuhn")
    return {info.key: {os_a: float(policy[_row(engine, info), a])
                       for os_a, a in _actions(engine.tree, info.node, kuhn).items()}
            for info in openspiel_infostates(engine)}


def import_openspiel(game: GameDef | str, mapping: Mapping) -> np.ndarray:
    """An N-player policy from an OpenSpiel map (``{state: {action: prob}}`` or
    ``{state: [(action, prob), ...]}``); every information state must be there."""
    engine = get_engine(game)
    name = openspiel_game_string(engine.game)
    kuhn = name.startswith("kuhn")
    policy = np.full((engine.rows, 3), np.nan)
    infos = list(openspiel_infostates(engine))
    known = {i.key for i in infos}
    unknown = [k for k in mapping if k not in known]
    if unknown:
        raise CfrlabError(f"{unknown[0]!r} is not an information state of OpenSpiel's {name} "
                          f"({len(unknown)} unknown key(s))")
    for info in infos:
        if info.key not in mapping:
            raise CfrlabError(f"OpenSpiel policy lacks information state {info.key!r}")
        policy[_row(engine, info)] = _distribution(info.key, mapping[info.key],
                                                   _actions(engine.tree, info.node, kuhn))
    if np.isnan(policy).any():  # cannot happen for these games: every row is some OpenSpiel state
        raise CfrlabError("the OpenSpiel policy leaves some cfrlab information sets without a distribution")
    return policy


def _distribution(key: str, entry, actions: dict[int, int]) -> np.ndarray:
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
                raise CfrlabError(f"{key!r}: action {a} is not legal there (legal: {sorted(actions)})")
            continue
        row[actions[a]] += p
    total = row.sum()
    if abs(total - 1.0) > PROB_TOLERANCE:
        raise CfrlabError(f"{key!r}: probabilities sum to {total}, not 1")
    return row if abs(total - 1.0) <= 1e-12 else row / total


def save_openspiel_json(path: str | Path, game: GameDef | str, policy: np.ndarray) -> int:
    mapping = export_openspiel(game, policy)
    atomic_write_text(path, json.dumps({k: {str(a): p for a, p in v.items()} for k, v in mapping.items()},
                                       indent=1) + "\n")
    return len(mapping)


def load_openspiel_json(path: str | Path, game: GameDef | str) -> np.ndarray:
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise CfrlabError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CfrlabError(f"{p}: not a JSON OpenSpiel policy ({e})") from None
    if not isinstance(data, dict):
        raise CfrlabError(f"{p}: expected a JSON object {{information state: {{action: probability}}}}")
    return import_openspiel(game, data)


# -- OpenSpiel objects (need open_spiel) ------------------------------------------------------

def _pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise CfrlabError("OpenSpiel is not installed (pip install open_spiel)") from None
    return pyspiel


def load_openspiel_game(game: GameDef | str):
    """The pyspiel game with the same rules as the cfrlab game."""
    return _pyspiel().load_game(openspiel_game_string(load_game(game)))


def to_openspiel(game: GameDef | str, policy: np.ndarray):
    """An ``open_spiel.python.policy.TabularPolicy`` of the OpenSpiel game holding ``policy``."""
    from open_spiel.python import policy as os_policy

    mapping = export_openspiel(game, policy)
    os_game = load_openspiel_game(game)
    tab = os_policy.TabularPolicy(os_game)
    for key, idx in tab.state_lookup.items():
        row = np.zeros(tab.action_probability_array.shape[1])
        for a, prob in mapping[key].items():
            row[int(a)] = prob
        tab.action_probability_array[idx] = row
    return tab


def from_openspiel(policy, game: GameDef | str) -> np.ndarray:
    """A cfrlab N-player policy from an OpenSpiel policy: a Python ``TabularPolicy``, a pyspiel
    (C++) policy or a solver (its ``average_policy()``)."""
    engine = get_engine(game)
    if hasattr(policy, "average_policy") and callable(policy.average_policy):
        policy = policy.average_policy()
    if hasattr(policy, "state_lookup"):
        mapping = {}
        for key, idx in policy.state_lookup.items():
            legal = np.flatnonzero(policy.legal_actions_mask[idx])
            mapping[key] = {int(a): float(policy.action_probability_array[idx, a]) for a in legal}
    elif hasattr(policy, "get_state_policy"):
        mapping = {}
        for info in openspiel_infostates(engine):
            try:
                mapping[info.key] = {int(a): float(p) for a, p in policy.get_state_policy(info.key)}
            except Exception as e:  # noqa: BLE001 - pyspiel raises its own types
                raise CfrlabError(f"the OpenSpiel policy has no entry for {info.key!r} ({e})") from None
    else:
        raise CfrlabError(f"not an OpenSpiel policy or solver: {type(policy).__name__}")
    return import_openspiel(engine.game, mapping)
