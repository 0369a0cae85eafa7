"""Strategies to and from OpenSpiel's ``kuhn_poker``, ``leduc_poker`` and ``universal_poker``.

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
- Any other 2-player game is OpenSpiel's ``universal_poker`` with the same ACPC definition
  (``openspiel_game_string``; a no-limit game with ``bettingAbstraction=fullgame``: every legal
  amount an action, as cfrlab's full no-limit tree). Its deck is the lowest ranks and first
  suits where cfrlab's (as the current ACPC dealer) is the top ranks and last suits: the same
  game with the cards renamed rank for rank and suit for suit. Strings:
  ``[Round r][Player: p][Pot: 2 x the bet][Money: stack - chips in, per player][Private: cards]
  [Public: board][Sequences: ACPC betting with | between rounds]``, cards highest first. Actions:
  0 fold, 1 call, then 2 raise (limit) or the raise-to amount (no-limit). Those strings do not
  say which round each board card came in: with boards over several rounds, OpenSpiel's game
  merges states that cfrlab keeps apart, and a strategy that tells them apart is refused.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from cfrlab.cards import deck
from cfrlab.engine import build_tree_for, model_for_game, row_offsets
from cfrlab.engine.rows import uniform_rows
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.interop import openspiel_nplayer as nplayer
from cfrlab.interop._openspiel_shared import (  # noqa: F401  (the names this module has always had)
    LEDUC_STARTING_MONEY,
    PROB_TOLERANCE,
    InfoState,
    distribution,
    from_openspiel_policy,
    kuhn_leduc_infostates,
    legal_action_ids,
    policy_mapping,
    pyspiel_module,
    read_policy_json,
    to_openspiel_policy,
    write_policy_json,
)
from cfrlab.strategy import Strategy

OPENSPIEL_GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
UNIVERSAL = "universal_poker"
RANKS, SUITS = "23456789TJQKA", "cdhs"


def openspiel_game_name(game) -> str:
    """``"kuhn_poker"`` or ``"leduc_poker"`` for cfrlab's kuhn / leduc (compared by rules),
    ``"universal_poker"`` for any other 2-player game."""
    for ours, theirs in OPENSPIEL_GAMES.items():
        if load_game(ours).to_text() == game.to_text():
            return theirs
    if game.num_players > 2:  # kuhn_poker(players=N) / leduc_poker(players=N)
        return nplayer.openspiel_game_string(game)
    if game.num_ranks > 13:
        raise CfrlabError(f"{game.name or 'this game'} has no OpenSpiel counterpart: decks of more "
                          "than 13 ranks are a cfrlab extension of the ACPC format")
    return UNIVERSAL


def openspiel_game_string(game) -> str:
    """OpenSpiel's name of ``game`` as text: ``"kuhn_poker"``, ``"leduc_poker"`` or
    ``"universal_poker(betting=...,...)"`` with the game's ACPC definition (to load it, use
    ``load_openspiel_game``: the text form reads "1 2" lists of one number as numbers)."""
    name = openspiel_game_name(game)
    if name != UNIVERSAL:
        return name
    params = universal_poker_params(game)
    return f"{UNIVERSAL}(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"


def universal_poker_params(game) -> dict[str, object]:
    """``game`` as the parameters of OpenSpiel's universal_poker."""
    R, P = game.num_rounds, game.num_players

    def ints(xs):
        return " ".join(str(int(x)) for x in xs)

    params: dict[str, object] = {
        "betting": "limit" if game.is_limit else "nolimit", "numPlayers": P, "numRounds": R,
        "blind": ints(game.blind[:P]), "firstPlayer": ints(f + 1 for f in game.first_player[:R]),
        "numSuits": game.num_suits, "numRanks": game.num_ranks, "numHoleCards": game.num_hole_cards,
        "numBoardCards": ints(game.num_board_cards[:R])}
    if game.is_limit:
        params["raiseSize"] = ints(game.raise_size[:R])
        params["maxRaises"] = ints(game.max_raises[:R])
    else:
        params["stack"] = ints(game.stack[:P])
        params["bettingAbstraction"] = "fullgame"
    return params


def game_from_universal_poker(params: Mapping) -> GameDef:
    """The cfrlab game of a universal_poker game's parameters (``game.get_parameters()``)."""
    p = {k: v for k, v in params.items()}
    if p.get("bettingAbstraction", "fullgame") not in ("fullgame",) and p.get("betting") == "nolimit":
        raise CfrlabError(f"universal_poker with bettingAbstraction={p['bettingAbstraction']} has "
                          "no cfrlab counterpart (cfrlab's full no-limit tree is 'fullgame')")
    lines = ["GAMEDEF", str(p.get("betting", "limit"))]
    for key in ("numPlayers", "numRounds", "stack", "blind", "raiseSize", "firstPlayer", "maxRaises",
                "numSuits", "numRanks", "numHoleCards", "numBoardCards"):
        if key in p and str(p[key]).strip():
            lines.append(f"{key} = {p[key]}")
    lines.append("END GAMEDEF")
    return parse_game("\n".join(lines) + "\n")


def _universal_card(game, card: int) -> str:
    """The text OpenSpiel's universal_poker shows for cfrlab's ``card`` (see the module doc)."""
    rank = card // 4 - (13 - game.num_ranks)
    suit = card % 4 - (4 - game.num_suits)
    return RANKS[rank] + SUITS[suit]


def _our_actions(tree, node: int, os_name: str) -> dict[int, int]:
    """OpenSpiel action id -> cfrlab column, for the legal actions at `node`."""
    if os_name == UNIVERSAL and not tree.game.is_limit:  # fullgame: a raise's id is its amount
        legal = np.flatnonzero(tree.legal[tree.decision[node]])
        return {int(a) if a < 2 else int(tree.raise_to[tree.child_by_action(node, int(a))]): int(a)
                for a in legal}
    return legal_action_ids(tree, node, os_name == "kuhn_poker")


def _universal_infostates(game, tree) -> Iterator[InfoState]:
    """universal_poker's strings: hole cards and board each in decreasing card order."""
    P = game.num_players
    per_round = [list(itertools.combinations(deck(game.num_ranks, game.num_suits), k))
                 for k in (game.num_hole_cards, *game.num_board_cards[:game.num_rounds])]
    for n in tree.decision_node:
        n = int(n)
        p, r = int(tree.player[n]), int(tree.round[n])
        spent = [int(x) for x in tree.spent[n]]
        money = " ".join(str(int(game.stack[i]) - spent[i]) for i in range(P))
        head = f"[Round {r}][Player: {p}][Pot: {P * max(spent)}][Money: {money}]"
        tail = f"[Sequences: {tree.betting[n].replace('/', '|')}]"
        for parts in itertools.product(*per_round[:r + 2]):
            cards = [c for part in parts for c in part]
            if len(set(cards)) < len(cards):
                continue
            hole, board = parts[0], tuple(c for part in parts[1:] for c in part)
            text = "".join(_universal_card(game, c) for c in sorted(hole, reverse=True))
            pub = "".join(_universal_card(game, c) for c in sorted(board, reverse=True))
            yield InfoState(f"{head}[Private: {text}][Public: {pub}]{tail}", n, p, r, hole, board)


def openspiel_infostates(game, tree) -> Iterator[InfoState]:
    """Every OpenSpiel information state of the game (one per decision node and cards)."""
    name = openspiel_game_name(game)
    if name == UNIVERSAL:
        yield from _universal_infostates(game, tree)
        return
    yield from kuhn_leduc_infostates(game, tree, name == "kuhn_poker")


def export_openspiel(strategy) -> dict[str, dict[int, float]]:
    """``{OpenSpiel information state: {action id: probability}}`` for a strategy
    (``cfrlab.strategy.Strategy``) of any player count, legal actions only."""
    if strategy.num_players > 2:
        return nplayer.export_openspiel(strategy.game, strategy.policy)
    tree, model, off, policy = strategy.tree, strategy.model, strategy.row_offset, strategy.policy
    name = openspiel_game_name(strategy.game)
    out: dict[str, dict[int, float]] = {}
    for info in openspiel_infostates(strategy.game, tree):
        row = int(off[tree.decision[info.node]]) + int(
            model.state_of(info.player, list(info.hole), list(info.board), info.round)
        )
        probs = {os_a: float(policy[row, a]) for os_a, a in _our_actions(tree, info.node, name).items()}
        if out.setdefault(info.key, probs) != probs:
            # universal_poker's strings list the board sorted, not by the round it came in
            raise CfrlabError(
                f"this strategy cannot be written as OpenSpiel's {name}: its information states do "
                f"not record which round each board card came in, and the strategy plays "
                f"differently on two boards that differ only in that order ({info.key!r})")
    return out


def import_openspiel(
    game, mapping: Mapping, *, tree=None, model=None, algorithm: str = "openspiel"
):
    """A ``Strategy`` from an OpenSpiel map (``{state: {action: prob}}`` or, as pyspiel's
    ``TabularPolicy`` takes it, ``{state: [(action, prob), ...]}``; action ids may be strings).

    Every information state must be present, with a distribution over its legal actions;
    anything else is refused with a message naming the state.
    """
    game = load_game(game)
    name = openspiel_game_name(game)
    if game.num_players > 2:
        policy = nplayer.import_openspiel(game, mapping)
        return Strategy.from_policy(game, policy, algorithm=algorithm, extra={"imported_from": name})
    tree = tree if tree is not None else build_tree_for(game)
    model = model if model is not None else model_for_game(game)
    off = row_offsets(tree, model)
    policy = np.full((int(off[-1]), tree.num_actions), np.nan)
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
        probs = distribution(info.key, mapping[info.key], _our_actions(tree, info.node, name),
                              tree.num_actions)
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
    missing = np.isnan(policy[:, 0])
    policy[missing] = uniform_rows(tree, off)[missing]
    return Strategy.from_policy(
        game, policy, tree=tree, model=model, algorithm=algorithm, extra={"imported_from": name}
    )


# -- files ----------------------------------------------------------------------------


def save_openspiel_json(path: str | Path, strategy) -> int:
    """Write ``export_openspiel(strategy)`` as JSON (atomic); returns the number of states."""
    return write_policy_json(path, export_openspiel(strategy))


def load_openspiel_json(path: str | Path, game):
    """Read a JSON map written by ``save_openspiel_json`` (or by hand / OpenSpiel scripts)."""
    return import_openspiel(game, read_policy_json(path))


# -- OpenSpiel objects (needs open_spiel) -----------------------------------------------


def load_openspiel_game(game):
    """OpenSpiel's counterpart of ``game`` as a loaded pyspiel game (needs open_spiel)."""
    pyspiel = pyspiel_module()
    name = openspiel_game_name(game)
    if name != UNIVERSAL:
        return pyspiel.load_game(name)
    return pyspiel.load_game(UNIVERSAL, universal_poker_params(game))


def to_openspiel(strategy):
    """The strategy (Kuhn or Leduc) as an ``open_spiel.python.policy.TabularPolicy`` of
    OpenSpiel's ``kuhn_poker`` / ``leduc_poker``, whose integer action ids it uses; its
    ``.game`` is the loaded pyspiel game.

        >>> import cfrlab
        >>> tab = to_openspiel(cfrlab.Strategy.uniform("kuhn"))
        >>> tab.action_probability_array.shape
        (12, 2)
    """
    if strategy.num_players > 2:
        return nplayer.to_openspiel(strategy.game, strategy.policy)
    os_game = load_openspiel_game(strategy.game)
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
        if os_game.num_players() > 2:
            return _from_nplayer(policy, nplayer.game_of_openspiel(os_game), algorithm)
        ours = {v: k for k, v in OPENSPIEL_GAMES.items()}.get(theirs)
        if theirs == UNIVERSAL and os_game.num_players() == 2:
            ours = game_from_universal_poker(os_game.get_parameters())
        if ours is None or os_game.num_players() != 2:
            raise CfrlabError(f"OpenSpiel game {theirs!r} has no cfrlab counterpart "
                              f"({' and '.join(OPENSPIEL_GAMES.values())}, 2 players, only)")
        game = ours
    game = load_game(game)
    if game.num_players > 2:
        return _from_nplayer(policy, game, algorithm)
    # a pyspiel (C++) policy is asked state by state, for the states of the game's tree
    mapping = policy_mapping(policy, lambda: openspiel_infostates(game, build_tree_for(game)))
    return import_openspiel(game, mapping, algorithm=algorithm)


def _from_nplayer(policy, game, algorithm: str):
    """An N-player OpenSpiel policy as a cfrlab ``Strategy``."""
    table = nplayer.from_openspiel(policy, game)
    return Strategy.from_policy(game, table, algorithm=algorithm,
                                extra={"imported_from": nplayer.openspiel_game_string(game)})
