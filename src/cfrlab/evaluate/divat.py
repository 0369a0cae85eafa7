"""DIVAT and showdown DIVAT: unbiased, low-variance estimates of a player's winnings.

Both read hands with every player's hole cards (ACPC logs: the dealer's and cfrlab's) and
return, per hand, the money and two corrected values with the same expectation and less
variance, for any 2-player limit game cfrlab loads (Kuhn, Leduc, reduced-deck and full
heads-up limit hold'em).

They are advantage-sum estimators (Zinkevich, Bowling, Bard, Kan and Billings, "Optimal
unbiased estimators for evaluating agent performance", AAAI 2006): money minus, at each
chance event the hand went through, ``V(after) - E[V(after)]`` for a value function V of
the state after the event. Each subtracted term has mean zero whatever V is, so the estimate
is unbiased; a V that predicts money well removes most of the luck.

* **Showdown DIVAT**: V is the all-in equity value of the pot (the pot goes to showdown as
  it stands; the expectation is over the board cards still to come, both hands known). It
  removes the luck of the cards: each round's betting is valued at the equity it was made
  with. (Johanson's thesis uses the name for a variant that sees only the cards shown at a
  showdown and is biased; this one uses the full information of the log and is not.)
* **DIVAT** (Billings and Kan, "A tool for the direct assessment of poker decisions", ICGA
  Journal 2006): V at the start of a round is the value of the round played by a
  bet-for-value baseline (both sides, each with its own cards; see ``baseline_value`` in
  ``_divat_kernels``), the round's end valued at all-in equity. Per round the score is the
  value of the betting actually done minus the baseline's, as in Billings and Kan; the
  expected baseline value over the round's new cards (enumerated per hand) is added back,
  which makes the sum exactly unbiased. Where that enumeration is too large (the hold'em
  flop: 19,600 flops times 990 run-outs) the baseline checks that round through and only
  the luck of the cards is removed there.

Hold'em's preflop equities (every holding against every other) are one table, built once
(suit-isomorphic boards, both cores) and cached on disk; small decks build theirs in
milliseconds.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from dataclasses import dataclass, field
from math import comb
from pathlib import Path

import numpy as np

from cfrlab.cards.cards import deck
from cfrlab.config import cache_dir
from cfrlab.errors import CfrlabError
from cfrlab.evaluate import _divat_kernels as _k
from cfrlab.evaluate.stats import Estimate, estimate
from cfrlab.fileio import NpzReader, save_npz
from cfrlab.games import GameDef, load_game
from cfrlab.games.gamedef import write_game
from cfrlab.games.logscan import header_game, read_hands
from cfrlab.tree import CHANCE, DECISION, FOLD, build_tree

THRESHOLDS = (0.60, 0.75, 0.85, 0.92)  # equity to bet, raise, re-raise, cap (bet-for-value)
ENUM_LIMIT = 5_000  # per-hand enumeration of a round's run-outs, at most this many boards
TABLE_VERSION = 1

__all__ = ["THRESHOLDS", "DivatResult", "DivatTables", "divat_arrays", "divat_log", "divat_tables", "game_of_log"]


@dataclass
class DivatTables:
    """What the kernel needs for one game: deck, holdings, preflop equities, betting paths."""

    game: GameDef
    deck: np.ndarray
    holdings: np.ndarray
    hold_id: np.ndarray
    eq0: np.ndarray | None  # None until _with_equities (the costly part)
    enum_ok: np.ndarray
    thresholds: np.ndarray
    k_allin: float
    k_base: float
    tree: object = None
    paths: dict = field(default_factory=dict)
    p_rounds: list = field(default_factory=list)
    p_folder: list = field(default_factory=list)
    p_spent: list = field(default_factory=list)

    def path_index(self, betting: str) -> int:
        """Row of a betting string in the path tables (built on first sight)."""
        got = self.paths.get(betting)
        if got is not None:
            return got
        tree = self.tree
        node = tree.node_of_betting.get(betting)
        if node is None or int(tree.kind[node]) == DECISION or int(tree.kind[node]) == CHANCE:
            raise CfrlabError(f"{betting!r} is not a finished betting sequence of this game")
        g = self.game
        spent = np.zeros((g.num_rounds + 1, 2), dtype=np.int64)
        spent[g.num_rounds] = tree.spent[node]
        rnd = int(tree.round[node])
        n = node
        while n >= 0:
            par = int(tree.parent[n])
            if par < 0 or int(tree.kind[par]) == CHANCE:
                spent[int(tree.round[n])] = tree.spent[n]
            n = par
        self.p_rounds.append(rnd)
        self.p_folder.append(int(tree.player[node]) if int(tree.kind[node]) == FOLD else -1)
        self.p_spent.append(spent)
        self.paths[betting] = len(self.p_rounds) - 1
        return self.paths[betting]

    def path_arrays(self):
        return (np.asarray(self.p_rounds, dtype=np.int64), np.asarray(self.p_folder, dtype=np.int64),
                np.asarray(self.p_spent, dtype=np.int64).reshape(-1, self.game.num_rounds + 1, 2))


def _check(game: GameDef) -> None:
    if game.num_players != 2 or not game.is_limit:
        raise CfrlabError(f"DIVAT takes 2-player limit games; {game.name or 'this game'} is not one")
    if game.num_hole_cards not in (1, 2):
        raise CfrlabError("DIVAT takes games with 1 or 2 hole cards")
    if max(deck(game.num_ranks, game.num_suits)) >= 64:
        raise CfrlabError("DIVAT takes decks of at most 16 ranks (card ids below 64)")


def _suit_perms(game: GameDef, cards: list[int]):
    suits = sorted({c & 3 for c in cards})
    perms = list(itertools.permutations(suits))
    pc = np.tile(np.arange(64, dtype=np.int64), (len(perms), 1))
    for p, perm in enumerate(perms):
        mp = dict(zip(suits, perm))
        for c in cards:
            pc[p, c] = (c & ~3) | mp[c & 3]
    return pc


def _game_key(game: GameDef) -> str:
    text = write_game(game) + f"|divat-v{TABLE_VERSION}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _preflop_equities(game: GameDef, cards: list[int], holdings: np.ndarray, hold_id: np.ndarray) -> np.ndarray:
    nb = game.total_board_cards()
    big = comb(len(cards), nb) * len(holdings) ** 2 > 5e8
    path = cache_dir() / "divat" / f"preflop-{_game_key(game)}.npz"
    if big and path.exists():
        try:
            with NpzReader(path, kind="divat-preflop") as z:
                return z.read("eq0", shape=(len(holdings), len(holdings)), dtype=np.float64, what="equities")
        except CfrlabError:
            pass  # rebuilt below
    pc = _suit_perms(game, cards)
    ph = np.empty((pc.shape[0], len(holdings)), dtype=np.int64)
    for p in range(pc.shape[0]):
        mapped = pc[p][holdings]
        mapped.sort(axis=1)
        ph[p] = hold_id[mapped[:, 0], mapped[:, -1]]
    w2, cnt = _k.preflop_table(np.asarray(cards, dtype=np.int64), holdings, pc, ph, nb, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        eq0 = np.where(cnt > 0, w2 / (2.0 * np.maximum(cnt, 1e-300)), np.nan)
    if big:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_npz(path, {"kind": "divat-preflop", "game": write_game(game), "version": TABLE_VERSION},
                 {"eq0": eq0})
    return eq0


@functools.lru_cache(maxsize=8)
def _tables_for(game: GameDef, thresholds: tuple[float, ...]) -> DivatTables:
    _check(game)
    cards = deck(game.num_ranks, game.num_suits)
    h = game.num_hole_cards
    holdings = np.array(list(itertools.combinations(cards, h)), dtype=np.int64).reshape(-1, h)
    hold_id = np.full((64, 64), -1, dtype=np.int64)
    for m, row in enumerate(holdings):
        hold_id[row[0], row[-1]] = m
        hold_id[row[-1], row[0]] = m
    nr = game.num_rounds
    enum_ok = np.zeros(nr, dtype=np.bool_)
    for r in range(1, nr):
        left = len(cards) - 2 * h - game.total_board_cards(r - 1)
        enum_ok[r] = comb(left, game.total_board_cards() - game.total_board_cards(r - 1)) <= ENUM_LIMIT
    for r in range(2, nr):
        if not enum_ok[r]:
            raise CfrlabError(f"DIVAT: the run-outs after round {r - 1} of {game.name or 'this game'} are too many")
    thr = np.asarray(thresholds, dtype=np.float64)
    k_allin = float(_k.allin_value(int(game.blind[0]), int(game.blind[1]), 0.5))
    tree = build_tree(game)
    # eq0 and k_base (the expensive part: minutes for hold'em) come in _with_equities, after
    # the logs have been read, so that a log of another game is refused at once.
    return DivatTables(game, np.asarray(cards, dtype=np.int64), holdings, hold_id, None, enum_ok, thr,
                       k_allin, float("nan"), tree)


def _with_equities(t: DivatTables) -> DivatTables:
    """Fill the preflop equities and the root baseline's mean (once per tables object)."""
    if t.eq0 is None:
        g = t.game
        eq0 = _preflop_equities(g, [int(c) for c in t.deck], t.holdings, t.hold_id)
        hmask = np.array([sum(1 << int(c) for c in row) for row in t.holdings], dtype=np.uint64)
        t.k_base = float(_k.root_baseline_mean(eq0, hmask, int(g.blind[0]), int(g.blind[1]), g.first_player[0],
                                               g.raise_size[0], g.max_raises[0], t.thresholds))
        t.eq0 = eq0
    return t


def divat_tables(game: GameDef | str, thresholds=THRESHOLDS) -> DivatTables:
    """The (cached) tables of ``game``; hold'em's preflop table is built once (about a minute)."""
    return _with_equities(_tables_for(load_game(game), tuple(float(t) for t in thresholds)))


def divat_arrays(game: GameDef | str, holes, boards, bettings, *, thresholds=THRESHOLDS) -> np.ndarray:
    """float64[n, 3]: money, showdown DIVAT and DIVAT of position 0 (chips) for each hand.

    ``holes`` int[n, 2, h] (hole cards by position), ``boards`` int[n, B] (the full board; the
    cards of rounds a hand did not reach are ignored but must not repeat a hole card),
    ``bettings`` the ACPC betting strings."""
    t = divat_tables(game, thresholds)
    holes = np.ascontiguousarray(holes, dtype=np.int64)
    boards = np.ascontiguousarray(boards, dtype=np.int64).reshape(len(holes), t.game.total_board_cards())
    path = np.array([t.path_index(b) for b in bettings], dtype=np.int64)
    return _run(t, holes, boards, path)


def _deal_tables(t: DivatTables) -> _k.DealTables:
    """The kernels' view of the deck, holdings and preflop equities (after ``_with_equities``)."""
    g = t.game
    return _k.DealTables(t.deck, t.hold_id, t.eq0, np.asarray(g.num_board_cards[: g.num_rounds], dtype=np.int64))


def _run(t: DivatTables, holes, boards, path) -> np.ndarray:
    g = t.game
    paths = _k.BettingPaths(*t.path_arrays())
    base = _k.Baseline(np.asarray(g.first_player, dtype=np.int64), np.asarray(g.raise_size, dtype=np.int64),
                       np.asarray(g.max_raises, dtype=np.int64), t.enum_ok, t.thresholds, t.k_allin, t.k_base)
    return _k.divat_hands(holes, boards, path, paths, _deal_tables(t), base)


@dataclass
class _HandValues:
    """Per-hand values of one player (chips), in log order: the money, then (in the subclass)
    the estimators of its mean."""

    game: GameDef
    player: str
    money: np.ndarray

    @property
    def hands(self) -> int:
        return int(self.money.size)


@dataclass
class DivatResult(_HandValues):
    """Per-hand money, showdown DIVAT and DIVAT of one player (chips), in log order."""

    showdown: np.ndarray
    divat: np.ndarray

    def estimates(self) -> dict[str, Estimate]:
        return {"money": estimate(self.money), "showdown_divat": estimate(self.showdown),
                "divat": estimate(self.divat)}

    def variance_ratios(self) -> dict[str, float]:
        """Money's variance over each estimator's (how many times fewer hands it needs)."""
        vm = float(np.var(self.money))
        out = {}
        for name, x in (("showdown_divat", self.showdown), ("divat", self.divat)):
            v = float(np.var(x))
            out[name] = vm / v if v > 0 else float("inf")
        return out


class _Reader:
    """Reads a player's hands into card and betting arrays (``cfrlab.games.logscan.read_hands``,
    the reader every log consumer shares: every line checked, any refusal naming its file and
    line)."""

    def __init__(self, t: DivatTables):
        self.t = t
        self.h = t.game.num_hole_cards

    def read(self, path: Path, player: str):
        t, h = self.t, self.h
        hands = read_hands(path, t.game, player)
        if not len(hands):
            seen = ", ".join(sorted(hands.other_names)) or "none"
            raise CfrlabError(f"{path}: no hand of player {player!r} (players: {seen})")
        paths = np.array([t.path_index(b) for b in hands.bettings], dtype=np.int64)
        n = len(hands)
        holes = np.ascontiguousarray(hands.cards[:, :2 * h].reshape(n, 2, h))
        boards = np.ascontiguousarray(hands.cards[:, 2 * h:])
        return holes, boards, paths, hands.position.copy(), hands.values[:, 0].copy()


def divat_log(logs, player: str, game: GameDef | str | None = None, *, thresholds=THRESHOLDS) -> DivatResult:
    """Money, showdown DIVAT and DIVAT per hand of ``player`` over ACPC ``logs`` (paths).

    ``game`` defaults to the one the first log's header names (cfrlab's logs write it)."""
    if isinstance(logs, (str, Path)):
        logs = [logs]
    logs = [Path(p) for p in logs]
    if not logs:
        raise CfrlabError("no log given")
    g = load_game(game) if game is not None else game_of_log(logs[0])
    t = _tables_for(g, tuple(float(x) for x in thresholds))
    reader = _Reader(t)
    read = [(p, reader.read(p, player)) for p in logs]  # every log checked before the tables
    _with_equities(t)
    parts = []
    for p, (holes, boards, paths, pos, v0) in read:
        out = _run(t, holes, boards, paths)
        bad = np.flatnonzero(np.abs(out[:, 0] - v0) > 1e-6)
        if bad.size:
            raise CfrlabError(f"{p}: a hand's values do not match its cards and betting (hand {bad[0] + 1} of "
                              f"player {player!r}; is this a log of {g.name or 'this game'}?)")
        sign = np.where(pos == 0, 1.0, -1.0)
        parts.append(out * sign[:, None])
    allv = np.concatenate(parts)
    return DivatResult(g, player, allv[:, 0].copy(), allv[:, 1].copy(), allv[:, 2].copy())


def game_of_log(path: Path) -> GameDef:
    """The game an ACPC log's header names (cfrlab's logs write it; the dealer's do not)."""
    name = header_game(path)  # refuses a FIFO, a device or an endless line
    if name is not None:
        try:
            return load_game(name)
        except CfrlabError:
            pass
    raise NoGameError(f"{path}: the log does not name its game; give the game")


class NoGameError(CfrlabError):
    """A log whose header names no game cfrlab knows (the caller must give the game)."""
