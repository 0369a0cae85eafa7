"""cfrlab: counterfactual regret minimization for poker.

    import cfrlab
    result = cfrlab.solve("leduc", "cfr+", target=1e-3)   # a SolveResult
    cfrlab.exploit(result.strategy)                       # exact best responses
    cfrlab.play_match("leduc", cfrlab.make_agent(result.strategy), "always-call", 10_000)

The names below load their module on first use, so ``import cfrlab`` stays fast and a task
compiles only the kernels it runs. Layers (data flows downward, no import runs back up):
cards -> games -> tree -> abstraction -> engine -> solvers -> strategy -> evaluate -> agents
-> counter -> play / interop -> experiments -> api -> cli (docs/ENGINE.md; tests/test_layers.py checks it)
"""

import importlib

from cfrlab import numba_cache  # noqa: F401  (first: numba, once loaded, caches kernels per machine)
from cfrlab.errors import CfrlabError
from cfrlab.version import __version__

_LAZY = {
    "load_game": "cfrlab.games",
    "GameDef": "cfrlab.games",
    "solve": "cfrlab.api",
    "SolveResult": "cfrlab.api",
    "exploit": "cfrlab.api",
    "best_response": "cfrlab.api",
    "BestResponse": "cfrlab.api",
    "sizes": "cfrlab.api",
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
__all__ = ["CfrlabError", "__version__", *list(_LAZY)]  # noqa: PLE0604


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cfrlab' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__():
    return sorted(__all__)
