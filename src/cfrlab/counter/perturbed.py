"""Perturbed equilibria: CFR on a game whose terminal utilities are changed to give a style.

The winner's bonus of Johanson's thesis ("Robust strategies and counter-strategies", sections
7.3.2 and 8.1.5): at every terminal the winner's winnings are multiplied by ``1 + bonus``
and the loser's loss is unchanged, so the game is no longer zero-sum; an equilibrium of it
is more aggressive than an equilibrium of the real game. Its quality is measured in the
unperturbed game (the thesis's 7% agent: 35 mb/g in its abstraction).

The loser's penalty is the opposite style: at every terminal the loser's loss is multiplied
by ``1 + penalty`` (winnings unchanged), so losing costs more than winning gains: an
equilibrium of that game risks less (folds more, raises less: tighter and more passive).
Both together: ``u' = u + bonus * max(u, 0) + penalty * min(u, 0) = (1 + penalty) * (u + b *
max(u, 0))`` with ``b = (bonus - penalty) / (1 + penalty)``. CFR's iterates do not change when
every utility is multiplied by the same positive number, so the solver runs the bonus walk with
``b`` (negative for a penalty) and multiplies the values it reports by ``1 + penalty``.

The solver is ``cfrlab.solvers.cfr``'s full-width CFR (any preset without sampling or
prediction) with a second set of terminal operators: the positive part of the showdown table
and of the fold winnings (``_kernels.perturbed_iterations``). With ``bonus = 0`` its iterates
are the unperturbed solver's, bit for bit.
"""

from __future__ import annotations

import numpy as np

from cfrlab.counter import _kernels as CK
from cfrlab.engine import kernels as K
from cfrlab.engine.core import Engine
from cfrlab.errors import CfrlabError
from cfrlab.solvers.cfr import PRESETS, CFRSolver

PERTURBABLE = ("cfr", "cfr+", "lcfr", "dcfr")


class _PositiveShowdown:
    """The chance model with the showdown table replaced by its positive part W+ (player 0
    wins): what the engine builds from it is the bonus's extra terminal operators."""

    def __init__(self, model):
        self._model = model
        self.kind = model.kind
        self.num_states = model.num_states
        self.parent = model.parent

    @property
    def hash(self) -> str:
        return f"{self._model.hash}+win"

    def __getattr__(self, name):  # fold tables, blocks, parents: the model's own
        if name in ("share_tables",):
            raise AttributeError(name)
        return getattr(self._model, name)

    def fold_matrix(self, r: int):
        return self._model.fold_matrix(r)

    def showdown_matrix(self):
        m = self._model.showdown_matrix()
        return m.maximum(0) if hasattr(m, "maximum") and not isinstance(m, np.ndarray) else np.maximum(m, 0.0)

    def showdown_blocks(self):
        blocks, b = self._model.showdown_blocks()
        return np.maximum(blocks, 0.0), b


class PerturbedSolver:
    """CFR (``algorithm``: cfr, cfr+, lcfr, dcfr) on the game with a winner's ``bonus`` and a
    loser's ``penalty`` (module docstring)."""

    def __init__(self, tree, model, *, bonus: float = 0.0, penalty: float = 0.0, algorithm: str = "cfr+"):
        for what, x in (("winner's bonus", bonus), ("loser's penalty", penalty)):
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0.0 <= float(x) <= 10.0:
                raise CfrlabError(f"the {what} is a fraction from 0 to 10 (0.07 = 7%), got {x!r}")
        if algorithm not in PERTURBABLE:
            raise CfrlabError(f"perturbed games are solved with {', '.join(PERTURBABLE)}, not {algorithm!r}")
        self.bonus, self.penalty = float(bonus), float(penalty)
        self._scale = 1.0 + self.penalty
        self._b = (self.bonus - self.penalty) / self._scale  # the bonus walk's parameter
        self.solver = CFRSolver(tree, model, algorithm, PRESETS[algorithm])
        if self.solver.params.predictive or not self.solver.params.alternating:
            raise CfrlabError(f"{algorithm}: the perturbed walk runs alternating updates only")
        self.tree, self.model, self.algorithm = tree, model, algorithm
        e = self.solver.engine
        aux = Engine(tree, _PositiveShowdown(model))
        lay, alay = self.solver.layout, aux.layout()
        if not np.array_equal(lay.node_off, alay.node_off):  # the same tree and sizes: the same places
            raise CfrlabError("internal: the bonus operators are laid out differently")
        # positive part of the fold winnings for player 0; player 1 keeps its losses only
        aterm = lay.term_util.copy()
        fold = np.zeros(aterm.shape[1], dtype=bool)
        for pos, T, _r, op0, _op1, start, _cap in lay.groups:
            if op0 != e.showdown_ops[0]:
                fold[start:start + T] = True
        aterm[0, fold] = np.maximum(aterm[0, fold], 0.0)
        aterm[1, fold] = np.minimum(aterm[1, fold], 0.0)
        self._aux = aux
        aux_ops = K.TerminalOps(alay.groups, np.ascontiguousarray(aterm), aux.optab, aux.opbuf,
                                aux.opbuf32() if self.solver.opbuf32.size else self.solver.opbuf32,
                                aux.opint, aux.opc)
        term_end = int(sum(int(T) * int(cap) for _p, T, _r, _a, _b, _s, cap in lay.groups))
        self._bonus = CK.WinnerBonus(aux_ops, np.zeros_like(self.solver.arenas[1]), term_end, self._b)

    @property
    def iterations(self) -> int:
        return self.solver.iterations

    def iterate(self, n: int = 1) -> None:
        s, e, lay = self.solver, self.solver.engine, self.solver.layout
        CK.perturbed_iterations(
            K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off),
            K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, s.opbuf32, e.opint, e.opc),
            self._bonus, s.tables, *s.arenas,
            s.rule, s.iterations, int(n), e.num_states)
        s.iterations += int(n)

    def average_policy(self) -> np.ndarray:
        return self.solver.average_policy()

    def perturbed_value(self, policy: np.ndarray, player: int) -> float:
        """``player``'s expected chips in the perturbed game when both positions play
        ``policy`` (float64[rows, 3]): winnings times 1 + bonus, losses times 1 + penalty."""
        e, lay = self.solver.engine, self.solver.layout
        reach, values = lay.arenas()
        bonus = self._bonus._replace(values=np.zeros_like(values))
        ops = K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, self.solver.opbuf32, e.opint, e.opc)
        return float(CK.perturbed_value(
            K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off), ops,
            bonus, e.num_states, np.ascontiguousarray(policy, dtype=np.float64), int(player), reach,
            values)) * self._scale
