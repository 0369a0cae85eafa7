"""The N-player engine: tree x deals packed once; the CFR family and exact values on it.

Values are in chips per game. For a profile s (one ``policy[rows, 3]`` for all players):

- ``profile_values(s)[p]``: player p's expected payoff when everyone plays s;
- ``best_response_values(s)[p]``: p's payoff from a best response while the others play s;
- ``nash_conv(s)`` = sum over p of (BR value - profile value): 0 exactly at a Nash equilibrium
  (OpenSpiel's ``nash_conv``). With two players it is twice the exploitability of docs/ENGINE.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.multiplayer import _kernels as K
from cfrlab.multiplayer.deals import Deals, build_deals
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
        legal = np.repeat(self.tree.legal.astype(np.float64), np.diff(self.row_offset), axis=0)
        return legal / legal.sum(axis=1, keepdims=True)

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

    def nash_conv(self, policy: np.ndarray) -> float:
        return self.evaluate(policy).nash_conv


FIXED = K.UpdateRule(False, False, False, False, 1.0, 1.0, 0.0)


@dataclass(frozen=True)
class Evaluation:
    """Exact figures of a profile, chips per game: ``values[p]`` (everyone plays the profile),
    ``br_values[p]`` (p best-responds), ``nash_conv`` = sum(br_values - values)."""

    values: tuple[float, ...]
    br_values: tuple[float, ...]
    nash_conv: float

    @property
    def gains(self) -> tuple[float, ...]:
        """What each player gains by deviating to a best response."""
        return tuple(b - v for b, v in zip(self.br_values, self.values))

    def to_json(self) -> dict:
        return {"nash_conv": self.nash_conv, "values": list(self.values), "br_values": list(self.br_values),
                "gains": list(self.gains)}


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


# -- the CFR family ------------------------------------------------------------------------

@dataclass(frozen=True)
class NParams:
    """Update rule (as ``cfrlab.solvers.cfr.CFRParams``): alternating updates (player 0, then
    1, ... each against the others' newest strategies), regret floor (CFR+), DCFR discounts
    alpha / beta of positive / negative regrets, averaging weight t^gamma."""

    alternating: bool = False
    regret_floor: bool = False
    alpha: float | None = None
    beta: float | None = None
    gamma: float = 0.0

    def __post_init__(self) -> None:
        for name in ("alternating", "regret_floor"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise CfrlabError(f"{name} is true or false, got {getattr(self, name)!r}")
        for name in ("alpha", "beta", "gamma"):
            v = getattr(self, name)
            if v is None and name != "gamma":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise CfrlabError(f"{name} is a finite number, got {v!r}")
        if self.gamma < 0:
            raise CfrlabError(f"gamma is at least 0, got {self.gamma}")

    def rule(self) -> K.UpdateRule:
        return K.UpdateRule(bool(self.alternating), bool(self.regret_floor), self.alpha is not None,
                            self.beta is not None, float(self.alpha or 0.0), float(self.beta or 0.0),
                            float(self.gamma))


PRESETS: dict[str, NParams] = {
    "cfr": NParams(),
    "cfr-alt": NParams(alternating=True),  # vanilla CFR with alternating updates, as OpenSpiel's CFRSolver
    "cfr+": NParams(alternating=True, regret_floor=True, gamma=1.0),
    "lcfr": NParams(alternating=True, alpha=1.0, beta=1.0, gamma=1.0),
    "dcfr": NParams(alternating=True, alpha=1.5, beta=0.0, gamma=2.0),
}
SAMPLED = ("cs", "es")  # Monte Carlo CFR: cfrlab.multiplayer.mccfr
TWO_PLAYER_ONLY = ("lp", "pcfr+", "pcs", "os")
ALGORITHMS = (*PRESETS, *SAMPLED)


def params_for(algorithm: str, **overrides) -> NParams:
    """The update rule of a full-width preset, with ``NParams`` overrides."""
    name = algorithm.lower()
    if name in TWO_PLAYER_ONLY:
        raise CfrlabError(f"{algorithm} is for 2-player games; with more players use one of "
                          f"{', '.join(ALGORITHMS)}")
    if name in SAMPLED:
        raise CfrlabError(f"{name} is a sampling solver without an update rule to tune "
                          "(cfrlab.multiplayer.mccfr.make_nsolver builds it)")
    if name not in PRESETS:
        raise CfrlabError(f"unknown N-player algorithm {algorithm!r}; use one of {', '.join(ALGORITHMS)}")
    p = PRESETS[name]
    return NParams(**{**asdict(p), **overrides}) if overrides else p


class NSolver:
    """A full-width CFR variant for N players (``iterate``, ``average_policy``, ``current_policy``)."""

    def __init__(self, game: GameDef | str, algorithm: str = "cfr", params: NParams | None = None,
                 engine: NEngine | None = None) -> None:
        self.engine = engine or get_engine(game)
        self.game = self.engine.game
        self.algorithm = algorithm
        self.params = params or params_for(algorithm)
        self.rule = self.params.rule()
        e = self.engine
        self.regret = np.zeros((e.rows, 3))
        self.avg = np.zeros((e.rows, 3))
        self.sigma = e.uniform_policy()
        self.iterations = 0
        self.seconds = 0.0
        self.seed = None

    def iterate(self, n: int = 1) -> None:
        if n < 0:
            raise CfrlabError(f"iterations must be >= 0, got {n}")
        e = self.engine
        start = time.perf_counter()
        K.iterate(e.T, e.D, self.rule, self.iterations, int(n), self.regret, self.avg, self.sigma,
                  e.dec_of_row, e.buf)
        self.iterations += int(n)
        self.seconds += time.perf_counter() - start

    def current_policy(self) -> np.ndarray:
        return self.sigma.copy()

    def average_policy(self) -> np.ndarray:
        out = np.empty_like(self.avg)
        K.normalize_rows(self.avg, self.engine.tree.legal, self.engine.dec_of_row, out)
        return out

    def state_dict(self) -> dict:
        return {"regret": self.regret.copy(), "avg": self.avg.copy(), "sigma": self.sigma.copy(),
                "iterations": self.iterations, "seconds": self.seconds}

    def load_state_dict(self, d: dict) -> None:
        for key in ("regret", "avg", "sigma"):
            arr = np.asarray(d[key], dtype=np.float64)
            if arr.shape != self.regret.shape:
                raise CfrlabError(f"checkpoint {key} has shape {arr.shape}, expected {self.regret.shape}")
            setattr(self, key, arr.copy())
        self.iterations = int(d["iterations"])
        self.seconds = float(d.get("seconds", 0.0))
