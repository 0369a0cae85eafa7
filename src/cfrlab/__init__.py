"""cfrlab: counterfactual regret minimization for poker.

Layers (data flows downward, no import runs back up):
cards -> games -> tree -> abstraction -> solvers -> evaluate -> agents -> play / cli
"""

__version__ = "0.1.0"

from cfrlab import _numba_cache  # noqa: F401  (first: numba caches kernels per machine)
from cfrlab.errors import CfrlabError  # noqa: F401
