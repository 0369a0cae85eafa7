"""Shared by the spot tests: the small river spot (in Python and as a TOML file) and the CLI
run in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cfrlab.spot import make_spot

ROOT = Path(__file__).resolve().parents[1]
RIVER = "Qs Jh 2h 8d 3c"

SMALL_TOML = """game = "holdem-nolimit"
board = "Qs Jh 2h 8d 3c"
pot = 10
stack = 30
[ranges]
oop = "AA, QJs, 87s:0.5, 54s"
ip = "KK, AQs, 99:0.75, T9s"
[bets]
bet = "p, a"
raise = "a"
"""


def small_river(**kw):
    """The spot of SMALL_TOML; keywords replace its settings."""
    args = {"board": RIVER, "pot": 10, "stack": 30, "oop_range": "AA, QJs, 87s:0.5, 54s",
            "ip_range": "KK, AQs, 99:0.75, T9s", "bets": {"bet": "p, a", "raise": "a"}}
    return make_spot(**{**args, **kw})


def cli(*args: str) -> subprocess.CompletedProcess:
    """``cfrlab ARGS`` in a child process, on a 160-column console so Rich does not wrap."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "1", "COLUMNS": "160"}
    return subprocess.run([sys.executable, "-m", "cfrlab.cli.main", *args], capture_output=True,
                          text=True, cwd=ROOT, check=False, env=env)
