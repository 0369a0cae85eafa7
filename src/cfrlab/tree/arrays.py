"""The public tree as the one typed bundle of arrays that the scalar kernels take.

MCCFR and the match engine walk the tree node by node; they read it as a ``TreeArrays``
namedtuple (numba passes it as a typed tuple), built once per tree by ``compile_tree``.
Layouts are ``PublicTree``'s (docs/ENGINE.md) in compact dtypes, plus ``next_node[n, a]``: the
child reached by action column a (-1 if illegal), a chance node's child in column 1.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.tree.betting_tree import PublicTree

TreeArrays = namedtuple(
    "TreeArrays",
    "kind player rnd first_child num_children child action spent decision legal next_node",
)


def compile_tree(tree: PublicTree) -> TreeArrays:
    """``tree`` as contiguous arrays for the scalar kernels (see the module docstring)."""
    n = tree.num_nodes
    if int(tree.num_children.max(initial=0)) > 127:
        raise CfrlabError("the scalar kernels take at most 127 actions per decision")
    nxt = np.full((n, tree.num_actions), -1, dtype=np.int32)
    for node in range(n):
        start = tree.first_child[node]
        for c in tree.child[start:start + tree.num_children[node]]:
            a = int(tree.action[c])
            nxt[node, 1 if a < 0 else a] = c
    return TreeArrays(
        np.ascontiguousarray(tree.kind, np.int8),
        np.ascontiguousarray(tree.player, np.int8),
        np.ascontiguousarray(tree.round, np.int8),
        np.ascontiguousarray(tree.first_child, np.int32),
        np.ascontiguousarray(tree.num_children, np.int8),
        np.ascontiguousarray(tree.child, np.int32),
        np.ascontiguousarray(tree.action, np.int8),
        np.ascontiguousarray(tree.spent, np.int32),
        np.ascontiguousarray(tree.decision, np.int32),
        np.ascontiguousarray(tree.legal, np.bool_),
        nxt,
    )
