"""Exact real-game best response to a card-independent opponent, in minutes.

When the opponent's actions depend only on the betting (the built-in bots, any
``TablePolicy``), its hand stays uniform over the cards the responder cannot see, whatever
it did. The responder's value then depends on its cards only through each showdown's
``(W - L) / N`` (the share of the opponent's possible hands it beats minus the share it
loses to), and a whole betting subtree of the last round is one table over that margin.
This module computes the best response round by round from those tables instead of
walking every betting subtree with hand vectors (``walk``, which any strategy needs):

* betting subtrees of a round are grouped by everything their values depend on (the
  contributions at their start, the opponent's rows inside, the groups they lead to), so
  full hold'em's 567 river subtrees per board become 30 or so groups;
* the last round: one table per group over the margin, computed once for the game;
* the round before it: per board, the margin of every hand on every last card (hands
  ranked per board, ``win_minus_loss``), the tables averaged over those cards;
* earlier rounds: averages over the next round's cards, the first board by suit classes.

Full heads-up limit hold'em takes minutes on two cores (always-fold: exactly 750 mbb/g);
``real_best_response`` uses it for card-independent opponents (``method="auto"``).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from math import comb

import numpy as np

from cfrlab.cards import kernels as CK
from cfrlab.errors import CfrlabError
from cfrlab.realgame import _fixed_kernels as FK
from cfrlab.realgame.hands import Deck, first_round_units, hand_permutation, make_deck
from cfrlab.tree import CHANCE, FOLD, SHOWDOWN

__all__ = ["FixedOpponentBR", "card_independent"]


def card_independent(opp) -> bool:
    """True for a batch policy whose rows do not depend on cards (one row per decision)."""
    return getattr(opp, "kind", None) == "table"


class _Program:
    """Every group's betting subtree as flat postorder arrays (``_fixed_kernels.eval_groups``)."""

    def __init__(self) -> None:
        self.kind, self.cval, self.nxt, self.c0, self.c1 = [], [], [], [], []
        self.kids, self.wts = [], []
        self.start = [0]

    def add(self, kind: int, cval: float = 0.0, nxt: int = -1, kids=(), wts=()) -> int:
        i = len(self.kind)
        self.kind.append(kind)
        self.cval.append(float(cval))
        self.nxt.append(int(nxt))
        self.c0.append(len(self.kids))
        self.kids.extend(int(k) for k in kids)
        self.wts.extend(float(w) for w in wts) if wts else self.wts.extend(0.0 for _ in kids)  # aligned with kids
        self.c1.append(len(self.kids))
        return i

    def close(self) -> None:
        self.start.append(len(self.kind))

    def arrays(self) -> FK.Program:
        return FK.Program(np.asarray(self.start, np.int64), np.asarray(self.kind, np.int64),
                np.asarray(self.cval, np.float64), np.asarray(self.nxt, np.int64),
                np.asarray(self.c0, np.int64), np.asarray(self.c1, np.int64),
                np.asarray(self.kids, np.int64), np.asarray(self.wts, np.float64))


class FixedOpponentBR:
    """The best response of both seats to a card-independent opponent (module docstring)."""

    def __init__(self, game, tree, opp) -> None:
        if not card_independent(opp):
            raise CfrlabError("this best response takes card-independent opponents only")
        if game.num_players != 2 or not game.is_limit:
            raise CfrlabError("the real-game best response takes 2-player limit games")
        self.game, self.tree, self.opp = game, tree, opp
        self.R = game.num_rounds
        self.deck: Deck = make_deck(game)
        self.keys = CK.hand_key_table(self.deck.hands, self.deck.to_global)
        h = game.num_hole_cards
        self.N = comb(self.deck.size - game.total_board_cards() - h, h)  # opponent hands at showdown
        self.groups: list[dict] = [{} for _ in range(self.R)]  # key -> group id, per round
        self.progs = [_Program() for _ in range(self.R)]
        self.roots = [self._group(0, seat) for seat in (0, 1)]  # both seats' root groups
        self.arrays = [p.arrays() for p in self.progs]
        last = self.arrays[self.R - 1]
        xs = (np.arange(2 * self.N + 1) - self.N) / self.N
        self.table = np.zeros((len(self.groups[self.R - 1]), 2 * self.N + 1))
        FK.eval_groups(last, np.zeros((1, 1)), xs, self.table)

    # -- grouping ------------------------------------------------------------------------
    def _group(self, node: int, seat: int) -> int:
        """The group id of the round subtree starting at ``node`` for responder ``seat``
        (built on first sight: subtrees with equal keys share one program)."""
        t = self.tree
        r = int(t.round[node])
        key, build = self._key(node, seat)
        got = self.groups[r].get(key)
        if got is not None:
            return got
        prog = self.progs[r]
        build(prog)
        prog.close()
        gid = len(self.groups[r])
        self.groups[r][key] = gid
        return gid

    def _key(self, node: int, seat: int):
        """(hashable key, a function adding the subtree's program) of a round subtree."""
        t, opp = self.tree, self.opp
        items = []  # the key, in postorder
        ops = []  # deferred program building, postorder

        def visit(n: int) -> int:  # returns the local postorder index
            k = int(t.kind[n])
            if k == FOLD:
                f = int(t.player[n])
                v = -float(t.spent[n][seat]) if f == seat else float(t.spent[n][f])
                items.append(("f", v))
                ops.append(("const", v))
            elif k == SHOWDOWN:
                s0, s1 = (float(x) for x in t.spent[n])
                if s0 != s1 or int(t.round[n]) != self.R - 1:
                    raise CfrlabError("a showdown before the last round or with unequal bets: "
                                      "use the general best response")
                items.append(("s", s0))
                ops.append(("show", s0))
            elif k == CHANCE:
                nxt = next(iter(t.children(n)))
                g = self._group(int(nxt), seat)
                items.append(("c", g))
                ops.append(("next", g))
            else:
                kids = [int(c) for c in t.children(n)]
                idx = [visit(c) for c in kids]
                p = int(t.player[n])
                if p == seat:
                    items.append(("b", tuple(idx)))
                    ops.append(("best", idx, ()))
                else:
                    row = int(opp.row_offset[int(t.decision[n])])
                    w = tuple(float(opp.policy[row, int(t.action[c])]) for c in kids)
                    items.append(("o", tuple(idx), w))
                    ops.append(("opp", idx, w))
            return len(items) - 1

        visit(node)

        def build(prog: _Program) -> None:
            base = len(prog.kind)
            for op in ops:
                if op[0] == "const":
                    prog.add(FK.CONST, op[1])
                elif op[0] == "show":
                    prog.add(FK.SHOW, op[1])
                elif op[0] == "next":
                    prog.add(FK.NEXT, nxt=op[1])
                elif op[0] == "best":
                    prog.add(FK.BEST, kids=[base + i for i in op[1]])
                else:
                    prog.add(FK.OPP, kids=[base + i for i in op[1]], wts=op[2])

        return tuple(items), build

    # -- values --------------------------------------------------------------------------
    def _ranks(self, board: np.ndarray, comps: np.ndarray, m: int) -> np.ndarray:
        ranks = np.empty((max(m, 1), self.deck.num_hands), dtype=np.int32)
        CK.board_ranks(board, comps, m, self.keys, ranks)
        return ranks

    def values(self, r: int, board: tuple[int, ...]) -> np.ndarray:
        """float64[G_r, H]: each round-r group's value for every hand given the board so far
        (local ids); 0 for hands that meet the board."""
        d = self.deck
        H = d.num_hands
        G = len(self.groups[r])
        b = np.asarray(board, dtype=np.int64)
        out = np.zeros((G, H))
        if r == self.R - 1:  # one-round games only: the table at each hand's margin
            ranks = self._ranks(b, np.zeros((1, 0), np.int64), 1)
            wl = np.zeros(H, dtype=np.int64)
            FK.win_minus_loss(ranks[0], d.hands, d.size, wl)
            ok = ranks[0] != CK.NO_RANK
            out[:, ok] = self.table[:, self.N + wl[ok]]
            return out
        k = self.game.num_board_cards[r + 1]
        if r + 1 == self.R - 1:  # the last round's cards averaged in one kernel
            comps = np.array(list(combinations([c for c in range(d.size) if c not in board], k)),
                             dtype=np.int64).reshape(-1, k)
            ranks = self._ranks(b, comps, len(comps))
            M = np.zeros((self.table.shape[0], H))
            FK.last_round_mean(ranks, len(comps), d.hands, d.size, self.table, self.N, M)
        else:
            M = self._next_mean(r, board)
        FK.eval_groups(self.arrays[r], M, np.zeros(1), out)
        out[:, ~d.valid(b)] = 0.0
        return out

    def _next_mean(self, r: int, board: tuple[int, ...], progress: Callable[[int, int], None] | None = None):
        """Mean over the next round's cards of ``values(r + 1, board + cards)`` per hand."""
        d = self.deck
        k = self.game.num_board_cards[r + 1]
        G = len(self.groups[r + 1])
        M = np.zeros((G, d.num_hands))
        if r == 0 and not board:
            units = first_round_units(self.game, d, True)
            perms: dict[tuple, np.ndarray] = {}
            for i, u in enumerate(units):
                v = self.values(1, u.board)
                for sg in u.perms:  # a board of the class: hand i of the representative is hand perm[i]
                    if sg not in perms:
                        perms[sg] = hand_permutation(d, sg)
                    M[:, perms[sg]] += v
                if progress is not None:
                    progress(i + 1, len(units))
        elif r + 1 == self.R - 2:  # the next round is the second-last: one fused kernel
            rest = [c for c in range(d.size) if c not in board]
            kr = self.game.num_board_cards[self.R - 1]
            turns = np.array(list(combinations(rest, k)), dtype=np.int64).reshape(-1, k)
            rivers = np.array(list(combinations(rest, kr)), dtype=np.int64).reshape(-1, kr)
            FK.second_last_mean(np.asarray(board, dtype=np.int64), turns, rivers, self.keys,
                                self.table, self.N, self.arrays[r + 1], M)
        else:
            for cards in combinations([c for c in range(d.size) if c not in board], k):
                M += self.values(r + 1, tuple(sorted(board + cards)))
        n = comb(d.size - len(board) - self.game.num_hole_cards, k)  # next boards missing a hand
        return M / n

    def solve(self, progress: Callable[[int, int], None] | None = None) -> tuple[float, float, np.ndarray]:
        """(BR value of seat 0, of seat 1, per-hand root values (2, H) scaled as ``walk``'s)."""
        d = self.deck
        if self.R == 1:
            root = self.values(0, ())
        else:
            if self.R == 2:
                root = self.values(0, ())
            else:
                M = self._next_mean(0, (), progress)
                root = np.zeros((len(self.groups[0]), d.num_hands))
                FK.eval_groups(self.arrays[0], M, np.zeros(1), root)
        v = np.stack([root[self.roots[0]], root[self.roots[1]]]) / d.num_hands
        return float(v[0].sum()), float(v[1].sum()), v
