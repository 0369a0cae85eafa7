"""The public betting tree of every ACPC game, 2 to N players, limit and no-limit, as flat arrays
(docs/ENGINE.md)."""

from cfrlab.tree.betting_tree import (  # noqa: F401
    CALL_ACTION,
    CHANCE,
    DECISION,
    FOLD,
    FOLD_ACTION,
    RAISE_ACTION,
    SHOWDOWN,
    PublicTree,
    build_tree,
    node_of_betting,
)
