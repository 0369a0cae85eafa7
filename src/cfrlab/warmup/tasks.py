"""The warm-up's tasks: real code paths on tiny inputs, in two groups of disjoint kernels.

``python -m cfrlab.warmup.tasks --group NAME --work DIR`` runs one group (what each of the
warm-up's two processes does) and prints its compile count and failed tasks on stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np

from cfrlab import api, numba_cache
from cfrlab.abstraction import LosslessModel
from cfrlab.abstraction import bucketed as _bucketed
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.abstraction.metrics import metric_tables
from cfrlab.agents import make_agent, play_match, play_nmatch
from cfrlab.agents.strategy_agent import StrategyAgent
from cfrlab.cards.evaluator import random_hands, rank7_batch, rank_batch
from cfrlab.cards.isomorphism import game_indexers
from cfrlab.cli.main import main as cli_main
from cfrlab.counter import build_model, dbr, fbr, rnr
from cfrlab.counter.perturbed import PerturbedSolver
from cfrlab.counter.restricted import RestrictedSolver
from cfrlab.engine import best_response_values, expected_value, exploitability
from cfrlab.envs import BatchedEnv
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.aivat import aivat_log
from cfrlab.evaluate.divat import divat_log
from cfrlab.evaluate.match import exact_value
from cfrlab.experiments.synthetic import SyntheticBucketModel
from cfrlab.games import load_game, parse_game
from cfrlab.play.trainer import Trainer
from cfrlab.realgame import AgentSpec, real_best_response
from cfrlab.realgame.cfrbr import CardMap, cfrbr
from cfrlab.realgame.lbr import local_best_response
from cfrlab.solvers import ALGORITHMS, PRESETS, make_solver
from cfrlab.solvers.nplayer import PRESETS as N_PRESETS
from cfrlab.solvers.nplayer import SAMPLED as N_SAMPLED
from cfrlab.spot import make_spot, solve_spot
from cfrlab.strategy import Strategy
from cfrlab.subgame import resolve_strategy
from cfrlab.subgame.cut import blueprint_of, cut
from cfrlab.subgame.methods import solve_family
from cfrlab.subgame.river import river_subgame
from cfrlab.tree import build_tree
from cfrlab.warmup import GROUP_NAMES

# ---- tiny games --------------------------------------------------------------------------


def holdem(ranks: int, suits: int, boards: str = "0 3 1 1", raises: str | None = None,
           max_raises: int = 3):
    """Limit hold'em betting (blinds 2/1, raise 2) on a reduced deck, as the tests build it."""
    n = len(boards.split())
    text = f"""GAMEDEF
limit
numPlayers = 2
numRounds = {n}
blind = 2 1
raiseSize = {" ".join(["2"] * n)}
firstPlayer = {" ".join(["2"] + ["1"] * (n - 1))}
maxRaises = {raises or " ".join([str(max_raises)] * n)}
numSuits = {suits}
numRanks = {ranks}
numHoleCards = 2
numBoardCards = {boards}
END GAMEDEF
"""
    return parse_game(text, name=f"holdem-{ranks}x{suits}")


def _setattrs(module, **values):
    """Set module constants that exist; return the old values (to restore)."""
    old = {k: getattr(module, k) for k in values if hasattr(module, k)}
    for k in old:
        setattr(module, k, values[k])
    return old


def _cli(*argv: str) -> None:
    with open(os.devnull, "w") as null, redirect_stdout(null), redirect_stderr(null):
        try:
            cli_main(list(argv))
        except SystemExit as e:
            if e.code not in (0, None):
                raise RuntimeError(f"cfrlab {' '.join(argv)} exited {e.code}") from None


def _solve_all(tree, model, algorithms=ALGORITHMS, iterations=2) -> None:
    for alg in algorithms:
        try:
            s = make_solver(tree, model, alg, seed=1)
        except CfrlabError:  # not for this model (public chance sampling needs board blocks)
            continue
        s.iterate(iterations)
        pol = s.average_policy()
        exploitability(tree, model, pol)
        expected_value(tree, model, pol, pol)
        best_response_values(tree, model, pol)


# ---- tasks: cards and abstraction (process 1) ------------------------------------


def sampled_evaluation(work: Path) -> None:
    """Local best response (sampled and exact, lossless and a bot, hold'em's board ranks) and
    DIVAT (Leduc and a three-round hold'em log)."""
    local_best_response(Strategy.uniform("leduc"), hands=20, seed=1)
    local_best_response(Strategy.uniform("leduc"), exact=True, call_rounds=1)
    g = holdem(4, 2, "0 2 1", raises="2 2 2")
    local_best_response(Strategy.uniform(g), hands=4, seed=1)
    local_best_response(AgentSpec("always-call"), g, hands=4, seed=1)
    for game, a, b in (("leduc", "value", "random"), (g, "always-raise", "random")):
        log = work / "divat.log"
        play_match(game, a, b, 50, seed=1, log=log)
        divat_log(log, a, game).estimates()


def aivat_evaluation(work: Path) -> None:
    """AIVAT on the logs DIVAT reads (Leduc and a three-round hold'em) and in a match."""
    g = holdem(4, 2, "0 2 1", raises="2 2 2")
    for game, a, b in (("leduc", "value", "random"), (g, "always-raise", "random")):
        log = work / "aivat.log"
        play_match(game, a, b, 50, seed=1, log=log)
        aivat_log(log, a, strategy=make_agent(a, game), opponent=make_agent(b, game), game=game).estimates()
        play_match(game, a, b, 50, seed=1, aivat=True).summary()


def cards_evaluator(work: Path) -> None:
    for n in (5, 6, 7):
        rank_batch(random_hands(64, n, seed=n))
    rank7_batch(random_hands(64, 7), parallel=True)
    for ix in game_indexers(holdem(4, 3)):
        hands = ix.unindex_local(np.arange(8))
        ix.index_local(hands)
        ix.multiplicity_local(hands)
        ix.index(ix.unindex(3))


def abstraction_tables(work: Path) -> None:
    """The joint tables of the tests' spec variants, on 12- and 10-card decks."""
    specs = [
        (holdem(4, 3), BucketSpec.make(4, 3)),
        (holdem(5, 2), BucketSpec.make(4, None, nested="2x2", history=False)),
        (holdem(5, 2), BucketSpec.make(4, "2-3-2-4", history=False, recall="imperfect")),
        (holdem(4, 3, "0 3"), BucketSpec.make(2, "3-5", metric="ehs", method="uniform")),
    ]
    for game, spec in specs:  # (deal_states_batch: the engine process solves on deals)
        m = BucketedModel.build(game, spec, use_cache=False)
        for r in range(game.num_rounds):
            m.fold_matrix(r)
        m.showdown_matrix()


def abstraction_paths(work: Path) -> None:
    """The other accumulation paths of the joint tables (turn tiles, hole-pair tiles)."""
    game, spec = holdem(4, 3), BucketSpec.make(4, "2-3-3-5")
    old = _setattrs(_bucketed, GEMM_MAX=0, SWEEP_MAX=0, TURN_TILE_STATES=7,
                    TURN_BATCH_BYTES=100_000)
    try:
        BucketedModel.build(game, spec, use_cache=False)
        old.update({k: v for k, v in _setattrs(_bucketed, TURN_PATH=False, TILE=7,
                                               SMALL_STATES=0).items() if k not in old})
        BucketedModel.build(game, spec, use_cache=False)
    finally:
        _setattrs(_bucketed, **old)


def abstraction_cli(work: Path) -> None:
    game_file = work / "small.game"
    game_file.write_text(holdem(4, 3).to_text())
    out = work / "cli-abs.npz"
    _cli("abstract", "build", str(game_file), "--buckets", "2-2-3-3", "--out", str(out), "--quiet")
    _cli("abstract", "info", str(out), "--json")
    metric_tables(holdem(6, 4), use_cache=False)


# ---- tasks: engine, solvers, agents and matches (process 2) ----------------------------


def solvers_lossless(work: Path) -> None:
    for name in ("kuhn", "leduc"):
        g = load_game(name)
        tree = build_tree(g)
        _solve_all(tree, LosslessModel(g))
    g = holdem(3, 2, "0 2", raises="2 2")  # dense lossless hold'em
    tree = build_tree(g)
    _solve_all(tree, LosslessModel(g))


def solvers_bucketed(work: Path) -> None:
    g = holdem(4, 2, "0 2 1", raises="2 2 2")
    tree = build_tree(g)
    synthetic = SyntheticBucketModel(g, 4, seed=3)  # tables only: the full-width rules
    _solve_all(tree, synthetic, [a for a, p in PRESETS.items() if p.sampling == "full"])
    for f32 in (False, True):
        make_solver(tree, synthetic, "cfr+", float32=f32).iterate(2)
    model = _wait_abstraction(work, g)
    if model is None:
        raise RuntimeError("the abstraction of the other process did not come")
    _solve_all(tree, model, list(PRESETS))  # (es / os set up every deal: long, kernels as above)
    for f32 in (False, True):
        make_solver(tree, model, "cfr+", float32=f32).iterate(2)
    for alternating in (False, True):
        make_solver(tree, model, "pcs", seed=1, alternating=alternating).iterate(2)


def real_game(work: Path) -> None:
    """The real-game best response's kernels: lossless Leduc, a bucketed reduced hold'em
    (three and four rounds: the walk's middle and last rounds; the last round's lanes in both
    precisions), a bot by both methods."""
    real_best_response(Strategy.uniform("leduc"))
    g = holdem(4, 2, "0 2 1", raises="2 2 2")
    model = _wait_abstraction(work, g)
    if model is None:
        raise RuntimeError("the abstraction of the other process did not come")
    for precision in ("float64", "float32"):
        real_best_response(Strategy.uniform(g, model=model), precision=precision)
    real_best_response(AgentSpec("always-call"), g, method="walk")
    real_best_response(AgentSpec("always-call"), g, method="fixed")
    g4 = holdem(3, 3, "0 2 1 1", raises="1 1 1 1")
    real_best_response(Strategy.uniform(g4))


def multiplayer_games(work: Path) -> None:
    """The N-player engine (every preset and both samplers, NashConv) and the rotated-seat
    match kernel."""
    for alg in N_SAMPLED:
        api.solve("leduc-3p", alg, iterations=2, seed=1)
    for alg in (*N_PRESETS, *N_SAMPLED):
        r = api.solve("kuhn-3p", alg, iterations=2, seed=None if alg in N_PRESETS else 1)
    play_nmatch("kuhn-3p", [r.strategy, "always-call", "random"], 50, seed=1, exact=True)


def strategies_and_agents(work: Path) -> None:
    g = holdem(3, 4, "0 3", max_raises=3)
    s = Strategy.uniform(g)
    solver = make_solver(s.tree, s.model, "cfr+")
    solver.iterate(2)
    strat = Strategy.from_policy(g, solver.average_policy(), tree=s.tree, model=s.model)
    strat.exploitability()
    a = StrategyAgent(strat)
    exact_value(g, a, make_agent("always-call", g))  # (the value bot's: in matches, on Leduc)
    for bot in ("always-call", "value"):
        play_match(g, a, bot, 200, seed=2, duplicate=True).summary()
    out = work / "kuhn.npz"
    _cli("solve", "kuhn", "-a", "cfr+", "-n", "5", "--out", str(out))
    _cli("exploit", str(out))
    _cli("solve", "leduc", "-a", "cs", "-n", "100", "--seed", "1")


def matches(work: Path) -> None:
    for name in ("kuhn", "leduc", "holdem-limit"):
        g = load_game(name)
        for bot in ("always-call", "random", "probe", "value"):
            play_match(g, "always-raise", bot, 200, seed=2, duplicate=True).summary()
            if name != "holdem-limit":
                exact_value(g, make_agent("always-raise", g), make_agent(bot, g))
    _cli("match", "probe", "always-call", "-g", "holdem-limit", "-n", "200", "--duplicate",
         "--seed", "1")


def counter_strategies(work: Path) -> None:
    g = load_game("kuhn")
    s = Strategy.uniform(g)
    log = work / "counter.log"
    play_match(g, s, "random", 200, seed=3, log=log, names=("target", "field"))
    model = build_model([log], g, "target")
    c = rnr(model, 0.5, iterations=3)
    dbr(model, 0.5, iterations=3)
    solver = RestrictedSolver(s.tree, s.model, s.policy, p=0.5)
    solver.iterate(2)
    solver.gap()
    fbr(c.strategy)
    p = PerturbedSolver(s.tree, s.model, bonus=0.07)
    p.iterate(2)
    p.perturbed_value(p.average_policy(), 1)


def spots_and_subgames(work: Path) -> None:
    """The spot walk (a flop spot on two threads, a turn spot on the engine), subgame
    re-solving by every method and the one-board river subgame."""
    args = {"pot": 10, "stack": 30, "oop_range": "AA, QJs, 87s:0.5", "ip_range": "KK, T9s",
            "bets": {"bet": "p", "raise": "a"}}
    for board in ("Qs Jh 2h", "Qs Jh 2h 8d"):
        for storage in ("float32", "int16"):
            solve_spot(make_spot(board=board, **args), target_pct=None, iterations=2, storage=storage)
    leduc = api.solve("leduc", "cfr+", iterations=20).strategy
    for method in ("unsafe", "resolve", "maxmargin", "reach"):
        resolve_strategy(leduc, method, iterations=2)
    g = holdem(4, 2, "0 2 1", raises="2 2 2")
    s = api.solve(g, "cfr+", iterations=5).strategy
    c = cut(blueprint_of(s), 2)
    board = c.blueprint.model.state_cards(2, 0)[1]
    sub = river_subgame(s, int(c.roots[0]), board, 1)
    solve_family(sub.family, "resolve", 0, sub.ranges, 2)


def learning_and_cfrbr(work: Path) -> None:
    """CFR-BR (both opponents), the trainer's walk, the batched environment, k-means, OCHS and
    potential-aware buckets."""
    kuhn = CardMap("kuhn", lambda h, b, r: min(h[0] // 4, 11))  # the two lower cards merged
    for opponent in ("real", "br"):
        cfrbr("kuhn", kuhn, iterations=2, opponent=opponent)
    Trainer(api.solve("leduc", "cfr+", iterations=5).strategy)
    env = BatchedEnv("leduc", 8, seed=1)
    env.reset()
    for _ in range(4):
        env.step(env.random_actions())
    g = holdem(4, 3)
    for earlier in ("emd", "pa"):  # k-means/OCHS, and potential-aware
        BucketedModel.build(g, BucketSpec.kmeans(4, "4-5-5-5", "ochs", seed=2, bins=8,
                                                 opp_clusters=3, earlier=earlier), use_cache=False)


ABSTRACTION_FILE = "solve-abs.npz"


def _save_abstraction(work: Path) -> None:
    """Process 1 builds the abstraction process 2 solves on, first thing."""
    g = holdem(4, 2, "0 2 1", raises="2 2 2")
    m = BucketedModel.build(g, BucketSpec.make(3, 2), use_cache=False)
    tmp = work / (ABSTRACTION_FILE + ".tmp.npz")
    m.save(tmp)
    os.replace(tmp, work / ABSTRACTION_FILE)


def _wait_abstraction(work: Path, game, timeout: float = 1800.0):
    path = work / ABSTRACTION_FILE
    failed = work / (ABSTRACTION_FILE + ".failed")
    if not path.exists() and not (work / ".two-processes").exists():  # one process: build it
        _save_abstraction(work)
    t0 = time.monotonic()
    while not path.exists():
        if failed.exists() or time.monotonic() - t0 > timeout:
            return None
        time.sleep(0.2)
    return BucketedModel.load(path, game)


# Two disjoint sets of kernels, about even in compile time (each process also builds the
# evaluator's tables at import); "engine" solves on the abstraction "cards" builds first, so
# its tasks that need none come first (measured: 150 s -> 136 s on two idle cores).
GROUPS: dict[str, list] = {
    "cards": [_save_abstraction, cards_evaluator, abstraction_tables, abstraction_paths,
              abstraction_cli, sampled_evaluation, learning_and_cfrbr],
    "engine": [solvers_lossless, counter_strategies, strategies_and_agents, matches, multiplayer_games,
               solvers_bucketed, real_game, aivat_evaluation, spots_and_subgames],
}
assert tuple(GROUPS) == GROUP_NAMES


# ---- running ----------------------------------------------------------------------------


def run_group(name: str, work: Path) -> tuple[int, list[str], list[str]]:
    """Run one group's tasks; (kernels compiled, one line per failed task, one line per task:
    its name, seconds and kernels compiled)."""
    count = [0]
    handle = numba_cache.on_compile(lambda: count.__setitem__(0, count[0] + 1))
    failures, timings = [], []
    try:
        for task in GROUPS[name]:
            t0, c0 = time.monotonic(), count[0]
            try:
                task(work)
            except Exception as e:  # noqa: BLE001 - reported, then the tests compile it instead
                failures.append(f"{task.__name__}: {type(e).__name__}: {e}".splitlines()[0])
                if task is _save_abstraction:
                    (work / (ABSTRACTION_FILE + ".failed")).touch()
                if os.environ.get("CFRLAB_WARMUP_TRACEBACK"):
                    traceback.print_exc()
            timings.append(f"{task.__name__} {time.monotonic() - t0:.1f} {count[0] - c0}")
    finally:
        numba_cache.stop_on_compile(handle)
    return count[0], failures, timings


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cfrlab.warmup.tasks")
    ap.add_argument("--group", choices=GROUP_NAMES, required=True)
    ap.add_argument("--work", required=True, help="a folder shared by the two groups")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    n, failures, timings = run_group(args.group, Path(args.work))
    for f in failures:
        print(f"failed {f}")
    for t in timings:
        print(f"task {t}")
    print(f"compiled {n} {time.monotonic() - t0:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
