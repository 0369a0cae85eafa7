"""Exact hand-strength metrics of hold'em-style games, per canonical (hole | board) class.

For a player's hole cards and the board so far (as a set):

- river hand strength ``HS = P(win) + P(tie) / 2`` against a uniformly random opponent hand
  drawn from the cards left (card removal exact);
- ``E[HS]`` and ``E[HS^2]`` on earlier rounds: the mean of HS and HS^2 over every final
  board that completes the board (Johanson 2007, section 2.5; Zinkevich 2007, section 4.1).

Everything is kept as exact integers: on the last round ``hsnum = 2 * wins + ties``
(``HS = hsnum / den1``), on earlier rounds ``s1 = sum of hsnum`` and ``s2 = sum of hsnum**2``
over the completing final boards (``E[HS] = s1 / den1``, ``E[HS^2] = s2 / den2``). Tables are
indexed by ``HandIndexer(num_ranks, num_suits, (2, board cards so far))``, the classic
isomorphism (169 / 1,286,792 / 13,960,050 / 123,156,254 classes on the full deck).

How they are computed (numba, both cores): the last round by a rank sweep over every hole
pair of each canonical final board; the round before by rolling out the remaining cards of
each canonical board set; earlier rounds by summing the next round's table over every set
of new cards (E[HS] of the flop is the mean of the turn's, and so on).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from math import comb

import numpy as np

from cfrlab.abstraction import _metrics_kernels as MK
from cfrlab.abstraction import cache
from cfrlab.cards.isomorphism import DeckMap, HandIndexer
from cfrlab.errors import CfrlabError

METRICS = ("ehs", "ehs2")
Progress = Callable[[str], None]


def check_holdem_style(game) -> None:
    """The abstraction needs 2 players, 2 hole cards, no board in round 0, cards each round
    after, at most 5 board cards and at most 13 ranks."""
    if game.num_players != 2:
        raise CfrlabError("card abstraction needs a 2-player game")
    if game.num_hole_cards != 2:
        raise CfrlabError("card abstraction needs 2 hole cards (hold'em style)")
    boards = list(game.num_board_cards[:game.num_rounds])
    if boards[0] != 0 or any(b <= 0 for b in boards[1:]) or sum(boards) > 5:
        raise CfrlabError("card abstraction needs a board like 0/3/1/1: none preflop, "
                          "cards every later round, at most 5 in all")
    if game.num_ranks > 13:
        raise CfrlabError("card abstraction supports decks of at most 13 ranks")
    if game.deck_size < 4 + sum(boards):
        raise CfrlabError("the deck is too small for two hands and the board")


def board_totals(game) -> list[int]:
    """Board cards seen by round (0, 3, 4, 5 for hold'em)."""
    return [game.total_board_cards(r) for r in range(game.num_rounds)]


def metric_indexers(game) -> list[HandIndexer]:
    """Per round the (hole | board as one set) indexer the metric tables use."""
    return [HandIndexer(game.num_ranks, game.num_suits, (2, b)) for b in board_totals(game)]


def deck_params(game) -> dict:
    return {"num_ranks": game.num_ranks, "num_suits": game.num_suits, "hole": 2,
            "boards": board_totals(game)}


@dataclass
class MetricTables:
    """Exact metric tables of one deck. Per round r: ``s1[r]`` (int64, or uint16 hsnum on the
    last round) and ``s2[r]`` (int64; None on the last round, where it is hsnum**2), indexed
    by ``indexers[r]``; ``E[HS] = s1 / den1[r]``, ``E[HS^2] = s2 / den2[r]``."""

    params: dict
    indexers: list[HandIndexer]
    s1: list[np.ndarray]
    s2: list[np.ndarray | None]
    den1: list[int] = field(default_factory=list)
    den2: list[int] = field(default_factory=list)

    @property
    def num_rounds(self) -> int:
        return len(self.indexers)

    def sums(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """(s1, s2) int64 arrays of round r (the last round's s2 = hsnum**2)."""
        s1 = self.s1[r].astype(np.int64)
        s2 = self.s2[r] if self.s2[r] is not None else s1 * s1
        return s1, s2

    def ehs(self, r: int) -> np.ndarray:
        return self.s1[r].astype(np.float64) / self.den1[r]

    def ehs2(self, r: int) -> np.ndarray:
        return self.sums(r)[1].astype(np.float64) / self.den2[r]

    def metric(self, name: str, r: int) -> np.ndarray:
        if name == "ehs":
            return self.ehs(r)
        if name == "ehs2":
            return self.ehs2(r)
        raise CfrlabError(f"unknown metric {name!r}; choose from {', '.join(METRICS)}")

    def lookup(self, hole, board) -> tuple[float, float]:
        """(E[HS], E[HS^2]) of ACPC hole cards and board (board length picks the round)."""
        totals = self.params["boards"]
        if len(board) not in totals:
            raise CfrlabError(f"a board of {len(board)} cards is no round of this game")
        r = totals.index(len(board))
        i = self.indexers[r].index(list(hole) + list(board))
        s1, s2 = int(self.s1[r][i]), (int(self.s2[r][i]) if self.s2[r] is not None
                                      else int(self.s1[r][i]) ** 2)
        return s1 / self.den1[r], s2 / self.den2[r]


def denominators(game) -> tuple[list[int], list[int]]:
    """Per round (den1, den2): hsnum scale times the number of completing final boards."""
    D, totals = game.deck_size, board_totals(game)
    bf = totals[-1]
    scale = 2 * comb(D - bf - 2, 2)  # 2 * opponent hands on the final board
    den1, den2 = [], []
    for b in totals:
        n = comb(D - 2 - b, bf - b)
        den1.append(n * scale)
        den2.append(n * scale * scale)
    return den1, den2


def _name(params: dict, r: int) -> str:
    b = "-".join(str(x) for x in params["boards"])
    return f"metrics-v1-{params['num_ranks']}x{params['num_suits']}-b{b}-r{r}"


def _all_reps(ix: HandIndexer) -> np.ndarray:
    return ix.unindex_local(np.arange(ix.size, dtype=np.int64))


def compute_round(game, r: int, tables_next: tuple[np.ndarray, np.ndarray] | None
                  ) -> tuple[np.ndarray, np.ndarray | None]:
    """Round r's (s1, s2); the round after r's (s1, s2) must be given unless r is the last
    round or the one before it."""
    R = game.num_rounds
    deck = DeckMap(game.num_ranks, game.num_suits)
    D, totals = deck.size, board_totals(game)
    ixs = metric_indexers(game)
    ix = ixs[r]
    if r == R - 1:
        bf = totals[-1]
        boards = (_all_reps(HandIndexer(game.num_ranks, game.num_suits, (bf,))) if bf
                  else np.zeros((1, 0), dtype=np.int64))
        out = np.zeros(ix.size, dtype=np.uint16)
        MK.last_round_table(boards, MK.Indexer(*ix.index_args),
                            MK.final_deal(bf, 0, D, deck.to_global), out)
        return out, None
    nb, knew = totals[r], totals[r + 1] - totals[r]
    out1 = np.zeros(ix.size, dtype=np.int64)
    out2 = np.zeros(ix.size, dtype=np.int64)
    if r == R - 2:
        boards = (_all_reps(HandIndexer(game.num_ranks, game.num_suits, (nb,))) if nb
                  else np.zeros((1, 1), dtype=np.int64))
        MK.rollout_sums(boards, MK.Indexer(*ix.index_args),
                        MK.final_deal(nb, knew, D, deck.to_global), out1, out2)
        return out1, out2
    assert tables_next is not None
    nx = ixs[r + 1]
    divisor = comb(totals[-1] - nb, knew)
    MK.earlier_sums(ix.size, nb, knew, divisor, D, MK.Unindexer(*ix.unindex_args),
                    MK.Indexer(*nx.index_args), tables_next[0], tables_next[1], out1, out2)
    return out1, out2


def metric_tables(game, use_cache: bool = True, progress: Progress | None = None
                  ) -> MetricTables:
    """Exact metric tables of the game's deck, built last round first; each finished round
    is cached (resumable; a corrupt cache file is rebuilt)."""
    check_holdem_style(game)
    params = deck_params(game)
    R = game.num_rounds
    s1: list = [None] * R
    s2: list = [None] * R
    for r in range(R - 1, -1, -1):
        name = _name(params, r)
        got = cache.load(name, params) if use_cache else None
        if got is not None:
            s1[r], s2[r] = got["s1"], got.get("s2")
            if progress:
                progress(f"metrics round {r}: loaded from cache")
            continue
        t0 = time.perf_counter()
        nxt = None
        if r < R - 2:
            nxt = (s1[r + 1].astype(np.int64), s2[r + 1])
        s1[r], s2[r] = compute_round(game, r, nxt)
        if use_cache:
            arrays = {"s1": s1[r]} if s2[r] is None else {"s1": s1[r], "s2": s2[r]}
            cache.save(name, params, arrays)
        if progress:
            progress(f"metrics round {r}: {len(s1[r]):,} classes in "
                     f"{time.perf_counter() - t0:.1f} s")
    den1, den2 = denominators(game)
    return MetricTables(params, metric_indexers(game), s1, s2, den1, den2)


def clear_cache(game) -> None:
    """Remove the game deck's cached metric tables (the next build recomputes them)."""
    params = deck_params(game)
    for r in range(game.num_rounds):
        cache.entry_path(_name(params, r)).unlink(missing_ok=True)


def last_round_table(game, use_cache: bool = True) -> np.ndarray:
    """The last round's hsnum table alone (cached like ``metric_tables``)."""
    check_holdem_style(game)
    params = deck_params(game)
    name = _name(params, game.num_rounds - 1)
    got = cache.load(name, params) if use_cache else None
    if got is not None:
        return got["s1"]
    s1, _ = compute_round(game, game.num_rounds - 1, None)
    if use_cache:
        cache.save(name, params, {"s1": s1})
    return s1


def direct_metrics(game, hole, board) -> tuple[float, float]:
    """(E[HS], E[HS^2]) of ACPC cards by plain enumeration of every completing board and
    opponent hand (no tables, no sweep): the independent twin used by tests."""
    check_holdem_style(game)
    deck = DeckMap(game.num_ranks, game.num_suits)
    hole_l, board_l = deck.local(list(hole)), deck.local(list(board))
    bf = board_totals(game)[-1]
    s1, s2, n = MK.direct_sums(hole_l, board_l, bf, deck.size, deck.to_global)
    scale = 2 * comb(deck.size - bf - 2, 2)
    return s1 / (n * scale), s2 / (n * scale * scale)
