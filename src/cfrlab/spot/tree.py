"""The public betting tree of a spot, and its size before anything is built.

The tree is ``cfrlab.tree.build_tree`` grown from ``games.State.at_street``: the hand at the
start of the spot's street, each player having put in half the pot, in the spot's game
(``Spot.tree_game``: stacks of half the pot plus the effective stack, no blinds). So the
betting is the rules engine's, the nodes keep the game's round numbers (1 flop, 2 turn,
3 river) and betting strings start with the empty earlier rounds (``"/"`` on the flop). A
GameDef of the remaining streets with the pot as blinds was the other way; it is not exactly
the same game: its first street would start with the blinds' minimum raise (a bet of half the
pot) instead of one chip.

Bet sizes depend on the player and the street (``SpotBets``): facing a bet, the player's
``raise`` list; opening a street, the ``bet`` list, except a **donk bet**: on the turn or the
river, the out-of-position player opening the betting after the in-position player made the
last bet or raise of the previous street (OOP called it) uses the ``donk`` list (TexasSolver's
rule). Sizes are made legal as in ``cfrlab.tree.bets``; ``cap`` counts bets and raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.fileio import human_size
from cfrlab.games.state import State
from cfrlab.spot.config import STREETS, Spot
from cfrlab.tree.betting_tree import (
    CHANCE,
    DECISION,
    FOLD,
    MAX_TREE_NODES,
    SHOWDOWN,
    PublicTree,
    TreeCount,
    TreeTooLarge,
    build_tree,
    count_tree,
)

TABLES = 3  # regrets, current strategy, average strategy
VALUE_BYTES = 4  # float32


@dataclass(frozen=True, eq=False)
class SpotBets:
    """The spot's ``RaiseChooser``: the raise-to totals at a state (module docstring)."""

    spot: Spot

    def kind(self, state: State) -> tuple[str, str, str]:
        """(player, street, kind) of the sizes that apply at ``state``."""
        p = state.current_player()
        who = "oop" if p == self.spot.oop_position else "ip"
        street = STREETS[state.round - 1]
        if state.max_spent > state.spent[p]:
            return who, street, "raise"
        if who == "oop" and self.donk_after(state) and (who, street, "donk") in self.spot.sizes:
            return who, street, "donk"
        return who, street, "bet"

    def donk_after(self, state: State) -> bool:
        """The in-position player made the last bet or raise of the previous round."""
        r = state.round
        if r <= self.spot.street or state.num_raises or state.round_actions()[r]:
            return False
        acts = state.round_actions()
        start = sum(len(a) for a in acts[:r - 1])
        last = [p for p, a in state.history[start:start + len(acts[r - 1])] if a.startswith("r")]
        return bool(last) and last[-1] != self.spot.oop_position

    def betting_key(self, state: State) -> bool:
        """What the sizes read beyond ``State.betting_key`` (the tree's counter memoizes on both)."""
        return self.donk_after(state)

    def raises(self, state: State) -> list[int]:
        if state.raise_range() is None:
            return []
        cap = self.spot.cap
        if cap is not None and state.num_raises >= cap:
            return []
        spec = self.spot.sizes.get(self.kind(state))
        return [] if spec is None else spec.raises(state, self.spot.dead)

    def __call__(self, state: State) -> list[int]:
        return self.raises(state)

    @property
    def text(self) -> str:
        """The sizes as one line (names the abstraction in the tree)."""
        parts = [f"{w} {s} {k} {spec.text}" for (w, s, k), spec in self.spot.sizes.items()]
        opts = ([f"cap={self.spot.cap}"] if self.spot.cap is not None else []) + (
            [f"allin={self.spot.allin:g}"] if self.spot.allin else []) + (
            [f"dead={self.spot.dead}"] if self.spot.dead else [])
        return "; ".join(parts + opts) or "limit"


def root_state(spot: Spot) -> State:
    return State.at_street(spot.tree_game(), spot.street, [spot.put_in] * 2)


def _chooser(spot: Spot) -> SpotBets | None:
    return None if spot.game.is_limit else SpotBets(spot)


def spot_count(spot: Spot, max_nodes: int = MAX_TREE_NODES) -> TreeCount:
    """The spot's tree counted without building it (``count_tree``): refused in one line as
    soon as the count finds more than ``max_nodes`` nodes (what ``build_tree`` builds at most),
    with the part counted and the memory it takes at least (``solve_floor``), in seconds where
    counting the whole tree would take minutes."""
    try:
        return count_tree(spot.tree_game(), _chooser(spot), root=root_state(spot), max_nodes=max_nodes)
    except TreeTooLarge as e:
        part = e.counted
        raise CfrlabError(
            f"the spot's betting tree is too large: more than {part.nodes:,} nodes (at least "
            f"{describe_decisions(spot, part)}); building it needs more than {human_size(part.memory())} "
            f"and solving it at least {human_size(solve_floor(spot, part))}, above the limit of "
            f"{max_nodes:,} nodes; fewer bet sizes, a cap or a smaller stack make it smaller") from None


def describe_decisions(spot: Spot, count: TreeCount) -> str:
    """``1,420 / 28,116 / 283,628 decisions on the flop / turn / river`` of a count."""
    rounds = range(spot.street, spot.game.num_rounds)
    return (f"{' / '.join(f'{count.by_kind[DECISION][r]:,}' for r in rounds)} decisions on the "
            f"{' / '.join(STREETS[r - 1] for r in rounds)}")


def solve_floor(spot: Spot, count: TreeCount, entry_bytes: int = 4) -> int:
    """Bytes the strategy tables of any solve of the spot take at least, from a count of its
    tree (or of a part of it that holds the parents of its nodes, as ``count_tree`` meets
    them): per action of a decision, the boards that reach it with suit isomorphism at its best
    (its street's runouts over the suit permutations that keep the spot's board) x the smaller
    range's combos x ``entry_bytes`` (a regret and an average: 4 bytes in 16-bit storage, 8 in
    float32). A street's decisions have at least one action each, and at least as many as the
    folds and the decisions their actions lead to (every decision but the street's first ones,
    which a deal or the root leads to). A solve's estimate (``solve_memory``) is never below it."""
    keep = _board_symmetries(spot.board)
    combos = min(int(np.count_nonzero(r)) for r in spot.ranges)
    kinds = count.by_kind
    left, runouts, total = 52 - len(spot.board), 1, 0
    for r in range(spot.street, spot.game.num_rounds):
        dec = kinds[DECISION][r]
        dealt = kinds[CHANCE][r - 1] if r > spot.street else 1  # decisions a deal (the root) leads to
        actions = max(dec, kinds[FOLD][r] + max(0, dec - dealt))
        total += actions * -(-runouts // keep)
        runouts *= left
        left -= 1
    return int(total * combos * entry_bytes)


def _board_symmetries(board) -> int:
    """How many of the 24 suit permutations map the board onto itself."""
    cards = {int(c) for c in board}
    return sum({(c // 4) * 4 + perm[c % 4] for c in cards} == cards for perm in permutations(range(4)))


def spot_tree(spot: Spot) -> PublicTree:
    """The spot's public betting tree (module docstring); a tree above ``build_tree``'s limit
    is refused by ``spot_count`` first, with its size, without counting it whole."""
    spot_count(spot)
    bets = _chooser(spot)
    return build_tree(spot.tree_game(), bets, bets=None if bets is None else bets.text,
                      root=root_state(spot))


@dataclass(frozen=True)
class SpotSize:
    """A spot's tree counted without building it, and the memory of an exact solve."""

    streets: tuple[str, ...]
    decisions: tuple[int, ...]  # per street of the spot
    nodes: tuple[int, ...]
    terminals: tuple[int, ...]  # folds and showdowns
    combos: tuple[int, int]  # OOP, IP combos after the board
    runouts: tuple[int, ...]  # boards per street (exact cards, no isomorphism)
    memory: int  # bytes of the solve's tables (float32)

    def as_dict(self) -> dict:
        return {"streets": list(self.streets), "decisions": list(self.decisions), "nodes": list(self.nodes),
                "terminals": list(self.terminals), "combos": list(self.combos),
                "runouts": list(self.runouts), "memory_bytes": self.memory}


def spot_size(spot: Spot) -> SpotSize:
    """Decisions, nodes and terminals per street, and the bytes of an exact solve's tables:
    for every decision, the boards that reach it x the acting player's combos x its actions
    x 3 tables x 4 bytes (no suit isomorphism; the turn and river cards' removal not taken
    off, so an upper bound). Counts the tree once (``count_tree``) and grows it to count
    actions per decision by player and street (the public tree is small)."""
    game = spot.tree_game()
    bets = _chooser(spot)
    root = root_state(spot)
    count = spot_count(spot)
    rounds = range(spot.street, game.num_rounds)
    tree = build_tree(game, bets, bets=None if bets is None else bets.text, root=root)
    combos = tuple(int(np.count_nonzero(r)) for r in spot.ranges)
    left = 52 - 2 * 0 - len(spot.board)
    runouts, n = [], 1
    for r in rounds:
        runouts.append(n)
        n *= left
        left -= 1
    d = tree.decision_node
    actions = tree.legal.sum(axis=1)
    by_player = np.where(tree.player[d] == spot.oop_position, combos[0], combos[1])
    boards = np.array(runouts, dtype=np.int64)[tree.round[d] - spot.street]
    memory = int(np.sum(boards * by_player * actions)) * TABLES * VALUE_BYTES
    kinds = count.by_kind
    return SpotSize(
        streets=tuple(STREETS[r - 1] for r in rounds),
        decisions=tuple(kinds[DECISION][r] for r in rounds),
        nodes=tuple(count.nodes_by_round()[r] for r in rounds),
        terminals=tuple(kinds[FOLD][r] + kinds[SHOWDOWN][r] for r in rounds),
        combos=combos, runouts=tuple(runouts), memory=memory)
