"""The sampling solvers' compiled pieces other packages build on, by public name: the
splitmix64 draw, an action drawn from a row, a terminal's value for the traverser and the
preorder subtree ends (``_mccfr_kernels`` documents the array layouts)."""

from cfrlab.solvers._mccfr_kernels import (  # noqa: F401
    sample_action,
    subtree_end,
    terminal_value,
    uniform,
)
