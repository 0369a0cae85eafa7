"""Atomic writes and the .npz + JSON header container. Never pickles."""

from __future__ import annotations

import io
import json
import os
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


def load_npz(path: str | os.PathLike, kind: str | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Load (header, arrays). Raises CfrlabError on a missing, corrupt or foreign file."""
    path = Path(path)
    if not path.exists():
        raise CfrlabError(f"{path}: no such file")
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
