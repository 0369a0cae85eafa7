"""CFR-BR: the least exploitable strategy a card abstraction can represent.

Johanson, Bard, Burch and Bowling, "Finding optimal abstract strategies in extensive-form
games" (AAAI 2012). An abstract player (its strategy a table over abstract information sets)
runs CFR against an opponent that, every iteration, plays a best response *in the real game*
to the abstract player's current strategy. The opponent has no regret, so the abstract
player's regret bound makes it converge to the abstract strategy whose real-game best response
wins least: the least exploitable strategy the abstraction can represent, which the
abstraction's own equilibrium (ordinary CFR in the abstract game) is not. The result is the
abstract player's *current* strategy, as in the paper; each position is trained against its
own best response (the two are independent problems, run side by side).

Each iteration is exact: the abstract strategy is written on real cards (each real private
state plays its abstract state's row, ``brstrategy.real_states``), the real-game walk gives
both seats' pure best responses at once (``brpolicy``; ``br_method="engine"``: the lossless
engine's, the same iterates at twice the cost), and one vector walk under (abstract
player, best response) gives the abstract player's instantaneous counterfactual regrets at
every real information set; their sums over the real information sets of an abstract one are
the abstract regrets (Zinkevich et al.'s abstract CFR, exact for a perfect-recall abstraction
and the usual update for an imperfect-recall one). This needs the real game's lossless model:
Kuhn, Leduc and small hold'em (``brstrategy.MAX_ROWS`` information sets); a larger game is
refused before any work.

``opponent="real"`` reaches the same optimum by another route where the real game's tables
fit (they do whenever the walk above does): the opponent is itself a regret minimizer in the
real game (its regrets and average on real rows, the abstract player's rule), and the two
play the abstract-versus-real game by alternating updates, per position. The abstract
player's *average* strategy converges to the least exploitable abstract strategy (the
abstract-versus-real game's minimax value is that strategy's exploitability), with the
convergence of CFR+/DCFR in an ordinary game rather than CFR-BR's slow, oscillating current
strategy (Leduc: within 0.3% of the LP's optimum after 800 iterations against 12% after
3,000). An iteration costs four regret walks (two per position) and no best response.

The abstract player's rule (``RULES``): ``cfr``, ``cfr+``, ``dcfr`` (alpha 1.5, beta 0,
gamma 2) or ``pcfr+``; against a best response the solver also keeps its best iterate
(``policy="best"``: the current strategy of least measured exploitability).

``opponent="abstract"`` runs ordinary CFR in the abstract game through the same walk (both
players abstract, alternating updates), the baseline CFR-BR is compared with.

An abstraction is a chance model whose states real cards map to (a bucketed abstraction file:
``cfrlab abstract build``), or a ``CardMap``: any function of (hole, board, round) written
over the real game's private states, for games the bucket builder does not take (Kuhn and
Leduc have one hole card).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.abstraction.lossless import LosslessModel
from cfrlab.engine import best_response, build_tree_for, get_engine, load_abstraction, row_offsets
from cfrlab.engine import kernels as K
from cfrlab.engine.rules import RULES as ENGINE_RULES
from cfrlab.engine.rules import CFRParams, discounts
from cfrlab.engine.values import expected_value
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.games.units import to_unit, unit_of
from cfrlab.realgame import _cfrbr_kernels as CK
from cfrlab.realgame.brpolicy import PolicyWalker
from cfrlab.realgame.brstrategy import MAX_ROWS, lossless_rows, real_states
from cfrlab.realgame.opponents import StrategyPolicy
from cfrlab.solvers.driver import Checkpointer, RunState
from cfrlab.strategy import Strategy

# the abstract player's rules: these of the one table (``cfrlab.engine.rules``)
RULES = {name: ENGINE_RULES[name] for name in ("cfr", "cfr+", "dcfr", "pcfr+")}
ALGORITHMS = tuple(RULES)
DEFAULT_RULE = {"br": "cfr+", "real": "dcfr", "abstract": "dcfr"}  # measured, docs/results/cfrbr.md
POLICIES = ("current", "average", "best")
OPPONENTS = ("br", "abstract", "real")
BR_METHODS = ("walk", "engine")
_NO_F32 = np.zeros(0, dtype=np.float32)


class CardMap:
    """A card abstraction given by ``fn(hole, board, round) -> key`` (hole and board as ACPC
    card ids; any hashable key): real private states with equal keys share an abstract state.
    Perfect recall is the caller's to give (``perfect_recall()`` checks it)."""

    kind = "card-map"

    def __init__(self, game: GameDef | str, fn: Callable[[list[int], list[int], int], Any],
                 name: str = "card-map") -> None:
        self.game = load_game(game) if isinstance(game, str) else game
        lm = LosslessModel(self.game)
        self.maps: list[np.ndarray] = []
        for r in range(self.game.num_rounds):
            ids: dict[Any, int] = {}
            keys = [fn(*lm.state_cards(r, s), r) for s in range(lm.num_states[r])]
            self.maps.append(np.array([ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64))
        self.num_states = tuple(int(m.max()) + 1 for m in self.maps)
        self._parent = [np.asarray(p, dtype=np.int64) for p in lm.parent]
        h = hashlib.sha256(self.game.to_text().encode())
        for m in self.maps:
            h.update(m.tobytes())
        self.hash = h.hexdigest()
        self.name = name

    def perfect_recall(self) -> bool:
        """Every abstract state of a round determines the player's abstract state before."""
        for r in range(1, len(self.maps)):
            before = self.maps[r - 1][self._parent[r]]
            first = np.full(self.num_states[r], -1, dtype=np.int64)
            first[self.maps[r]] = before  # any one real state's earlier abstract state
            if not np.array_equal(first[self.maps[r]], before):
                return False
        return True


def abstraction_maps(game: GameDef, abstraction, tree, lm: LosslessModel) -> list[np.ndarray]:
    """Per round, the abstract state of every real private state (lossless model order)."""
    if isinstance(abstraction, CardMap):
        if abstraction.game.to_text() != game.to_text():
            raise CfrlabError("the card map was made for another game")
        return abstraction.maps
    off = row_offsets(tree, abstraction)
    bp = StrategyPolicy(abstraction, np.zeros((int(off[-1]), 3)), off)
    return real_states(bp, game, lm)


def _step(rule: CFRParams, tables: tuple[np.ndarray, np.ndarray, np.ndarray], rows: np.ndarray,
          inst: np.ndarray, reach_sigma: np.ndarray, t: int) -> None:
    """Iteration t's update of ``rows`` (indices) of (regret, average, prediction) tables by
    ``rule`` from the iteration's instantaneous regrets and reach-weighted policy."""
    pos_f, neg_f, _ = discounts(rule, t)  # the average here is a sum weighted by t^gamma
    regret, avg, pred = tables
    CK.step_rows(regret, avg, pred, rows, inst, reach_sigma, pos_f, neg_f, rule.regret_floor,
               float(t) ** rule.gamma)


def load_tables(solver, d: dict[str, Any], names) -> None:
    """Each named (rows, 3) table of a saved state onto ``solver``, refused unless it has the
    solver's own table's shape and finite values."""
    for name in names:
        mine = getattr(solver, name)
        arr = np.asarray(d.get(name, np.zeros((0, 3))), dtype=np.float64).reshape(-1, 3)
        if arr.shape != mine.shape or not np.isfinite(arr).all():
            raise CfrlabError(f"the {name} table does not fit this run")
        setattr(solver, name, arr.copy())


def cfrbr_game(game: GameDef | str | Path, algorithm: str) -> GameDef:
    """The game of a CFR-BR run, checked with the abstract player's rule before any work."""
    if algorithm not in ALGORITHMS:
        raise CfrlabError(f"CFR-BR runs {', '.join(ALGORITHMS[:-1])} or {ALGORITHMS[-1]}, "
                          f"not {algorithm!r}")
    g = load_game(game) if isinstance(game, (str, Path)) else game
    if g.num_players != 2 or not g.is_limit:
        raise CfrlabError("CFR-BR handles 2-player limit games")
    return g


class CFRBRSolver:
    """The abstract player's rule (``RULES``: ``cfr``, regret matching, uniform average;
    ``cfr+``, regret matching+, linear average; ``dcfr``, discounted CFR with alpha 1.5, beta
    0, gamma 2; ``pcfr+``, predictive regret matching+, quadratic average) against a
    real-game best response (``opponent="br"``) or against itself (``"abstract"``: ordinary
    CFR in the abstract game, alternating updates). Against a best response it also keeps
    its best iterate: the current strategy whose real-game best response won least."""

    def __init__(self, game: GameDef | str, abstraction, algorithm: str | None = None,
                 opponent: str = "br", br_method: str = "walk") -> None:
        if br_method not in BR_METHODS:
            raise CfrlabError(f"the best response comes from {' or '.join(BR_METHODS)}, not {br_method!r}")
        if opponent not in OPPONENTS:
            raise CfrlabError(f"opponent is one of {', '.join(OPPONENTS)}, not {opponent!r}")
        algorithm = DEFAULT_RULE[opponent] if algorithm is None else algorithm
        g = self.game = cfrbr_game(game, algorithm)
        self.tree = tree = build_tree_for(g)
        rows = lossless_rows(g, tree)
        if rows > MAX_ROWS:
            raise CfrlabError(f"{g.name or 'this game'} has {rows:.3g} information sets in the real "
                              f"game: too many for an exact best response every iteration (at most "
                              f"{MAX_ROWS:,})")
        if isinstance(abstraction, (str, Path)):
            abstraction = load_abstraction(abstraction, g)
        self.abstraction, self.algorithm, self.opponent = abstraction, algorithm, opponent
        self.rule = RULES[algorithm]
        self.lm = LosslessModel(g)
        self.engine = get_engine(tree, self.lm)
        maps = abstraction_maps(g, abstraction, tree, self.lm)
        nstates = [int(n) for n in abstraction.num_states]
        dec_round = tree.round[tree.decision_node].astype(np.int64)
        sizes = np.array([nstates[r] for r in dec_round], dtype=np.int64)
        self.row_offset = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.num_rows = int(self.row_offset[-1])
        dec_of_row = np.repeat(np.arange(tree.num_decisions), sizes)
        self.legal = np.asarray(tree.legal, dtype=bool)[dec_of_row]
        self.player_of_row = tree.player[tree.decision_node][dec_of_row].astype(np.int64)
        real_off = row_offsets(tree, self.lm)
        self.row_map = np.concatenate([self.row_offset[d] + maps[int(r)]
                                       for d, r in enumerate(dec_round)]).astype(np.int64)
        if len(self.row_map) != int(real_off[-1]):
            raise CfrlabError("the abstraction does not cover the real game's states")
        self.br_method = br_method
        self._walker = None  # brpolicy.PolicyWalker, built at the first walked best response
        self._scratch = None  # ``_walk``'s tables
        self._real_rows = [np.flatnonzero(self.engine.player_of_row == p) for p in (0, 1)]
        self._targets = [self.row_map[rows] for rows in self._real_rows]  # their abstract rows
        self._abstract_rows = [np.flatnonzero(self.player_of_row == p) for p in (0, 1)]
        self.regret = np.zeros((self.num_rows, 3))
        self.avg = np.zeros((self.num_rows, 3))
        self.pred = np.zeros((self.num_rows if self.rule.predictive else 0, 3))  # last regrets
        self.best = np.zeros((0, 3))  # the best iterate's policy (none yet)
        self.best_iteration = 0
        # a real-game opponent's regrets, average and predictions (opponent="real")
        nreal = len(self.row_map) if opponent == "real" else 0
        self.oregret, self.oavg = np.zeros((nreal, 3)), np.zeros((nreal, 3))
        self.opred = np.zeros((nreal if self.rule.predictive else 0, 3))
        self.iterations = 0
        self.history: list[tuple[int, float, float]] = []  # (iteration, BR as 0, BR as 1), chips

    # -- policies ------------------------------------------------------------------------------
    def current_policy(self) -> np.ndarray:
        """Regret matching over the legal actions (uniform where no regret is positive), on
        the regrets plus the last iteration's for a predictive rule."""
        return K.regret_match(self.regret + self.pred if self.rule.predictive else self.regret, self.legal)

    def average_policy(self) -> np.ndarray:
        tot = self.avg.sum(axis=1, keepdims=True)
        uni = self.legal / self.legal.sum(axis=1, keepdims=True)
        return np.where(tot > 0, self.avg / np.where(tot > 0, tot, 1.0), uni)

    def best_policy(self) -> np.ndarray:
        """The best iterate: the current strategy with the least real-game exploitability so
        far (the current one before any iteration, or without a best-response opponent)."""
        return self.best.copy() if len(self.best) else self.current_policy()

    def policy(self, which: str) -> np.ndarray:
        if which not in POLICIES:
            raise CfrlabError(f"policy is {', '.join(POLICIES[:-1])} or {POLICIES[-1]}, not {which!r}")
        return {"current": self.current_policy, "average": self.average_policy,
                "best": self.best_policy}[which]()

    def real_policy(self, policy: np.ndarray, br_player: int = -1,
                    action: np.ndarray | None = None) -> np.ndarray:
        """An abstract policy on real cards: each real state plays its abstract state's row;
        with ``br_player``, that player's rows play ``action`` (int8[real rows]) instead."""
        out = np.empty((len(self.row_map), 3))
        if action is None:
            action = np.zeros(0, dtype=np.int8)
        CK.lift_rows(np.ascontiguousarray(policy, dtype=np.float64), self.row_map,
                   self.engine.player_of_row, action, br_player, out)
        return out

    def real_br_values(self, policy: np.ndarray) -> tuple[float, float]:
        """(u0(BR, s1), u1(s0, BR)) in chips, the real-game best responses to ``policy``."""
        real = self.real_policy(policy)
        return (float(best_response(self.tree, self.lm, real, 0)[0]),
                float(best_response(self.tree, self.lm, real, 1)[0]))

    def lower_bound(self, max_passes: int = 100) -> float:
        """A lower bound (chips) on the least real-game exploitability any strategy of the
        abstraction has: per position, the abstract player's best response *within the
        abstraction* to the real opponent's average strategy (no abstract strategy does
        better against that opponent, so none is less exploitable). The best response by
        policy iteration: every abstract information set takes the action of the largest
        counterfactual value summed over its real ones, under the strategy below it, until
        nothing changes (a tree's depth of passes); exact for a perfect-recall abstraction."""
        if self.opponent != "real":
            raise CfrlabError("a lower bound needs the real-game opponent's average (opponent real)")
        e = self.engine
        legal = e.legal[e.decision_of_row]
        tot = self.oavg.sum(axis=1, keepdims=True)
        opp = np.where(tot > 0, self.oavg / np.where(tot > 0, tot, 1.0),
                       legal / legal.sum(axis=1, keepdims=True))
        best = []
        for p in (0, 1):
            rows, mine = self._real_rows[1 - p], self._abstract_rows[p]
            action = np.argmax(self.average_policy()[mine], axis=1)
            for _ in range(max_passes):
                x = np.zeros((self.num_rows, 3))
                x[mine, action] = 1.0
                real = self.real_policy(x)
                real[rows] = opp[rows]
                regret, avg = self._raw_walk(real, np.array([p == 0, p == 1]))
                q = np.where(self.legal, self._summed(regret, avg, p)[0], -np.inf)[mine]
                top = q.max(axis=1)
                stay = q[np.arange(len(mine)), action] >= top - 1e-12 * (1.0 + np.abs(top))
                if stay.all():  # no information set gains by switching: a best response
                    break
                action = np.where(stay, action, np.argmax(q, axis=1))
            v0 = float(expected_value(self.tree, self.lm, real, real))  # zero-sum: u1 = -u0
            best.append(v0 if p == 0 else -v0)
        return -0.5 * (best[0] + best[1])

    def evaluate(self, which: str) -> tuple[float, float]:
        """The real-game best-response values (chips) of the policy ``which`` by the walk,
        recorded in ``history`` at this iteration (against a real-game opponent or in the
        abstract game, where iterations take no best response)."""
        b0, b1, _ = self._walked_best_responses(self.real_policy(self.policy(which)))
        self.history.append((self.iterations, float(b0), float(b1)))
        return float(b0), float(b1)

    # -- iterations ----------------------------------------------------------------------------
    def _walk(self, sigma: np.ndarray, seat: int, summed: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(instantaneous regrets, reach-weighted policy) of ``seat`` summed per abstract row
        (``summed=False``: per real row, in tables the next walk overwrites)."""
        regret, avg = self._raw_walk(sigma, np.array([seat == 0, seat == 1]))
        return self._summed(regret, avg, seat) if summed else (regret, avg)

    def _raw_walk(self, sigma: np.ndarray, trav: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The walk's tables per real row for the players in ``trav`` (reused scratch)."""
        e = self.engine
        lay = e.layout()
        reach, values = e.scratch()
        if self._scratch is None:  # two tables of the real game's size, reused
            self._scratch = (np.empty_like(sigma), np.empty_like(sigma))
        regret, avg = self._scratch
        regret.fill(0.0)
        avg.fill(0.0)
        walk = K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off)
        ops = K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, _NO_F32, e.opint, e.opc)
        CK.regret_walk(walk, ops, e.num_states, K.SolverTables(regret, np.zeros((0, 3)), avg, sigma),
                     trav, reach, values)
        return regret, avg

    def _summed(self, regret: np.ndarray, avg: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """Real-row tables of ``seat`` summed per abstract row."""
        rows = self._real_rows[seat]
        target = self._targets[seat]
        out = np.zeros((2, self.num_rows, 3))
        CK.sum_rows(regret, rows, target, out[0])
        CK.sum_rows(avg, rows, target, out[1])
        return out[0], out[1]

    def _walked_best_responses(self, real: np.ndarray) -> tuple[float, float, np.ndarray]:
        """Both seats' best responses to ``real`` by the real-game walk: (BR values in chips,
        int8[rows]: the responder's action at each real row)."""
        if self._walker is None:
            self._walker = PolicyWalker(self.game, self.tree, self.lm, real, self.engine.row_offset)
        else:
            self._walker.set_policy(real)
        return self._walker.respond()

    def _update(self, seat: int, inst: np.ndarray, reach_sigma: np.ndarray, t: int) -> None:
        """Iteration t's regrets and average of ``seat``'s abstract rows, by the rule."""
        _step(self.rule, (self.regret, self.avg, self.pred), self._abstract_rows[seat],
              inst, reach_sigma, t)

    def _real_iteration(self, t: int) -> None:
        """Against a real-game regret minimizer: per position, the abstract player updates
        against the opponent's current real-game strategy, then the opponent (same rule, on
        real rows) against the abstract player's new one (alternating updates)."""
        e = self.engine
        real = np.empty((len(self.row_map), 3))
        for seat in (0, 1):  # the opponent's rows of this game change only at its own update
            for who in (seat, 1 - seat):
                CK.profile_rows(self.current_policy(), self.row_map, e.player_of_row, 1 - seat,
                              self.oregret, self.opred, e.decision_of_row, e.legal, real)
                if who == seat:
                    inst, reach_sigma = self._walk(real, seat)
                    self._update(seat, inst, reach_sigma, t)
                else:
                    regret, avg = self._walk(real, who, summed=False)
                    _step(self.rule, (self.oregret, self.oavg, self.opred), self._real_rows[who],
                          regret, avg, t)

    def iterate(self, n: int = 1) -> None:
        walked = self.opponent == "br" and self.br_method == "walk"
        for _ in range(n):
            t = self.iterations + 1
            if self.opponent == "real":
                self._real_iteration(t)
                self.iterations = t
                continue
            brv = [0.0, 0.0]
            # against a best response, seat 1's walk replaces seat 0's rows (the only ones seat
            # 0's update changed), so the iteration's first strategy on real cards serves both;
            # ordinary CFR alternates: seat 1 plays against seat 0's updated strategy
            first = self.current_policy()
            start = self.real_policy(first)
            if walked:  # both best responses at once
                brv[0], brv[1], action = self._walked_best_responses(start)
            for seat in (0, 1):
                real = start
                if self.opponent == "abstract" and seat == 1:
                    real = self.real_policy(self.current_policy())
                elif walked:
                    real = self.real_policy(first, 1 - seat, action)
                elif self.opponent == "br":  # the opponent's rows become its pure best response
                    brv[1 - seat], real = best_response(self.tree, self.lm, real, 1 - seat)
                inst, reach_sigma = self._walk(real, seat)
                self._update(seat, inst, reach_sigma, t)
            self.iterations = t
            if self.opponent == "br":  # the current strategy this iteration started from
                self.history.append((t, float(brv[0]), float(brv[1])))
                if not self.best_iteration or sum(brv) < sum(self.history[self.best_iteration - 1][1:]):
                    self.best, self.best_iteration = first, t

    # -- checkpoints ---------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"regret": self.regret, "avg": self.avg, "pred": self.pred, "best": self.best,
                "oregret": self.oregret, "oavg": self.oavg, "opred": self.opred,
                "best_iteration": self.best_iteration, "iterations": self.iterations,
                "history": [list(h) for h in self.history]}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        for name in ("regret", "avg"):
            arr = np.asarray(d[name], dtype=np.float64)
            if arr.shape != (self.num_rows, 3) or not np.isfinite(arr).all():
                raise CfrlabError(f"the {name} table does not fit this abstraction")
            setattr(self, name, arr.copy())
        for name, rows in (("pred", len(self.pred)), ("best", None)):  # none before these
            arr = np.asarray(d.get(name, np.zeros((0, 3))), dtype=np.float64).reshape(-1, 3)
            if len(arr) not in (rows if rows is not None else self.num_rows, 0) or not np.isfinite(arr).all():
                raise CfrlabError(f"the {name} table does not fit this abstraction")
            setattr(self, name, arr.copy())
        if len(self.pred) != (self.num_rows if self.rule.predictive else 0):
            raise CfrlabError("the pred table does not fit this rule")
        load_tables(self, d, ("oregret", "oavg", "opred"))  # the real-game opponent's, if any
        self.iterations = int(d["iterations"])
        self.history = [(int(i), float(a), float(b)) for i, a, b in d.get("history", [])]
        self.best_iteration = int(d.get("best_iteration", 0)) if len(self.best) else 0
        if not 0 <= self.best_iteration <= len(self.history):
            raise CfrlabError("the best iterate is not in the history")

    def strategy(self, which: str = "current", seconds: float = 0.0,
                 exploitability: float | None = None) -> Strategy:
        """The abstract player's strategy as a Strategy file: in the abstraction for a chance
        model (an abstraction file), on real cards (the lossless model) for a ``CardMap``."""
        policy = self.policy(which)
        extra = {"cfr_br": {"opponent": self.opponent, "policy": which,
                            "best_iteration": self.best_iteration if which == "best" else None,
                            "abstraction": str(self.abstraction.hash)}}
        name = {"br": "cfr-br", "real": "cfr-br-real"}.get(self.opponent, f"abstract-{self.algorithm}")
        kw = {"algorithm": name,
                  "params": {"algorithm": self.algorithm}, "iterations": self.iterations,
                  "seconds": seconds, "exploitability": exploitability, "extra": extra}
        if isinstance(self.abstraction, CardMap):
            return Strategy.from_policy(self.game, self.real_policy(policy), tree=self.tree,
                                        model=self.lm, **kw)
        return Strategy.from_policy(self.game, policy, tree=self.tree, model=self.abstraction, **kw)


@dataclass
class CFRBRResult:
    """A CFR-BR run: the strategy, its real-game best-response values by position and their
    mean (the game's unit: mbb/g for hold'em, chips for Kuhn and Leduc), the history
    (iteration, exploitability) and, against a real opponent, a lower bound on the least
    exploitability of the abstraction's strategies (``CFRBRSolver.lower_bound``)."""

    strategy: Strategy
    br: tuple[float, float]
    exploitability: float
    unit: str
    iterations: int
    seconds: float
    history: list[tuple[int, float]] = field(default_factory=list)
    resumed_from: int | None = None
    lower_bound: float | None = None  # against a real opponent: no abstract strategy is below

    def summary(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "exploitability": self.exploitability,
                "lower_bound": self.lower_bound,
                "unit": self.unit, "best_response_values": list(self.br), "seconds": self.seconds,
                "resumed_from": self.resumed_from}


def cfrbr(game: GameDef | str | Path, abstraction, *, iterations: int = 1000,
          algorithm: str | None = None, opponent: str = "real", policy: str | None = None,
          checkpoint: str | Path | None = None, checkpoint_every: float = 60.0,
          resume: bool = False, eval_every: int = 0,
          progress: Callable[[int, int, float | None], None] | None = None) -> CFRBRResult:
    """The least exploitable strategy of an abstraction: the abstract player against a
    real-game regret minimizer (``opponent="real"``, the default: CFR-BR's optimum in far
    fewer iterations, where the real game's tables fit), CFR-BR proper (``"br"``: a real-game
    best response every iteration) or CFR in the abstract game (``"abstract"``) for
    ``iterations``, the abstract player's rule ``algorithm`` (``RULES``; default
    ``DEFAULT_RULE[opponent]``: dcfr, or cfr+ against a best response), and return the
    strategy with its exact real-game exploitability. ``policy``: ``"current"`` (the paper's result, the default against a
    best response), ``"average"`` (the default otherwise) or ``"best"`` (the best iterate
    against a best response). ``checkpoint``: a file written
    every ``checkpoint_every`` seconds and at the end; ``resume=True`` continues from it.
    ``eval_every``: against a real-game opponent or in the abstract game, the exploitability
    of ``policy`` every that many iterations, in the result's ``history`` (0: none; against a
    best response the history holds every iteration's current strategy).
    ``progress(iteration, total, the history's last exploitability or None)``."""
    if not isinstance(iterations, int) or iterations < 1:
        raise CfrlabError("iterations must be a positive integer")
    if not isinstance(eval_every, int) or eval_every < 0:
        raise CfrlabError("eval_every must be a non-negative integer")
    if policy is None:
        policy = "current" if opponent == "br" else "average"
    if policy == "best" and opponent != "br":
        raise CfrlabError("the best iterate needs the best-response opponent (br)")
    if policy not in POLICIES:
        raise CfrlabError(f"policy is {', '.join(POLICIES[:-1])} or {POLICIES[-1]}, not {policy!r}")
    solver = CFRBRSolver(game, abstraction, algorithm, opponent)
    g = solver.game
    ck = None
    resumed = None
    if checkpoint is not None:
        ck = Checkpointer(checkpoint, {"game": g.to_text(), "game_name": g.name,
                                       "model_hash": str(solver.abstraction.hash),
                                       "algorithm": f"cfr-br:{opponent}", "params": {"rule": solver.algorithm},
                                       "seed": None})
        if ck.exists():
            if not resume:
                raise CfrlabError(f"{checkpoint} exists; resume to continue it, or remove it")
            resumed = ck.load(solver).resumed_from
    run = RunState()
    start = time.perf_counter()
    saved = start
    while solver.iterations < iterations:
        solver.iterate(1)
        if opponent != "br" and eval_every and solver.iterations % eval_every == 0:
            solver.evaluate(policy)
        now = time.perf_counter()
        if progress is not None:
            last = solver.history[-1] if solver.history else None
            progress(solver.iterations, iterations,
                     None if last is None else to_unit(g, 0.5 * (last[1] + last[2])))
        if ck is not None and (now - saved >= checkpoint_every or solver.iterations == iterations):
            run.solver_seconds = now - start
            ck.save(solver, run)
            saved = now
    seconds = time.perf_counter() - start
    final = solver.policy(policy)
    b0, b1 = solver.real_br_values(final)
    expl = 0.5 * (b0 + b1)
    low = to_unit(g, solver.lower_bound()) if opponent == "real" else None
    return CFRBRResult(solver.strategy(policy, seconds, expl), (to_unit(g, b0), to_unit(g, b1)),
                       to_unit(g, expl), unit_of(g), solver.iterations, seconds,
                       [(i, to_unit(g, 0.5 * (a + b))) for i, a, b in solver.history], resumed, low)
