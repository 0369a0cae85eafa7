"""Private states per round and the chance model between the two players (docs/ENGINE.md).

``BucketedModel`` (card abstractions for hold'em) loads on first use: its module pulls in the
seven-card evaluator, whose tables numba builds at import, and Kuhn or Leduc never need it.
"""

import importlib

from cfrlab.abstraction.lossless import LosslessModel  # noqa: F401
from cfrlab.abstraction.model import (  # noqa: F401
    BUCKETED,
    LOSSLESS,
    NPLAYER,
    SYNTHETIC,
    ChanceModel,
    cards_hash,
    has_blocks,
    hash_matches,
    maps_deals,
    perfect_recall,
)


def __getattr__(name: str):
    if name == "BucketedModel":  # loaded on first use (see the module docstring)
        return importlib.import_module("cfrlab.abstraction.bucketed").BucketedModel
    raise AttributeError(f"module 'cfrlab.abstraction' has no attribute {name!r}")
