"""Solving a spot: the CFR family on the spot's tree with its chance model (``SpotModel``).

``solve_spot(spot, algorithm="dcfr", target_pct=0.3)`` runs full-width iterations and
measures the exact exploitability of the average strategy at ``check_every`` iterations and
twice that, then where its curve is expected to reach the target (``solvers.driver.Aimed``:
each measurement costs about two iterations), until it is at most ``target_pct`` percent of
the pot, or the iteration or time budget is spent; without a target, every ``check_every``.
``dcfr`` (alpha 1.5, beta 0, gamma 2), ``dcfr+`` (alpha 1.5, beta 0.5, gamma 3), ``cfr+``,
``lcfr`` (alpha 1, beta 1, gamma 1) and ``pcfr+`` (predictive, float32 or float64) run on the
spot's own walk (``cfrlab.spot.fast``: O(n) terminals, suit isomorphism, float32 or 16-bit
storage), flop spots included; ``cfr`` on the engine's solver (``cfrlab.solvers``) over
``SpotModel``'s dense tables (turn and river spots).

**Units.** Values are chips of the spot. The engine's payoffs are zero-sum winnings counted
from the spot's start: the pot's chips count as already put in, half by each player, so a fold
at the root gives the other player +pot/2. Its expectations are over the spot's chance (the
two ranges with card removal: ``SpotModel``'s P sums to 1), so a value is "chips per hand
dealt from the ranges". The engine's exploitability is (u0(BR, s1) + u1(s0, BR)) / 2 in those
chips: the two best responses' winnings averaged over the two players; this is the (BR0 + BR1)
/ 2 of PioSOLVER, TexasSolver and Desktop Postflop, whose best-response values are zero-sum in
the same way (0 at an equilibrium). They print it in percent of the starting pot:
``exploitability_pct = 100 * exploitability / pot``. A player's **EV** is printed as those
solvers print it: the chips it expects to collect from the pot at the end minus what it puts
in from the spot's start on, = its zero-sum winnings + pot/2 (the two EVs sum to the pot).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cfrlab.engine import best_response_values, game_value
from cfrlab.engine.core import get_engine
from cfrlab.engine.rules import RULES
from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader
from cfrlab.solvers.cfr import FLOAT32_MIN_STATES, PRESETS
from cfrlab.solvers.driver import Aimed, Checkpointer, StopRule, run_solve
from cfrlab.solvers.registry import make_solver
from cfrlab.spot.config import Spot
from cfrlab.spot.fast import (
    FAST_ALGORITHMS,
    STORAGES,
    FastSolver,
    SpotGame,
    engine_policy,
    storage_bytes,
    walk_bytes,
)
from cfrlab.spot.lock import Frame, LockedSolver, lock_walk, resolve_locks
from cfrlab.spot.model import SpotModel
from cfrlab.spot.report import action_token, check_held
from cfrlab.spot.tree import spot_tree
from cfrlab.tree.betting_tree import PublicTree

ENGINE_ALGORITHMS = tuple(a for a in PRESETS if PRESETS[a].sampling == "full" and a not in FAST_ALGORITHMS)
ALGORITHMS = tuple(FAST_ALGORITHMS) + ENGINE_ALGORITHMS
FINE_TARGET = 0.01  # % of the pot: below it the walk measures in float64 (float32's resolution)
ENGINE_POLICY_ROWS = 4_000_000  # the walk's strategy is written in the engine's layout up to this
CHECK_EVERY = 10  # iterations between exact exploitability measurements (each costs ~2 walks)


def pot_percent(chips: float, pot: float) -> float:
    """Chips of the spot in percent of its starting pot (the solvers' exploitability unit)."""
    return 100.0 * float(chips) / float(pot)


def _own_steps(tree: PublicTree, node: int, p: int) -> list[tuple[int, int]]:
    """(decision, child) on the path from the root to ``node`` at player p's own decisions,
    root first: the actions p took to get there."""
    path, n = [], int(node)
    while tree.parent[n] >= 0:
        path.append(n)
        n = int(tree.parent[n])
    steps = [(int(tree.parent[c]), c) for c in reversed(path)]
    return [(par, c) for par, c in steps if tree.decision[par] >= 0 and tree.player[par] == p]


@dataclass(eq=False)
class SpotSolution:
    """A solved spot. ``policy`` is the average strategy (docs/ENGINE.md layout over ``tree``
    and ``model``); ``exploitability`` in chips, ``exploitability_pct`` in percent of the pot;
    ``values`` each tree player's zero-sum winnings under ``policy``; ``history`` the
    (iterations, seconds, exploitability %) of every measurement. Solved on the spot's walk,
    ``walk`` is its ``FastSolver`` (its tables) and ``policy`` is None when the engine's layout
    would be too big (a flop spot's every board: read ``strategy(node, cards)``);
    ``cpu_seconds`` the process time the solve took."""

    spot: Spot
    tree: PublicTree
    model: SpotModel
    algorithm: str
    policy: np.ndarray
    iterations: int
    seconds: float
    exploitability: float
    best_responses: tuple[float, float]
    values: tuple[float, float]
    history: list = field(default_factory=list)
    walk: FastSolver | None = None
    cpu_seconds: float = 0.0
    locks: tuple = ()  # cfrlab.spot.lock.Lock: nodes whose strategy was fixed
    save_depth: str = "river"  # the last street whose strategy is held (a file may keep fewer)

    @property
    def exploitability_pct(self) -> float:
        return pot_percent(self.exploitability, self.spot.pot)

    def ev(self, who: str = "oop") -> float:
        """The EV of the OOP or IP player as the solvers print it (module docstring)."""
        if who not in ("oop", "ip"):
            raise CfrlabError(f"a spot's players are 'oop' and 'ip', got {who!r}")
        p = self.spot.oop_position if who == "oop" else self.spot.ip_position
        return self.values[p] + self.spot.pot / 2

    def strategy(self, node: int, cards: tuple[int, ...] = ()) -> np.ndarray:
        """float64[1326, A]: the average strategy at decision ``node`` per combo
        (``cfrlab.cards.ranges`` order; A the tree's action columns), on the spot's board plus
        ``cards`` (the turn and river cards the node's street needs)."""
        tree = self.tree
        d = int(tree.decision[node])
        if d < 0:
            raise CfrlabError(f"node {node} is not a decision")
        cols = np.flatnonzero(tree.legal[d])
        out = np.zeros((1326, tree.num_actions))
        check_held(self, node)
        if self.walk is not None:
            out[:, cols] = self.walk.strategy(node, tuple(int(c) for c in cards))
            return out
        r = int(tree.round[node])
        extras = self.model.block_extras(r)
        if tuple(cards) not in extras:
            raise CfrlabError(f"node {node} needs the cards dealt after the spot's board, got {tuple(cards)}")
        start = self._rows(node).start + extras.index(tuple(cards)) * self.model.n
        out[:, cols] = 1.0 / len(cols)
        out[self.model.combos] = self.policy[start:start + self.model.n]
        return out

    def frequencies(self, node: int = 0, notation: str = "path") -> list[tuple[str, float]]:
        """[(action, frequency)] at a decision node: each action's probability over the acting
        player's range there (each combo weighted by its reach: its probability in the spot's
        chance, card removal included, times the player's own actions to the node). Actions
        in the notation of paths, ``show`` and locks (``f``, ``x``, ``c``, ``b10``: bet or
        raise by 10 chips on the street), or ``notation="acpc"`` (``c``, ``r15``: the
        raise-to total of the spot's game, pot included)."""
        if notation not in ("path", "acpc"):
            raise CfrlabError(f"the action notation is 'path' or 'acpc', not {notation!r}")
        out = self._frequencies(node)
        return list(zip(self._action_names(node, notation), out))

    def _action_names(self, node: int, notation: str = "path") -> list[str]:
        tree = self.tree
        cols = np.flatnonzero(tree.legal[int(tree.decision[node])])
        if notation == "acpc":
            return [tree.action_text(node, int(c)) for c in cols]
        return [action_token(tree, node, int(c)) for c in cols]

    def _frequencies(self, node: int) -> list[float]:
        tree = self.tree
        d = int(tree.decision[node])
        if d < 0:
            raise CfrlabError(f"node {node} is not a decision")
        if self.policy is None:
            if tree.round[node] != self.spot.street:
                raise CfrlabError("on a flop spot the frequencies are read on the flop; below it, "
                                  "read strategy(node, cards) on a board")
            return self._first_street_frequencies(node)
        rows = self._rows(node)
        reach = self._own_reach(node)
        mass = reach.sum()
        freq = reach @ self.policy[rows] / mass if mass > 0 else self.policy[rows].mean(axis=0)
        cols = np.flatnonzero(tree.legal[d])
        return [float(freq[c]) for c in cols]

    def _first_street_frequencies(self, node: int) -> list[float]:
        """``frequencies`` from the walk's tables on the spot's street (one board)."""
        tree, g = self.tree, self.walk.game
        p = int(tree.player[node])
        idx = g.hands[p]
        reach = self.model.reach_weights(p)  # live-combo order
        weight = np.zeros(1326)
        weight[self.model.combos] = reach
        for par, child in _own_steps(tree, node, p):
            weight *= self.strategy(par)[:, int(tree.action[child])]
        pol = self.strategy(node)
        w = weight[idx]
        freq = w @ pol[idx] / w.sum() if w.sum() > 0 else pol[idx].mean(axis=0)
        cols = np.flatnonzero(tree.legal[int(tree.decision[node])])
        return [float(freq[c]) for c in cols]

    def _rows(self, node: int) -> slice:
        e = get_engine(self.tree, self.model)
        d = int(self.tree.decision[node])
        start = int(e.row_offset[d])
        return slice(start, start + int(self.model.num_states[int(self.tree.round[node])]))

    def _own_reach(self, node: int) -> np.ndarray:
        """The acting player's combo weights at ``node``: chance reach times its own actions."""
        tree, model = self.tree, self.model
        p = int(tree.player[node])
        r = int(tree.round[node])
        reach = model.reach_weights(p, r)
        for par, child in _own_steps(tree, node, p):
            pr = int(tree.round[par])
            col = self.policy[self._rows(par), int(tree.action[child])]
            reach = reach * np.tile(col, model.num_states[r] // model.num_states[pr])
        return reach

    def summary(self) -> dict:
        """The figures ``cfrlab spot solve`` prints (JSON-able)."""
        return {
            "algorithm": self.algorithm,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "exploitability_chips": self.exploitability,
            "exploitability_pct": self.exploitability_pct,
            "ev_oop": self.ev("oop"),
            "ev_ip": self.ev("ip"),
            "root": [{"action": a, "acpc": t, "frequency": f} for (a, f), t in
                     zip(self.frequencies(0), self._action_names(0, "acpc"))],
        }


def checkpoint_identity(tree: PublicTree, model: SpotModel, algorithm: str, storage: str,
                        isomorphism: bool, locks=()) -> dict:
    """What a spot solve's checkpoint must match to be resumed: the spot's game, board and
    range weights (``SpotModel.hash``), its betting tree (the sizes), the algorithm, the
    storage, the symmetry and the locks."""
    h = hashlib.sha256(b"cfrlab-spot-tree-v1\n")
    for a in (tree.kind, tree.player, tree.first_child, tree.num_children, tree.child, tree.raise_to):
        h.update(np.ascontiguousarray(a).tobytes())
    return {"game": model.game.to_text(), "game_name": model.spot.summary(), "model_hash": model.hash,
            "bets": h.hexdigest()[:16], "algorithm": algorithm,
            "params": {"storage": storage, "isomorphism": bool(isomorphism),
                       "locks": [lk.as_dict() for lk in locks]}, "seed": None}


SAVED_SPOT = "spot-solution"  # the kind of a saved spot (cfrlab.spot.store), which may carry the solver's state


def _is_saved_spot(path) -> bool:
    """Whether ``path`` is a saved spot (one saved in full carries a checkpoint to resume)."""
    try:
        with NpzReader(path) as z:
            return z.header.get("kind") == SAVED_SPOT
    except CfrlabError:
        return False  # not a readable .npz: the checkpoint reader says why


def solve_memory(spot: Spot, tree: PublicTree | None = None, model: SpotModel | None = None,
                 algorithm: str = "dcfr", storage: str = "float32", isomorphism: bool = True,
                 game: SpotGame | None = None) -> int:
    """Bytes a ``solve_spot`` will need at its peak, the interpreter and numba aside: the
    engine's chance tables (``SpotModel.table_bytes``; their float32 copy from 256 combos on;
    twice while the engine packs them), the solver's regret, average and current-policy
    tables and the final average policy (float64, a column per action), and the reach and
    value arenas. Builds the betting tree and the model (both small), not the tables.
    On the spot's walk (``dcfr``, ``dcfr+``, ``cfr+``): its regret and average tables in
    ``storage``, its work arrays and its rank tables (``cfrlab.spot.fast``)."""
    tree = spot_tree(spot) if tree is None else tree
    model = SpotModel(spot) if model is None else model
    if str(algorithm).lower() in FAST_ALGORITHMS:
        game = SpotGame(spot, tree, isomorphism) if game is None else game
        ranks = sum(a.nbytes for a in game.rank + game.order) + sum(v.nbytes for lev in game.levels for v in lev.valid)
        tables = 3 if RULES[str(algorithm).lower()].predictive else 2
        return int(storage_bytes(game, storage, tables) + walk_bytes(game) + ranks + model.own_bytes())
    ns = np.asarray(model.num_states, dtype=np.int64)
    states = ns[tree.round.astype(np.int64)]
    rows = int(states[tree.decision_node].sum())
    ops = model.table_bytes()
    f32 = ops // 2 if model.n >= FLOAT32_MIN_STATES else 0
    solver = 4 * tree.num_actions * 8 * rows
    arenas = 2 * 2 * 8 * int(states.sum())
    return int(model.own_bytes() + max(2 * ops, ops + f32 + solver + arenas))


def solve_spot(spot: Spot, algorithm: str = "dcfr", target_pct: float | None = 0.3,
               iterations: int | None = 1000, seconds: float | None = None,
               check_every: int = CHECK_EVERY, progress: Callable | None = None,
               tree: PublicTree | None = None, model: SpotModel | None = None,
               storage: str = "float32", isomorphism: bool = True,
               game: SpotGame | None = None, max_bytes: int | None = None,
               locks=(), threads: int | None = None, checkpoint=None,
               checkpoint_every: int | None = None, resume=None) -> SpotSolution:
    """Solve ``spot`` (module docstring): stop at ``target_pct`` percent of the pot (None: no
    target), after ``iterations`` (None: no cap) or once ``seconds`` have passed (checked
    between measurements). ``progress(iterations, seconds, pct)`` is called after each
    measurement. At least one budget or the target must be given. On the spot's walk,
    ``storage`` is "float32", "float64" or "int16" (16 bits a number, a scale per board) and
    ``isomorphism`` solves boards equal up to a suit permutation once. A spot whose
    ``solve_memory`` is above ``max_bytes`` is refused with its estimate. ``locks``
    (``cfrlab.spot.lock.Lock``) fix nodes' strategies (on the engine's tables: turn and river
    spots); the exploitability is then the locked game's. ``threads`` (default: every core)
    walk parts of the boards side by side on the spot's walk (the same result bit for bit).

    The iterations run through the one solve loop (``cfrlab.solvers.driver.run_solve``): with
    ``checkpoint`` (a path) the solver's tables are written there every ``checkpoint_every``
    iterations, at the end and on Ctrl-C or SIGTERM (then ``driver.Interrupted`` is raised);
    ``resume`` (a path) continues the run saved there, bit for bit as if it had not stopped,
    and keeps checkpointing to it unless ``checkpoint`` names another file; it may also be a
    spot saved in full (``save_solution(..., depth="full")``), which is read and never
    overwritten. A checkpoint of
    another spot, algorithm or storage, or a damaged one, is refused in one line."""
    name = str(algorithm).lower()
    if name not in ALGORITHMS:
        raise CfrlabError(f"a spot is solved by a full-width CFR variant ({', '.join(ALGORITHMS)}), "
                          f"not {algorithm!r}")
    if target_pct is not None and not target_pct > 0:
        raise CfrlabError(f"target must be positive (percent of the pot), got {target_pct}")
    if iterations is not None and (isinstance(iterations, bool) or int(iterations) != iterations
                                   or iterations < 1):
        raise CfrlabError(f"iterations must be a positive whole number, got {iterations!r}")
    if seconds is not None and not seconds > 0:
        raise CfrlabError(f"seconds must be positive, got {seconds}")
    if iterations is None and seconds is None and target_pct is None:
        raise CfrlabError("give a target, an iteration count or a time limit")
    if int(check_every) < 1:
        raise CfrlabError(f"check_every must be at least 1, got {check_every}")
    if storage not in STORAGES:
        raise CfrlabError(f"storage is one of {', '.join(STORAGES)}, not {storage!r}")
    if checkpoint_every is not None and (isinstance(checkpoint_every, bool) or int(checkpoint_every) != checkpoint_every
                                         or checkpoint_every < 1):
        raise CfrlabError(f"checkpoint_every must be a positive whole number, got {checkpoint_every!r}")
    if checkpoint_every is not None and checkpoint is None and resume is None:
        raise CfrlabError("checkpoint_every needs a checkpoint file (checkpoint=PATH)")
    if threads is not None and (isinstance(threads, bool) or int(threads) != threads or threads < 1):
        raise CfrlabError(f"threads must be a whole number at least 1, got {threads!r}")
    tree = spot_tree(spot) if tree is None else tree
    model = SpotModel(spot) if model is None else model
    locks = tuple(locks)
    cpu = time.process_time()
    # locks are kept on the spot's walk whenever it runs the algorithm (a flop spot: always);
    # the engine's dense tables (LockedSolver) take the other algorithms on turn and river
    walk_locks = bool(locks) and (spot.street < 2 or name in FAST_ALGORITHMS)
    if walk_locks and name not in FAST_ALGORITHMS:
        raise CfrlabError(f"a locked flop spot is solved on the spot's walk by one of "
                          f"{', '.join(FAST_ALGORITHMS)}, not {name}")
    if locks and not walk_locks and name not in PRESETS:
        raise CfrlabError(f"a locked spot is solved on the engine's tables by one of "
                          f"{', '.join(a for a in ALGORITHMS if a in PRESETS)}, not {name}")
    if name in FAST_ALGORITHMS and (walk_locks or not locks):
        game = SpotGame(spot, tree, isomorphism) if game is None else game
    elif spot.dead or spot.raked:
        raise CfrlabError(f"a spot with dead money or rake is solved on the spot's walk (one of "
                          f"{', '.join(FAST_ALGORITHMS)}), not {name}")
    if max_bytes is not None:
        need = solve_memory(spot, tree, model, name, storage, isomorphism, game)
        if need > max_bytes:
            raise CfrlabError(f"this spot needs about {need / 1e6:,.0f} MB to solve, more than the "
                              f"{max_bytes / 1e6:,.0f} MB allowed")
    fast = name in FAST_ALGORITHMS and (walk_locks or not locks)
    if locks and not fast:
        solver = LockedSolver(tree, model, name, resolve_locks(Frame(spot, tree, model, None), locks))
    elif fast:
        solver = FastSolver(game, name, storage, threads)
        lock_walk(solver, Frame(spot, tree, model, None), locks)
    else:
        if spot.street < 2:
            raise CfrlabError(f"{name} runs on the engine's dense tables, for turn and river spots; "
                              f"solve a flop spot with {', '.join(FAST_ALGORITHMS)}")
        solver = make_solver(tree, model, name)
    chips = solver.exact_exploitability if fast and target_pct is not None \
        and target_pct < FINE_TARGET else solver.exploitability
    start = time.perf_counter()
    run = None
    ckpt = None
    if resume is not None or checkpoint is not None:
        if locks and not fast:
            raise CfrlabError("a locked turn or river spot is solved on the engine's tables, which do not "
                              "checkpoint; solve it without checkpoints, or on the walk (dcfr, dcfr+, cfr+)")
        identity = checkpoint_identity(tree, model, name, storage, isomorphism, locks)
        from_save = resume is not None and _is_saved_spot(resume)
        ckpt = Checkpointer(resume if checkpoint is None else checkpoint, identity)
        if resume is None and ckpt.exists():
            raise CfrlabError(f"{checkpoint} already holds a checkpoint: resume it (resume=PATH) or "
                              f"remove it to start over")
        if resume is not None:
            run = Checkpointer(resume, identity).load(solver, embedded=SAVED_SPOT if from_save else None)
            if iterations is not None and solver.iterations > iterations:
                raise CfrlabError(f"{resume} is at iteration {solver.iterations:,}, past the {iterations:,} asked for")
        if from_save and checkpoint is None:
            ckpt = None  # a save is read, never overwritten by checkpoints

    def on_tick(t) -> None:
        if progress is not None and t.measured_at == t.iterations and t.exploitability is not None:
            progress(t.iterations, time.perf_counter() - start, pot_percent(t.exploitability, spot.pot))

    stop = StopRule(iterations=iterations, seconds=seconds,
                    target=None if target_pct is None else target_pct * spot.pot / 100.0)
    every = int(check_every) if target_pct is None else Aimed(int(check_every), target_pct * spot.pot / 100.0)
    result = run_solve(solver, stop, chips, eval_every=every, checkpoint=ckpt,
                       checkpoint_every=checkpoint_every, run=run, on_tick=on_tick)
    history = [(it, sec, pot_percent(e, spot.pot)) for it, sec, e in result.state.history]
    if fast:
        b0, b1, v0, v1 = solver.exact_values()
        rows = int(np.asarray(model.num_states)[tree.round[tree.decision_node]].sum())
        policy = engine_policy(solver, model) if rows <= ENGINE_POLICY_ROWS else None
        walk = solver
    else:
        policy = solver.average_policy()
        b0, b1 = solver.best_responses(policy) if locks else best_response_values(tree, model, policy)
        v0 = game_value(tree, model, policy)
        v1 = -v0
        walk = None
    return SpotSolution(spot, tree, model, name, policy, solver.iterations, time.perf_counter() - start,
                        0.5 * (b0 - v0 + b1 - v1), (b0, b1), (v0, v1), history, walk,
                        time.process_time() - cpu, locks=locks)
