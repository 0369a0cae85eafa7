"""The solve loop: run a Solver until a stop rule holds, measuring and checkpointing.

``run_solve`` calls ``solver.iterate(n)`` in chunks. A chunk never crosses a measuring point
(``eval_every``: a fixed interval, or a ``Growing`` schedule: 10, 20, ..., 100, 150, 200, ...)
or a multiple of ``checkpoint_every``. Both are functions of the absolute iteration count, so
a run resumed from a checkpoint measures and stops at exactly the iterations an uninterrupted
run would; for a deterministic solver (whose ``iterate(a); iterate(b)`` equals
``iterate(a + b)``) the final policy is then bit-identical. Chunks are otherwise sized to
about ``CHUNK_SECONDS`` so that the progress display, a ``--seconds`` budget and Ctrl-C are
honoured promptly.

A checkpoint is ``solver.state_dict()`` in a ``kind="checkpoint"`` npz: ndarray entries become
arrays (prefixed ``s.``), the rest goes into the JSON header with the run's identity (game
text, model hash, algorithm, params, seed) and its clock and exploitability history.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import NpzReader, one_line, remove_stale_temps, save_npz
from cfrlab.solvers.cfr import PRESETS

CHECKPOINT_KIND = "checkpoint"
CHECKPOINT_FORMAT = 1
CHUNK_SECONDS = 0.2
MAX_HISTORY = 10_000  # exploitability points kept in a checkpoint header

FULL_WIDTH = tuple(name for name, p in PRESETS.items() if p.sampling == "full")
SAMPLING = ("cs", "pcs", "es", "os")
ALGORITHMS = FULL_WIDTH + SAMPLING + ("lp",)
DEFAULT_EVAL_EVERY = {"cfr": 10, "cfr+": 10, "lcfr": 10, "dcfr": 10, "pcfr+": 10,
                      "pcs": 100, "cs": 1000, "es": 1000, "os": 10000}


class Every:
    """Measure at every multiple of ``every`` iterations (``--eval-every N``)."""

    def __init__(self, every: int):
        if int(every) < 1:
            raise CfrlabError("eval_every must be at least 1")
        self.every = int(every)

    def next_after(self, it: int) -> int:
        return (it // self.every + 1) * self.every

    def describe(self) -> str:
        return f"every {self.every:,} iterations"


class Growing:
    """Measure at base, 2 base, ..., 10 base, then in steps of half the current power of ten:
    15 base, 20 base, ..., 100 base, 150 base, ... (18 points per tenfold). The measuring cost
    grows with the logarithm of the iteration count, while a ``--target`` is still caught at
    most 50% of the iterations late once past 10 base (the next point is at most 1.5 times
    the last)."""

    def __init__(self, base: int):
        if int(base) < 1:
            raise CfrlabError("the measuring base must be at least 1")
        self.base = int(base)

    def next_after(self, it: int) -> int:
        if it < self.base:
            return self.base
        d = self.base
        while d * 10 <= it:
            d *= 10
        step = self.base if d == self.base else d // 2
        return (it // step + 1) * step

    def describe(self) -> str:
        b = self.base
        return (f"at {b:,}, {2 * b:,}, ..., {10 * b:,}, {15 * b:,}, {20 * b:,}, ... iterations "
                "(18 points per tenfold; --eval-every N for a fixed interval)")


class Aimed:
    """Measure at ``every``, 2 ``every``, then where the exploitability is expected to reach
    ``target``: the last two measurements fit e = c t^-k, and the next one is 80% of the way
    to the iteration that fit reaches the target at, at least ``every`` and at most half the
    iterations done later (so a target is caught at most 50% late, as with ``Growing``), far
    fewer measurements than a fixed interval when each costs several iterations. ``history``
    is the run's (iteration, seconds, exploitability) list, which ``run_solve`` hands it."""

    def __init__(self, every: int, target: float):
        if int(every) < 1:
            raise CfrlabError("the measuring interval must be at least 1")
        self.every, self.target = int(every), float(target)
        self.history: list = []

    def next_after(self, it: int) -> int:
        pts = [h for h in self.history if h[0] <= it]
        if len(pts) < 2:
            return (it // self.every + 1) * self.every
        (t1, _, e1), (t2, _, e2) = pts[-2], pts[-1]
        gap = self.every
        if t2 > t1 and e1 > e2 > self.target > 0:
            k = math.log(e1 / e2) / math.log(t2 / t1)
            aim = t2 * (e2 / self.target) ** (1.0 / k)
            gap = int(min(max(0.8 * (aim - t2), self.every), max(self.every, t2 // 2)))
        return max(t2 + gap, it + 1)

    def describe(self) -> str:
        return f"at {self.every:,} and {2 * self.every:,} iterations, then aimed at the target"


def schedule_of(eval_every) -> Every | Growing | Aimed | None:
    """``None``, an int (a fixed interval) or a schedule object (``next_after``)."""
    if eval_every is None or eval_every is False:
        return None
    if isinstance(eval_every, (int, np.integer)):
        return Every(int(eval_every))
    return eval_every


def default_schedule(algorithm: str) -> Growing:
    """The measuring schedule of ``cfrlab solve`` without ``--eval-every``."""
    return Growing(DEFAULT_EVAL_EVERY.get(algorithm, 10))


def thin_history(history: list, limit: int = 100) -> list:
    """At most ``limit`` points of an exploitability history, spread evenly on a log scale of
    the iteration count; the first and the last point are always kept."""
    if len(history) <= limit:
        return list(history)
    its = np.array([max(int(h[0]), 1) for h in history], dtype=np.float64)
    grid = np.geomspace(its[0], its[-1], limit)
    idx = np.unique(np.clip(np.searchsorted(its, grid, side="left"), 0, len(history) - 1))
    keep = sorted(set(idx.tolist()) | {0, len(history) - 1})
    return [history[i] for i in keep]


@dataclass
class StopRule:
    """Stop at whichever comes first; ``target`` is in chips and checked when measured."""

    iterations: int | None = None
    seconds: float | None = None
    target: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None and self.target is None:
            raise CfrlabError("say when to stop: iterations=N, seconds=S or target=EXPLOITABILITY")
        if self.iterations is not None and self.iterations < 1:
            raise CfrlabError(f"iterations must be at least 1, got {self.iterations!r}")
        if self.seconds is not None and math.isinf(self.seconds):  # int(rate * inf) overflowed
            raise CfrlabError("seconds must be finite (None: no time limit)")
        if self.seconds is not None and not self.seconds > 0:
            raise CfrlabError(f"seconds must be positive, got {self.seconds!r}")
        if self.target is not None and not self.target > 0:
            raise CfrlabError(f"target must be positive, got {self.target!r}")


@dataclass
class RunState:
    """What a run has done so far (survives a checkpoint)."""

    solver_seconds: float = 0.0   # time inside solver.iterate, compile included
    eval_seconds: float = 0.0     # time measuring exploitability
    first_chunk_seconds: float | None = None  # this process's first iterate(1): numba compile
    history: list[tuple[int, float, float]] = field(default_factory=list)  # (iteration, solver s, expl)
    resumed_from: int | None = None
    run_seconds: float = 0.0      # solver time in this process (not saved)

    @property
    def last(self) -> tuple[int, float, float] | None:
        return self.history[-1] if self.history else None

    def to_json(self) -> dict[str, Any]:
        return {"solver_seconds": self.solver_seconds, "eval_seconds": self.eval_seconds,
                "history": [list(h) for h in self.history[-MAX_HISTORY:]]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RunState:
        return cls(float(d.get("solver_seconds", 0.0)), float(d.get("eval_seconds", 0.0)), None,
                   [(int(i), float(s), float(e)) for i, s, e in d.get("history", [])])


@dataclass
class RunResult:
    iterations: int
    stopped_by: str  # "iterations" | "seconds" | "target"
    state: RunState

    @property
    def exploitability(self) -> float | None:
        last = self.state.last
        return last[2] if last and last[0] == self.iterations else None


@dataclass
class Tick:
    """What the progress display gets after each chunk."""

    iterations: int
    solver_seconds: float
    iterations_per_second: float | None
    exploitability: float | None
    measured_at: int | None
    fraction: float | None  # progress towards the stop rule, 0..1, None when unknown


class Checkpointer:
    """Writes and reads ``solver.state_dict()`` checkpoints for one run identity."""

    def __init__(self, path: str | Path, identity: dict[str, Any]):
        self.path = Path(path)
        self.identity = identity  # game, game_name, model_hash, algorithm, params, seed

    def exists(self) -> bool:
        return self.path.exists()

    def contents(self, solver, run: RunState) -> tuple[dict, dict]:
        """(header, arrays) of a checkpoint of ``solver``: what ``save`` writes, and what another
        file may carry inside it (``load(..., embedded=KIND)``)."""
        arrays, scalars = split_state(solver.state_dict())
        header = {"kind": CHECKPOINT_KIND, "format": CHECKPOINT_FORMAT, **self.identity,
                  "iterations": int(solver.iterations), "solver_state": scalars, "run": run.to_json(),
                  "saved": time.time()}
        return header, {f"s.{k}": v for k, v in arrays.items()}

    def save(self, solver, run: RunState) -> None:
        save_npz(self.path, *self.contents(solver, run))

    def load(self, solver, embedded: str | None = None) -> RunState:
        """Restore ``solver`` from the checkpoint, or from the checkpoint carried by a file of
        kind ``embedded`` (its header's ``checkpoint`` field, its ``s.`` arrays). Header field
        types, the run's identity and each array's declared shape (against the solver's array
        of that name) are checked before anything large is read; temp files of writers that
        died are removed first."""
        remove_stale_temps(self.path)
        with NpzReader(self.path, kind=CHECKPOINT_KIND if embedded is None else embedded) as z:
            header = z.header if embedded is None else z.header.get("checkpoint")
            if not isinstance(header, dict):
                raise CfrlabError(f"{self.path} keeps the average strategy only, not the solver's state: "
                                  "it cannot be continued")
            _check_checkpoint_header(self.path, header)
            self.check_identity(header)
            arrays = {}
            for name in z.names:
                if not name.startswith("s."):
                    continue
                mine = getattr(solver, name[2:], None)
                mine = mine if isinstance(mine, np.ndarray) else getattr(solver, "_" + name[2:], None)
                shape = mine.shape if isinstance(mine, np.ndarray) and mine.size else None
                arrays[name[2:]] = z.read(name, shape=shape, what=f"the solver's {name[2:]!r} table")
        state = dict(header.get("solver_state") or {})
        state.update(arrays)
        try:
            solver.load_state_dict(state)
        except (KeyError, ValueError, TypeError, AttributeError, IndexError) as e:
            raise CfrlabError(one_line(f"{self.path}: checkpoint does not fit this solver ({e})")) from None
        except CfrlabError as e:  # the solver's own checks (tables no run writes): name the file
            raise CfrlabError(one_line(f"{self.path}: checkpoint refused: {e}")) from None
        if int(solver.iterations) != header["iterations"]:
            raise CfrlabError(f"{self.path}: corrupt checkpoint (iteration count disagrees)")
        run = RunState.from_json(header.get("run") or {})
        run.resumed_from = int(solver.iterations)
        return run

    def check_identity(self, header: dict[str, Any]) -> None:
        mine, theirs = self.identity, header
        if theirs.get("game") != mine.get("game"):
            raise FileMismatchError(f"{self.path} is a checkpoint for {theirs.get('game_name') or 'another game'}, "
                                    f"not for {mine.get('game_name') or 'this game'}")
        if str(theirs.get("model_hash")) != str(mine.get("model_hash")):
            raise FileMismatchError(f"{self.path} was made with model {str(theirs.get('model_hash'))[:12]}, "
                                    f"not with model {str(mine.get('model_hash'))[:12]}")
        if theirs.get("bets", mine.get("bets")) != mine.get("bets"):
            raise FileMismatchError(f"{self.path} was made in betting abstraction {theirs.get('bets')!r}, "
                                    f"this run has {mine.get('bets')!r}")
        for key in ("algorithm", "params", "seed"):
            if _jsonish(theirs.get(key)) != _jsonish(mine.get(key)):
                raise FileMismatchError(f"{self.path} was made with {key} {theirs.get(key)!r}, "
                                        f"this run has {key} {mine.get(key)!r}; remove the checkpoint to start over")


def checkpoint_seed(path: str | Path) -> int | None:
    """The seed recorded in a checkpoint's header (read alone, not the solver's arrays); None
    when the file cannot be read as one (its load reports why, later)."""
    try:
        with NpzReader(path, kind=CHECKPOINT_KIND) as z:
            seed = z.header.get("seed")
    except (CfrlabError, OSError):
        return None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def _check_checkpoint_header(path: Path, header: dict[str, Any]) -> None:
    """Types of the checkpoint header fields ``Checkpointer.load`` reads (one line naming the
    field): format, identity, iterations, solver state and the run's clock and history."""
    def bad(what: str) -> CfrlabError:
        return CfrlabError(one_line(f"{path}: corrupt checkpoint header ({what})"))

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def is_num(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    fmt = header.get("format")
    if not is_int(fmt) or fmt != CHECKPOINT_FORMAT:
        raise CfrlabError(f"{path}: checkpoint format {one_line(repr(fmt))[:40]} is not readable")
    for key, ok, expected in (("game", lambda v: isinstance(v, str), "text"),
                              ("iterations", lambda v: is_int(v) and v >= 0, "an integer >= 0"),
                              ("solver_state", lambda v: v is None or isinstance(v, dict), "an object"),
                              ("run", lambda v: v is None or isinstance(v, dict), "an object")):
        if not ok(header.get(key)):
            raise bad(f"{key!r} is {one_line(repr(header.get(key)))[:40]}, expected {expected}")
    run = header.get("run") or {}
    for key in ("solver_seconds", "eval_seconds"):
        if key in run and not (is_num(run[key]) and run[key] >= 0):
            raise bad(f"run {key!r} is {one_line(repr(run[key]))[:40]}, expected a number >= 0")
    history = run.get("history", [])
    if not isinstance(history, list) or not all(
            isinstance(h, list) and len(h) == 3 and is_int(h[0]) and is_num(h[1])
            and isinstance(h[2], (int, float)) and not isinstance(h[2], bool) for h in history):
        raise bad("run 'history' is not a list of [iteration, seconds, exploitability]")


def split_state(state: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """ndarray entries vs JSON-able scalars of a ``state_dict()``."""
    arrays: dict[str, np.ndarray] = {}
    scalars: dict[str, Any] = {}
    for k, v in state.items():
        if isinstance(v, np.ndarray):
            arrays[k] = v
        elif isinstance(v, np.generic):
            scalars[k] = v.item()
        else:
            scalars[k] = v
    return arrays, scalars


def _jsonish(v: Any) -> Any:
    import json

    return json.loads(json.dumps(v, sort_keys=True))


class Interrupt:
    """SIGINT or SIGTERM (a polite kill) sets a flag that the loop checks between chunks; a
    second one aborts at once."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.requested = False

    @contextmanager
    def installed(self):
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {s: signal.getsignal(s) for s in self.SIGNALS}

        def handler(signum, frame):
            if self.requested:
                raise KeyboardInterrupt
            self.requested = True

        for s in self.SIGNALS:
            signal.signal(s, handler)
        try:
            yield self
        finally:
            for s, h in previous.items():
                signal.signal(s, h)


class Interrupted(Exception):
    """Raised by ``run_solve`` after a SIGINT or SIGTERM, once the last chunk finished (and was
    saved)."""

    def __init__(self, iterations: int, checkpoint: Path | None):
        super().__init__(f"interrupted at iteration {iterations}")
        self.iterations = iterations
        self.checkpoint = checkpoint


def run_solve(solver, stop: StopRule, evaluate: Callable[[], float] | None, *,
              eval_every: int | Every | Growing | None = None, checkpoint: Checkpointer | None = None,
              checkpoint_every: int | None = None, run: RunState | None = None,
              on_tick: Callable[[Tick], None] | None = None,
              interrupt: Interrupt | None = None) -> RunResult:
    """Iterate ``solver`` until ``stop``; ``evaluate()`` returns the average policy's exploitability
    (None: never measured, e.g. an imperfect-recall solve whose real-game measurement is skipped).

    The exploitability is measured at every multiple of ``eval_every`` (an int), or at the
    points of a schedule (``Growing``: fewer and fewer as the run goes on), and at the end. A
    checkpoint is written at every multiple of ``checkpoint_every``, at the end, and after a
    SIGINT or SIGTERM (then ``Interrupted`` is raised). ``run`` carries the clock of a resumed run.
    """
    run = run if run is not None else RunState()
    run.first_chunk_seconds = None
    run.run_seconds = 0.0
    schedule = schedule_of(eval_every)
    if isinstance(schedule, Aimed):
        schedule.history = run.history
    if stop.target is not None and schedule is None:
        raise CfrlabError("a target needs exploitability measurements (eval_every=N)")
    rate: float | None = None
    started = solver.iterations

    def measure() -> float:
        t = time.perf_counter()
        e = float(evaluate())
        run.eval_seconds += time.perf_counter() - t
        run.history.append((int(solver.iterations), run.solver_seconds, e))
        return e

    def done() -> str | None:
        it = solver.iterations
        if stop.iterations is not None and it >= stop.iterations:
            return "iterations"
        last = run.last
        if stop.target is not None and last and last[0] == it and last[2] <= stop.target:
            return "target"
        if stop.seconds is not None and run.solver_seconds >= stop.seconds:
            return "seconds"
        return None

    def fraction() -> float | None:
        fr = []
        if stop.iterations is not None:
            fr.append(solver.iterations / stop.iterations)
        if stop.seconds is not None:
            fr.append(run.solver_seconds / stop.seconds)
        if stop.target is not None and len(run.history) >= 1:
            first, last = run.history[0][2], run.history[-1][2]
            if first > stop.target and last > 0:
                fr.append(math.log(first / last) / math.log(first / stop.target))
        return min(1.0, max(fr)) if fr else None

    def tick() -> None:
        if on_tick is not None:
            last = run.last
            on_tick(Tick(int(solver.iterations), run.solver_seconds, rate,
                         last[2] if last else None, last[0] if last else None, fraction()))

    interrupt = interrupt or Interrupt()
    with interrupt.installed():
        reason = done()
        while reason is None:
            n = _chunk_size(solver.iterations, rate, stop, run, schedule, checkpoint_every)
            t = time.perf_counter()
            solver.iterate(n)
            dt = time.perf_counter() - t
            run.solver_seconds += dt
            run.run_seconds += dt
            if run.first_chunk_seconds is None:
                run.first_chunk_seconds = dt  # numba compile lands here: not used for the rate
            elif dt > 0:
                rate = n / dt if rate is None else 0.5 * rate + 0.5 * n / dt
            it = solver.iterations
            if schedule is not None and schedule.next_after(it - 1) == it:
                measure()
            if checkpoint is not None and checkpoint_every and it % checkpoint_every == 0:
                checkpoint.save(solver, run)
            tick()
            reason = done()
            if reason is None and interrupt.requested:
                if checkpoint is not None:
                    checkpoint.save(solver, run)
                raise Interrupted(int(it), checkpoint.path if checkpoint is not None else None)
        last = run.last
        if evaluate is not None and (not last or last[0] != solver.iterations):
            measure()
            tick()
        if checkpoint is not None and solver.iterations != started:
            checkpoint.save(solver, run)
    return RunResult(int(solver.iterations), reason, run)


def _chunk_size(it: int, rate: float | None, stop: StopRule, run: RunState,
                schedule: Every | Growing | None, checkpoint_every: int | None) -> int:
    if rate is None:
        n = 1
    else:
        n = max(1, int(rate * CHUNK_SECONDS))
        if stop.seconds is not None:
            left = stop.seconds - run.solver_seconds
            n = max(1, int(min(float(n), rate * left + 1)))  # float: a huge budget cannot overflow
    if schedule is not None:
        n = min(n, schedule.next_after(it) - it)
    if checkpoint_every:
        n = min(n, checkpoint_every - it % checkpoint_every)
    if stop.iterations is not None:
        n = min(n, stop.iterations - it)
    return max(1, n)


def memory_estimate(tree, model, algorithm: str) -> int:
    """Rough bytes a solve needs: policy-shaped float64 arrays, per-node vectors, chance tables.

    Full-width solvers keep about four [rows, 3] arrays (regrets, average sums, current policy,
    scratch); every tree node carries reach and value vectors for both players; the chance
    model holds one joint table per round plus the showdown table (dense upper bound).
    """
    states = [int(s) for s in model.num_states]
    rows = sum(states[int(tree.round[n])] for n in tree.decision_node)
    arrays = 4 if algorithm != "lp" else 2
    node_vectors = sum(4 * states[int(r)] for r in tree.round) * 8
    tables = sum(s * s for s in states) * 8 + states[-1] ** 2 * 8
    return rows * 3 * 8 * arrays + node_vectors + tables
