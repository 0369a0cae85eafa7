"""Which tree, chance model and exact evaluator a game uses: the one place that picks them.

A chance model (``cfrlab.abstraction.ChanceModel``) says what each player privately knows per
round; it is lossless (hole cards and board, for small decks) unless an abstraction file or
object is given. ``row_offsets`` is the policy layout both select (docs/ENGINE.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cfrlab import abstraction
from cfrlab.abstraction import LOSSLESS, ChanceModel, LosslessModel
from cfrlab.engine import nplayer
from cfrlab.engine.core import tree_layout
from cfrlab.engine.values import PairEvaluator
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.tree import PublicTree, build_tree
from cfrlab.tree.bets import parse_bets


def build_tree_for(game: GameDef, bets: Any = None) -> PublicTree:
    """The public betting tree the 2-player engine walks for ``game``: limit, or no-limit in
    the betting abstraction ``bets`` (a spec such as ``"fcpa"``, ``cfrlab.tree.bets``; every
    legal amount when None, where that tree fits: ``build_tree`` refuses it with its size)."""
    if game.num_players != 2:
        raise CfrlabError(f"{game.name or 'this game'} has {game.num_players} players; "
                          "the 2-player engine needs 2 (the N-player solvers take the rest)")
    if bets is not None and game.is_limit and bets != "limit":
        parse_bets(bets, game)  # refuses, naming the reason
    return build_tree(game, bets=None if game.is_limit else bets)


def tree_for(game: GameDef, bets: Any = None) -> PublicTree:
    """The public tree a strategy of ``game`` is laid out on: the 2-player engine's
    (``build_tree_for``, in the betting abstraction ``bets``) or, with more players, the
    N-player engine's."""
    if game.num_players == 2:
        return build_tree_for(game, bets)
    if bets not in (None, "limit", "fullgame"):
        raise CfrlabError(f"{game.name or 'this game'} has {game.num_players} players: betting "
                          "abstractions are for 2-player no-limit games (the N-player engine is limit)")
    return nplayer.get_engine(game).tree


def evaluator_for(game: GameDef, tree: PublicTree, model: Any):
    """The exact evaluator of ``game``'s policies on (tree, model), as ``tree_for`` and
    ``model_for_game`` give them: ``values.PairEvaluator`` with two players, the N-player
    engine otherwise. Both answer ``profile_values``, ``best_response``,
    ``best_response_values``, ``best_responses`` (values and NashConv), ``evaluate`` and
    ``nash_conv``, in chips."""
    if game.num_players == 2:
        return PairEvaluator(tree, model)
    return nplayer.get_engine(game)


def model_for_game(game: GameDef, abstraction: Any = None) -> ChanceModel:
    """The chance model for ``game``: lossless unless ``abstraction`` (a chance model or an
    abstraction file made by ``cfrlab abstract build``) is given. With more than two players,
    the exact deals of the N-player engine (``cfrlab.abstraction.deals``; no abstraction)."""
    if game.num_players > 2:
        if abstraction is not None:
            raise CfrlabError(f"{game.name or 'this game'} has {game.num_players} players: card "
                              "abstractions are for 2-player games (the N-player engine deals exactly)")
        return nplayer.get_engine(game).deals
    if abstraction is None:
        return LosslessModel(game)
    if isinstance(abstraction, ChanceModel):
        return abstraction
    if isinstance(abstraction, (str, Path)):
        return load_abstraction(abstraction, game)
    raise CfrlabError(f"not a chance model or abstraction file: {abstraction!r}")


def load_abstraction(path: str | Path, game: GameDef | None = None) -> ChanceModel:
    """A BucketedModel from an abstraction file, checked against ``game``; it remembers its
    file name (``source_file``) for strategy headers."""
    p = Path(path)
    if not p.exists():
        raise CfrlabError(f"abstraction file {p} does not exist (make one with `cfrlab abstract build`)")
    return abstraction.BucketedModel.load(p, game)  # the bucketed module loads here, on first use


def model_kind(model: ChanceModel) -> str:
    return str(model.kind)


def is_lossless(model: ChanceModel) -> bool:
    return model.kind == LOSSLESS


def row_offsets(tree: PublicTree, model: ChanceModel) -> np.ndarray:
    """``row_offset`` int64[D + 1] of the policy layout; the last entry is the row count."""
    return tree_layout(tree, model)


def describe_state(model: ChanceModel, rnd: int, s: int) -> str:
    """A readable label of private state ``s`` in round ``rnd`` ("#s" where the model has none)."""
    try:
        return str(model.describe_state(rnd, s))
    except (AttributeError, NotImplementedError):
        return f"#{s}"
