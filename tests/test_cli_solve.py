"""``cfrlab solve``, ``cfrlab exploit`` and ``cfrlab strategy``: outputs, files, errors, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from cli_run import run

from cfrlab import known_values
from cfrlab.cli.main import main
from cfrlab.engine import build_tree_for, model_for_game
from cfrlab.games import load_game
from cfrlab.solvers import make_solver
from cfrlab.strategy import Strategy
from cfrlab.tree.betting_tree import count_tree

BLIND_GAME = """GAMEDEF
limit
numPlayers = 2
numRounds = 1
blind = 2 1
raiseSize = 2
firstPlayer = 2
maxRaises = 2
numSuits = 1
numRanks = 4
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""


def last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def assert_one_line_error(code: int, err: str, *words: str) -> None:
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cfrlab: error:"), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])


def reference_policy(game: str, algorithm: str, iterations: int, seed=None) -> np.ndarray:
    g = load_game(game)
    solver = make_solver(build_tree_for(g), model_for_game(g), algorithm, seed=seed)
    solver.iterate(iterations)
    return solver.average_policy()


# -- solving ---------------------------------------------------------------------------------

def test_solve_kuhn_json(capsys):
    code, out, _ = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "1500", "--json")
    assert code == 0
    d = last_json(out)
    for key in ("game", "algorithm", "iterations", "seconds", "exploitability", "unit", "game_value"):
        assert key in d
    assert d["game"] == "kuhn" and d["algorithm"] == "cfr+" and d["iterations"] == 1500
    assert d["unit"] == "chips/g" and d["stopped_by"] == "iterations"
    assert d["exploitability"] < 1e-3
    assert d["game_value"] == pytest.approx(known_values.KUHN_GAME_VALUE, abs=1e-3)
    assert d["infosets"] == 12 and d["private_states"] == [3]


def test_solve_leduc_to_target_shows_the_opening(capsys):
    code, out, _ = run(capsys, "solve", "leduc", "--algorithm", "cfr+", "--target", "0.001", "--show", "6", "--json")
    assert code == 0
    d = last_json(out)
    assert d["stopped_by"] == "target" and d["exploitability"] <= 1e-3
    assert d["iterations"] % 10 == 0  # measured every 10 iterations by default
    assert d["game_value"] == pytest.approx(known_values.LEDUC_GAME_VALUE, abs=2e-3)
    assert d["infosets"] == known_values.LEDUC_INFOSETS
    assert "Opening moves" in out and "936 information sets" in out
    for card in ("Qh", "Qs", "Kh", "Ks", "Ah", "As"):
        assert f"\n{card}" in out
    assert "P0 opens" in out and "P1 after r" in out


def test_solve_lp_gives_the_exact_leduc_value(capsys):
    code, out, _ = run(capsys, "solve", "leduc", "-a", "lp", "--json")
    assert code == 0
    d = last_json(out)
    assert d["game_value"] == pytest.approx(known_values.LEDUC_GAME_VALUE, abs=1e-9)
    assert d["exploitability"] < 1e-8 and d["algorithm"] == "lp"


def test_blind_games_report_mbb_per_game(capsys, tmp_path):
    game = tmp_path / "blinds.game"
    game.write_text(BLIND_GAME)
    code, out, _ = run(capsys, "solve", str(game), "-a", "cfr+", "--target", "50", "--json")
    assert code == 0
    d = last_json(out)
    assert d["unit"] == "mbb/g" and d["game"] == "blinds"
    assert d["exploitability"] == pytest.approx(d["exploitability_chips"] * 1000 / 2)
    assert d["exploitability"] <= 50 and d["stopped_by"] == "target"


def test_sampling_solver_is_reproducible_by_seed(capsys, tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for f in (a, b):
        code, _, _ = run(capsys, "solve", "leduc", "-a", "es", "-n", "3000", "--seed", "5", "--out", str(f))
        assert code == 0
    sa, sb = Strategy.load(a), Strategy.load(b)
    assert np.array_equal(sa.policy, sb.policy) and sa.header["seed"] == 5
    assert np.array_equal(sa.policy, reference_policy("leduc", "es", 3000, seed=5))


def test_params_reach_the_solver(capsys, tmp_path):
    f = tmp_path / "d.npz"
    code, _, _ = run(capsys, "solve", "leduc", "-a", "dcfr", "-n", "50", "-p", "alpha=2", "-p", "gamma=3",
                     "--out", str(f))
    assert code == 0
    assert Strategy.load(f).header["params"]["alpha"] == 2 and Strategy.load(f).header["params"]["gamma"] == 3


# -- files: never overwrite silently, checkpoints, resume -------------------------------------

def test_existing_output_is_not_overwritten_without_force(capsys, tmp_path):
    f = tmp_path / "k.npz"
    assert run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "20", "--out", str(f))[0] == 0
    before = f.read_bytes()
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "5", "--out", str(f))
    assert_one_line_error(code, err, "exists", "--force", "--resume")
    assert f.read_bytes() == before
    assert run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "5", "--out", str(f), "--force")[0] == 0
    assert Strategy.load(f).iterations == 5


def test_unfinished_checkpoint_needs_resume_or_force(capsys, tmp_path):
    f = tmp_path / "k.npz"
    ckpt = tmp_path / "k.ckpt.npz"
    assert run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "40", "--checkpoint-every", "10", "--out", str(f))[0] == 0
    assert ckpt.exists()
    f.unlink()
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "40", "--out", str(f))
    assert_one_line_error(code, err, "unfinished run", "--resume")
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "40", "--out", str(f), "--resume")
    assert_one_line_error(code, err, "algorithm", "cfr+")


def test_force_with_resume_keeps_the_checkpoint_and_continues_from_it(capsys, tmp_path):
    f, ckpt = tmp_path / "l.npz", tmp_path / "l.ckpt.npz"
    args = ["solve", "leduc", "-a", "cfr+", "--checkpoint-every", "50", "--out", str(f)]
    assert run(capsys, *args, "-n", "100")[0] == 0
    code, out, _ = run(capsys, *args, "-n", "150", "--resume", "--force", "--json")
    assert code == 0 and "resuming" in out and last_json(out)["resumed_from"] == 100
    assert np.array_equal(Strategy.load(f).policy, reference_policy("leduc", "cfr+", 150))
    ckpt.unlink()  # nothing to resume: --force lets it start over, and it says so
    code, out, _ = run(capsys, *args, "-n", "20", "--resume", "--force")
    assert code == 0 and "starting at iteration 0" in out and Strategy.load(f).iterations == 20


def test_resume_extends_a_finished_run_bit_for_bit(capsys, tmp_path):
    f = tmp_path / "l.npz"
    args = ["solve", "leduc", "-a", "cfr+", "--checkpoint-every", "50", "--out", str(f)]
    assert run(capsys, *args, "-n", "100")[0] == 0
    code, out, _ = run(capsys, *args, "-n", "230", "--resume", "--json")
    assert code == 0 and "resuming" in out
    d = last_json(out)
    assert d["iterations"] == 230 and d["resumed_from"] == 100
    assert np.array_equal(Strategy.load(f).policy, reference_policy("leduc", "cfr+", 230))


def test_resume_without_a_checkpoint(capsys, tmp_path):
    f = tmp_path / "k.npz"
    assert run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "5", "--out", str(f))[0] == 0
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "9", "--out", str(f), "--resume")
    assert_one_line_error(code, err, "no checkpoint", "--force")
    g = tmp_path / "fresh.npz"  # killed before its first checkpoint: --resume starts over
    code, _, _ = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "9", "--out", str(g), "--resume")
    assert code == 0 and Strategy.load(g).iterations == 9


# -- exploit and strategy ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def leduc_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("s") / "leduc.npz"
    try:
        main(["solve", "leduc", "-a", "cfr+", "-n", "300", "--out", str(f)])
    except SystemExit as e:
        assert not e.code
    return f


def test_exploit_json_matches_the_saved_figure(capsys, leduc_file):
    code, out, _ = run(capsys, "exploit", str(leduc_file), "--json")
    assert code == 0
    d = last_json(out)
    s = Strategy.load(leduc_file)
    assert d["exploitability"] == pytest.approx(s.header["exploitability"], abs=1e-15)
    assert d["exploitability"] == pytest.approx(sum(d["best_response_values"]) / 2, abs=1e-15)
    assert d["game_value"] == pytest.approx(s.header["game_value"], abs=1e-15)
    assert d["unit"] == "chips/g" and d["iterations"] == 300


def test_strategy_show(capsys, leduc_file):
    code, out, _ = run(capsys, "strategy", "show", str(leduc_file))
    assert code == 0 and "Opening moves" in out and "cfr+ after 300 iterations" in out
    code, out, _ = run(capsys, "strategy", "show", str(leduc_file), "--betting", "rc/r", "--cards", "Ks/Kh")
    assert code == 0
    probs = Strategy.load(leduc_file).action_probs("Ks/Kh", "rc/r")
    assert f"fold {probs['f']:.4f}, call {probs['c']:.4f}, raise {probs['r']:.4f}" in out
    code, out, _ = run(capsys, "strategy", "show", str(leduc_file), "--betting", "rc/", "--rows", "4")
    assert code == 0 and "4 of 30 private states shown" in out and "Qs/Qh" in out


def test_openspiel_export_import_round_trip(capsys, leduc_file, tmp_path):
    js, back = tmp_path / "p.json", tmp_path / "back.npz"
    assert run(capsys, "strategy", "export", str(leduc_file), "--format", "openspiel", "--out", str(js))[0] == 0
    assert len(json.loads(js.read_text())) == known_values.LEDUC_INFOSETS
    code, _, _ = run(capsys, "strategy", "import", str(js), "--game", "leduc", "--out", str(back))
    assert code == 0
    assert np.array_equal(Strategy.load(back).policy, Strategy.load(leduc_file).policy)
    code, _, err = run(capsys, "strategy", "export", str(leduc_file), "--format", "acpc", "--out", str(js))
    assert_one_line_error(code, err, "unknown format")


@pytest.mark.parametrize("argv, words", [
    (["solve", "leduc", "-a", "bogus", "-n", "3"], ["unknown algorithm", "cfr+"]),
    (["solve", "leduc", "-a", "cfr"], ["--iterations", "--target"]),
    (["solve", "nosuchgame", "-a", "cfr", "-n", "3"], ["nosuchgame"]),
    (["solve", "leduc", "-a", "cfr", "-n", "3", "-p", "alpha"], ["KEY=VALUE"]),
    (["solve", "leduc", "-a", "cfr", "-n", "3", "-p", "zeta=1"], ["zeta"]),
    (["solve", "leduc", "-a", "cfr", "-n", "3", "--checkpoint-every", "2"], ["--out"]),
    (["solve", "holdem-nolimit", "-a", "cfr", "-n", "3"],
     ["every legal amount", "more than 5,000 distinct betting states", "betting abstraction"]),
    (["exploit", "/nonexistent/x.npz"], ["no such file"]),
])
def test_errors_are_one_line(capsys, monkeypatch, argv, words):
    # the full no-limit tree is refused once its count passes MAX_COUNT_STATES distinct betting
    # states (200,000: 12 s of counting); the refusal's path is the same at 5,000 (0.3 s)
    monkeypatch.setitem(count_tree.__kwdefaults__, "max_states", 5_000)
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, *words)


def test_bad_files_are_one_line_errors(capsys, tmp_path, leduc_file):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(os.urandom(300))
    code, _, err = run(capsys, "exploit", str(junk))
    assert_one_line_error(code, err, "not a readable cfrlab file")
    f = tmp_path / "k.npz"
    assert run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "10", "--checkpoint-every", "5", "--out", str(f))[0] == 0
    code, _, err = run(capsys, "strategy", "show", str(tmp_path / "k.ckpt.npz"))
    assert_one_line_error(code, err, "expected a strategy file")
    code, _, err = run(capsys, "strategy", "show", str(leduc_file), "--betting", "rc/r", "--cards", "Ks")
    assert_one_line_error(code, err, "board card")


# -- interrupted runs resume to the uninterrupted result -----------------------------------------

KILL_ITERATIONS = 30_000


@pytest.fixture(scope="module")
def kill_reference():
    return reference_policy("leduc", "cfr+", KILL_ITERATIONS)


def _start_and_stop(tmp_path: Path, sig: int) -> tuple[list[str], subprocess.CompletedProcess | None, Path]:
    out = tmp_path / "run.npz"
    ckpt = tmp_path / "run.ckpt.npz"
    argv = ["solve", "leduc", "-a", "cfr+", "-n", str(KILL_ITERATIONS), "--checkpoint-every", "1000",
            "--eval-every", "10000", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen([sys.executable, "-m", "cfrlab.cli.main", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300  # a cold numba cache compiles first
    while not ckpt.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    assert ckpt.exists(), proc.communicate()
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    return argv, subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), out


@pytest.mark.slow
def test_sigkill_then_resume_is_bit_identical(capsys, tmp_path, kill_reference):
    argv, done, out = _start_and_stop(tmp_path, signal.SIGKILL)
    if done.returncode == 0:
        pytest.skip("the run finished before it could be killed")
    assert done.returncode == -signal.SIGKILL and not out.exists()
    code, stdout, _ = run(capsys, *argv, "--resume", "--json")
    assert code == 0
    d = last_json(stdout)
    assert d["resumed_from"] % 1000 == 0 and 0 < d["resumed_from"] < KILL_ITERATIONS
    assert np.array_equal(Strategy.load(out).policy, kill_reference)


@pytest.mark.slow
def test_sigint_saves_a_checkpoint_then_resume_is_bit_identical(capsys, tmp_path, kill_reference):
    argv, done, out = _start_and_stop(tmp_path, signal.SIGINT)
    if done.returncode == 0:
        pytest.skip("the run finished before it could be interrupted")
    assert done.returncode == 130, done.stderr
    assert "--resume" in done.stderr and "Traceback" not in done.stderr
    code, stdout, _ = run(capsys, *argv, "--resume", "--json")
    assert code == 0
    assert 0 < last_json(stdout)["resumed_from"] < KILL_ITERATIONS
    assert np.array_equal(Strategy.load(out).policy, kill_reference)


def test_param_parsing_and_checkpoint_names():
    from cfrlab.cli.solve_cmd import checkpoint_path, parse_params

    assert parse_params(["alpha=1.5", "n=3", "alternating=false", "beta=none", "sampling=pcs"]) == {
        "alpha": 1.5, "n": 3, "alternating": False, "beta": None, "sampling": "pcs"}
    assert checkpoint_path(Path("x/leduc.npz")) == Path("x/leduc.ckpt.npz")
    assert checkpoint_path(Path("run")) == Path("run.ckpt.npz")


def test_progress_view_renders_ticks():
    from cfrlab.cli.solve_cmd import ProgressView
    from cfrlab.solvers.driver import StopRule, Tick

    view = ProgressView(load_game("leduc"), "cfr+", StopRule(target=1e-3), enabled=False)
    with view:
        view.update(Tick(120, 0.01, 12000.0, 0.0042, 120, 0.4))
    task = view.progress.tasks[0]
    assert task.completed == pytest.approx(400)
    assert task.fields["it"] == "120 it" and task.fields["speed"] == "12,000 it/s"
    assert task.fields["expl"] == "expl 0.0042 chips/g @ 120"


# -- issue 27 ---------------------------------------------------------------------------------


def test_a_deck_too_large_for_memory_is_refused_before_any_table_is_built(capsys, tmp_path, monkeypatch):
    from cfrlab.cli import solve_cmd
    from cfrlab.engine import core

    def no_engine(*a, **k):
        raise AssertionError("the engine was built before the size check")

    game = tmp_path / "k4000.game"
    game.write_text(BLIND_GAME.replace("numSuits = 1", "numSuits = 4").replace("numRanks = 4", "numRanks = 1000"))
    monkeypatch.setattr(core, "get_engine", no_engine)
    monkeypatch.setattr(solve_cmd, "available_memory", lambda: 256 << 20)
    code, out, err = run(capsys, "solve", str(game), "-a", "cfr", "-n", "1", "--no-progress")
    assert_one_line_error(code, err, "4,000 private states", "to build", "256.0 MB available")
    assert out == ""
