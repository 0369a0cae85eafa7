"""Atomic writes and the .npz + JSON header container. Never pickles."""

from __future__ import annotations

import io
import json
import os
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.errors import CfrlabError

HEADER_KEY = "__header__"


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then rename over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _new_file_mode(path))  # mkstemp makes 0600; a written file gets the usual mode
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


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
    """Save arrays plus a JSON header (stored as a uint8 array) atomically."""
    buf = io.BytesIO()
    payload = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
    payload[HEADER_KEY] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), dtype=np.uint8)
    np.savez(buf, **payload)
    atomic_write_bytes(path, buf.getvalue())


def _looks_pickled(path: Path) -> bool:
    """A pickle stream (protocol 2+) or a .npy file of Python objects."""
    with open(path, "rb") as f:
        head = f.read(128)
    return head[:1] == b"\x80" or (head[:6] == b"\x93NUMPY" and b"'|O'" in head)


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


def load_npz(path: str | os.PathLike, kind: str | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Load (header, arrays). Raises CfrlabError on a missing, corrupt or foreign file."""
    path = Path(path)
    if not path.exists():
        raise CfrlabError(f"{path}: no such file")
    foreign = _not_npz(path)
    if foreign is not None:  # say what the file is not, before numpy guesses it is a pickle
        what = f"a cfrlab {kind} file is" if kind else "cfrlab files are"
        raise CfrlabError(f"{path} is not a readable cfrlab file ({what} .npz with a JSON header): {foreign}")
    try:
        with np.load(path, allow_pickle=False) as z:
            if HEADER_KEY not in z.files:
                raise CfrlabError(f"{path}: not a cfrlab file (no header)")
            header = json.loads(bytes(z[HEADER_KEY]).decode())
            arrays = {k: z[k] for k in z.files if k != HEADER_KEY}
    except CfrlabError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as e:
        if "pickle" in str(e) and _looks_pickled(path):  # numpy refused it; say so plainly
            raise CfrlabError(f"{path}: not a cfrlab file (it holds pickled Python objects, "
                              "which cfrlab never loads)") from None
        raise CfrlabError(f"{path}: not a readable cfrlab file ({type(e).__name__}: {e})") from None
    if kind is not None and header.get("kind") != kind:
        raise CfrlabError(f"{path}: expected a {kind} file, found {header.get('kind', 'unknown')!r}")
    return header, arrays
