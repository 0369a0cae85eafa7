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

from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from cfrlab.engine.nplayer import NEngine, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.interop import _openspiel_shared as shared
from cfrlab.interop._openspiel_shared import InfoState


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


def openspiel_infostates(engine: NEngine) -> Iterator[InfoState]:
    """Every OpenSpiel information state of the engine's game."""
    kuhn = openspiel_game_string(engine.game).startswith("kuhn")
    yield from shared.kuhn_leduc_infostates(engine.game, engine.tree, kuhn)


def _row(engine: NEngine, info: InfoState) -> int:
    d = int(engine.tree.decision[info.node])
    return int(engine.row_offset[d]) + engine.deals.state_index(info.hole, info.board, info.round)


def export_openspiel(game: GameDef | str, policy: np.ndarray) -> dict[str, dict[int, float]]:
    """``{OpenSpiel information state: {action id: probability}}`` of an N-player policy."""
    engine = get_engine(game)
    policy = engine.check(policy)
    kuhn = openspiel_game_string(engine.game).startswith("kuhn")
    return {info.key: {os_a: float(policy[_row(engine, info), a])
                       for os_a, a in shared.legal_action_ids(engine.tree, info.node, kuhn).items()}
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
        actions = shared.legal_action_ids(engine.tree, info.node, kuhn)
        policy[_row(engine, info)] = shared.distribution(info.key, mapping[info.key], actions, 3)
    if np.isnan(policy).any():  # cannot happen for these games: every row is some OpenSpiel state
        raise CfrlabError("the OpenSpiel policy leaves some cfrlab information sets without a distribution")
    return policy


def save_openspiel_json(path: str | Path, game: GameDef | str, policy: np.ndarray) -> int:
    return shared.write_policy_json(path, export_openspiel(game, policy))


def load_openspiel_json(path: str | Path, game: GameDef | str) -> np.ndarray:
    return import_openspiel(game, shared.read_policy_json(path))


# -- OpenSpiel objects (need open_spiel) ------------------------------------------------------

def load_openspiel_game(game: GameDef | str):
    """The pyspiel game with the same rules as the cfrlab game."""
    return shared.pyspiel_module().load_game(openspiel_game_string(load_game(game)))


def to_openspiel(game: GameDef | str, policy: np.ndarray):
    """An ``open_spiel.python.policy.TabularPolicy`` of the OpenSpiel game holding ``policy``."""
    return shared.to_openspiel_policy(export_openspiel(game, policy), load_openspiel_game(game))


def from_openspiel(policy, game: GameDef | str) -> np.ndarray:
    """A cfrlab N-player policy from an OpenSpiel policy: a Python ``TabularPolicy``, a pyspiel
    (C++) policy or a solver (its ``average_policy()``)."""
    engine = get_engine(game)
    if hasattr(policy, "average_policy") and callable(policy.average_policy):
        policy = policy.average_policy()
    mapping = shared.policy_mapping(policy, lambda: openspiel_infostates(engine))
    return import_openspiel(engine.game, mapping)
