"""cfrlab: counterfactual regret minimization for poker.

Layers (data flows downward, no import runs back up):
cards -> games -> tree -> abstraction -> engine -> solvers -> strategy -> evaluate -> agents
-> play / interop -> experiments -> cli (docs/ENGINE.md; tests/test_layers.py checks it)
"""

__version__ = "0.1.0"

from cfrlab import _numba_cache  # noqa: F401  (first: numba caches kernels per machine)
from cfrlab.errors import CfrlabError  # noqa: F401
