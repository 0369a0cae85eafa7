"""The spot walk on several threads (cfrlab.spot.fast): the boards below the first chance node
split in parts walked side by side give the one-thread tables bit for bit."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cfrlab.errors import CfrlabError
from cfrlab.spot import make_spot, spot_tree
from cfrlab.spot.fast import FastSolver, SpotGame
from cfrlab.spot.solve import solve_spot

ROOT = Path(__file__).resolve().parents[1]

ARGS = {"pot": 10, "stack": 30, "oop_range": "AA, QJs, 87s:0.5, 54s, AhKh", "ip_range": "KK, T9s, 76s, A2s:0.5",
        "bets": {"bet": "p", "raise": "a"}}
SMALL = {**ARGS, "oop_range": "AA, 87s, QJs", "ip_range": "KK, T9s, 76s"}


def solver(board, threads, storage="float32", algorithm="dcfr", iterations=5, **kw):
    spot = make_spot(board=board, **{**ARGS, **kw})
    s = FastSolver(SpotGame(spot, spot_tree(spot), True), algorithm, storage, threads=threads)
    s.iterate(iterations)
    return s


def same_tables(a, b):
    for n in a.reg:
        assert np.array_equal(a.reg[n], b.reg[n]) and np.array_equal(a.cum[n], b.cum[n]), n
        assert np.array_equal(a.rscale[n], b.rscale[n]) and np.array_equal(a.cscale[n], b.cscale[n]), n


@pytest.mark.parametrize("board, kw", [("Qs Jh 2h 8d", {}), ("Qs Jh 2h", SMALL)])
@pytest.mark.parametrize("storage", ["float32", "int16"])
def test_two_and_three_threads_equal_one_bit_for_bit(board, kw, storage):
    """A turn spot (river boards split) and a flop spot (turn boards and the rivers below them
    split): the regret and average tables after 5 iterations, and the exact values, are the
    one-thread ones exactly."""
    one = solver(board, 1, storage, **kw)
    assert len(one._parts) == 1
    for threads in (2, 3):
        many = solver(board, threads, storage, **kw)
        assert len(many._parts) == threads
        same_tables(one, many)
        assert many.exact_values() == one.exact_values()
        assert many.best_responses() == one.best_responses()


def test_parts_cover_the_boards_in_contiguous_balanced_ranges():
    """split(k): each level's boards covered once, in order; the last street's boards shared
    about evenly; a river spot (no chance node) is one part."""
    spot = make_spot(board="Qs Jh 2h", **SMALL)
    g = SpotGame(spot, spot_tree(spot), True)
    parts = g.split(2)
    for L, lev in enumerate(g.levels[1:], start=1):
        assert parts[0].lo[L] == 0 and parts[0].hi[L] == parts[1].lo[L] and parts[1].hi[L] == lev.B
    river = [v.B[-1] for v in parts]
    assert sum(river) == g.levels[-1].B and abs(river[0] - river[1]) <= 48
    spot = make_spot(board="Qs Jh 2h 8d 3c", **ARGS)
    assert len(SpotGame(spot, spot_tree(spot), True).split(2)) == 1


def test_threads_must_be_positive():
    spot = make_spot(board="Qs Jh 2h 8d", **ARGS)
    with pytest.raises(CfrlabError, match="threads must be at least 1"):
        FastSolver(SpotGame(spot, spot_tree(spot), True), "dcfr", threads=0)


def test_solve_spot_threads_give_the_same_solution():
    spot = make_spot(board="Qs Jh 2h 8d", **ARGS)
    one = solve_spot(spot, "dcfr+", target_pct=None, iterations=12, check_every=6, threads=1)
    two = solve_spot(spot, "dcfr+", target_pct=None, iterations=12, check_every=6, threads=2)
    assert [h[2] for h in one.history] == [h[2] for h in two.history]
    assert one.summary()["root"] == two.summary()["root"] and one.values == two.values
    for bad in (0, 1.5, True):
        with pytest.raises(CfrlabError, match="threads must be a whole number at least 1"):
            solve_spot(spot, "dcfr", iterations=1, threads=bad)


TURN_TOML = """game = "holdem-nolimit"
board = "Qs Jh 2h 8d"
pot = 10
stack = 30
[ranges]
oop = "AA, QJs, 87s:0.5, 54s"
ip = "KK, AQs, 99:0.75, T9s"
[bets]
bet = "p"
raise = "a"
"""


def _cli(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "cfrlab.cli.main", *args], capture_output=True,
                          text=True, cwd=ROOT, check=False, env=env)


def test_cli_spot_solve_threads(tmp_path):
    cfg = tmp_path / "turn.toml"
    cfg.write_text(TURN_TOML)
    runs = [_cli("spot", "solve", str(cfg), "--iterations", "10", "--json", "--threads", t) for t in ("1", "2")]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    one, two = (json.loads(r.stdout) for r in runs)
    assert one["exploitability_pct"] == two["exploitability_pct"] and one["ev_oop"] == two["ev_oop"]
    out = _cli("spot", "solve", str(cfg), "--threads", "0")
    assert out.returncode != 0 and "--threads must be at least 1" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_average_combine_equals_average_then_combine(dtype):
    """combine_average (no strategy array) gives what average_strategy into an array of cfv's
    type followed by combine gave, bit for bit; rows of zeros play uniform."""
    from cfrlab.engine import kernels as K

    rng = np.random.default_rng(3)
    cum = rng.random((4, 3, 50)).astype(np.float32)
    cum[1, :, 7] = 0.0
    cfv = rng.normal(size=(3, 4, 50)).astype(dtype)
    strat = np.empty(cfv.shape, dtype=dtype)
    K.average_strategy(cum, strat)
    want, got = np.empty((4, 50), dtype=dtype), np.empty((4, 50), dtype=dtype)
    K.combine(strat, cfv, want)
    K.combine_average(cum, cfv, got)
    assert np.array_equal(want, got)
    assert got[1, 7] == pytest.approx(cfv[:, 1, 7].astype(np.float64).mean(), rel=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_actions_equals_the_action_ordered_float64_sum(dtype):
    """sum_actions, now hand-inner: the float64 sum over actions in order, rounded once."""
    from cfrlab.engine import kernels as K

    cfv = np.random.default_rng(5).normal(size=(3, 6, 40)).astype(dtype)
    want = ((0.0 + cfv[0].astype(np.float64)) + cfv[1]) + cfv[2]
    got = np.empty((6, 40), dtype=dtype)
    K.sum_actions(cfv, got)
    assert np.array_equal(got, want.astype(dtype))


def _bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_spot", ROOT / "benchmarks" / "spot.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# benchmark/benchmark_texassolver.txt in github.com/bupticybee/TexasSolver: its tree's lines
TEXASSOLVER_BETS = """set_bet_sizes oop,flop,bet,100
set_bet_sizes oop,flop,raise,50
set_bet_sizes oop,flop,allin
set_bet_sizes ip,flop,bet,100
set_bet_sizes ip,flop,raise,50
set_bet_sizes ip,flop,allin
set_bet_sizes oop,turn,bet,100
set_bet_sizes oop,turn,donk,100
set_bet_sizes oop,turn,raise,50
set_bet_sizes oop,turn,allin
set_bet_sizes ip,turn,bet,100
set_bet_sizes ip,turn,raise,50
set_bet_sizes oop,river,bet,100
set_bet_sizes oop,river,donk,100
set_bet_sizes oop,river,raise,50
set_bet_sizes oop,river,allin
set_bet_sizes ip,river,bet,100
set_bet_sizes ip,river,raise,50
set_bet_sizes ip,river,allin"""


def test_benchmark_writes_texassolvers_config_and_runs_without_it():
    """benchmarks/spot.py writes the published TexasSolver config's tree from the example spot
    (the same bet lines, its ranges class by class), and without the binary says "not found"."""
    from types import SimpleNamespace

    from cfrlab.spot import load_spot

    bench = _bench()
    cfg = bench.texassolver_config(load_spot(bench.SPOT), 2, 0.3, 21).splitlines()
    assert sorted(ln for ln in cfg if ln.startswith("set_bet_sizes")) == sorted(TEXASSOLVER_BETS.splitlines())
    assert cfg[:3] == ["set_pot 10", "set_effective_stack 95", "set_board Qs,Jh,2h"]
    oop = cfg[3].removeprefix("set_range_oop ").split(",")
    assert "AA" in oop and "99:0.75" in oop and "AKs" in oop and "AKo" in oop and "43s:0.5" in oop
    assert {"set_thread_num 2", "set_accuracy 0.3", "set_max_iteration 21", "start_solve"} <= set(cfg)
    args = SimpleNamespace(texassolver=None)
    assert bench.texassolver(args, {}).startswith("not found")
    args = SimpleNamespace(texassolver=str(ROOT / "no-such-solver"))
    assert bench.texassolver(args, {}).startswith("not found")
