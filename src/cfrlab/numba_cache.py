"""Numba's on-disk cache for cfrlab's kernels: outside the source tree, keyed by content.

Numba's own locators key a kernel's cache by the absolute folder of its source file
(``src/**/__pycache__`` or ``NUMBA_CACHE_DIR/<folder hash>``), so every fresh clone, and CI's
clone at a new path, compiles every kernel again: minutes on two cores. ``install()`` puts one
more locator at the front of numba's list; ``import cfrlab`` arranges for it to run the moment
numba's package has loaded (``install_when_numba_loads``), so before any kernel is decorated, and
a task that needs no kernel (``cfrlab --help``, reading a file) never imports numba at all.
For a source file inside the cfrlab package it keeps the compiled code in::

    <numba_cache_dir()>/<numba version>-py<XY>[-O<level>]/<module path in the package>/<source hash>/

``numba_cache_dir()`` (cfrlab.config) is CFRLAB_NUMBA_CACHE, else NUMBA_CACHE_DIR/cfrlab, else
``$CFRLAB_CACHE/numba`` (default ~/.cache/cfrlab/numba). The source hash covers the module's
bytes and those of every cfrlab module it imports, transitively: numba compiles a callee from
another module into its caller's machine code, so a caller whose own file did not change is
stale when a kernel it calls did. Checkouts at different commits therefore share what they
have in common and never each other's stale code; one folder per version of a module is kept
(delete the folder to reclaim the space). The disambiguator within a folder is the function's
first line, as numba's own locators use.

Functions outside the package (tests, notebooks) go to numba's usual locators. If numba's
private caching API is not what this expects, or the cache folder is not writable, nothing is
changed and numba caches as it always does (``active()`` says which).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import logging
import os
import shutil
import sys
import time
from functools import cache
from pathlib import Path

from cfrlab import config

PACKAGE = Path(__file__).resolve().parent
_ROOT: Path | None = None  # set by install(): this process's cache root for the package
_LOCATOR: type | None = None


def cache_root() -> Path | None:
    """The folder this process's kernels are cached in (None when the locator is not active)."""
    return _ROOT if active() else None


def _numba_api():
    """(numba's CacheImpl, its _CacheLocator base, numba.core.event), or None if they moved."""
    try:
        from numba.core import caching, event

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
        base = caching._CacheLocator
        ok = isinstance(impl._locator_classes, list) and all(
            hasattr(base, m) for m in ("ensure_cache_path", "get_cache_path", "from_function")
        ) and hasattr(event, "Listener") and hasattr(event, "register")
    except Exception:  # noqa: BLE001 - numba's private API is not as expected: keep its defaults
        return None
    return (impl, base, event) if ok else None


def _installed() -> bool:
    if _LOCATOR is None:  # checked first: no numba import while nothing is installed
        return False
    api = _numba_api()
    return api is not None and api[0]._locator_classes[:1] == [_LOCATOR]


def active() -> bool:
    """True when numba uses (or, once loaded, will use) this module's locator for cfrlab's kernels.

    Asking imports numba if nothing has yet: the answer depends on its caching API.
    """
    return install()


def display_root() -> str:
    """The cache root for messages, with the home folder shown as ~."""
    try:
        s = str(cache_root() or config.numba_cache_dir())
        home = str(Path.home())
    except (OSError, RuntimeError):
        return "src/**/__pycache__" if cache_root() is None else str(cache_root())
    return "~" + s[len(home):] if home and s.startswith(home + os.sep) else s


# ---- the source hash ------------------------------------------------------------------


def _package_relative(py_file: str) -> Path | None:
    try:
        rel = Path(os.path.realpath(py_file)).relative_to(PACKAGE)
    except (ValueError, OSError):
        return None
    return rel if rel.suffix == ".py" else None


def _module_files(module: str) -> list[Path]:
    """Files of ``cfrlab.a.b`` inside the package (its .py or its package's __init__.py)."""
    parts = module.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    cands = ([base.with_suffix(".py")] if parts else []) + [base / "__init__.py"]
    return [c for c in cands if c.is_file()]


@cache
def _file_info(path: Path, mtime_ns: int, size: int) -> tuple[str, tuple[Path, ...]]:
    """(sha256 of the bytes, cfrlab files it imports): keyed by mtime and size like numba's."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    try:
        tree = ast.parse(data, filename=str(path))
    except SyntaxError:
        return digest, ()
    rel = path.relative_to(PACKAGE)
    package = ["cfrlab", *rel.parent.parts]
    deps: list[Path] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.split(".")[0] == "cfrlab"]
            for name in names:
                deps += _module_files(name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "cfrlab":
                continue
            deps += _module_files(target)
            for alias in node.names:  # ``from cfrlab.x import submodule``
                deps += _module_files(f"{target}.{alias.name}")
    return digest, tuple(dict.fromkeys(d for d in deps if d != path))


def _info(path: Path) -> tuple[str, tuple[Path, ...]]:
    st = path.stat()
    return _file_info(path, st.st_mtime_ns, st.st_size)


def source_hash(py_file: str | Path) -> str:
    """Hex sha256 over a package module and every cfrlab module it imports, transitively."""
    start = Path(os.path.realpath(py_file))
    seen: dict[Path, str] = {}
    todo = [start]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        digest, deps = _info(p)
        seen[p] = digest
        todo.extend(deps)
    h = hashlib.sha256()
    for p in sorted(seen):
        h.update(f"{p.relative_to(PACKAGE).as_posix()}\0{seen[p]}\n".encode())
    return h.hexdigest()


def module_cache_path(py_file: str | Path) -> Path | None:
    """Where the kernels of a package module are (or would be) cached for its current source."""
    rel = _package_relative(str(py_file))
    if rel is None or _ROOT is None:
        return None
    return _ROOT / rel.with_suffix("") / source_hash(py_file)[:16]


def kernel_modules() -> list[Path]:
    """The package's kernel modules (``_*kernels.py``)."""
    return sorted(PACKAGE.rglob("_*kernels.py"))


def cold_modules() -> list[Path]:
    """Kernel modules with nothing cached for their current source (all when inactive)."""
    out = []
    for f in kernel_modules():
        d = module_cache_path(f) if active() else None
        if d is None or not any(d.glob("*.nbi")):
            out.append(f)
    return out


def prune(days: float = 30.0) -> int:
    """Delete cached versions of modules unused for ``days`` (the first kernel of a module a
    process decorates refreshes its folder's mtime). Returns how many folders went."""
    root = cache_root()
    if root is None:
        return 0
    removed = 0
    limit = time.time() - days * 86400
    for d in {index.parent for index in root.rglob("*.nbi")} - {root}:
        try:
            if d.stat().st_mtime < limit:
                shutil.rmtree(d)
                removed += 1
        except OSError:
            continue
    return removed


# ---- the locator -----------------------------------------------------------------------


_used: set[str] = set()


def _make_locator(base: type) -> type:
    class CfrlabCacheLocator(base):
        """cfrlab's kernels: cached by module path and source hash under the user cache."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._stamp = source_hash(py_file)
            self._cache_path = str(module_cache_path(py_file))

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return self._stamp

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            if _ROOT is None or _package_relative(py_file) is None:
                return None
            try:
                self = cls(py_func, py_file)
                self.ensure_cache_path()
                if self._cache_path not in _used:  # in use: prune() keeps it
                    _used.add(self._cache_path)
                    os.utime(self._cache_path)
            except (OSError, ValueError, SyntaxError):  # numba's own locators then
                return None
            return self

    return CfrlabCacheLocator


def install() -> bool:
    """Put the locator first in numba's list (once; imports numba). False, changing nothing, if
    it cannot."""
    global _ROOT, _LOCATOR
    if _installed():
        return True
    api = _numba_api()  # importing numba runs install() through the hook below, if it is set
    if api is None:
        return False
    if _installed():
        return True
    import numba

    impl, base, event = api
    try:
        root = config.numba_cache_dir() / (
            f"{numba.__version__}-py{sys.version_info[0]}{sys.version_info[1]}{_opt_suffix()}"
        )
        root.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # no home, no writable cache: numba's in-tree cache as before
        return False
    locator = _make_locator(base)
    _ROOT = root
    classes = impl._locator_classes
    classes[:] = [c for c in classes if c.__name__ != locator.__name__]
    classes.insert(0, locator)
    _LOCATOR = locator
    _listen_for_first_compile(event)
    return True


def _opt_suffix() -> str:
    """Empty at numba's default optimisation (NUMBA_OPT 3), else "-O<level>": numba's cache index
    does not record the level, so code compiled at another one (the test suite's, say) is kept
    apart and never served to a run at the default."""
    from numba.core import config as nconfig

    level = getattr(nconfig, "OPT", 3)
    try:
        level = int(level)
    except (TypeError, ValueError):
        return ""
    return "" if level == 3 else f"-O{level}"


class _AfterNumba:
    """A meta path finder that runs ``install()`` as soon as numba's package has executed.

    Every kernel module imports numba before it decorates a kernel, so the locator is in place
    in time whoever imports numba first; and numba (a fifth of a second or more) is imported
    only by a task that needs it. A mere look-up (``importlib.util.find_spec("numba")``)
    executes nothing and leaves the finder in place.
    """

    def __init__(self):
        self._finding = False

    def find_spec(self, name, path=None, target=None):
        if name != "numba" or self._finding:
            return None
        self._finding = True
        try:
            spec = importlib.util.find_spec(name)  # the finders after this one
        finally:
            self._finding = False
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return None  # an unusual loader: numba's own cache locators, as without cfrlab's
        loader.exec_module = self._then_install(loader.exec_module)  # this spec's loader only
        return spec

    def _then_install(self, exec_module):
        def run(module):
            exec_module(module)  # if numba fails to load (or Ctrl-C), the next import tries again
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            install()
        return run


def install_when_numba_loads() -> None:
    """``install()`` now if numba is loaded, else the moment it is (run by ``import cfrlab``)."""
    if "numba" in sys.modules:
        install()
    elif not any(isinstance(f, _AfterNumba) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterNumba())


# ---- telling the user ------------------------------------------------------------------


def _is_package_kernel(ev) -> bool:
    disp = (getattr(ev, "data", None) or {}).get("dispatcher")
    code = getattr(getattr(disp, "py_func", None), "__code__", None)
    return code is not None and _package_relative(code.co_filename) is not None


def on_compile(callback) -> object | None:
    """Call ``callback()`` whenever numba starts compiling a cfrlab kernel (a cache miss).

    Returns a handle for ``stop_on_compile``, or None where numba has no event API.
    """
    api = _numba_api()
    if api is None:
        return None
    event = api[2]

    class _Listener(event.Listener):
        def on_start(self, ev):
            if _is_package_kernel(ev):
                callback()

        def on_end(self, ev):
            pass

    listener = _Listener()
    event.register("numba:compile", listener)
    return listener


def stop_on_compile(handle) -> None:
    api = _numba_api()
    if handle is not None and api is not None:
        api[2].unregister("numba:compile", handle)


# How the first compile of a process is told (announce_compiles): "log" by default, or as the
# process that started this one chose (its worker processes inherit the choice by the variable).
_MODES = ("log", "terminal", "off")
_ENV = "CFRLAB_COMPILE_NOTICE"
_NOTICE: dict = {"to": os.environ.get(_ENV) if os.environ.get(_ENV) in _MODES else "log",
                 "said": False, "listening": False}
EXPECTED = "about 1-3 min"  # a first solve, match or AIVAT on two busy cores (docs/results/suite.md)
_log = logging.getLogger("cfrlab")


def compile_notice() -> str:
    """The one line said when a process first has to compile a cfrlab kernel."""
    return (f"cfrlab: compiling numba kernels, first use on this machine ({EXPECTED}; then cached"
            f" in {display_root()}; `make warmup` compiles them all ahead)")


def announce_compiles(to=None) -> None:
    """Choose how a process's first compile of a cfrlab kernel is told, once, in one line.

    A compile only happens when nothing is cached for the kernel's current source (numba found
    no machine code for it): the first use on a machine, or after an upgrade, otherwise sits a
    minute or more silent inside numba. ``to`` is "log" (the default from ``import cfrlab``: a
    warning on the ``cfrlab`` logger, which Python prints on stderr unless logging is set up
    otherwise), "terminal" (stderr, only when it is a terminal: the CLI's choice, so that what
    scripts read on its stderr does not depend on the state of the cache), "off", or a text
    stream to print the line to. ``None`` keeps the current choice. Worker processes started
    afterwards (``CFRLAB_COMPILE_NOTICE`` in their environment) tell it the same way, each once.
    """
    if isinstance(to, str) and to not in _MODES:
        raise ValueError(f"announce_compiles: {to!r} is not 'log', 'terminal', 'off' or a stream")
    if to is not None:
        _NOTICE["to"] = to
    if isinstance(to, str):
        os.environ[_ENV] = to


def _say_first_compile() -> None:
    to = _NOTICE["to"]
    if _NOTICE["said"] or to == "off":
        return
    if to == "log":
        _log.warning(compile_notice())
    elif to == "terminal":
        if not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
            return
        print(compile_notice(), file=sys.stderr, flush=True)
    else:
        print(compile_notice(), file=to, flush=True)
    _NOTICE["said"] = True


def _listen_for_first_compile(event) -> None:
    if _NOTICE["listening"]:
        return
    _NOTICE["listening"] = True

    class _FirstCompile(event.Listener):
        def on_start(self, ev):
            if not _NOTICE["said"] and _is_package_kernel(ev):
                try:
                    _say_first_compile()
                except Exception:  # noqa: BLE001 - a closed stream: no notice, but the compile goes on
                    _NOTICE["said"] = True

        def on_end(self, ev):
            pass

    event.register("numba:compile", _FirstCompile())


install_when_numba_loads()
