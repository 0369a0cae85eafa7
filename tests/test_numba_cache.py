"""Compiled kernels are cached per machine, found by a checkout at any path, never stale."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import cfrlab
from cfrlab import numba_cache

SRC = Path(cfrlab.__file__).resolve().parent


def test_locator_is_active_on_the_installed_numba():
    # If this fails, numba's private caching API moved: kernels still cache, in-tree as before.
    assert numba_cache.active()
    assert numba_cache.cache_root() is not None


def test_a_kernel_is_cached_under_the_user_cache_by_package_path():
    from cfrlab.cards import _eval_kernels

    path = Path(_eval_kernels.rank5._cache.cache_path)
    root = numba_cache.cache_root()
    assert root in path.parents
    rel = path.relative_to(root)
    assert rel.parts[:2] == ("cards", "_eval_kernels")
    assert rel.parts[2] == numba_cache.source_hash(_eval_kernels.__file__)[:16]


def test_functions_outside_the_package_keep_numba_s_locators():
    from numba import njit

    @njit(cache=True)
    def outside(x):  # pragma: no cover - compiled
        return x + 1

    assert outside(1) == 2
    root = numba_cache.cache_root()
    assert root not in Path(outside._cache.cache_path).parents


def test_the_source_hash_covers_imported_package_modules(tmp_path, monkeypatch):
    pkg = tmp_path / "cfrlab"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "config.py").write_text("X = 1\n")
    (pkg / "sub" / "_a_kernels.py").write_text("from cfrlab.sub._b_kernels import g\n")
    (pkg / "sub" / "_b_kernels.py").write_text("from ..config import X\ng = X\n")
    (pkg / "other.py").write_text("Y = 2\n")
    monkeypatch.setattr(numba_cache, "PACKAGE", pkg)
    a = pkg / "sub" / "_a_kernels.py"
    before = numba_cache.source_hash(a)
    (pkg / "other.py").write_text("Y = 3\n")  # not imported: same hash
    assert numba_cache.source_hash(a) == before
    (pkg / "config.py").write_text("X = 2  # changed\n")  # imported by what a imports
    assert numba_cache.source_hash(a) != before


_KERNEL = textwrap.dedent("""
    from numba import njit

    from cfrlab.config import NUMBA_CACHE


    @njit(cache=NUMBA_CACHE)
    def plus_one(x):
        return x + 1
""")

_RUN = textwrap.dedent("""
    import sys
    import cfrlab
    from cfrlab import numba_cache
    numba_cache.announce_compiles(sys.stderr)
    n = []
    numba_cache.on_compile(lambda: n.append(1))
    from cfrlab import _tiny_kernels
    assert _tiny_kernels.plus_one(41) == 42
    assert cfrlab.__file__.startswith({where!r}), cfrlab.__file__
    print(len(n))
""")


def _checkout(dest: Path) -> Path:
    shutil.copytree(SRC, dest / "cfrlab", ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "cfrlab" / "_tiny_kernels.py").write_text(_KERNEL)
    return dest


def _compiles(checkout: Path, cache: Path) -> int:
    """Kernels compiled by a fresh process of ``checkout``; the one line said if any."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CFRLAB_"))}
    env.update(PYTHONPATH=str(checkout), CFRLAB_NUMBA_CACHE=str(cache), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _RUN.format(where=str(checkout))], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    n = int(out.stdout.split()[-1])
    said = [line for line in out.stderr.splitlines() if "compiling numba kernels" in line]
    root = cache / numba_cache.cache_root().name  # <numba version>-py<XY>
    want = (f"cfrlab: compiling numba kernels, first use on this machine ({numba_cache.EXPECTED};"
            f" then cached in {root}; `make warmup` compiles them all ahead)")
    assert said == ([want] if n else []), out.stderr
    return n


@pytest.mark.slow
def test_a_second_checkout_at_another_path_is_warm(tmp_path):
    cache = tmp_path / "cache"
    first = _checkout(tmp_path / "one")
    second = _checkout(tmp_path / "two")
    assert _compiles(first, cache) == 1
    assert _compiles(second, cache) == 0  # other path, other mtimes: same source, warm
    assert not list(second.rglob("*.nbi"))  # nothing written into the tree
    with open(second / "cfrlab" / "config.py", "a") as f:
        f.write("\n# an edit to a module the kernel imports\n")
    assert _compiles(second, cache) == 1  # never the stale machine code
    assert _compiles(first, cache) == 0  # each version keeps its own folder


@pytest.mark.slow
def test_every_warmup_task_runs(tmp_path, monkeypatch):
    """The warm-up covers what it says (a failing task would leave kernels cold unnoticed)."""
    from cfrlab.warmup import tasks as warmup

    monkeypatch.setenv("CFRLAB_CACHE", str(tmp_path / "cache"))
    for group in warmup.GROUPS:
        _, failures, _ = warmup.run_group(group, tmp_path)
        assert failures == [], failures


def test_prune_deletes_only_versions_unused_for_a_month(tmp_path, monkeypatch):
    monkeypatch.setattr(numba_cache, "_ROOT", tmp_path)
    monkeypatch.setattr(numba_cache, "cache_root", lambda: tmp_path)
    old, new = tmp_path / "cards" / "_k" / "old", tmp_path / "cards" / "_k" / "new"
    for d in (old, new):
        d.mkdir(parents=True)
        (d / "f-1.py311.nbi").write_bytes(b"")
    os.utime(old, (0, 0))
    assert numba_cache.prune(30) == 1
    assert new.is_dir() and not old.exists()
