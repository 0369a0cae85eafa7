"""A no-limit abstract strategy playing the real game through action translation.

A strategy solved in a betting abstraction (``cfrlab solve GAME --bets fcpa``) knows a few
raise sizes; the real game allows every amount. ``TranslatedStrategy(strategy, rule)`` plays the
real game by keeping a node of the abstract tree in step with the real hand:

- **its own raises**: an abstract raise of pot fraction f (computed at the abstract node, as
  ``cfrlab.tree.translation`` defines sizes) becomes the real raise to
  ``max_spent + f * (pot + to_call)`` of the *real* state (rounded as the bet specs round),
  clamped to the legal range; the abstract all-in stays the all-in, and the spec's ``allin=F``
  threshold applies; an abstract raise where the real game allows none becomes a call, and an
  abstract fold where the real game has nothing to call becomes a check. When several of its
  abstract actions become one real action, the abstract node follows the call for a call, the
  fold for a fold, and for a raise the largest of them if the raise is the all-in, else the
  smallest (a fixed rule, so its later play does not depend on its cards);
- **the opponent's actions**: fold -> fold, check/call -> call, a raise -> the abstract raises
  around its pot fraction by the rule (``cfrlab.tree.translation.RULES``; a randomized rule draws
  one, privately); a real all-in maps to the abstract all-in where the node holds one; a raise
  where the abstract node holds none maps to the call.

**Pot and stacks.** After a translated action the abstract node's pot and stacks differ from the
real ones: the agent keeps reading its strategy at the abstract node (its card state is the
real cards' state in the strategy's chance model), and sizes its own raises from the *real*
pot, so its bets stay the same fractions of the pot it really plays for, and every amount it
plays is legal. When the abstract node is no longer a decision of the acting player in the real
round (the abstract hand ended, or a translated call closed the abstract round while the real
round goes on), the agent checks or calls until the real game is back at a decision the
abstract node holds: real actions taken meanwhile leave the abstract node where it is (a node
waiting at the next round's first decision resumes there when the real round ends).

The same rules give the agent's play for every hand at once (``range_policy``: a
``cfrlab.agents.ranges.RangePolicy`` whose paths are abstract nodes, branching with their
probabilities at randomized translations) and, on games small enough to hold every amount,
the agent as a full-game strategy (``full_game_strategy``: each real information set's
distribution is the mixture of its abstract paths, weighted by their translation
probabilities times the agent's own probabilities of the actions along them for that hand,
which is exact by Kuhn's theorem), whose exploitability is the agent's exploitability in the
real game (``real_exploitability``).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from cfrlab.agents.ranges import hands
from cfrlab.agents.table_ranges import hand_states
from cfrlab.engine import build_tree_for, exploitability, model_for_game, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, State, load_game, parse_game
from cfrlab.games.agent import StrategyBackedAgent
from cfrlab.games.matchstate import MatchState
from cfrlab.games.state import UNKNOWN, deal_length
from cfrlab.strategy import Strategy
from cfrlab.tree import CHANCE, DECISION
from cfrlab.tree.bets import FULLGAME, parse_bets
from cfrlab.tree.translation import (
    DEFAULT_RULE,
    Spot,
    check_rule,
    map_size,
    spot_of_node,
    spot_of_state,
)

CALL = "c"


class Own(NamedTuple):
    """The agent's abstract columns at one node made real: ``actions`` (ACPC strings, each once),
    ``to_action`` bool[A, k] (column a becomes action j), ``follow`` (action -> the column the
    abstract node follows)."""

    actions: list[str]
    to_action: np.ndarray
    follow: dict[str, int]


class Translator:
    """The translation rules of one abstract strategy (module docstring): the abstract node's
    steps on real actions and the agent's real action probabilities at a node. Nodes are nodes
    of ``strategy.tree``, always past chance nodes (``settle``)."""

    def __init__(self, strategy: Strategy, rule: str = DEFAULT_RULE, greedy: bool = False) -> None:
        game = strategy.game
        if game.is_limit:
            raise CfrlabError(f"{game.name or 'this game'} is a limit game: action translation is for "
                              "no-limit games (a limit strategy plays its game as it is)")
        if game.num_players != 2:
            raise CfrlabError(f"{game.name or 'this game'} has {game.num_players} players: action "
                              "translation is for 2-player no-limit games")
        self.strategy = strategy
        self.rule = check_rule(rule)
        self.greedy = bool(greedy)
        self.game = game
        self.tree = strategy.tree
        self.model = strategy.model
        self.offsets = np.asarray(strategy.row_offset, dtype=np.int64)
        spec = None if self.tree.bets == FULLGAME else parse_bets(self.tree.bets, game)
        self.allin = spec.allin if spec is not None else 0.0
        self._info: dict[int, tuple] = {}
        self.root = self.settle(0)

    # -- the abstract node ----------------------------------------------------------------
    def settle(self, node: int) -> int:
        """Past chance nodes (each has one child in the public tree)."""
        tree = self.tree
        while int(tree.kind[node]) == CHANCE:
            node = int(tree.child[tree.first_child[node]])
        return node

    def in_step(self, node: int, spot: Spot) -> bool:
        """Whether the abstract node is the acting player's decision in the real round."""
        t = self.tree
        return int(t.kind[node]) == DECISION and int(t.player[node]) == spot.player and int(t.round[node]) == spot.round

    def _node_info(self, node: int) -> tuple:
        """(spot, legal columns, raise columns, their pot fractions, the all-in column or -1)."""
        info = self._info.get(node)
        if info is None:
            t = self.tree
            spot = spot_of_node(t, node)
            legal = [int(a) for a in np.flatnonzero(t.legal[t.decision[node]])]
            raises = [a for a in legal if a >= 2]
            tos = [int(t.raise_to[t.child_by_action(node, a)]) for a in raises]
            fracs = [spot.fraction(to) for to in tos]
            allin = raises[-1] if raises and tos[-1] >= spot.stack else -1
            info = (spot, legal, raises, fracs, allin)
            self._info[node] = info
        return info

    def child(self, node: int, column: int) -> int:
        return self.settle(self.tree.child_by_action(node, column))

    # -- the agent's own actions ----------------------------------------------------------
    def own(self, node: int, spot: Spot) -> Own:
        """The real actions the agent's abstract columns at ``node`` become at ``spot``."""
        _, legal, raises, fracs, allin = self._node_info(node)
        frac_of = dict(zip(raises, fracs))
        texts: list[str] = []
        for a in legal:
            if a == 0:
                texts.append("f" if spot.can_fold else CALL)
            elif a == 1:
                texts.append(CALL)
            else:
                to = spot.raise_to(frac_of[a], all_in=a == allin, allin_threshold=self.allin)
                texts.append(CALL if to is None else f"r{to}")
        actions = list(dict.fromkeys(texts))
        index = {s: j for j, s in enumerate(actions)}
        to_action = np.zeros((self.tree.num_actions, len(actions)), dtype=np.float64)
        cols: dict[str, list[int]] = {}
        for a, s in zip(legal, texts):
            to_action[a, index[s]] = 1.0
            cols.setdefault(s, []).append(a)
        follow = {}
        for s, group in cols.items():
            if s == CALL:
                follow[s] = 1
            elif s == "f":
                follow[s] = 0
            else:
                follow[s] = max(group) if int(s[1:]) >= spot.hi else min(group)
        return Own(actions, to_action, follow)

    def own_step(self, node: int, spot: Spot, action: str, own: Own | None = None) -> int:
        """The abstract node after the agent's own real ``action``."""
        if not self.in_step(node, spot):
            return node
        own = own if own is not None else self.own(node, spot)
        col = own.follow.get(action)
        if col is None:  # not an action the agent plays here: read it as the opponent's, nearest
            return max(self.opponent_step(node, spot, action, "nearest"), key=lambda t: t[1])[0]
        return self.child(node, col)

    def probs(self, node: int, spot: Spot, states: np.ndarray, own: Own | None = None) -> np.ndarray:
        """float64[len(states), k]: the agent's probabilities of ``own.actions`` at an in-step
        node for each abstract private state in ``states``."""
        own = own if own is not None else self.own(node, spot)
        d = int(self.tree.decision[node])
        rows = self.strategy.policy[self.offsets[d] + np.asarray(states, dtype=np.int64)]
        p = rows @ own.to_action
        if self.greedy:
            one = np.zeros_like(p)
            one[np.arange(len(p)), np.argmax(p, axis=1)] = 1.0
            p = one
        return p

    # -- the opponent's actions -----------------------------------------------------------
    def opponent_step(self, node: int, spot: Spot, action: str, rule: str | None = None) -> list[tuple[int, float]]:
        """The abstract nodes the opponent's real ``action`` maps to, with their probabilities."""
        if not self.in_step(node, spot):
            return [(node, 1.0)]
        _, legal, raises, fracs, allin = self._node_info(node)
        if action == "f" and 0 in legal:
            return [(self.child(node, 0), 1.0)]
        if not action.startswith("r") or not raises:
            return [(self.child(node, 1), 1.0)]
        to = int(action[1:])
        if allin >= 0 and to >= spot.hi:
            return [(self.child(node, allin), 1.0)]
        cols = [1, *raises]
        mapped = map_size(spot.fraction(to), [0.0, *fracs], rule or self.rule)
        return [(self.child(node, cols[i]), p) for i, p in mapped]


class Path(NamedTuple):
    """A path of a translated agent (``cfrlab.agents.ranges``): its seat and abstract node."""

    position: int
    node: int


class TranslatedRanges:
    """``RangePolicy`` of a translated strategy: paths are abstract nodes (module docstring)."""

    def __init__(self, translator: Translator, game: GameDef) -> None:
        if game.to_text() != translator.game.to_text():
            raise CfrlabError(f"the translated strategy is for {translator.game.name or 'another game'}, "
                              f"not for {game.name or 'this game'}")
        self.t = translator
        self.game = game
        self.hands = hands(game)
        self._states: dict[tuple, np.ndarray] = {}

    def hand_states(self, position: int, rnd: int, board: list[int]) -> np.ndarray:
        """The abstract private state of every hand at ``rnd`` with ``board`` (-1: meets the board)."""
        nb = self.game.total_board_cards(rnd)
        key = (position, rnd, tuple(board[:nb]))
        out = self._states.get(key)
        if out is None:  # every hand at once (the model's states do not depend on the seat)
            out = self._states[key] = hand_states(self.t.model, self.game, rnd, key[2])
        return out

    def root(self, position: int) -> list[tuple[Path, float]]:
        return [(Path(position, self.t.root), 1.0)]

    def probs(self, path: Path, state: State, board: list[int]) -> tuple[list[str], np.ndarray]:
        spot = spot_of_state(state)
        if not self.t.in_step(path.node, spot):
            return [CALL], np.ones((len(self.hands), 1))
        own = self.t.own(path.node, spot)
        states = self.hand_states(path.position, spot.round, board)
        ok = states >= 0
        out = np.zeros((len(self.hands), len(own.actions)))
        out[ok] = self.t.probs(path.node, spot, states[ok], own)
        out[~ok, own.actions.index(CALL)] = 1.0
        return own.actions, out

    def advance(self, path: Path, state: State, action: str) -> list[tuple[Path, float]]:
        spot = spot_of_state(state)
        if spot.player == path.position:
            return [(Path(path.position, self.t.own_step(path.node, spot, action)), 1.0)]
        return [(Path(path.position, n), p) for n, p in self.t.opponent_step(path.node, spot, action)]


class TranslatedStrategy(StrategyBackedAgent):
    """A no-limit abstract ``Strategy`` playing the real game by action translation (module
    docstring): ``rule`` is one of ``cfrlab.tree.translation.RULES`` (default
    ``"pseudo-harmonic"``, randomized); ``greedy`` plays the most likely real action.

        >>> import cfrlab
        >>> s = cfrlab.solve("leduc-nolimit", "cfr+", bets="fcpa", iterations=300).strategy
        >>> agent = TranslatedStrategy(s, "geometric")
        >>> agent.real_exploitability() > 10 * s.exploitability()  # chips per game, real game
        True
    """

    def __init__(self, strategy: Strategy, rule: str = DEFAULT_RULE, greedy: bool = False,
                 name: str | None = None) -> None:
        self.translator = Translator(strategy, rule, greedy)
        self.strategy = strategy
        self.rule = self.translator.rule
        self.greedy = self.translator.greedy
        self.name = name or f"{strategy.name}:{self.rule}"
        self.rng = np.random.default_rng()
        self._reset(-1)

    def begin_match(self, game: GameDef, seed: int | None = None) -> None:
        super().begin_match(game, seed)
        self._reset(-1)

    # -- playing one hand -----------------------------------------------------------------
    def _reset(self, hand_number: int) -> None:
        self._hand = hand_number
        self._replay = State(self.game, [UNKNOWN] * deal_length(self.game), hand_number=max(hand_number, 0),
                             allow_unknown=True)
        self._done: list[tuple[int, str]] = []
        self.node = self.translator.root

    def _catch_up(self, view: MatchState) -> State:
        """Step the abstract node through the real actions taken since the last call."""
        history = view.state().history
        if view.hand_number != self._hand or history[:len(self._done)] != self._done:
            self._reset(view.hand_number)
        t = self.translator
        for p, action in history[len(self._done):]:
            spot = spot_of_state(self._replay)
            if p == view.position:
                self.node = t.own_step(self.node, spot, action)
            else:
                outcomes = t.opponent_step(self.node, spot, action)
                pick = 0 if len(outcomes) == 1 else int(self.rng.choice(len(outcomes), p=[q for _, q in outcomes]))
                self.node = outcomes[pick][0]
            self._replay.apply(action)
            self._done.append((p, action))
        return self._replay

    def distribution(self, view: MatchState) -> dict[str, float]:
        """The real actions the agent may take at ``view`` with their probabilities (its
        abstract node stepped through the hand so far, translations drawn)."""
        state = self._catch_up(view)
        spot = spot_of_state(state)
        t = self.translator
        if not t.in_step(self.node, spot):
            return {CALL: 1.0}
        own = t.own(self.node, spot)
        rnd = spot.round
        s = t.model.state_of(view.position, view.my_cards, view.visible_board(), rnd)
        p = t.probs(self.node, spot, np.array([s]), own)[0]
        return {a: float(q) for a, q in zip(own.actions, p)}

    def act(self, view: MatchState) -> str:
        dist = self.distribution(view)
        actions = list(dist)
        p = np.array([dist[a] for a in actions])
        if self.greedy:
            return actions[int(np.argmax(p))]
        if p.sum() <= 0:
            return CALL
        return actions[int(self.rng.choice(len(actions), p=p / p.sum()))]

    # -- every hand at once ---------------------------------------------------------------
    def range_policy(self, game: GameDef) -> TranslatedRanges:
        return TranslatedRanges(self.translator, load_game(game))

    def full_game_strategy(self) -> Strategy:
        """The agent written out as a strategy of the full game (every legal amount, lossless
        cards), exact by Kuhn's theorem (module docstring); small games only (the full tree
        must fit)."""
        return full_game_strategy(self.translator)

    def real_exploitability(self) -> float:
        """The agent's exploitability in the real game (chips per game): the exact best
        responses to ``full_game_strategy()``."""
        s = self.full_game_strategy()
        return exploitability(s.tree, s.model, s.policy)


def translate(strategy: Strategy | str, rule: str = DEFAULT_RULE, *, game: GameDef | str | None = None,
              greedy: bool = False) -> TranslatedStrategy:
    """A no-limit abstract strategy (a ``Strategy`` or its file) as a real-game agent with the
    translation ``rule`` (``"pseudo-harmonic"``, ``"pseudo-harmonic-det"``, ``"geometric"`` or
    ``"nearest"``)."""
    s = strategy if isinstance(strategy, Strategy) else Strategy.load(strategy, game=game)
    return TranslatedStrategy(s, rule, greedy)


# -- the agent written out in the full game -------------------------------------------------

@lru_cache(maxsize=2)
def _full_game(text: str, name: str) -> tuple:
    """The full tree and lossless model of a game, kept for the next rule or abstraction."""
    game = parse_game(text, name=name)
    return build_tree_for(game), model_for_game(game)


def full_game_strategy(t: Translator) -> Strategy:
    """``TranslatedStrategy.full_game_strategy`` for a ``Translator``."""
    tree, model = _full_game(t.game.to_text(), t.game.name or "")
    offsets = row_offsets(tree, model)
    policy = np.zeros((int(offsets[-1]), tree.num_actions))
    walk = _FullWalk(t, tree, model, offsets, policy)
    ones = np.ones(model.num_states[0])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * tree.max_depth + 100))
    try:
        walk.node(0, ({t.root: ones}, {t.root: ones.copy()}))
    finally:
        sys.setrecursionlimit(limit)
    return Strategy.from_policy(t.game, policy, tree=tree, model=model, algorithm=f"translated:{t.rule}",
                                extra={"translation": t.rule, "abstract_bets": t.tree.bets,
                                       "abstract_algorithm": t.strategy.algorithm})


class _FullWalk:
    """The full tree walked once with, per seat, the abstract paths reaching each node and
    their weights per private state (translation probabilities times the seat's own action
    probabilities)."""

    def __init__(self, t: Translator, tree, model, offsets, policy) -> None:
        self.t, self.tree, self.model, self.offsets, self.policy = t, tree, model, offsets, policy
        same = str(t.model.hash) == str(model.hash)
        self.abstract = [np.arange(n) if same else self._abstract_states(r, n)
                         for r, n in enumerate(model.num_states)]

    def _abstract_states(self, rnd: int, n: int) -> np.ndarray:
        """Each full-game private state's state in the strategy's chance model."""
        out = np.empty(n, dtype=np.int64)
        for s in range(n):
            hole, board = self.model.state_cards(rnd, s)
            out[s] = self.t.model.state_of(0, hole, board, rnd)
        return out

    def node(self, n: int, paths: tuple[dict, dict]) -> None:
        tree = self.tree
        kind = int(tree.kind[n])
        if kind == CHANCE:
            parent = self.model.parent[int(tree.round[n]) + 1]
            nxt = tuple({a: w[parent] for a, w in d.items()} for d in paths)
            self.node(int(tree.child[tree.first_child[n]]), nxt)
        elif kind == DECISION:
            self.decision(n, paths)

    def decision(self, n: int, paths: tuple[dict, dict]) -> None:
        tree, t = self.tree, self.t
        spot = spot_of_node(tree, n)
        p, rnd = spot.player, spot.round
        mine = []  # (abstract node, weights, own or None, probs over its actions)
        S = self.model.num_states[rnd]
        num = np.zeros((S, tree.num_actions))
        den = np.zeros(S)
        kids = tree.children(n)
        texts = [("f", "c")[a] if a < 2 else f"r{int(tree.raise_to[c])}"
                 for c, a in zip(kids, (int(tree.action[c]) for c in kids))]
        column = {s: int(tree.action[c]) for s, c in zip(texts, kids)}
        for a, w in paths[p].items():
            if t.in_step(a, spot):
                own = t.own(a, spot)
                probs = t.probs(a, spot, self.abstract[rnd], own)
                actions = own.actions
            else:
                own, probs, actions = None, np.ones((S, 1)), [CALL]
            num[:, [column[s] for s in actions]] += w[:, None] * probs
            den += w
            mine.append((a, w, own, probs, {s: j for j, s in enumerate(actions)}))
        block = np.zeros_like(num)
        seen = den > 0
        block[seen] = num[seen] / den[seen, None]
        block[~seen, 1] = 1.0  # a hand the agent never brings here: any row will do
        d = int(tree.decision[n])
        self.policy[self.offsets[d]:self.offsets[d] + S] = block
        for c, s in zip(kids, texts):
            own_next: dict[int, np.ndarray] = {}
            for a, w, own, probs, index in mine:
                j = index.get(s)
                if j is None:
                    continue
                w2 = w * probs[:, j]
                if not w2.any():
                    continue
                b = t.own_step(a, spot, s, own) if own is not None else a
                own_next[b] = own_next[b] + w2 if b in own_next else w2
            other: dict[int, np.ndarray] = {}
            for a, w in paths[1 - p].items():
                for b, q in t.opponent_step(a, spot, s):
                    other[b] = other[b] + q * w if b in other else q * w
            self.node(int(c), (own_next, other) if p == 0 else (other, own_next))
