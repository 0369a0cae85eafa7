"""The public betting tree of a 2-player limit game, compiled to flat arrays.

Nodes are numbered in DFS preorder (a parent before its children), so a forward pass is
``for n in range(N)`` and a backward pass ``for n in reversed(range(N))``. Layout (see
docs/ENGINE.md):

- ``kind`` int8[N]: 0 DECISION, 1 CHANCE (a round ended; the next round's cards come), 2 FOLD,
  3 SHOWDOWN.
- ``player`` int8[N]: acting player at DECISION, the folder at FOLD, -1 otherwise.
- ``round`` int8[N]: betting round (a CHANCE node has the round that just ended).
- ``parent`` int32[N] (-1 at the root); children of n are
  ``child[first_child[n] : first_child[n] + num_children[n]]``, in action order f, c, r.
- ``action`` int8[N]: 0 fold, 1 call/check, 2 raise that led here; -1 at the root and after
  a chance node.
- ``spent`` int32[N, 2]: chips each player has put in, blinds included.
- ``decision`` int32[N]: index among DECISION nodes (preorder), -1 otherwise;
  ``decision_node`` int32[D] its inverse; ``legal`` bool[D, 3] legal (f, c, r).
- ``betting``: ACPC betting string per node (``"rc/cr"``); ``node_of_betting`` its inverse.
  A CHANCE node carries the string of the round that just closed (``"rc"``), its child the
  string with the round separator (``"rc/"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
FOLD_ACTION, CALL_ACTION, RAISE_ACTION = 0, 1, 2
ACTION_CHARS = "fcr"
KIND_NAMES = ("decision", "chance", "fold", "showdown")


@dataclass(frozen=True, eq=False)
class PublicTree:
    """Flat arrays of a public betting tree (layout in the module docstring)."""

    game: GameDef
    kind: np.ndarray
    player: np.ndarray
    round: np.ndarray
    parent: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    child: np.ndarray
    action: np.ndarray
    spent: np.ndarray
    decision: np.ndarray
    decision_node: np.ndarray
    legal: np.ndarray
    betting: list[str]
    node_of_betting: dict[str, int]

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_decisions(self) -> int:
        return len(self.decision_node)

    @property
    def num_rounds(self) -> int:
        return self.game.num_rounds

    def children(self, n: int) -> np.ndarray:
        f = self.first_child[n]
        return self.child[f : f + self.num_children[n]]

    def child_by_action(self, n: int, a: int) -> int:
        """The child of decision node n reached by action a (0 f, 1 c, 2 r); -1 if illegal."""
        for c in self.children(n):
            if self.action[c] == a:
                return int(c)
        return -1

    def decisions_by_round(self) -> list[int]:
        """Number of decision nodes in each round."""
        rounds = self.round[self.decision_node]
        return [int(np.sum(rounds == r)) for r in range(self.num_rounds)]

    def summary(self) -> str:
        by_round = "/".join(str(x) for x in self.decisions_by_round())
        counts = {name: int(np.sum(self.kind == k)) for k, name in enumerate(KIND_NAMES)}
        return (
            f"{self.num_nodes} nodes: {counts['decision']} decisions ({by_round} by round), "
            f"{counts['chance']} chance, {counts['fold']} fold, {counts['showdown']} showdown"
        )


class _Builder:
    """Grows the tree depth first; one Python object per game, discarded after build."""

    def __init__(self, game: GameDef) -> None:
        self.g = game
        self.kind: list[int] = []
        self.player: list[int] = []
        self.round: list[int] = []
        self.parent: list[int] = []
        self.action: list[int] = []
        self.spent: list[tuple[int, int]] = []
        self.betting: list[str] = []
        self.children: list[list[int]] = []
        self.legal: dict[int, tuple[bool, bool, bool]] = {}

    def new_node(self, kind: int, player: int, rnd: int, parent: int, action: int,
                 spent: tuple[int, int], betting: str) -> int:
        n = len(self.kind)
        self.kind.append(kind)
        self.player.append(player)
        self.round.append(rnd)
        self.parent.append(parent)
        self.action.append(action)
        self.spent.append(spent)
        self.betting.append(betting)
        self.children.append([])
        return n

    def decision(self, parent: int, action: int, rnd: int, to_act: int, spent: tuple[int, int],
                 raises: int, acted: int, betting: str) -> int:
        g = self.g
        n = self.new_node(DECISION, to_act, rnd, parent, action, spent, betting)
        max_spent = max(spent)
        legal = (spent[to_act] < max_spent, True, raises < g.max_raises[rnd])
        self.legal[n] = legal
        other = 1 - to_act
        for a in range(3):
            if not legal[a]:
                continue
            text = betting + ACTION_CHARS[a]
            if a == FOLD_ACTION:
                c = self.new_node(FOLD, to_act, rnd, n, a, spent, text)
            elif a == CALL_ACTION:
                new = list(spent)
                new[to_act] = max_spent
                sp = (new[0], new[1])
                if acted + 1 >= 2:
                    c = self.round_end(n, rnd, sp, text)
                else:
                    c = self.decision(n, a, rnd, other, sp, raises, acted + 1, text)
            else:
                new = list(spent)
                new[to_act] = max_spent + g.raise_size[rnd]
                sp = (new[0], new[1])
                c = self.decision(n, a, rnd, other, sp, raises + 1, acted + 1, text)
            self.children[n].append(c)
        return n

    def round_end(self, parent: int, rnd: int, spent: tuple[int, int], betting: str) -> int:
        g = self.g
        if rnd == g.num_rounds - 1:
            return self.new_node(SHOWDOWN, -1, rnd, parent, CALL_ACTION, spent, betting)
        n = self.new_node(CHANCE, -1, rnd, parent, CALL_ACTION, spent, betting)
        c = self.decision(n, -1, rnd + 1, g.first_player[rnd + 1], spent, 0, 0, betting + "/")
        self.children[n].append(c)
        return n


def _check_game(game: GameDef) -> None:
    if not game.is_limit:
        raise CfrlabError(f"the betting tree needs a limit game; {game.name or 'this game'} is no-limit")
    if game.num_players != 2:
        raise CfrlabError(f"the betting tree needs a 2-player game, got {game.num_players} players")
    most = max(game.blind[:2]) + sum(m * s for m, s in zip(game.max_raises, game.raise_size))
    if any(s < most for s in game.stack[:2]):
        raise CfrlabError("limit games whose stacks can run out are not supported by the betting tree")


def build_tree(game: GameDef) -> PublicTree:
    """Compile the public betting tree of a 2-player limit game (HULHE: 6,378 decisions)."""
    _check_game(game)
    b = _Builder(game)
    blinds = (int(game.blind[0]), int(game.blind[1]))
    b.decision(-1, -1, 0, game.first_player[0], blinds, 0, 0, "")
    n = len(b.kind)
    first_child = np.zeros(n, np.int32)
    num_children = np.zeros(n, np.int8)
    flat: list[int] = []
    for i, ch in enumerate(b.children):
        first_child[i] = len(flat)
        num_children[i] = len(ch)
        flat.extend(ch)
    kind = np.array(b.kind, np.int8)
    decision_node = np.flatnonzero(kind == DECISION).astype(np.int32)
    decision = np.full(n, -1, np.int32)
    decision[decision_node] = np.arange(len(decision_node), dtype=np.int32)
    legal = np.array([b.legal[int(x)] for x in decision_node], dtype=bool).reshape(-1, 3)
    return PublicTree(
        game=game,
        kind=kind,
        player=np.array(b.player, np.int8),
        round=np.array(b.round, np.int8),
        parent=np.array(b.parent, np.int32),
        first_child=first_child,
        num_children=num_children,
        child=np.array(flat, np.int32),
        action=np.array(b.action, np.int8),
        spent=np.array(b.spent, np.int32).reshape(-1, 2),
        decision=decision,
        decision_node=decision_node,
        legal=legal,
        betting=b.betting,
        node_of_betting={s: i for i, s in enumerate(b.betting)},
    )


def node_of_betting(tree: PublicTree, betting: str) -> int:
    """Node index of an ACPC betting string (``"rc/r"``); raises CfrlabError when unknown."""
    try:
        return tree.node_of_betting[betting]
    except KeyError:
        raise CfrlabError(f"{betting!r} is not a betting sequence of this game") from None
