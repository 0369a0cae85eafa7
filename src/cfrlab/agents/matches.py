"""Matches and crosstables between agents given as objects or as specs.

``cfrlab.evaluate.match`` plays Agent objects; these wrappers first turn bot names, strategy
files and ``py:`` specs into agents (``make_agent``), seeding agent A with the match seed and
agent B with seed + 1, as the CLI does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from cfrlab.agents.registry import make_agent
from cfrlab.errors import CfrlabError
from cfrlab.evaluate import match as _match
from cfrlab.evaluate.match import MatchResult
from cfrlab.games import GameDef, load_game
from cfrlab.games.agent import Agent
from cfrlab.multiplayer import NStrategy
from cfrlab.multiplayer import match as _nmatch
from cfrlab.multiplayer.match import NMatchResult


def _seed(seed: int | None) -> int:
    return int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)


def play_match(game: GameDef | str, a: Agent | str, b: Agent | str, hands: int, *,
               seed: int | None = None, **options) -> MatchResult:
    """``cfrlab.evaluate.match.play_match`` with agents, strategies or agent specs (same
    options: ``duplicate``, ``log``, ``exact``, ``engine``, ``progress``, ``aivat``). A's result is
    reported: ``overall()`` is its mean per game with a 95% confidence interval.

        >>> r = play_match("kuhn", "always-raise", "always-call", 10_000, seed=1, duplicate=True, exact=True)
        >>> r.exact_chips, abs(r.overall().mean) < 3 * r.overall().ci95 + 1e-12
        (0.0, True)
    """
    game = load_game(game)
    if game.num_players > 2:
        raise CfrlabError(f"{game.name or 'this game'} has {game.num_players} players: use "
                          "play_nmatch(game, [agent per seat], hands) (rotated seats)")
    seed = _seed(seed)
    if not isinstance(a, Agent):
        a = make_agent(a, game, seed)
    if not isinstance(b, Agent):
        b = make_agent(b, game, seed + 1)
    return _match.play_match(game, a, b, hands, seed=seed, **options)


def crosstable(game: GameDef | str, agents: list[Agent | str], hands: int, *,
               seed: int | None = None, **options) -> dict:
    """``cfrlab.evaluate.match.crosstable`` with agents or agent specs (same options): every
    pair plays a match; the result holds each pair's estimate and each agent's mean.

        >>> t = crosstable("kuhn", ["always-call", "always-raise", "random"], 2_000, seed=3)
        >>> t["players"], len(t["matches"])
        (['always-call', 'always-raise', 'random'], 3)
    """
    game = load_game(game)
    if game.num_players > 2:
        raise CfrlabError(f"{game.name or 'this game'} has {game.num_players} players: use "
                          "ncrosstable(game, agents, hands)")
    seed = _seed(seed)
    built = [a if isinstance(a, Agent) else make_agent(a, game, seed) for a in agents]
    return _match.crosstable(game, built, hands, seed=seed, **options)


def _built(game: GameDef, agents, seed: int) -> list:
    return [a if isinstance(a, (Agent, NStrategy)) else make_agent(a, game, seed + i)
            for i, a in enumerate(agents)]


def play_nmatch(game: GameDef | str, agents: Sequence[Agent | NStrategy | str], hands: int, *,
                seed: int | None = None, **options) -> NMatchResult:
    """A match of N > 2 agents (one per seat: agents, N-player strategies or specs) that
    plays every deal once per seating of the agents (``cfrlab.multiplayer.match``; options:
    ``names``, ``engine``, ``exact``, ``log``, ``progress``). ``estimates()``: each agent's mean
    per game with a 95% confidence interval.

        >>> r = play_nmatch("kuhn-3p", ["always-call", "always-raise", "random"], 2_000, seed=1, exact=True)
        >>> abs(sum(e.mean for e in r.estimates())) < 1e-9, len(r.exact)
        (True, 3)
    """
    game = load_game(game)
    seed = _seed(seed)
    return _nmatch.play_nmatch(game, _built(game, agents, seed), hands, seed=seed, **options)


def ncrosstable(game: GameDef | str, agents: Sequence[Agent | NStrategy | str], hands: int, *,
                seed: int | None = None, **options) -> dict:
    """Every N-subset of ``agents`` (or specs) plays a rotated-seat match on the same deals;
    each agent's result over the field with a 95% CI (``cfrlab.multiplayer.match.ncrosstable``)."""
    game = load_game(game)
    seed = _seed(seed)
    labels = options.pop("labels", None) or [a if isinstance(a, str) else None for a in agents]
    if any(x is None for x in labels):
        labels = None
    return _nmatch.ncrosstable(game, _built(game, agents, seed), hands, seed=seed, labels=labels, **options)
