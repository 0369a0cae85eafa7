"""Local best response (LBR) for 2-player games: a fast lower bound on exploitability.

Lisý and Bowling, "Equilibrium approximation quality of current no-limit poker bots" (2017).
This module's responder plays limit games on the betting tree (actions fold, call, raise);
``local_best_response`` hands no-limit games to ``lbr_nolimit`` (the same rule on the rules
engine's states, with the paper's fold, call, pot and all-in, an opponent read through its
``RangePolicy``), and limit games too when the opponent has no table (``BatchPolicy``): an agent
read through what it plays, ``act`` or ``action_probabilities``, by the adapter
``cfrlab.agents.act_ranges.ActRange`` (``cfrlab.lbr`` documents what an agent may offer); the
deck, deals and equity of both are ``lbr_cards``'. The responder plays real hands against
the strategy (which plays the other seat), sees its own cards and the board, and keeps the
opponent's *range*: a weight for every hand of the deck, 1 at the start for the hands that miss
its own cards, set to 0 for hands that meet a board card as the board is dealt, and multiplied
at each opponent decision by that hand's probability of the action taken (Bayes' rule; the
strategy's probabilities for every hand at once come from its ``BatchPolicy``).

At a decision of its own the responder computes, assuming that from here both players only
check or call to the end of the hand:

* ``WP``: its probability of winning the showdown against the range (ties count one half):
  the range-weighted mean over opponent hands j of ``eq[j]``, the share of the board's
  completions (the remaining board cards dealt uniformly from the cards that miss both hands)
  on which it beats j. All completions are enumerated when there are at most ``max_boards``
  of them (in HULHE from the flop on); otherwise ``samples`` completions are drawn from a
  stream seeded by the responder's cards and the board alone, so the responder's play is
  still a fixed function of what it knows. Preflop the equities of one hand class (under
  suit permutation) are computed once and reused.
* with ``me`` and ``op`` the chips the responder and the opponent have put in,
  ``pot = me + op`` and ``asked = op - me`` (the chips needed to call), the values of the
  actions relative to folding now:

  - fold:  ``0`` (only when there is a bet to call: checking is free),
  - call:  ``WP * pot - (1 - WP) * asked``,
  - raise (by ``b`` chips beyond the call, when a raise is left):
    ``FP * pot + (1 - FP) * (WP * (pot + b) - (1 - WP) * (asked + b))``, where ``FP`` is the
    range-weighted probability that the opponent folds at its decision right after the
    raise (the opponent's other answers are taken as a call, and ``WP`` is not updated for
    the hands that continue, as in the paper).

  It takes the action of highest value; ties (within 1e-9 chips) go to call, then raise, and
  fold needs to be strictly best. With ``call_rounds = K`` it checks or calls in the first K
  betting rounds without computing anything (the paper's variant for its expensive first
  rounds).

The responder's strategy is a legitimate strategy of the real game, so its expected winnings
(the mean over its two seats, as exploitability is, docs/ENGINE.md) are a lower bound on the
strategy's real-game exploitability, which ``real_best_response`` computes exactly.

Estimation: deals are sampled (hole cards for both seats and the whole board) and each is
played twice, the responder in seat 0 holding seat 0's cards and then in seat 1 holding seat
1's cards (duplicate deals); the estimate is the mean over deals of the two hands' mean, with a
95% confidence interval 1.96 * its standard error. Every deal has its own random stream (cards,
the opponent's sampled actions), so results are the same whatever the number of workers.
``exact=True`` gives the expected value instead, by enumerating every deal and every opponent
action weighted by its probability (small games only).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from cfrlab.deep.play import NETWORK
from cfrlab.engine import build_tree_for
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, parse_game
from cfrlab.games.units import display_factor, unit_of
from cfrlab.jobs import Progress, check_workers, stream_units
from cfrlab.realgame import _lbr_kernels as K
from cfrlab.realgame.br import AgentSpec, StrategyFile, _load, game_to_play
from cfrlab.realgame.lbr_cards import DEFAULT_MAX_BOARDS, DEFAULT_SAMPLES, LbrCards
from cfrlab.realgame.lbr_nolimit import NoLimitLBR, default_call_rounds, range_policy_of
from cfrlab.realgame.opponents import BatchPolicy, batch_policy_of
from cfrlab.strategy import Strategy
from cfrlab.tree import CHANCE, DECISION, FOLD
from cfrlab.tree.arrays import compile_tree

BLOCK = 100  # deals per unit of work
KEEP_DEALS = 1_000_000  # a run keeps every deal's winnings up to this many deals (16 MB)
MAX_HANDS = 2**62  # deals are numbered in 64 bits (their random streams)
Z95 = 1.959963984540054


class LocalBestResponse(LbrCards):
    """The local best response of one game, tree and opponent (a ``BatchPolicy``)."""

    def __init__(self, game: GameDef, tree, opponent, *, call_rounds: int = 0,
                 samples: int = DEFAULT_SAMPLES, max_boards: int = DEFAULT_MAX_BOARDS) -> None:
        if not game.is_limit:
            raise CfrlabError("LocalBestResponse plays limit games (no-limit: lbr_nolimit.NoLimitLBR)")
        super().__init__(game, call_rounds=call_rounds, samples=samples, max_boards=max_boards)
        self.tree, self.opp = tree, opponent
        ta = compile_tree(tree)
        self.kind = np.ascontiguousarray(ta.kind, dtype=np.int8)
        self.player = np.ascontiguousarray(ta.player, dtype=np.int8)
        self.spent = np.ascontiguousarray(ta.spent, dtype=np.int64)
        self.nxt = np.ascontiguousarray(ta.next_node, dtype=np.int64)
        self.decision = np.ascontiguousarray(ta.decision, dtype=np.int64)
        self.legal = np.ascontiguousarray(ta.legal, dtype=np.bool_)
        self.policy = np.ascontiguousarray(opponent.policy, dtype=np.float64)
        self.row_offset = np.ascontiguousarray(opponent.row_offset, dtype=np.int64)
        self.bet_tree = K.LbrTree(self.kind, self.player, self.spent, self.nxt, self.decision, self.legal)
        self.table = K.OpponentTable(self.policy, self.row_offset)
        self._states0: np.ndarray | None = None
        self._vals = np.zeros(3)

    def states(self, r: int, board) -> np.ndarray:
        if r == 0:
            if self._states0 is None:
                self._states0 = np.ascontiguousarray(
                    self.opp.states(0, np.zeros(0, dtype=np.int64), self.deck,
                                    np.ones(self.H, dtype=bool)), dtype=np.int64)
            return self._states0
        b = np.asarray(board, dtype=np.int64)
        return np.ascontiguousarray(self.opp.states(r, b, self.deck, self.disjoint(b)),
                                    dtype=np.int64)

    # -- sampled play ----------------------------------------------------------------------
    def play_deal(self, seed: int, index: int) -> tuple[float, float]:
        """The responder's winnings (chips) in seat 0 and in seat 1 on one deal."""
        hole, board, st = self.deal(seed, index)
        self._ranks.clear()  # boards of one deal: shared by its two hands
        states: dict[int, np.ndarray] = {}
        valid: dict[int, np.ndarray] = {}
        out = [0.0, 0.0]
        for seat in (0, 1):
            lbr, opp = hole[seat], hole[1 - seat]
            reach = self.disjoint(self.hands[lbr].tolist()).astype(np.float64)
            node, r = 0, 0
            eq = np.zeros(self.H)
            ready = False
            if 0 not in states:
                states[0] = self.states(0, ())
            self._enter(0, ())
            while True:
                node = K.play_round(node, seat, opp, r < self.call_rounds, ready, reach, states[r],
                                    eq, st, self.bet_tree, self.table, self._vals)
                kd = self.kind[node]
                if kd == DECISION:  # the responder needs the round's equities
                    known = board[:self.before[r + 1]]
                    eq = self.equity(lbr, r, known, reach > 0)
                    ready = True
                elif kd == CHANCE:
                    r += 1
                    if r not in states:
                        nb = self.before[r + 1]
                        valid[r] = self.disjoint(board[self.before[r]:nb].tolist())
                        states[r] = self.states(r, board[:nb])
                    reach *= valid[r]
                    node = int(self.nxt[node, 1])
                    self._enter(node, board[:self.before[r + 1]])
                    ready = False
                else:
                    out[seat] = self._payoff(node, seat, lbr, opp, board)
                    break
        return out[0], out[1]

    def _enter(self, node: int, board) -> None:
        """A network opponent (``cfrlab.deep.play.NetBatchPolicy``) fills its table for the
        round that starts at ``node`` on ``board``; a table opponent needs nothing."""
        if self.opp.kind == NETWORK:
            self.opp.enter(node, board, self.deck)

    def _payoff(self, node: int, seat: int, lbr: int, opp: int, board) -> float:
        if self.kind[node] == FOLD:
            if self.player[node] == seat:
                return -float(self.spent[node, seat])
            return float(self.spent[node, 1 - seat])
        return float(self.showdown_sign(lbr, opp, board) * self.spent[node, seat])

    # -- exact expectation ----------------------------------------------------------------
    def exact(self) -> tuple[float, float]:
        """The responder's expected winnings in seat 0 and in seat 1 (chips): every deal and
        every opponent action weighted by its probability; the responder's choices as in play."""
        self.check_exact()
        if self.opp.kind == NETWORK:
            raise CfrlabError("the exact LBR needs the opponent as a table; a network that answers per "
                              "decision is measured on sampled deals")
        self._xstates: dict[tuple, np.ndarray] = {}
        self._xranks: dict[tuple, np.ndarray] = {}
        norm = self.H * math.comb(self.D - self.h, self.h)
        vals = []
        for seat in (0, 1):
            total = 0.0
            for lbr in range(self.H):
                reach = self.disjoint(self.hands[lbr].tolist()).astype(np.float64)
                total += self._walk(seat, lbr, 0, 0, (), reach, {})
            vals.append(total / norm)
        return vals[0], vals[1]

    def _xstate(self, r: int, board: tuple) -> np.ndarray:
        s = self._xstates.get((r, board))
        if s is None:
            s = self.states(r, board)
            self._xstates[(r, board)] = s
        return s

    def _walk(self, seat, lbr, node, r, board, reach, eqs) -> float:
        kd = self.kind[node]
        if kd == DECISION:
            d = int(self.decision[node])
            states = self._xstate(r, board)
            if self.player[node] == seat:
                if r < self.call_rounds:
                    a = 1
                else:
                    key = (r, board)
                    eq = eqs.get(key)
                    if eq is None:
                        eq = self.equity(lbr, r, np.array(board, dtype=np.int64),
                                         self.disjoint([*self.hands[lbr].tolist(), *board]))
                        eqs[key] = eq
                    K.action_values(node, seat, reach, states, eq, self.bet_tree, self.table,
                                    self._vals)
                    a = K.choose(self._vals)
                return self._walk(seat, lbr, int(self.nxt[node, a]), r, board, reach, eqs)
            total = 0.0
            rows = self.policy[self.row_offset[d] + states]
            for a in range(3):
                if not self.legal[d, a]:
                    continue
                child = reach * rows[:, a]
                if child.any():
                    total += self._walk(seat, lbr, int(self.nxt[node, a]), r, board, child, eqs)
            return total
        if kd == CHANCE:
            used = set(self.hands[lbr].tolist()) | set(board)
            rest = [c for c in range(self.D) if c not in used]
            k = self.game.num_board_cards[r + 1]
            n = math.comb(self.D - 2 * self.h - len(board), k)
            total = 0.0
            child = int(self.nxt[node, 1])
            for new in combinations(rest, k):
                sub = reach * self.disjoint(new)
                if sub.any():
                    total += self._walk(seat, lbr, child, r + 1, board + new, sub, eqs)
            return total / n
        if kd == FOLD:
            if self.player[node] == seat:
                return -float(self.spent[node, seat]) * float(reach.sum())
            return float(self.spent[node, 1 - seat]) * float(reach.sum())
        ranks = self._xranks.get(board)
        if ranks is None:
            ranks = self.board_ranks(board)
            self._xranks[board] = ranks
        sign = np.sign(ranks[lbr] - ranks).astype(np.float64)
        return float(self.spent[node, seat]) * float(reach @ sign)


@dataclass
class LBRResult:
    """Result of ``local_best_response`` and ``cfrlab.lbr``: ``value`` the responder's mean
    winnings over its two seats in chips per game (the lower bound on exploitability),
    ``ci95`` the half-width of its 95% confidence interval (0 when ``exact``), ``value_unit``
    and ``ci95_unit`` the same in the game's ``unit``; ``seat_values`` and ``seat_ci95`` per
    seat; ``hands`` the hands played (two per deal, one in each seat; 0 when exact) and
    ``deals``; ``winnings`` every deal's two results in chips (up to ``KEEP_DEALS`` deals)."""

    game: str
    value: float  # mean over the two seats: the lower bound on exploitability
    ci95: float  # half-width of its 95% confidence interval (0 when exact)
    seat_values: tuple[float, float]
    seat_ci95: tuple[float, float]
    hands: int  # hands played (2 per deal); 0 when exact
    deals: int
    unit: str
    factor: float  # chips -> unit
    call_rounds: int
    exact: bool
    seconds: float = 0.0
    workers: int = 1
    actions: str = "limit"  # the responder's raise sizes: a bet spec in no-limit games
    # (deals, 2) chips: every deal's winnings, kept up to KEEP_DEALS deals (None beyond, and exact)
    winnings: np.ndarray | None = field(default=None, repr=False)

    @property
    def value_unit(self) -> float:
        return self.value * self.factor

    @property
    def ci95_unit(self) -> float:
        return self.ci95 * self.factor

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else float("nan")

    def to_dict(self) -> dict:
        f = self.factor
        return {
            "game": self.game, "unit": self.unit, "exact": self.exact,
            "lbr": self.value * f, "ci95": self.ci95 * f,
            "lbr_chips": self.value, "ci95_chips": self.ci95,
            "seat_values": [v * f for v in self.seat_values],
            "seat_ci95": [v * f for v in self.seat_ci95],
            "hands": self.hands, "deals": self.deals, "call_rounds": self.call_rounds,
            "actions": self.actions, "seconds": self.seconds, "hands_per_second": self.hands_per_second,
            "workers": self.workers,
        }


def _responder(game: GameDef, opponent, options: dict):
    """The limit responder on the game's tree (an opponent with a table), or the one on the
    rules' states (no-limit games; limit games against an agent read through ``act``)."""
    if game.is_limit:
        tree = build_tree_for(game)
        try:
            table = batch_policy_of(opponent, tree)
        except CfrlabError:  # no table: an agent read through act, or a RangePolicy
            if isinstance(opponent, (Strategy, BatchPolicy)):
                raise
            return NoLimitLBR(game, range_policy_of(opponent, game), actions=None, **options)
        return LocalBestResponse(game, tree, table, **options)
    return NoLimitLBR(game, range_policy_of(opponent, game), **options)


class _Job:
    """What a worker process holds: the responder and the run's deals."""

    def __init__(self, game_text: str, game_name: str, source, options: dict, seed: int,
                 deals: int, block: int) -> None:
        game = parse_game(game_text, name=game_name)
        self.lbr = _responder(game, _load(source, game), options)
        self.seed, self.deals, self.block = seed, deals, block

    def run(self, i: int) -> np.ndarray:
        first = i * self.block
        return self.lbr.play(self.seed, first, min(self.block, self.deals - first))


class _Moments:
    """Count, mean and sum of squared deviations of each column, merged block by block in
    unit order (Chan, Golub and LeVeque): the mean and CI of any number of deals in bounded
    memory, the same whatever the number of workers."""

    def __init__(self, columns: int) -> None:
        self.n = 0
        self.mean = np.zeros(columns)
        self.m2 = np.zeros(columns)

    def add(self, x: np.ndarray) -> None:
        m = len(x)
        if not m:
            return
        mu = x.mean(axis=0)
        m2 = ((x - mu) ** 2).sum(axis=0)
        n = self.n + m
        d = mu - self.mean
        self.mean = self.mean + d * (m / n)
        self.m2 = self.m2 + m2 + d * d * (self.n * m / n)
        self.n = n

    def ci95(self) -> np.ndarray:
        if self.n < 2:
            return np.full(len(self.mean), float("inf"))
        return Z95 * np.sqrt(self.m2 / (self.n - 1)) / math.sqrt(self.n)


def local_best_response(opponent, game: GameDef | str | None = None, *, hands: int = 10000,
                        seed: int = 0, call_rounds: int | None = None, exact: bool = False,
                        actions: str | None = None, samples: int = DEFAULT_SAMPLES, max_boards: int = DEFAULT_MAX_BOARDS,
                        workers: int = 1, progress: Progress | None = None,
                        block: int = BLOCK) -> LBRResult:
    """Local best response against ``opponent`` (module docstring): ``hands`` hands (rounded up
    to whole duplicate deals) with ``seed``, or the exact expectation with ``exact=True``.

    ``opponent``: a ``Strategy``, an agent (the card-independent bots, or one with
    ``batch_policy``; in no-limit games one with ``range_policy``), a ``BatchPolicy`` (limit)
    or a ``RangePolicy`` (no-limit), or a source that each worker loads (``StrategyFile``,
    ``AgentSpec``); ``workers``: local processes playing blocks of deals.

    ``call_rounds``: the responder checks or calls in the first K rounds (default: 0 in limit
    games; in no-limit games the paper's 2, at most every round but the last). ``actions``
    (no-limit games only): the responder's raise sizes as a bet spec (``cfrlab.tree.bets``),
    default ``fcpa`` (fold, call, pot, all-in: the paper's); ``fc`` is its fold/call setting
    (``cfrlab.realgame.lbr_nolimit``).
    Blocks are merged into running moments as they finish, so any number of hands (up to
    2**62) runs in bounded memory; the result keeps every deal's ``winnings`` up to
    ``KEEP_DEALS`` deals."""
    t0 = time.perf_counter()
    game = game_to_play(opponent, game, "local_best_response")
    if not exact and hands <= 0:
        raise CfrlabError(f"hands must be positive, got {hands}")
    if not exact and hands > MAX_HANDS:
        raise CfrlabError(f"hands must be at most {MAX_HANDS:,} (deals are numbered in 64 bits), "
                          f"got {hands:,}")
    check_workers(workers)
    obj = _load(opponent, game)
    if isinstance(obj, Strategy) and obj.game.to_text() != game.to_text():
        raise CfrlabError(f"the strategy is for {obj.game.name or 'another game'}, not for "
                          f"{game.name or 'this game'}")
    if call_rounds is None:
        call_rounds = 0 if game.is_limit else default_call_rounds(game)
    options = {"call_rounds": call_rounds, "samples": samples, "max_boards": max_boards}
    if game.is_limit:
        if actions is not None:
            raise CfrlabError(f"{game.name or 'this game'} is a limit game: the responder folds, "
                              "calls or raises (actions choose raise sizes in no-limit games)")
    else:
        options["actions"] = "fcpa" if actions is None else actions
    lbr = _responder(game, obj, options)
    actions = getattr(lbr, "actions", "limit")
    name, unit, factor = game.name or "custom", unit_of(game), display_factor(game)
    if exact:
        v0, v1 = lbr.exact()
        return LBRResult(name, 0.5 * (v0 + v1), 0.0, (v0, v1), (0.0, 0.0), 0, 0, unit, factor,
                         call_rounds, True, time.perf_counter() - t0, 1, actions)
    deals = (hands + 1) // 2
    block = max(1, int(block))
    n = (deals + block - 1) // block
    moments = _Moments(3)  # seat 0, seat 1, their mean (a duplicate deal)
    kept: list[np.ndarray] | None = [] if deals <= KEEP_DEALS else None

    def consume(i: int, w: np.ndarray) -> None:  # blocks arrive in unit order
        moments.add(np.column_stack([w, w.mean(axis=1)]))
        if kept is not None:
            kept.append(w)

    if workers <= 1:
        job = _Job.__new__(_Job)
        job.lbr, job.seed, job.deals, job.block = lbr, seed, deals, block
        stream_units(n, lambda: job, (), consume, progress=progress)
    else:
        source = opponent if isinstance(opponent, (StrategyFile, AgentSpec)) else obj
        stream_units(n, _Job, (game.to_text(), game.name or "", source, options, seed, deals, block),
                     consume, workers=workers, progress=progress)
    mean, ci = moments.mean, moments.ci95()
    return LBRResult(name, float(mean[2]), float(ci[2]), (float(mean[0]), float(mean[1])),
                     (float(ci[0]), float(ci[1])), 2 * deals, deals, unit, factor, call_rounds,
                     False, time.perf_counter() - t0, workers, actions,
                     None if kept is None else np.concatenate(kept))
