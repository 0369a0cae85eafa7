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
    from cfrlab.units import UnitStore, run_units

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
    while not (tmp_path / "ck" / "unit-000000.npy").exists():  # the quick unit is done
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
    assert (tmp_path / "ck" / "unit-000000.npy").exists()


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_workers_leave_when_the_driver_is_killed(tmp_path):
    proc, workers = _start(tmp_path)
    proc.kill()  # SIGKILL: no clean-up in the driver at all
    proc.wait(timeout=30)
    deadline = time.monotonic() + 20
    while any(_alive(w) for w in workers):
        assert time.monotonic() < deadline, "a worker outlived its driver"
        time.sleep(0.5)
