"""Restricted Nash response (RNR) and data-biased response (DBR) by CFR on the vector walk.

A counter-strategy plays both positions, so two restricted games are solved side by side:
in game g the *exploiter* sits at position g and the *restricted opponent* at 1 - g. The
exploiter's rows of position g come from game g; the table of the free opponent likewise
holds position 1 - g's rows from game g. Both are updated by CFR (the preset's rule: cfr+,
dcfr, ...), alternating: the exploiter, then the free opponent against its new strategy.

- RNR (Johanson, Zinkevich and Bowling, "Computing Robust Counter-Strategies", NIPS 2007):
  chance decides once, at the root, that the opponent plays the model (probability p) or is
  free; only the opponent sees the coin. Against the exploiter the opponent behaves as the
  mixture of the two types, which at each of its rows is the reach-weighted mixture
  (p pi_fix sigma_fix + (1 - p) pi_free sigma_free) / (p pi_fix + (1 - p) pi_free), pi being
  the opponent's own reach; the free type plays its own game (the coin is known to it).
- DBR (Johanson and Bowling, "Data Biased Robust Counter Strategies", AISTATS 2009): at each
  of the opponent's information sets the model is followed with probability P_conf(I), set
  from how often I was observed, and the free strategy otherwise; the opponent plays
  P_conf sigma_fix + (1 - P_conf) sigma_free there, and its free part's regrets count where
  it is free (the walk's ``sigma_base``).

``p = 0`` (or ``P_conf = 0``) is ordinary self-play CFR: an equilibrium; ``p = 1`` is CFR
against the fixed model: its average converges to a best response.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfrlab.counter import _kernels as CK
from cfrlab.engine import kernels as K
from cfrlab.engine.core import FLOAT32_STATES, get_engine
from cfrlab.engine.rows import normalized_rows
from cfrlab.engine.values import best_response, best_response_values, expected_value
from cfrlab.errors import CfrlabError
from cfrlab.solvers.cfr import PRESETS

RESTRICTED_ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr")
_NO_F32 = np.zeros(0, dtype=np.float32)


@dataclass
class RestrictedResult:
    """A counter-strategy's figures, in chips: ``exploitation`` is its expected winnings
    against the model (mean over positions), ``exploitability`` its own (a best response's
    mean winnings against it), ``objective`` what the restricted game maximizes."""

    policy: np.ndarray
    exploitation: float
    exploitability: float
    objective: float
    iterations: int


class RestrictedSolver:
    """CFR on the RNR game (``p``) or the DBR game (``conf``: P_conf per row, float64[rows])."""

    def __init__(self, tree, model, fixed_policy: np.ndarray, *, p: float | None = None,
                 conf: np.ndarray | None = None, algorithm: str = "cfr+"):
        if (p is None) == (conf is None):
            raise CfrlabError("give exactly one of p (RNR) and conf (DBR)")
        if p is not None and not (isinstance(p, (int, float)) and 0.0 <= float(p) <= 1.0):
            raise CfrlabError(f"p is a probability from 0 to 1, got {p!r}")
        if algorithm not in RESTRICTED_ALGORITHMS:
            raise CfrlabError(f"restricted games are solved with {', '.join(RESTRICTED_ALGORITHMS)}, "
                              f"not {algorithm!r}")
        self.tree, self.model, self.algorithm = tree, model, algorithm
        e = self.engine = get_engine(tree, model)
        self.fixed = np.ascontiguousarray(fixed_policy, dtype=np.float64)
        if self.fixed.shape != (e.num_rows, 3):
            raise CfrlabError(f"the model has {self.fixed.shape[0]} rows, this game and abstraction {e.num_rows}")
        self.p = None if p is None else float(p)
        if conf is not None:
            conf = np.ascontiguousarray(conf, dtype=np.float64)
            if conf.shape != (e.num_rows,) or not ((conf >= 0) & (conf <= 1)).all():
                raise CfrlabError("P_conf must give every row a probability from 0 to 1")
        self.conf = conf
        params = PRESETS[algorithm]
        self.rule = K.UpdateRule(True, bool(params.regret_floor), params.alpha is not None,
                                 params.beta is not None, float(params.alpha or 0.0),
                                 float(params.beta or 0.0), float(params.gamma))
        self.legal_rows = e.legal[e.decision_of_row]
        self.opp_rows = [e.player_of_row == 1 - g for g in (0, 1)]  # the opponent's rows in game g
        rows = e.num_rows
        self.regret = np.zeros((rows, 3))  # the exploiter's (position g's rows from game g)
        self.avg = np.zeros((rows, 3))
        self.free_regret = np.zeros((rows, 3))  # the free opponent's
        self.free_avg = np.zeros((rows, 3))
        self.iterations = 0
        lay = e.layout()
        self._walk = K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off)
        # float32 terminal products on wide tables, as the solvers (cfrlab.solvers.cfr)
        op32 = e.opbuf32() if int(e.num_states[-1]) >= FLOAT32_STATES else _NO_F32
        self._train_ops = K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, op32, e.opint, e.opc)
        self._reach, self._values = lay.arenas()
        self._none = np.zeros(0)
        self._tables = tuple(np.zeros((rows, 3)) for _ in range(5))  # free, mine, mix, up, base
        self._free_reach = np.zeros(rows)
        if self.p is not None:  # the model's own reach per row, once (it never changes)
            self._fix_reach = np.zeros(rows)
            for g in (0, 1):
                CK.own_reach_rows(self._walk, e.num_states, self.fixed, 1 - g, self._reach, self._fix_reach)

    # -- iterations ---------------------------------------------------------------------
    def _mixture(self, g: int, free: np.ndarray, out: np.ndarray) -> None:
        """The opponent's behaviour in game g, written on position 1 - g's rows of ``out``."""
        e = self.engine
        if self.conf is not None:
            CK.mix_dbr(self.fixed, free, self.conf, e.player_of_row, 1 - g, out)
            return
        CK.own_reach_rows(self._walk, e.num_states, free, 1 - g, self._reach, self._free_reach)
        CK.mix_rnr(self.fixed, free, self._fix_reach, self._free_reach, self.p, e.player_of_row, 1 - g, out)

    def _walk_for(self, trav, up, base, regret, avg, t):
        return CK.restricted_walk(self._walk, self._train_ops, self.engine.num_states,
                                  CK.RestrictedPolicy(up, base, self._none), trav, CK.MODE_UPDATE, regret, avg,
                                  self.rule, t, self._reach, self._values)

    def iterate(self, n: int = 1) -> None:
        e = self.engine
        legal, dec, who = e.legal, e.decision_of_row, e.player_of_row
        free, mine, mix, up, base = self._tables
        for _ in range(int(n)):
            t = self.iterations + 1
            for g in (0, 1):
                opp = 1 - g
                K.normalize_rows(self.free_regret, legal, dec, free)  # regret matching
                K.normalize_rows(self.regret, legal, dec, mine)
                self._mixture(g, free, mix)
                CK.compose(up, mix, mine, who, opp)
                self._walk_for(g, up, up, self.regret, self.avg, t)
                K.normalize_rows(self.regret, legal, dec, mine)  # the opponent sees the new strategy
                if self.conf is None:  # RNR: the free type plays its own strategy below
                    CK.compose(up, free, mine, who, opp)
                    self._walk_for(opp, up, up, self.free_regret, self.free_avg, t)
                else:  # DBR: its parent sees the mixture, its regrets count where it is free
                    CK.compose(up, mix, mine, who, opp)
                    CK.compose(base, free, mine, who, opp)
                    self._walk_for(opp, up, base, self.free_regret, self.free_avg, t)
            self.iterations += 1

    # -- results ------------------------------------------------------------------------
    def average_policy(self) -> np.ndarray:
        """The counter-strategy: the exploiter's average, both positions."""
        return normalized_rows(self.avg, self.legal_rows)

    def free_average(self) -> np.ndarray:
        return normalized_rows(self.free_avg, self.legal_rows)

    def gap(self) -> float:
        """How far the averages are from an equilibrium of the restricted game (chips, mean
        over positions): what the exploiter could gain against the opponent's average
        behaviour (model and free part mixed as the game mixes them) minus what the average
        counter-strategy guarantees. 0 at an equilibrium."""
        e = self.engine
        free = self.free_average()
        mix = np.zeros_like(free)
        upper = 0.0
        for g in (0, 1):
            self._mixture(g, free, mix)
            sigma = np.ascontiguousarray(np.where((e.player_of_row == 1 - g)[:, None], mix, free))
            upper += 0.5 * best_response(self.tree, self.model, sigma, g)[0]
        return upper - self.evaluate().objective

    def evaluate(self, policy: np.ndarray | None = None) -> RestrictedResult:
        """Exploitation of the model, own exploitability and the restricted game's objective
        (what the exploiter guarantees in it, mean over positions) of ``policy`` (default: the
        average counter-strategy)."""
        pol = self.average_policy() if policy is None else policy
        return evaluate_counter(self.tree, self.model, pol, self.fixed, p=self.p, conf=self.conf,
                                iterations=self.iterations)


def exploitation(tree, model, counter: np.ndarray, fixed: np.ndarray) -> float:
    """The counter-strategy's expected chips against the model, mean over the positions."""
    return 0.5 * (expected_value(tree, model, counter, fixed) - expected_value(tree, model, fixed, counter))


def evaluate_counter(tree, model, counter: np.ndarray, fixed: np.ndarray, *, p: float | None = None,
                     conf: np.ndarray | None = None, iterations: int = 0) -> RestrictedResult:
    """``RestrictedResult`` of ``counter`` in the RNR game (``p``) or the DBR game (``conf``).

    RNR objective: p * exploitation - (1 - p) * exploitability (the worst case over the free
    type). DBR objective: the counter-strategy's value against the opponent's best response
    within the DBR restriction (``restricted_best_response``)."""
    expl = exploitation(tree, model, counter, fixed)
    b0, b1 = best_response_values(tree, model, counter)
    own = 0.5 * (b0 + b1)
    if conf is None:
        objective = float(p) * expl - (1.0 - float(p)) * own
    else:
        r0 = restricted_best_response(tree, model, counter, fixed, conf, responder=0)
        r1 = restricted_best_response(tree, model, counter, fixed, conf, responder=1)
        objective = -0.5 * (r0 + r1)
    return RestrictedResult(counter, expl, own, objective, iterations)


def restricted_best_response(tree, model, policy, fixed, conf, responder: int) -> float:
    """The value (chips) for ``responder`` of its best response to ``policy`` when at each of
    its rows it must play ``fixed`` with probability ``conf[row]`` (the DBR restriction)."""
    e = get_engine(tree, model)
    lay = e.layout()
    walk = K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off)
    ops = K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, _NO_F32, e.opint, e.opc)
    reach, values = e.scratch()
    mine = e.player_of_row == responder
    sigma = np.ascontiguousarray(np.where(mine[:, None], fixed, policy))
    dummy = np.zeros((1, 3))
    policy_br = CK.RestrictedPolicy(sigma, sigma, np.ascontiguousarray(conf, dtype=np.float64))
    return float(CK.restricted_walk(walk, ops, e.num_states, policy_br, responder, CK.MODE_RESTRICTED_BR, dummy,
                                    dummy, K.FIXED_POLICY, 1, reach, values))
