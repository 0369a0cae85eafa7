"""An agent that plays a strategy file: real cards -> private state -> action distribution.

The private state comes from the strategy's chance model (lossless hole + board cards, or a
bucket sequence for an abstraction), the row from the betting so far (the public tree's
decision node). The agent samples its action from the row, or with ``greedy=True`` plays
the row's most likely action (ties: the first of fold, call, raise).

For the fast match kernel, ``fast_policy(tree)`` hands over the policy table itself and a
function that maps a batch of deals to every position's private state per round
(``batch_states``).
"""

from __future__ import annotations

import numpy as np

from cfrlab.abstraction import ChanceModel, maps_deals
from cfrlab.agents.table_ranges import TreeRange
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.games.agent import FastPolicy, StrategyBackedAgent
from cfrlab.games.matchstate import MatchState
from cfrlab.strategy import Strategy

ACTIONS = "fcr"


class StrategyAgent(StrategyBackedAgent):
    """Plays ``strategy`` (a ``cfrlab.strategy.Strategy``) in its game. ``name`` is what hand
    logs and match results call it: by default the strategy's own (``Strategy.name``: its
    header's ``name``, else its algorithm)."""

    def __init__(self, strategy: Strategy, greedy: bool = False, name: str | None = None) -> None:
        self.strategy = strategy
        self.greedy = bool(greedy)
        self.name = name or strategy.name
        self.model = strategy.model
        self.tree = strategy.tree
        self.offsets = np.asarray(strategy.row_offset, dtype=np.int64)

    def _row(self, view: MatchState) -> tuple[int, np.ndarray]:
        node = self.strategy.node_of(view.betting_string())
        rnd = int(self.tree.round[node])
        state = int(self.model.state_of(view.position, view.my_cards, view.visible_board(), rnd))
        d = int(self.tree.decision[node])
        return node, self.strategy.policy[self.offsets[d] + state]

    def distribution(self, view: MatchState) -> np.ndarray:
        """Probabilities of the tree's action columns at this view: (fold, call, raise) in a
        limit game, then one column per raise size in a no-limit tree."""
        return self._row(view)[1]

    def act(self, view: MatchState) -> str:
        if self.tree.num_actions != 3:  # a no-limit tree: columns are raise sizes
            return self._act_wide(view)
        probs = self.distribution(view)
        legal = [ACTIONS.index(a[0]) for a in view.legal_actions()]
        if self.greedy:
            best = max(legal, key=lambda a: (probs[a], -a))
            return ACTIONS[best]
        p = np.array([probs[a] if a in legal else 0.0 for a in range(3)])
        total = p.sum()
        if total <= 0:
            return "c"
        return ACTIONS[int(self.rng.choice(3, p=p / total))]

    def _act_wide(self, view: MatchState) -> str:
        node, probs = self._row(view)
        legal = np.flatnonzero(self.tree.legal[int(self.tree.decision[node])])
        p = probs[legal]
        if self.greedy:
            a = int(legal[int(np.argmax(p))])  # ties: the first column (fold, call, smaller raise)
        elif p.sum() <= 0:
            return "c"
        else:
            a = int(legal[int(self.rng.choice(len(legal), p=p / p.sum()))])
        return self.tree.action_text(node, a)

    def range_policy(self, game: GameDef) -> TreeRange:
        """The strategy's play for every hand at once, path = its tree node
        (``cfrlab.agents.table_ranges.TreeRange``): real actions its tree does not hold are
        refused (they need action translation)."""
        return TreeRange(self.strategy, game, self.greedy)

    def fast_policy(self, tree) -> FastPolicy | None:
        if tree.num_actions != 3:  # the fast match kernels play limit games: act plays this one
            return None
        if tree.game.to_text() != self.game.to_text():
            raise CfrlabError(f"strategy {self.name!r} is for another game")
        model = self.model

        def states(deals: np.ndarray) -> np.ndarray:
            return batch_states(model, deals)

        offsets = self.offsets[: tree.num_decisions]  # the strategy's own row layout (int64)
        return FastPolicy(self.strategy.policy, offsets, states, self.greedy, model=model)


def batch_states(model: ChanceModel, deals: np.ndarray) -> np.ndarray:
    """int32[n, 2, R]: private state of each position per round for ACPC-ordered deals."""
    if not maps_deals(model):
        raise CfrlabError(f"a {model.kind} chance model cannot map real deals to its states")
    return np.asarray(model.deal_states_batch(deals), dtype=np.int32)
