"""The memory a Deep CFR or SD-CFR run needs, estimated from its settings before any work, and
the hard bounds on the sizes a run may ask for (numpy only: no JAX needed to refuse).

``train_memory(game, method, iterations, traversals, params)`` adds up, in bytes, the parts
that grow with the settings (all float32 unless said):

* ``training``: one network's parameters, gradients, Adam's two moments and the step's
  temporaries (8 copies of the P parameters), and the activations of a batch (its forward
  and backward pass: rows x (features + 3 x widths), twice): the minibatch, or every row of
  one player in the default exact fit;
* ``networks``: what the run keeps: SD-CFR every iteration's two networks (2 x iterations x P,
  twice while the weights file is written), Deep CFR the latest two;
* ``buffers``: the reservoirs (advantages per player, Deep CFR's strategies): an item is the
  row or decision node, the cards seen (games too large to tabulate), the target and the
  weight; a reservoir holds at most ``iterations x traversals x decision nodes`` items and
  ``buffer``, and where it is handed to JAX whole (minibatches, dealt cards) its whole
  capacity counts twice;
* ``tables``: tabulated games: the features of every row, the policy, running averages and
  the exploitability's walks (float64), and SD-CFR's tabulation, one table per iteration;
* ``deals``: games too large to tabulate: each traversal batch's shuffled decks (float64
  keys and int64 order per card).

What JAX itself takes (a few hundred MB) is not counted: this is the part that can grow past
the machine. ``check_sizes`` holds the bounds no estimate can lift (XLA indexes with 32-bit
integers).
"""

from __future__ import annotations

import itertools
from math import comb

from cfrlab.deep.features import node_heads
from cfrlab.deep.network import check_layers
from cfrlab.deep.play import fits_table
from cfrlab.engine import tree_for
from cfrlab.errors import CfrlabError

MAX_BATCH = 1 << 24  # minibatch rows
MAX_BUFFER = (1 << 31) - 1  # reservoir items: indexed with int32 (JAX's random integers, the buffers' rows)


def check_sizes(params) -> None:
    """Refuse settings past the bounds that hold whatever memory a machine has: the hidden
    layers (``network.check_layers``), minibatches up to ``MAX_BATCH``, reservoirs up to
    ``MAX_BUFFER`` items."""
    check_layers(params.hidden)
    for name in ("adv_batch", "avg_batch"):
        if int(getattr(params, name)) > MAX_BATCH:
            raise CfrlabError(f"{name.replace('_', ' ')} {int(getattr(params, name)):,} is above the "
                              f"{MAX_BATCH:,} rows a minibatch may have")
    if int(params.buffer) > MAX_BUFFER:
        raise CfrlabError(f"buffer {int(params.buffer):,} is above the {MAX_BUFFER:,} items a reservoir may hold")


def train_memory(game, method: str, iterations: int, traversals: int, params) -> dict[str, int]:
    """Bytes per part of a run (module docstring) and their ``total``."""
    check_sizes(params)
    tree = tree_for(game)
    F, A = int(node_heads(tree, game).shape[1]), int(tree.num_actions)
    layers = (F, *(int(h) for h in params.hidden), A)
    P = sum(a * b + b for a, b in itertools.pairwise(layers))
    widths = sum(layers[1:])
    decisions = len(tree.decision_node)
    tabulated = fits_table(game)
    holes, cards = game.num_hole_cards, game.num_ranks * game.num_suits
    if tabulated:
        states = [comb(cards, game.total_board_cards(r)) * comb(cards - game.total_board_cards(r), holes)
                  for r in range(game.num_rounds)]
        rows = sum(states[int(tree.round[n])] for n in tree.decision_node)
        item = 4 + 4 * A + 4
        whole = bool(params.minibatch)
    else:
        rows = 0
        item = 4 + holes + game.total_board_cards(game.num_rounds - 1) + 4 * A + 4
        whole = True
    reservoirs = 3 if method == "deepcfr" else 2
    filled = min(int(params.buffer), iterations * traversals * decisions)
    buffers = reservoirs * (2 * int(params.buffer) if whole else filled) * item
    batch = max(int(params.adv_batch), int(params.avg_batch)) if whole else rows
    training = 8 * 4 * P + 2 * 4 * batch * (F + 3 * widths)
    networks = (2 * 2 * iterations if method == "sdcfr" else 2 + 1) * 4 * P
    tables = 0
    if tabulated:
        tables = rows * (4 * F + 8 * 8 * A + 2 * 8 * max(layers[1:]))
        if method == "sdcfr":
            tables += iterations * rows * A * 8
    deals = 0 if tabulated else traversals * cards * 16
    parts = {"training": training, "networks": networks, "buffers": buffers, "tables": tables, "deals": deals}
    parts["total"] = sum(parts.values())
    parts["parameters"] = P
    return parts
