"""Exact best response in the real game (no abstraction) for 2-player limit games.

``real_best_response(opponent, game)`` returns each seat's best-response value against the
strategy ``opponent`` plays in both seats, and the exploitability (their mean, docs/ENGINE.md),
where the responder sees its real cards. The method is Johanson, Waugh, Bowling and
Zinkevich, "Accelerating best response calculation in large extensive games" (IJCAI 2011):
a walk of the public tree (betting x real boards) carrying vectors over every hand
(``walk``), O(H) fold and showdown terminals with card removal (``_kernels``), suit
isomorphism of the first board (one unit per class of flops, weighted), and independent
units run by ``jobs.run_units`` (local worker processes, checkpoints, resume). Against a
card-independent opponent (the bots) ``fixed.FixedOpponentBR`` gives the same values in
minutes instead of hours (``method="auto"`` picks it).

``opponent``: a ``Strategy`` (lossless or bucketed, its chance model attached), an agent (the
card-independent bots, or one with ``batch_policy``), a ``BatchPolicy``, or a *source* that
worker processes load themselves (``StrategyFile``, ``AgentSpec``) - with ``workers > 1``
an in-memory opponent is pickled to every worker, a source is loaded there (big files).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cfrlab.abstraction import cards_hash
from cfrlab.agents.registry import make_agent
from cfrlab.engine import build_tree_for, load_abstraction
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.games.units import display_factor, unit_of
from cfrlab.jobs import Progress, ResultsFile, UnitStore, check_workers, connect_ray, run_units
from cfrlab.realgame.fixed import FixedOpponentBR, card_independent
from cfrlab.realgame.hands import first_round_units
from cfrlab.realgame.opponents import batch_policy_of
from cfrlab.realgame.walk import Walker, lane_dtype
from cfrlab.strategy import Strategy
from cfrlab.version import __version__ as VERSION

JOB_FORMAT = 2  # 2: later boards by suit orbits (same values, other summation order)


@dataclass(frozen=True)
class StrategyFile:
    """A strategy file (and its abstraction file, if bucketed) that each process loads.

    ``shipped``: the files' bytes in a Ray cluster's object store (``ship``), for nodes that do
    not share this machine's disk; the first actor on a node writes them to its temporary
    folder, the others on that node reuse them."""

    path: str
    abstraction: str | None = None
    shipped: tuple = ()  # (("strategy" | "abstraction", sha256, object ref), ...)

    def ship(self, ray) -> StrategyFile:
        refs = []
        for role, p in (("strategy", self.path), ("abstraction", self.abstraction)):
            if p is not None:
                data = Path(p).read_bytes()
                refs.append((role, hashlib.sha256(data).hexdigest()[:24], ray.put(data)))
        return StrategyFile(self.path, self.abstraction, tuple(refs))

    def load(self, game: GameDef | None = None):
        path, abstraction = self.path, self.abstraction
        for role, digest, ref in self.shipped:
            local = _node_copy(digest, ref)
            if role == "strategy":
                path = local
            else:
                abstraction = local
        model = load_abstraction(abstraction, game) if abstraction else None
        return Strategy.load(path, game=game, model=model)


def _node_copy(digest: str, ref) -> str:
    """This node's copy of a shipped file (written once, atomically)."""
    folder = Path(tempfile.gettempdir()) / "cfrlab-ray"
    local = folder / f"{digest}.npz"
    if not local.exists():
        import ray  # only ever reached inside a Ray actor

        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{digest}.{os.getpid()}.tmp"
        tmp.write_bytes(ray.get(ref))
        os.replace(tmp, local)
    return str(local)


@dataclass(frozen=True)
class AgentSpec:
    """An agent spec as ``make_agent`` reads it (a bot name, ...), made in each process."""

    spec: str

    def load(self, game: GameDef):
        return make_agent(self.spec, game)


def _load(source, game: GameDef):
    if isinstance(source, (StrategyFile, AgentSpec)):
        return source.load(game)
    return source


class _Job:
    """What a worker process holds: the walker and the unit list."""

    def __init__(self, game_text: str, game_name: str, source, precision: str = "float64") -> None:
        game = parse_game(game_text, name=game_name)
        tree = build_tree_for(game)
        self.walker = Walker(game, tree, batch_policy_of(_load(source, game), tree), precision)
        self.units = first_round_units(game, self.walker.deck, self.walker.opp.suit_symmetric)

    def run(self, i: int) -> np.ndarray:
        return self.walker.unit_values(self.units[i])


@dataclass
class RealBestResponse:
    """Result of ``real_best_response`` (values in chips; ``*_unit`` in the game's unit)."""

    game: str
    br: tuple[float, float]  # u0(BR, s1), u1(s0, BR)
    exploitability: float
    unit: str
    factor: float  # chips -> unit
    units: int
    units_computed: int
    unit_seconds: dict[int, float] = field(default_factory=dict)
    seconds: float = 0.0
    workers: int = 1
    root_values: np.ndarray | None = None  # (2, H): each seat's value by hand, chips
    method: str = "walk"  # "walk" (any strategy, by units) or "fixed" (card-independent opponents)
    precision: str = "float64"  # the walk's last-round lanes (``Walker``)

    @property
    def exploitability_unit(self) -> float:
        return self.exploitability * self.factor

    def to_dict(self) -> dict:
        secs = list(self.unit_seconds.values())
        return {
            "game": self.game,
            "br_seat0": self.br[0],
            "br_seat1": self.br[1],
            "exploitability": self.exploitability,
            "exploitability_unit": self.exploitability_unit,
            "unit": self.unit,
            "units": self.units,
            "units_computed": self.units_computed,
            "mean_unit_seconds": float(np.mean(secs)) if secs else None,
            "seconds": self.seconds,
            "workers": self.workers,
            "method": self.method,
            "precision": self.precision,
        }


def _fixed(game: GameDef, tree, bp, progress, t0: float, workers: int) -> RealBestResponse:
    fx = FixedOpponentBR(game, tree, bp)
    n = len(first_round_units(game, fx.deck, True))

    def tick(done: int, total: int) -> None:
        if progress is not None:
            el = time.perf_counter() - t0
            progress(done, total, el, el / done * (total - done) if done else -1.0)

    b0, b1, root = fx.solve(tick)
    return RealBestResponse(game.name or "custom", (b0, b1), 0.5 * (b0 + b1), unit_of(game),
                            display_factor(game), n, n, {}, time.perf_counter() - t0, workers, root, "fixed")


def opponent_digest(bp) -> str:
    """Identifies the opponent's table (checkpoints of one job are not mixed with another's)."""
    h = hashlib.sha256(f"{bp.kind}|{int(bp.suit_symmetric)}|".encode())
    model = getattr(bp, "model", None)
    if model is not None:
        h.update(cards_hash(model).encode())  # not the joint tables: a BR does not read them
    for a in (bp.policy, bp.row_offset):
        arr = np.ascontiguousarray(a)
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def game_to_play(opponent, game: GameDef | str | None, caller: str) -> GameDef:
    """``game`` loaded, or a ``Strategy`` opponent's own game when none is given (``caller``
    names the function in the message when neither says it)."""
    if game is None:
        if not isinstance(opponent, Strategy):
            raise CfrlabError(f"{caller} needs the game")
        game = opponent.game
    return load_game(game)


def real_best_response(opponent, game: GameDef | str | None = None, *, workers: int = 1,
                       checkpoint: str | Path | None = None, resume: bool = False,
                       progress: Progress | None = None, units: list[int] | None = None,
                       ray: str | None = None, method: str = "auto",
                       results: str | Path | None = None,
                       precision: str = "float64") -> RealBestResponse:
    """Exact real-game best response against ``opponent`` (module docstring).

    ``workers``: local processes for the units; ``ray``: the address of an existing Ray
    cluster ("auto" or "host:port") whose actors run the units instead (a strategy file is
    shipped to each node once); ``checkpoint``: a directory where finished units are kept
    (``resume=True`` continues a stopped run from it); ``units``: compute only these units
    (benchmarks; the result then has no values). ``results``: a results file instead of a
    checkpoint directory: the sum of the finished units' values and their list (0.3 MB in HULHE
    whatever the number of units), rewritten after each unit; a run given a file that exists
    continues from it (carry it, with the strategy, to another machine to go on there), and a
    file of another strategy or game is refused. ``method``: ``walk`` (the public-tree walk
    by units, any opponent), ``fixed`` (card-independent opponents such as the bots: minutes
    for full hold'em, no units or checkpoints, ``cfrlab.realgame.fixed``) or ``auto`` (fixed
    when the opponent is card-independent and neither ``units`` nor ``ray`` is given).
    ``precision``: ``float32`` runs the walk's last round in single precision (1.7x faster in
    HULHE; values within about 3e-7 of the largest as measured, ``walk.PRECISIONS``); a
    results file or checkpoint remembers it, and is refused by a run of the other precision.
    The fixed method is exact and fast; it ignores the option."""
    t0 = time.perf_counter()
    game = game_to_play(opponent, game, "real_best_response")
    check_workers(workers, ray is not None)
    obj = _load(opponent, game)
    if isinstance(obj, Strategy) and obj.game.to_text() != game.to_text():
        raise CfrlabError(f"the strategy is for {obj.game.name or 'another game'}, not for "
                          f"{game.name or 'this game'}")
    lane_dtype(precision)  # an unknown precision is refused before any work
    if method not in ("auto", "walk", "fixed"):
        raise CfrlabError(f"unknown method {method!r} (auto, walk or fixed)")
    tree = build_tree_for(game)
    bp = batch_policy_of(obj, tree)
    if method == "fixed" and not card_independent(bp):
        raise CfrlabError("method 'fixed' takes card-independent opponents (the bots); this one's "
                          "actions depend on its cards: use 'walk'")
    if method == "fixed" or (method == "auto" and card_independent(bp) and units is None and ray is None):
        return _fixed(game, tree, bp, progress, t0, workers)
    job = _Job.__new__(_Job)
    job.walker = Walker(game, tree, bp, precision)
    job.units = first_round_units(game, job.walker.deck, job.walker.opp.suit_symmetric)
    walker = job.walker
    n = len(job.units)
    meta = {"kind": "real-best-response", "format": JOB_FORMAT, "cfrlab": VERSION,
            "game": game.to_text(), "opponent": opponent_digest(walker.opp), "units": n}
    if precision != "float64":  # float64 runs keep the meta they had before the option
        meta["precision"] = precision
    shape = (walker.rounds[0].num_chance, 2, walker.H)  # every unit's values (Walker.unit_values)
    if results is not None and checkpoint is not None:
        raise CfrlabError("give a checkpoint directory or a results file, not both")
    store = UnitStore(checkpoint, meta, resume, shape=shape) if checkpoint is not None else None
    if results is not None:
        store = ResultsFile(results, meta, shape)
    # workers load the opponent themselves from a source; in-memory objects are pickled
    source = opponent if isinstance(opponent, (StrategyFile, AgentSpec)) else obj
    results, secs = {}, {}
    ray_mod = connect_ray(ray) if ray is not None else None  # a bad address fails before any work
    if units is None:  # units differ in size (suit symmetry): a fixed shuffle keeps the
        # time left unbiased; the sum below is in unit order whatever the order run
        units = [int(i) for i in np.random.default_rng(n).permutation(n)]
        partial = False
    else:
        partial = True
    if n and ray_mod is not None:
        if isinstance(source, StrategyFile):
            source = source.ship(ray_mod)
        results, secs = run_units(n, _Job, (game.to_text(), game.name or "", source, precision), workers=workers,
                                  store=store, progress=progress, order=units, ray=ray_mod)
    elif n:
        if workers <= 1:
            results, secs = run_units(n, lambda: job, (), workers=1, store=store,
                                      progress=progress, order=units)
        else:
            results, secs = run_units(n, _Job, (game.to_text(), game.name or "", source, precision),
                                      workers=workers, store=store, progress=progress,
                                      order=units)
    factor = display_factor(game)
    if partial:  # a partial run: timings only
        return RealBestResponse(game.name or "custom", (float("nan"), float("nan")),
                                float("nan"), unit_of(game), factor, n, len(secs), secs,
                                time.perf_counter() - t0, workers, precision=precision)
    total = None
    if n and isinstance(store, ResultsFile):
        total = store.total()
    elif n:
        total = np.zeros_like(results[0])
        for i in range(n):  # a fixed order: bit-identical whatever ran where
            total += results[i]
    b0, b1, root = walker.finish(total)
    return RealBestResponse(game.name or "custom", (b0, b1), 0.5 * (b0 + b1), unit_of(game),
                            factor, n, len(secs), secs, time.perf_counter() - t0, workers, root,
                            precision=precision)
