"""Matches between two agents: seeded deals, duplicate mode, per-hand results, summaries.

``play_match(game, a, b, hands, seed=..., duplicate=...)`` plays ``hands`` deals. Seats
rotate as at the ACPC dealer: agent A sits in seat 0, and seat s has position
``(s - h) mod 2`` in hand h, so A is position 0 (in HULHE the big blind) on even hands.
In duplicate mode every deal is played a second time with the seats swapped (B in seat
0), the agents reset in between (``begin_match`` again), as Johanson 2007 (2.2.1) does.

Two engines give the same results:

* ``python``: any 2-player ACPC game (limit or no-limit) and any ``Agent``. The rules
  engine runs each hand; each agent sees ``MatchState`` views. This path defines
  correctness and is the one for users' own agents.
* ``fast``: 2-player limit games when both agents can be written as policy tables
  (``fast_policy(tree)``: the built-in bots and strategy agents). Numba plays batches of
  hands on both cores. For deterministic agents it reproduces the python engine hand by
  hand on the same deals (tests check it); sampling agents draw from counter-based random
  streams, so results do not depend on batch size or thread count.

Cards depend only on (seed, hand number) (``deal_cards``), as with the ACPC dealer.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from cfrlab.cards.cards import deck
from cfrlab.engine import expected_value, is_lossless, model_for_game, model_kind, row_offsets
from cfrlab.engine.rows import greedy_rows, legal_rows
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.evaluate import _match_kernels as K
from cfrlab.evaluate import aivat as _aivat
from cfrlab.evaluate.histories import DUPLICATE_MARK, LogWriter, format_log_line, safe_name
from cfrlab.evaluate.stats import Estimate, estimate, json_ready
from cfrlab.games import GameDef, load_game
from cfrlab.games.agent import Agent, has_table
from cfrlab.games.matchstate import seat_view
from cfrlab.games.state import State
from cfrlab.games.units import (
    CHIPS,
    display_factor,
    factor,
    is_ante_game,
    normalize_unit,
    rate_unit,
    unit_of,
)
from cfrlab.tree import build_tree
from cfrlab.tree.arrays import TreeArrays, compile_tree

BATCH = 1 << 16  # hands per kernel call: big enough to amortise, small enough for progress
Progress = Callable[[int, int], None]


# -- deals ------------------------------------------------------------------------------------


def cards_per_deal(game: GameDef) -> int:
    return game.num_players * game.num_hole_cards + game.total_board_cards()


@lru_cache(maxsize=32)
def _deck_array(num_ranks: int, num_suits: int) -> np.ndarray:
    d = np.array(deck(num_ranks, num_suits), dtype=np.int16)
    d.setflags(write=False)
    return d


def deal_cards(game: GameDef, seed: int, first_hand: int = 0, n: int = 1) -> np.ndarray:
    """int16[n, C]: the cards of hands first_hand .. first_hand+n-1 (ACPC deal order:
    each position's hole cards, then the board round by round)."""
    if seed < 0 or first_hand < 0:
        raise CfrlabError("seed and hand numbers must be non-negative")
    d = _deck_array(game.num_ranks, game.num_suits)
    return K.deal_hands(d, cards_per_deal(game), np.uint64(seed), first_hand, n)


def a_positions(first_hand: int, n: int, half: int) -> np.ndarray:
    """int8[n]: agent A's position in hands first_hand.. of a half (1 = seats swapped)."""
    return ((np.arange(first_hand, first_hand + n) + half) & 1).astype(np.int8)


# -- results ----------------------------------------------------------------------------------


@dataclass(repr=False)
class MatchResult:
    """Agent A's net chips per hand: ``values`` float32[halves, hands].

    Row 0 is the match as dealt (A in seat 0), row 1 (duplicate only) the same deals with
    the seats swapped. float32 holds every chip amount exactly (integers and half-chip
    splits below 2**23), at half the memory of float64; statistics accumulate in float64.

    The figures (``overall()``, ``per_position()``, ``exact``) are per game in ``unit``, the
    game's (``cfrlab.games.units``: mbb/g in a blind game, chips/g in an ante game); each
    takes ``unit="chips/g"`` or ``"mbb/g"`` for another. ``exact_chips`` and
    ``exact_per_position`` are in chips per game, as their names say.
    """

    game: GameDef
    names: tuple[str, str]
    hands: int
    duplicate: bool
    seed: int
    values: np.ndarray
    engine: str
    seconds: float = 0.0
    exact_chips: float | None = None
    exact_per_position: tuple[float, float] | None = None
    exact_reason: str | None = None  # why exact=True found no exact value
    extra: dict = field(default_factory=dict)
    aivat: np.ndarray | None = None  # A's AIVAT per hand, float64[halves, hands] (aivat=True)

    @property
    def games_played(self) -> int:
        return int(self.values.size)

    @property
    def unit(self) -> str:
        """The unit of the figures: the game's, "mbb/g" or "chips/g"."""
        return unit_of(self.game)

    @property
    def exact(self) -> float | None:
        """A's exact expected value per game in ``unit`` (None without ``exact=True`` or
        where there is none: ``exact_reason``)."""
        return None if self.exact_chips is None else self.exact_chips * factor(self.game, self.unit)

    def __repr__(self) -> str:
        est = self.overall()
        exact = "" if self.exact is None else f" (exact {self.exact:+.4f})"
        return (f"<MatchResult {self.game.name or 'custom game'}: {self.names[0]} vs {self.names[1]}, "
                f"{self.hands:,} deals{' in duplicate' if self.duplicate else ''}: {self.names[0]} "
                f"{est.mean:+.4f} +- {est.ci95:.4f} {est.unit}{exact}; {self.engine} engine>")

    def _in(self, est: Estimate, unit: str | None) -> Estimate:
        unit = normalize_unit(unit or self.unit)
        return est.in_unit(factor(self.game, unit), unit)

    def add_exact_value(self, a: Agent, b: Agent) -> None:
        """Fill ``exact_chips`` and ``exact_per_position`` with A's exact expected value
        against B where the game's deals can be enumerated, else ``exact_reason``."""
        ev, self.exact_reason = exact_value_or_reason(self.game, a, b)
        if ev is not None:
            self.exact_chips, self.exact_per_position = ev

    def samples(self) -> np.ndarray:
        """The independent samples: per-deal pair means in duplicate, else per-hand values."""
        if self.duplicate:
            return self.values.astype(np.float64).mean(axis=0)
        return self.values[0].astype(np.float64)

    def overall(self, unit: str | None = None) -> Estimate:
        """A's mean per game with its 95% CI, in ``unit`` (default: the game's, ``self.unit``)."""
        return self._in(estimate(self.samples()), unit)

    def aivat_samples(self) -> np.ndarray:
        """AIVAT's independent samples (per-deal pair means in duplicate), as ``samples``."""
        if self.aivat is None:
            raise CfrlabError("this match was played without aivat=True")
        return self.aivat.mean(axis=0) if self.duplicate else self.aivat[0].copy()

    def per_position(self, unit: str | None = None) -> list[Estimate]:
        """A's mean per game when A sits at position 0 and at position 1, in ``unit``
        (default: the game's)."""
        out = []
        for p in (0, 1):
            parts = [self.values[h][a_positions(0, self.hands, h) == p] for h in range(self.values.shape[0])]
            out.append(self._in(estimate(np.concatenate(parts)), unit))
        return out

    def summary(self) -> dict:
        """JSON-ready summary; ``mean_mbb`` = 1000 * chips / big blind (the ante in ante games;
        None in a game without blinds). Values that do not exist (a CI over one sample, a mean
        over no hands) are None."""
        g = self.game
        bb = g.big_blind
        est = self.overall(CHIPS)
        mbb = 1000.0 / bb if bb > 0 else float("nan")
        unit = rate_unit(g)
        labels = position_labels(g)
        per_seat = []
        for p, e in enumerate(self.per_position(CHIPS)):
            row = {"position": p, "label": labels[p], "hands": e.n, "mean_chips": e.mean, "ci95_chips": e.ci95,
                   "mean_mbb": e.mean * mbb, "ci95_mbb": e.ci95 * mbb}
            if self.exact_per_position is not None:
                row["exact_chips"] = self.exact_per_position[p]
            per_seat.append(row)
        out = {
            "game": g.name or "custom", "players": list(self.names), "hands": self.hands,
            "duplicate": self.duplicate, "games": self.games_played, "seed": self.seed,
            "unit": unit, "big_blind": bb,
            "mean_chips": est.mean, "ci95_chips": est.ci95,
            "mean_mbb": est.mean * mbb, "ci95_mbb": est.ci95 * mbb,
            "mean": est.mean * display_factor(g), "ci95": est.ci95 * display_factor(g),
            "std_chips": est.std, "samples": est.n, "per_seat": per_seat,
            "engine": self.engine, "seconds": self.seconds,
            "hands_per_second": self.games_played / self.seconds if self.seconds > 0 else None,
        }
        if self.exact_chips is not None:
            out["exact_chips"] = self.exact_chips
            out["exact_mbb"] = self.exact_chips * mbb
        elif self.exact_reason is not None:
            out["exact_unavailable"] = self.exact_reason
        if self.aivat is not None:
            av = estimate(self.aivat_samples())
            ratio = _aivat.variance_ratio(self.samples(), self.aivat_samples())
            out["aivat"] = {"mean_chips": av.mean, "ci95_chips": av.ci95, "mean_mbb": av.mean * mbb,
                            "ci95_mbb": av.ci95 * mbb, "mean": av.mean * display_factor(g),
                            "ci95": av.ci95 * display_factor(g), "std_chips": av.std, "variance_ratio": ratio,
                            "variance_ratio_text": _aivat.ratio_text(ratio)}
        out.update(self.extra)
        return json_ready(out)


def position_labels(game: GameDef) -> tuple[str, str]:
    if is_ante_game(game):
        return ("position 0 (acts first)" if game.first_player[0] == 0 else "position 0", "position 1")
    big = int(np.argmax(game.blind[:2]))
    return tuple("big blind" if p == big else "small blind" for p in (0, 1))  # type: ignore[return-value]


# -- engine selection ------------------------------------------------------------------------


def fast_reason(game: GameDef, a: Agent, b: Agent) -> str | None:
    """Why the fast engine cannot play this match (None when it can)."""
    if game.num_players != 2 or not game.is_limit:
        return "the fast engine plays 2-player limit games"
    most = max(game.blind[:2]) + sum(m * s for m, s in zip(game.max_raises, game.raise_size))
    if any(s < most for s in game.stack[:2]):
        return "the fast engine needs stacks that cannot run out"
    for ag in (a, b):
        if not has_table(ag):
            return f"agent {ag.name!r} is a Python agent"
    return None


def _check_agents(*agents) -> None:
    for ag in agents:
        if not isinstance(ag, Agent):
            raise CfrlabError(f"{ag!r} is not an Agent (cfrlab.agents.make_agent builds one from a bot "
                              "name or a strategy file; cfrlab.agents.play_match takes those directly)")


def play_match(game: GameDef | str, a: Agent, b: Agent, hands: int, *, seed: int | None = None,
               duplicate: bool = False, log: str | Path | None = None, names: tuple[str, str] | None = None,
               engine: str = "auto", progress: Progress | None = None, exact: bool = False,
               batch: int = BATCH, aivat: bool | str = False) -> MatchResult:
    """Play a match of ``hands`` deals (twice each in duplicate mode); see the module docstring.

    ``a``/``b`` are Agents (``cfrlab.agents.play_match`` also takes bot names and strategy
    files). ``engine``: ``auto`` (fast when
    possible), ``fast`` or ``python``. ``progress(done, total)`` is called after each batch
    (games played). ``exact`` also computes the exact expected value when the game's deals
    can be enumerated and both agents are policies (``exact_value``); when it cannot,
    ``result.exact_reason`` says why. ``aivat`` also scores every hand with AIVAT
    (``cfrlab.evaluate.aivat``; 2-player limit games) using the strategies of the agents that
    are tables (strategy files, built-in bots): ``result.aivat``, ``result.aivat_samples()``;
    a string picks the value function (``"exact"``, ``"calldown"``; True: ``"auto"``).
    """
    game = load_game(game)
    if game.num_players != 2:
        raise CfrlabError(f"matches are between 2 players; {game.name or 'this game'} has {game.num_players}")
    if hands < 1:
        raise CfrlabError("a match needs at least one hand")
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)
    if not 0 <= seed < 2**64:
        raise CfrlabError("the seed must be an integer from 0 to 2**64 - 1")
    _check_agents(a, b)
    names = unique_names(names or (getattr(a, "name", "A"), getattr(b, "name", "B")))
    reason = fast_reason(game, a, b)
    if engine == "auto":
        engine = "fast" if reason is None else "python"
    if engine == "fast" and reason is not None:
        raise CfrlabError(f"cannot use the fast engine: {reason}")
    if engine not in ("fast", "python"):
        raise CfrlabError(f"unknown engine {engine!r} (auto, fast, python)")
    halves = 2 if duplicate else 1
    values = np.empty((halves, hands), dtype=np.float32)
    scorer = _aivat.MatchScorer(game, a if has_table(a) else None, b if has_table(b) else None,
                                halves, hands, value="auto" if aivat is True else aivat) if aivat else None
    writer = LogWriter(log, game, "match", hands, seed) if log else None
    t0 = time.perf_counter()
    try:
        if engine == "fast":
            _play_fast(game, a, b, hands, seed, halves, values, writer, names, progress, batch, scorer)
        else:
            _play_python(game, a, b, hands, seed, halves, values, writer, names, progress, scorer)
    finally:
        if writer is not None:
            writer.close()
    seconds = time.perf_counter() - t0
    result = MatchResult(game, names, hands, duplicate, seed, values, engine, seconds,
                         aivat=scorer.values if scorer is not None else None)
    if exact:
        result.add_exact_value(a, b)
    return result


def unique_names(names) -> tuple[str, str]:
    n0, n1 = safe_name(names[0]), safe_name(names[1])
    if n0 == n1:
        n0, n1 = f"{n0}-A", f"{n1}-B"
    return n0, n1


def agent_seed(seed: int, half: int, which: int) -> int:
    """The seed ``begin_match`` gets for agent A (``which`` 0) or B (1) in half ``half`` of a
    match with deal seed ``seed`` (python engine). Give an agent this seed elsewhere (e.g.
    ``cfrlab connect --seed``) and it draws the same random choices as in that match."""
    return int(np.random.SeedSequence([seed, 1 + half, which]).generate_state(1)[0])


# -- the python engine ------------------------------------------------------------------------


def play_hand(state: State, by_position) -> None:
    """Play ``state`` to its end, each action asked of the agent at the acting position
    (``by_position[p]``, from the ``MatchState`` of its seat); an action that is not a legal
    action string raises IllegalActionError naming the agent, the state and the legal actions."""
    while not state.is_terminal():
        p = state.current_player()
        agent = by_position[p]
        view = seat_view(state, p)
        action = agent.act(view)
        if not isinstance(action, str) or not state.is_legal(action):
            raise IllegalActionError(
                f"agent {getattr(agent, 'name', agent)!r} played {action!r} at {view.to_string()}; "
                f"legal: {', '.join(view.legal_actions())}")
        state.apply(action)


def _play_python(game, a, b, hands, seed, halves, values, writer, names, progress, scorer=None) -> None:
    total = halves * hands
    step = max(1, min(1000, hands // 100))
    for half in range(halves):
        seats = (a, b) if half == 0 else (b, a)
        seat_names = names if half == 0 else (names[1], names[0])
        a.begin_match(game, agent_seed(seed, half, 0))
        b.begin_match(game, agent_seed(seed, half, 1))
        if writer is not None and half == 1:
            writer.comment(DUPLICATE_MARK.lstrip("# "))
        totals = [0.0, 0.0]
        lines: list[str] = []
        for start in range(0, hands, BATCH):
            deals = deal_cards(game, seed, start, min(BATCH, hands - start))
            ends = np.empty(len(deals), dtype=np.int64)
            for i, deal in enumerate(deals):
                h = start + i
                state = State(game, [int(c) for c in deal], hand_number=h)
                play_hand(state, [seats[(p + h) % 2] for p in (0, 1)])  # agent at each position
                pay = state.payoffs()
                values[half, h] = pay[(half - h) % 2]
                if scorer is not None:
                    ends[i] = scorer.terminal(state.betting_string())
                for s in (0, 1):
                    totals[s] += pay[(s - h) % 2]
                    seats[s].end_hand(seat_view(state, (s - h) % 2))
                if writer is not None:
                    lines.append(state.log_line([seat_names[(p + h) % 2] for p in (0, 1)]))
                    if len(lines) >= 4096:
                        writer.write(lines)
                        lines = []
                if progress is not None and (h + 1) % step == 0:
                    progress(half * hands + h + 1, total)
            if scorer is not None:
                scorer.score(half, start, deals, ends, a_positions(start, len(deals), half))
        if writer is not None:
            writer.write(lines)
            writer.score(totals, seat_names)
    if progress is not None:
        progress(total, total)


# -- the fast engine --------------------------------------------------------------------------


@dataclass(frozen=True)
class _TreeArrays:
    """A game's public tree, its compiled arrays and each node's betting string."""

    arrays: TreeArrays
    betting: list
    tree: object


_TREES: OrderedDict[str, _TreeArrays] = OrderedDict()  # the last few games' trees
_TREES_KEPT = 8


def tree_arrays(game: GameDef) -> _TreeArrays:
    """The public tree with ``next_node[n, a]`` (child by action; a chance node's child in
    column 1), cached for the last few games."""
    key = game.to_text()
    if key in _TREES:
        _TREES.move_to_end(key)
        return _TREES[key]
    t = build_tree(game)
    _TREES[key] = _TreeArrays(compile_tree(t), list(t.betting), t)
    while len(_TREES) > _TREES_KEPT:
        _TREES.popitem(last=False)
    return _TREES[key]


def play_block(game: GameDef, a: Agent, b: Agent, seed: int, duplicate: bool, first: int,
               count: int, batch: int = BATCH) -> np.ndarray:
    """float32[halves, count]: A's winnings in chips on deals ``first`` .. ``first + count - 1``
    of the match with deal seed ``seed``, by the fast engine; the same numbers as those hands
    of ``play_match`` (cards and the agents' random choices depend only on the seed and the
    hand number), so a long match can be played in blocks anywhere and put together."""
    reason = fast_reason(game, a, b)
    if reason is not None:
        raise CfrlabError(f"cannot use the fast engine: {reason}")
    halves = 2 if duplicate else 1
    values = np.empty((halves, count), dtype=np.float32)
    _play_fast(game, a, b, first + count, seed, halves, values, None, ("A", "B"), None, batch,
               first=first)
    return values


def _play_fast(game, a, b, hands, seed, halves, values, writer, names, progress, batch, scorer=None,
               first: int = 0) -> None:
    """Deals ``first`` .. ``hands - 1`` into ``values[:, 0:hands - first]``."""
    ta = tree_arrays(game)
    fa, fb = a.fast_policy(ta.tree), b.fast_policy(ta.tree)
    nb = game.total_board_cards()
    nr = game.num_rounds
    dummy = np.zeros((1, 2, nr), dtype=np.int32)
    pol_a = np.ascontiguousarray(fa.policy, np.float64)
    pol_b = np.ascontiguousarray(fb.policy, np.float64)
    off_a = np.ascontiguousarray(fa.offsets, np.int64)
    off_b = np.ascontiguousarray(fb.offsets, np.int64)
    total = halves * (hands - first)
    term = np.empty(min(batch, hands - first), dtype=np.int32)
    totals = np.zeros((halves, 2))
    # the second half's lines wait in a temporary file: the log is written half by half
    spool = tempfile.TemporaryFile("w+", encoding="utf-8") if writer is not None and halves == 2 else None  # noqa: SIM115
    try:
        for start in range(first, hands, batch):
            m = min(batch, hands - start)
            deals = deal_cards(game, seed, start, m)
            winner = K.showdown_winners(deals, game.num_hole_cards, nb)
            pa = fa.states(deals) if fa.states is not None else dummy
            pb = fb.states(deals) if fb.states is not None else dummy
            for half in range(halves):
                out = values[half, start - first:start - first + m]
                K.play_hands(ta.arrays, 0,
                             K.Seat(pol_a, off_a, pa, 0 if fa.states is None else 1, fa.greedy),
                             K.Seat(pol_b, off_b, pb, 0 if fb.states is None else 1, fb.greedy),
                             winner, a_positions(start, m, half), np.uint64(seed),
                             K.STREAM_ACTIONS + half, start, out, term[:m])
                if scorer is not None:
                    scorer.score(half, start, deals, term[:m], a_positions(start, m, half), (pa, pb))
                if writer is not None:
                    lines = _log_lines(game, ta, deals, out, term[:m], start, half, names, totals[half])
                    if half == 0:
                        writer.write(lines)
                    else:
                        spool.write("\n".join(lines) + "\n")
            if progress is not None:
                progress(halves * (start + m - first), total)
        if writer is not None:
            writer.score(totals[0], names)
            if spool is not None:
                writer.comment(DUPLICATE_MARK.lstrip("# "))
                spool.seek(0)
                shutil.copyfileobj(spool, writer.file)
                writer.score(totals[1], (names[1], names[0]))
    finally:
        if spool is not None:
            spool.close()


def _log_lines(game, ta, deals, vals, term, start, half, names, totals) -> list[str]:
    """STATE lines of a batch from the terminal nodes; adds each seat's chips to ``totals``."""
    h = game.num_hole_cards
    cuts = [2 * h + game.total_board_cards(r) for r in range(-1, game.num_rounds)]  # board slices
    out = []
    for i in range(len(vals)):
        hand = start + i
        v = float(vals[i])
        if (hand + half) & 1 == 0:  # A at position 0
            pos_vals, pos_names = (v, -v), names
        else:
            pos_vals, pos_names = (-v, v), (names[1], names[0])
        node = int(term[i])
        d = deals[i]
        board = [d[cuts[r]:cuts[r + 1]] for r in range(int(ta.arrays.rnd[node]) + 1)]
        out.append(format_log_line(hand, ta.betting[node], [d[:h], d[h:2 * h]], board, pos_vals, pos_names))
        totals[0] += pos_vals[hand & 1]  # seat s has position (s - hand) mod 2
        totals[1] += pos_vals[(1 - hand) & 1]
    return out


# -- crosstables ------------------------------------------------------------------------------


def crosstable(game: GameDef | str, agents: list[Agent], hands: int, *, labels: list[str] | None = None,
               seed: int | None = None, duplicate: bool = True, engine: str = "auto",
               progress: Progress | None = None) -> dict:
    """Every pair plays one match on the same deals (one seed for all).

    Returns a JSON-ready dict: ``players``, ``unit``, ``mean[i][j]`` / ``ci95[i][j]`` (row
    i's winnings against column j in the game's unit; ``mean[j][i] = -mean[i][j]``),
    ``row_mean`` (row i's average over its opponents) and ``matches`` (every summary).
    """
    game = load_game(game)
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)
    built = list(agents)
    _check_agents(*built)
    labels = list(labels or [getattr(a, "name", f"agent{i}") for i, a in enumerate(built)])
    if len(set(labels)) != len(labels):
        labels = [f"{lab}#{i + 1}" for i, lab in enumerate(labels)]
    k = len(built)
    f = display_factor(game)
    mean = [[0.0] * k for _ in range(k)]
    ci = [[0.0] * k for _ in range(k)]
    matches = []
    per_match = hands * (2 if duplicate else 1)
    done = 0
    for i in range(k):
        for j in range(i + 1, k):
            def sub(d, _t, base=done):
                if progress is not None:
                    progress(base + d, per_match * k * (k - 1) // 2)
            res = play_match(game, built[i], built[j], hands, seed=seed, duplicate=duplicate,
                             names=(labels[i], labels[j]), engine=engine, progress=sub)
            est = res.overall(CHIPS)
            mean[i][j], mean[j][i] = est.mean * f, 0.0 - est.mean * f
            ci[i][j] = ci[j][i] = est.ci95 * f
            matches.append(res.summary())
            done += per_match
    row_mean = [sum(mean[i][j] for j in range(k) if j != i) / max(k - 1, 1) for i in range(k)]
    return json_ready({"game": game.name or "custom", "players": labels, "unit": rate_unit(game), "hands": hands,
                       "duplicate": duplicate, "seed": seed, "mean": mean, "ci95": ci, "row_mean": row_mean,
                       "matches": matches})


# -- exact expected values ------------------------------------------------------------------


def exact_value(game: GameDef, a: Agent, b: Agent) -> tuple[float, tuple[float, float]] | None:
    """A's exact expected chips per game over both positions, and per position, when both
    agents are policies in one chance model; else None (``exact_value_or_reason`` says why).

    The model is the strategies' own (both strategies must share it; a bot's table is
    expanded to it) or, for two bots, the game's lossless model when its deals can be
    enumerated. A bucketed model gives the real game's value too, provided its joint
    tables are exact sums over the real deals (docs/ENGINE.md).
    mean = (EV(A at position 0 vs B) - EV(B at position 0 vs A)) / 2, each EV from
    ``cfrlab.evaluate.expected_value``.
    """
    return exact_value_or_reason(game, a, b)[0]


def exact_value_or_reason(game: GameDef, a: Agent, b: Agent):
    """(``exact_value``'s result, None) or (None, why there is no exact value)."""
    reason = fast_reason(game, a, b)
    if reason is not None:
        return None, reason.replace("the fast engine", "an exact value")
    ta = tree_arrays(game)
    ma, mb = a.fast_policy(ta.tree).model, b.fast_policy(ta.tree).model
    if ma is not None and mb is not None and str(ma.hash) != str(mb.hash):
        return None, "the two strategies are in different abstractions (no common chance model)"
    model = ma if ma is not None else mb
    if model is None:
        try:
            model = model_for_game(game)
        except CfrlabError as e:
            return None, f"the deals of {game.name or 'this game'} cannot be enumerated ({e})"
    pa = policy_in_model(a, ta.tree, model)
    pb = policy_in_model(b, ta.tree, model)
    for ag, pol in ((a, pa), (b, pb)):
        if pol is None:
            return None, (f"agent {getattr(ag, 'name', ag)!r} is not a policy in the chance model "
                          f"{model_kind(model)} (e.g. a hand-strength bot against a bucketed strategy)")
    ev0 = float(expected_value(ta.tree, model, pa, pb))
    ev1 = -float(expected_value(ta.tree, model, pb, pa))
    return ((ev0 + ev1) / 2.0, (ev0, ev1)), None


def policy_in_model(agent: Agent, tree, model) -> np.ndarray | None:
    """The agent's play as a policy in ``model``'s row layout, or None when it cannot be."""
    off = row_offsets(tree, model)
    rounds = tree.round[tree.decision_node]
    fp = agent.fast_policy(tree)
    if fp.model is not None:
        if str(fp.model.hash) != str(model.hash):
            return None
        pol = np.asarray(fp.policy, dtype=np.float64)
    elif fp.states is None:
        pol = np.repeat(np.asarray(fp.policy)[fp.offsets], np.diff(off), axis=0)
    elif fp.card_class is not None and is_lossless(model):
        by_round: dict[int, np.ndarray] = {}  # one class per state, the same at every decision of a round
        rows = []
        for d, r in enumerate(rounds):
            r = int(r)
            if r not in by_round:
                by_round[r] = _card_classes(fp.card_class, model, r)
            rows.append(fp.policy[fp.offsets[d] + by_round[r]])
        pol = np.concatenate(rows)
    else:
        return None
    if fp.greedy:
        pol = greedy_rows(pol, legal_rows(tree, off))
    return pol


def _card_classes(card_class, model, r: int) -> np.ndarray:
    """Each round-r state's class (the row within a decision) from its cards."""
    out = np.empty(model.num_states[r], dtype=np.int64)
    for s in range(model.num_states[r]):
        hole, board = model.state_cards(r, s)
        out[s] = card_class(hole, board)
    return out


