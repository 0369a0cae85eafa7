"""The spot's own solver: a walk of the betting tree over every board of a street at once, with
O(n) terminals and suit isomorphism (what the fast postflop solvers do).

**Hands.** Each player keeps its own list of combos (positive weight, no board card). Values
are counterfactual: a hand's value sums the payoffs against the opponent's reach (its range
weight times its own actions), so the expected value of player p is
``sum_h w_p(h) v_p(h) / Z`` (Z: the sum of w0 * w1 over pairs sharing no card).

**Terminals in O(n)** (``cfrlab.spot._kernels``): a fold pays against the opponent's whole
reach minus, per card, the reach of the hands holding it (plus the combo itself, taken out
twice); a showdown pays the opponent's reach over weaker hands minus over stronger ones, with
the same per-card correction, ties paying nothing: per river board the opponent's reach is
summed in rank order and along each card's list of hands (prefix sums), and each hand reads
its sums at slots found once when the game is built (``showdown_index``), so an iteration
has no search and no data-dependent branch.

**Chance.** A turn or river card c is dealt with probability 1 / (52 - board - 4) given both
hands; the opponent's hands holding c leave the reach below it. **Suit isomorphism**: the suit
permutations that fix the spot's board (as a set) and both ranges form a group G; a board's
next cards are solved only for one card of each orbit under the stabilizer of the board in G,
and a card c' = s(c) of the orbit adds the canonical card's values with the hands permuted,
v_c'(h) = v_c(s^-1 h). The ranges must be invariant under the permutations used (checked: a
permutation that changes a weight is not in G), so a reach stays symmetric and the two
agree with the plain walk (``isomorphism=False``).

**Storage** per decision node and board: regrets and the cumulative strategy (the current
strategy is regret matching of the regrets, recomputed), float32 (``"float32"``), float64 for
oracles (``"float64"``) or 16 bits with a scale per board (``"int16"``: half the memory).

**Threads.** The boards below the first chance node (a flop spot's turn boards with their
rivers, a turn spot's river boards) are split into contiguous parts (``SpotGame.split``), one
per thread, each walked in a thread of its own with its own work arrays; the kernels release
the GIL and treat the boards one after the other, independently, so any number of threads
gives the same tables bit for bit. Work arrays are shared by the two players' walks (one flat
array per node depth and role), and the float64 walks of ``exact_values`` run in smaller parts
so that their arrays stay below the iterations' float32 ones.

**Updates** alternate: player 0's pass updates its regrets and player 1's average strategy
(weighted by player 1's reach), then player 1's pass the other way round. Discounted CFR
(alpha, beta, gamma) as in ``cfrlab.solvers.cfr``: before iteration t adds its regrets,
positive ones are multiplied by (t-1)^alpha / ((t-1)^alpha + 1), negative ones by the same in
beta, and the average strategy's sums by ((t-1) / t)^gamma; CFR+ floors the regrets at 0.
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from cfrlab.cards.evaluator import rank7_batch
from cfrlab.cards.ranges import COMBOS, combo_index
from cfrlab.engine.models import row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.spot import _kernels as K
from cfrlab.spot.config import Spot
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN, PublicTree

DECK = 52
RIVER = 3
STORAGES = {"float32": (np.float32, np.float32, 4), "float64": (np.float64, np.float64, 8),
            "int16": (np.int16, np.uint16, 2)}
EXACT_PARTS = 4  # parts per thread of the float64 walks of exact_values (their work arrays)
FAST_ALGORITHMS = {"dcfr": (1.5, 0.0, 2.0, False), "dcfr+": (1.5, 0.5, 3.0, False),
                   "cfr+": (None, None, 1.0, True)}


def _permute_card(sigma: tuple[int, ...], c: int) -> int:
    return (c // 4) * 4 + sigma[c % 4]


def _group(board: tuple[int, ...], weights: list[np.ndarray]) -> list[tuple[int, ...]]:
    """Suit permutations fixing the board (as a set) and every 1,326-combo weight vector."""
    out = []
    for sigma in itertools.permutations(range(4)):
        if {_permute_card(sigma, c) for c in board} != set(board):
            continue
        idx = np.array([combo_index(_permute_card(sigma, int(a)), _permute_card(sigma, int(b)))
                        for a, b in COMBOS])
        if all(np.array_equal(w[idx], w) for w in weights):
            out.append(sigma)
    return out


@dataclass
class Level:
    """The boards of one street: ``B`` canonical boards, each with its extra cards, its
    stabilizer (indices into the group), the parent board, and the up-entries (child board,
    the permutation whose hands it reads) grouped by parent board."""

    extras: list
    stab: list
    parent: np.ndarray
    card: np.ndarray
    ptr: np.ndarray
    child: np.ndarray
    perm: np.ndarray
    lookup: dict  # (parent board, actual card) -> (canonical child, inverse permutation index)
    valid: list  # per player bool[B, H]

    @property
    def B(self) -> int:
        return len(self.extras)


class View:
    """A share of the boards the walk visits: per level L, the boards ``lo[L]:hi[L]`` and
    the tables the kernels read, sliced to them, with the maps between levels made relative
    (``down[L]``: (parent, card) of level L's boards; ``up[L]``: (ptr, child, perm) of level
    L-1's boards). The whole game is one view; ``SpotGame.split(k)`` gives k views that
    cover the boards below the first chance node in contiguous ranges (one per thread). Every
    kernel treats the boards independently, so a walk over the parts equals the whole bit for
    bit."""

    def __init__(self, game: SpotGame, lo: list, hi: list) -> None:
        self.lo, self.hi = list(lo), list(hi)
        self.B = [h - l for l, h in zip(lo, hi)]
        self.validf = [[v[l:h] for v in vs] for vs, l, h in zip(game.validf, lo, hi)]
        self.down, self.up = [None], [None]
        for L in range(1, len(game.levels)):
            lev, (l, h), (pl, ph) = game.levels[L], (lo[L], hi[L]), (lo[L - 1], hi[L - 1])
            self.down.append((np.ascontiguousarray(lev.parent[l:h] - pl), lev.card[l:h]))
            self.up.append((lev.ptr[pl:ph + 1], lev.child - l, lev.perm))
        l, h = lo[-1], hi[-1]
        self.river = [(game.sdvalid[p][l:h], game.sdidx[p][l:h], game.sorder[p][l:h], game.count[p][l:h],
                       game.cptr[p][l:h], game.clist[p][l:h]) for p in (0, 1)]


class SpotGame:
    """The tables of a spot's walk: hands, boards by street, ranks (module docstring)."""

    def __init__(self, spot: Spot, tree: PublicTree, isomorphism: bool = True) -> None:
        self.spot, self.tree = spot, tree
        self._maps: dict = {}
        self.street = spot.street
        self.board = tuple(int(c) for c in spot.board)
        ranges = [spot.ranges[0 if p == spot.oop_position else 1] for p in (0, 1)]
        on_board = np.zeros(DECK, dtype=bool)
        on_board[list(self.board)] = True
        self.hands, self.cards, self.w, self.index = [], [], [], []
        for p in (0, 1):
            ok = (ranges[p] > 0) & ~on_board[COMBOS].any(axis=1)
            hands = np.flatnonzero(ok)
            idx = np.full(len(COMBOS), -1, dtype=np.int32)
            idx[hands] = np.arange(len(hands))
            self.hands.append(hands)
            self.cards.append(COMBOS[hands].astype(np.int64))
            self.w.append(ranges[p][hands].astype(np.float64))
            self.index.append(idx)
        if min(len(h) for h in self.hands) == 0:
            raise CfrlabError("a range has no combo left once the board's cards are removed")
        self.same = [self.index[1 - p][self.hands[p]].astype(np.int64) for p in (0, 1)]
        # the fold kernel's branch-free form: the same combo's index (0 if none) and 1.0 or 0.0
        self.same_at = [np.maximum(s, 0).astype(np.uint16) for s in self.same]
        self.same_ok = [(s >= 0).astype(np.float32) for s in self.same]
        self.group = _group(self.board, ranges) if isomorphism else [(0, 1, 2, 3)]
        inv = {g: tuple(int(i) for i in np.argsort(g)) for g in self.group}
        self.inverse = [self.group.index(inv[g]) for g in self.group]
        self.hmap = []
        for p in (0, 1):
            m = np.empty((len(self.group), len(self.hands[p])), dtype=np.int64)
            for gi, g in enumerate(self.group):
                perm = np.array([combo_index(_permute_card(g, int(a)), _permute_card(g, int(b)))
                                 for a, b in self.cards[p]])
                m[gi] = self.index[p][perm]
            if (m < 0).any():
                raise CfrlabError("internal: a range is not symmetric under its suit group")
            self.hmap.append(m)
        self.levels = [self._first_level()]
        for _ in range(self.street, RIVER):
            self.levels.append(self._next_level(self.levels[-1]))
        self._ranks()
        self.inv_left = [1.0 / (DECK - len(self.board) - L - 4) for L in range(len(self.levels))]
        fold = np.empty((1, len(self.hands[0])))
        K.fold_values(self.w[1][None], self.cards[1].astype(np.uint8), self.cards[0].astype(np.uint8),
                      self.same_at[0], self.same_ok[0], self.validf[0][0], 1.0, fold)
        self.mass = float(self.w[0] @ fold[0])  # Z
        if self.mass <= 0:
            raise CfrlabError("the two ranges have no pair of combos without a shared card")

    def _valid(self, extras: list) -> list:
        out = []
        for p in (0, 1):
            v = np.ones((len(extras), len(self.hands[p])), dtype=bool)
            for b, ex in enumerate(extras):
                for c in ex:
                    v[b] &= (self.cards[p] != c).all(axis=1)
            out.append(v)
        return out

    def _first_level(self) -> Level:
        z = np.zeros(0, dtype=np.int64)
        return Level([()], [list(range(len(self.group)))], z, z, z, z, z, {}, self._valid([()]))

    def _next_level(self, prev: Level) -> Level:
        extras, stab, parent, card, ptr, child, perm, lookup = [], [], [], [], [0], [], [], {}
        for pb, ex in enumerate(prev.extras):
            used = set(self.board) | set(ex)
            canon = {}
            for c in range(DECK):
                if c in used:
                    continue
                images = {_permute_card(self.group[g], c): g for g in prev.stab[pb]}
                rep = min(images)
                if rep not in canon:
                    k = len(extras)
                    canon[rep] = k
                    extras.append(ex + (rep,))
                    stab.append([g for g in prev.stab[pb] if _permute_card(self.group[g], rep) == rep])
                    parent.append(pb)
                    card.append(rep)
            for c in range(DECK):
                if c in used:
                    continue
                rep = min(_permute_card(self.group[g], c) for g in prev.stab[pb])
                # s with s(rep) = c; the values at c read the hands through s^-1
                s = next(g for g in prev.stab[pb] if _permute_card(self.group[g], rep) == c)
                child.append(canon[rep])
                perm.append(self.inverse[s])
                lookup[(pb, c)] = (canon[rep], self.inverse[s])
            ptr.append(len(child))
        a = lambda x: np.asarray(x, dtype=np.int64)
        return Level(extras, stab, a(parent), a(card), a(ptr), a(child), a(perm), lookup,
                     self._valid(extras))

    def _ranks(self) -> None:
        lev = self.levels[-1]
        self.rank, self.order, self.count = [], [], []
        for p in (0, 1):
            H = len(self.hands[p])
            boards = np.array([self.board + ex for ex in lev.extras], dtype=np.uint8)
            hands = np.concatenate([np.repeat(self.cards[p][None], lev.B, axis=0).astype(np.uint8),
                                    np.repeat(boards[:, None, :], H, axis=1)], axis=2).reshape(-1, 7)
            rank = rank7_batch(hands).reshape(lev.B, H).astype(np.int32)
            rank[~lev.valid[p]] = -1
            order = np.argsort(rank, axis=1, kind="stable")
            count = lev.valid[p].sum(axis=1)
            # the invalid hands (-1) sort first: drop them
            order = np.stack([np.roll(o, -(H - n)) for o, n in zip(order, count)]) if lev.B else order
            order = order.astype(np.int64)
            self.rank.append(np.take_along_axis(rank, order, axis=1))  # sorted: rank[b, i] of order[b, i]
            self.order.append(order)
            self.count.append(count.astype(np.int64))
        self.cptr, self.clist = zip(*(K.card_lists(self.cards[p], self.order[p], self.count[p])
                                      for p in (0, 1)))
        self.sorder = [o.astype(np.uint16) for o in self.order]
        self.validf = [[v.astype(np.float32) for v in level.valid] for level in self.levels]
        self.sdvalid = self.validf[-1]
        self.sdidx = [K.showdown_index(self.cards[p], self.order[p], self.count[p], self.rank[p],
                                       self.order[1 - p], self.count[1 - p], self.rank[1 - p],
                                       self.cptr[1 - p], self.clist[1 - p]) for p in (0, 1)]

    def split(self, k: int) -> list[View]:
        """At most k views sharing the boards of the second level (the first street after a
        chance node) and everything below them, in contiguous ranges of about the same number
        of last-street boards (the work); one view, the whole game, if there is no chance."""
        nl = len(self.levels)
        whole = View(self, [0] * nl, [lev.B for lev in self.levels])
        if nl < 2 or k < 2:
            return [whole]
        # the last-street boards below each second-level board
        first = [np.arange(self.levels[1].B + 1)]
        for L in range(2, nl):
            first.append(np.searchsorted(self.levels[L].parent, first[-1]))
        leaves = np.diff(first[-1])
        cum = np.concatenate([[0], np.cumsum(leaves)])
        cuts = sorted({int(np.searchsorted(cum, cum[-1] * i / k)) for i in range(1, k)} - {0, len(leaves)})
        bounds = [0] + cuts + [len(leaves)]
        views = []
        for a, b in itertools.pairwise(bounds):
            views.append(View(self, [0] + [int(f[a]) for f in first], [1] + [int(f[b]) for f in first]))
        return views if len(views) > 1 else [whole]

    # -- canonical boards -----------------------------------------------------------------------
    def canonical(self, extras: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        """(index of the canonical board at its street, the suit permutation t taking the real
        board to it: a hand h on the real board plays as t(h) on the canonical one)."""
        tau = (0, 1, 2, 3)
        pb = 0
        for L, c in enumerate(extras, start=1):
            key = (pb, _permute_card(tau, int(c)))
            if key not in self.levels[L].lookup:
                raise CfrlabError(f"card {c} cannot come on this board")
            pb, g = self.levels[L].lookup[key]
            sigma = self.group[g]
            tau = tuple(sigma[tau[s]] for s in range(4))
        return pb, tau

    def hand_map(self, p: int, tau: tuple[int, ...]) -> np.ndarray:
        """int64[H]: the index of t(h) for each of p's hands (-1 if not in the list)."""
        if tau in self.group:
            return self.hmap[p][self.group.index(tau)]
        key = (p, tau)
        if key not in self._maps:
            perm = np.array([combo_index(_permute_card(tau, int(a)), _permute_card(tau, int(b)))
                             for a, b in self.cards[p]])
            self._maps[key] = self.index[p][perm].astype(np.int64)
        return self._maps[key]


def storage_bytes(game: SpotGame, storage: str = "float32") -> int:
    """Bytes of the regret and cumulative-strategy tables (and the 16-bit form's scales)."""
    tree = game.tree
    item = STORAGES[storage][2]
    total = 0
    for n in tree.decision_node:
        L = int(tree.round[n]) - game.street
        B = game.levels[L].B
        H = len(game.hands[int(tree.player[n])])
        total += 2 * B * int(tree.num_children[n]) * H * item + (8 * B if storage == "int16" else 0)
    return total


def walk_bytes(game: SpotGame) -> int:
    """Bytes of the walk's buffers at their peak: a few float32 [A, B, H] arrays per level of
    the deepest path (a rough, generous bound)."""
    tree = game.tree
    H = max(len(h) for h in game.hands)
    A = int(tree.num_children.max())
    depth = int(tree.depth.max())
    B = game.levels[-1].B
    return depth * (A + 3) * B * H * 4


def default_threads() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class FastSolver:
    """Alternating-update CFR over a ``SpotGame`` (module docstring). ``threads`` (default:
    every core) walk the boards below the first chance node in parts (``SpotGame.split``),
    kernels without the GIL; the tables are the same bit for bit for any number of threads."""

    def __init__(self, game: SpotGame, algorithm: str = "dcfr", storage: str = "float32",
                 threads: int | None = None) -> None:
        if algorithm not in FAST_ALGORITHMS:
            raise CfrlabError(f"the spot walk runs {', '.join(FAST_ALGORITHMS)}, not {algorithm!r}")
        if storage not in STORAGES:
            raise CfrlabError(f"storage is one of {', '.join(STORAGES)}, not {storage!r}")
        self.game, self.algorithm, self.storage = game, algorithm, storage
        self.alpha, self.beta, self.gamma, self.floor = FAST_ALGORITHMS[algorithm]
        rdt, cdt, _ = STORAGES[storage]
        self.comp = storage == "int16"
        self.dtype = np.float64 if storage == "float64" else np.float32
        tree = game.tree
        self.reg, self.cum, self.rscale, self.cscale = {}, {}, {}, {}
        for n in tree.decision_node:
            n = int(n)
            B = game.levels[int(tree.round[n]) - game.street].B
            H = len(game.hands[int(tree.player[n])])
            A = int(tree.num_children[n])
            self.reg[n] = np.zeros((B, A, H), dtype=rdt)
            self.cum[n] = np.zeros((B, A, H), dtype=cdt)
            self.rscale[n] = np.ones(B, dtype=np.float32)
            self.cscale[n] = np.ones(B, dtype=np.float32)
        self.iterations = 0
        self._c = [np.ascontiguousarray(c) for c in game.cards]
        self._c8 = [c.astype(np.uint8) for c in self._c]  # unsigned: no wraparound in the loops
        self._buffers: dict = {}
        self.threads = default_threads() if threads is None else int(threads)
        if self.threads < 1:
            raise CfrlabError(f"threads must be at least 1, got {threads}")
        self._whole = game.split(1)[0]
        self._parts = game.split(self.threads)
        self._pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None
        self.locked: dict = {}  # node -> (bool[H] locked hands, float64[A, H] their strategy)

    @classmethod
    def from_tables(cls, game: SpotGame, algorithm: str, storage: str, cum: dict, cscale: dict,
                    iterations: int) -> FastSolver:
        """A solver holding only saved average-strategy tables (``cum``, ``cscale`` per
        decision node): it reads and evaluates the strategy ("ev" and "br" walks), no regrets."""
        self = cls.__new__(cls)
        self.game, self.algorithm, self.storage = game, algorithm, storage
        self.alpha, self.beta, self.gamma, self.floor = FAST_ALGORITHMS[algorithm]
        self.comp = storage == "int16"
        self.dtype = np.float64 if storage == "float64" else np.float32
        self.reg, self.rscale, self.cum, self.cscale = {}, {}, cum, cscale
        self.iterations = int(iterations)
        self._c = [np.ascontiguousarray(c) for c in game.cards]
        self._c8 = [c.astype(np.uint8) for c in self._c]
        self._buffers, self.threads = {}, 1
        self._whole = game.split(1)[0]
        self._parts = [self._whole]
        self._pool = None
        self.locked = {}
        return self

    def lock(self, node: int, hands: np.ndarray, strategy: np.ndarray) -> None:
        """Fix decision ``node``'s strategy (on the spot's first street: one board) for the
        acting player's ``hands`` (bool[H]) to ``strategy`` (float64[A, H], columns summing to
        1): the walk plays it, the regret update leaves it and the average strategy is it."""
        t = self.game.tree
        if int(t.round[node]) != self.game.street:
            raise CfrlabError("the spot's walk locks nodes on the spot's first street only")
        if self.comp:
            raise CfrlabError("a locked spot is solved with float32 or float64 storage, not int16")
        hands = np.asarray(hands, dtype=bool)
        strategy = np.asarray(strategy, dtype=np.float64)
        self.locked[int(node)] = (hands, strategy)
        self.cum[node][:, :, hands] = strategy[None][:, :, hands].astype(self.cum[node].dtype)

    def _locked_values(self, n: int, cfv: np.ndarray, out: np.ndarray) -> None:
        """The locked hands' values at n under their fixed strategy (after the free ones')."""
        hands, strat = self.locked[n]
        out[:, hands] = np.einsum("abh,ah->bh", cfv[:, :, hands], strat[:, hands]).astype(out.dtype)

    def _locked_reach(self, n: int, reach: np.ndarray, child_reach: np.ndarray) -> None:
        """The locked hands' reach under their fixed strategy; their cumulative sums kept at it."""
        hands, strat = self.locked[n]
        child_reach[:, :, hands] = (strat[:, None, hands] * reach[None][:, :, hands]).astype(child_reach.dtype)
        self.cum[n][:, :, hands] = strat[None][:, :, hands].astype(self.cum[n].dtype)

    # -- the walk ---------------------------------------------------------------------------------
    def _children(self, n: int) -> list[int]:
        t = self.game.tree
        f = int(t.first_child[n])
        return [int(c) for c in t.child[f:f + int(t.num_children[n])]]

    def _buffer(self, key: tuple, shape: tuple) -> np.ndarray:
        """A reused work array of the given shape: the front of one flat array per key (the
        role and depth of the node, the thread's part), kept at the largest size asked for
        (fresh large arrays cost a page fault per page, every node). Both players' walks share
        it: they never run at once, and a node's buffer is free once its value is returned."""
        size = int(np.prod(shape))
        buf = self._buffers.get(key)
        if buf is None or buf.size < size:
            buf = self._buffers[key] = np.empty(size, dtype=self.dtype)
        return buf[:size].reshape(shape)

    def _walk(self, n: int, p: int, reach: np.ndarray, mode: str, coef, out: np.ndarray,
              v: View | None = None, part: int = 0) -> None:
        """Player p's counterfactual values [B, H_p] at node n into ``out``, given the
        opponent's reach [B, H_o], over view v's boards (the whole game by default); mode
        "train" (update), "br" (p best responds) or "ev" (both play their average)."""
        g, t = self.game, self.game.tree
        v = self._whole if v is None else v
        o = 1 - p
        L = int(t.round[n]) - g.street
        kind = int(t.kind[n])
        depth = int(t.depth[n])
        if kind == FOLD:
            folder = int(t.player[n])
            pay = -float(t.spent[n, p]) if folder == p else float(t.spent[n, o])
            K.fold_values(reach, self._c8[o], self._c8[p], g.same_at[p], g.same_ok[p], v.validf[L][p],
                          pay, out)
            return
        if kind == SHOWDOWN:
            sdvalid, sdidx = v.river[p][:2]
            K.showdown_values(reach, self._c8[p], sdvalid, sdidx, *v.river[o][2:], float(t.spent[n, o]), out)
            return
        if kind == CHANCE:
            self._chance(n, p, reach, mode, coef, out, v, part)
            return
        kids = self._children(n)
        A = len(kids)
        lo, hi = v.lo[L], v.hi[L]
        cfv = self._buffer(("cfv", depth, part), (A, v.B[L], out.shape[1]))
        if int(t.player[n]) == p:
            for a, c in enumerate(kids):
                self._walk(c, p, reach, mode, coef, cfv[a], v, part)
            if mode == "train":
                K.player_node(self.reg[n][lo:hi], self.rscale[n][lo:hi], self.comp, cfv, coef[0], coef[1],
                              self.floor, out)
            elif mode == "ev":
                K.combine_average(self.cum[n][lo:hi], cfv, out)
            else:
                K.combine(np.empty((0, 0, 0), dtype=self.dtype), cfv, out)
            if n in self.locked and mode != "ev":  # the locked hands play their lock
                self._locked_values(n, cfv, out)
            return
        child_reach = self._buffer(("reach", depth, part), (A,) + reach.shape)
        if mode == "train":
            K.opponent_node(self.reg[n][lo:hi], self.cum[n][lo:hi], self.cscale[n][lo:hi], self.comp, reach,
                            coef[2], True, child_reach)
        else:  # the average strategy, then times the reach in place
            K.average_strategy(self.cum[n][lo:hi], child_reach)
            K.scale_reach(child_reach, reach, child_reach)
        if n in self.locked and mode == "train":
            self._locked_reach(n, reach, child_reach)
        for a, c in enumerate(kids):
            self._walk(c, p, child_reach[a], mode, coef, cfv[a], v, part)
        K.sum_actions(cfv, out)

    def _chance(self, n: int, p: int, reach: np.ndarray, mode: str, coef, out: np.ndarray,
                v: View, part: int) -> None:
        """A chance node: the reach dealt down to the next street's boards, the subtree walked,
        the values summed back up. At the first street with several parts, each part's boards
        are walked in a thread of its own (the kernels release the GIL)."""
        g, t = self.game, self.game.tree
        o = 1 - p
        L = int(t.round[n]) - g.street
        depth = int(t.depth[n])
        child = self._children(n)[0]
        down = self._buffer(("down", depth, part), (v.B[L + 1], reach.shape[1]))
        K.deal_down(reach, *v.down[L + 1], self._c[o], down)
        below = self._buffer(("below", depth, part), (v.B[L + 1], out.shape[1]))
        if L == 0 and len(self._parts) > 1 and v is self._whole:
            # thread i walks parts i, i + threads, ... one after the other with its own buffers
            def work(i: int) -> None:
                for w in self._parts[i::self.threads]:
                    self._walk(child, p, down[w.lo[1]:w.hi[1]], mode, coef, below[w.lo[1]:w.hi[1]], w, i + 1)

            jobs = [self._pool.submit(work, i) for i in range(1, min(self.threads, len(self._parts)))]
            work(0)
            for job in jobs:
                job.result()
        else:
            self._walk(child, p, down, mode, coef, below, v, part)
        K.deal_up(below, *v.up[L + 1], g.hmap[p], g.inv_left[L], out)

    def _root_reach(self, o: int) -> np.ndarray:
        return (self.game.w[o] * self.game.levels[0].valid[o][0]).astype(self.dtype)[None]

    def root_values(self, p: int, mode: str) -> np.ndarray:
        """float64[H_p]: p's counterfactual values at the root ("br" or "ev")."""
        out = np.empty((1, len(self.game.hands[p])), dtype=self.dtype)
        self._walk(0, p, self._root_reach(1 - p), mode, None, out)
        return out[0].astype(np.float64)

    def value(self, p: int, mode: str) -> float:
        """p's expected winnings (chips) best responding ("br") or playing its average ("ev")."""
        return float(self.game.w[p] @ self.root_values(p, mode)) / self.game.mass

    def iterate(self, n: int = 1) -> None:
        for _ in range(int(n)):
            self.iterations += 1
            t = self.iterations
            if self.floor:
                pos = neg = 1.0
            else:
                x = float(t - 1)
                pos = x ** self.alpha / (x ** self.alpha + 1)
                neg = x ** self.beta / (x ** self.beta + 1) if x > 0 else 0.0
            decay = ((t - 1) / t) ** self.gamma
            for p in (0, 1):
                out = np.empty((1, len(self.game.hands[p])), dtype=self.dtype)
                self._walk(0, p, self._root_reach(1 - p), "train", (pos, neg, decay), out)

    def exact_values(self, ev: bool = True) -> tuple[float, ...]:
        """(BR0, BR1[, EV0]) of the average strategy with the walk in float64 (the tables stay
        as stored): the figures a solve reports."""
        keep, parts = self.dtype, self._parts
        # float64 work arrays in more, smaller parts: the peak memory stays the iterations'
        self.dtype, self._buffers = np.float64, {}
        self._parts = self.game.split(EXACT_PARTS * self.threads)
        try:
            out = (self.value(0, "br"), self.value(1, "br"))
            return out + (self.value(0, "ev"),) if ev else out
        finally:
            self.dtype, self._buffers, self._parts = keep, {}, parts

    def best_responses(self) -> tuple[float, float]:
        return self.value(0, "br"), self.value(1, "br")

    def exploitability(self) -> float:
        b0, b1 = self.best_responses()
        return 0.5 * (b0 + b1)

    # -- reading the average strategy -----------------------------------------------------------
    def strategy(self, node: int, extras: tuple[int, ...] = ()) -> np.ndarray:
        """float64[1326, A]: the average strategy at decision ``node`` on the board with the
        given turn / river cards, per combo (``cfrlab.cards.ranges`` order; rows of combos the
        acting player cannot hold there are uniform)."""
        g, t = self.game, self.game.tree
        if t.kind[node] != DECISION:
            raise CfrlabError(f"node {node} is not a decision")
        L = int(t.round[node]) - g.street
        if len(extras) != L:
            raise CfrlabError(f"node {node} needs {L} card(s) after the spot's board, got {len(extras)}")
        b, tau = g.canonical(tuple(extras))
        p = int(t.player[node])
        A = int(t.num_children[node])
        avg = np.empty((A, 1, len(g.hands[p])), dtype=np.float64)
        K.average_strategy(self.cum[node][b:b + 1].astype(np.float64), avg)
        out = np.full((len(COMBOS), A), 1.0 / A)
        m = g.hand_map(p, tau)
        ok = (m >= 0) & g.levels[L].valid[p][b][np.maximum(m, 0)]
        out[g.hands[p][ok]] = avg[:, 0, m[ok]].T
        return out


def engine_policy(solver: FastSolver, model) -> np.ndarray:
    """The average strategy in docs/ENGINE.md's layout over the spot's tree and ``SpotModel``
    (every board's rows written out: the engine's exact values and the LP read it)."""
    tree = solver.game.tree
    offsets = row_offsets(tree, model)
    policy = np.zeros((int(offsets[-1]), tree.num_actions))
    for d, n in enumerate(tree.decision_node):
        n = int(n)
        cols = np.flatnonzero(tree.legal[d])
        start = int(offsets[d])
        for blk, extras in enumerate(model.block_extras(int(tree.round[n]))):
            rows = slice(start + blk * model.n, start + (blk + 1) * model.n)
            policy[rows, cols] = solver.strategy(n, extras)[model.combos]
    return policy
