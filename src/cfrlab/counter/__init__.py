"""Counter-strategies: opponent models from hand histories (``model``), the frequentist best
response, restricted Nash response and data-biased response (``responses``; RNR and DBR are
solved by CFR on the engine's vector walk in ``restricted``, checked against the LPs of
``lp``)."""

from cfrlab.counter.model import DEFAULTS, OpponentModel, build_model, default_policy  # noqa: F401
from cfrlab.counter.responses import Counter, confidence, dbr, fbr, mixture_line, rnr, sweep  # noqa: F401
