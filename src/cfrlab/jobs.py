"""A unit runner: independent pieces of a long job, in local worker processes, checkpointed.

A job is ``n`` units numbered 0..n-1; ``setup(*args)`` builds (once per process) the object
whose ``run(i)`` returns unit i's result, a float64 array. Results are combined by the caller
in unit order, so the answer does not depend on how many workers ran or in which order units
finished. ``stream_units`` hands the results over in unit order as they come instead of
keeping them, so a job of any number of units runs in bounded memory.

Ray (``ray=ADDRESS``): the same units as tasks of actors on an existing Ray cluster, one actor
per CPU the cluster offers (or ``workers`` of them when more than one is asked for); each
actor builds the job once, like a local worker. ``connect_ray`` checks the address first, so
one that does not answer, or answers but is not Ray, gives one line instead of a hang. Ray is
an optional extra (``pip install 'cfrlab[ray]'``).

Checkpoints (``UnitStore``): with a directory, every finished unit is written at once
(``unit-000123.npz``, atomically: a temporary file renamed), next to ``meta.json`` which
identifies the job (a dict the caller fills: game, opponent digest, number of units). A run
that is stopped (Ctrl-C, kill, reboot) and started again with ``resume=True`` skips the units
on disk and computes only the rest; the arrays on disk are the exact float64 results, so a
resumed run gives bit for bit the same answer. A directory holding another job's units is
refused, and so is one holding this job's units without ``resume`` (nothing is thrown away
silently).

A unit file holds its array (``values``) and a checksum (``check``) of the job's digest (the
meta), the unit's number, dtype, shape and bytes. A unit read back is used only when it is a
regular file, loads without pickles, is float64 of the job's shape, finite, and matches its
checksum; any other (damaged, truncated, emptied, changed, another job's or another unit's
file, a FIFO) is computed again, and said in one line: nothing wrong is ever added in.

Results files (``ResultsFile``): for jobs whose units are only summed, one small file holding
the sum of the finished units and their list, rewritten (atomically) after each unit: a run
continues from it, on this machine or another.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import signal
import socket
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numba
import numpy as np

from cfrlab.errors import CfrlabError, one_line
from cfrlab.fileio import atomic_open

Progress = Callable[[int, int, float, float], None]  # done, total, elapsed s, eta s (or -1)
META = "meta.json"
STORE_FORMAT = 2  # 2: unit-NNNNNN.npz with a checksum (1: bare .npy arrays, not checked)
MAX_WORKERS_PER_CPU = 4  # local processes: each imports cfrlab and loads the job
MAX_RAY_WORKERS = 1024  # actors on a cluster (each takes one of its CPUs)


ETA_WINDOW = 50  # units whose pace predicts the rest (a run's load changes over hours)
ETA_GAP_CAP = 10.0  # a gap between finishes longer than this many median gaps is a pause


def eta_seconds(ends, t0: float, left: int) -> float:
    """Seconds left for ``left`` units at the pace of the last ``ETA_WINDOW`` units finished
    (``ends``: their finishing times, oldest first, at most ETA_WINDOW + 1; ``t0``: the run's
    start, the window's start while fewer have finished); -1 before the first. A gap between
    two finishes longer than ``ETA_GAP_CAP`` times the window's median gap counts as that
    cap: a paused job (SIGSTOP, a laptop's sleep) would otherwise look slow for 50 units."""
    if not ends:
        return -1.0
    times = list(ends) if len(ends) > ETA_WINDOW else [t0, *ends]
    gaps = np.diff(np.asarray(times, dtype=np.float64))
    if len(gaps) >= 5:
        gaps = np.minimum(gaps, ETA_GAP_CAP * float(np.median(gaps)))
    return float(gaps.sum()) / len(gaps) * left


def max_workers(ray: bool = False) -> int:
    """The most worker processes a job takes: 4 per CPU of this machine (or 1,024 Ray actors)."""
    return MAX_RAY_WORKERS if ray else MAX_WORKERS_PER_CPU * (os.cpu_count() or 1)


def workers_problem(workers: int, ray: bool = False) -> str | None:
    """What is wrong with a number of workers ("must be at least 1, got 0"), or None."""
    if workers < 1:
        return f"must be at least 1, got {workers}"
    cap = max_workers(ray)
    if workers > cap:
        per = "Ray actors" if ray else f"{MAX_WORKERS_PER_CPU} per CPU of this machine"
        return f"must be at most {cap:,} ({per}), got {workers:,}"
    return None


def check_workers(workers: int, ray: bool = False) -> None:
    """Refuse a number of workers below 1 or above ``max_workers`` (a CfrlabError)."""
    problem = workers_problem(workers, ray)
    if problem is not None:
        raise CfrlabError(f"workers {problem}")


def _say(text: str) -> None:
    print(f"cfrlab: warning: {text}", file=sys.stderr, flush=True)


def _open_regular(path: Path):
    """``path`` opened for reading if it is a regular file, else None: a FIFO or a device
    must not block the open or feed a read forever."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


class UnitStore:
    """Finished units on disk (module docstring); ``None`` directory keeps nothing.

    ``shape``: the shape every unit's array has (checked when one is read back); ``warn``:
    where the one line about a bad unit goes (default: stderr)."""

    def __init__(self, directory: str | Path | None, meta: dict, resume: bool, *,
                 shape: tuple[int, ...] | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.dir = Path(directory) if directory is not None else None
        self.meta = json.loads(json.dumps({**meta, "store": STORE_FORMAT}))
        self.digest = hashlib.sha256(json.dumps(self.meta, sort_keys=True).encode()).hexdigest()
        self.shape = None if shape is None else tuple(int(x) for x in shape)
        self.warn = warn or _say
        if self.dir is None:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        mpath = self.dir / META
        have = self.done()
        # a missing meta.json refuses nothing (each unit's checksum names its job); one of
        # another job, an unreadable one, or units of the unchecked format 1 are refused
        other = bool(self._legacy()) or (bool(have) and (mpath.exists() or mpath.is_symlink())
                                         and self._read_meta(mpath) != self.meta)
        if other:
            raise CfrlabError(f"{self.dir} holds the checkpoints of another job "
                              "(other game, strategy, precision or version); use another directory")
        if have and not resume:
            raise CfrlabError(f"{self.dir} holds {len(have)} finished units of this job; resume to "
                              "continue from them (resume=True), or remove the directory to start over")
        if have and not other and self._read_meta(mpath) == self.meta:
            return  # resuming: the directory already says this job (left as it is, mtime too)
        tmp = mpath.with_name(f".{META}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.meta, indent=1, sort_keys=True))
        os.replace(tmp, mpath)

    @staticmethod
    def _read_meta(mpath: Path) -> dict | None:
        f = _open_regular(mpath)
        if f is None:
            return None
        with f:
            try:
                return json.loads(f.read(1 << 20 | 1).decode())
            except (OSError, ValueError):
                return None

    def path(self, i: int) -> Path:
        assert self.dir is not None
        return self.dir / f"unit-{i:06d}.npz"

    def done(self) -> list[int]:
        """The units that have a file (not yet checked: ``load`` does that)."""
        return self._numbers("unit-*.npz")

    def _legacy(self) -> list[int]:
        return self._numbers("unit-*.npy")  # STORE_FORMAT 1: arrays without checksums

    def _numbers(self, pattern: str) -> list[int]:
        if self.dir is None or not self.dir.exists():
            return []
        out = []
        for p in self.dir.glob(pattern):
            try:
                out.append(int(p.stem.split("-")[1]))
            except ValueError:
                continue
        return sorted(out)

    def checksum(self, i: int, arr: np.ndarray) -> str:
        h = hashlib.sha256(f"{self.digest}|{i}|{arr.dtype.str}|{arr.shape}|".encode())
        h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()

    def load(self, i: int) -> np.ndarray | None:
        """Unit i's array if its file passes every check (module docstring); else None, after
        one line saying what was wrong with it and that it will be computed again."""
        arr, problem = self._read(i)
        if problem is not None:
            self.warn(f"{self.path(i)}: {problem}; the unit is computed again")
            return None
        return arr

    def _read(self, i: int) -> tuple[np.ndarray | None, str | None]:
        f = _open_regular(self.path(i))
        if f is None:
            return None, "not a regular file"
        with f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return None, "empty"
            if self.shape is not None and size > 8 * int(np.prod(self.shape)) + (1 << 16):
                return None, "larger than a unit of this job"
            try:
                data = np.load(f, allow_pickle=False)
                if not isinstance(data, np.lib.npyio.NpzFile):
                    return None, "not a unit archive"
                with data:
                    if sorted(data.files) != ["check", "values"]:
                        return None, "not a unit archive"
                    arr, check = data["values"], str(data["check"])
            except Exception:  # noqa: BLE001 - whatever a damaged file raises, the unit is redone
                return None, "unreadable (damaged, truncated or holding pickles)"
        if arr.dtype != np.float64:
            return None, f"holds {arr.dtype} values, not float64"
        if self.shape is not None and arr.shape != self.shape:
            return None, f"holds an array of shape {arr.shape}, not {self.shape}"
        if not np.isfinite(arr).all():
            return None, "holds NaN or infinite values"
        if check != self.checksum(i, arr):
            return None, "does not match its checksum (changed, or another job's or unit's file)"
        return arr, None

    def save(self, i: int, arr: np.ndarray) -> None:
        if self.dir is None:
            return
        arr = np.ascontiguousarray(arr)
        with atomic_open(self.path(i)) as f:  # a killed writer's temp file goes at the next write
            np.savez(f, values=arr, check=np.array(self.checksum(i, arr)))


class ResultsFile:
    """A job's finished units added up in one small file, for jobs whose units' arrays are only
    ever summed: the sum and the list of the units in it, written after every unit
    (atomically), so a run can stop anywhere, be carried to another machine with its inputs,
    and continue there from the file. ``meta`` identifies the job as for ``UnitStore``; a file
    of another job is refused, a damaged one too (nothing is overwritten).

    The sum is kept in two parts (a double-double: ``hi`` + ``lo``, each addition exact up to
    ``lo``'s own rounding), so it does not depend on the order the units finished in, to
    about 1e-30 of its size before the final rounding. The file (.npz, no pickles): ``meta``
    (the job as JSON), ``units`` (int64), ``hi``, ``lo`` (float64) and ``check`` (SHA-256 of
    them all)."""

    def __init__(self, path: str | Path, meta: dict, shape: tuple[int, ...]) -> None:
        self.path = Path(path)
        self.meta = json.loads(json.dumps({**meta, "store": "results-1"}))
        self.shape = tuple(int(x) for x in shape)
        self.units: list[int] = []
        self.hi = np.zeros(self.shape)
        self.lo = np.zeros(self.shape)
        if self.path.exists() or self.path.is_symlink():
            self._read()

    def _checksum(self, meta_text: str, units: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> str:
        h = hashlib.sha256(meta_text.encode())
        for a in (units, hi, lo):
            h.update(f"|{a.dtype.str}|{a.shape}|".encode())
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    def _read(self) -> None:
        f = _open_regular(self.path)
        if f is None:
            raise CfrlabError(f"{self.path} is not a regular file")
        try:
            with f, np.load(f, allow_pickle=False) as data:
                meta_text = str(data["meta"])
                units, hi, lo, check = data["units"], data["hi"], data["lo"], str(data["check"])
            meta = json.loads(meta_text)
        except Exception:  # noqa: BLE001 - whatever a damaged file raises: one line
            raise CfrlabError(f"{self.path} is not a results file (damaged, truncated or another "
                              "kind of file); move it away to start over") from None
        if check != self._checksum(meta_text, units, hi, lo):
            raise CfrlabError(f"{self.path} does not match its checksum (damaged or changed); move "
                              "it away to start over")
        if meta != self.meta:
            what = next((k for k in ("game", "opponent", "kind", "units", "precision")
                         if meta.get(k) != self.meta.get(k)),
                        "format")
            said = {"game": "another game", "opponent": "another strategy (its digest differs)",
                    "kind": "another kind of job", "units": "another number of units",
                    "precision": "a run of another precision (float64 or float32 lanes)"}.get(
                        what, "another job format or cfrlab version")
            raise CfrlabError(f"{self.path} holds the results of {said}; use another file")
        if hi.shape != self.shape or lo.shape != self.shape or units.dtype != np.int64:
            raise CfrlabError(f"{self.path} holds arrays of another shape; use another file")
        self.units = [int(i) for i in units]
        self.hi, self.lo = hi.astype(np.float64), lo.astype(np.float64)

    def done(self) -> list[int]:
        """The units already added in."""
        return sorted(self.units)

    def add(self, i: int, arr: np.ndarray) -> None:
        """Add unit i's array to the sum (TwoSum: ``lo`` takes what ``hi`` rounds off) and
        write the file."""
        if i in set(self.units):
            raise CfrlabError(f"unit {i} is already in {self.path}")
        s = self.hi + arr
        bp = s - self.hi
        self.lo += (self.hi - (s - bp)) + (arr - bp)
        self.hi = s
        self.units.append(int(i))
        self._write()

    def total(self) -> np.ndarray:
        """The sum of the units added."""
        return self.hi + self.lo

    def _write(self) -> None:
        meta_text = json.dumps(self.meta, sort_keys=True)
        units = np.array(sorted(self.units), dtype=np.int64)
        check = self._checksum(meta_text, units, self.hi, self.lo)
        # atomic_open: the temp file of a write interrupted here (Ctrl-C) is removed, that of a
        # writer killed outright (SIGKILL, power) by the next write: nothing is left beside the
        # file (results files are kept, and committed, e.g. runs/)
        with atomic_open(self.path) as f:
            np.savez(f, meta=np.array(meta_text), units=units, hi=self.hi, lo=self.lo,
                     check=np.array(check))


# -- worker processes ---------------------------------------------------------------------
_WORKER = None
_SETUP_FAILED: str | None = None  # why this worker could not build the job


def _exit_with_parent(parent: int) -> None:
    # a driver killed outright (SIGKILL, or SIGTERM without clean-up) must not leave its
    # workers computing for hours: each one leaves when its parent is gone
    while os.getppid() == parent:
        time.sleep(2.0)
    os._exit(1)


def _init_worker(setup, args, threads: int, parent: int) -> None:
    global _WORKER, _SETUP_FAILED
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    if threads:
        try:
            numba.set_num_threads(threads)
        except ValueError:
            pass
    try:
        _WORKER = setup(*args)
    except Exception as e:  # noqa: BLE001 - a pool restarts a worker whose initializer raises
        # for ever (the run hung): the units' tasks raise it instead
        _SETUP_FAILED = str(e) if isinstance(e, CfrlabError) else f"{type(e).__name__}: {e}"


def _run_one(i: int):
    if _WORKER is None:
        raise CfrlabError(one_line(f"a worker process could not set up the job ({_SETUP_FAILED})"))
    t0 = time.perf_counter()
    out = _WORKER.run(i)
    return i, out, time.perf_counter() - t0


# -- Ray ----------------------------------------------------------------------------------
RAY_CONNECT_SECONDS = 5.0  # to open a TCP connection to the head
RAY_ANSWER_SECONDS = 30.0  # for the head's first answer; the CFRLAB_RAY_TIMEOUT variable overrides
# HTTP/2's client preface and an empty SETTINGS frame: a gRPC server (Ray's head) answers it
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def ray_timeout() -> float:
    """Seconds the Ray head has to answer (``CFRLAB_RAY_TIMEOUT``, default 30)."""
    text = os.environ.get("CFRLAB_RAY_TIMEOUT")
    if text is None:
        return RAY_ANSWER_SECONDS
    try:
        t = float(text)
    except ValueError:
        t = float("nan")
    if not 0 < t < 1e6:
        raise CfrlabError(f"CFRLAB_RAY_TIMEOUT must be a number of seconds above 0, got {text[:40]!r}")
    return t


def _probe_head(host: str, port: int, address: str, timeout: float) -> None:
    """Ask the port whether it is a gRPC server before ``ray.init`` waits on it without end:
    by RFC 7540 a server answers the client's preface with a SETTINGS frame (type 4)."""
    try:
        sock = socket.create_connection((host, port), timeout=RAY_CONNECT_SECONDS)
    except OSError as e:
        raise CfrlabError(f"no Ray cluster answers at {address} ({e.strerror or e})") from None
    with sock:
        try:
            sock.settimeout(timeout)
            sock.sendall(_H2_PREFACE)
            head = b""
            while len(head) < 9:
                part = sock.recv(9 - len(head))
                if not part:
                    break
                head += part
        except TimeoutError:
            raise CfrlabError(f"{address} accepts connections but is not a Ray cluster's head "
                              f"(no answer in {timeout:g} s; CFRLAB_RAY_TIMEOUT sets the wait)") from None
        except OSError as e:
            raise CfrlabError(f"no Ray cluster answers at {address} ({e.strerror or e})") from None
    if len(head) < 9 or head[3] != 4:
        raise CfrlabError(f"{address} answers but is not a Ray cluster's head (not gRPC)")


def _import_ray():
    # a cluster that is not there: a few seconds of quiet retries, not a minute of C++ warnings
    os.environ.setdefault("RAY_NUM_REDIS_GET_RETRIES", "5")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    try:
        import ray  # optional extra: imported only when a user names a cluster
    except ImportError:
        raise CfrlabError("running on Ray needs Ray: pip install 'cfrlab[ray]' (or pip install ray)") from None
    return ray


def connect_ray(address: str):
    """Join the Ray cluster at ``address`` ("auto": the one started on this machine with
    ``ray start --head``; "host:port": its GCS address) and return the ``ray`` module."""
    ray = _import_ray()
    if address != "auto":
        host, _, port = address.rpartition(":")
        if address.startswith("ray://") or not host or not port.isdigit():
            raise CfrlabError(f"Ray address {address}: expected 'auto' or HOST:PORT of a running cluster's head")
    if ray.is_initialized():
        if _JOINED.get("address") == address:
            return ray
        ray.shutdown()  # joined another cluster earlier in this process
    if address != "auto":  # a dead or silent address makes ray.init wait: ask the port first
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            try:  # TLS hides the protocol: a connection is all that can be checked
                socket.create_connection((host, int(port)), timeout=RAY_CONNECT_SECONDS).close()
            except OSError as e:
                raise CfrlabError(f"no Ray cluster answers at {address} ({e.strerror or e})") from None
        else:
            _probe_head(host, int(port), address, ray_timeout())
    saved = os.dup(2)  # Ray's C++ client logs every failed retry to fd 2: we say it once
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            ray.init(address=address, logging_level="ERROR", log_to_driver=False,
                     configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise CfrlabError(f"cannot join the Ray cluster at {address}: {str(e).splitlines()[0]}"
                          f"{_auth_hint(e)}") from None
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    _JOINED["address"] = address
    return ray


_JOINED: dict[str, str] = {}


def _auth_hint(e: BaseException) -> str:
    """A hint when the cluster refused for want of its token (Ray's token authentication: a head
    started where ~/.ray/auth_token exists asks every client for it; an address given
    explicitly does not send it by itself)."""
    text = ""
    while e is not None:
        text += f" {type(e).__name__} {e}"
        e = e.__cause__ or e.__context__
    if "auth" not in text.lower() or "token" not in text.lower():
        return ""
    return (" (the cluster asks for its authentication token: set RAY_AUTH_TOKEN, or RAY_AUTH_TOKEN_PATH to "
            "the head's token file)")


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
              store: UnitStore | ResultsFile | None = None, progress: Progress | None = None,
              order: list[int] | None = None, ray=None) -> tuple[dict[int, np.ndarray], dict[int, float]]:
    """Run units ``order`` (default 0..n-1; those already in ``store`` are loaded instead, and
    a stored unit that fails its checks is computed again). Returns (results by unit, seconds
    of each unit computed in this run). A ``ResultsFile`` store adds each finished unit into
    its sum instead (the results returned are then empty). ``ray``: the module ``connect_ray`` returned, to run
    the units as Ray tasks. SIGTERM stops the run as Ctrl-C does (``KeyboardInterrupt``):
    the finished units are in the store."""
    check_workers(workers, ray is not None)
    todo_all = list(range(n)) if order is None else list(order)
    results: dict[int, np.ndarray] = {}
    seconds: dict[int, float] = {}
    summed = isinstance(store, ResultsFile)  # units added into the file, not kept
    have: set[int] = set()
    if store is not None:
        wanted = set(todo_all)
        for i in store.done():
            if i in wanted:
                arr = None if summed else store.load(i)
                if summed or arr is not None:
                    have.add(i)
                if arr is not None:
                    results[i] = arr
    todo = [i for i in todo_all if i not in have]
    t0 = time.perf_counter()
    total = len(todo_all)
    ends: deque = deque(maxlen=ETA_WINDOW + 1)  # the last units' finishing times

    def finished(i, arr, s):
        seconds[i] = s
        have.add(i)
        if summed:
            store.add(i, arr)
        else:
            results[i] = arr
            if store is not None:
                store.save(i, arr)
        if progress is not None:
            now = time.perf_counter()
            ends.append(now)
            progress(len(have), total, now - t0, eta_seconds(ends, t0, len(todo) - len(seconds)))

    if progress is not None:
        progress(len(have), total, 0.0, -1.0)
    if not todo:
        return results, seconds
    with sigterm_as_interrupt():
        if ray is not None:
            _run_on_ray(ray, todo, setup, args, workers, finished)
        elif workers <= 1:
            worker = setup(*args)
            for i in todo:
                s0 = time.perf_counter()
                arr = worker.run(i)
                finished(i, arr, time.perf_counter() - s0)
        else:  # the pool's exit (on Ctrl-C or SIGTERM too) stops the workers
            with _pool(workers, setup, args) as pool:
                for i, arr, s in pool.imap_unordered(_run_one, todo):
                    finished(i, arr, s)
    return results, seconds


def stream_units(n: int, setup: Callable, args: tuple, consume: Callable[[int, np.ndarray], None],
                 *, workers: int = 1, progress: Progress | None = None) -> None:
    """Run units 0..n-1 and call ``consume(i, result)`` in unit order, keeping no result once
    consumed: memory stays bounded (a few results per worker) whatever ``n`` is. No store:
    for jobs whose units are quick to redo (LBR). SIGTERM as in ``run_units``."""
    check_workers(workers)
    t0 = time.perf_counter()

    def tick(done: int) -> None:
        if progress is not None:
            el = time.perf_counter() - t0
            progress(done, n, el, el / done * (n - done) if done else -1.0)

    tick(0)
    if n <= 0:
        return
    with sigterm_as_interrupt():
        if workers <= 1:
            worker = setup(*args)
            for i in range(n):
                consume(i, worker.run(i))
                tick(i + 1)
            return
        with _pool(workers, setup, args) as pool:
            window = 4 * workers  # units in flight: enough to keep every worker busy
            pending: deque = deque()
            submitted = 0
            for i in range(n):
                while submitted < n and submitted < i + window:
                    pending.append(pool.apply_async(_run_one, (submitted,)))
                    submitted += 1
                j, arr, _ = pending.popleft().get()
                assert j == i
                consume(i, arr)
                tick(i + 1)


def _pool(workers: int, setup: Callable, args: tuple):
    ctx = mp.get_context("spawn")
    return ctx.Pool(workers, initializer=_init_worker, initargs=(setup, args, 1, os.getpid()))


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Inside: SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does (in the main thread), so a
    job killed politely keeps what it finished and says so. Elsewhere: nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt
