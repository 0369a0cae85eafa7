"""A unit runner: independent pieces of a long job, in local worker processes, checkpointed.

A job is ``n`` units numbered 0..n-1; ``setup(*args)`` builds (once per process) the object
whose ``run(i)`` returns unit i's result, a float64 array. Results are combined by the caller
in unit order, so the answer does not depend on how many workers ran or in which order units
finished.

Ray (``ray=ADDRESS``): the same units as tasks of actors on an existing Ray cluster, one actor
per CPU the cluster offers (or ``workers`` of them when more than one is asked for); each
actor builds the job once, like a local worker. ``connect_ray`` checks the address first, so
one that does not answer gives one line instead of a hang. Ray is an optional extra
(``pip install 'cfrlab[ray]'``).

Checkpoints (``UnitStore``): with a directory, every finished unit is written at once
(``unit-000123.npy``, atomically: a temporary file renamed), next to ``meta.json`` which
identifies the job (a dict the caller fills: game, opponent digest, number of units). A run
that is stopped (Ctrl-C, kill, reboot) and started again with ``resume=True`` skips the units
on disk and computes only the rest; the arrays on disk are the exact float64 results, so a
resumed run gives bit for bit the same answer. A directory holding another job's units is
refused, and so is one holding this job's units without ``resume`` (nothing is thrown away
silently).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

from cfrlab.errors import CfrlabError

Progress = Callable[[int, int, float, float], None]  # done, total, elapsed s, eta s (or -1)
META = "meta.json"


class UnitStore:
    """Finished units on disk (module docstring); ``None`` directory keeps nothing."""

    def __init__(self, directory: str | Path | None, meta: dict, resume: bool) -> None:
        self.dir = Path(directory) if directory is not None else None
        self.meta = meta
        if self.dir is None:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        mpath = self.dir / META
        have = self.done()
        if mpath.exists():
            try:
                old = json.loads(mpath.read_text())
            except (OSError, ValueError):
                old = None
            if old != json.loads(json.dumps(meta)) and have:
                raise CfrlabError(f"{self.dir} holds the checkpoints of another job "
                                  "(other game, strategy or version); use another directory")
        if have and not resume:
            raise CfrlabError(f"{self.dir} holds {len(have)} finished units of this job; pass "
                              "--resume to continue from them, or remove the directory to start over")
        tmp = mpath.with_suffix(".tmp")
        tmp.write_text(json.dumps(meta, indent=1, sort_keys=True))
        os.replace(tmp, mpath)

    def path(self, i: int) -> Path:
        assert self.dir is not None
        return self.dir / f"unit-{i:06d}.npy"

    def done(self) -> list[int]:
        if self.dir is None or not self.dir.exists():
            return []
        out = []
        for p in self.dir.glob("unit-*.npy"):
            try:
                out.append(int(p.stem.split("-")[1]))
            except ValueError:
                continue
        return sorted(out)

    def load(self, i: int) -> np.ndarray:
        return np.load(self.path(i), allow_pickle=False)

    def save(self, i: int, arr: np.ndarray) -> None:
        if self.dir is None:
            return
        p = self.path(i)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.save(f, np.ascontiguousarray(arr), allow_pickle=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)


# -- worker processes ---------------------------------------------------------------------
_WORKER = None


def _exit_with_parent(parent: int) -> None:
    # a driver killed outright (SIGKILL, or SIGTERM without clean-up) must not leave its
    # workers computing for hours: each one leaves when its parent is gone
    while os.getppid() == parent:
        time.sleep(2.0)
    os._exit(1)


def _init_worker(setup, args, threads: int, parent: int) -> None:
    global _WORKER
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    if threads:
        try:
            numba.set_num_threads(threads)
        except ValueError:
            pass
    _WORKER = setup(*args)


def _run_one(i: int):
    t0 = time.perf_counter()
    out = _WORKER.run(i)
    return i, out, time.perf_counter() - t0


# -- Ray ----------------------------------------------------------------------------------
RAY_CONNECT_SECONDS = 5.0


def _import_ray():
    # a cluster that is not there: a few seconds of quiet retries, not a minute of C++ warnings
    os.environ.setdefault("RAY_NUM_REDIS_GET_RETRIES", "5")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    try:
        import ray  # optional extra: imported only when a user names a cluster
    except ImportError:
        raise CfrlabError("--ray needs Ray: pip install 'cfrlab[ray]' (or pip install ray)") from None
    return ray


def connect_ray(address: str):
    """Join the Ray cluster at ``address`` ("auto": the one started on this machine with
    ``ray start --head``; "host:port": its GCS address) and return the ``ray`` module."""
    ray = _import_ray()
    if address != "auto":
        host, _, port = address.rpartition(":")
        if address.startswith("ray://") or not host or not port.isdigit():
            raise CfrlabError(f"--ray {address}: expected 'auto' or HOST:PORT of a running cluster's head")
    if ray.is_initialized():
        if _JOINED.get("address") == address:
            return ray
        ray.shutdown()  # joined another cluster earlier in this process
    if address != "auto":
        try:  # a dead address makes ray.init wait a long time: ask the port first
            socket.create_connection((host, int(port)), timeout=RAY_CONNECT_SECONDS).close()
        except OSError as e:
            raise CfrlabError(f"no Ray cluster answers at {address} ({e.strerror or e})") from None
    saved = os.dup(2)  # Ray's C++ client logs every failed retry to fd 2: we say it once
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            ray.init(address=address, logging_level="ERROR", log_to_driver=False,
                     configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise CfrlabError(f"cannot join the Ray cluster at {address}: {str(e).splitlines()[0]}") from None
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    _JOINED["address"] = address
    return ray


_JOINED: dict[str, str] = {}


class _RayWorker:
    """An actor: the job built once (as a local worker process does), then units on demand."""

    def __init__(self, setup, args) -> None:
        try:
            numba.set_num_threads(1)
        except ValueError:
            pass
        self.worker = setup(*args)

    def run(self, i: int):
        t0 = time.perf_counter()
        out = self.worker.run(i)
        return i, out, time.perf_counter() - t0


def _run_on_ray(ray, todo, setup, args, workers, finished) -> None:
    cpus = int(ray.cluster_resources().get("CPU", 1))
    count = max(1, min(len(todo), workers if workers > 1 else cpus))
    actor = ray.remote(num_cpus=1)(_RayWorker)
    actors = [actor.remote(setup, args) for _ in range(count)]
    pending = {}
    queue = list(todo)
    for a in actors:
        if queue:
            pending[a.run.remote(queue.pop(0))] = a
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            a = pending.pop(ready[0])
            i, arr, s = ray.get(ready[0])
            finished(i, arr, s)
            if queue:
                pending[a.run.remote(queue.pop(0))] = a
    finally:
        for a in actors:
            ray.kill(a)


def run_units(n: int, setup: Callable, args: tuple, *, workers: int = 1,
              store: UnitStore | None = None, progress: Progress | None = None,
              order: list[int] | None = None, ray=None) -> tuple[dict[int, np.ndarray], dict[int, float]]:
    """Run units ``order`` (default 0..n-1; those already in ``store`` are loaded instead).
    Returns (results by unit, seconds of each unit computed in this run). ``ray``: the module
    ``connect_ray`` returned, to run the units as Ray tasks."""
    todo_all = list(range(n)) if order is None else list(order)
    results: dict[int, np.ndarray] = {}
    seconds: dict[int, float] = {}
    if store is not None:
        for i in store.done():
            if i in todo_all:
                results[i] = store.load(i)
    todo = [i for i in todo_all if i not in results]
    t0 = time.perf_counter()
    total = len(todo_all)

    def finished(i, arr, s):
        results[i] = arr
        seconds[i] = s
        if store is not None:
            store.save(i, arr)
        if progress is not None:
            el = time.perf_counter() - t0
            k = len(seconds)
            left = len(todo) - k
            eta = el / k * left if k else -1.0
            progress(len(results), total, el, eta)

    if progress is not None:
        progress(len(results), total, 0.0, -1.0)
    if not todo:
        return results, seconds
    if ray is not None:
        _run_on_ray(ray, todo, setup, args, workers, finished)
        return results, seconds
    if workers <= 1:
        worker = setup(*args)
        for i in todo:
            s0 = time.perf_counter()
            arr = worker.run(i)
            finished(i, arr, time.perf_counter() - s0)
        return results, seconds
    ctx = mp.get_context("spawn")
    on_main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _terminated) if on_main else None
    try:  # SIGTERM as Ctrl-C: the pool's exit stops the workers, the finished units are kept
        with ctx.Pool(workers, initializer=_init_worker, initargs=(setup, args, 1, os.getpid())) as pool:
            for i, arr, s in pool.imap_unordered(_run_one, todo):
                finished(i, arr, s)
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, old)
    return results, seconds


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt
