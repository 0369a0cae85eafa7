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


# CFRLAB_COMPILE_LOG=FILE: every numba compile during the tests, one line each (seconds,
# nesting depth, kernel, test), for finding what the warm-up misses (docs/results/suite.md).
if os.environ.get("CFRLAB_COMPILE_LOG"):
    import time

    from numba.core import event

    class _CompileLog(event.Listener):
        def __init__(self, path: str) -> None:
            self.path, self.stack = path, []

        def on_start(self, ev):
            self.stack.append(time.perf_counter())

        def on_end(self, ev):
            t = time.perf_counter() - self.stack.pop()
            f = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
            name = f"{f.__module__}.{f.__qualname__}" if f is not None else "?"
            test = os.environ.get("PYTEST_CURRENT_TEST", "-").split(" ")[0]
            with open(self.path, "a") as out:
                out.write(f"{t:.2f}\t{len(self.stack)}\t{name}\t{test}\n")

    event.register("numba:compile", _CompileLog(os.environ["CFRLAB_COMPILE_LOG"]))
