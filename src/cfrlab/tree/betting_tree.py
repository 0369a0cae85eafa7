"""The one public betting tree of every ACPC game, grown from the rules engine.

Any number of players, limit and no-limit. Actions are fold, call/check and raise *to an
amount*; in a no-limit game a betting abstraction (``raises``: a function of the state that
returns raise-to totals) chooses which amounts the tree holds, by default every legal one (the
full game, "fullgame" as OpenSpiel calls it). The rules are ``games.State``'s, so the tree's
betting is the dealer's by construction.

Nodes are numbered in DFS preorder (a parent before its children), so a forward pass is
``for n in range(N)`` and a backward pass ``for n in reversed(range(N))``. Layout (N nodes,
D decisions, P players, A action columns; see docs/ENGINE.md):

- ``kind`` int8[N]: 0 DECISION, 1 CHANCE (a round ended; the next round's cards come), 2 FOLD,
  3 SHOWDOWN.
- ``player`` int8[N]: acting player at DECISION, the folder at FOLD, -1 otherwise.
- ``round`` int8[N]: betting round (a CHANCE node has the round that just ended).
- ``parent`` int32[N] (-1 at the root); children of n are
  ``child[first_child[n] : first_child[n] + num_children[n]]``, in column order.
- ``action`` int8[N]: the column of the action that led here (0 fold, 1 call/check, 2 + i the
  i-th raise of the parent in increasing amount; a limit game has one raise, column 2); -1 at
  the root and below a chance node.
- ``raise_to`` int32[N]: the raise-to total of the raise that led here, 0 otherwise.
- ``spent`` int32[N, P]: chips each player has put in, blinds included; ``folded`` bool[N, P].
- ``decision`` int32[N]: index among DECISION nodes (preorder), -1 otherwise;
  ``decision_node`` int32[D] its inverse; ``legal`` bool[D, A] the legal columns.
- ``depth`` int32[N] (the root has depth 1); ``events`` int32[2N]: the depth-first walk as enter
  (n) / leave (-n - 1) events, for kernels that keep the ancestors' buffers by depth.
- ``betting``: ACPC betting string per node (``"rc/cr"``); ``node_of_betting`` its inverse.
  A CHANCE node carries the string of the round that just closed (``"rc"``), its child the
  string with the round separator (``"rc/"``). When every player but one is all-in the board
  is run out: one CHANCE node per remaining round, then the SHOWDOWN (``"r20000c///"``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cfrlab.errors import CfrlabError, human_bytes
from cfrlab.games.gamedef import GameDef
from cfrlab.games.state import State
from cfrlab.tree.bets import FULLGAME, BetSpec, parse_bets

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
FOLD_ACTION, CALL_ACTION, RAISE_ACTION = 0, 1, 2
ACTION_CHARS = "fcr"
KIND_NAMES = ("decision", "chance", "fold", "showdown")

RaiseChooser = Callable[[State], Sequence[int]]
"""A betting abstraction as the tree sees it: the raise-to totals to hold at a state where
raising is legal (illegal or repeated amounts are dropped). It must depend only on the
state's betting (``State.betting_key()``), not on the cards or the history; or else the
chooser has a method ``betting_key(state)`` returning what else it reads (hashable), which the
tree's counter adds to its memo key (a spot's donk bets read the previous round's aggressor)."""


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
    raise_to: np.ndarray
    folded: np.ndarray
    depth: np.ndarray
    events: np.ndarray
    bets: str = "limit"  # the betting abstraction: "limit", "fullgame", or its spec

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_decisions(self) -> int:
        return len(self.decision_node)

    @property
    def num_rounds(self) -> int:
        return self.game.num_rounds

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def num_actions(self) -> int:
        """Columns of the action tables: 3 in a limit game (f, c, r)."""
        return int(self.legal.shape[1])

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    def children(self, n: int) -> np.ndarray:
        f = self.first_child[n]
        return self.child[f : f + self.num_children[n]]

    def child_by_action(self, n: int, a: int) -> int:
        """The child of decision node n reached by column a; -1 if illegal."""
        for c in self.children(n):
            if self.action[c] == a:
                return int(c)
        return -1

    def action_text(self, n: int, a: int) -> str:
        """The ACPC action of column a at decision node n: ``f``, ``c``, ``r`` (limit) or
        ``r<total>`` (no-limit)."""
        if a < RAISE_ACTION:
            return ACTION_CHARS[a]
        c = self.child_by_action(n, a)
        if c < 0:
            raise CfrlabError(f"column {a} is not legal at {self.betting[n]!r}")
        return "r" if self.game.is_limit else f"r{int(self.raise_to[c])}"

    def decisions_to(self, node: int) -> list[tuple[int, int]]:
        """(decision node, action column) of every action from the root to ``node``, in order."""
        out = []
        n = node
        while self.parent[n] >= 0:
            m = int(self.parent[n])
            if self.kind[m] == DECISION:
                out.append((m, int(self.action[n])))
            n = m
        return out[::-1]

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


def all_raises(state: State) -> list[int]:
    """Every legal raise-to total (the full game)."""
    bounds = state.raise_range()
    return [] if bounds is None else list(range(bounds[0], bounds[1] + 1))


def _raise_totals(state: State, raises: RaiseChooser | None) -> list[int]:
    """The raise-to totals a node holds, increasing: the one raise of a limit game, else the
    chooser's legal amounts."""
    bounds = state.raise_range()
    if bounds is None:
        return []
    if state.game.is_limit:
        return [bounds[0]]
    amounts = all_raises(state) if raises is None else raises(state)
    lo, hi = bounds
    return sorted({int(x) for x in amounts if lo <= int(x) <= hi})


class _Grower:
    """Grows the tree depth first from the rules engine; discarded after the build."""

    def __init__(self, game: GameDef, raises: RaiseChooser | None) -> None:
        self.g = game
        self.raises = raises
        self.kind: list[int] = []
        self.player: list[int] = []
        self.round: list[int] = []
        self.parent: list[int] = []
        self.action: list[int] = []
        self.raise_to: list[int] = []
        self.spent: list[tuple[int, ...]] = []
        self.folded: list[tuple[bool, ...]] = []
        self.depth: list[int] = []
        self.betting: list[str] = []
        self.children: list[list[int]] = []
        self.legal: list[list[int]] = []  # per decision: its legal columns
        self.events: list[int] = []

    def new_node(self, kind: int, player: int, rnd: int, parent: int, action: int, to: int,
                 st: State, betting: str) -> int:
        n = len(self.kind)
        self.kind.append(kind)
        self.player.append(player)
        self.round.append(rnd)
        self.parent.append(parent)
        self.action.append(action)
        self.raise_to.append(to)
        self.spent.append(st.spent)
        self.folded.append(st.folded)
        self.depth.append(1 if parent < 0 else self.depth[parent] + 1)
        self.betting.append(betting)
        self.children.append([])
        if parent >= 0:
            self.children[parent].append(n)
        self.events.append(n)
        return n

    def leave(self, n: int) -> int:
        self.events.append(-n - 1)
        return n

    def decision(self, st: State, parent: int, action: int, to: int) -> int:
        p = st.current_player()
        n = self.new_node(DECISION, p, st.round, parent, action, to, st, st.betting_string())
        acts: list[tuple[int, str, int]] = []
        if st.is_legal("f"):
            acts.append((FOLD_ACTION, "f", 0))
        acts.append((CALL_ACTION, "c", 0))
        limit = self.g.is_limit
        for i, total in enumerate(_raise_totals(st, self.raises)):
            acts.append((RAISE_ACTION + i, "r" if limit else f"r{total}", total))
        self.legal.append([a for a, _, _ in acts])
        for a, text, total in acts:
            self.after(st.clone().apply(text), n, st.round, a, total)
        return self.leave(n)

    def after(self, st: State, parent: int, rnd: int, action: int, to: int) -> None:
        """The node reached from decision ``parent`` (in round ``rnd``) by one action."""
        R = self.g.num_rounds
        if st.is_terminal() and not st.is_showdown():
            n = self.new_node(FOLD, self.player[parent], rnd, parent, action, to, st,
                              st.betting_string())
            self.leave(n)
        elif st.is_terminal() or st.round != rnd:
            # the round closed: a chance node per round dealt (several when the board is run
            # out), then the next decision or the showdown
            text = st.betting_string()
            closed = text.rstrip("/")
            slashes = len(text) - len(closed)
            last = R - 1 if st.is_terminal() else st.round
            opened: list[int] = []
            node, a, t = parent, action, to
            for r in range(rnd, last):
                node = self.new_node(CHANCE, -1, r, node, a, t, st, closed + "/" * (r - rnd))
                opened.append(node)
                a, t = -1, 0
            if st.is_terminal():
                self.leave(self.new_node(SHOWDOWN, -1, R - 1, node, a, t, st,
                                         closed + "/" * slashes))
            else:
                self.decision(st, node, a, t)
            for c in reversed(opened):
                self.leave(c)
        else:
            self.decision(st, parent, action, to)


def _closed_form(game: GameDef, raises: RaiseChooser | None) -> bool:
    """A 2-player limit game whose stacks never run out: its tree is counted in closed form."""
    if not game.is_limit or game.num_players != 2 or raises is not None:
        return False
    most = max(game.blind[:2]) + sum(m * s for m, s in zip(game.max_raises, game.raise_size))
    return all(s >= most for s in game.stack[:2])


@dataclass(frozen=True)
class TreeCount:
    """Node counts of a betting tree, by round and kind, counted without building it.

    ``by_kind[k][r]``: nodes of kind k (DECISION, CHANCE, FOLD, SHOWDOWN) in round r;
    ``betting_chars``: the total length of the nodes' betting strings; ``depth``: the most
    nodes on a path from the root; ``most_raises``: the most raise amounts at one decision
    (the policy tables have ``2 + most_raises`` columns)."""

    game: GameDef
    by_kind: tuple[tuple[int, ...], ...]
    betting_chars: int
    depth: int
    most_raises: int = 1  # the most raise amounts one decision holds

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
# honest): 584 per node at 21 betting characters per node (4 rounds of 6 raises), 438 at 74
# characters (2 rounds of 70 raises)
NODE_BYTES = 510  # per node while growing: list entries, spent/folded tuples, children, events
TREE_NODE_BYTES = 160  # per node of the finished tree: arrays, string objects, index dict
CHAR_BYTES = 1  # per character of a betting string (each node's string is its own object)


MAX_COUNT_STATES = 200_000  # count_tree gives up past this many distinct betting states


class TreeTooLarge(CfrlabError):
    """A tree ``count_tree`` stopped counting: ``counted`` is the part of it met so far (a
    ``TreeCount`` whose figures are lower bounds of the whole tree's)."""

    def __init__(self, message: str, counted: TreeCount) -> None:
        super().__init__(message)
        self.counted = counted


def count_tree(game: GameDef, raises: RaiseChooser | None = None, *, bets=None,
               max_states: int = MAX_COUNT_STATES, root: State | None = None,
               max_nodes: int | None = None) -> TreeCount:
    """Count the nodes ``build_tree`` would make, per round and kind, without building it.

    A 2-player limit game is counted in time linear in its rounds and raises (a DP over
    (round, raises, acted, facing a bet)); any other game by a walk of the rules engine that
    counts each distinct betting state once. A tree with more than ``max_states`` distinct
    betting states (a no-limit game with deep stacks and every amount) is refused with what
    is known of its size; with ``max_nodes``, so is a tree the walk has found to hold more
    than that many nodes, as soon as it has (``TreeTooLarge``, with the part counted: a deep
    tree is refused in a fraction of the time its whole count takes). ``bets`` is a betting
    abstraction's spec, and ``root`` the state the tree starts from, as for ``build_tree``."""
    raises, _ = resolve_bets(game, raises, bets)
    if root is None and _closed_form(game, raises):
        return _count_closed_form(game)
    return _count_by_states(game, raises, max_states, root, max_nodes)


def tree_count(tree: PublicTree) -> TreeCount:
    """The ``TreeCount`` of a tree already built (what ``count_tree`` says of it beforehand)."""
    R = tree.num_rounds
    kind, rnd = tree.kind.astype(np.int64), tree.round.astype(np.int64)
    by_kind = tuple(tuple(int(np.sum((kind == k) & (rnd == r))) for r in range(R)) for k in range(4))
    chars = sum(len(b) for b in tree.betting)
    return TreeCount(tree.game, by_kind, chars, tree.max_depth, max(1, tree.num_actions - 2))


def _unit(kind: int, r: int, R: int) -> list[int]:
    v = [0] * (4 * R)
    v[kind * R + r] = 1
    return v


# a subtree: (counts by kind*R + round, sum of betting lengths relative to its root, depth)
_Sub = tuple[list[int], int, int]


def _join(root: list[int], children: list[tuple[_Sub, int]]) -> _Sub:
    """A node with counts ``root`` and children, each (subtree, extra betting characters)."""
    counts = list(root)
    rel, depth = 0, 0
    for (c, crel, cdepth), extra in children:
        n = sum(c)
        counts = [a + b for a, b in zip(counts, c)]
        rel += crel + extra * n
        depth = max(depth, cdepth)
    return counts, rel, depth + 1


def _count_by_states(game: GameDef, raises: RaiseChooser | None, max_states: int,
                     start: State | None = None, max_nodes: int | None = None) -> TreeCount:
    R = game.num_rounds
    memo: dict[tuple, _Sub] = {}
    limit = game.is_limit
    most = [0]
    extra = getattr(raises, "betting_key", None)
    met = [0] * (4 * R)  # the tree's nodes met so far in the walk's order (a memo hit: its subtree)
    total = [0]

    def counted() -> TreeCount:
        return TreeCount(game, tuple(tuple(met[k * R:(k + 1) * R]) for k in range(4)), 0, 0, most[0])

    def meet(counts: list[int]) -> None:
        for i, c in enumerate(counts):
            met[i] += c
        total[0] += sum(counts)
        if max_nodes is not None and total[0] > max_nodes:
            raise TreeTooLarge(f"the betting tree of {game.name or 'this game'} has more than "
                               f"{max_nodes:,} nodes (counting stopped there)", counted())

    def decision(st: State) -> _Sub:
        key = st.betting_key() if extra is None else (st.betting_key(), extra(st))
        hit = memo.get(key)
        if hit is not None:
            meet(hit[0])
            return hit
        if len(memo) >= max_states:
            _refuse_uncountable(game, raises, max_states, start, counted())
        meet(_unit(DECISION, st.round, R))
        kids = []
        if st.is_legal("f"):
            kids.append((after(st.clone().apply("f"), st.round), 1))
        kids.append((after(st.clone().apply("c"), st.round), 1))
        totals = _raise_totals(st, raises)
        most[0] = max(most[0], len(totals))
        for total in totals:
            text = "r" if limit else f"r{total}"
            kids.append((after(st.clone().apply(text), st.round), len(text)))
        sub = memo[key] = _join(_unit(DECISION, st.round, R), kids)
        return sub

    def after(st: State, rnd: int) -> _Sub:
        if st.is_terminal() and not st.is_showdown():
            meet(_unit(FOLD, rnd, R))
            return _join(_unit(FOLD, rnd, R), [])
        if not st.is_terminal() and st.round == rnd:
            return decision(st)
        last = R - 1 if st.is_terminal() else st.round
        if st.is_terminal():
            meet(_unit(SHOWDOWN, R - 1, R))
        inner = _join(_unit(SHOWDOWN, R - 1, R), []) if st.is_terminal() else decision(st)
        for r in reversed(range(rnd, last)):  # each chance node's child adds a "/"
            meet(_unit(CHANCE, r, R))
            inner = _join(_unit(CHANCE, r, R), [(inner, 1)])
        return inner

    root = _root_state(game, start)
    limit_depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit_depth, 20_000))
    try:
        counts, rel, depth = decision(root)
    finally:
        sys.setrecursionlimit(limit_depth)
    by_kind = tuple(tuple(counts[k * R:(k + 1) * R]) for k in range(4))
    return TreeCount(game, by_kind, rel, depth, most[0])


def _root_state(game: GameDef, start: State | None = None) -> State:
    """The state a tree grows from: ``start`` (a copy) or the start of a hand."""
    if start is not None:
        if start.game != game or start.is_terminal():
            raise CfrlabError("a tree's root state must be a hand of the tree's game that is not over")
        return start.clone()
    root = State(game, seed=0)
    if root.is_terminal():
        raise CfrlabError(f"{game.name or 'this game'} has no betting: every blind is all-in")
    return root


def _refuse_uncountable(game: GameDef, raises: RaiseChooser | None, max_states: int,
                        start: State | None = None, counted: TreeCount | None = None):
    name = game.name or "this game"
    first = len(_raise_totals(_root_state(game, start), raises))
    which = "every legal amount" if raises is None else "this betting abstraction"
    met = "" if counted is None else f", at least {counted.nodes:,} nodes"
    raise TreeTooLarge(
        f"the betting tree of {name} with {which} is too large to hold: more than {max_states:,} "
        f"distinct betting states{met} (the first decision alone has {first:,} raise amounts); "
        f"solve it in a betting abstraction with a few raise sizes per round",
        counted if counted is not None else TreeCount(game, tuple((0,) * game.num_rounds for _ in range(4)), 0, 0))


def _count_closed_form(game: GameDef) -> TreeCount:
    R = game.num_rounds

    def unit(kind: int, r: int) -> list[int]:
        return _unit(kind, r, R)

    join = _join
    Sub = _Sub
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
        f"maxRaises {raises}); building it needs about {human_bytes(count.memory())}, above the limit "
        f"of {max_nodes:,} nodes or {human_bytes(MAX_TREE_BYTES)} (fewer rounds or raises make it smaller)")


def resolve_bets(game: GameDef, raises: RaiseChooser | None, bets) -> tuple[RaiseChooser | None, str]:
    """The raise chooser and the abstraction's name from ``build_tree``'s two arguments."""
    if isinstance(bets, BetSpec):
        return (bets if raises is None else raises), bets.text
    if bets is not None and raises is None:
        spec = parse_bets(bets, game)
        return spec, (FULLGAME if spec is None else spec.text)
    return raises, bets or ("limit" if game.is_limit else FULLGAME)


def build_tree(game: GameDef, raises: RaiseChooser | None = None, *, bets=None,
               max_nodes: int | None = MAX_TREE_NODES, root: State | None = None) -> PublicTree:
    """The public betting tree of any ACPC game (HULHE: 6,378 decisions).

    A no-limit tree holds the raise-to totals of a betting abstraction: ``bets``, a spec such
    as ``"fcpa"`` or ``"0.5p,p,a/p,a;cap=3"`` (or a ``BetSpec``; ``cfrlab.tree.bets``), or
    ``raises``, any function of the state (then ``bets`` only names it); every legal amount
    when neither is given ("fullgame"). The nodes are counted first (``count_tree``): a tree
    above ``max_nodes`` is refused with its size and the memory it would take, before
    anything is allocated. ``root``: grow from this state instead of the start of a hand (a
    spot that starts at a later round, ``State.at_street``; its nodes keep the game's rounds)."""
    raises, bets = resolve_bets(game, raises, bets)
    count = count_tree(game, raises, root=root)
    if max_nodes is not None and (count.nodes > max_nodes or count.memory() > MAX_TREE_BYTES):
        _refuse_large(count, max_nodes)
    b = _Grower(game, raises)
    limit = sys.getrecursionlimit()
    need = 3 * count.depth + 100  # decision() and after() frames along the deepest path
    if need > limit:
        sys.setrecursionlimit(need)
    try:
        b.decision(_root_state(game, root), -1, -1, 0)
    finally:
        if need > limit:
            sys.setrecursionlimit(limit)
    n = len(b.kind)
    first_child = np.zeros(n, np.int32)
    num_children = np.zeros(n, np.int16)
    flat: list[int] = []
    for i, ch in enumerate(b.children):
        first_child[i] = len(flat)
        num_children[i] = len(ch)
        flat.extend(ch)
    kind = np.array(b.kind, np.int8)
    decision_node = np.flatnonzero(kind == DECISION).astype(np.int32)
    decision = np.full(n, -1, np.int32)
    decision[decision_node] = np.arange(len(decision_node), dtype=np.int32)
    width = max(3, max((max(cols) + 1 for cols in b.legal), default=3))
    legal = np.zeros((len(decision_node), width), dtype=bool)
    for d, cols in enumerate(b.legal):
        legal[d, cols] = True
    if int(num_children.max(initial=0)) < 128:
        num_children = num_children.astype(np.int8)
    P = game.num_players
    return PublicTree(
        game=game,
        kind=kind,
        player=np.array(b.player, np.int8),
        round=np.array(b.round, np.int8),
        parent=np.array(b.parent, np.int32),
        first_child=first_child,
        num_children=num_children,
        child=np.array(flat, np.int32),
        action=np.array(b.action, np.int16 if width > 127 else np.int8),
        spent=np.array(b.spent, np.int32).reshape(-1, P),
        decision=decision,
        decision_node=decision_node,
        legal=legal,
        betting=b.betting,
        node_of_betting={s: i for i, s in enumerate(b.betting)},
        raise_to=np.array(b.raise_to, np.int32),
        folded=np.array(b.folded, bool).reshape(-1, P),
        depth=np.array(b.depth, np.int32),
        events=np.array(b.events, np.int32),
        bets=bets,
    )


def node_of_betting(tree: PublicTree, betting: str) -> int:
    """Node index of an ACPC betting string (``"rc/r"``); raises CfrlabError when unknown."""
    try:
        return tree.node_of_betting[betting]
    except KeyError:
        raise CfrlabError(f"{betting!r} is not a betting sequence of this game") from None
