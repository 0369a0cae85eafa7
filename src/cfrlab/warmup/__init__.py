"""Compile cfrlab's numba kernels once per machine: ``python -m cfrlab.warmup`` (``make warmup``).

Numba compiles a kernel the first time it is called with a given signature and keeps the
machine code in the per-machine cache (``cfrlab.numba_cache``: ~/.cache/cfrlab/numba). Cold,
that is minutes of compiling spread over whichever commands or tests come first; this does it
in one visible step on two processes (one core each): the card and abstraction kernels in one,
the engine, solver and match kernels in the other (``tasks``). Each task runs a real code path
on a tiny input (reduced decks, a couple of iterations), so the signatures compiled are those
the CLI and the test suite use.

A complete run leaves a stamp for the current sources in the cache folder; while the sources
are unchanged, later runs only check the stamp (well under a second). A task that fails is
reported on one line and skipped (what it covers then compiles on first use);
``tests/test_numba_cache.py`` runs every task so that none rots unnoticed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cfrlab import config, numba_cache

GROUP_NAMES = ("cards", "engine")
STAMP_DAYS = 30  # stamps and kernels of other sources (checkouts, commits) are kept this long


def sources_stamp() -> str:
    """Hash of every module in the package: what the warm-up compiles depends on all of them."""
    h = hashlib.sha256()
    for p in sorted(numba_cache.PACKAGE.rglob("*.py")):
        h.update(p.relative_to(numba_cache.PACKAGE).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def stamp_path() -> Path | None:
    root = numba_cache.cache_root()
    return None if root is None else root / f"warmup-{sources_stamp()}.ok"


def _child_env(work: Path) -> dict:
    env = dict(os.environ)
    env["CFRLAB_NUMBA_CACHE"] = str(config.numba_cache_dir())  # the machine's kernels...
    env["CFRLAB_CACHE"] = str(work / "cache")  # ...but no tables left in the user's cache
    return env


def _run(groups, work: Path, jobs: int) -> tuple[int, list[str], list[str]]:
    """Run the groups, ``jobs`` at a time: (kernels compiled, failures, seconds per group).
    With ``CFRLAB_WARMUP_TASKS`` set, each task's seconds and kernels are printed too."""
    compiled, failures, times = 0, [], []
    if jobs >= 2:
        (work / ".two-processes").touch()  # the engine group waits for the cards' abstraction
    pending = list(groups)
    while pending:
        batch, pending = pending[:max(1, jobs)], pending[max(1, jobs):]
        procs = [(g, subprocess.Popen([sys.executable, "-m", "cfrlab.warmup.tasks", "--group", g,
                                       "--work", str(work)], env=_child_env(work),
                                      stdout=subprocess.PIPE, text=True)) for g in batch]
        for g, p in procs:
            out, _ = p.communicate()
            for line in out.splitlines():
                if line.startswith("compiled "):
                    compiled += int(line.split()[1])
                    times.append(f"{g} {line.split()[2]} s")
                elif line.startswith("failed "):
                    failures.append(line[len("failed "):])
                elif line.startswith("task ") and os.environ.get("CFRLAB_WARMUP_TASKS"):
                    task, seconds, kernels = line.split()[1:4]
                    print(f"  {g}: {task} {seconds} s, {kernels} kernels", flush=True)
            if p.returncode:
                failures.append(f"the {g} process exited with status {p.returncode}")
    return compiled, failures, times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cfrlab.warmup", description=__doc__.split("\n")[0])
    ap.add_argument("--force", action="store_true", help="run the tasks even if the stamp is there")
    ap.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    args = ap.parse_args(argv)
    where = numba_cache.display_root()
    stamp = stamp_path()
    if stamp is not None and stamp.exists() and not args.force:
        print(f"numba kernels: compiled and cached in {where} (warm-up skipped)", flush=True)
        return 0
    t0 = time.monotonic()
    if numba_cache.cold_modules():
        print(f"compiling numba kernels (once per machine; cached in {where}) ...", flush=True)
    else:
        print(f"checking numba kernels (cached in {where}) ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="cfrlab-warmup-") as tmp:
        compiled, failures, times = _run(GROUP_NAMES, Path(tmp), args.jobs)
    for f in failures:
        print(f"warm-up: {f} (compiled on first use instead)", file=sys.stderr)
    print(f"numba kernels ready: {compiled} compiled in {time.monotonic() - t0:.0f} s"
          f" ({', '.join(times)})", flush=True)
    if stamp is not None and not failures:
        stamp.touch()
        for old in stamp.parent.glob("warmup-*.ok"):
            if time.time() - old.stat().st_mtime > STAMP_DAYS * 86400:
                old.unlink(missing_ok=True)
        numba_cache.prune(STAMP_DAYS)  # kernels of sources no checkout imported for a month
    return 0
