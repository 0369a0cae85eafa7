"""Numba flags and numeric thresholds in one place."""

import os
from pathlib import Path

NUMBA_CACHE = True  # every kernel is compiled with cache=NUMBA_CACHE (on disk: numba_cache_dir())


def cache_dir() -> Path:
    """Where big one-time builds live (CFRLAB_CACHE, default ~/.cache/cfrlab)."""
    root = os.environ.get("CFRLAB_CACHE") or os.path.join(Path.home(), ".cache", "cfrlab")
    p = Path(root)
    p.mkdir(parents=True, exist_ok=True)
    return p


def numba_cache_dir() -> Path:
    """Where numba keeps the compiled kernels, shared by every checkout on the machine.

    CFRLAB_NUMBA_CACHE if set, else NUMBA_CACHE_DIR/cfrlab if the user set numba's own
    variable, else ``cache_dir()/numba`` (~/.cache/cfrlab/numba). Not created here.
    """
    if os.environ.get("CFRLAB_NUMBA_CACHE"):
        return Path(os.environ["CFRLAB_NUMBA_CACHE"])
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / "cfrlab"
    return cache_dir() / "numba"
