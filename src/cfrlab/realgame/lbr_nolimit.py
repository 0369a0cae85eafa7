"""Local best response in no-limit games (Lisý and Bowling, "Equilibrium approximation
quality of current no-limit poker bots", 2017).

The responder of ``cfrlab.realgame.lbr`` (the value of each action if both players then
only check or call to the end; duplicate deals; the same equity, ``lbr_cards``) played on
the rules engine's states (``games.State``) instead of a betting tree, since a no-limit
game's every legal amount is far too many nodes:

* its actions are fold, call and the raises of ``actions``, a bet spec of
  ``cfrlab.tree.bets`` (``fcpa``: the pot-size raise and all-in, the paper's first setting;
  ``fc``: fold and call only, its second; ``0.5p,p,a`` and the like), so its amounts equal
  those of a betting abstraction with the same spec. A raise to ``x`` adds ``b = x - op``
  chips beyond the call and is worth ``FP * pot + (1 - FP) * (WP * (pot + b) - (1 - WP) *
  (asked + b))``, FP the range-weighted probability that the opponent folds right after it;
  call ``WP * pot - (1 - WP) * asked``, fold 0 (only facing a bet). The best value wins; ties
  go to call, then to the smaller raise, and fold must be strictly best (within 1e-9 chips).
* it checks or calls in the first ``call_rounds`` rounds without computing anything (the
  paper's: preflop and flop, 2; ``local_best_response`` defaults to 2, or to every round but
  the last in a game of fewer than three rounds).
* the opponent is read through its ``RangePolicy`` (``cfrlab.agents.ranges``): the
  responder keeps one range per *path* of the opponent (the path's probability times each
  hand's probability of the opponent's actions along it); the opponent's probability of an
  action with hand h is ``sum_p r_p(h) pi_p(a | h) / sum_p r_p(h)``; its actual action is
  drawn by choosing a path in proportion to ``r_p`` of its real hand, then the action from
  that path's row. Paths that ``advance`` makes equal (hashable and ==) are merged.

Ranges are float64[H] over the deck's hands in ``lbr_cards`` order (lexicographic deck-local
ids, the order ``agents.ranges.hands`` indexes with ACPC ids); hands that meet the
responder's cards or the board weigh 0.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from cfrlab.agents.act_ranges import ActRange, can_act
from cfrlab.agents.ranges import RangePolicy, hands
from cfrlab.agents.registry import make_agent
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, State
from cfrlab.games.agent import Agent
from cfrlab.games.state import UNKNOWN, deal_length
from cfrlab.realgame import _lbr_kernels as K
from cfrlab.realgame.lbr_cards import DEFAULT_MAX_BOARDS, DEFAULT_SAMPLES, LbrCards
from cfrlab.strategy import Strategy
from cfrlab.tree.bets import BetSpec, parse_bets

PAPER_CALL_ROUNDS = 2  # the paper's responder checks/calls preflop and on the flop


def default_call_rounds(game: GameDef) -> int:
    """The paper's 2, but never every round (Leduc's responder then decides on the flop)."""
    return max(0, min(PAPER_CALL_ROUNDS, game.num_rounds - 1))


def responder_actions(actions: str, game: GameDef) -> BetSpec:
    """The responder's raise sizes: a bet spec (``fcpa``, ``fc``, ``0.5p,p,a``, ...)."""
    spec = parse_bets(actions, game)
    if spec is None:
        raise CfrlabError("the responder's actions must list raise sizes (fcpa, fc, 0.5p,p,a, ...), "
                          "not every legal amount")
    return spec


def range_policy_of(opponent, game: GameDef) -> RangePolicy:
    """The opponent's ``RangePolicy``: a ``Strategy`` or an agent spec (as ``make_agent`` plays
    them: a strategy in a betting abstraction through action translation), a ``RangePolicy``, an
    agent that offers one (``range_policy(game)``), or else any agent read through what it plays
    (``action_probabilities(view)`` or ``act(view)``, ``cfrlab.agents.act_ranges.ActRange``)."""
    if isinstance(opponent, (Strategy, str)):
        opponent = make_agent(opponent, game)
    if isinstance(opponent, Agent):
        rp = opponent.range_policy(game)
        if rp is not None:
            return rp
    elif isinstance(opponent, RangePolicy):
        return opponent
    if can_act(opponent):
        return ActRange(opponent, game)
    name = getattr(opponent, "name", type(opponent).__name__)
    raise CfrlabError(
        f"{name}: local best response plays against an agent (a method act(view) returning an "
        "ACPC action, or action_probabilities(view)), a strategy, or an object with "
        "range_policy(game) returning a cfrlab.agents.ranges.RangePolicy (root, probs, advance) "
        "or, in limit games, batch_policy(tree) returning a cfrlab.realgame.BatchPolicy")


def _merged(pairs) -> list[list]:
    """[path, range] pairs with equal (hashable) paths summed."""
    out: list[list] = []
    where: dict = {}
    for p, r in pairs:
        try:
            k = where.get(p)
        except TypeError:  # an unhashable path: kept on its own
            out.append([p, r])
            continue
        if k is None:
            where[p] = len(out)
            out.append([p, r])
        else:
            out[k][1] = out[k][1] + r
    return out


class NoLimitLBR(LbrCards):
    """The local best response on the rules engine's states against one ``RangePolicy``
    (module docstring); ``play`` and ``exact`` as ``lbr.LocalBestResponse``'s. No-limit games;
    also limit games (``actions`` None: fold, call and the raise), for an opponent that only
    answers as a ``RangePolicy`` (an agent read through ``act``), where the betting tree's
    responder (``lbr.LocalBestResponse``) needs a table."""

    def __init__(self, game: GameDef, opponent: RangePolicy, *, actions: str | None = "fcpa",
                 call_rounds: int = PAPER_CALL_ROUNDS, samples: int = DEFAULT_SAMPLES,
                 max_boards: int = DEFAULT_MAX_BOARDS) -> None:
        super().__init__(game, call_rounds=call_rounds, samples=samples, max_boards=max_boards)
        if game.is_limit:
            if actions not in (None, "limit"):
                raise CfrlabError(f"{game.name or 'this game'} is a limit game: the responder folds, "
                                  "calls or raises (actions choose raise sizes in no-limit games)")
            self.spec, self.actions = None, "limit"
        else:
            self.spec = responder_actions("fcpa" if actions is None else actions, game)
            self.actions = self.spec.text
        self.opp = opponent
        index = {tuple(h): i for i, h in enumerate(hands(game))}
        # the opponent's row of each of our hands (RangePolicy order: ACPC ids)
        self.proto = np.array([index[tuple(sorted(int(c) for c in h))] for h in self.hands_g],
                              dtype=np.int64)
        self.root = State(game, [UNKNOWN] * deal_length(game), allow_unknown=True)
        self._xranks: dict[tuple, np.ndarray] = {}

    # -- the opponent ---------------------------------------------------------------------
    def _start(self, seat: int, lbr: int) -> list[list]:
        base = self.disjoint(self.hands[lbr].tolist()).astype(np.float64)
        return _merged((p, base * w) for p, w in self.opp.root(1 - seat) if w > 0)

    def _column(self, probs: np.ndarray, c: int, idx: np.ndarray) -> np.ndarray:
        """Action column c of a probs table for our hands ``idx``."""
        return np.asarray(probs[self.proto[idx], c], dtype=np.float64)

    def _rows(self, ranges, state: State, vis: list[int]) -> list[tuple[list[str], np.ndarray]]:
        return [self.opp.probs(p, state, vis) for p, _ in ranges]

    def _observe(self, ranges, rows, action: str) -> list[list]:
        """Bayes' rule: each path's range times its hands' probabilities of ``action``."""
        out = []
        for (p, r), (acts, probs) in zip(ranges, rows):
            if action not in acts:
                continue
            idx = np.flatnonzero(r)
            nr = np.zeros(self.H)
            nr[idx] = r[idx] * self._column(probs, acts.index(action), idx)
            if nr.any():
                out.append([p, nr])
        return out

    def _advance(self, ranges, state: State, action: str) -> list[list]:
        return _merged((p2, r * q) for p, r in ranges for p2, q in self.opp.advance(p, state, action)
                       if q > 0)

    def _draw(self, ranges, rows, opp: int, st: np.ndarray) -> str:
        """The opponent's action with hand ``opp``: a path in proportion to its weight there,
        then an action from that path's row."""
        w = np.cumsum([r[opp] for _, r in ranges])
        i = int(np.searchsorted(w, K.uniform(st) * w[-1], side="right")) if w[-1] > 0 else 0
        acts, probs = rows[min(i, len(ranges) - 1)]
        c = np.cumsum(np.asarray(probs[self.proto[opp]], dtype=np.float64))
        j = int(np.searchsorted(c, K.uniform(st) * c[-1], side="right"))
        return acts[min(j, len(acts) - 1)]

    # -- the responder --------------------------------------------------------------------
    def fold_probability(self, state: State, ranges, action: str, vis: list[int], W: float) -> float:
        """FP: the range-weighted probability that the opponent folds right after ``action``."""
        if W <= 0.0:
            return 0.0
        after = state.clone().apply(action)
        F = 0.0
        for p, r in ranges:
            idx = np.flatnonzero(r)
            for p2, q in self.opp.advance(p, state, action):
                acts, probs = self.opp.probs(p2, after, vis)
                if q > 0 and "f" in acts:
                    F += q * float(r[idx] @ self._column(probs, acts.index("f"), idx))
        return F / W

    def values(self, state: State, seat: int, ranges, eq: np.ndarray,
               vis: list[int]) -> dict[str, float]:
        """The responder's actions at ``state`` and their values relative to folding now."""
        total = sum(r for _, r in ranges)
        W = float(total.sum())
        wp = float(total @ eq) / W if W > 0.0 else 0.5
        me, op = float(state.spent[seat]), float(state.spent[1 - seat])
        pot, asked = me + op, op - me
        out = {}
        if "f" in state.legal_actions():
            out["f"] = 0.0
        out["c"] = wp * pot - (1.0 - wp) * asked
        for x, a in self._raises(state):
            b = x - op
            fp = self.fold_probability(state, ranges, a, vis, W)
            out[a] = fp * pot + (1.0 - fp) * (wp * (pot + b) - (1.0 - wp) * (asked + b))
        return out

    def _raises(self, state: State) -> list[tuple[int, str]]:
        """(raise-to amount, action) of the responder's raises, smallest first."""
        if self.spec is not None:
            return [(x, f"r{x}") for x in self.spec.raises(state)]
        bounds = state.raise_range()  # limit: the one raise, "r"
        return [] if bounds is None else [(bounds[0], "r")]

    def choose(self, state: State, seat: int, ranges, eq: np.ndarray, vis: list[int]) -> str:
        vals = self.values(state, seat, ranges, eq, vis)
        best = "c"
        for a, v in vals.items():  # raises in increasing amount: a tie keeps the smaller
            if a[0] == "r" and v > vals[best] + K.EPS:
                best = a
        if "f" in vals and vals["f"] > vals[best] + K.EPS:
            best = "f"
        return best

    def _payoff(self, state: State, seat: int, sign) -> float:
        """The responder's winnings at a finished ``state``; ``sign()`` its showdown result."""
        spent, folded = state.spent, state.folded
        if folded[seat]:
            return -float(spent[seat])
        if folded[1 - seat]:
            return float(spent[1 - seat])
        return float(min(spent)) * sign()

    # -- sampled play ---------------------------------------------------------------------
    def play_deal(self, seed: int, index: int) -> tuple[float, float]:
        """The responder's winnings (chips) in seat 0 and in seat 1 on one deal."""
        hole, board, st = self.deal(seed, index)
        self._ranks.clear()  # boards of one deal: shared by its two hands
        ends = self.before[1:]
        vis = [self.to_global[board[:e]].tolist() for e in ends]
        valid = [self.disjoint(board[:e].tolist()) for e in ends]
        out = [0.0, 0.0]
        for seat in (0, 1):
            out[seat] = self._play_hand(seat, hole[seat], hole[1 - seat], board, vis, valid, st)
        return out[0], out[1]

    def _play_hand(self, seat, lbr, opp, board, vis, valid, st) -> float:
        state = self.root.clone()
        ranges = self._start(seat, lbr)
        r, eq = 0, None
        while not state.is_terminal():
            if state.round != r:
                r, eq = state.round, None
                ranges = [[p, v * valid[r]] for p, v in ranges]
            if state.current_player() == seat:
                if r < self.call_rounds:
                    a = "c"
                else:
                    if eq is None:
                        eq = self.equity(lbr, r, board[:self.before[r + 1]],
                                         sum(v for _, v in ranges) > 0)
                    a = self.choose(state, seat, ranges, eq, vis[r])
            else:
                rows = self._rows(ranges, state, vis[r])
                a = self._draw(ranges, rows, opp, st)
                ranges = self._observe(ranges, rows, a)
            ranges = self._advance(ranges, state, a)
            state.apply(a)
        return self._payoff(state, seat, lambda: self.showdown_sign(lbr, opp, board))

    # -- exact expectation ----------------------------------------------------------------
    def exact(self) -> tuple[float, float]:
        """The responder's expected winnings in seat 0 and in seat 1 (chips): every deal and
        every opponent action weighted by its probability; the responder's choices as in play."""
        self.check_exact()
        norm = self.H * math.comb(self.D - self.h, self.h)
        vals = []
        for seat in (0, 1):
            total = 0.0
            for lbr in range(self.H):
                total += self._walk(seat, lbr, self.root.clone(), (), self._start(seat, lbr), {})
            vals.append(total / norm)
        return vals[0], vals[1]

    def _walk(self, seat, lbr, state: State, board: tuple, ranges, eqs) -> float:
        """Expected winnings from ``state`` (owned: changed in place) times the ranges' mass."""
        showdown = state.is_terminal() and not any(state.folded)
        need = self.total_board if showdown else (0 if state.is_terminal() else
                                                  self.before[state.round + 1])
        if len(board) < need:
            return self._deal_round(seat, lbr, state, board, ranges, eqs)
        if state.is_terminal():
            return self._terminal(state, seat, lbr, board, ranges)
        vis = self.to_global[np.array(board, dtype=np.int64)].tolist()
        if state.current_player() == seat:
            r = state.round
            if r < self.call_rounds:
                a = "c"
            else:
                eq = eqs.get(board)
                if eq is None:
                    eq = self.equity(lbr, r, np.array(board, dtype=np.int64),
                                     self.disjoint([*self.hands[lbr].tolist(), *board]))
                    eqs[board] = eq
                a = self.choose(state, seat, ranges, eq, vis)
            ranges = self._advance(ranges, state, a)
            return self._walk(seat, lbr, state.apply(a), board, ranges, eqs)
        rows = self._rows(ranges, state, vis)
        total = 0.0
        for a in dict.fromkeys(a for acts, _ in rows for a in acts):
            child = self._observe(ranges, rows, a)
            if child:
                child = self._advance(child, state, a)
                total += self._walk(seat, lbr, state.clone().apply(a), board, child, eqs)
        return total

    def _deal_round(self, seat, lbr, state, board, ranges, eqs) -> float:
        """The next round's board cards, each set of them equally likely."""
        rr = max(i for i in range(self.R) if self.before[i] == len(board))  # whose cards come
        k = self.game.num_board_cards[rr]
        used = set(self.hands[lbr].tolist()) | set(board)
        rest = [c for c in range(self.D) if c not in used]
        n = math.comb(self.D - 2 * self.h - len(board), k)
        total = 0.0
        for new in combinations(rest, k):
            keep = self.disjoint(new)
            child = [[p, v * keep] for p, v in ranges]
            child = [x for x in child if x[1].any()]
            if child:
                total += self._walk(seat, lbr, state.clone(), board + new, child, eqs)
        return total / n

    def _terminal(self, state, seat, lbr, board, ranges) -> float:
        total = sum(r for _, r in ranges)

        def sign():
            ranks = self._xranks.get(board)
            if ranks is None:
                ranks = self._xranks[board] = self.board_ranks(board)
            return np.sign(ranks[lbr] - ranks).astype(np.float64)

        if any(state.folded):
            return self._payoff(state, seat, None) * float(total.sum())
        return float(min(state.spent)) * float(total @ sign())
