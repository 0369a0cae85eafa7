"""N-player strategies as agents: a policy table in the N-player engine's row layout that acts
from what one seat sees (a ``MatchState``), at the ACPC client, the dealer's table, the human
front ends and the rotated-seat match (``cfrlab.agents.nmatch``).

``NPolicyAgent(game, policy)`` plays ``policy[rows, 3]`` (rows as ``NEngine`` numbers them: the
acting player's private state at each decision node); ``NPolicyAgent.from_strategy(s)`` plays an
``Strategy`` of more than two players. The built-in table bots (always-fold, always-call, always-raise, random, probe)
have an N-player form too: ``cfrlab.agents.make_agent`` expands their one-row-per-decision
table over the private states (``table_policy``), so the fast match kernel and the exact
values take them like any strategy.

The agent samples its action from the row (its own random generator, seeded by
``begin_match``), or with ``greedy=True`` plays the row's most likely legal action (ties: the
first of fold, call, raise).
"""

from __future__ import annotations

import numpy as np

from cfrlab.engine import rows
from cfrlab.engine.nplayer import NEngine, get_engine
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.games.agent import Agent, FastPolicy
from cfrlab.games.matchstate import MatchState
from cfrlab.strategy import Strategy

ACTIONS = "fcr"


class NPolicyAgent(Agent):
    """Plays ``policy`` (float64[rows, 3], ``NEngine`` layout) in ``game``."""

    def __init__(self, game: GameDef | str, policy: np.ndarray, *, name: str = "policy",
                 greedy: bool = False) -> None:
        self._game = load_game(game)
        self.engine: NEngine = get_engine(self._game)
        self.policy = self.engine.check(policy)
        self.greedy = bool(greedy)
        self.name = str(name)

    @classmethod
    def from_strategy(cls, strategy: Strategy, *, greedy: bool = False, name: str | None = None) -> NPolicyAgent:
        label = name or str(strategy.header.get("name") or strategy.algorithm)
        return cls(strategy.game, strategy.policy, name=label + (":greedy" if greedy and not name else ""),
                   greedy=greedy)

    @property
    def game(self) -> GameDef:
        return self._game

    @property
    def num_players(self) -> int:
        return self._game.num_players

    def play_policy(self) -> np.ndarray:
        """The table the agent plays: its policy, or each row's most likely legal action when
        greedy (what the match kernel and the exact values use)."""
        if not self.greedy:
            return self.policy
        return greedy_rows(self.engine, self.policy)

    def fast_policy(self, tree) -> FastPolicy:
        """The table the rotated-seat match kernel plays (``play_policy``), rows as the N-player
        engine numbers them (``NEngine.row_offset``)."""
        return FastPolicy(self.play_policy(), self.engine.row_offset[:-1], model=self.engine.deals)

    def begin_match(self, game: GameDef, seed: int | None = None) -> None:
        if game.to_text() != self._game.to_text():
            raise CfrlabError(f"agent {self.name!r} plays {self._game.name or 'another game'} "
                              f"({self._game.num_players} players), not {game.name or 'this game'} "
                              f"({game.num_players} players)")
        super().begin_match(game, seed)

    def row_of(self, view: MatchState) -> int:
        """The policy row of the information set ``view`` shows (its seat to act)."""
        t = self.engine.tree
        betting = view.betting_string()
        node = t.node_of_betting.get(betting)
        if node is None or t.decision[node] < 0:
            raise CfrlabError(f"agent {self.name!r}: no decision at betting {betting!r}")
        d = int(t.decision[node])
        if int(t.player[node]) != view.position:
            raise CfrlabError(f"agent {self.name!r}: position {view.position} does not act at betting {betting!r}")
        s = self.engine.deals.state_index(view.my_cards, view.visible_board(), int(t.round[node]))
        return int(self.engine.row_offset[d]) + s

    def distribution(self, view: MatchState) -> np.ndarray:
        """float64[3]: probabilities of (fold, call, raise) at this view."""
        return self.policy[self.row_of(view)]

    def act(self, view: MatchState) -> str:
        probs = self.distribution(view)
        legal = [ACTIONS.index(a[0]) for a in view.legal_actions()]
        if self.greedy:
            return ACTIONS[max(legal, key=lambda a: (probs[a], -a))]
        p = np.array([probs[a] if a in legal else 0.0 for a in range(3)])
        total = p.sum()
        if total <= 0:
            return "c"
        return ACTIONS[int(self.rng.choice(3, p=p / total))]


def greedy_rows(engine: NEngine, policy: np.ndarray) -> np.ndarray:
    """Each row's most likely legal action with probability 1 (ties: fold, call, raise order)."""
    return rows.greedy_rows(policy, rows.legal_rows(engine.tree, engine.row_offset))


def table_policy(engine: NEngine, per_decision: np.ndarray) -> np.ndarray:
    """A policy that ignores the cards: row ``d`` of ``per_decision`` (float64[D, 3]) for every
    private state at decision d (a table bot's N-player form)."""
    per_decision = np.asarray(per_decision, dtype=np.float64)
    if per_decision.shape != (engine.tree.num_decisions, 3):
        raise CfrlabError(f"a table of shape {per_decision.shape}; the game has {engine.tree.num_decisions} "
                          "decision nodes")
    return np.ascontiguousarray(np.repeat(per_decision, np.diff(engine.row_offset), axis=0))
