"""Rotated-seat matches and crosstables between N agents (3-player Kuhn and Leduc).

With two players, duplicate play deals every hand twice with the seats swapped (Johanson
2007, section 2.2.1). Its N-player analogue used here plays every deal once for each of the N!
ways of seating the agents, so that each agent holds each position's cards against every order
of the others; the luck of the deal cancels out of the per-deal means, and the agents' means
add up to zero deal by deal (the game is zero-sum).

``play_nmatch(game, agents, hands, seed=...)`` plays ``hands`` deals x N! games. A deal is drawn
uniformly from the game's enumerated deals (``cfrlab.abstraction.deals``; the deals depend only
on the seed). Seat assignment k is a permutation of the agents over the seats, and as at the
ACPC dealer the seat of position p in hand h is ``(p + h) mod N``; over the N! assignments
every deal is played with every assignment of agents to positions exactly once. An agent's
sample for a deal is its mean over the N! games, so its mean over the deals comes with a 95%
confidence interval ``1.96 s / sqrt(deals)`` (normal approximation, ``s`` the sample standard
deviation of the per-deal means).

Two engines give the same games for agents that play policy tables:

* ``fast``: agents that are ``NPolicyAgent``s (N-player strategies and the table bots'
  N-player form): a numba kernel plays the games on the N-player public tree;
* ``python``: any ``Agent`` (``cfrlab.games.agent``): the rules engine plays each game and each
  agent sees the ``MatchState`` of its seat.

``exact=True`` (policy agents) adds each agent's exact expected value: for every assignment of
agents to positions, the N-player engine's profile value (``NEngine.profile_values``) of the
profile that takes each position's rows from the agent sitting there, averaged over the N!
assignments. The sampled means estimate exactly these numbers.

The log (``log=FILE``) is the ACPC dealer's: one section per seat assignment, each as a dealer
run with the same seed would write it (STATE lines, then SCORE in seat order), so
``cfrlab log`` reads it back and checks every hand.

The statistics are ``cfrlab.evaluate.stats``'s and the Python engine plays a hand as the
2-player match does (``cfrlab.evaluate.match.play_hand``); bot names and strategy files become
agents in ``cfrlab.agents.make_agent``.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations
from pathlib import Path

import numpy as np

from cfrlab.agents import _nmatch_kernels as K
from cfrlab.agents.nplayer import NPolicyAgent
from cfrlab.cards import card_text
from cfrlab.engine.nplayer import NEngine, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.match import play_hand
from cfrlab.evaluate.stats import Estimate, estimate, json_ready
from cfrlab.games import GameDef, load_game
from cfrlab.games.agent import Agent, has_table
from cfrlab.games.matchstate import seat_view
from cfrlab.games.state import State, format_value
from cfrlab.games.units import display_factor, rate_unit
from cfrlab.strategy import Strategy

BATCH = 1 << 15  # deals per kernel call
MAX_PLAYERS = 6  # N! seat assignments per deal: 720 at six players
Progress = Callable[[int, int], None]
DUPLICATE_MARK = "duplicate half: seats rotated"  # between the log's sections (cfrlab log skips comments)


# -- agents and checks ----------------------------------------------------------------------

def _as_agent(x, game: GameDef) -> Agent:
    if isinstance(x, Strategy):
        if x.game.to_text() != game.to_text():
            raise CfrlabError(f"a strategy for {x.game.name or 'another game'} ({x.num_players} players) cannot "
                              f"play {game.name or 'this game'} ({game.num_players} players)")
        return NPolicyAgent.from_strategy(x)
    if not isinstance(x, Agent):
        raise CfrlabError(f"{x!r} is not an Agent or a Strategy (cfrlab.agents.make_agent builds one from a bot "
                          "name or a strategy file)")
    return x


def check_seats(game: GameDef, count: int) -> None:
    """One line when ``count`` agents cannot fill ``game``'s seats."""
    n = game.num_players
    if count != n:
        raise CfrlabError(f"{game.name or 'this game'} has {n} seats: a match needs {n} agents, got {count}")
    if n > MAX_PLAYERS:
        raise CfrlabError(f"a rotated-seat match plays every deal {n}! ways; at most {MAX_PLAYERS} players")


def fast_reason(game: GameDef, agents: Sequence[Agent]) -> str | None:
    """Why the fast engine cannot play this match (None when it can)."""
    for a in agents:
        if not isinstance(a, NPolicyAgent) or not has_table(a):  # a subclass may override act
            return f"agent {a.name!r} is a Python agent"
        if a.game.to_text() != game.to_text():
            return f"agent {a.name!r} plays another game"
    return None


def _unique_names(names: Sequence[str]) -> tuple[str, ...]:
    out = ["".join("_" if ch in "|:" or ch.isspace() else ch for ch in str(n)) or "player" for n in names]
    if len(set(out)) < len(out):  # number the copies of one agent by seat
        out = [f"{n}-{i + 1}" if out.count(n) > 1 else n for i, n in enumerate(out)]
    return tuple(out)


def seat_assignments(n: int) -> np.ndarray:
    """int32[n!, n]: agent in each seat, assignment by assignment (the identity first)."""
    return np.array(list(permutations(range(n))), dtype=np.int32).reshape(-1, n)


def draw_deals(engine: NEngine, seed: int, hands: int) -> np.ndarray:
    """int64[hands]: uniform deals (last-round prefix indices) from ``seed``."""
    n_last = engine.deals.num_prefixes[-1]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), 0x6E6D61])))
    return rng.integers(0, n_last, size=hands, dtype=np.int64)


# -- results --------------------------------------------------------------------------------

@dataclass
class NMatchResult:
    """``values`` float32[K, hands, N]: agent a's net chips in the game of seat assignment k
    (``seats[k]``) on deal h; ``samples()`` float64[hands, N] their per-deal means."""

    game: GameDef
    names: tuple[str, ...]
    hands: int
    seed: int
    seats: np.ndarray
    values: np.ndarray
    engine: str
    seconds: float = 0.0
    exact: tuple[float, ...] | None = None
    exact_per_position: tuple[tuple[float, ...], ...] | None = None  # [agent][position]
    exact_reason: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def num_players(self) -> int:
        return len(self.names)

    @property
    def games_played(self) -> int:
        return int(self.values.shape[0] * self.values.shape[1])

    def samples(self) -> np.ndarray:
        return self.values.astype(np.float64).mean(axis=0)

    def estimates(self) -> list[Estimate]:
        """Each agent's mean chips per game with its 95% CI (per-deal means as samples)."""
        s = self.samples()
        return [estimate(s[:, a]) for a in range(self.num_players)]

    def positions(self) -> np.ndarray:
        """int8[K, hands, N]: the position of agent a in each game."""
        n = self.num_players
        seat_of = np.argsort(self.seats, axis=1)  # seat of agent a in assignment k
        h = np.arange(self.hands)
        return ((seat_of[:, None, :] - h[None, :, None]) % n).astype(np.int8)

    def per_position(self) -> list[list[Estimate]]:
        """[agent][position]: the agent's chips per game when it sits at that position."""
        pos = self.positions()
        return [[estimate(self.values[:, :, a][pos[:, :, a] == p]) for p in range(self.num_players)]
                for a in range(self.num_players)]

    def summary(self) -> dict:
        g = self.game
        f = display_factor(g)
        ests = self.estimates()
        per_pos = self.per_position()
        agents = []
        for a, (name, e) in enumerate(zip(self.names, ests)):
            row = {"name": name, "mean_chips": e.mean, "ci95_chips": e.ci95, "std_chips": e.std,
                   "mean": e.mean * f, "ci95": e.ci95 * f,
                   "per_position": [{"position": p, "games": pe.n, "mean_chips": pe.mean, "ci95_chips": pe.ci95}
                                    for p, pe in enumerate(per_pos[a])]}
            if self.exact is not None:
                row["exact_chips"] = self.exact[a]
                row["exact"] = self.exact[a] * f
                for p, pr in enumerate(row["per_position"]):
                    pr["exact_chips"] = self.exact_per_position[a][p]
            agents.append(row)
        out = {"game": g.name or "custom", "num_players": self.num_players, "players": list(self.names),
               "hands": self.hands, "seat_assignments": int(self.seats.shape[0]), "games": self.games_played,
               "seed": self.seed, "unit": rate_unit(g), "big_blind": g.big_blind, "agents": agents,
               "sum_of_means_chips": float(sum(e.mean for e in ests)),
               "engine": self.engine, "seconds": self.seconds,
               "games_per_second": self.games_played / self.seconds if self.seconds > 0 else None}
        if self.exact is None and self.exact_reason is not None:
            out["exact_unavailable"] = self.exact_reason
        out.update(self.extra)
        return json_ready(out)


# -- the match ------------------------------------------------------------------------------

def play_nmatch(game: GameDef | str, agents: Sequence[Agent | Strategy], hands: int, *,
                seed: int | None = None, names: Sequence[str] | None = None, engine: str = "auto",
                exact: bool = False, log: str | Path | None = None, progress: Progress | None = None,
                batch: int = BATCH) -> NMatchResult:
    """Play a rotated-seat match of ``hands`` deals (N! games each); see the module docstring.

    ``agents``: one per seat, ``Agent``s or ``Strategy``s. ``engine``: ``auto`` (fast when
    every agent is a policy table), ``fast`` or ``python``. ``progress(done, total)`` counts
    games.

        >>> from cfrlab import Strategy
        >>> u = Strategy.uniform("kuhn-3p")
        >>> r = play_nmatch("kuhn-3p", [u, u, u], 2000, seed=1, exact=True)
        >>> [round(x, 12) for x in r.exact], abs(sum(e.mean for e in r.estimates())) < 1e-9
        ([0.0, 0.0, 0.0], True)
    """
    game = load_game(game)
    agents = [_as_agent(a, game) for a in agents]
    check_seats(game, len(agents))
    if hands < 1:
        raise CfrlabError("a match needs at least one hand")
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)
    if not 0 <= seed < 2**63:
        raise CfrlabError("the seed must be an integer from 0 to 2**63 - 1")
    names = _unique_names(names or [getattr(a, "name", f"agent{i}") for i, a in enumerate(agents)])
    if len(names) != len(agents):
        raise CfrlabError(f"{len(names)} names for {len(agents)} agents")
    eng = get_engine(game)
    reason = fast_reason(game, agents)
    if engine == "auto":
        engine = "fast" if reason is None else "python"
    if engine not in ("fast", "python"):
        raise CfrlabError(f"unknown engine {engine!r} (auto, fast, python)")
    if engine == "fast" and reason is not None:
        raise CfrlabError(f"cannot use the fast engine: {reason}")
    seats = seat_assignments(len(agents))
    xs = draw_deals(eng, seed, hands)
    values = np.empty((len(seats), hands, len(agents)), dtype=np.float32)
    terminal = np.empty((len(seats), hands), dtype=np.int32) if engine == "fast" else None
    t0 = time.perf_counter()
    lines: list[list[str]] | None = [[] for _ in seats] if log is not None else None
    if engine == "fast":
        _play_fast(eng, agents, seats, xs, seed, values, terminal, progress, batch)
    else:
        _play_python(game, eng, agents, seats, xs, seed, values, lines, names, progress)
    seconds = time.perf_counter() - t0
    res = NMatchResult(game, names, hands, seed, seats, values, engine, seconds)
    if log is not None:
        _write_log(Path(log), game, eng, res, xs, terminal, lines)
    if exact:
        ex, res.exact_reason = exact_values_or_reason(game, agents)
        if ex is not None:
            res.exact, res.exact_per_position = ex
    return res


def _match_tree(eng: NEngine) -> K.MatchTree:
    t = eng.tree
    nxt = np.full((t.num_nodes, 3), -1, np.int32)
    for n in range(t.num_nodes):
        for c in t.children(n):
            nxt[n, 0 if t.kind[n] == K.CHANCE else int(t.action[c])] = c
    return K.MatchTree(t.kind, t.player, t.round, t.decision, nxt, t.spent.astype(np.float64), t.folded,
                       eng.row_offset)


def _play_fast(eng, agents, seats, xs, seed, values, terminal, progress, batch) -> None:
    T = _match_tree(eng)
    pols = np.ascontiguousarray(np.stack([a.play_policy() for a in agents]), dtype=np.float64)
    n = len(xs)
    total = n * len(seats)
    for start in range(0, n, batch):
        m = min(batch, n - start)
        v = np.empty((len(seats), m, len(agents)), np.float32)
        term = np.empty((len(seats), m), np.int32)
        K.play_games(T, eng.D, pols, seats, xs[start:start + m], np.uint64(seed), start, v, term)
        values[:, start:start + m] = v
        terminal[:, start:start + m] = term
        if progress is not None:
            progress((start + m) * len(seats), total)


def deal_of(eng: NEngine, x: int) -> list[int]:
    """The cards of deal ``x`` in ACPC order (each position's hole cards, then the board)."""
    return [int(c) for c in eng.deals.prefix_cards[-1][x]]


def _play_python(game, eng, agents, seats, xs, seed, values, lines, names, progress) -> None:
    n = game.num_players
    for i, a in enumerate(agents):
        a.begin_match(game, int(np.random.SeedSequence([seed, 7, i]).generate_state(1)[0]))
    total = len(xs) * len(seats)
    step = max(1, min(1000, len(xs) // 100))
    for h, x in enumerate(xs):
        deal = deal_of(eng, int(x))
        for k, assign in enumerate(seats):
            state = State(game, deal, hand_number=h)
            by_pos = [int(assign[(p + h) % n]) for p in range(n)]  # agent at each position
            play_hand(state, [agents[a] for a in by_pos])
            pay = state.payoffs()
            for p in range(n):
                values[k, h, by_pos[p]] = pay[p]
                agents[by_pos[p]].end_hand(seat_view(state, p))
            if lines is not None:
                lines[k].append(state.log_line([names[a] for a in by_pos]))
        if progress is not None and (h + 1) % step == 0:
            progress((h + 1) * len(seats), total)
    if progress is not None:
        progress(total, total)


# -- the log ----------------------------------------------------------------------------------

def _cards(cards) -> str:
    return "".join(card_text(int(c)) for c in cards)


class _LineMaker:
    """STATE lines of fast-engine games (as ``State.log_line`` writes them), with each deal's
    card text and each terminal's betting and board rounds cached."""

    def __init__(self, game: GameDef, eng: NEngine) -> None:
        self.game, self.eng = game, eng
        self.cards: dict[int, tuple[str, list[str]]] = {}
        self.values: dict[float, str] = {}

    def _texts(self, x: int) -> tuple[str, list[str]]:
        got = self.cards.get(x)
        if got is None:
            g = self.game
            cards = self.eng.deals.prefix_cards[-1][x]
            hn, n = g.num_hole_cards, g.num_players
            holes = "|".join(_cards(cards[p * hn:(p + 1) * hn]) for p in range(n))
            board, start = [], n * hn
            for r in range(g.num_rounds):
                k = g.num_board_cards[r]
                board.append(_cards(cards[start:start + k]))
                start += k
            got = self.cards[x] = (holes, board)
        return got

    def value(self, v: float) -> str:
        text = self.values.get(v)
        if text is None:
            text = self.values[v] = format_value(v)
        return text

    def line(self, h: int, x: int, node: int, vals: list[float], by_pos, names_text: str) -> str:
        """``vals``: each agent's chips (agent order); ``names_text``: the names by position."""
        holes, board = self._texts(x)
        t = self.eng.tree
        r_end = int(t.round[node])
        values = "|".join(self.value(vals[a]) for a in by_pos)
        return f"STATE:{h}:{t.betting[node]}:{holes}{'/'.join(board[:r_end + 1])}:{values}:{names_text}"


def _write_log(path: Path, game, eng, res: NMatchResult, xs, terminal, lines) -> None:
    """One dealer-style section per seat assignment (STATE lines, SCORE in seat order)."""
    n = game.num_players
    try:
        tmp = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False,  # noqa: SIM115
                                          prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise CfrlabError(f"{path}: cannot write the log ({e.strerror or e})") from None
    try:
        with tmp as f:
            f.write(f"# name/game/hands/seed match {game.name or 'game'} {res.hands} {res.seed}\n")
            maker = _LineMaker(game, eng)
            for k, assign in enumerate(res.seats):
                if k:
                    f.write(f"# {DUPLICATE_MARK} ({k + 1} of {len(res.seats)})\n")
                vals = res.values[k].tolist() if terminal is not None else None
                term = terminal[k].tolist() if terminal is not None else None
                rot = [[int(assign[(p + h) % n]) for p in range(n)] for h in range(n)]  # by hand mod n
                rot_names = ["|".join(res.names[a] for a in by_pos) for by_pos in rot]
                for h in range(res.hands):
                    if terminal is not None:
                        line = maker.line(h, int(xs[h]), term[h], vals[h], rot[h % n], rot_names[h % n])
                    else:
                        line = lines[k][h]
                    f.write(line + "\n")
                totals = [float(res.values[k, :, int(a)].astype(np.float64).sum()) for a in assign]
                seat_names = [res.names[int(a)] for a in assign]
                f.write("SCORE:" + "|".join(format_value(v) for v in totals) + ":" + "|".join(seat_names) + "\n")
        os.replace(tmp.name, path)
    except OSError as e:
        Path(tmp.name).unlink(missing_ok=True)
        raise CfrlabError(f"{path}: cannot write the log ({e.strerror or e})") from None
    except BaseException:
        Path(tmp.name).unlink(missing_ok=True)
        raise


# -- exact values -----------------------------------------------------------------------------

def exact_values_or_reason(game: GameDef, agents: Sequence[Agent]):
    """((each agent's exact chips per game, [agent][position] values), None) when every agent
    is a policy table of ``game``; else (None, why not)."""
    reason = fast_reason(game, agents)
    if reason is not None:
        return None, reason.replace("is a Python agent", "is not a policy table")
    eng = get_engine(game)
    n = game.num_players
    t = eng.tree
    row_player = t.player[t.decision_node][eng.dec_of_row].astype(np.int64)
    tables = [a.play_policy() for a in agents]
    per = np.zeros((n, n))  # [agent, position]
    count = np.zeros((n, n))
    for perm in permutations(range(n)):  # perm[p]: agent at position p
        profile = np.empty_like(tables[0])
        for p in range(n):
            mine = row_player == p
            profile[mine] = tables[perm[p]][mine]
        v = eng.profile_values(profile)
        for p in range(n):
            per[perm[p], p] += v[p]
            count[perm[p], p] += 1
    per /= count
    overall = per.mean(axis=1)
    return (tuple(float(x) for x in overall), tuple(tuple(float(x) for x in row) for row in per)), None


def exact_values(game: GameDef | str, agents: Sequence[Agent | Strategy]) -> tuple[float, ...] | None:
    """Each agent's exact expected chips per game in a rotated-seat match (None: not computable)."""
    game = load_game(game)
    agents = [_as_agent(a, game) for a in agents]
    check_seats(game, len(agents))
    ex = exact_values_or_reason(game, agents)[0]
    return None if ex is None else ex[0]


# -- crosstables ------------------------------------------------------------------------------

def ncrosstable(game: GameDef | str, agents: Sequence[Agent | Strategy], hands: int, *,
                labels: Sequence[str] | None = None, seed: int | None = None, engine: str = "auto",
                exact: bool = False, progress: Progress | None = None) -> dict:
    """Every N-subset of ``agents`` plays one rotated-seat match on the same deals (one seed).

    Returns a JSON-ready dict: ``players``; ``matches`` (each subset's ``players``, the
    indices ``agents`` into the list, ``mean`` / ``ci95`` per member in the game's unit, and
    the match summary); ``field`` per agent: its mean over the matches it played, with a 95% CI
    from its per-deal means averaged over those matches (the deals are the same in every
    match), and ``exact`` when every agent is a policy table.
    """
    game = load_game(game)
    n = game.num_players
    built = [_as_agent(a, game) for a in agents]
    if len(built) < n:
        raise CfrlabError(f"a crosstable of {game.name or 'this game'} needs at least {n} agents, got {len(built)}")
    if n > MAX_PLAYERS:
        raise CfrlabError(f"a rotated-seat match plays every deal {n}! ways; at most {MAX_PLAYERS} players")
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else int(seed)
    labels = list(labels or [getattr(a, "name", f"agent{i}") for i, a in enumerate(built)])
    labels = list(_unique_names(labels)) if len(set(labels)) == len(labels) else \
        [f"{lab}#{i + 1}" for i, lab in enumerate(_unique_names(labels))]
    f = display_factor(game)
    subsets = list(combinations(range(len(built)), n))
    per_match = hands * math.factorial(n)
    total = per_match * len(subsets)
    sums = np.zeros((len(built), hands))
    counts = np.zeros(len(built), np.int64)
    exact_sum = np.zeros(len(built))
    exact_ok = exact
    matches = []
    for m, subset in enumerate(subsets):
        def sub(d, _t, base=m * per_match):
            if progress is not None:
                progress(base + d, total)
        res = play_nmatch(game, [built[i] for i in subset], hands, seed=seed, names=[labels[i] for i in subset],
                          engine=engine, exact=exact, progress=sub)
        s = res.samples()
        ests = res.estimates()
        for j, i in enumerate(subset):
            sums[i] += s[:, j]
            counts[i] += 1
            if res.exact is not None:
                exact_sum[i] += res.exact[j]
        exact_ok = exact_ok and res.exact is not None
        matches.append({"players": [labels[i] for i in subset], "agents": list(subset),
                        "mean": [e.mean * f for e in ests], "ci95": [e.ci95 * f for e in ests],
                        **({"exact": [x * f for x in res.exact]} if res.exact is not None else {}),
                        "summary": res.summary()})
    field_rows = []
    for i, lab in enumerate(labels):
        e = estimate(sums[i] / counts[i])
        row = {"name": lab, "matches": int(counts[i]), "mean": e.mean * f, "ci95": e.ci95 * f,
               "mean_chips": e.mean, "ci95_chips": e.ci95}
        if exact_ok:
            row["exact"] = exact_sum[i] / counts[i] * f
            row["exact_chips"] = exact_sum[i] / counts[i]
        field_rows.append(row)
    return json_ready({"game": game.name or "custom", "num_players": n, "players": labels, "unit": rate_unit(game),
                    "hands": hands, "seat_assignments": math.factorial(n), "seed": seed, "field": field_rows,
                    "matches": matches})
