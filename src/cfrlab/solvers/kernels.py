"""The sampling solvers' compiled pieces other packages build on, by public name: the
splitmix64 draw, an action drawn from a row, a terminal's value for the traverser, the
preorder subtree ends, and the forward and backward passes of an external-sampling walk
(``walk_on``, ``es_values``: MCCFR's and Deep CFR's traversals); ``_mccfr_kernels`` documents
the array layouts."""

from cfrlab.solvers._mccfr_kernels import (  # noqa: F401
    es_values,
    sample_action,
    subtree_end,
    terminal_value,
    uniform,
    walk_on,
)
