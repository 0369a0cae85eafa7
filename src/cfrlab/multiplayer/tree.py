"""The public betting tree of an N-player limit game, grown from the rules engine.

The 2-player tree (``cfrlab.tree``) is kept as it is; this one follows ``games.State`` for any
number of players, so its betting rules are the dealer's by construction. Nodes are in DFS
preorder (a parent before its children), children in action order f, c, r.

Arrays (N nodes, D decisions, P players):

- ``kind`` int8[N]: 0 DECISION, 1 CHANCE (a round closed, the next board comes), 2 FOLD (all
  but one player folded), 3 SHOWDOWN.
- ``player`` int8[N]: who acts at a DECISION, -1 elsewhere.
- ``round`` int8[N]; ``parent`` int32[N]; ``depth`` int32[N] (the root has depth 1);
  ``action`` int8[N]: the action (0 f, 1 c, 2 r) that led here, 0 below a chance node;
  ``first_child`` / ``num_children`` / ``child`` as in ``cfrlab.tree``.
- ``spent`` int32[N, P]: chips each player has put in; ``folded`` bool[N, P].
- ``decision`` int32[N], ``decision_node`` int32[D], ``legal`` bool[D, 3].
- ``events`` int32[2N]: the depth-first walk as enter (n) / leave (-n - 1) events, which the
  kernels follow to get a post-order with the ancestors' buffers still in place.
- ``betting`` / ``node_of_betting``: ACPC betting strings, as in ``cfrlab.tree``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, State

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
ACTIONS = "fcr"
MAX_NODES = 2_000_000


@dataclass(frozen=True, eq=False)
class NTree:
    game: GameDef
    kind: np.ndarray
    player: np.ndarray
    round: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    action: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    child: np.ndarray
    spent: np.ndarray
    folded: np.ndarray
    decision: np.ndarray
    decision_node: np.ndarray
    legal: np.ndarray
    events: np.ndarray
    betting: list[str]
    node_of_betting: dict[str, int]

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_decisions(self) -> int:
        return len(self.decision_node)

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    def children(self, n: int) -> np.ndarray:
        f = self.first_child[n]
        return self.child[f:f + self.num_children[n]]

    def summary(self) -> str:
        counts = [int(np.sum(self.kind == k)) for k in range(4)]
        return (f"{self.num_nodes} nodes: {counts[0]} decisions, {counts[1]} chance, {counts[2]} fold, "
                f"{counts[3]} showdown")


def check_game(game: GameDef) -> None:
    """Refuse (one line) games the N-player engine cannot walk: no-limit, or stacks that run out."""
    name = game.name or "this game"
    if not game.is_limit:
        raise CfrlabError(f"{name} is no-limit; the N-player solvers handle limit games only")
    most = max(game.blind) + sum(m * s for m, s in zip(game.max_raises, game.raise_size))
    if any(s < most for s in game.stack):
        raise CfrlabError(f"{name}: limit games whose stacks can run out are not supported by the N-player engine")


def build_ntree(game: GameDef, *, max_nodes: int = MAX_NODES) -> NTree:
    """The public betting tree of an N-player limit game (any N from 2 to 10)."""
    check_game(game)
    P = game.num_players
    kind: list[int] = []
    player: list[int] = []
    rnd: list[int] = []
    parent: list[int] = []
    depth: list[int] = []
    action: list[int] = []
    spent: list[tuple[int, ...]] = []
    folded: list[tuple[bool, ...]] = []
    betting: list[str] = []
    children: list[list[int]] = []
    legal: dict[int, tuple[bool, bool, bool]] = {}
    events: list[int] = []

    def new(k: int, who: int, r: int, par: int, a: int, st: State, text: str, dep: int) -> int:
        n = len(kind)
        if n >= max_nodes:
            raise CfrlabError(f"the betting tree of {game.name or 'this game'} has more than {max_nodes:,} nodes")
        kind.append(k)
        player.append(who)
        rnd.append(r)
        parent.append(par)
        action.append(a)
        depth.append(dep)
        spent.append(st.spent)
        folded.append(st.folded)
        betting.append(text)
        children.append([])
        if par >= 0:
            children[par].append(n)
        return n

    def grow(st: State, par: int, a: int, dep: int) -> None:
        text = st.betting_string()
        if st.is_terminal():
            k = SHOWDOWN if st.is_showdown() else FOLD
            n = new(k, -1, st.round, par, a, st, text, dep)
            events.extend((n, -n - 1))
            return
        if par >= 0 and kind[par] == DECISION and st.round != rnd[par]:
            # the round just closed: a chance node (betting without the slash), then the next round
            n = new(CHANCE, -1, rnd[par], par, a, st, text.rstrip("/"), dep)
            events.append(n)
            grow(st, n, 0, dep + 1)
            events.append(-n - 1)
            return
        p = st.current_player()
        n = new(DECISION, p, st.round, par, a, st, text, dep)
        events.append(n)
        acts = st.legal_actions()
        legal[n] = ("f" in acts, "c" in acts, "r" in acts)
        for i, c in enumerate(ACTIONS):
            if c in acts:
                grow(st.clone().apply(c), n, i, dep + 1)
        events.append(-n - 1)

    root = State(game, seed=0)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        grow(root, -1, 0, 1)
    finally:
        sys.setrecursionlimit(limit)
    n = len(kind)
    first_child = np.zeros(n, np.int32)
    num_children = np.zeros(n, np.int8)
    flat: list[int] = []
    for i, ch in enumerate(children):
        first_child[i] = len(flat)
        num_children[i] = len(ch)
        flat.extend(ch)
    kind_a = np.array(kind, np.int8)
    decision_node = np.flatnonzero(kind_a == DECISION).astype(np.int32)
    decision = np.full(n, -1, np.int32)
    decision[decision_node] = np.arange(len(decision_node), dtype=np.int32)
    return NTree(
        game=game,
        kind=kind_a,
        player=np.array(player, np.int8),
        round=np.array(rnd, np.int8),
        parent=np.array(parent, np.int32),
        depth=np.array(depth, np.int32),
        action=np.array(action, np.int8),
        first_child=first_child,
        num_children=num_children,
        child=np.array(flat, np.int32),
        spent=np.array(spent, np.int32).reshape(n, P),
        folded=np.array(folded, bool).reshape(n, P),
        decision=decision,
        decision_node=decision_node,
        legal=np.array([legal[int(x)] for x in decision_node], bool).reshape(-1, 3),
        events=np.array(events, np.int32),
        betting=betting,
        node_of_betting={s: i for i, s in enumerate(betting)},
    )
