"""The public-tree walk of the real-game best response, round by round over real boards.

``Walker(game, tree, opponent)`` holds the tree cut into rounds and segments (see
``_kernels``) and computes, for both players at once, the best-response counterfactual
value vectors over all hands:

* ``root_forward()``: the first round's reach at its chance nodes (no board yet);
* ``unit_values(unit)``: everything below the first round's chance nodes for one first-round
  board class: the values at those chance nodes, summed over the boards the class stands for
  (suit permutations of the hands), unscaled by the first deal of board cards;
* ``finish(sum of unit values)``: the first round's values and each seat's best-response
  value in chips.

``precision="float32"`` runs the last round's lanes (``_lanes_kernels``: nearly all of the work in
hold'em) in single precision: 1.7x faster on HULHE units, values within about 3e-7 of the
largest (measured; the bound is in ``PRECISIONS``' comment). Everything else, and every sum
over boards, stays float64.

Chance: with both hands dealt, every next board is equally likely, so a chance node's value
is the mean over the boards that miss both hands; hands that meet a board get no reach
(opponent) and no value (responder) there. A value summed over hands at the root, divided by
the number of ordered pairs of disjoint hands, is the expected payoff.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from cfrlab.cards.cards import rank_hand
from cfrlab.cards.evaluator import rank_batch
from cfrlab.deep.play import NETWORK
from cfrlab.errors import CfrlabError
from cfrlab.realgame import _kernels as K
from cfrlab.realgame._lanes_kernels import (
    RankedHands,
    column_classes,
    last_round_lanes,
    last_round_table,
    shape_classes,
)
from cfrlab.realgame.hands import Deck, Unit, hand_permutation, make_deck, next_board_orbits
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN


@dataclass
class RoundSegments:
    seg_off: np.ndarray
    entry: np.ndarray
    kind: np.ndarray
    player: np.ndarray
    child: np.ndarray
    slot: np.ndarray
    dec: np.ndarray
    chance: np.ndarray
    pay: np.ndarray
    num_chance: int  # chance nodes of this round (entries of the next)
    num_entries: int

    def arrays(self) -> K.Segments:
        """The kernels' bundle of these arrays."""
        return K.Segments(self.seg_off, self.entry, self.kind, self.player, self.child, self.slot,
                          self.dec, self.chance, self.pay)


def cut_rounds(tree) -> list[RoundSegments]:
    """Every round's segments (``_kernels`` module docstring)."""
    R = tree.game.num_rounds
    N = tree.num_nodes
    chance_idx = np.full(N, -1, dtype=np.int64)
    counts = [0] * R
    for n in range(N):
        if tree.kind[n] == CHANCE:
            r = int(tree.round[n])
            chance_idx[n] = counts[r]
            counts[r] += 1
    entries: list[list[tuple[int, int]]] = [[(0, 0)]] + [[] for _ in range(R - 1)]
    for n in range(N):
        if tree.kind[n] == CHANCE:
            r = int(tree.round[n])
            kids = tree.children(n)
            if len(kids) != 1:
                raise CfrlabError("a chance node of the betting tree should have one child")
            entries[r + 1].append((int(kids[0]), int(chance_idx[n])))
    out = []
    for r in range(R):
        cols = {k: [] for k in ("kind", "player", "child", "slot", "dec", "chance", "pay")}
        seg_off = [0]
        entry = []
        for node, e in entries[r]:
            entry.append(e)
            local: dict[int, int] = {}
            order = []
            stack = [node]
            while stack:  # preorder, children in action order
                n = stack.pop()
                local[n] = len(order)
                order.append(n)
                if tree.kind[n] == DECISION:
                    stack.extend(int(c) for c in reversed(tree.children(n)))
            slot = {}
            for n in order:
                kind = int(tree.kind[n])
                par = int(tree.parent[n])
                if n == node:
                    slot[n] = (0, 0)
                else:
                    ps = list(slot[par])
                    ps[int(tree.player[par])] = local[n]
                    slot[n] = tuple(ps)
                ch = [-1, -1, -1]
                if kind == DECISION:
                    for c in tree.children(n):
                        ch[int(tree.action[c])] = local[int(c)]
                pay = [0.0, 0.0]
                if kind == FOLD:
                    f = int(tree.player[n])
                    pay[f] = -float(tree.spent[n, f])
                    pay[1 - f] = float(tree.spent[n, f])
                elif kind == SHOWDOWN:
                    if tree.spent[n, 0] != tree.spent[n, 1]:
                        raise CfrlabError("a showdown with unequal stakes (not a limit game?)")
                    pay = [float(tree.spent[n, 0])] * 2
                cols["kind"].append(kind)
                cols["player"].append(int(tree.player[n]) if kind == DECISION else -1)
                cols["child"].append(ch)
                cols["slot"].append(slot[n])
                cols["dec"].append(int(tree.decision[n]))
                cols["chance"].append(int(chance_idx[n]))
                cols["pay"].append(pay)
            seg_off.append(seg_off[-1] + len(order))
        out.append(RoundSegments(
            np.array(seg_off, dtype=np.int64), np.array(entry, dtype=np.int64),
            np.array(cols["kind"], dtype=np.int8), np.array(cols["player"], dtype=np.int8),
            np.array(cols["child"], dtype=np.int64).reshape(-1, 3),
            np.array(cols["slot"], dtype=np.int64).reshape(-1, 2),
            np.array(cols["dec"], dtype=np.int64), np.array(cols["chance"], dtype=np.int64),
            np.array(cols["pay"], dtype=np.float64).reshape(-1, 2), counts[r],
            len(entries[r])))
    return out


_EMPTY_V = np.zeros((0, 2, 0))
# The lanes' precision. In float32 a river value is a sum of at most 2n + 2 rounded terms per
# node (the showdown sweep's running sums over n hands, twice), so its error is at most about
# (2n + 2) * 2^-24 of the pot times the opponent's reach on the board: 1.3e-4 of it for n = 1,081
# hands (a worst case; measured on HULHE turns: 2.5e-7 of the largest value).
PRECISIONS = {"float64": np.float64, "float32": np.float32}


def lane_dtype(precision: str):
    """The lanes' dtype for a precision's name; an unknown name is refused."""
    if precision not in PRECISIONS:
        raise CfrlabError(f"unknown precision {precision!r} (float64 or float32)")
    return PRECISIONS[precision]


class Walker:
    """The walk for one game, tree and opponent (a ``BatchPolicy``)."""

    def __init__(self, game, tree, opponent, precision: str = "float64") -> None:
        dtype = lane_dtype(precision)
        if game.num_players != 2 or not game.is_limit:
            raise CfrlabError("the real-game best response handles 2-player limit games")
        if game.num_board_cards[0] != 0:
            raise CfrlabError("games that deal board cards in the first round are not supported")
        if opponent.kind == NETWORK:  # its table holds one round of one deal at a time
            raise CfrlabError("the real-game best response needs the opponent as a table; networks "
                              "too large to tabulate are measured by LBR")
        self.game, self.tree, self.opp = game, tree, opponent
        self.deck: Deck = make_deck(game)
        self.R = game.num_rounds
        self.rounds = cut_rounds(tree)
        self.segments = [seg.arrays() for seg in self.rounds]
        self.policy = np.ascontiguousarray(opponent.policy, dtype=np.float64)
        self.row_offset = np.ascontiguousarray(opponent.row_offset, dtype=np.int64)
        self.table = K.OpponentTable(self.policy, self.row_offset)
        D, h = self.deck.size, self.deck.num_hole
        self.H = self.deck.num_hands
        self.board_before = np.cumsum([0, *game.num_board_cards])  # cards before round r
        # boards that miss both hands, per round r >= 1: C(D - 2h - board before, new cards)
        self.outcomes = [1] + [comb(D - 2 * h - int(self.board_before[r]), game.num_board_cards[r])
                               for r in range(1, self.R)]
        self.pairs = comb(D, h) * comb(D - h, h)
        self.cards = np.ascontiguousarray(self.deck.hands)
        self._root_reach = None
        self._perms: dict[tuple, np.ndarray] = {}
        self._columns = None  # (entry reach, its hands' column classes): ``_reach_columns``
        last = self.rounds[-1]
        table = last_round_table(self.policy, self.row_offset, last.dec)
        self.precision = precision
        self.last_table = table._replace(policy=table.policy.astype(dtype))
        self.last_class, self.last_rep = shape_classes(last.seg_off, last.kind, last.player,
                                                       last.child, last.slot)

    # -- one round on one board -------------------------------------------------------
    def _showdown_order(self, board: np.ndarray, valid: np.ndarray):
        d = self.deck
        g = d.to_global
        idx = np.flatnonzero(valid)
        hands = g[d.hands[idx]]
        full = np.concatenate([hands, np.broadcast_to(g[board], (len(idx), len(board)))], axis=1)
        if full.shape[1] >= 5:
            ranks = rank_batch(full).astype(np.int64)
        else:
            ranks = np.array([rank_hand(row) for row in full.tolist()], dtype=np.int64)
        o = np.argsort(ranks, kind="stable")
        rs = ranks[o]
        n = len(o)
        # end of each position's group of equal rank
        change = np.flatnonzero(np.diff(rs)) + 1
        ends = np.append(change, n)
        grp_end = np.repeat(ends, np.diff(np.concatenate([[0], ends])))
        return idx[o].astype(np.int64), grp_end.astype(np.int64)

    def _pass(self, r, full, board, in_reach, out_vals, scale, chance_reach, chance_vals):
        board = np.asarray(board, dtype=np.int64)
        valid = self.deck.valid(board)
        states = np.ascontiguousarray(self.opp.states(r, board, self.deck, valid), dtype=np.int64)
        flow = K.Flow(in_reach, out_vals, float(scale), chance_reach, chance_vals)
        h, D = self.deck.num_hole, self.deck.size
        if full and r == self.R - 1:
            order, grp_end = self._showdown_order(board, valid)
            hands = RankedHands(order, np.ascontiguousarray(self.cards[order]), grp_end,
                                np.ascontiguousarray(states[order]),
                                np.ascontiguousarray(self._reach_columns(in_reach)[order]), h, D)
            last_round_lanes(self.segments[r], self.last_class, self.last_rep, hands, self.last_table,
                             flow)
            return
        K.round_pass(full, self.segments[r], K.BoardHands(valid, self.cards, h, D, states),
                     self.table, flow, K.NO_RANKS, 0.0, K.NO_BEST)

    def _reach_columns(self, in_reach: np.ndarray) -> np.ndarray:
        """int64[H]: each hand's class of identical columns ``in_reach[:, :, i]`` (hands of
        one class have the same reach at every entry); kept for the next boards below the
        same entries."""
        if self._columns is None or self._columns[0] is not in_reach:
            self._columns = (in_reach, column_classes(in_reach.reshape(-1, in_reach.shape[-1])))
        return self._columns[1]

    def _level(self, r: int, board: tuple, in_reach, out_vals, scale: float) -> None:
        """Round r on ``board`` and everything below: adds scale * values to out_vals."""
        seg = self.rounds[r]
        if r == self.R - 1:
            self._pass(r, True, board, in_reach, out_vals, scale, _EMPTY_V, _EMPTY_V)
            return
        C = seg.num_chance
        creach = np.zeros((C, 2, self.H))
        self._pass(r, False, board, in_reach, out_vals, scale, creach, _EMPTY_V)
        cvals = np.zeros((C, 2, self.H))
        self._below(r, board, creach, cvals)
        self._pass(r, True, board, in_reach, out_vals, scale, creach, cvals)

    def _below(self, r: int, board: tuple, creach, cvals) -> None:
        """cvals += values of round r's chance nodes: the mean over next boards. Boards that
        a suit permutation fixing the cards so far carries onto each other share one walk
        (their values are the representative's, hands permuted; the reach is symmetric)."""
        k = self.game.num_board_cards[r + 1]
        sc = 1.0 / self.outcomes[r + 1]
        b = self.board_before
        rounds = [tuple(board[b[i]:b[i + 1]]) for i in range(1, r + 1)]
        for new, perms in next_board_orbits(self.deck, rounds, k, self.opp.suit_symmetric):
            if len(perms) == 1:
                self._level(r + 1, tuple(board) + new, creach, cvals, sc)
                continue
            part = np.zeros_like(cvals)
            self._level(r + 1, tuple(board) + new, creach, part, sc)
            cvals += part
            for sigma in perms[1:]:
                K.permute_add(part, self._hand_perm(sigma), 1.0, cvals)

    def _hand_perm(self, sigma) -> np.ndarray:
        p = self._perms.get(sigma)
        if p is None:
            p = self._perms[sigma] = hand_permutation(self.deck, sigma)
        return p

    # -- the driver's parts -----------------------------------------------------------
    def root_forward(self) -> np.ndarray:
        """(C0, 2, H): both players' reach at the first round's chance nodes."""
        if self._root_reach is None:
            seg = self.rounds[0]
            ones = np.ones((1, 2, self.H))
            creach = np.zeros((seg.num_chance, 2, self.H))
            dummy = np.zeros((1, 2, self.H))
            self._pass(0, False, (), ones, dummy, 1.0, creach, _EMPTY_V)
            self._root_reach = creach
        return self._root_reach

    def unit_values(self, unit: Unit) -> np.ndarray:
        """(C0, 2, H): the unit's contribution to the first round's chance-node values,
        summed over the boards of its class, not yet divided by the number of boards."""
        creach = self.root_forward()
        out = np.zeros_like(creach)
        self._level(1, unit.board, creach, out, 1.0)
        if unit.weight == 1:
            return out
        total = np.zeros_like(out)
        for sigma in unit.perms:
            K.permute_add(out, self._hand_perm(sigma), 1.0, total)
        return total

    def finish(self, unit_sum: np.ndarray | None) -> tuple[float, float, np.ndarray]:
        """(BR value of seat 0, of seat 1, root value vectors (2, H)) in chips, from the sum
        of every unit's values in a fixed order (None for a one-round game)."""
        seg = self.rounds[0]
        C = seg.num_chance
        cvals = np.zeros((C, 2, self.H))
        if C:
            if unit_sum is None:
                raise CfrlabError("the units' values are missing")
            cvals = unit_sum / self.outcomes[1]
        creach = self.root_forward() if C else np.zeros((0, 2, self.H))
        ones = np.ones((1, 2, self.H))
        root = np.zeros((1, 2, self.H))
        self._pass(0, True, (), ones, root, 1.0, creach, cvals)
        v = root[0] / self.pairs
        return float(v[0].sum()), float(v[1].sum()), v
