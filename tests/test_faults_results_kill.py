"""Crash safety of ``cfrlab exploit-real --results FILE`` (issue 43, item 13): a run killed
outright (SIGKILL) in the middle of writing its results file, between the write and the
rename, or while a unit is computed, then resumed, gives the uninterrupted run's values to
1e-12, and leaves nothing beside the file (no temp file of a killed writer: results files are
kept and committed, e.g. under runs/).

The job: a random bucketed strategy of a reduced-deck hold'em (4 ranks x 3 suits, four
rounds, 2 buckets), 48 units (one per canonical flop) of about 0.2 s each; each run is the
real CLI in a subprocess whose ``numpy.savez`` is wrapped to stop (and be killed) at a chosen
write of the results file, or is killed at a random moment while units are computed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from test_realgame import bucketed_case, random_policy

from cfrlab.engine import row_offsets
from cfrlab.games.units import to_unit
from cfrlab.jobs import ResultsFile
from cfrlab.realgame import real_best_response
from cfrlab.strategy import Strategy

EXACT = 1e-12

# argv: mode (mid: half the archive written; written: all of it, not yet renamed; none),
# which write of the results file (1 = this run's first) to stop at, the flag file to create
# there, then the CLI's own arguments
DRIVER = textwrap.dedent("""
    import io, sys, time
    import numpy as np

    real, seen = np.savez, [0]

    def savez(f, *args, **kw):
        mode, at, flag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
        if "hi" not in kw or mode == "none":  # not the results file
            return real(f, *args, **kw)
        seen[0] += 1
        if seen[0] != at:
            return real(f, *args, **kw)
        if mode == "mid":
            buf = io.BytesIO()
            real(buf, *args, **kw)
            f.write(buf.getvalue()[:len(buf.getvalue()) // 2])
        else:
            real(f, *args, **kw)
        f.flush()
        open(flag, "w").close()
        time.sleep(600)  # killed here

    if __name__ == "__main__":  # not in the worker processes, which import this file
        np.savez = savez
        from cfrlab.cli.main import main
        main(sys.argv[4:])
""")


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """(folder, the CLI's arguments, the uninterrupted run)."""
    root = tmp_path_factory.mktemp("kill")
    game, tree, model = bucketed_case(4, 3, "0 3 1 1", 2)
    s = Strategy.from_policy(game, random_policy(tree, row_offsets(tree, model), 5), tree=tree,
                             model=model)
    model.save(root / "abs.npz")
    s.save(root / "s.npz")
    (root / "driver.py").write_text(DRIVER)
    return root, s, real_best_response(s)


def _start(root: Path, mode: str, at: int, workers: int = 1) -> tuple[subprocess.Popen, Path]:
    flag = root / f"flag-{mode}-{at}-{time.monotonic_ns()}"
    argv = [sys.executable, str(root / "driver.py"), mode, str(at), str(flag), "exploit-real",
            str(root / "s.npz"), "--abstraction", str(root / "abs.npz"), "--results",
            str(root / "r.npz"), "--workers", str(workers), "--json"]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), flag


def _units(root: Path) -> int:
    path = root / "r.npz"
    if not path.exists():
        return 0
    with np.load(path, allow_pickle=False) as data:
        return len(data["units"])


def _kill_when(proc: subprocess.Popen, ready) -> None:
    deadline = time.monotonic() + 300
    while not ready():
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)


def _file_is_whole(root: Path) -> list[int]:
    """The units of the results file, read as a resumed run reads it (checksum included)."""
    with np.load(root / "r.npz", allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        shape = data["hi"].shape
    meta.pop("store")
    return ResultsFile(root / "r.npz", meta, shape).done()


def test_an_interrupted_write_leaves_the_file_whole_and_nothing_beside_it(tmp_path, monkeypatch):
    """Ctrl-C in the middle of a write keeps the file as it was and removes the temp file; the
    temp file of a writer killed outright (a PID that is gone) goes at the next write."""
    meta, shape = {"kind": "test", "units": 4}, (2, 3)
    f = ResultsFile(tmp_path / "r.npz", meta, shape)
    f.add(0, np.full(shape, 0.1))
    before = (tmp_path / "r.npz").read_bytes()
    real = np.savez

    def interrupted(out, *args, **kw):
        out.write(b"PK\x03\x04 half an archive")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        f.add(1, np.full(shape, 0.2))
    monkeypatch.setattr(np, "savez", real)
    assert (tmp_path / "r.npz").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.npz"]
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    stale = tmp_path / f".r.npz.{int(dead.stdout)}.tmp"  # as a SIGKILLed writer leaves it
    stale.write_bytes(b"PK\x03\x04 half an archive")
    again = ResultsFile(tmp_path / "r.npz", meta, shape)
    assert again.done() == [0]
    again.add(2, np.full(shape, 0.3))
    assert [p.name for p in tmp_path.iterdir()] == ["r.npz"]
    assert ResultsFile(tmp_path / "r.npz", meta, shape).done() == [0, 2]
    np.testing.assert_allclose(again.total(), np.full(shape, 0.4), rtol=0, atol=1e-15)


@pytest.mark.slow
def test_a_run_killed_anywhere_resumes_to_the_same_value(job):
    """Five runs killed (two mid-write, one between write and rename, two while units are
    computed, one of them with two workers), then one to the end: a minute or more, for six
    processes that each start cfrlab and load the job."""
    root, s, one = job
    n = one.units
    rng = np.random.default_rng(43)
    assert n >= 8
    # 1. killed in the middle of writing the file after its 3rd unit: the file keeps 2
    proc, flag = _start(root, "mid", 3)
    _kill_when(proc, flag.exists)
    assert len(_file_is_whole(root)) == _units(root) == 2
    # 2. killed with the 2nd write of this run complete but not yet renamed: 3 kept
    proc, flag = _start(root, "written", 2)
    _kill_when(proc, flag.exists)
    assert _units(root) == 3
    # 3. two workers, killed while units are computed; 4. one, a random moment after a unit
    proc, _ = _start(root, "none", 0, workers=2)
    _kill_when(proc, lambda: _units(root) >= 6)
    kept = _units(root)
    proc, _ = _start(root, "none", 0)
    _kill_when(proc, lambda: _units(root) >= kept + 2 and not time.sleep(rng.random() * 0.3))
    kept = _units(root)
    assert 8 <= kept < n
    # 5. killed at once in the first write of a run that finds the file
    proc, flag = _start(root, "mid", 1)
    _kill_when(proc, flag.exists)
    assert _units(root) == kept
    # resumed to the end
    done = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "exploit-real",
                           str(root / "s.npz"), "--abstraction", str(root / "abs.npz"),
                           "--results", str(root / "r.npz"), "--json"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["units"] == n and got["units_computed"] == n - kept
    assert got["exploitability_chips"] == pytest.approx(one.exploitability, abs=EXACT, rel=EXACT)
    want = [to_unit(s.game, b) for b in one.br]
    np.testing.assert_allclose(got["best_response_values"], want, rtol=EXACT, atol=EXACT)
    # nothing left beside the results file by the killed writers
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == []
    assert os.path.getsize(root / "r.npz") > 0
