"""cfrlab: counterfactual regret minimization for poker.

    import cfrlab
    result = cfrlab.solve("leduc", "cfr+", target=1e-3)   # a SolveResult
    cfrlab.exploit(result.strategy)                       # exact best responses
    cfrlab.play_match("leduc", cfrlab.make_agent(result.strategy), "always-call", 10_000)

The names below load their module on first use, so ``import cfrlab`` stays fast and a task
compiles only the kernels it runs. ``LAYERS`` is the package's layer order, written here once:
data flows downward and no import runs back up (``layer_order()`` prints it; docs/ENGINE.md
shows it and tests/test_layers.py checks both the imports and the docs against it).
"""

import os as _os
import sys as _sys


def _cli_interrupts() -> None:
    """Run as the ``cfrlab`` command (the script, or ``python -m cfrlab.cli.main``), a Ctrl-C
    that lands before the CLI's own handler is in place (while Python loads cfrlab, numba,
    typer) or after it (interpreter exit) ends with the CLI's one line and exit code 130, not
    a traceback. Imported as a library, nothing changes."""
    argv = getattr(_sys, "orig_argv", [])  # the interpreter's own: python [options] -m MODULE
    i = next((k for k, a in enumerate(argv[1:-1], 1) if not a.startswith("-") or a == "-m"), 0)
    module = argv[i + 1] if i and argv[i] == "-m" else None
    if _os.path.basename(_sys.argv[0] if _sys.argv else "") not in ("cfrlab", "cfrlab.exe") and \
            module not in ("cfrlab", "cfrlab.cli.main"):
        return

    def interrupted() -> None:
        try:
            _sys.stderr.write("cfrlab: error: interrupted\n")
            _sys.stderr.flush()
        finally:
            _os._exit(130)

    def excepthook(kind, value, tb, previous=_sys.excepthook):
        if issubclass(kind, KeyboardInterrupt):
            interrupted()
        previous(kind, value, tb)

    def unraisablehook(info, previous=_sys.unraisablehook):  # Ctrl-C in an atexit callback
        if isinstance(info.exc_value, KeyboardInterrupt):
            interrupted()
        previous(info)

    _sys.excepthook, _sys.unraisablehook = excepthook, unraisablehook


_cli_interrupts()

from cfrlab import numba_cache  # noqa: F401  (first: numba, once loaded, caches kernels per machine)
from cfrlab.errors import CfrlabError
from cfrlab.lazy import lazy_names
from cfrlab.version import __version__

# the layer order: each entry a layer's rooms; a module imports from its own layer and the ones
# before it only. The first layer is the modules beside the package root.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "config", "fileio", "numba_cache", "known_values", "version", "jobs", "lazy"),
    ("cards",), ("games",), ("tree",), ("abstraction",), ("engine",), ("solvers",), ("strategy",), ("deep",),
    ("subgame",), ("evaluate",), ("agents",), ("realgame",), ("counter",), ("play", "interop"), ("envs",), ("experiments",),
    ("spot",),
    ("api",), ("cli", "warmup", "__main__"),
)


def layer_order() -> str:
    """The layers as one line, lowest first (the root modules left out)."""
    return " -> ".join(" / ".join(rooms) for rooms in LAYERS[1:])


_LAZY = {
    "load_game": "cfrlab.games",
    "GameDef": "cfrlab.games",
    "solve": "cfrlab.api",
    "SolveResult": "cfrlab.api",
    "exploit": "cfrlab.api",
    "best_response": "cfrlab.api",
    "BestResponse": "cfrlab.api",
    "sizes": "cfrlab.api",
    "lbr": "cfrlab.api",
    "cfrbr": "cfrlab.realgame.cfrbr",
    "CardMap": "cfrlab.realgame.cfrbr",
    "cfrbr_trunk": "cfrlab.realgame.cfrbr_trunk",
    "Strategy": "cfrlab.strategy",
    "make_agent": "cfrlab.agents",
    "play_match": "cfrlab.agents",
    "crosstable": "cfrlab.agents",
    "play_nmatch": "cfrlab.agents",
    "ncrosstable": "cfrlab.agents",
    "Agent": "cfrlab.agents",
    "to_openspiel": "cfrlab.interop",
    "from_openspiel": "cfrlab.interop",
}
__all__ = ["LAYERS", "CfrlabError", "__version__", "layer_order", *list(_LAZY)]  # noqa: PLE0604


__getattr__, __dir__ = lazy_names("cfrlab", _LAZY, lambda: __all__)
