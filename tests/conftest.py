"""Shared fixtures. Tests use reduced decks; nothing here builds full-size HULHE tables."""

import os

import pytest

from cfrlab.config import numba_cache_dir

# Compiled kernels stay in the machine's numba cache (warm across checkouts), also for the
# subprocesses tests start after the fixture below points CFRLAB_CACHE at a temp folder.
os.environ.setdefault("CFRLAB_NUMBA_CACHE", str(numba_cache_dir()))


# Keep any cache a test creates inside the pytest temp area, never in the user's home.
@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    if "CFRLAB_CACHE" not in os.environ:
        os.environ["CFRLAB_CACHE"] = str(tmp_path_factory.mktemp("cfrlab-cache"))
    yield
