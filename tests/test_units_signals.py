"""The unit runner's worker processes never outlive their driver: SIGTERM stops the pool like
Ctrl-C (finished units are kept), and a driver killed outright takes its workers with it."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

DRIVER = textwrap.dedent("""
    import sys, time
    import numpy as np
    from cfrlab.jobs import UnitStore, run_units

    class Slow:
        def run(self, i):
            if i:
                time.sleep(600)  # a unit that would take ten minutes
            return np.full(3, float(i))

    if __name__ == "__main__":
        store = UnitStore(sys.argv[1], {"job": "slow"}, resume=False)
        try:
            run_units(3, Slow, (), workers=2, store=store)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(130)
""")


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], check=False, capture_output=True,
                         text=True)
    return [int(x) for x in out.stdout.split()]


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


def _start(tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "ck")],
                            stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (tmp_path / "ck" / "unit-000000.npz").exists():  # the quick unit is done
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.2)
    workers = [c for c in _children(proc.pid) if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()]
    assert len(workers) == 2
    return proc, workers


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_sigterm_stops_the_workers_and_keeps_finished_units(tmp_path):
    proc, workers = _start(tmp_path)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in out
    time.sleep(1)
    assert not any(_alive(w) for w in workers)
    assert (tmp_path / "ck" / "unit-000000.npz").exists()


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_workers_leave_when_the_driver_is_killed(tmp_path):
    proc, workers = _start(tmp_path)
    proc.kill()  # SIGKILL: no clean-up in the driver at all
    proc.wait(timeout=30)
    deadline = time.monotonic() + 20
    while any(_alive(w) for w in workers):
        assert time.monotonic() < deadline, "a worker outlived its driver"
        time.sleep(0.5)


def test_sigterm_stops_solve_with_a_final_checkpoint(tmp_path):
    """``kill`` (SIGTERM) of a checkpointing solve does what Ctrl-C does: the last chunk is
    saved, one line says how to resume, exit 130 (it used to die with nothing saved since
    the last --checkpoint-every)."""
    import re

    from cfrlab.fileio import load_npz

    out, ckpt = tmp_path / "run.npz", tmp_path / "run.ckpt.npz"
    argv = [sys.executable, "-m", "cfrlab.cli.main", "solve", "kuhn", "-a", "cfr+", "-n",
            "1000000000", "--checkpoint-every", "1000000", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300  # a cold numba cache compiles first
    while "solving with" not in _peek(proc) and proc.poll() is None:
        assert time.monotonic() < deadline, "the solve did not start"
        time.sleep(0.2)
    time.sleep(2.0)  # some chunks into the run, before the first --checkpoint-every
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    said = re.search(r"interrupted at iteration ([\d,]+); checkpoint .* --resume", err)
    assert said and "Traceback" not in err, err
    header, _ = load_npz(ckpt)
    assert header["iterations"] == int(said.group(1).replace(",", "")) > 0


def _peek(proc) -> str:
    """What the process has printed on stdout so far (without waiting for its end)."""
    import os
    import select

    buf = getattr(proc, "_seen", "")
    while select.select([proc.stdout], [], [], 0)[0]:
        chunk = os.read(proc.stdout.fileno(), 4096).decode()
        if not chunk:
            break
        buf += chunk
    proc._seen = buf
    return buf


BROKEN = textwrap.dedent("""
    import numpy as np
    from cfrlab.errors import CfrlabError
    from cfrlab.jobs import run_units

    class Broken:
        def __init__(self):
            raise FileNotFoundError("s.npz went away")

        def run(self, i):
            return np.zeros(1)

    if __name__ == "__main__":
        try:
            run_units(3, Broken, (), workers=2)
        except CfrlabError as e:
            print(e, flush=True)
""")


def test_a_worker_that_cannot_set_up_the_job_fails_the_run_in_one_line(tmp_path):
    """A pool restarts a worker whose set-up raises, for ever: the run hung (printing the same
    traceback again and again); the error is now the run's, in one line."""
    script = tmp_path / "broken.py"
    script.write_text(BROKEN)
    try:
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=180, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("the run hung")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ("a worker process could not set up the job "
                                   "(FileNotFoundError: s.npz went away)")
