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

import numpy as np

from cfrlab.games.state import State
from cfrlab.spot.config import STREETS, Spot
from cfrlab.tree.betting_tree import DECISION, FOLD, SHOWDOWN, PublicTree, build_tree, count_tree

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
        return [] if spec is None else spec.raises(state)

    def __call__(self, state: State) -> list[int]:
        return self.raises(state)

    @property
    def text(self) -> str:
        """The sizes as one line (names the abstraction in the tree)."""
        parts = [f"{w} {s} {k} {spec.text}" for (w, s, k), spec in self.spot.sizes.items()]
        opts = ([f"cap={self.spot.cap}"] if self.spot.cap is not None else []) + (
            [f"allin={self.spot.allin:g}"] if self.spot.allin else [])
        return "; ".join(parts + opts) or "limit"


def root_state(spot: Spot) -> State:
    return State.at_street(spot.tree_game(), spot.street, [spot.pot // 2] * 2)


def _chooser(spot: Spot) -> SpotBets | None:
    return None if spot.game.is_limit else SpotBets(spot)


def spot_tree(spot: Spot) -> PublicTree:
    """The spot's public betting tree (module docstring)."""
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
    count = count_tree(game, bets, root=root)
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
