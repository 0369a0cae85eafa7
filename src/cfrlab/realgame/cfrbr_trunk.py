"""CFR-BR with a sampled trunk: the least exploitable abstract strategy of a game whose real
information sets do not fit (the four-round 24-card deck, full HULHE).

Johanson, Bard, Burch and Bowling, "Finding optimal abstract strategies in extensive-form
games" (AAAI 2012), in the form they use for HULHE. Per position, the abstract player
A (a bucketed abstraction's rows, a ``cfrbr.Rule``: cfr+ as the paper) plays against a hybrid
opponent O: in the *trunk* (the rounds before ``trunk``) a regret minimizer (the same rule) on
the real information sets, one row per real hand; below it, in every subgame, an exact best
response to A's current strategy. Each iteration samples one class of first boards (a flop
under suit isomorphism, ``hands.Unit``, with probability proportional to its boards: public
chance sampling) and walks, with vectors over all hands, the trunk and every board below that
flop, exactly:

1. the trunk forward: A's reach by its current strategy, O's by regret matching;
2. below it, pass 1 (``walk.Walker`` against A's profile): O's best-response values at the
   trunk's leaves, recording O's choice at every decision before the last round; pass 2, per
   board again: O's reach under its pure response (on each last-round board its choices
   recomputed from A's reach entering it), A's counterfactual values against it and its
   regrets, summed over the hands of each abstract state and weighted by the board's chance;
3. the trunk backward: O's values (the subgames' best-response values) give O's trunk regrets,
   A's its own.

Both positions share the walks (``_trunk_kernels``). ``trunk=1`` (the default: O a regret
minimizer preflop) or ``trunk=2`` (the paper's HULHE form: O's flop rows real too, a row per
hand on each unit's representative flop, the other flops of its class playing them through
the suit permutation; O's reach below a mixed flop is denser, so an iteration costs more).
``trunk=0`` is the exact CFR-BR of ``cfrbr`` (O a best response everywhere), for testing
with ``sample=False`` (every unit each iteration, weighted): it needs every unit's values
before the first round's response. O's trunk strategy stays suit-symmetric (it starts
uniform and every update is), which the walk's suit classes rely on. The result is A's
current strategy (the paper's) or its average, a strategy of the abstraction.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.abstraction import BUCKETED
from cfrlab.engine import build_tree_for, load_abstraction, row_offsets
from cfrlab.engine.kernels import regret_match
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.games.units import to_unit, unit_of
from cfrlab.realgame import _kernels as K
from cfrlab.realgame import _trunk_kernels as T
from cfrlab.realgame._lanes_kernels import last_round_table
from cfrlab.realgame.br import StrategyFile, real_best_response
from cfrlab.realgame.cfrbr import RULES, CFRBRResult, _step, cfrbr_game, load_tables
from cfrlab.realgame.hands import first_round_units, next_board_orbits
from cfrlab.realgame.opponents import StrategyPolicy
from cfrlab.realgame.walk import Walker
from cfrlab.solvers.driver import Checkpointer, RunState
from cfrlab.strategy import Strategy

_NONE = np.zeros((0, 2, 0))
_NO_I = np.zeros(0, dtype=np.int64)


class _Pass1(Walker):
    """The real-game walk against A's profile (both seats' best-response values at once) that
    records, at every board of a round before the last, O's choice per decision and hand."""

    def __init__(self, game, tree, opponent) -> None:
        super().__init__(game, tree, opponent)
        self.best: dict[tuple, np.ndarray] = {}
        self.tol = 1e-12 * float(np.abs(tree.spent).max()) * self.H  # round_pass's tie

    def set_policy(self, policy: np.ndarray) -> None:
        self.opp.policy = self.policy = np.ascontiguousarray(policy, dtype=np.float64)
        self.table = K.OpponentTable(self.policy, self.row_offset)
        self.last_table = last_round_table(self.policy, self.row_offset, self.rounds[-1].dec)
        self._root_reach = self._columns = None
        self.best.clear()

    def _pass(self, r, full, board, in_reach, out_vals, scale, chance_reach, chance_vals):
        if not full or r == self.R - 1:
            super()._pass(r, full, board, in_reach, out_vals, scale, chance_reach, chance_vals)
            return
        board = np.asarray(board, dtype=np.int64)
        valid = self.deck.valid(board)
        states = np.ascontiguousarray(self.opp.states(r, board, self.deck, valid), dtype=np.int64)
        best = np.zeros((len(self.rounds[r].kind), self.H), dtype=np.int8)
        flow = K.Flow(in_reach, out_vals, float(scale), chance_reach, chance_vals)
        K.round_pass(True, self.segments[r], K.BoardHands(valid, self.cards, self.deck.num_hole,
                                                          self.deck.size, states),
                     self.table, flow, (_NO_I, _NO_I), self.tol, best)
        self.best[tuple(board.tolist())] = best


def estimate_bytes(game: GameDef, walker: Walker, num_rows: int, trunk_rows: int) -> int:
    """Memory of a run: A's tables (regrets, average, prediction, the iteration's two, the
    current policy and the walk's copy of the last round's), O's trunk tables, O's choices
    recorded below one flop (an int8 per node and hand of the flop and of every turn) and the
    walks' buffers (four per round pass, its longest segment by all hands)."""
    H = walker.H
    sizes = [len(seg.kind) for seg in walker.rounds]
    longest = max(int(np.diff(seg.seg_off).max()) for seg in walker.rounds)
    rec = sizes[1] if game.num_rounds > 2 else 0
    boards, used = 1, sum(game.num_board_cards[:2])
    for r in range(2, game.num_rounds - 1):
        boards *= comb(walker.deck.size - used, game.num_board_cards[r])
        used += game.num_board_cards[r]
        rec += boards * sizes[r]
    return 8 * 3 * (8 * num_rows + 4 * trunk_rows) + rec * H + 8 * 4 * 2 * H * longest * game.num_rounds


def _memory() -> int:
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError):
        return 1 << 34


class TrunkSolver:
    """A (``abstraction``'s rows, rule ``algorithm``) against the hybrid opponent, both
    positions at once; ``iterate()`` one sampled iteration (``sample=False``: every unit)."""

    def __init__(self, game: GameDef | str | Path, abstraction, algorithm: str = "cfr+",
                 trunk: int = 1, sample: bool = True, seed: int = 0,
                 max_memory: int | None = None) -> None:
        g = self.game = cfrbr_game(game, algorithm)
        if g.num_rounds < 2:
            raise CfrlabError("CFR-BR with a trunk needs a game of two or more rounds")
        if not isinstance(trunk, int) or trunk not in (0, 1, 2):
            raise CfrlabError(f"the trunk is 1 (the first round) or 2 (and the flop; 0: no trunk, "
                              f"for testing), not {trunk!r}")
        if trunk >= g.num_rounds:
            raise CfrlabError(f"a trunk of {trunk} rounds leaves no subgame in a game of "
                              f"{g.num_rounds} rounds")
        if trunk == 0 and sample:
            raise CfrlabError("trunk 0 (a best response everywhere) needs every first board: sample off")
        if isinstance(abstraction, (str, Path)):
            abstraction = load_abstraction(abstraction, g)
        if getattr(abstraction, "kind", None) != BUCKETED:
            raise CfrlabError("CFR-BR with a trunk needs a bucketed abstraction (cfrlab abstract build)")
        if abstraction.game.to_text() != g.to_text():
            raise CfrlabError("the abstraction was made for another game")
        self.abstraction, self.algorithm, self.rule = abstraction, algorithm, RULES[algorithm]
        self.trunk, self.sample, self.seed = trunk, bool(sample), int(seed)
        self.tree = tree = build_tree_for(g)
        self.row_offset = row_offsets(tree, abstraction)
        self.num_rows = int(self.row_offset[-1])
        dec_round = tree.round[tree.decision_node].astype(np.int64)
        sizes = np.diff(self.row_offset)
        self.legal = np.asarray(tree.legal, dtype=bool)[np.repeat(np.arange(tree.num_decisions), sizes)]
        w = self.walker = _Pass1(g, tree, StrategyPolicy(abstraction, np.zeros((self.num_rows, 3)),
                                                         self.row_offset))
        H = w.H
        self.units = first_round_units(g, w.deck, True)
        # O's real rows, a row per hand: the first round's, then (trunk 2) each unit's flop's
        # (its representative's: O's strategy is suit-symmetric as A's is)
        pre = np.flatnonzero(dec_round == 0) if trunk else np.zeros(0, np.int64)
        self._oflop = np.flatnonzero(dec_round == 1) if trunk == 2 else np.zeros(0, np.int64)
        self.orow_offset = np.zeros(tree.num_decisions + 1, dtype=np.int64)
        self.orow_offset[pre] = np.arange(len(pre)) * H
        block = len(self._oflop) * H
        rows = [np.repeat(pre, H)] + [np.repeat(self._oflop, H)] * (len(self.units) if block else 0)
        self.olegal = np.asarray(tree.legal, dtype=bool)[np.concatenate(rows)]
        need = estimate_bytes(g, w, self.num_rows, len(self.olegal))
        have = _memory() if max_memory is None else int(max_memory)
        if need > have:
            raise CfrlabError(f"CFR-BR with trunk {trunk} needs about {need / 2**30:.3g} GiB "
                              f"({self.num_rows:,} abstract rows), {have / 2**30:.3g} GiB available")
        self._sdbuf = [T.showdown_buffers(seg, H, w.deck.size) for seg in w.rounds]
        wts = np.array([u.weight for u in self.units], dtype=np.float64)
        self.unit_p = wts / wts.sum()
        self.regret, self.avg = np.zeros((self.num_rows, 3)), np.zeros((self.num_rows, 3))
        self.pred = np.zeros((self.num_rows if self.rule.predictive else 0, 3))
        n_o = len(self.olegal)
        self.oregret, self.oavg = np.zeros((n_o, 3)), np.zeros((n_o, 3))
        self.opred = np.zeros((n_o if self.rule.predictive else 0, 3))
        self.iterations = 0
        self.history: list[tuple[int, float, float]] = []  # trunk 0: (t, BR as 0, as 1), chips
        self.sampled: list[int] = []  # the unit each iteration walked

    # -- policies ------------------------------------------------------------------------------
    def current_policy(self) -> np.ndarray:
        return regret_match(self.regret + self.pred if self.rule.predictive else self.regret, self.legal)

    def average_policy(self) -> np.ndarray:
        tot = self.avg.sum(axis=1, keepdims=True)
        uni = self.legal / self.legal.sum(axis=1, keepdims=True)
        return np.where(tot > 0, self.avg / np.where(tot > 0, tot, 1.0), uni)

    def policy(self, which: str) -> np.ndarray:
        if which not in ("current", "average"):
            raise CfrlabError(f"policy is current or average, not {which!r}")
        return self.current_policy() if which == "current" else self.average_policy()

    def _opponent_trunk(self) -> np.ndarray:
        o = regret_match(self.oregret + self.opred if self.rule.predictive else self.oregret, self.olegal)
        return np.ascontiguousarray(o) if len(o) else np.zeros((1, 3))

    # -- one round on one board ---------------------------------------------------------------
    def _hands(self, r: int, board) -> T.DualHands:
        w = self.walker
        board = np.asarray(board, dtype=np.int64)
        valid = w.deck.valid(board)
        states = np.ascontiguousarray(w.opp.states(r, board, w.deck, valid), dtype=np.int64)
        order = grp = _NO_I
        if r == w.R - 1:
            order, grp = w._showdown_order(board, valid)
        return T.DualHands(valid, w.cards, w.deck.num_hole, w.deck.size, states,
                           np.arange(w.H, dtype=np.int64), order, grp, np.flatnonzero(valid))

    def _run(self, r, hands, flows, steps, acc) -> None:
        w = self.walker
        T.dual_pass(w.segments[r], hands, w.table, self._tabO, flows[0], flows[1], steps, acc,
                    self._sdbuf[r])

    def _acc(self, weight: float, best: np.ndarray, weight_o: float = 0.0) -> T.Acc:
        return T.Acc(self._inst, self._inc, float(weight), self._oinst, self._oinc,
                     float(weight_o), best)

    # -- below the trunk: pass 2 ----------------------------------------------------------------
    def _level2(self, r: int, board: tuple, in1, in2, out2, scale: float, weight: float) -> None:
        """Round r on ``board`` and below, pass 2: A's values (times ``scale``) into ``out2``,
        its regrets (times ``weight``) into the iteration's tables."""
        w = self.walker
        hands = self._hands(r, board)
        seg = w.rounds[r]
        if r == w.R - 1:  # O's choices here from A's reach entering the board
            best = np.zeros((len(seg.kind), w.H), dtype=np.int8)
            flows = (K.Flow(in1, np.zeros_like(in1), 1.0, _NONE, _NONE),
                     K.Flow(in2, out2, float(scale), _NONE, _NONE))
            self._run(r, hands, flows, T.Steps(True, True, True, True, w.tol), self._acc(weight, best))
            return
        best = w.best[tuple(int(c) for c in board)]
        C = seg.num_chance
        c1, c2, cv2 = (np.zeros((C, 2, w.H)) for _ in range(3))
        self._run(r, hands, (K.Flow(in1, _NONE, 1.0, c1, _NONE), K.Flow(in2, _NONE, 1.0, c2, _NONE)),
                  T.Steps(True, False, True, False, w.tol), self._acc(weight, best))
        self._below2(r, board, c1, c2, cv2, weight)
        self._run(r, hands, (K.Flow(in1, _NONE, 1.0, _NONE, _NONE), K.Flow(in2, out2, float(scale), _NONE, cv2)),
                  T.Steps(True, False, True, True, w.tol), self._acc(weight, best))

    def _below2(self, r: int, board: tuple, c1, c2, cv2, weight: float) -> None:
        """``walk.Walker._below`` for pass 2: the same boards (suit classes), A's regrets
        weighted by each class's size (its abstract states are suit-invariant)."""
        w = self.walker
        sc = 1.0 / w.outcomes[r + 1]
        b = w.board_before
        rounds = [tuple(board[b[i]:b[i + 1]]) for i in range(1, r + 1)]
        for new, perms in next_board_orbits(w.deck, rounds, w.game.num_board_cards[r + 1],
                                             w.opp.suit_symmetric):
            part = np.zeros_like(cv2)
            self._level2(r + 1, tuple(board) + new, c1, c2, part, sc, weight * sc * len(perms))
            cv2 += part
            for sigma in perms[1:]:
                K.permute_add(part, w._hand_perm(sigma), 1.0, cv2)

    def _unit(self, u, c1, c2, scale: float, cv1, cv2) -> None:
        """Both passes below the first round for unit ``u``: O's values (times ``scale``) into
        cv1, A's into cv2, summed over the unit's boards."""
        w = self.walker
        p1, p2 = np.zeros_like(c1), np.zeros_like(c2)
        w.best.clear()
        if self.trunk == 2:
            self._flop_trunk(u, (c1, c2), (p1, p2), scale * u.weight)
        else:
            w._level(1, u.board, c1, p1, 1.0)
            self._level2(1, u.board, c1, c2, p2, 1.0, scale * u.weight)
        for sigma in u.perms:
            perm = w._hand_perm(sigma)
            K.permute_add(p1, perm, scale, cv1)
            K.permute_add(p2, perm, scale, cv2)

    def _flop_trunk(self, u, reach, out, weight: float) -> None:
        """Trunk 2: the flop of unit ``u`` (its representative board) with O mixing by its
        rows of this unit: both reaches forward, both passes over the turns below, then O's
        and A's values backward with their regrets (times ``weight``)."""
        w = self.walker
        seg = w.rounds[1]
        hands = self._hands(1, u.board)
        off = self.orow_offset.copy()
        first = len(self.olegal) - len(self.units) * len(self._oflop) * w.H
        off[self._oflop] = first + (u.index * len(self._oflop) + np.arange(len(self._oflop))) * w.H
        tab = K.OpponentTable(self._tabO.policy, off)
        f1, f2, fv1, fv2 = (np.zeros((seg.num_chance, 2, w.H)) for _ in range(4))
        best = np.zeros((len(seg.kind), w.H), dtype=np.int8)
        acc = self._acc(weight, best, weight)
        steps = T.Steps(False, False, True, False, w.tol)
        T.dual_pass(w.segments[1], hands, w.table, tab, K.Flow(reach[0], _NONE, 1.0, f1, _NONE),
                    K.Flow(reach[1], _NONE, 1.0, f2, _NONE), steps, acc, self._sdbuf[1])
        w._below(1, u.board, f1, fv1)
        self._below2(1, u.board, f1, f2, fv2, weight)
        steps = T.Steps(False, True, True, True, w.tol)
        T.dual_pass(w.segments[1], hands, w.table, tab, K.Flow(reach[0], out[0], 1.0, _NONE, fv1),
                    K.Flow(reach[1], out[1], 1.0, _NONE, fv2), steps, acc, self._sdbuf[1])

    # -- one iteration ---------------------------------------------------------------------------
    def _units(self, t: int) -> list[tuple[Any, float]]:
        """(unit, the scale of its values at the trunk's leaves) walked at iteration t."""
        if not self.sample:
            return [(u, 1.0 / self.walker.outcomes[1]) for u in self.units]
        rng = np.random.default_rng([self.seed, t])  # per iteration: a resumed run draws the same
        i = int(rng.choice(len(self.units), p=self.unit_p))
        self.sampled.append(i)
        return [(self.units[i], 1.0 / self.units[i].weight)]

    def iterate(self, n: int = 1) -> None:
        for _ in range(n):
            self._iteration(self.iterations + 1)

    def _iteration(self, t: int) -> None:
        w = self.walker
        w.set_policy(self.current_policy())
        self._tabO = K.OpponentTable(self._opponent_trunk(), self.orow_offset)
        self._inst, self._inc = np.zeros_like(self.regret), np.zeros_like(self.avg)
        self._oinst, self._oinc = np.zeros_like(self.oregret), np.zeros_like(self.oavg)
        seg0 = w.rounds[0]
        C, H = seg0.num_chance, w.H
        ones = np.ones((1, 2, H))
        hands = self._hands(0, ())
        c1, c2, cv1, cv2 = (np.zeros((C, 2, H)) for _ in range(4))
        root1, root2 = np.zeros((1, 2, H)), np.zeros((1, 2, H))
        best0 = np.zeros((len(seg0.kind), H), dtype=np.int8)
        br = self.trunk == 0
        self._run(0, hands, (K.Flow(ones, _NONE, 1.0, c1, _NONE), K.Flow(ones, _NONE, 1.0, c2 if not br else _NONE, _NONE)),
                  T.Steps(False, False, not br, False, w.tol), self._acc(1.0, best0))
        units = self._units(t)
        if br:  # O's first-round response needs every unit's values first
            for u, scale in units:
                p1 = np.zeros_like(c1)
                w.best.clear()
                w._level(1, u.board, c1, p1, 1.0)
                for sigma in u.perms:
                    K.permute_add(p1, w._hand_perm(sigma), scale, cv1)
            self._run(0, hands, (K.Flow(ones, root1, 1.0, _NONE, cv1), K.Flow(ones, _NONE, 1.0, c2, _NONE)),
                      T.Steps(True, True, True, False, w.tol), self._acc(1.0, best0))
            v = root1[0] / w.pairs
            self.history.append((t, float(v[0].sum()), float(v[1].sum())))
            cv1 = np.zeros_like(cv1)
        for u, scale in units:
            self._unit(u, c1, c2, scale, cv1, cv2)
        self._run(0, hands, (K.Flow(ones, root1, 1.0, _NONE, cv1), K.Flow(ones, root2, 1.0, _NONE, cv2)),
                  T.Steps(br, not br, True, True, w.tol), self._acc(1.0, best0, 1.0))
        rows = np.arange(self.num_rows)
        _step(self.rule, (self.regret, self.avg, self.pred), rows, self._inst, self._inc, t)
        if len(self.oregret):
            _step(self.rule, (self.oregret, self.oavg, self.opred), np.arange(len(self.oregret)),
                  self._oinst, self._oinc, t)
        self.iterations = t

    # -- checkpoints -------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"regret": self.regret, "avg": self.avg, "pred": self.pred, "oregret": self.oregret,
                "oavg": self.oavg, "opred": self.opred, "iterations": self.iterations,
                "sampled": np.asarray(self.sampled, dtype=np.int64),
                "history": [list(h) for h in self.history]}

    def load_state_dict(self, d: dict[str, Any]) -> None:
        load_tables(self, d, ("regret", "avg", "pred", "oregret", "oavg", "opred"))
        self.iterations = int(d["iterations"])
        self.sampled = [int(i) for i in np.asarray(d.get("sampled", []), dtype=np.int64)]
        self.history = [(int(i), float(a), float(b)) for i, a, b in d.get("history", [])]

    def strategy(self, which: str = "current", seconds: float = 0.0,
                 exploitability: float | None = None) -> Strategy:
        extra = {"cfr_br": {"opponent": "br", "trunk": self.trunk, "sample": self.sample,
                            "seed": self.seed, "policy": which,
                            "abstraction": str(self.abstraction.hash)}}
        return Strategy.from_policy(self.game, self.policy(which), tree=self.tree,
                                    model=self.abstraction, algorithm="cfr-br-trunk",
                                    params={"algorithm": self.algorithm, "trunk": self.trunk},
                                    iterations=self.iterations, seconds=seconds,
                                    exploitability=exploitability, extra=extra)


def cfrbr_trunk(game: GameDef | str | Path, abstraction, *, iterations: int = 1000,
                trunk: int = 1, algorithm: str = "cfr+", policy: str = "current",
                seed: int = 0, sample: bool = True, checkpoint: str | Path | None = None,
                checkpoint_every: float = 60.0, resume: bool = False,
                progress: Callable[[int, int, float | None], None] | None = None,
                evaluate: bool = True, workers: int = 1,
                max_memory: int | None = None) -> CFRBRResult:
    """CFR-BR with a trunk (module docstring) for ``iterations`` sampled iterations (seeded by
    ``seed``; ``sample=False``: every first board each iteration), the abstract player's rule
    ``algorithm`` (cfr+ as the paper; ``cfrbr.RULES``), returning its ``policy`` (``"current"``,
    the paper's, or ``"average"``) as a strategy of the abstraction, with its exact real-game
    exploitability (``real_best_response`` on ``workers`` processes; ``evaluate=False``: not
    measured, NaN).
    ``checkpoint``: a file written every ``checkpoint_every`` seconds and at the end;
    ``resume=True`` continues from it (bit for bit the run that did not stop).
    ``progress(iteration, total, None)``. ``max_memory``: bytes the run may take (default:
    the machine's available memory); a run that needs more is refused before any work."""
    from_br = None
    if not isinstance(iterations, int) or iterations < 1:
        raise CfrlabError("iterations must be a positive integer")
    if policy not in ("current", "average"):
        raise CfrlabError(f"policy is current or average, not {policy!r}")
    solver = TrunkSolver(game, abstraction, algorithm, trunk, sample, seed, max_memory)
    g = solver.game
    ck = None
    if checkpoint is not None:
        ck = Checkpointer(checkpoint, {"game": g.to_text(), "game_name": g.name,
                                       "model_hash": str(solver.abstraction.hash),
                                       "algorithm": "cfr-br-trunk",
                                       "params": {"rule": algorithm, "trunk": trunk, "sample": sample},
                                       "seed": int(seed)})
        if ck.exists():
            if not resume:
                raise CfrlabError(f"{checkpoint} exists; resume to continue it, or remove it")
            from_br = ck.load(solver).resumed_from
    run = RunState()
    start = saved = time.perf_counter()
    while solver.iterations < iterations:
        solver.iterate(1)
        now = time.perf_counter()
        if progress is not None:
            progress(solver.iterations, iterations, None)
        if ck is not None and (now - saved >= checkpoint_every or solver.iterations == iterations):
            run.solver_seconds = now - start
            ck.save(solver, run)
            saved = now
    seconds = time.perf_counter() - start
    b0 = b1 = float("nan")
    if evaluate:
        b0, b1 = real_br_values(solver, policy, workers)
    expl = 0.5 * (b0 + b1)
    hist = [(i, to_unit(g, 0.5 * (a + b))) for i, a, b in solver.history]
    return CFRBRResult(solver.strategy(policy, seconds, None if not evaluate else expl),
                       (to_unit(g, b0), to_unit(g, b1)), to_unit(g, expl), unit_of(g),
                       solver.iterations, seconds, hist, from_br)


def real_br_values(solver: TrunkSolver, which: str = "current", workers: int = 1) -> tuple[float, float]:
    """(u0(BR, s1), u1(s0, BR)) in chips: the exact real-game best responses to the strategy
    (``real_best_response``, its units on ``workers`` processes, which load the strategy and
    its abstraction from files written to a temporary folder)."""
    strategy = solver.strategy(which)
    if workers <= 1:
        b0, b1 = real_best_response(strategy).br
        return float(b0), float(b1)
    with tempfile.TemporaryDirectory(prefix="cfrbr-trunk-") as d:
        path, abst = Path(d) / "strategy.npz", Path(d) / "abstraction.npz"
        solver.abstraction.save(abst)
        strategy.save(path)
        b0, b1 = real_best_response(StrategyFile(str(path), str(abst)), solver.game, workers=workers).br
    return float(b0), float(b1)
