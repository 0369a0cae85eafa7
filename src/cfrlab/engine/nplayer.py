"""The N-player engine: tree x deals packed once, and exact values on it (its solvers:
``cfrlab.solvers.nplayer``).

Values are in chips per game. For a profile s (one ``policy[rows, 3]`` for all players):

- ``profile_values(s)[p]``: player p's expected payoff when everyone plays s;
- ``best_response_values(s)[p]``: p's payoff from a best response while the others play s;
- ``nash_conv(s)`` = sum over p of (BR value - profile value): 0 exactly at a Nash equilibrium
  (OpenSpiel's ``nash_conv``). With two players it is twice the exploitability of docs/ENGINE.md.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cfrlab.abstraction.deals import Deals, build_deals
from cfrlab.engine import _nplayer_kernels as K
from cfrlab.engine.rows import uniform_rows
from cfrlab.engine.values import Evaluation
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.tree import PublicTree, build_tree


def check_game(game: GameDef) -> None:
    """Refuse (one line) games the N-player engine cannot walk: no-limit, or stacks that run out."""
    name = game.name or "this game"
    if not game.is_limit:
        raise CfrlabError(f"{name} is no-limit; the N-player solvers handle limit games only")
    most = max(game.blind) + sum(m * s for m, s in zip(game.max_raises, game.raise_size))
    if any(s < most for s in game.stack):
        raise CfrlabError(f"{name}: limit games whose stacks can run out are not supported by the N-player engine")


class NEngine:
    """A game's N-player tree and deals, the row layout and the walk's buffers."""

    def __init__(self, game: GameDef | str) -> None:
        game = load_game(game)
        self.game = game
        check_game(game)
        self.tree: PublicTree = build_tree(game)
        self.deals: Deals = build_deals(game)
        t = self.tree
        ns = np.array(self.deals.num_states, np.int64)
        per = ns[t.round[t.decision_node]]
        self.row_offset = np.zeros(t.num_decisions + 1, np.int64)
        self.row_offset[1:] = np.cumsum(per)
        self.rows = int(self.row_offset[-1])
        self.dec_of_row = np.repeat(np.arange(t.num_decisions, dtype=np.int32), per)
        slot = np.maximum(t.action, 0).astype(np.int8)  # below a chance node: its one slot
        self.T = K.TreeArrays(t.kind, t.player, t.round, t.parent, t.depth, slot, t.decision,
                              t.spent.astype(np.float64), t.folded, t.legal, t.events, self.row_offset)
        self.D = self.deals.arrays
        P = game.num_players
        M = max(self.deals.num_prefixes)
        depth = t.max_depth + 1
        self.buf = K.Buffers(np.zeros((depth, P, M)), np.zeros((depth, 3, P, M)),
                             np.zeros((int(ns.max()), 3)), np.zeros(int(ns.max())),
                             np.zeros(int(ns.max()), np.int8), np.zeros(P))

    @property
    def num_players(self) -> int:
        return self.game.num_players

    def uniform_policy(self) -> np.ndarray:
        return uniform_rows(self.tree, self.row_offset)

    def check(self, policy: np.ndarray) -> np.ndarray:
        policy = np.ascontiguousarray(policy, dtype=np.float64)
        if policy.shape != (self.rows, 3):
            raise CfrlabError(f"policy has shape {policy.shape}, {self.game.name or 'the game'} needs ({self.rows}, 3)")
        return policy

    # -- exact values --------------------------------------------------------------------
    def profile_values(self, policy: np.ndarray) -> np.ndarray:
        policy = self.check(policy)
        upd = np.ones(self.num_players, dtype=np.bool_)
        K.walk(self.T, self.D, policy, upd, K.MODE_EV, policy, policy, FIXED, 1, False, self.buf,
               np.zeros(1, np.int8))
        return self.buf.root.copy()

    def best_response(self, policy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
        """(player's best-response value, its pure BR policy on its rows; other rows copy ``policy``)."""
        policy = self.check(policy)
        if not 0 <= player < self.num_players:
            raise CfrlabError(f"player {player} is not 0..{self.num_players - 1}")
        upd = np.zeros(self.num_players, dtype=np.bool_)
        upd[player] = True
        br = np.full(self.rows, -1, np.int8)
        K.walk(self.T, self.D, policy, upd, K.MODE_BR, policy, policy, FIXED, 1, False, self.buf, br)
        out = policy.copy()
        mine = br >= 0
        out[mine] = 0.0
        out[np.flatnonzero(mine), br[mine]] = 1.0
        return float(self.buf.root[player]), out

    def best_response_values(self, policy: np.ndarray) -> np.ndarray:
        return np.array([self.best_response(policy, p)[0] for p in range(self.num_players)])

    def evaluate(self, policy: np.ndarray) -> Evaluation:
        values = self.profile_values(policy)
        brs = self.best_response_values(policy)
        return Evaluation(tuple(float(v) for v in values), tuple(float(v) for v in brs),
                          float(np.sum(brs - values)))

    def best_responses(self, policy: np.ndarray) -> tuple[tuple[float, ...], float]:
        """(each seat's best-response value, NashConv): both need the profile's values."""
        ev = self.evaluate(policy)
        return ev.br_values, ev.nash_conv

    def nash_conv(self, policy: np.ndarray) -> float:
        return self.evaluate(policy).nash_conv


FIXED = K.UpdateRule(False, False, False, False, 1.0, 1.0, 0.0)


@lru_cache(maxsize=8)
def _engine(text: str) -> NEngine:
    return NEngine(text)


def get_engine(game: GameDef | str) -> NEngine:
    """The engine of ``game``, built once per game definition (cached)."""
    g = load_game(game)
    e = _engine(g.to_text())
    if e.game.name != g.name:  # same rules under another name: share the arrays, keep the name
        e2 = NEngine.__new__(NEngine)
        e2.__dict__.update(e.__dict__)
        e2.game = g
        return e2
    return e
