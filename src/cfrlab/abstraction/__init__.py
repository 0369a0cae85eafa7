"""Private states per round and the chance model between the two players (docs/ENGINE.md)."""

from cfrlab.abstraction.lossless import LosslessModel  # noqa: F401
