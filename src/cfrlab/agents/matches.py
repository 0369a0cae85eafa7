"""Matches and crosstables between agents given as objects or as specs.

``cfrlab.evaluate.match`` plays Agent objects; these wrappers first turn bot names, strategy
files and ``py:`` specs into agents (``make_agent``), seeding agent A with the match seed and
agent B with seed + 1, as the CLI does.
"""

from __future__ import annotations

import os

from cfrlab.agents.registry import make_agent
from cfrlab.evaluate import match as _match
from cfrlab.evaluate.match import MatchResult
from cfrlab.games import GameDef, load_game
from cfrlab.games.agent import Agent


def _seed(seed: int | None) -> int:
    return int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)


def play_match(game: GameDef | str, a: Agent | str, b: Agent | str, hands: int, *,
               seed: int | None = None, **options) -> MatchResult:
    """``cfrlab.evaluate.match.play_match`` with agents, strategies or agent specs (same
    options: ``duplicate``, ``log``, ``exact``, ``engine``, ``progress``). A's result is
    reported: ``overall()`` is its mean per game with a 95% confidence interval.

        >>> r = play_match("kuhn", "always-raise", "always-call", 10_000, seed=1, duplicate=True, exact=True)
        >>> r.exact_chips, abs(r.overall().mean) < 3 * r.overall().ci95 + 1e-12
        (0.0, True)
    """
    game = load_game(game)
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
    seed = _seed(seed)
    built = [a if isinstance(a, Agent) else make_agent(a, game, seed) for a in agents]
    return _match.crosstable(game, built, hands, seed=seed, **options)
