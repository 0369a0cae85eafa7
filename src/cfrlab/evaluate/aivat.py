"""AIVAT: unbiased, low-variance match results when a strategy in the match is known.

Burch, Schmid, Moravčík, Morrill and Bowling, "AIVAT: a new variance reduction technique for
agent evaluation in imperfect information games" (AAAI 2018). Money minus control variates
that each have mean zero whatever the opponent does:

* at every chance event (the deal, each round's board cards): ``V(after) - E[V(after)]``,
  the expectation over the cards that could have come;
* at every decision of a player whose strategy is known: ``V(h, a) - sum_a' sigma(a') V(h, a')``,
  the action taken against the strategy's own distribution there.

Unknown players' decisions get no term (their strategy is what is being measured). Every
term has conditional mean zero given the hand so far, so the estimate is unbiased for any
value function V; a V that predicts the outcome removes most of the luck, of the cards and
of the known player's own dice.

Two value functions (``value=``; ``auto`` picks ``exact`` where it fits in memory):

* ``exact`` (small games: Kuhn, Leduc, reduced decks): position 0's expected value at each
  node given the cards dealt so far when the known strategies play (an unknown seat assumed
  to play like the known one), tabled over every deal. With both strategies known it is the
  true value function and every hand scores exactly the expected value of its seating.
* ``calldown`` (any game, the only one for full hold'em): a fold is valued exactly;
  elsewhere the pot goes to showdown after the last bet is called, at the all-in equity of
  the two holdings on the board dealt so far (board cards still to come enumerated;
  hold'em preflop from DIVAT's cached table).

The estimate uses every player's hole cards, which cfrlab's matches and the ACPC
dealer's logs record for every hand (the paper's version also covers hands whose cards were
never shown; this one needs them).

A known player is an agent with a fast policy (a strategy file or a built-in bot), playing
with the distribution the match engine samples from; a greedy agent's terms are zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np

from cfrlab.cards.cards import deck
from cfrlab.errors import CfrlabError
from cfrlab.evaluate import _aivat_kernels as _k
from cfrlab.evaluate import _match_kernels as _mk
from cfrlab.evaluate.divat import (
    THRESHOLDS,
    _deal_tables,
    _HandValues,
    _Reader,
    _tables_for,
    _with_equities,
    game_of_log,
)
from cfrlab.evaluate.stats import Estimate, estimate
from cfrlab.games import GameDef, load_game
from cfrlab.games.agent import Agent, has_table
from cfrlab.games.units import factor, normalize_unit, unit_of

__all__ = ["AivatResult", "MatchScorer", "aivat_deals", "aivat_log", "ratio_text", "variance_ratio"]


@dataclass(repr=False)
class AivatResult(_HandValues):
    """Per-hand values of one player (chips), in order: money, money with only the chance
    terms subtracted, and AIVAT (chance and known-action terms). ``estimates(unit)`` gives
    their means per game in the game's unit (``cfrlab.games.units``) unless told another."""

    chance: np.ndarray
    aivat: np.ndarray

    @property
    def unit(self) -> str:
        return unit_of(self.game)

    def estimates(self, unit: str | None = None) -> dict[str, Estimate]:
        """Each estimator's mean per game with its 95% CI, in ``unit`` (default: the game's)."""
        unit = normalize_unit(unit or self.unit)
        f = factor(self.game, unit)
        return {name: estimate(x).in_unit(f, unit) for name, x in
                (("money", self.money), ("aivat_chance", self.chance), ("aivat", self.aivat))}

    def __repr__(self) -> str:
        e = self.estimates()
        return (f"<AivatResult {self.player!r}, {self.hands:,} hands: money {e['money'].mean:+.4f} "
                f"+- {e['money'].ci95:.4f}, AIVAT {e['aivat'].mean:+.4f} +- {e['aivat'].ci95:.4f} {self.unit}>")

    def variance_ratios(self) -> dict[str, float]:
        """Money's variance over each estimator's (how many times fewer hands it needs);
        ``inf`` where the estimator's variance is zero (``variance_ratio``)."""
        return {name: variance_ratio(self.money, x) for name, x in (("aivat_chance", self.chance),
                                                                     ("aivat", self.aivat))}


ZERO_SPREAD = 1e-9  # a spread this small against the values' size is rounding, not variance


def variance_ratio(money, estimator) -> float:
    """var(money) / var(estimator); ``inf`` when the estimator's values are all the same up to
    rounding (both strategies known: every hand scores its exact expected value; an
    unrounded ratio would be 1e31-sized noise), NaN when money does not vary either."""
    m = np.asarray(money, dtype=np.float64)
    x = np.asarray(estimator, dtype=np.float64)
    if m.size < 2 or x.size < 2:
        return float("nan")
    scale = max(1.0, float(np.abs(m).max()), float(np.abs(x).max()))
    vm, v = float(np.var(m)), float(np.var(x))
    if np.sqrt(vm) <= ZERO_SPREAD * scale:
        return float("nan") if np.sqrt(v) <= ZERO_SPREAD * scale else 0.0
    return float("inf") if np.sqrt(v) <= ZERO_SPREAD * scale else vm / v


def ratio_text(ratio: float | None) -> str:
    """A variance ratio for people: ``"12.34"``, or what an infinite / undefined one means."""
    if ratio is None or np.isnan(ratio):
        return "n/a (money does not vary)"
    if np.isinf(ratio):
        return "inf (AIVAT's variance is zero: every hand scores its expected value)"
    return f"{ratio:.2f}"


def _fast(agent, tree, role: str):
    if agent is None:
        return None
    ag_game = getattr(agent, "game", None)
    if isinstance(ag_game, GameDef) and ag_game.to_text() != tree.game.to_text():
        name = getattr(agent, "name", type(agent).__name__)
        raise CfrlabError(f"{name}: the {role} plays {ag_game.name or 'another game'}, not "
                          f"{tree.game.name or 'this game'}")
    fp = agent.fast_policy(tree) if isinstance(agent, Agent) and has_table(agent) else None
    if fp is None:
        name = getattr(agent, "name", type(agent).__name__)
        raise CfrlabError(f"{name}: AIVAT needs the {role}'s strategy as a table (a strategy file or a "
                          "built-in bot: an agent with fast_policy(tree)); a Python agent's is not known")
    return fp


def aivat_deals(game: GameDef | str, deals, terminals, a_positions, agent_a=None, agent_b=None, *,
                value: str = "auto") -> np.ndarray:
    """float64[n, 3]: money, chance-only and AIVAT values of agent A for each hand.

    ``deals`` int[n, 2h + board] (holes by position, then the board, ACPC order; the cards of
    rounds not reached must still be distinct), ``terminals`` the public tree's terminal node
    of each hand (``build_tree(game)`` numbering), ``a_positions`` A's position per hand;
    ``agent_a`` / ``agent_b`` the known agents (None: not known); ``value`` the value
    function (``VALUES``; module docstring)."""
    sc = MatchScorer(game, agent_a, agent_b, value=value)
    return sc.values_of(deals, terminals, a_positions)


class MatchScorer:
    """AIVAT for the hands of one match, batch by batch (``play_match(aivat=True)``)."""

    def __init__(self, game: GameDef | str, agent_a, agent_b, halves: int = 0, hands: int = 0,
                 value: str = "auto") -> None:
        self.game = g = load_game(game)
        self.t = _tables_for(g, THRESHOLDS)  # refuses games DIVAT's equities do not cover
        tree = self.t.tree
        self.fast = (_fast(agent_a, tree, "first agent"), _fast(agent_b, tree, "second agent"))
        if self.fast == (None, None):
            raise CfrlabError("AIVAT needs at least one agent whose strategy is known (a strategy file or "
                              "a built-in bot)")
        if value not in VALUES:
            raise CfrlabError(f"unknown AIVAT value function {value!r} ({', '.join(VALUES)})")
        self.values = np.empty((halves, hands), dtype=np.float64)
        small = _num_deals(g) * tree.num_nodes <= EXACT_LIMIT
        if value == "exact" and not small:
            raise CfrlabError(f"{g.name or 'this game'} has too many deals for exact profile values; "
                              "use the call-down value")
        self.exact = _ProfileValues(g, tree, self.fast) if value == "exact" or (value == "auto" and small) else None
        self.value = "exact" if self.exact is not None else "calldown"

    def terminal(self, betting: str) -> int:
        return int(self.t.tree.node_of_betting[betting])

    def score(self, half: int, start: int, deals, terminals, a_positions, states=(None, None)) -> None:
        out = self.values_of(deals, terminals, a_positions, states)
        self.values[half, start:start + len(out)] = out[:, 2]

    def values_of(self, deals, terminals, a_positions, states=(None, None)) -> np.ndarray:
        g, t = self.game, self.t
        tree = t.tree
        deals = np.ascontiguousarray(deals, dtype=np.int64)
        n = len(deals)
        h = g.num_hole_cards
        term = np.ascontiguousarray(terminals, dtype=np.int64)
        apos = np.ascontiguousarray(a_positions, dtype=np.int64)
        if term.shape != (n,) or apos.shape != (n,):
            raise CfrlabError("AIVAT: one terminal node and one position per deal")
        if n and (int(term.min()) < 0 or int(term.max()) >= tree.num_nodes or (tree.kind[term] < 2).any()):
            raise CfrlabError("AIVAT: a terminal node is not a terminal of this game's tree")
        nr = g.num_rounds
        known = np.full((n, 2), -1, dtype=np.int64)
        rows = np.arange(n)
        tabs = []
        for k, (fp, pos, st) in enumerate(zip(self.fast, (apos, 1 - apos), states)):
            if fp is None:
                tabs.append(_k.KnownTable(np.zeros((1, 3)), np.zeros(1, np.int64), np.zeros((1, 2, nr), np.int32),
                                          0, False))
                continue
            known[rows, pos] = k
            if fp.states is not None and (st is None or len(st) != n):
                st = fp.states(deals)
            tabs.append(_known_table(fp, st, nr))
        _with_equities(t)
        out = np.empty((n, 3), dtype=np.float64)
        vsel = np.full((n, 2), -1, dtype=np.int64)
        exact = _k.ExactValues(np.zeros((1, 1, 1)), np.zeros(1))
        if self.exact is not None and n:
            vsel[:, 0] = apos
            vsel[:, 1] = self.exact.index(deals)
            exact = _k.ExactValues(self.exact.table, self.exact.kroot)
        if n:
            holes = np.ascontiguousarray(deals[:, :2 * h].reshape(n, 2, h))
            boards = np.ascontiguousarray(deals[:, 2 * h:2 * h + g.total_board_cards()])
            hands = _k.AivatHands(holes, boards, term, known, vsel)
            _k.aivat_hands(hands, _arrays(tree), tabs[0], tabs[1], _deal_tables(t), exact, out)
        out[apos == 1] *= -1.0
        return out


VALUES = ("auto", "calldown", "exact")
EXACT_LIMIT = 20_000_000  # deals x nodes of a profile-value table (160 MB per seat assignment)


def _num_deals(g: GameDef) -> int:
    D = len(deck(g.num_ranks, g.num_suits))
    h = g.num_hole_cards
    n = comb(D, h) * comb(D - h, h)
    left = D - 2 * h
    for r in range(g.num_rounds):
        k = g.num_board_cards[r]
        n *= comb(left, k)
        left -= k
    return n


def _segments(g: GameDef) -> list[int]:
    """Lengths of a deal's unordered groups: each hole, then each round's board cards."""
    h = g.num_hole_cards
    return [h, h] + [int(g.num_board_cards[r]) for r in range(g.num_rounds) if g.num_board_cards[r]]


def _canonical(g: GameDef, deals: np.ndarray) -> np.ndarray:
    """Each deal with the cards of every group sorted (hole cards, a round's board cards)."""
    out = np.array(deals[:, :2 * g.num_hole_cards + g.total_board_cards()], dtype=np.int64)
    a = 0
    for k in _segments(g):
        out[:, a:a + k] = np.sort(out[:, a:a + k], axis=1)
        a += k
    return out


def _keys(cards: np.ndarray) -> np.ndarray:
    key = np.zeros(len(cards), dtype=np.int64)
    for q in range(cards.shape[1]):
        key = key * 64 + cards[:, q]
    return key


class _ProfileValues:
    """The exact value function of small games: position 0's expected value at every node given
    the cards dealt so far, when the known strategies play (an unknown seat is assumed to play
    like the known one: any value function keeps AIVAT unbiased, a good one shrinks it), for
    both seatings of agent A (``table[s]``: A at position s)."""

    def __init__(self, g: GameDef, tree, fast) -> None:
        cards = [int(c) for c in deck(g.num_ranks, g.num_suits)]
        segs = _segments(g)
        rows = []

        def grow(prefix: list, used: set, i: int) -> None:
            if i == len(segs):
                rows.append(list(prefix))
                return
            for comb_ in combinations([c for c in cards if c not in used], segs[i]):
                grow(prefix + list(comb_), used | set(comb_), i + 1)

        grow([], set(), 0)
        deals = np.array(rows, dtype=np.int64)
        self.game, self.deals = g, deals
        self.keys = _keys(deals)  # ascending: the enumeration is lexicographic
        arrs = _arrays(tree)
        nb = g.total_board_cards()
        winner = _mk.showdown_winners(deals, g.num_hole_cards, nb)
        fa, fb = fast
        tabs = []
        for fp in (fa or fb, fb or fa):
            tabs.append(_known_table(fp, None if fp.states is None else fp.states(deals), g.num_rounds))
        nn = tree.num_nodes
        self.table = np.empty((2, len(deals), nn))
        for s in (0, 1):  # A at position s; position p plays A's table (0) or B's (1)
            pos_tab = np.array([0, 1] if s == 0 else [1, 0], dtype=np.int64)
            _k.profile_values(arrs, winner, pos_tab, tabs[0], tabs[1], self.table[s])
            self._by_prefix(self.table[s], arrs.rnd)
        root = int(np.flatnonzero(tree.parent < 0)[0])
        self.kroot = self.table[:, :, root].mean(axis=1)

    def _by_prefix(self, w: np.ndarray, rnd: np.ndarray) -> None:
        """Each round-r node's value averaged over the deals sharing its cards up to round r."""
        g = self.game
        for r in range(g.num_rounds):
            cols = np.flatnonzero(rnd == r)
            length = 2 * g.num_hole_cards + g.total_board_cards(r)
            if length == self.deals.shape[1]:
                continue  # every card known: the full-deal values already are
            _, inv = np.unique(_keys(self.deals[:, :length]), return_inverse=True)
            cnt = np.bincount(inv)
            sums = np.zeros((len(cnt), len(cols)))
            np.add.at(sums, inv, w[:, cols])
            w[:, cols] = sums[inv] / cnt[inv, None]

    def index(self, deals) -> np.ndarray:
        """Row of each deal (cards in any order within a hole or a round's board)."""
        key = _keys(_canonical(self.game, np.asarray(deals, dtype=np.int64)))
        i = np.searchsorted(self.keys, key)
        bad = (i >= len(self.keys)) | (self.keys[np.minimum(i, len(self.keys) - 1)] != key)
        if bad.any():
            raise CfrlabError("AIVAT: a deal repeats a card or uses a card outside the deck")
        return i


def _known_table(fp, states, nr: int) -> _k.KnownTable:
    """A fast policy as the kernels read it; ``states`` its private states of the hands (None
    for a card-independent agent: one row of zeros serves every hand)."""
    if fp.states is None:
        states, step = np.zeros((1, 2, nr), np.int32), 0
    else:
        step = 1
    return _k.KnownTable(np.ascontiguousarray(fp.policy, np.float64), np.ascontiguousarray(fp.offsets, np.int64),
                         np.ascontiguousarray(states, dtype=np.int32), step, bool(fp.greedy))


_ARRAYS: dict[int, tuple] = {}


def _arrays(tree) -> _k.PublicTree:
    """The tree as the kernels read it (cached per tree)."""
    got = _ARRAYS.get(id(tree))
    if got is None or got[0] is not tree:
        nxt = np.full((tree.num_nodes, 3), -1, dtype=np.int64)
        for node in range(tree.num_nodes):
            for c in tree.children(node):
                a = int(tree.action[c])
                nxt[node, 1 if a < 0 else a] = c
        arr = tuple(np.ascontiguousarray(x, dtype=np.int64) for x in
                    (tree.kind, tree.player, tree.round, tree.spent, tree.parent))
        got = (tree, _k.PublicTree(*arr, nxt, np.ascontiguousarray(tree.decision, dtype=np.int64), _depth(tree)))
        _ARRAYS[id(tree)] = got
    return got[1]


def _depth(tree) -> int:
    depth = np.zeros(tree.num_nodes, dtype=np.int64)
    for node in range(1, tree.num_nodes):  # parents come before children
        depth[node] = depth[tree.parent[node]] + 1
    return int(depth.max()) + 1


def aivat_log(logs, player: str, *, strategy=None, opponent=None, game: GameDef | str | None = None,
              value: str = "auto") -> AivatResult:
    """Money, chance-only AIVAT and AIVAT per hand of ``player`` over ACPC ``logs`` (paths).

    ``strategy``: the player's own agent if its strategy is known; ``opponent``: the other
    player's (at least one). Agents with a fast policy: ``cfrlab.agents.make_agent`` builds
    one from a strategy file or a bot name. ``game`` defaults to the one the log names."""
    if isinstance(logs, (str, Path)):
        logs = [logs]
    logs = [Path(p) for p in logs]
    if not logs:
        raise CfrlabError("no log given")
    if strategy is None and opponent is None:
        raise CfrlabError("AIVAT needs at least one known strategy (the player's or its opponent's)")
    g = load_game(game) if game is not None else game_of_log(logs[0])
    t = _tables_for(g, THRESHOLDS)
    reader = _Reader(t)
    read = [(p, reader.read(p, player)) for p in logs]
    node_of = t.tree.node_of_betting
    scorer = MatchScorer(g, strategy, opponent, value=value)
    parts = []
    for p, (holes, boards, paths, pos, v0) in read:
        bettings = list(t.paths)  # path rows in order of first sight
        term = np.array([node_of[bettings[k]] for k in paths], dtype=np.int64)
        deals = np.concatenate([holes.reshape(len(holes), -1), boards], axis=1)
        out = scorer.values_of(deals, term, pos)
        bad = np.flatnonzero(np.abs(np.where(pos == 0, out[:, 0], -out[:, 0]) - v0) > 1e-6)  # v0: position 0's
        if bad.size:
            raise CfrlabError(f"{p}: a hand's values do not match its cards and betting (hand {bad[0] + 1} of "
                              f"player {player!r}; is this a log of {g.name or 'this game'}?)")
        parts.append(out)
    allv = np.concatenate(parts)
    return AivatResult(g, player, allv[:, 0].copy(), allv[:, 1].copy(), allv[:, 2].copy())
