"""The compiled walk: public tree x chance model as the plain arrays the kernels take.

``Engine(tree, model)`` packs everything the kernels of ``_kernels`` need once:

- ``row_offset`` int64[D + 1] (``tree_layout``): decision d's rows are
  ``row_offset[d] : row_offset[d] + num_states[round(d)]``; the last entry is the row count.
- ``nodes`` int64[N, 8], ``child`` int64[E]: the tree (columns in ``_kernels``).
- ``pmap`` / ``pmap_off``: every round's parent map end to end.
- terminal operators ``optab`` / ``opbuf``: per round the fold table P_r and on the last round
  the showdown table W, as transposed blocks for each player (shared when the tables are
  symmetric / antisymmetric, as lossless ones are). A model with a block-diagonal structure
  (``fold_blocks(r)``, ``showdown_blocks()``) is stored block by block; any other model is
  stored dense from ``fold_matrix`` / ``showdown_matrix``.

``Engine.layout(cap)`` places node vectors of ``cap[r]`` slots in the arenas, terminals of the
same round and kind contiguously so their products batch into one matrix product.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cfrlab.abstraction.model import has_blocks, perfect_recall
from cfrlab.engine._kernels import OP_ALL_BUT_SELF, OP_DENSE, OP_RANKED
from cfrlab.errors import CfrlabError
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN, tree_count

MAX_DENSE_STATES = 40_000  # a non-block table larger than this (n x n) is refused
STRUCTURE_MAX_H = 4096  # operator structure detection (see _structure) only below these sizes
STRUCTURE_MAX_ENTRIES = 50_000_000
FLOAT32_STATES = 256  # the full-width solvers' float32 tables from here (solvers.cfr.FLOAT32_MIN_STATES)


def tree_layout(tree, model) -> np.ndarray:
    """``row_offset`` int64[D + 1] of the policy / regret layout (docs/ENGINE.md)."""
    ns = np.asarray(model.num_states, dtype=np.int64)
    sizes = ns[tree.round[tree.decision_node].astype(np.int64)]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


@dataclass
class Layout:
    """Arena placement for vectors of ``cap[r]`` slots (see ``_kernels``)."""

    cap: np.ndarray  # int64[R]
    node_off: np.ndarray  # int64[N]
    groups: np.ndarray  # int64[G, 7]
    term_util: np.ndarray  # float64[2, terminals]
    size: int  # arena length

    def arenas(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh (reach, values), each float64[2, size]."""
        return np.zeros((2, self.size)), np.zeros((2, self.size))


def _dense(m) -> np.ndarray:
    if sp.issparse(m):
        n = m.shape[0]
        if n > MAX_DENSE_STATES:
            raise CfrlabError(f"a {n} x {n} sparse chance table without block structure is too large")
        return m.toarray()
    return np.asarray(m, dtype=np.float64)


def _structure(blocks: np.ndarray) -> tuple[int, float, np.ndarray]:
    """(kind, c, int data) of an operator's G blocks (v[x] = sum_y G[y, x] r[y]).

    ``c * (1 - I)`` in every block -> OP_ALL_BUT_SELF; ``G[y, x] = c * sign(rank_x - rank_y)``
    in every block -> OP_RANKED with, per block, the states in rank order and each position's
    tie group [start, end); anything else stays dense."""
    K, H, _ = blocks.shape
    none = np.zeros(0, dtype=np.int64)
    # structured kinds only come from one-hole-card decks; skip the checks (and their
    # temporaries) on the wide dense tables of bucketed models, or when the diagonal is not 0
    if H < 2 or H > STRUCTURE_MAX_H or K * H * H > STRUCTURE_MAX_ENTRIES:
        return OP_DENSE, 0.0, none
    if np.any(blocks[:, np.arange(H), np.arange(H)] != 0.0):
        return OP_DENSE, 0.0, none
    c = float(np.abs(blocks).max())
    if c == 0.0:
        return OP_DENSE, 0.0, none
    off_diag = 1.0 - np.eye(H)
    if np.array_equal(blocks, np.broadcast_to(c * off_diag, blocks.shape)):
        return OP_ALL_BUT_SELF, c, none
    orders, ends, starts = [], [], []
    for k in range(K):
        g = blocks[k]
        rank = (g > 0).sum(axis=0)  # how many hands x beats
        if not np.array_equal(g, c * np.sign(rank[None, :] - rank[:, None]).astype(np.float64)):
            return OP_DENSE, 0.0, none
        order = np.argsort(rank, kind="stable")
        sr = rank[order]
        starts.append(np.searchsorted(sr, sr, side="left"))
        ends.append(np.searchsorted(sr, sr, side="right"))
        orders.append(order)
    return OP_RANKED, c, np.concatenate(orders + ends + starts).astype(np.int64)


class Engine:
    """Tree and chance model packed for the kernels (layouts in the module docstring)."""

    def __init__(self, tree, model) -> None:
        if tree.game.num_rounds != len(model.num_states):
            raise CfrlabError("the chance model and the tree have different numbers of rounds")
        # no reference to tree or model is kept, so the cache below can hold engines weakly
        self.game = tree.game
        self._tree_arrays = (tree.kind, tree.round, tree.player, tree.spent)
        R = tree.game.num_rounds
        self.num_states = np.asarray(model.num_states, dtype=np.int64)
        self.row_offset = tree_layout(tree, model)
        self.num_rows = int(self.row_offset[-1])
        self.nodes = np.stack(
            [tree.kind, tree.player, tree.round, tree.parent, tree.action, tree.decision,
             tree.first_child, tree.num_children], axis=1).astype(np.int64)
        self.child = tree.child.astype(np.int64)
        self.legal = np.ascontiguousarray(tree.legal, dtype=np.bool_)
        self.num_actions = int(tree.num_actions)  # columns of the policy tables
        self.tree_count = tree_count(tree)  # its sizes, for memory estimates
        dec_sizes = np.diff(self.row_offset)
        self.decision_of_row = np.repeat(np.arange(tree.num_decisions, dtype=np.int64), dec_sizes)
        self.player_of_row = tree.player[tree.decision_node][self.decision_of_row].astype(np.int8)
        # player 0's winnings at a fold, the stake at a showdown (chance-sampled walks)
        sp = tree.spent.astype(np.float64)
        self.node_u = np.where(tree.kind == FOLD, np.where(tree.player == 0, -sp[:, 0], sp[:, 1]),
                               np.where(tree.kind == SHOWDOWN, sp.min(axis=1), 0.0))
        # preorder: node n's subtree is n .. subtree_end[n] - 1
        self.subtree_end = np.arange(1, tree.num_nodes + 1, dtype=np.int64)
        for n in range(tree.num_nodes - 1, 0, -1):
            p = tree.parent[n]
            self.subtree_end[p] = max(self.subtree_end[p], self.subtree_end[n])
        self.pmap_off = np.concatenate([[0], np.cumsum(self.num_states)[:-1]]).astype(np.int64)
        # imperfect recall: no parent map and no terminal tables; only walks over real hole
        # pairs (public chance sampling, solvers.pcs_holes) use such an engine
        self.perfect_recall = perfect_recall(model)
        if self.perfect_recall:
            self.pmap = np.concatenate([np.asarray(model.parent[r], dtype=np.int64) for r in range(R)])
            self._build_ops(model)
        else:
            self.pmap = np.zeros(0, dtype=np.int64)
            self._no_ops()
        self.block_parents = None  # per round int64[B_r]: board blocks, for public chance sampling
        if has_blocks(model):
            self.block_parents = [np.asarray(model.block_parent(r), dtype=np.int64) for r in range(R)]
        self._layouts: dict[tuple, Layout] = {}
        self._scratch: tuple[np.ndarray, np.ndarray] | None = None

    # -- terminal operators ------------------------------------------------------------
    def _build_ops(self, model) -> None:
        R = self.game.num_rounds
        bufs: list[np.ndarray] = []
        ints: list[np.ndarray] = []
        tab: list[tuple[int, ...]] = []
        consts: list[float] = []
        size = 0
        isize = 0

        def add(blocks: np.ndarray, B: int) -> int:
            nonlocal size, isize
            K, H, _ = blocks.shape
            bufs.append(np.ascontiguousarray(blocks, dtype=np.float64).reshape(-1))
            kind, c, extra = _structure(blocks)
            tab.append((size, K, B, H, kind, isize))
            consts.append(c)
            ints.append(extra)
            size += blocks.size
            isize += extra.size
            return len(tab) - 1

        def pair(blocks: np.ndarray, B: int, showdown: bool) -> tuple[int, int]:
            g0 = np.ascontiguousarray(blocks.transpose(0, 2, 1))  # G_0 = M_0^T
            g1 = -blocks if showdown else blocks  # G_1 = M_1^T: P_r, or -W
            i0 = add(g0, B)
            i1 = i0 if np.array_equal(g0, g1) else add(np.ascontiguousarray(g1), B)
            return i0, i1

        self.fold_ops = []
        for r in range(R):
            if has_blocks(model):
                blocks, B = model.fold_blocks(r)
            else:
                blocks, B = _dense(model.fold_matrix(r))[None], 1
            self._check_blocks(blocks, B, r)
            self.fold_ops.append(pair(np.asarray(blocks, np.float64), B, False))
        if has_blocks(model):
            blocks, B = model.showdown_blocks()
        else:
            blocks, B = _dense(model.showdown_matrix())[None], 1
        self._check_blocks(blocks, B, R - 1)
        self.showdown_ops = pair(np.asarray(blocks, np.float64), B, True)
        self.optab = np.array(tab, dtype=np.int64).reshape(-1, 6)
        self.opbuf = np.concatenate(bufs)
        self.opint = np.concatenate(ints).astype(np.int64)
        self.opc = np.array(consts, dtype=np.float64)
        self.fold_op = np.array([p[0] for p in self.fold_ops], dtype=np.int64)
        bufs.clear()  # the packed copy is all that is kept
        share = getattr(model, "share_tables", None)
        if share is not None:  # the model may keep views of opbuf instead of its own copies
            share([self.op_blocks(i0) for i0, _ in self.fold_ops], self.op_blocks(self.showdown_ops[0]))

    def _no_ops(self) -> None:
        self.fold_ops, self.showdown_ops = [], (0, 0)
        self.optab = np.zeros((0, 6), dtype=np.int64)
        self.opbuf = np.zeros(0)
        self.opint = np.zeros(0, dtype=np.int64)
        self.opc = np.zeros(0)
        self.fold_op = np.zeros(self.game.num_rounds, dtype=np.int64)  # op_blocks refuses

    def require_perfect_recall(self, what: str = "this walk") -> None:
        if not self.perfect_recall:
            raise CfrlabError(
                f"{what} needs a perfect-recall chance model; this abstraction has imperfect recall "
                "(a state is the round's bucket alone): solve it with public chance sampling (pcs) "
                "and measure it in the real game (cfrlab realbr)")

    def _check_blocks(self, blocks, B: int, r: int) -> None:
        if blocks.ndim != 3 or blocks.shape[1] != blocks.shape[2] or B * blocks.shape[1] != self.num_states[r]:
            raise CfrlabError(f"chance table of round {r} does not match {self.num_states[r]} private states")

    def op_blocks(self, op: int) -> tuple[np.ndarray, int]:
        """(blocks float64[K, H, H], B) of operator ``op`` (a view into ``opbuf``)."""
        self.require_perfect_recall("chance sampling")
        off, K, B, H = (int(x) for x in self.optab[op, :4])
        return self.opbuf[off:off + K * H * H].reshape(K, H, H), B

    def block_size(self, r: int) -> int:
        return int(self.optab[self.fold_op[r], 3])

    def num_blocks(self, r: int) -> int:
        return int(self.optab[self.fold_op[r], 2])

    def opbuf32(self) -> np.ndarray:
        """A float32 copy of ``opbuf`` (made once) for the solvers' single-precision GEMMs."""
        if getattr(self, "_opbuf32", None) is None:
            self._opbuf32 = self.opbuf.astype(np.float32)
        return self._opbuf32

    # -- arena placement --------------------------------------------------------------
    def layout(self, cap=None) -> Layout:
        """Arena placement for ``cap[r]`` slots per round node (default: all states)."""
        self.require_perfect_recall("a full-width walk (iterations, best response, values)")
        cap = self.num_states if cap is None else np.asarray(cap, dtype=np.int64)
        key = tuple(int(c) for c in cap)
        if key not in self._layouts:
            self._layouts[key] = self._make_layout(cap)
        return self._layouts[key]

    def _make_layout(self, cap: np.ndarray) -> Layout:
        kinds, rnd, player, spent = self._tree_arrays
        R = self.game.num_rounds
        node_cap = cap[rnd.astype(np.int64)]
        node_off = np.full(len(kinds), -1, dtype=np.int64)
        groups, utils = [], []
        pos, term = 0, 0
        for r in range(R):
            for kind in (FOLD, SHOWDOWN):
                members = np.flatnonzero((kinds == kind) & (rnd == r))
                if not len(members):
                    continue
                T = len(members)
                node_off[members] = pos + np.arange(T) * cap[r]
                sp0 = spent[members, 0].astype(np.float64)
                sp1 = spent[members, 1].astype(np.float64)
                if kind == FOLD:
                    u0 = np.where(player[members] == 0, -sp0, sp1)
                    u = np.stack([u0, -u0])
                    ops = self.fold_ops[r]
                else:
                    u = np.stack([np.minimum(sp0, sp1)] * 2)  # the stake (short stacks: the smaller)
                    ops = self.showdown_ops
                    if r != R - 1:
                        raise CfrlabError("showdowns before the last round are not supported")
                groups.append((pos, T, r, ops[0], ops[1], term, int(cap[r])))
                utils.append(u)
                pos += T * int(cap[r])
                term += T
        inner = np.flatnonzero((kinds == DECISION) | (kinds == CHANCE))
        sizes = node_cap[inner]
        node_off[inner] = pos + np.concatenate([[0], np.cumsum(sizes)[:-1]])
        pos += int(sizes.sum())
        return Layout(
            cap=cap.copy(),
            node_off=node_off,
            groups=np.array(groups, dtype=np.int64).reshape(-1, 7),
            term_util=np.ascontiguousarray(np.concatenate(utils, axis=1) if utils else np.zeros((2, 0))),
            size=pos,
        )

    def scratch(self) -> tuple[np.ndarray, np.ndarray]:
        """Full-width (reach, values) arenas kept for evaluation walks (not thread-safe)."""
        if self._scratch is None:
            self._scratch = self.layout().arenas()
        return self._scratch

    def memory_estimate(self, cap=None, *, tables: int = 3) -> int:
        """Peak bytes of a full-width solve on this engine, the Python interpreter and numba
        aside: the larger of building the betting tree (``count_tree(...).memory()``) and
        what lives during the solve: the finished tree, this engine's arrays (tables, node
        and row arrays, layouts), the reach/value arenas for ``cap``, a solver's regret,
        average and current-policy tables (``tables=4`` for predictive solvers such as pcfr+,
        which keep predicted regrets too), the float32 copy of the tables the solvers use
        from ``FLOAT32_STATES`` states on the last round, and the average policy and
        best-response actions of the final measurement. While the engine is built its
        tables exist twice (blocks, then the packed copy). Checked against tracemalloc
        peaks in tests/test_tree_size.py."""
        rows = self.num_rows
        if not self.perfect_recall:  # the hole-pair walk: reach and values per node and pair
            g = self.game
            left = g.deck_size - g.total_board_cards(g.num_rounds - 1)
            arenas = 2 * 2 * 8 * len(self.nodes) * (left * (left - 1) // 2)
            count = self.tree_count
            during = count.resident() + arenas + (tables + 1) * self.num_actions * 8 * rows
            return int(max(count.memory(), during))
        lay = self.layout(cap)
        own = sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))
        own += sum(v.nbytes for v in (self.block_parents or []))
        own += sum(v.nbytes for L in self._layouts.values()
                   for v in (L.node_off, L.groups, L.term_util))
        arenas = 2 * 2 * 8 * lay.size  # reach and values, float64[2, size] each
        if cap is not None and self._scratch is not None:  # the full-width pair too
            arenas += sum(a.nbytes for a in self._scratch)
        width = self.num_actions  # 3 in limit games, 2 + raise sizes in no-limit
        solver = tables * width * 8 * rows
        final = width * 8 * rows + rows
        f32 = 0
        if getattr(self, "_opbuf32", None) is None and int(self.num_states[-1]) >= FLOAT32_STATES:
            f32 = self.opbuf.size * 4
        count = self.tree_count
        during = count.resident() + own + arenas + solver + final + f32
        building = count.resident() + 2 * self.opbuf.nbytes
        return int(max(count.memory(), building, during))


_CACHE: dict[tuple[int, int], tuple] = {}


def get_engine(tree, model) -> Engine:
    """A cached Engine for (tree, model), kept while both objects live."""
    key = (id(tree), id(model))
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is tree and hit[1]() is model:
        return hit[2]
    eng = Engine(tree, model)
    try:
        _CACHE[key] = (weakref.ref(tree), weakref.ref(model), eng)
    except TypeError:  # objects without weak references are simply not cached
        pass
    if len(_CACHE) > 32:
        for k in [k for k, v in _CACHE.items() if v[0]() is None or v[1]() is None]:
            del _CACHE[k]
    return eng
