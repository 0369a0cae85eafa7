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

import sys
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


@dataclass(frozen=True)
class TreeCount:
    """Node counts of a betting tree, by round and kind, counted without building it.

    ``by_kind[k][r]``: nodes of kind k (DECISION, CHANCE, FOLD, SHOWDOWN) in round r;
    ``betting_chars``: the total length of the nodes' betting strings; ``depth``: the most
    nodes on a path from the root."""

    game: GameDef
    by_kind: tuple[tuple[int, ...], ...]
    betting_chars: int
    depth: int

    @property
    def nodes(self) -> int:
        return sum(sum(k) for k in self.by_kind)

    @property
    def decisions(self) -> int:
        return sum(self.by_kind[DECISION])

    def decisions_by_round(self) -> list[int]:
        return list(self.by_kind[DECISION])

    def nodes_by_round(self) -> list[int]:
        return [sum(k[r] for k in self.by_kind) for r in range(self.game.num_rounds)]

    def memory(self) -> int:
        """Estimated peak bytes of ``build_tree`` (Python lists while growing, then the
        arrays, betting strings and their index): ``NODE_BYTES`` per node plus
        ``CHAR_BYTES`` per betting character, measured with tracemalloc (tests/test_tree_size.py)."""
        return int(NODE_BYTES * self.nodes + CHAR_BYTES * self.betting_chars)

    def resident(self) -> int:
        """Estimated bytes of the finished ``PublicTree`` (arrays, strings, index dict)."""
        return int(TREE_NODE_BYTES * self.nodes + CHAR_BYTES * self.betting_chars)


MAX_TREE_NODES = 2_000_000  # build_tree refuses larger trees (HULHE has 17,221 nodes) ...
MAX_TREE_BYTES = 1 << 30  # ... or trees whose building would take more memory than this
# bytes measured with tracemalloc (peak of build_tree; tests/test_tree_size.py keeps them
# honest): HULHE 406 per node at 16.6 betting characters per node, 2 rounds of 200 raises
# 597 at 204 characters
NODE_BYTES = 395  # per node while building: list entries, spent tuples, children lists, dicts
TREE_NODE_BYTES = 160  # per node of the finished tree: arrays, string objects, index dict
CHAR_BYTES = 1  # per character of a betting string (each node's string is its own object)


def count_tree(game: GameDef) -> TreeCount:
    """Count the nodes ``build_tree`` would make, per round and kind, in time linear in the
    rounds and raises (a DP over (round, raises, acted, facing a bet)): nothing is built."""
    _check_game(game)
    R = game.num_rounds
    K = 4 * R

    def unit(kind: int, r: int) -> list[int]:
        v = [0] * K
        v[kind * R + r] = 1
        return v

    # a subtree: (counts by kind*R + round, sum of betting lengths relative to its root, depth)
    Sub = tuple[list[int], int, int]

    def join(root: list[int], children: list[tuple[Sub, int]]) -> Sub:
        """A node with counts ``root`` and children, each (subtree, extra characters)."""
        counts = list(root)
        rel, depth = 0, 0
        for (c, crel, cdepth), extra in children:
            n = sum(c)
            counts = [a + b for a, b in zip(counts, c)]
            rel += crel + extra * n
            depth = max(depth, cdepth)
        return counts, rel, depth + 1

    start: Sub | None = None  # the subtree at the first decision of round r + 1
    for r in reversed(range(R)):
        if r == R - 1:
            end = join(unit(SHOWDOWN, r), [])
        else:
            end = join(unit(CHANCE, r), [(start, 1)])  # the child's betting adds "/"
        M = int(game.max_raises[r])
        # round 0's blinds: the first to act may face a bet, and after it calls so may the
        # other (when the first to act posted the larger blind); later rounds start even
        blinds = [int(b) for b in game.blind[:2]]
        first_player = int(game.first_player[0])
        facing0 = r == 0 and blinds[first_player] < max(blinds)
        facing_after_call = r == 0 and blinds[1 - first_player] < max(blinds)
        # dec[(raises, acted >= 1, facing)]: a decision's subtree; raises from M down to 0
        after: dict[tuple[bool, bool], Sub] = {}  # raises + 1, acted >= 1
        first: dict[bool, Sub] = {}
        for raises in range(M, -1, -1):
            now: dict[tuple[bool, bool], Sub] = {}
            for acted in (True, False):
                for facing in (False, True):
                    kids: list[tuple[Sub, int]] = []
                    if facing:
                        kids.append((join(unit(FOLD, r), []), 1))
                    kids.append((end if acted else now[(True, facing_after_call)], 1))
                    if raises < M:
                        kids.append((after[(True, True)], 1))
                    now[(acted, facing)] = join(unit(DECISION, r), kids)
            after = now
            if raises == 0:
                first = {f: now[(False, f)] for f in (False, True)}
        start = first[facing0]
    counts, rel, depth = start
    by_kind = tuple(tuple(counts[k * R:(k + 1) * R]) for k in range(4))
    return TreeCount(game, by_kind, rel, depth)


def _refuse_large(count: TreeCount, max_nodes: int) -> None:
    g = count.game
    name = g.name or "this game"
    raises = "/".join(str(int(m)) for m in g.max_raises[:g.num_rounds])
    raise CfrlabError(
        f"the betting tree of {name} has {count.nodes:,} nodes ({count.decisions:,} decisions; "
        f"maxRaises {raises}); building it needs about {_human(count.memory())}, above the limit "
        f"of {max_nodes:,} nodes or {_human(MAX_TREE_BYTES)} (fewer rounds or raises make it smaller)")


def _human(n: float) -> str:
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{int(n)} bytes"


def build_tree(game: GameDef, *, max_nodes: int | None = MAX_TREE_NODES) -> PublicTree:
    """Compile the public betting tree of a 2-player limit game (HULHE: 6,378 decisions).
    The nodes are counted first (``count_tree``): a tree above ``max_nodes`` is refused with
    its size and the memory it would take, before anything is allocated."""
    count = count_tree(game)
    if max_nodes is not None and (count.nodes > max_nodes or count.memory() > MAX_TREE_BYTES):
        _refuse_large(count, max_nodes)
    b = _Builder(game)
    blinds = (int(game.blind[0]), int(game.blind[1]))
    limit = sys.getrecursionlimit()
    need = 2 * count.depth + 100  # decision() and round_end() frames along the deepest path
    if need > limit:
        sys.setrecursionlimit(need)
    try:
        b.decision(-1, -1, 0, game.first_player[0], blinds, 0, 0, "")
    finally:
        if need > limit:
            sys.setrecursionlimit(limit)
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
