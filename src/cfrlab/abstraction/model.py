"""The chance-model contract every solver, the engine and evaluation rely on.

A chance model says what each player privately knows in each round (``num_states[r]``
private states), how round r's states descend from round r-1's (``parent``), and how the two
players' states are jointly distributed (the fold tables P_r and the showdown table W of
docs/ENGINE.md). ``kind`` says which family it is, so callers branch on a declared name, never
on which attributes happen to exist:

* ``"lossless"`` (``LosslessModel``): hole cards + board of a small deck; block-structured
  tables (``BLOCK_STRUCTURED``), public chance sampling over boards.
* ``"bucketed"`` (``BucketedModel``): bucket sequences of a card abstraction; deals map to
  states (``DEALS_TO_STATES``), so chance sampling draws hole-pair slots.
* ``"spot"`` (``cfrlab.spot.model.SpotModel``): two ranges on a postflop board; blocks per
  river card (full-width walks only).
* ``"synthetic"``: made-up tables of a bucketed model's sizes (memory and speed probes).
"""

from __future__ import annotations

import logging
from typing import Protocol, runtime_checkable

import numpy as np

LOSSLESS = "lossless"
NPLAYER = "nplayer-lossless"  # the N-player deals (cfrlab.abstraction.deals): exact cards, N > 2
BUCKETED = "bucketed"
SYNTHETIC = "synthetic"
SPOT = "spot"  # a postflop spot's two ranges (cfrlab.spot.model): board blocks, no deal mapping

BLOCK_STRUCTURED = frozenset({LOSSLESS, SPOT})


def perfect_recall(model) -> bool:
    """Whether a model's round-r state determines its earlier ones (a ``parent`` map exists).
    Imperfect-recall models (``recall = "imperfect"``: a card abstraction whose state is the
    round's bucket alone) are solved by walks over real hole pairs, not by the vector walks."""
    return getattr(model, "recall", "perfect") == "perfect"  # block_parent / fold_blocks / showdown_blocks


def assemble_blocks(blocks: np.ndarray, B: int, dense_limit: int = 0):
    """The block-diagonal matrix of a block-structured model's table: ``B`` diagonal blocks,
    block b being ``blocks[b % K]`` (K = len(blocks)); dense up to ``dense_limit`` states,
    else CSR."""
    K, H, _ = blocks.shape
    n = B * H
    if n <= dense_limit:
        out = np.zeros((n, n))
        for b in range(B):
            out[b * H:(b + 1) * H, b * H:(b + 1) * H] = blocks[b % K]
        return out
    import scipy.sparse as sp

    return sp.block_diag([blocks[b % K] for b in range(B)], format="csr")
DEALS_TO_STATES = frozenset({LOSSLESS, BUCKETED})  # deal_states_batch(deals)


@runtime_checkable
class ChanceModel(Protocol):
    """What the engine reads of a chance model (docs/ENGINE.md has the table layouts)."""

    kind: str
    num_states: tuple[int, ...]
    parent: list  # round r's int array: state -> its state in round r - 1 (r >= 1)

    @property
    def hash(self) -> str: ...

    def fold_matrix(self, r: int): ...

    def showdown_matrix(self): ...


def has_blocks(model: ChanceModel) -> bool:
    """Whether the model offers its tables block by block (``fold_blocks`` and friends)."""
    return model.kind in BLOCK_STRUCTURED


def maps_deals(model: ChanceModel) -> bool:
    """Whether the model maps whole deals to both players' states (``deal_states_batch``)."""
    return model.kind in DEALS_TO_STATES


def keep_engine_views(fold: list, showdown, fold_ops: list, showdown_op: tuple):
    """For a model's ``share_tables(fold_ops, showdown_op)`` (the engine's packed operators,
    (blocks, B) views of its buffer): each fold table ``fold[r]`` the engine holds unchanged
    (P_r symmetric: G = P_r^T = P_r) is replaced in place by the engine's view; returns the
    engine's view of -W when it holds ``showdown`` that way (W antisymmetric: G = W^T = -W),
    so that the model can drop its copy, else None."""
    for r, (blocks, B) in enumerate(fold_ops):
        if B == 1 and blocks.shape[0] == 1 and np.array_equal(blocks[0], fold[r]):
            fold[r] = blocks[0]
    blocks, B = showdown_op
    if B == 1 and blocks.shape[0] == 1 and showdown is not None and np.array_equal(blocks[0], -showdown):
        return blocks[0]
    return None


_log = logging.getLogger("cfrlab")
_OLD_HASH_SAID: set[str] = set()


def say_old_hash(text: str) -> None:
    """Say ``text`` (a line about a file whose abstraction hash is of the old kind) once per
    process: a warning on the ``cfrlab`` logger, which Python prints on stderr unless logging
    is set up otherwise."""
    if text not in _OLD_HASH_SAID:
        _OLD_HASH_SAID.add(text)
        _log.warning(text)


def hash_matches(model: ChanceModel, recorded, where) -> bool:
    """Whether the model hash a file recorded (a strategy's ``model_hash``; ``where``: that
    file, for the note) names ``model``: its ``hash``, or, for a bucketed abstraction, the old
    kind of hash (``maps_hash``: the bucket maps alone, what abstraction files carried before
    their hash covered the joint tables), accepted with one line saying so."""
    if str(recorded) == str(model.hash):
        return True
    if model.kind == BUCKETED and str(recorded) == str(model.maps_hash):
        say_old_hash(f"cfrlab: note: {where}: its abstraction hash is of the old kind (the bucket "
                     f"maps only, not the joint tables); accepted: the abstraction has those maps")
        return True
    return False


def cards_hash(model: ChanceModel) -> str:
    """The hash of what maps real cards to ``model``'s states: a bucketed abstraction's
    ``maps_hash`` (its joint tables play no part in how a strategy acts on real cards, so a
    real-game best response's files keep this), any other model's ``hash``."""
    return str(model.maps_hash) if model.kind == BUCKETED else str(model.hash)
