"""Matches and crosstables between agents given as objects or as specs.

``cfrlab.evaluate.match`` plays Agent objects; these wrappers first turn bot names, strategy
files and ``py:`` specs into agents (``make_agent``), seeding agent A with the match seed and
agent B with seed + 1, as the CLI does.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

import numpy as np

from cfrlab.agents import nmatch as _nmatch
from cfrlab.agents.nmatch import NMatchResult
from cfrlab.agents.registry import make_agent
from cfrlab.errors import CfrlabError
from cfrlab.evaluate import match as _match
from cfrlab.evaluate.match import MatchResult
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.games.agent import Agent
from cfrlab.jobs import connect_ray, run_units
from cfrlab.strategy import Strategy


def _seed(seed: int | None) -> int:
    return int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)


def play_match(game: GameDef | str, a: Agent | str, b: Agent | str, hands: int, *,
               seed: int | None = None, workers: int = 1, ray: str | None = None,
               **options) -> MatchResult:
    """``cfrlab.evaluate.match.play_match`` with agents, strategies or agent specs (same
    options: ``duplicate``, ``log``, ``exact``, ``engine``, ``progress``, ``aivat``). A's result is
    reported: ``overall()`` is its mean per game with a 95% confidence interval.

    ``workers`` > 1 or ``ray`` (an existing Ray cluster, "auto" or HOST:PORT): the deals are
    played in blocks by local worker processes or Ray actors (``cfrlab.jobs``), each loading
    the agents from their specs; the fast engine only, no log or AIVAT. Every hand's result
    is the same as in one process (cards and random choices depend on the seed and the hand
    number only), whatever the number of workers. Workers are spawned processes: call this
    under ``if __name__ == "__main__":`` in a script.

        >>> r = play_match("kuhn", "always-raise", "always-call", 10_000, seed=1, duplicate=True, exact=True)
        >>> r.exact_chips, abs(r.overall().mean) < 3 * r.overall().ci95 + 1e-12
        (0.0, True)
    """
    game = load_game(game)
    if game.num_players > 2:
        raise CfrlabError(f"{game.name or 'this game'} has {game.num_players} players: use "
                          "play_nmatch(game, [agent per seat], hands) (rotated seats)")
    seed = _seed(seed)
    if workers < 1:
        raise CfrlabError(f"workers must be at least 1, got {workers}")
    if workers > 1 or ray is not None:
        return _play_in_blocks(game, a, b, hands, seed, workers, ray, **options)
    if not isinstance(a, Agent):
        a = make_agent(a, game, seed)
    if not isinstance(b, Agent):
        b = make_agent(b, game, seed + 1)
    return _match.play_match(game, a, b, hands, seed=seed, **options)


BLOCK_MIN = 100_000  # deals per unit of a match played in blocks


class _MatchBlocks:
    """What a worker holds (``cfrlab.jobs``): the game and both agents, built from specs."""

    def __init__(self, game_text: str, game_name: str, spec_a: str, spec_b: str, seed: int,
                 duplicate: bool, hands: int, block: int) -> None:
        self.game = parse_game(game_text, name=game_name)
        self.a = make_agent(spec_a, self.game, seed)
        self.b = make_agent(spec_b, self.game, seed + 1)
        self.seed, self.duplicate, self.hands, self.block = seed, duplicate, hands, block

    def run(self, i: int) -> np.ndarray:
        first = i * self.block
        count = min(self.block, self.hands - first)
        out = _match.play_block(self.game, self.a, self.b, self.seed, self.duplicate, first, count)
        return out.astype(np.float64)


def _play_in_blocks(game: GameDef, a, b, hands: int, seed: int, workers: int, ray: str | None,
                    *, duplicate: bool = False, exact: bool = False, engine: str = "auto",
                    progress=None, names: tuple[str, str] | None = None, block: int | None = None,
                    **rest) -> MatchResult:
    what = "Ray" if ray is not None else "worker processes"
    for key in ("log", "aivat"):
        if rest.pop(key, None):
            raise CfrlabError(f"{key} plays in one process: leave out workers and ray")
    if rest:
        raise CfrlabError(f"unknown option(s) of play_match: {', '.join(sorted(rest))}")
    if not (isinstance(a, str) and isinstance(b, str)):
        raise CfrlabError(f"a match on {what} takes its agents as specs (bot names, strategy "
                          "files), which every worker loads itself, not as objects")
    if engine == "python":
        raise CfrlabError(f"a match on {what} plays by the fast engine, not the python one")
    if hands < 1:
        raise CfrlabError("a match needs at least one hand")
    agent_a, agent_b = make_agent(a, game, seed), make_agent(b, game, seed + 1)
    reason = _match.fast_reason(game, agent_a, agent_b)
    if reason is not None:
        raise CfrlabError(f"a match on {what} needs the fast engine, and {reason}")
    block = block or max(BLOCK_MIN, -(-hands // (8 * workers)))
    n = -(-hands // block)
    halves = 2 if duplicate else 1
    ray_mod = connect_ray(ray) if ray is not None else None

    def tick(done: int, total: int, elapsed: float, eta: float) -> None:
        if progress is not None:
            progress(min(done * block, hands) * halves, hands * halves)

    t0 = time.perf_counter()
    results, _ = run_units(n, _MatchBlocks, (game.to_text(), game.name or "", a, b, seed,
                                            duplicate, hands, block),
                           workers=workers, progress=tick, ray=ray_mod)
    values = np.concatenate([results[i] for i in range(n)], axis=1).astype(np.float32)
    labels = names or (agent_a.name, agent_b.name)
    result = MatchResult(game, _match.unique_names(labels), hands, duplicate, seed, values,
                         "fast", time.perf_counter() - t0)
    if exact:
        result.add_exact_value(agent_a, agent_b)
    return result


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
    return [a if isinstance(a, (Agent, Strategy)) else make_agent(a, game, seed + i)
            for i, a in enumerate(agents)]


def play_nmatch(game: GameDef | str, agents: Sequence[Agent | Strategy | str], hands: int, *,
                seed: int | None = None, **options) -> NMatchResult:
    """A match of N > 2 agents (one per seat: agents, N-player strategies or specs) that
    plays every deal once per seating of the agents (``cfrlab.agents.nmatch``; options:
    ``names``, ``engine``, ``exact``, ``log``, ``progress``). ``estimates()``: each agent's mean
    per game with a 95% confidence interval.

        >>> r = play_nmatch("kuhn-3p", ["always-call", "always-raise", "random"], 2_000, seed=1, exact=True)
        >>> abs(sum(e.mean for e in r.estimates())) < 1e-9, len(r.exact)
        (True, 3)
    """
    game = load_game(game)
    seed = _seed(seed)
    return _nmatch.play_nmatch(game, _built(game, agents, seed), hands, seed=seed, **options)


def ncrosstable(game: GameDef | str, agents: Sequence[Agent | Strategy | str], hands: int, *,
                seed: int | None = None, **options) -> dict:
    """Every N-subset of ``agents`` (or specs) plays a rotated-seat match on the same deals;
    each agent's result over the field with a 95% CI (``cfrlab.agents.nmatch.ncrosstable``)."""
    game = load_game(game)
    seed = _seed(seed)
    labels = options.pop("labels", None) or [a if isinstance(a, str) else None for a in agents]
    if any(x is None for x in labels):
        labels = None
    return _nmatch.ncrosstable(game, _built(game, agents, seed), hands, seed=seed, labels=labels, **options)
