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
from numba import njit

from cfrlab.abstraction.lossless import LosslessModel
from cfrlab.config import NUMBA_CACHE
from cfrlab.engine import best_response, build_tree_for, get_engine, load_abstraction, row_offsets
from cfrlab.engine import kernels as K
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.games.units import to_unit, unit_of
from cfrlab.realgame.brpolicy import PolicyWalker
from cfrlab.realgame.brstrategy import MAX_ROWS, lossless_rows, real_states
from cfrlab.realgame.opponents import StrategyPolicy
from cfrlab.solvers.driver import Checkpointer, RunState
from cfrlab.strategy import Strategy

ALGORITHMS = ("cfr", "cfr+")
OPPONENTS = ("br", "abstract")
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


@njit(cache=NUMBA_CACHE)
def _lift_rows(policy, row_map, player_of_row, action, br_player, out):
    """out[i] = policy[row_map[i]] (an abstract policy on real rows), except the rows of
    ``br_player`` (-1: none), which play ``action[i]`` with probability 1."""
    for i in range(out.shape[0]):
        if player_of_row[i] == br_player:
            for a in range(3):
                out[i, a] = 0.0
            out[i, action[i]] = 1.0
        else:
            r = row_map[i]
            for a in range(3):
                out[i, a] = policy[r, a]


@njit(cache=NUMBA_CACHE)
def _sum_rows(t, rows, target, out):
    """out[target[k]] += t[rows[k]] in the order of k (np.bincount's)."""
    for k in range(rows.shape[0]):
        i = rows[k]
        j = target[k]
        for a in range(3):
            out[j, a] += t[i, a]


@njit(cache=NUMBA_CACHE)
def _regret_walk(walk, ops, num_states, tables, trav, reach, values):
    """One full-width walk under the fixed ``tables.sigma``: the instantaneous regrets of the
    players with ``trav`` land in ``tables.regret`` (zeroed by the caller) and their
    reach-weighted policy in ``tables.avg``."""
    view = K.full_view(num_states)
    K.forward(walk, view, tables, reach, -1)
    exact = K.exact_ops(ops)
    for i in range(2):
        if trav[i]:
            K.terminals(exact, view, i, reach, values)
    K.backward(walk, view, tables, reach, values, trav, 1, K.FIXED_POLICY, 1, np.zeros(1, np.int8))


class CFRBRSolver:
    """CFR (``cfr``: regret matching, uniform average; ``cfr+``: regret matching+, linear
    average) for the abstract player against a real-game best response (``opponent="br"``)
    or against itself (``"abstract"``: ordinary CFR in the abstract game)."""

    def __init__(self, game: GameDef | str, abstraction, algorithm: str = "cfr+",
                 opponent: str = "br", br_method: str = "walk") -> None:
        if br_method not in BR_METHODS:
            raise CfrlabError(f"the best response comes from {' or '.join(BR_METHODS)}, not {br_method!r}")
        if algorithm not in ALGORITHMS:
            raise CfrlabError(f"CFR-BR runs {' or '.join(ALGORITHMS)}, not {algorithm!r}")
        if opponent not in OPPONENTS:
            raise CfrlabError(f"opponent is one of {', '.join(OPPONENTS)}, not {opponent!r}")
        g = self.game = load_game(game) if isinstance(game, (str, Path)) else game
        if g.num_players != 2 or not g.is_limit:
            raise CfrlabError("CFR-BR handles 2-player limit games")
        self.tree = tree = build_tree_for(g)
        rows = lossless_rows(g, tree)
        if rows > MAX_ROWS:
            raise CfrlabError(f"{g.name or 'this game'} has {rows:.3g} information sets in the real "
                              f"game: too many for an exact best response every iteration (at most "
                              f"{MAX_ROWS:,})")
        if isinstance(abstraction, (str, Path)):
            abstraction = load_abstraction(abstraction, g)
        self.abstraction, self.algorithm, self.opponent = abstraction, algorithm, opponent
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
        self.regret = np.zeros((self.num_rows, 3))
        self.avg = np.zeros((self.num_rows, 3))
        self.iterations = 0
        self.history: list[tuple[int, float, float]] = []  # (iteration, BR as 0, BR as 1), chips

    # -- policies ------------------------------------------------------------------------------
    def current_policy(self) -> np.ndarray:
        """Regret matching over the legal actions (uniform where no regret is positive)."""
        pos = np.where(self.legal, np.maximum(self.regret, 0.0), 0.0)
        tot = pos.sum(axis=1, keepdims=True)
        uni = self.legal / self.legal.sum(axis=1, keepdims=True)
        return np.where(tot > 0, pos / np.where(tot > 0, tot, 1.0), uni)

    def average_policy(self) -> np.ndarray:
        tot = self.avg.sum(axis=1, keepdims=True)
        uni = self.legal / self.legal.sum(axis=1, keepdims=True)
        return np.where(tot > 0, self.avg / np.where(tot > 0, tot, 1.0), uni)

    def real_policy(self, policy: np.ndarray, br_player: int = -1,
                    action: np.ndarray | None = None) -> np.ndarray:
        """An abstract policy on real cards: each real state plays its abstract state's row;
        with ``br_player``, that player's rows play ``action`` (int8[real rows]) instead."""
        out = np.empty((len(self.row_map), 3))
        if action is None:
            action = np.zeros(0, dtype=np.int8)
        _lift_rows(np.ascontiguousarray(policy, dtype=np.float64), self.row_map,
                   self.engine.player_of_row, action, br_player, out)
        return out

    def real_br_values(self, policy: np.ndarray) -> tuple[float, float]:
        """(u0(BR, s1), u1(s0, BR)) in chips, the real-game best responses to ``policy``."""
        real = self.real_policy(policy)
        return (float(best_response(self.tree, self.lm, real, 0)[0]),
                float(best_response(self.tree, self.lm, real, 1)[0]))

    # -- iterations ----------------------------------------------------------------------------
    def _walk(self, sigma: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """(instantaneous regrets, reach-weighted policy) of ``seat`` summed per abstract row."""
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
        trav = np.array([seat == 0, seat == 1])
        _regret_walk(walk, ops, e.num_states, K.SolverTables(regret, np.zeros((0, 3)), avg, sigma),
                     trav, reach, values)
        rows = self._real_rows[seat]
        target = self._targets[seat]
        out = np.zeros((2, self.num_rows, 3))
        _sum_rows(regret, rows, target, out[0])
        _sum_rows(avg, rows, target, out[1])
        return out[0], out[1]

    def _walked_best_responses(self, real: np.ndarray) -> tuple[float, float, np.ndarray]:
        """Both seats' best responses to ``real`` by the real-game walk: (BR values in chips,
        int8[rows]: the responder's action at each real row)."""
        if self._walker is None:
            self._walker = PolicyWalker(self.game, self.tree, self.lm, real, self.engine.row_offset)
        else:
            self._walker.set_policy(real)
        return self._walker.respond()

    def iterate(self, n: int = 1) -> None:
        plus = self.algorithm == "cfr+"
        walked = self.opponent == "br" and self.br_method == "walk"
        for _ in range(n):
            t = self.iterations + 1
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
                mine = self.player_of_row == seat
                self.regret[mine] += inst[mine]
                if plus:
                    np.maximum(self.regret, 0.0, out=self.regret)
                self.avg[mine] += (t if plus else 1.0) * reach_sigma[mine]
            self.iterations = t
            if self.opponent == "br":  # the current strategy this iteration started from
                self.history.append((t, float(brv[0]), float(brv[1])))

    # -- checkpoints ---------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"regret": self.regret, "avg": self.avg, "iterations": self.iterations,
                "history": [list(h) for h in self.history]}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        for name in ("regret", "avg"):
            arr = np.asarray(d[name], dtype=np.float64)
            if arr.shape != (self.num_rows, 3) or not np.isfinite(arr).all():
                raise CfrlabError(f"the {name} table does not fit this abstraction")
            setattr(self, name, arr.copy())
        self.iterations = int(d["iterations"])
        self.history = [(int(i), float(a), float(b)) for i, a, b in d.get("history", [])]

    def strategy(self, which: str = "current", seconds: float = 0.0,
                 exploitability: float | None = None) -> Strategy:
        """The abstract player's strategy as a Strategy file: in the abstraction for a chance
        model (an abstraction file), on real cards (the lossless model) for a ``CardMap``."""
        policy = self.current_policy() if which == "current" else self.average_policy()
        extra = {"cfr_br": {"opponent": self.opponent, "policy": which,
                            "abstraction": str(self.abstraction.hash)}}
        kw = {"algorithm": "cfr-br" if self.opponent == "br" else f"abstract-{self.algorithm}",
                  "params": {"algorithm": self.algorithm}, "iterations": self.iterations,
                  "seconds": seconds, "exploitability": exploitability, "extra": extra}
        if isinstance(self.abstraction, CardMap):
            return Strategy.from_policy(self.game, self.real_policy(policy), tree=self.tree,
                                        model=self.lm, **kw)
        return Strategy.from_policy(self.game, policy, tree=self.tree, model=self.abstraction, **kw)


@dataclass
class CFRBRResult:
    """A CFR-BR run: the strategy (its current one unless asked), its real-game best-response
    values by position and their mean (the game's unit: mbb/g for hold'em, chips for Kuhn and
    Leduc), and the exploitability of the current strategy at each iteration."""

    strategy: Strategy
    br: tuple[float, float]
    exploitability: float
    unit: str
    iterations: int
    seconds: float
    history: list[tuple[int, float]] = field(default_factory=list)
    resumed_from: int | None = None

    def summary(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "exploitability": self.exploitability,
                "unit": self.unit, "best_response_values": list(self.br), "seconds": self.seconds,
                "resumed_from": self.resumed_from}


def cfrbr(game: GameDef | str | Path, abstraction, *, iterations: int = 1000,
          algorithm: str = "cfr+", opponent: str = "br", policy: str = "current",
          checkpoint: str | Path | None = None, checkpoint_every: float = 60.0,
          resume: bool = False, progress: Callable[[int, int, float | None], None] | None = None
          ) -> CFRBRResult:
    """Run CFR-BR (``opponent="br"``) or CFR in the abstract game (``"abstract"``) for
    ``iterations`` and return the strategy (``policy``: ``"current"``, the paper's result, or
    ``"average"``) with its exact real-game exploitability. ``checkpoint``: a file written
    every ``checkpoint_every`` seconds and at the end; ``resume=True`` continues from it.
    ``progress(iteration, total, exploitability of the current strategy or None)``."""
    if not isinstance(iterations, int) or iterations < 1:
        raise CfrlabError("iterations must be a positive integer")
    if policy not in ("current", "average"):
        raise CfrlabError(f"policy is current or average, not {policy!r}")
    solver = CFRBRSolver(game, abstraction, algorithm, opponent)
    g = solver.game
    ck = None
    resumed = None
    if checkpoint is not None:
        ck = Checkpointer(checkpoint, {"game": g.to_text(), "game_name": g.name,
                                       "model_hash": str(solver.abstraction.hash),
                                       "algorithm": f"cfr-br:{opponent}", "params": {"rule": algorithm},
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
    final = solver.current_policy() if policy == "current" else solver.average_policy()
    b0, b1 = solver.real_br_values(final)
    expl = 0.5 * (b0 + b1)
    return CFRBRResult(solver.strategy(policy, seconds, expl), (to_unit(g, b0), to_unit(g, b1)),
                       to_unit(g, expl), unit_of(g), solver.iterations, seconds,
                       [(i, to_unit(g, 0.5 * (a + b))) for i, a, b in solver.history], resumed)
