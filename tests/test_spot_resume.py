"""A spot solve runs through the one solve loop (cfrlab.solvers.driver): it checkpoints, a run
killed with SIGKILL resumes to the uninterrupted run's tables bit for bit, and a checkpoint of
another spot, another algorithm or a damaged file is refused in one line."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader
from cfrlab.spot import make_spot
from cfrlab.spot.solve import solve_spot

ROOT = Path(__file__).resolve().parents[1]
FLOP = {"board": "Qs Jh 2h", "pot": 10, "stack": 30, "oop_range": "AA, 87s, QJs",
        "ip_range": "KK, T9s, 76s", "bets": {"bet": "p", "raise": "a"}}

CHILD = """
import sys
from cfrlab.spot import make_spot
from cfrlab.spot.solve import solve_spot
spot = make_spot(**{FLOP!r})
solve_spot(spot, algorithm=sys.argv[2], storage=sys.argv[3], target_pct=None, iterations=100000,
           checkpoint=sys.argv[1], checkpoint_every=1, threads=2)
"""


def flop(**kw):
    return make_spot(**{**FLOP, **kw})


def tables(sol):
    w = sol.walk
    return {(k, n): t[n] for k, t in (("reg", w.reg), ("cum", w.cum), ("rs", w.rscale), ("cs", w.cscale),
                                      ("pred", w.pred)) for n in t}


def saved_iterations(path: Path) -> int:
    with NpzReader(path, kind="checkpoint") as z:
        return int(z.header["iterations"])


@pytest.mark.parametrize("algorithm, storage", [("dcfr", "float32"), ("cfr+", "int16")])
def test_a_killed_solve_resumes_bit_for_bit(tmp_path, algorithm, storage):
    """The child checkpoints every iteration; it is killed (SIGKILL: no clean-up) once its
    checkpoint has passed iteration 2; resumed for two more iterations, the tables equal those
    of a run that never stopped, exactly."""
    ck = tmp_path / "run.ckpt.npz"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "1"}
    child = subprocess.Popen([sys.executable, "-c", CHILD.format(FLOP=FLOP), str(ck), algorithm, storage],
                             env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and child.poll() is None:
            if ck.exists() and saved_iterations(ck) >= 2:
                break
            time.sleep(0.05)
        assert child.poll() is None, child.stderr.read().decode()[-2000:]
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    k = saved_iterations(ck)
    assert k >= 2
    resumed = solve_spot(flop(), algorithm, target_pct=None, iterations=k + 2, storage=storage, resume=ck)
    whole = solve_spot(flop(), algorithm, target_pct=None, iterations=k + 2, storage=storage)
    assert resumed.iterations == whole.iterations == k + 2
    a, b = tables(resumed), tables(whole)
    assert a.keys() == b.keys()
    for key in a:
        assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
    assert resumed.exploitability == whole.exploitability
    assert resumed.values == whole.values
    # the checkpoint now holds the finished run
    assert saved_iterations(ck) == k + 2


def test_checkpoints_land_on_multiples_and_the_history_carries_over(tmp_path):
    """A run to 4 checkpointing every 2, then resumed to 6, measures at the same iterations as
    one run to 6 (the stop rule and measuring points are absolute iteration counts)."""
    ck = tmp_path / "c.npz"
    first = solve_spot(flop(), target_pct=None, iterations=4, check_every=2, checkpoint=ck, checkpoint_every=2)
    assert [h[0] for h in first.history] == [2, 4]
    more = solve_spot(flop(), target_pct=None, iterations=6, check_every=2, resume=ck)
    assert [h[0] for h in more.history] == [2, 4, 6]
    once = solve_spot(flop(), target_pct=None, iterations=6, check_every=2)
    assert [h[2] for h in more.history] == [h[2] for h in once.history]


def one_line(e) -> str:
    msg = str(e.value)
    assert "\n" not in msg and msg
    return msg


def test_other_spot_algorithm_storage_or_damage_is_refused(tmp_path):
    ck = tmp_path / "c.npz"
    solve_spot(flop(), target_pct=None, iterations=2, checkpoint=ck, checkpoint_every=1)
    before = ck.read_bytes()
    with pytest.raises(CfrlabError) as e:  # another pot: another spot
        solve_spot(flop(pot=12), target_pct=None, iterations=4, resume=ck)
    assert "model" in one_line(e) or "spot" in one_line(e)
    with pytest.raises(CfrlabError) as e:  # another range
        solve_spot(flop(ip_range="KK, T9s"), target_pct=None, iterations=4, resume=ck)
    one_line(e)
    with pytest.raises(CfrlabError) as e:  # other bet sizes: another tree
        solve_spot(flop(bets={"bet": "p, a", "raise": "a"}), target_pct=None, iterations=4, resume=ck)
    assert "betting" in one_line(e)
    with pytest.raises(CfrlabError) as e:
        solve_spot(flop(), algorithm="cfr+", target_pct=None, iterations=4, resume=ck)
    assert "algorithm" in one_line(e)
    with pytest.raises(CfrlabError) as e:
        solve_spot(flop(), target_pct=None, iterations=4, storage="int16", resume=ck)
    one_line(e)
    with pytest.raises(CfrlabError) as e:  # a fresh run never overwrites a checkpoint
        solve_spot(flop(), target_pct=None, iterations=4, checkpoint=ck, checkpoint_every=1)
    one_line(e)
    assert ck.read_bytes() == before
    bad = tmp_path / "bad.npz"
    bad.write_bytes(before[: len(before) // 2])
    with pytest.raises(CfrlabError) as e:
        solve_spot(flop(), target_pct=None, iterations=4, resume=bad)
    one_line(e)
    # a table with a NaN, written as a valid file: refused by the solver's own checks
    from cfrlab.fileio import save_npz

    with NpzReader(ck, kind="checkpoint") as z:
        header = dict(z.header)
        arrays = {name: z.read(name) for name in z.names}
    name = next(n for n in arrays if n.startswith("s.reg."))
    arrays[name] = arrays[name].copy()
    arrays[name].flat[0] = np.nan
    nan = tmp_path / "nan.npz"
    save_npz(nan, header, arrays)
    with pytest.raises(CfrlabError) as e:
        solve_spot(flop(), target_pct=None, iterations=4, resume=nan)
    assert "NaN" in one_line(e)


def test_the_cli_checkpoints_and_resumes(tmp_path, capsys):
    """`cfrlab spot solve --checkpoint F --checkpoint-every N`, then `--resume F`: the figures of
    one uninterrupted run; an existing checkpoint is not overwritten without --force."""
    import json

    from cli_run import run
    from spot_helpers import SMALL_TOML

    toml = tmp_path / "river.toml"
    toml.write_text(SMALL_TOML)
    ck = tmp_path / "run.ckpt.npz"
    code, _, err = run(capsys, "spot", "solve", str(toml), "--iterations", "4", "--target", "1e-9",
                       "--checkpoint", str(ck), "--checkpoint-every", "2", "--json")
    assert code == 0, err
    code, out, err = run(capsys, "spot", "solve", str(toml), "--iterations", "6", "--target", "1e-9",
                         "--resume", str(ck), "--json")
    assert code == 0, err
    resumed = json.loads(out.strip().splitlines()[-1])
    code, out, err = run(capsys, "spot", "solve", str(toml), "--iterations", "6", "--target", "1e-9", "--json")
    whole = json.loads(out.strip().splitlines()[-1])
    for key in ("iterations", "exploitability_pct", "ev_oop", "ev_ip", "root"):
        assert resumed[key] == whole[key], key
    full = tmp_path / "full.npz"  # a save in full continues the same way
    code, _, err = run(capsys, "spot", "solve", str(toml), "--iterations", "4", "--target", "1e-9",
                       "--save", str(full), "--save-depth", "full")
    assert code == 0, err
    code, out, err = run(capsys, "spot", "solve", str(toml), "--iterations", "6", "--target", "1e-9",
                         "--resume", str(full), "--json")
    assert code == 0, err
    again = json.loads(out.strip().splitlines()[-1])
    for key in ("iterations", "exploitability_pct", "ev_oop", "ev_ip", "root"):
        assert again[key] == whole[key], key
    code, _, err = run(capsys, "spot", "solve", str(toml), "--iterations", "2", "--checkpoint", str(ck),
                       "--checkpoint-every", "1")
    assert code != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "spot", "solve", str(toml), "--iterations", "2", "--checkpoint-every", "1")
    assert code != 0 and "--checkpoint" in err


@pytest.mark.parametrize("storage, algorithm", [("float32", "dcfr"), ("int16", "dcfr"), ("float32", "pcfr+")])
def test_a_full_save_resumes_bit_for_bit_and_reads_as_a_save(tmp_path, storage, algorithm):
    """A flop solve saved in full after 5 iterations and resumed from the save to 9 has the
    uninterrupted 9-iteration solve's tables bit for bit, and the save is not written to; it
    reads back as any save (its average strategy, the same figures). A save that keeps the
    strategy only, or one of another spot, is refused in one line."""
    from cfrlab.spot.store import load_solution, save_solution

    first = solve_spot(flop(), algorithm, target_pct=None, iterations=5, storage=storage)
    full = tmp_path / "full.npz"
    save_solution(first, full, "full")
    stamp = full.stat().st_mtime_ns
    resumed = solve_spot(flop(), algorithm, target_pct=None, iterations=9, storage=storage, resume=full)
    whole = solve_spot(flop(), algorithm, target_pct=None, iterations=9, storage=storage)
    a, b = tables(resumed), tables(whole)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert full.stat().st_mtime_ns == stamp
    back = load_solution(full, flop())
    assert back.iterations == 5 and back.exploitability == first.exploitability and not back.ignored
    for n in first.walk.cum:
        assert np.array_equal(back.walk.cum[n], first.walk.cum[n])
    plain = tmp_path / "plain.npz"
    save_solution(first, plain)
    with pytest.raises(CfrlabError, match="keeps the average strategy only") as e:
        solve_spot(flop(), algorithm, target_pct=None, iterations=9, storage=storage, resume=plain)
    assert "\n" not in str(e.value)
    with pytest.raises(CfrlabError, match="pot 10, .*not for .*pot 12"):
        solve_spot(flop(pot=12), algorithm, target_pct=None, iterations=9, storage=storage, resume=full)
    with pytest.raises(CfrlabError, match="full save keeps the state"):
        save_solution(back, tmp_path / "again.npz", "full")
