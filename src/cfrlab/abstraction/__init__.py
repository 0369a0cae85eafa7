"""Private states per round and the chance model between the two players (docs/ENGINE.md)."""

from cfrlab.abstraction.bucketed import BucketedModel  # noqa: F401
from cfrlab.abstraction.lossless import LosslessModel  # noqa: F401
from cfrlab.abstraction.model import (  # noqa: F401
    BUCKETED,
    LOSSLESS,
    SYNTHETIC,
    ChanceModel,
    has_blocks,
    maps_deals,
)
