"""The board engine's boards and hands: the exact-card game below a public board (a spot's,
or any board of hold'em), every real hand of each player on every board of the streets to
come, walked by ``cfrlab.engine.board_walk`` (docs/ENGINE.md, "The board engine").

**Hands.** Each player keeps its own list of combos (positive weight, no board card). Values
are counterfactual: a hand's value sums the payoffs against the opponent's reach (its range
weight times its own actions), so the expected value of player p is
``sum_h w_p(h) v_p(h) / Z`` (Z: the sum of w0 * w1 over pairs sharing no card).

**Terminals in O(n)** (``cfrlab.engine._board_kernels``): a fold pays against the opponent's
whole reach minus, per card, the reach of the hands holding it (plus the combo itself, taken
out twice); a showdown pays the opponent's reach over weaker hands minus over stronger ones,
with the same per-card correction, ties paying nothing: per river board the opponent's reach
is summed in rank order and along each card's list of hands (prefix sums), and each hand
reads its sums at slots found once when the game is built (``showdown_index``), so an
iteration has no search and no data-dependent branch.

**Chance.** A turn or river card c is dealt with probability 1 / (52 - board - 4) given both
hands; the opponent's hands holding c leave the reach below it. **Suit isomorphism**: the suit
permutations that fix the board (as a set) and both ranges form a group G; a board's next
cards are solved only for one card of each orbit under the stabilizer of the board in G, and
a card c' = s(c) of the orbit adds the canonical card's values with the hands permuted,
v_c'(h) = v_c(s^-1 h). The ranges must be invariant under the permutations used (checked: a
permutation that changes a weight is not in G), so a reach stays symmetric and the two agree
with the plain walk (``isomorphism=False``).

**Parts.** The boards below the first chance node (a flop's turn boards with their rivers, a
turn's river boards) are split into contiguous parts (``BoardGame.split``), one per thread;
the kernels treat the boards one after the other, independently, so any number of parts gives
the same values bit for bit.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

import numpy as np

from cfrlab.cards.evaluator import rank7_batch
from cfrlab.cards.isomorphism import board_orbits
from cfrlab.cards.ranges import COMBOS, combo_index, suit_group
from cfrlab.engine import _board_kernels as K
from cfrlab.errors import CfrlabError
from cfrlab.tree.betting_tree import PublicTree

DECK = 52
RIVER = 3
STORAGES = {"float32": (np.float32, np.float32, 4), "float64": (np.float64, np.float64, 8),
            "int16": (np.int16, np.uint16, 2)}


def _permute_card(sigma: tuple[int, ...], c: int) -> int:
    return (c // 4) * 4 + sigma[c % 4]


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
    L-1's boards). The whole game is one view; ``BoardGame.split(k)`` gives k views that
    cover the boards below the first chance node in contiguous ranges (one per thread). Every
    kernel treats the boards independently, so a walk over the parts equals the whole bit for
    bit."""

    def __init__(self, game: BoardGame, lo: list, hi: list) -> None:
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


class BoardGame:
    """The tables of the walk below a public ``board`` (ACPC ids) dealt on round ``street``
    (1 flop, 2 turn, 3 river) of ``tree``: hands, boards by street, ranks (module docstring).
    ``ranges[p]`` is tree player p's weight of each of the 1,326 combos
    (``cfrlab.cards.ranges`` order)."""

    def __init__(self, board, street: int, ranges, tree: PublicTree, isomorphism: bool = True,
                 dead: float = 0.0, rake: float = 0.0, rake_cap: float | None = None) -> None:
        self.tree = tree
        self.dead, self.rake, self.rake_cap = float(dead), float(rake), rake_cap
        if not (self.dead >= 0 and 0 <= self.rake <= 1 and (rake_cap is None or rake_cap >= 0)):
            raise CfrlabError(f"dead money {dead}, rake {rake} (a fraction), cap {rake_cap}: out of range")
        self.zero_sum = self.rake == 0 or rake_cap == 0
        self._maps: dict = {}
        self.street = int(street)
        self.board = tuple(int(c) for c in board)
        ranges = [np.asarray(ranges[p], dtype=np.float64) for p in (0, 1)]
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
        self.cards8 = [c.astype(np.uint8) for c in self.cards]  # unsigned: no wraparound in the loops
        self.same = [self.index[1 - p][self.hands[p]].astype(np.int64) for p in (0, 1)]
        # the fold kernel's branch-free form: the same combo's index (0 if none) and 1.0 or 0.0
        self.same_at = [np.maximum(s, 0).astype(np.uint16) for s in self.same]
        self.same_ok = [(s >= 0).astype(np.float32) for s in self.same]
        self.isomorphism = bool(isomorphism)  # asked for (the group may still be trivial)
        self.group = suit_group(self.board, ranges) if isomorphism else [(0, 1, 2, 3)]
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

    # -- payoffs: zero-sum winnings from the board's start, the pot counted half each ------------
    def _rake_at(self, n: int) -> float:
        """Chips the rake takes from node n's pot (dead money included): rate x pot, capped."""
        if self.zero_sum:
            return 0.0
        take = self.rake * (float(self.tree.spent[n].sum()) + self.dead)
        return take if self.rake_cap is None else min(take, float(self.rake_cap))

    def fold_pay(self, n: int, p: int) -> float:
        """Player p's winnings at fold node n against each opponent hand: the folder loses what
        it put in (and half the dead money), the other wins that less the rake."""
        t = self.tree  # (x + 0.0 is x: without dead money these are the tree's stakes, bit for bit)
        if int(t.player[n]) == p:
            return -(float(t.spent[n, p]) + 0.5 * self.dead)
        return float(t.spent[n, 1 - p]) + 0.5 * self.dead - self._rake_at(n)

    def showdown_pay(self, n: int, p: int) -> tuple[float, float]:
        """(stake, share) at showdown node n: a hand wins stake - rake, loses stake and ties
        -rake/2, so its value is (stake - rake/2) x (weaker - stronger reach) - rake/2 x the whole
        reach: the showdown kernel at ``stake - share`` plus the fold kernel at ``-share``
        (share = rake / 2, 0 without rake)."""
        t = self.tree
        stake = float(t.spent[n, 1 - p]) + 0.5 * self.dead
        share = 0.5 * self._rake_at(n)
        return stake - share, share

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
        group = np.array(self.group, dtype=np.int64)
        for pb, ex in enumerate(prev.extras):
            at = {}  # dealt card -> (canonical child, the group element carrying it there)
            for (rep,), images in board_orbits([self.board, *[(c,) for c in ex]], 1, DECK, 4, group):
                k = len(extras)
                extras.append(ex + (rep,))
                stab.append([g for g in prev.stab[pb] if _permute_card(self.group[g], rep) == rep])
                parent.append(pb)
                card.append(rep)
                for g in images:
                    at[_permute_card(self.group[g], rep)] = (k, g)
            for c in sorted(at):
                # s with s(rep) = c; the values at c read the hands through s^-1
                k, s = at[c]
                child.append(k)
                perm.append(self.inverse[s])
                lookup[(pb, c)] = (k, self.inverse[s])
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

    def preimages(self, L: int) -> np.ndarray:
        """int64[B]: how many real boards (sequences of cards after the walk's board) each
        canonical board of level L stands for (1 everywhere without isomorphism)."""
        count = np.ones(1, dtype=np.int64)
        for k in range(1, L + 1):
            nxt = np.zeros(self.levels[k].B, dtype=np.int64)
            for (pb, _), (child, _) in self.levels[k].lookup.items():
                nxt[child] += count[pb]
            count = nxt
        return count

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


def storage_bytes(game: BoardGame, storage: str = "float32", tables: int = 2) -> int:
    """Bytes of the regret and cumulative-strategy tables (and the 16-bit form's scales);
    ``tables`` 3 for predictive rules (the last regrets too)."""
    tree = game.tree
    item = STORAGES[storage][2]
    total = 0
    for n in tree.decision_node:
        L = int(tree.round[n]) - game.street
        B = game.levels[L].B
        H = len(game.hands[int(tree.player[n])])
        total += tables * B * int(tree.num_children[n]) * H * item + (8 * B if storage == "int16" else 0)
    return total


def walk_bytes(game: BoardGame) -> int:
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

