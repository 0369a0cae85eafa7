"""On-disk cache of big one-time tables (metric tables, bucket maps) under ``cache_dir()``.

Each entry is one ``.npz`` written atomically through ``cfrlab.fileio`` with a header holding
``kind`` ("cache"), the entry's ``name``, a format ``version``, the parameters it was built
from and the SHA-256 of every array. ``load`` re-hashes the arrays and returns None (and
removes the file) when anything is missing, partial, corrupt or from another version or
parameter set, so the caller rebuilds instead of trusting it. Builds made of several parts
store each finished part as its own entry, which makes them resumable.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.config import cache_dir
from cfrlab.errors import CfrlabError
from cfrlab.fileio import load_npz, save_npz

CACHE_VERSION = 1


def array_digest(a: np.ndarray) -> str:
    """SHA-256 of an array's dtype, shape and bytes."""
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    h.update(np.ascontiguousarray(a).data)
    return h.hexdigest()


def entry_path(name: str) -> Path:
    return cache_dir() / f"{name}.npz"


def params_key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def save(name: str, params: dict[str, Any], arrays: dict[str, np.ndarray]) -> Path:
    header = {
        "kind": "cache",
        "name": name,
        "version": CACHE_VERSION,
        "params": params,
        "digests": {k: array_digest(v) for k, v in arrays.items()},
    }
    path = entry_path(name)
    save_npz(path, header, arrays)
    return path


def load(name: str, params: dict[str, Any]) -> dict[str, np.ndarray] | None:
    """The entry's arrays if present and intact for these parameters, else None."""
    path = entry_path(name)
    if not path.exists():
        return None
    try:
        header, arrays = load_npz(path, "cache")
    except CfrlabError:
        _discard(path)
        return None
    ok = (header.get("version") == CACHE_VERSION and header.get("name") == name
          and params_key(header.get("params", {})) == params_key(params)
          and set(header.get("digests", {})) == set(arrays)
          and all(array_digest(arrays[k]) == d for k, d in header["digests"].items()))
    if not ok:
        _discard(path)
        return None
    return arrays


def _discard(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
