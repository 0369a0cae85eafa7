"""Atomic writes and the .npz + JSON header container. Never pickles.

Writes go to a temp file beside the target, named ``.NAME.PID.tmp`` (``.NAME.PID-K.tmp``
when one process writes the same target twice at once), then are renamed over it. A temp
file left by a process that died mid-write (``kill -9``) is removed by the next write to the
same target (``remove_stale_temps``): its PID is gone, or it is older than the process that
now holds that PID, or it is this process's own and no write of it is under way.

Reading (``NpzReader``, ``load_npz``) checks before allocating anything: the path is a regular
file, the archive's members use a compression this reader knows (stored, deflate), their
declared sizes fit the file, each array's declared shape fits its member (and, when the
caller says, the shape the game needs), the header is a JSON object, and nothing is a Python
object array. Every refusal is a one-line ``CfrlabError`` naming the file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import struct
import threading
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Self

import numpy as np

from cfrlab.errors import CfrlabError, one_line, printable  # noqa: F401  (re-exported)

HEADER_KEY = "__header__"
TEMP_SUFFIX = ".tmp"
MAX_HEADER_BYTES = 64 << 20  # a JSON header larger than this is refused before it is read
DEFLATE_MAX_RATIO = 1032  # deflate cannot expand a byte stream by more than this
_READ_ERRORS = (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError, NotImplementedError,
                zlib.error, struct.error, RuntimeError, IndexError, OverflowError)

_active: set[str] = set()  # temp files this process is writing now
_active_lock = threading.Lock()


# -- atomic writes -----------------------------------------------------------------------

def _temp_pattern(name: str) -> re.Pattern:
    return re.compile(rf"^\.{re.escape(name)}\.(\d+)(?:-\d+)?{re.escape(TEMP_SUFFIX)}$")


def _claim_temp(path: Path) -> Path:
    """A new temp file ``.NAME.PID[-K].tmp`` beside ``path``, created (O_EXCL) and registered."""
    pid = os.getpid()
    k = 0
    while True:
        tmp = path.parent / f".{path.name}.{pid}{f'-{k}' if k else ''}{TEMP_SUFFIX}"
        with _active_lock:
            if str(tmp) not in _active:
                try:
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                except FileExistsError:
                    fd = -1
                if fd >= 0:
                    os.close(fd)
                    _active.add(str(tmp))
                    return tmp
        k += 1


def _process_start(pid: int) -> float | None:
    """Start time (seconds since the epoch) of process ``pid`` on Linux, else None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[19])  # field 22 (starttime), counted after the command name
        with open("/proc/stat", encoding="ascii") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _is_stale(tmp: Path, pid: int) -> bool:
    """Whether temp file ``tmp`` written by process ``pid`` can no longer be finished."""
    if pid == os.getpid():
        with _active_lock:
            return str(tmp) not in _active
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        pass  # alive, another user's
    started = _process_start(pid)
    try:
        mtime = tmp.stat().st_mtime
    except OSError:
        return False
    # a live process with that PID started after the file was last written: the PID was reused
    return started is not None and mtime < started - 2.0


def stale_temps(path: str | os.PathLike) -> list[Path]:
    """Temp files of writes to ``path`` whose writer died (see the module docstring)."""
    path = Path(path)
    pattern = _temp_pattern(path.name)
    out = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return out
    for entry in entries:
        m = pattern.match(entry.name)
        if m and entry.is_file(follow_symlinks=False) and _is_stale(Path(entry.path), int(m.group(1))):
            out.append(Path(entry.path))
    return out


def remove_stale_temps(path: str | os.PathLike) -> list[Path]:
    """Delete the temp files ``stale_temps(path)`` finds; returns them."""
    removed = []
    for tmp in stale_temps(path):
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike) -> Iterator[IO[bytes]]:
    """A binary file to write ``path``'s new content into; on success it is fsynced and
    renamed over ``path``, on any exception removed and ``path`` left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path)
    tmp = _claim_temp(path)
    try:
        with open(tmp, "r+b") as f:
            os.fchmod(f.fileno(), _new_file_mode(path))  # created 0600; a written file gets the usual mode
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    finally:
        with _active_lock:
            _active.discard(str(tmp))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then rename over `path`."""
    with atomic_open(path) as f:
        f.write(data)


def _umask() -> int:
    """The process umask, read without changing it where Linux allows (os.umask sets it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_file_mode(path: Path) -> int:
    """The mode ``open(path, "w")`` would give: an existing file keeps its permission bits,
    a new one gets 0666 minus the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def save_npz(path: str | os.PathLike, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Save arrays plus a JSON header (stored as a uint8 array) atomically (streamed into
    the temp file: no in-memory copy of the archive)."""
    payload = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
    payload[HEADER_KEY] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), dtype=np.uint8)
    with atomic_open(path) as f:
        np.savez(f, **payload)


def _not_npz(path: Path) -> str | None:
    """What ``path`` is when it is not a zip archive (an .npz is one), else None."""
    if path.is_dir():
        return "it is a directory"
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError as e:
        return f"it cannot be read ({e.strerror or e})"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return None
    if not head:
        return "it is empty"
    if head[:1] == b"\x80" or (head[:6] == b"\x93NUMPY" and b"'|O'" in head):
        return "it holds pickled Python objects, which cfrlab never loads"
    if head[:6] == b"\x93NUMPY":
        return "it is a single NumPy array (.npy)"
    text = head.lstrip()
    if text[:1] in (b"{", b"["):
        return "it holds JSON text (an OpenSpiel policy is read with `cfrlab strategy import`)"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:  # not just a character cut at the 512-byte boundary
            return "it is a binary file of another kind"
    if b"GAMEDEF" in head.upper():
        return "it is a game definition (give it where a game is asked for)"
    return "it holds text"


def human_size(n: float) -> str:
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{int(n)} bytes"


_NOT_REGULAR = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def not_regular(path: str | os.PathLike) -> str | None:
    """What ``path`` is when it is neither a directory nor a regular file (reading a FIFO
    would block), else None: every reader of a user's file asks this before opening it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, name in _NOT_REGULAR:
        if test(mode):
            return f"it is {name}, not a regular file"
    return None


class NpzReader:
    """A cfrlab ``.npz`` opened for reading: ``header`` (a dict) is read and checked on
    opening, arrays on demand by ``read(name, shape=...)``, whose declared shape and dtype are
    checked (against the member's stored size, and the caller's expectation) before the array
    is allocated. Use as a context manager; errors are one-line ``CfrlabError``s."""

    def __init__(self, path: str | os.PathLike, kind: str | None = None) -> None:
        path = Path(path)
        self.path = path
        self.kind = kind
        if not path.exists():
            raise CfrlabError(f"{path}: no such file")
        foreign = None if path.is_dir() else not_regular(path)
        foreign = foreign or _not_npz(path)
        if foreign is not None:  # say what the file is not, before numpy guesses it is a pickle
            what = f"a cfrlab {kind} file is" if kind else "cfrlab files are"
            raise CfrlabError(f"{path} is not a readable cfrlab file ({what} .npz with a JSON header): {foreign}")
        try:
            self._zip = zipfile.ZipFile(path)
        except _READ_ERRORS as e:
            raise self._unreadable(e) from None
        try:
            self._members = self._check_members()
            if HEADER_KEY not in self._members:
                raise CfrlabError(f"{path}: not a cfrlab file (no header)")
            self.header = self._read_header()
            if kind is not None and self.header.get("kind") != kind:
                found = self.header.get("kind", "unknown")
                raise CfrlabError(f"{path}: expected a {kind} file, found {one_line(repr(found))[:80]}")
        except BaseException:
            self._zip.close()
            raise

    # -- context ---------------------------------------------------------------------------
    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- errors ----------------------------------------------------------------------------
    def _unreadable(self, e: BaseException | str) -> CfrlabError:
        what = e if isinstance(e, str) else f"{type(e).__name__}: {e}"
        return CfrlabError(one_line(f"{self.path}: not a readable cfrlab file ({what})"))

    # -- structure -------------------------------------------------------------------------
    def _check_members(self) -> dict[str, zipfile.ZipInfo]:
        """Member name (without .npy) -> ZipInfo, after checking methods and sizes."""
        size = os.stat(self.path).st_size
        members: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in self._zip.infolist():
            name = info.filename
            if info.flag_bits & 0x1:
                raise self._unreadable(f"member {name!r} is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise self._unreadable(
                    f"member {name!r} uses zip compression method {info.compress_type}; cfrlab reads "
                    "stored and deflate members only")
            if info.compress_size > size or info.header_offset > size:
                raise self._unreadable(f"member {name!r} declares {info.compress_size:,} bytes at offset "
                                       f"{info.header_offset:,} in a file of {size:,} bytes (truncated?)")
            total += info.compress_size
            if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
                raise self._unreadable(f"stored member {name!r} declares {info.file_size:,} bytes but "
                                       f"occupies {info.compress_size:,}")
            if info.file_size > DEFLATE_MAX_RATIO * info.compress_size + 1024:
                raise self._unreadable(f"member {name!r} declares {info.file_size:,} bytes, more than "
                                       f"its {info.compress_size:,} compressed bytes can hold")
            if not name.endswith(".npy"):
                raise self._unreadable(f"member {name!r} is not a NumPy array")
            members[name[:-4]] = info
        if total > size:
            raise self._unreadable(f"its members declare {total:,} bytes in a file of {size:,} bytes")
        return members

    @property
    def names(self) -> list[str]:
        """The arrays of the file (the header excluded)."""
        return [n for n in self._members if n != HEADER_KEY]

    def declared(self, name: str) -> tuple[tuple[int, ...], np.dtype]:
        """(shape, dtype) of array ``name`` as its header declares them (nothing allocated)."""
        shape, dtype, _ = self._declared(name)
        return shape, dtype

    def _declared(self, name: str) -> tuple[tuple[int, ...], np.dtype, int]:
        info = self._members.get(name)
        if info is None:
            raise CfrlabError(f"{self.path}: corrupt file (no array {name!r})")
        try:
            with self._zip.open(info) as fp:
                version = np.lib.format.read_magic(fp)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(fp)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(fp)
                else:
                    raise ValueError(f"array {name!r} has .npy format version {version}")
                offset = fp.tell()
        except _READ_ERRORS as e:
            raise self._unreadable(e) from None
        if dtype.hasobject:
            raise CfrlabError(f"{self.path}: not a cfrlab file (array {name!r} holds pickled Python "
                              "objects, which cfrlab never loads)")
        if any(not isinstance(d, int) or d < 0 for d in shape):
            raise self._unreadable(f"array {name!r} declares shape {shape}")
        nbytes = math.prod(shape) * dtype.itemsize
        stored = info.file_size - offset
        if nbytes > stored:
            raise self._unreadable(f"array {name!r} declares shape {shape} ({human_size(nbytes)}) but "
                                   f"its member holds {human_size(max(stored, 0))}")
        return tuple(shape), dtype, nbytes

    def read(self, name: str, *, shape: tuple | None = None, dtype: Any = None,
             what: str | None = None) -> np.ndarray:
        """Array ``name``. With ``shape`` (``None`` entries match any length) or ``dtype``, a
        declaration that differs is refused before anything is allocated; ``what`` names the
        array in that message."""
        got_shape, got_dtype, _ = self._declared(name)
        label = what or f"array {name!r}"
        if dtype is not None and got_dtype != np.dtype(dtype):
            raise CfrlabError(f"{self.path}: corrupt file ({label} is {got_dtype}, expected {np.dtype(dtype)})")
        if shape is not None and (len(got_shape) != len(shape) or any(
                w is not None and g != w for g, w in zip(got_shape, shape))):
            want = "(" + ", ".join("*" if w is None else str(w) for w in shape) + ")"
            raise CfrlabError(f"{self.path}: corrupt file ({label} has shape {got_shape}, expected {want})")
        try:
            with self._zip.open(self._members[name]) as fp:
                return np.lib.format.read_array(fp, allow_pickle=False)
        except _READ_ERRORS as e:
            raise self._unreadable(e) from None

    def _read_header(self) -> dict[str, Any]:
        shape, dtype, nbytes = self._declared(HEADER_KEY)
        if dtype != np.uint8 or len(shape) != 1:
            raise self._unreadable(f"its header is {dtype} {shape}, not JSON bytes")
        if nbytes > MAX_HEADER_BYTES:
            raise self._unreadable(f"its header declares {human_size(nbytes)}")
        raw = self.read(HEADER_KEY)
        try:
            header = json.loads(raw.tobytes().decode("utf-8"))
        except (ValueError, RecursionError) as e:
            raise self._unreadable(f"its header is not JSON: {e}") from None
        if not isinstance(header, dict):
            raise self._unreadable(f"its header is a JSON {_json_type(header)}, not an object")
        return header


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def load_npz(path: str | os.PathLike, kind: str | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Load (header, arrays). Raises CfrlabError on a missing, corrupt or foreign file.
    (``NpzReader`` reads arrays one at a time, checking their shapes first.)"""
    with NpzReader(path, kind) as z:
        return z.header, {name: z.read(name) for name in z.names}
