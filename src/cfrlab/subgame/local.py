"""One family of subgames as numpy arrays: the public subtree below a round start, over a run of
board blocks, for a group of roots whose subtrees have the same shape (in a limit game every
root of a round has the same betting below it; only the stakes differ).

Vectors are float64[G, nb, H]: G roots of the group, nb board blocks of the node's round, H
private states per block (the lossless model's numbering, docs/ENGINE.md). Terminal values
follow the engine: a fold gives player 0 ``u * P_r @ reach1`` and player 1 ``-u * P_r^T @
reach0``; a showdown ``stake * W @ reach1`` and ``-stake * W^T @ reach0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cfrlab.errors import CfrlabError
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN

LEAF = 4  # a family node whose subtree is replaced by values (depth-limited solving, subgame.depth)


@dataclass
class RoundBlocks:
    """The blocks of one round a subgame family covers."""

    first: int  # first block
    nb: int  # number of blocks
    H: int  # states per block
    fold: np.ndarray  # float64[Kf, H, H]: P_r's blocks (block b uses fold[b % Kf] of the global index)
    fold_k: int
    showdown: np.ndarray | None  # float64[nb, H, H] on the last round
    up: sp.csr_matrix | None  # (nb * H) x (parent round's nb * H): child state -> parent state
    showdown_t: np.ndarray | None = None  # the showdown blocks transposed (player 1's products)
    cards: object | None = None  # one board of real cards: O(H) terminal sums (subgame.river.BoardCards)

    def fold_at(self) -> np.ndarray:
        """float64[1 or nb, H, H]: the fold block of each of the family's blocks."""
        if self.fold_k == 1:
            return self.fold[:1]
        return self.fold[(self.first + np.arange(self.nb)) % self.fold_k]


@dataclass
class Family:
    """Roots of equal subtree shape and the local subtree (preorder, local ids 0..M-1)."""

    roots: np.ndarray  # int64[G] global root nodes
    index: np.ndarray  # int64[G] the roots' rows in the Cut
    kind: np.ndarray  # int8[M]
    player: np.ndarray
    rnd: np.ndarray
    action: np.ndarray
    children: list  # list of int lists (local ids)
    decision: np.ndarray  # int64[G, M] global decision index (-1 at non-decisions)
    util: np.ndarray  # float64[G, M]: player 0's fold winnings, or the showdown stake
    legal: np.ndarray  # bool[M, A] (rows of non-decisions unused)
    cols: list  # per local node, its children's action columns
    rounds: dict  # round -> RoundBlocks

    @property
    def size(self) -> int:
        return len(self.kind)


def _signature(tree, n: int, end: int) -> tuple:
    sl = slice(n, end)
    return (end - n, tree.kind[sl].tobytes(), tree.player[sl].tobytes(), tree.action[sl].tobytes(),
            tree.num_children[sl].tobytes(), (tree.parent[sl] - n).tobytes())


def families(bp, rnd: int, roots: np.ndarray, blocks: tuple[int, int]) -> list[Family]:
    """The roots grouped by subtree shape, each group's local arrays over ``blocks`` (a range
    [b0, b1) of round ``rnd``'s blocks)."""
    tree, e = bp.tree, bp.engine
    ends = e.subtree_end
    groups: dict[tuple, list[int]] = {}
    for i, n in enumerate(roots):
        groups.setdefault(_signature(tree, int(n), int(ends[n])), []).append(i)
    rounds = _round_blocks(bp, rnd, blocks)
    return [_local(tree, roots[idx], np.asarray(idx, dtype=np.int64), int(ends[roots[idx][0]]) - int(roots[idx][0]),
                   e.node_u, rounds) for idx in groups.values()]


def subtree_family(tree, root: int, rounds: dict) -> Family:
    """The Family of the single root ``root`` of ``tree`` over ``rounds`` (round -> RoundBlocks),
    read from the tree alone (no engine: the game's chance model may be too large for one),
    its stakes as the engine's ``node_u``."""
    depth = tree.depth
    after = np.flatnonzero(depth[root + 1:] <= depth[root])
    M = int(after[0]) + 1 if len(after) else tree.num_nodes - root
    sp = tree.spent.astype(np.float64)
    kind = tree.kind
    node_u = np.zeros(tree.num_nodes)
    sl = slice(root, root + M)
    node_u[sl] = np.where(kind[sl] == FOLD, np.where(tree.player[sl] == 0, -sp[sl, 0], sp[sl, 1]),
                          np.where(kind[sl] == SHOWDOWN, sp[sl].min(axis=1), 0.0))
    return _local(tree, np.array([root], dtype=np.int64), np.zeros(1, dtype=np.int64), M, node_u, rounds)


def _local(tree, rs: np.ndarray, idx: np.ndarray, M: int, node_u: np.ndarray, rounds: dict) -> Family:
    """The local arrays of roots ``rs`` (equal subtree shape, M nodes each)."""
    n0 = int(rs[0])
    glob = rs[:, None] + np.arange(M)[None, :]
    kind = tree.kind[n0:n0 + M].copy()
    fc, nc = tree.first_child[n0:n0 + M], tree.num_children[n0:n0 + M]
    children = [[int(c) - n0 for c in tree.child[fc[m]:fc[m] + nc[m]]] for m in range(M)]
    dec = tree.decision[glob].astype(np.int64)
    legal = np.zeros((M, tree.num_actions), dtype=bool)
    dm = kind == DECISION
    legal[dm] = tree.legal[dec[0, dm]]
    return Family(rs, idx, kind, tree.player[n0:n0 + M].copy(), tree.round[n0:n0 + M].astype(np.int64),
                  tree.action[n0:n0 + M].copy(), children, dec, node_u[glob], legal,
                  [[int(tree.action[n0 + c]) for c in kids] for kids in children], rounds)


def _round_blocks(bp, rnd: int, blocks: tuple[int, int]) -> dict:
    model, e = bp.model, bp.engine
    R = bp.tree.game.num_rounds
    b0, b1 = blocks
    out = {}
    prev = None
    for r in range(rnd, R):
        if r > rnd:  # descendants of the previous round's run (block_parent is nondecreasing)
            par = e.block_parents[r]
            mine = np.flatnonzero((par >= prev.first) & (par < prev.first + prev.nb))
            if not len(mine) or np.any(np.diff(mine) != 1):
                raise CfrlabError("the chance model's boards do not nest in runs")
            b0, b1 = int(mine[0]), int(mine[-1]) + 1
        fold, _ = model.fold_blocks(r)
        fold = np.asarray(fold, dtype=np.float64)
        H = fold.shape[1]
        showdown = None
        if r == R - 1:
            sd, _ = model.showdown_blocks()
            sd = np.asarray(sd)
            showdown = sd[np.arange(b0, b1) % len(sd)].astype(np.float64)
        up = None
        if prev is not None:
            pm = e.pmap[e.pmap_off[r] + b0 * H:e.pmap_off[r] + b1 * H] - prev.first * prev.H
            n = len(pm)
            up = sp.csr_matrix((np.ones(n), (np.arange(n), pm)), shape=(n, prev.nb * prev.H))
        rb = RoundBlocks(b0, b1 - b0, H, fold, len(fold), showdown, up,
                         None if showdown is None else np.ascontiguousarray(showdown.transpose(0, 2, 1)))
        out[r] = rb
        prev = rb
    return out


def family_sigma(fam: Family, policy, row_offset: np.ndarray) -> dict:
    """The family's decisions' rows of ``policy`` (a policy in the lossless layout whose rows
    start at ``row_offset``, or {player: policy}) as CFR tables [children, G, nb, H]."""
    sigma = {}
    for m in np.flatnonzero(fam.kind == DECISION):
        rb = fam.rounds[int(fam.rnd[m])]
        pol = policy[int(fam.player[m])] if isinstance(policy, dict) else policy
        rows = (row_offset[fam.decision[:, m]][:, None] + rb.first * rb.H
                + np.arange(rb.nb * rb.H)[None, :])
        sigma[int(m)] = np.moveaxis(pol[rows][..., fam.cols[m]], -1, 0).reshape(-1, len(fam.roots), rb.nb, rb.H)
    return sigma


# -- the walk ------------------------------------------------------------------------------
def forward(fam: Family, sigma: dict, root_reach: tuple) -> list:
    """Each node's reach pair [reach0, reach1], float64[G, nb, H] each, from the roots' pair;
    ``sigma[m]`` float64[children, G, nb, H] at each decision m (its children's order)."""
    reach: list = [None] * fam.size
    reach[0] = [root_reach[0], root_reach[1]]
    for m in range(fam.size):
        k = fam.kind[m]
        if k >= FOLD:
            continue
        r0, r1 = reach[m]
        for j, c in enumerate(fam.children[m]):
            if k == DECISION:
                q = int(fam.player[m])
                pair = [r0, r1]
                pair[q] = pair[q] * sigma[m][j]
                reach[c] = pair
            else:
                rb = fam.rounds[int(fam.rnd[c])]
                reach[c] = [_down(x, rb) for x in (r0, r1)]
    return reach


def _down(x: np.ndarray, rb: RoundBlocks) -> np.ndarray:
    G = x.shape[0]
    flat = x.reshape(G, -1)
    return np.asarray(rb.up @ flat.T).T.reshape(G, rb.nb, rb.H)


def _up(v: np.ndarray, rb: RoundBlocks, parent: RoundBlocks) -> np.ndarray:
    G = v.shape[0]
    return np.asarray(rb.up.T @ v.reshape(G, -1).T).T.reshape(G, parent.nb, parent.H)


def terminal_value(fam: Family, m: int, i: int, opp: np.ndarray) -> np.ndarray:
    """Player i's counterfactual values at terminal m from the opponent's reach ``opp``."""
    rb = fam.rounds[int(fam.rnd[m])]
    u = fam.util[:, m][:, None, None]
    if rb.cards is not None:
        return rb.cards.terminal(int(fam.kind[m]), i, opp, u)
    if fam.kind[m] == FOLD:
        F = rb.fold_at()
        if len(F) == 1:
            v = opp @ (F[0].T if i == 0 else F[0])
        else:
            v = np.einsum("bxy,gby->gbx", F, opp) if i == 0 else np.einsum("bxy,gbx->gby", F, opp)
        return u * v if i == 0 else -u * v
    if fam.kind[m] == SHOWDOWN:
        W = rb.showdown_t if i == 1 else rb.showdown  # batched products over the boards
        v = np.matmul(W, opp.transpose(1, 2, 0)).transpose(2, 0, 1)
        return u * v if i == 0 else -u * v
    raise CfrlabError("a subgame node that is neither a decision, a chance node nor a terminal")


def backward(fam: Family, sigma: dict, reach: list, i: int, mode: str, update=None, leaf=None) -> list:
    """Player i's values at every node. mode "value": the expectation under ``sigma``; "br":
    the best response at i's decisions; "cfr": the expectation, and ``update(m, child values,
    node value, own reach)`` is called at each of i's decisions (regret and average updates).
    A ``LEAF`` node's values are ``leaf(m, i, reach pair, mode)``."""
    vals: list = [None] * fam.size
    for m in range(fam.size - 1, -1, -1):
        k = fam.kind[m]
        if k == LEAF:
            vals[m] = leaf(m, i, reach[m], mode)
            continue
        if k >= FOLD:
            vals[m] = terminal_value(fam, m, i, reach[m][1 - i])
            continue
        kids = fam.children[m]
        if k == CHANCE:
            c = kids[0]
            vals[m] = _up(vals[c], fam.rounds[int(fam.rnd[c])], fam.rounds[int(fam.rnd[m])])
            continue
        if int(fam.player[m]) != i:
            vals[m] = sum(vals[c] for c in kids)
            continue
        cv = np.stack([vals[c] for c in kids])  # [children, G, nb, H]
        if mode == "br":
            vals[m] = cv.max(axis=0)
            continue
        v = (sigma[m] * cv).sum(axis=0)
        vals[m] = v
        if mode == "cfr":
            update(m, cv, v, reach[m][i])
    return vals
