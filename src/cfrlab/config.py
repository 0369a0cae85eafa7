"""Numba flags and numeric thresholds in one place."""

import os
from pathlib import Path

NUMBA_CACHE = True  # every pure-array kernel is compiled with cache=True


def cache_dir() -> Path:
    """Where big one-time builds live (CFRLAB_CACHE, default ~/.cache/cfrlab)."""
    root = os.environ.get("CFRLAB_CACHE") or os.path.join(Path.home(), ".cache", "cfrlab")
    p = Path(root)
    p.mkdir(parents=True, exist_ok=True)
    return p
