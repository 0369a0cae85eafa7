"""cfrlab from Python: solve, measure and inspect strategies in a few calls.

The CLI is a layer over these functions; they take a game by name (``"kuhn"``, ``"leduc"``,
``"holdem-limit"``), by ``.game`` path or as ACPC game-definition text. One rule for every
game (``cfrlab.games.units``): figures are per game in the game's unit, ``"mbb/g"`` when the
players post different blinds (limit hold'em, a custom game with ``blind = 1 2``) and
``"chips/g"`` when they post the same (Kuhn, Leduc); every result says which in its ``unit``
field and its text, as ``cfrlab solve`` prints it.

    >>> import cfrlab
    >>> result = cfrlab.solve("kuhn", "cfr+", iterations=2000)
    >>> abs(result.game_value - (-1 / 18)) < 1e-3
    True
    >>> result.exploitability < 1e-3
    True

Bad input raises ``cfrlab.CfrlabError`` (a subclass for each kind) with the one-line message
the CLI prints.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

from cfrlab import realgame
from cfrlab.abstraction import perfect_recall
from cfrlab.engine import best_response as _best_response
from cfrlab.engine import build_tree_for, game_value, model_for_game, tree_for
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.games.units import CHIPS, format_value, parse_amount, to_unit, unit_of
from cfrlab.solvers import ALGORITHMS, make_solver
from cfrlab.solvers.driver import (
    FULL_WIDTH,
    Checkpointer,
    Every,
    Tick,
    checkpoint_seed,
    default_schedule,
    memory_estimate,
    run_solve,
    thin_history,
)
from cfrlab.solvers.driver import StopRule as _StopRule
from cfrlab.solvers.lp import solve_lp
from cfrlab.solvers.nmccfr import make_nsolver
from cfrlab.solvers.nplayer import ALGORITHMS as N_ALGORITHMS
from cfrlab.solvers.nplayer import PRESETS as N_PRESETS

N_FULL_WIDTH = tuple(N_PRESETS)  # the N-player CFR family (deterministic: no seed)
from cfrlab.strategy import VERSION, Strategy

__all__ = ["BestResponse", "SolvePlan", "SolveResult", "best_response", "exploit", "load_game", "sizes", "solve"]



@dataclass(repr=False)
class SolveResult:
    """What ``solve`` returns. ``exploitability``, ``game_value`` and the curve are per game in
    ``unit``, the game's: ``"mbb/g"`` in a blind game, ``"chips/g"`` in an ante game
    (``exploitability_chips`` and ``game_value_chips`` give chips per game).

    ``curve`` is the measured exploitability: ``(iteration, solver seconds, exploitability)``
    triples, in measuring order; ``strategy`` is the average strategy with a header that
    records the run (algorithm, parameters, seed, iterations, seconds, exploitability, game
    value, curve, cfrlab version). ``stopped_by`` is ``"iterations"``, ``"seconds"``,
    ``"target"`` or (lp) ``"exact"``. ``first_iteration_seconds`` includes numba's compile
    when the kernels were not cached; ``iterations_per_second`` leaves that chunk out.
    """

    strategy: Strategy
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float | None
    game_value: float | None  # None: imperfect recall (no abstract game value)
    unit: str
    stopped_by: str
    curve: list[tuple[int, float, float]] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    eval_seconds: float = 0.0
    first_iteration_seconds: float | None = None
    iterations_per_second: float | None = None
    resumed_from: int | None = None

    @property
    def exploitability_chips(self) -> float | None:
        """The exploitability in chips per game."""
        return self.strategy.header.get("exploitability")

    @property
    def game_value_chips(self) -> float:
        """Player 0's value in chips per game."""
        return float(self.strategy.header["game_value"])

    def __repr__(self) -> str:
        return (f"<SolveResult {self.algorithm} on {_game_name(self.strategy.game)}: {self.iterations:,} iterations "
                f"in {self.seconds:.3g} s (stopped by {self.stopped_by}); exploitability "
                f"{format_value(self.exploitability, self.unit)}, game value {_signed(self.game_value, self.unit)}>")

    def plot(self, ax=None, label: str | None = None, x: str = "iterations"):
        """Exploitability against ``x`` (``"iterations"`` or ``"seconds"``) on log-log axes;
        returns the matplotlib Axes (a new figure's when ``ax`` is None)."""
        import matplotlib.pyplot as plt

        if x not in ("iterations", "seconds"):
            raise CfrlabError(f"x is 'iterations' or 'seconds', got {x!r}")
        if ax is None:
            _, ax = plt.subplots()
        pts = [(i if x == "iterations" else s, e) for i, s, e in self.curve if e > 0 and (i if x == "iterations" else s) > 0]
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], label=label or self.algorithm)
        ax.set_xlabel(x)
        ax.set_ylabel(f"exploitability ({self.unit})")
        return ax


@dataclass
class SolvePlan:
    """What ``solve`` is about to do, passed to its ``on_start`` callback once the solver is
    set up (and a checkpoint, if any, restored): the CLI prints it."""

    algorithm: str
    seed: int | None
    seed_drawn: bool
    resumed_from: int | None
    measuring: str  # when exploitability is measured, e.g. "every 10 iterations"


@dataclass
class BestResponse:
    """The best responses to a strategy: each seat's value in ``unit`` (the game's: "mbb/g" or
    "chips/g") and the exploitability: NashConv / N, which for two seats is their mean (0 at an
    equilibrium; with more players each seat's value is its best response against the others
    playing the strategy). ``chips`` holds the values in chips per game, unconverted."""

    values: tuple[float, ...]
    exploitability: float
    unit: str
    chips: tuple[float, ...] = (0.0, 0.0)

    def __repr__(self) -> str:
        seats = ", ".join(f"as player {p} {_signed(v, self.unit)}" for p, v in enumerate(self.values))
        return f"<BestResponse: exploitability {format_value(self.exploitability, self.unit)}; best response {seats}>"


def _signed(value: float | None, unit: str) -> str:
    return "not computed" if value is None else f"{value:+.6g} {unit}"


def _game_name(g: GameDef) -> str:
    return g.name or "a custom game"


def _game_of(game: GameDef | str | Path) -> GameDef:
    return load_game(game)


def _label(g: GameDef, game: Any) -> str:
    return g.name or (Path(game).stem if isinstance(game, (str, Path)) and "\n" not in str(game) else "custom")


def solve(game: GameDef | str | Path, algorithm: str = "cfr+", *, iterations: int | None = None,
          seconds: float | None = None, target: float | str | None = None, eval_every: int | None = None,
          abstraction: Any = None, bets: str | None = None, seed: int | None = None,
          progress: Callable[[Tick], None] | None = None, checkpoint: str | Path | None = None,
          checkpoint_every: int | None = None, on_start: Callable[[SolvePlan], None] | None = None,
          real: bool = True, **params: Any) -> SolveResult:
    """Solve ``game`` with ``algorithm`` until ``iterations``, ``seconds`` of solver time or an
    exploitability of ``target``, whichever comes first. ``target`` is a number in the game's
    unit (``cfrlab.games.units``: mbb/g in a blind game, chips/g in an ante game), or a string
    that names its unit: ``target="5 mbb/g"``, ``target="0.01 chips/g"``.

    ``algorithm``: one of ``cfrlab.solvers.ALGORITHMS`` (cfr, cfr+, lcfr, dcfr, pcfr+, cs, pcs,
    es, os) or ``"lp"`` (the exact sequence-form LP; no stop rule needed). ``params`` override
    the algorithm's preset (``alpha=1.5``, ``gamma=2.0``, ``epsilon=0.6`` for os).
    ``eval_every``: measure the exploitability every N iterations (default: a growing schedule,
    10, 20, ..., 100, 150, ...). ``abstraction``: an abstraction file or chance model for
    hold'em (default: lossless). ``bets``: a no-limit game's betting abstraction, a spec such
    as ``"fcpa"`` or ``"0.5p,p,a/p,a;cap=3"`` (``cfrlab.tree.bets``; default: every legal
    amount, for small stacks). ``seed``: sampling algorithms' seed (drawn and recorded when
    None). ``progress(tick)`` is called after every chunk of iterations.

    An imperfect-recall abstraction has no abstract best response: its exploitability is
    measured in the real game (exact, one process) at the end, or with ``eval_every``;
    ``real=False`` skips that (``exploitability`` None; ``exploit(strategy, real=True)``
    measures it later, with workers and checkpoints). ``real`` changes nothing under perfect
    recall.

    ``checkpoint``: a file the solver state is saved to every ``checkpoint_every`` iterations,
    at the end and on Ctrl-C (then ``cfrlab.solvers.driver.Interrupted`` is raised); when it
    exists, the run continues from it (same game, model, algorithm, parameters and seed, or
    ``FileMismatchError``), so calling ``solve`` again with a larger budget resumes.

        >>> r = solve("leduc", "dcfr", target=1e-3)
        >>> r.stopped_by, r.exploitability <= 1e-3
        ('target', True)
    """
    g = _game_of(game)
    name = str(algorithm).lower()
    many = g.num_players > 2  # the N-player engine: the CFR family and cs / es, exact deals
    known = N_ALGORITHMS if many else (*ALGORITHMS, "lp")
    if name not in known:
        why = f"; {name} is for 2-player games" if many and name in (*ALGORITHMS, "lp") else ""
        raise CfrlabError(f"unknown algorithm {algorithm!r} for {_game_name(g)}{why}; choose from "
                          f"{', '.join(known)}")
    model = model_for_game(g, abstraction)  # refuses an abstraction with more players
    tree = tree_for(g, bets) if many else build_tree_for(g, bets)  # tree_for refuses bets for N
    if name == "lp":
        return _solve_lp(g, tree, model, params)
    if iterations is None and seconds is None and target is None:
        raise CfrlabError("say when to stop: iterations=N, seconds=S or target=EXPLOITABILITY")
    for what, v in (("eval_every", eval_every), ("checkpoint_every", checkpoint_every)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise CfrlabError(f"{what} is a positive number of iterations, got {v!r}")
    if checkpoint_every is not None and checkpoint is None:
        raise CfrlabError("checkpoint_every needs a checkpoint file")
    stop = _StopRule(iterations, seconds, None if target is None else parse_amount(g, target, "target"))
    drawn = False
    if seed is None and name not in FULL_WIDTH and name not in N_FULL_WIDTH:
        seed = checkpoint_seed(checkpoint) if checkpoint is not None and Path(checkpoint).exists() else None
        if seed is None:
            seed, drawn = secrets.randbits(31), True
    if many:
        solver = make_nsolver(g, name, seed=seed, **params)
        tree, model = solver.tree, solver.model
    else:
        solver = make_solver(tree, model, name, seed=seed, **params)
    solver_params = asdict(solver.params) if is_dataclass(solver.params) else dict(solver.params)
    run_state, checkpointer = None, None
    if checkpoint is not None:
        identity = {"game": g.to_text(), "game_name": _label(g, game), "model_hash": str(model.hash),
                    "bets": tree.bets, "algorithm": name, "params": solver_params, "seed": seed}
        checkpointer = Checkpointer(checkpoint, identity)
        if checkpointer.exists():
            run_state = checkpointer.load(solver)
    evaluate = solver.exploitability
    forgetful = not many and not perfect_recall(model)
    if forgetful:  # no abstract best response under imperfect recall: the real game's, once
        evaluate = _real_exploitability(g, tree, model, solver, name) if real else None  # at the end
        if not real and (eval_every or target is not None):
            raise CfrlabError("an imperfect-recall solve measured nowhere (real=False) takes no "
                              "eval_every or target")
    schedule = Every(eval_every) if eval_every else (None if forgetful else default_schedule(name))
    measuring = "nowhere: the real-game best response is skipped" if evaluate is None else \
        "in the real game at the end" if schedule is None else schedule.describe()
    if on_start is not None:
        on_start(SolvePlan(name, solver.seed, drawn, None if run_state is None else int(solver.iterations),
                           measuring))
    run = run_solve(solver, stop, evaluate, eval_every=schedule, checkpoint=checkpointer,
                    checkpoint_every=checkpoint_every, run=run_state, on_tick=progress)
    avg = solver.average_policy()  # once: at 10 buckets each copy is 1.4 GB
    value = (float(solver.engine.profile_values(avg)[0]) if many
             else None if forgetful else game_value(tree, model, avg))
    st = run.state
    curve = [(int(i), float(s), to_unit(g, e)) for i, s, e in st.history]
    strategy = Strategy.from_policy(
        g, avg, tree=tree, model=model, algorithm=name, params=solver_params, seed=solver.seed,
        iterations=int(solver.iterations), seconds=st.solver_seconds,
        exploitability=run.exploitability, game_value=value,
        extra={"stopped_by": run.stopped_by, "cfrlab_version": VERSION,
               "curve": [list(c) for c in thin_history(st.history)]})
    if many:  # the per-player figures N-player files carry (values, best responses, NashConv)
        strategy.evaluate()
        strategy.header["exploitability"] = run.exploitability if run.exploitability is not None \
            else strategy.header["exploitability"]
    expl = run.exploitability
    first = st.first_chunk_seconds
    done_here = run.iterations - (st.resumed_from or 0)
    steady = st.run_seconds - (first or 0.0)
    rate = (done_here - 1) / steady if steady > 0 and done_here > 1 else None
    return SolveResult(strategy, name, int(solver.iterations), st.solver_seconds,
                       None if expl is None else to_unit(g, expl),
                       None if value is None else to_unit(g, value), unit_of(g), run.stopped_by, curve, solver_params, solver.seed, st.eval_seconds, first, rate,
                       st.resumed_from)


def _real_exploitability(g: GameDef, tree, model, solver, name: str) -> Callable[[], float]:
    """The exploitability of the solver's average strategy in the real game (exact, by
    ``realgame.real_best_response``): what an imperfect-recall abstraction is measured by."""
    def measure() -> float:
        s = Strategy.from_policy(g, solver.average_policy(), tree=tree, model=model, algorithm=name)
        return float(realgame.real_best_response(s).exploitability)
    return measure


def _solve_lp(g: GameDef, tree, model, params: dict) -> SolveResult:
    if params:
        raise CfrlabError(f"lp takes no parameters, got {', '.join(sorted(params))}")
    t = time.perf_counter()
    policy, value = solve_lp(tree, model)
    seconds = time.perf_counter() - t
    strategy = Strategy.from_policy(g, policy, tree=tree, model=model, algorithm="lp", seconds=seconds,
                                    game_value=value, extra={"cfrlab_version": VERSION})
    expl = strategy.exploitability(CHIPS)
    strategy.header["exploitability"] = expl
    return SolveResult(strategy, "lp", 0, seconds, to_unit(g, expl), to_unit(g, value), unit_of(g),
                       "exact", [(0, seconds, to_unit(g, expl))])


def exploit(strategy: Strategy | str | Path, *, game: GameDef | str | None = None,
            abstraction: Any = None, real: bool = False, workers: int = 1,
            checkpoint: str | Path | None = None, resume: bool = False, ray: str | None = None,
            progress: Callable[[int, int, float, float], None] | None = None) -> BestResponse:
    """Exact best-response values against ``strategy`` (a Strategy or a strategy file) and its
    exploitability, in the game's unit, inside the strategy's own abstraction.

    ``real=True`` measures it in the real game instead (a responder that sees its real cards;
    ``cfrlab.realgame``, docs/realgame.md): ``strategy`` may then also be a bot name (with
    ``game``); the work is split into units run by ``workers`` local processes or on the Ray
    cluster at ``ray`` ("auto" or "host:port"), kept in ``checkpoint`` (a directory) so that
    ``resume=True`` continues a stopped run; ``progress(done, total, elapsed_s, eta_s)``.

        >>> round(exploit(Strategy.uniform("kuhn")).exploitability * 24, 9)  # 11/24
        11.0
        >>> round(exploit(Strategy.uniform("kuhn"), real=True).exploitability * 24, 9)
        11.0
    """
    if real:
        return _exploit_real(strategy, game, abstraction, workers, checkpoint, resume, ray, progress)
    if workers != 1 or checkpoint is not None or resume or ray is not None:
        raise CfrlabError("workers, checkpoint, resume and ray apply to real=True only")
    s = _strategy_of(strategy, game, abstraction)
    g = s.game
    brs, nash_conv = s.evaluator.best_responses(s.policy)  # each seat's against the others
    return BestResponse(tuple(to_unit(g, b) for b in brs), to_unit(g, nash_conv / s.num_players),
                        unit_of(g), tuple(float(b) for b in brs))


def _exploit_real(strategy, game, abstraction, workers, checkpoint, resume, ray, progress) -> BestResponse:
    if isinstance(strategy, Strategy):
        g = strategy.game if game is None else _game_of(game)
        opponent: Any = strategy
    elif isinstance(strategy, (str, Path)) and (Path(strategy).suffix == ".npz" or Path(strategy).is_file()):
        s = _strategy_of(strategy, game, abstraction)  # header and abstraction checks, here
        g = s.game
        abs_path = str(abstraction) if isinstance(abstraction, (str, Path)) else None
        opponent = realgame.StrategyFile(str(strategy), abs_path) if (workers > 1 or ray) and (
            abstraction is None or abs_path) else s
    elif isinstance(strategy, str):
        if game is None:
            raise CfrlabError(f"{strategy}: a bot needs the game (game=...)")
        g = _game_of(game)
        opponent = realgame.AgentSpec(strategy)
    else:
        raise CfrlabError(f"not a Strategy, a strategy file or a bot name: {strategy!r}")
    r = realgame.real_best_response(opponent, g, workers=workers, checkpoint=checkpoint, resume=resume,
                           progress=progress, ray=ray)
    b0, b1 = r.br
    return BestResponse((to_unit(g, b0), to_unit(g, b1)), to_unit(g, r.exploitability), unit_of(g),
                        (float(b0), float(b1)))


def best_response(strategy: Strategy | str | Path, responder: int, *, game: GameDef | str | None = None,
                  abstraction: Any = None) -> tuple[float, Strategy]:
    """(the responder's best-response value in the game's unit, a Strategy in which
    ``responder`` (a position: 0 or 1) plays that pure best response and the other position
    plays ``strategy``).

        >>> value, br = best_response(Strategy.uniform("kuhn"), responder=1)
        >>> round(value * 12, 9)  # 5/12 chips per game against uniform play as player 0
        5.0
        >>> br.action_probs("As", "r")  # holding the ace, player 1 calls a bet
        {'f': 0.0, 'c': 1.0}
    """
    s = _strategy_of(strategy, game, abstraction)
    value, policy = _best_response(s.tree, s.model, s.policy, responder)
    br = Strategy.from_policy(s.game, policy, tree=s.tree, model=s.model, algorithm="best-response",
                              extra={"responder": int(responder), "cfrlab_version": VERSION})
    return to_unit(s.game, value), br


def lbr(opponent: Any, game: GameDef | str | None = None, *, hands: int = 10_000, seed: int = 0,
        call_rounds: int | None = None, exact: bool = False, actions: str | None = None,
        workers: int = 1, abstraction: Any = None,
        progress: Callable[[int, int, float, float], None] | None = None) -> realgame.LBRResult:
    """Local best response (Lisý and Bowling, "Equilibrium approximation quality of current
    no-limit poker bots"): a lower bound on ``opponent``'s real-game exploitability, limit and
    no-limit. The responder plays real hands against it, keeps its range by Bayes' rule, and
    takes the action that is best if both then check or call to the end
    (``cfrlab.realgame.lbr``, docs/realgame.md). ``hands`` hands are played: ``hands / 2``
    deals (rounded up), each once in each seat (``play_match(..., duplicate=True)`` counts
    deals instead); ``exact=True`` gives the exact expectation over every deal (small games).
    Returns a ``cfrlab.realgame.LBRResult``: ``value`` and ``ci95`` in chips per game,
    ``value_unit`` and ``ci95_unit`` in the game's unit, each seat's value, hands and deals.

    ``opponent`` is anything that plays the game: a ``Strategy``, a strategy file (with
    ``abstraction`` if it was solved in one), an agent spec as ``make_agent`` reads it
    (``"always-call"``, ``"value"``, ``"py:mybot.py:MyBot"``), or an agent object: an ``Agent``
    (what ``make_agent`` returns) or any object with the ``Agent`` interface's ``act``. Specs
    and objects need ``game``. LBR needs the agent's action probabilities for every hand it
    might hold, at each of its decisions; it takes the first of these the agent has:

    * ``batch_policy(tree)`` (limit games): its play as a table, ``cfrlab.realgame.BatchPolicy``
      (strategies and the built-in bots have one);
    * ``range_policy(game)``: a ``cfrlab.agents.ranges.RangePolicy``, its play for every hand
      at once along *paths* (one path, ``None``, for an agent that decides from what it sees):
      ``root(position)`` the paths at the start of a hand with their probabilities
      (``[(None, 1.0)]``); ``probs(path, state, board)`` at its decision in ``state`` (a
      ``games.State``; ``board`` the visible board, ACPC card ids): the ACPC actions it may
      take and float64[H, k], their probabilities for each of the H hands of
      ``cfrlab.agents.ranges.hands(game)``; ``advance(path, state, action)`` the paths after
      ``action`` (``[(None, 1.0)]``);
    * ``action_probabilities(view) -> dict[str, float]``: the ACPC actions and their
      probabilities at ``view`` (a ``MatchState``, as ``act`` gets it), asked for every hand in
      turn by an adapter (``cfrlab.agents.act_ranges.ActRange``);
    * ``act(view) -> str`` alone: the same adapter takes its answer as the agent's only action
      with that hand, so the agent must play a pure strategy; its ``rng`` is reseeded before
      each question and an agent whose answers change with the seed is refused (a randomizing
      agent gives ``action_probabilities``).

    Through the adapter the agent must decide from the view alone (no state kept between
    calls); it asks one question per hand and decision: quick in Kuhn and Leduc, slow in
    hold'em (1,326 hands a decision). ``workers`` > 1 runs blocks of deals in that many
    processes (an agent object must then pickle; a ``py:`` spec is loaded in each);
    ``call_rounds``: the responder only checks or calls in the first K rounds (default 0 in
    limit games, the paper's 2 in no-limit); ``actions`` (no-limit): its raise sizes as a bet
    spec, default ``fcpa``; ``progress(done, total, elapsed_s, eta_s)`` after each block.

        >>> from cfrlab.agents import Agent
        >>> class Caller(Agent):            # a user's agent: checks or calls, whatever it holds
        ...     def act(self, view):
        ...         return "c"
        >>> r = lbr(Caller(), "kuhn", exact=True)
        >>> round(r.value, 9), r.unit         # what the responder wins from it, chips per game
        (0.333333333, 'chips/g')
        >>> round(lbr("always-call", "kuhn", exact=True).value, 9)
        0.333333333
    """
    g, opp = _lbr_opponent(opponent, game, abstraction, workers)
    return realgame.local_best_response(opp, g, hands=hands, seed=seed, call_rounds=call_rounds,
                                        exact=exact, actions=actions, workers=workers,
                                        progress=progress)


def _lbr_opponent(opponent, game, abstraction, workers) -> tuple[GameDef, Any]:
    """(the game, what ``local_best_response`` plays against) for ``lbr``'s ``opponent``."""
    if isinstance(opponent, Strategy):
        g = opponent.game if game is None else _game_of(game)
        return g, opponent
    if isinstance(opponent, (str, Path)) and (Path(opponent).suffix == ".npz" or Path(opponent).is_file()):
        s = _strategy_of(opponent, game, abstraction)  # header and abstraction checks, here
        abs_path = str(abstraction) if isinstance(abstraction, (str, Path)) else None
        if workers > 1 and (abstraction is None or abs_path):
            return s.game, realgame.StrategyFile(str(opponent), abs_path)
        return s.game, s
    if game is None:
        raise CfrlabError(f"lbr({opponent!r}) needs the game it plays (game=...)")
    g = _game_of(game)
    if isinstance(opponent, str):
        return g, realgame.AgentSpec(opponent)
    return g, opponent


def _strategy_of(strategy, game, abstraction) -> Strategy:
    if isinstance(strategy, Strategy):
        return strategy
    if isinstance(strategy, (str, Path)):
        return Strategy.load(strategy, game=game, model=abstraction)
    raise CfrlabError(f"not a Strategy or a strategy file: {strategy!r}")


def sizes(game: GameDef | str | Path, abstraction: Any = None, algorithm: str = "cfr+") -> dict:
    """What a solve of ``game`` (lossless, or in ``abstraction``) holds before it starts:
    decision nodes, information sets (policy rows: one per decision node and private state),
    private states per round, and a rough memory estimate in bytes for ``algorithm``.

        >>> sizes("leduc")["information_sets"]
        936
    """
    g = _game_of(game)
    tree = build_tree_for(g)
    model = model_for_game(g, abstraction)
    states = [int(n) for n in model.num_states]
    return {"game": g.name or "custom", "model": str(model.kind), "decision_nodes": int(tree.num_decisions),
            "information_sets": int(sum(states[int(tree.round[n])] for n in tree.decision_node)),
            "private_states": states, "memory_bytes": int(memory_estimate(tree, model, algorithm))}
