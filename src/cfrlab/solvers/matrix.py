"""Normal-form (matrix) games: regret matching, regret matching+, and the minimax LP.

A two-player game is given by payoff matrices with the row player's strategies as rows:
``A[i, j]`` is the row player's payoff when row plays i and column plays j. Zero-sum games
need only ``A`` (column gets ``-A``); general-sum helpers take ``(A, B)`` with ``B`` the
column player's payoffs. Mixed strategies are float64 vectors summing to 1.

The examples are those of Neller and Lanctot's tutorial ("An Introduction to Counterfactual Regret Minimization"): rock-paper-scissors, the 3x3 game solved by
removing dominated strategies, and the "tennis or Power Rangers" coordination game
(battle of the sexes), plus the normal form of its small perfect-information tree.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from cfrlab.engine.kernels import regret_match
from cfrlab.errors import CfrlabError

# Rock, paper, scissors; win +1, tie 0, loss -1 (row player's payoffs).
RPS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
RPS_ACTIONS = ("rock", "paper", "scissors")

# The tutorial's first 3x3 game, (row payoff, column payoff) per cell. Row action 1 strictly
# dominates rows 2 and 3; column action 1 dominates column 2 (strictly) and column 3
# (weakly): the equilibrium is (action 1, action 1) paying (10, 2).
DOMINANCE_A = np.array([[10.0, 8.0, 3.0], [5.0, 4.0, 1.0], [7.0, 5.0, 0.0]])
DOMINANCE_B = np.array([[2.0, 1.0, 1.0], [8.0, 0.0, 1.0], [3.0, 1.0, 3.0]])

# Tennis or Power Rangers: row prefers tennis (3 vs 2), column Power Rangers; disagreeing
# pays 0. Mixed equilibrium: row plays tennis 3/5, column plays tennis 2/5, each earns 6/5.
BATTLE_A = np.array([[3.0, 0.0], [0.0, 2.0]])
BATTLE_B = np.array([[2.0, 0.0], [0.0, 3.0]])

# The tutorial's perfect-information tree in normal form: player 1 picks Left/Right, then
# player 2 (seeing it) picks left/right; leaves pay player 1 (5, 1) after Left and (3, 6)
# after Right (zero-sum). Columns are player 2's plans (reply to Left, reply to Right):
# ll, lr, rl, rr. Backward induction gives player 2 "r after Left" (1 < 5) and "l after
# Right" (3 < 6), so the value for player 1 is max(1, 3) = 3.
TREE_LEAVES = ((5.0, 1.0), (3.0, 6.0))
_PLANS = list(itertools.product((0, 1), repeat=2))
TREE_NORMAL_FORM = np.array(
    [[TREE_LEAVES[0][left] for left, _ in _PLANS], [TREE_LEAVES[1][right] for _, right in _PLANS]]
)


regret_matching = regret_match  # play in proportion to positive regrets (the engine's one)


def best_response(A: np.ndarray, column_strategy: np.ndarray) -> tuple[int, float]:
    """Row player's best pure reply to a column strategy and its value."""
    u = np.asarray(A, float) @ column_strategy
    i = int(np.argmax(u))
    return i, float(u[i])


def exploitability(A: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """Zero-sum profile (x, y): (best row reply to y - best column reply to x) / 2."""
    A = np.asarray(A, float)
    return 0.5 * (float(np.max(A @ y)) - float(np.min(x @ A)))


@dataclass
class SelfPlayResult:
    """Average and final strategies of both players after `iterations` rounds."""

    average_row: np.ndarray
    average_column: np.ndarray
    current_row: np.ndarray
    current_column: np.ndarray
    iterations: int


def self_play(
    A: np.ndarray,
    iterations: int,
    plus: bool = False,
    initial_regrets: tuple[np.ndarray, np.ndarray] | None = None,
) -> SelfPlayResult:
    """Regret matching (``plus=False``) or regret matching+ self-play on a zero-sum game.

    Updates use expected payoffs (no sampling), so runs are deterministic. Regret matching:
    simultaneous updates, uniform averaging. Regret matching+ (Tammelin 2014): regrets
    floored at 0 after each update, alternating updates (column sees the row's new
    strategy), average weighted by the iteration number.
    """
    A = np.asarray(A, float)
    m, n = A.shape
    r_row = np.zeros(m) if initial_regrets is None else np.array(initial_regrets[0], float)
    r_col = np.zeros(n) if initial_regrets is None else np.array(initial_regrets[1], float)
    avg_row, avg_col = np.zeros(m), np.zeros(n)
    for t in range(1, iterations + 1):
        x = regret_matching(r_row)
        y = regret_matching(r_col)
        w = float(t) if plus else 1.0
        u_row = A @ y
        r_row += u_row - x @ u_row
        if plus:
            np.maximum(r_row, 0.0, out=r_row)
            x = regret_matching(r_row)
        u_col = -(x @ A)
        r_col += u_col - u_col @ y
        if plus:
            np.maximum(r_col, 0.0, out=r_col)
        avg_row += w * x
        avg_col += w * y
    return SelfPlayResult(
        avg_row / avg_row.sum(),
        avg_col / avg_col.sum(),
        regret_matching(r_row),
        regret_matching(r_col),
        iterations,
    )


@dataclass
class LearnerResult:
    """A regret-matching learner against a fixed opponent (row player's view)."""

    average_strategy: np.ndarray
    current_strategy: np.ndarray
    regrets: np.ndarray
    average_payoff: float  # learner's mean payoff per round actually played


def learn_against(
    A: np.ndarray,
    opponent: np.ndarray,
    iterations: int,
    plus: bool = False,
    seed: int | None = None,
) -> LearnerResult:
    """The row player learns by regret matching against a fixed column strategy.

    With ``seed=None`` updates use expected payoffs. With a seed, every round both sides
    sample an action and the learner's regrets are the realised ones, as in the tutorial's
    RPS table: regret(a) += A[a, j] - A[i, j].
    """
    A = np.asarray(A, float)
    opponent = np.asarray(opponent, float)
    m = A.shape[0]
    regrets, avg = np.zeros(m), np.zeros(m)
    rng = None if seed is None else np.random.default_rng(seed)
    total = 0.0
    for _ in range(iterations):
        x = regret_matching(regrets)
        avg += x
        if rng is None:
            u = A @ opponent
            total += float(x @ u)
            regrets += u - x @ u
        else:
            i = int(rng.choice(m, p=x))
            j = int(rng.choice(len(opponent), p=opponent))
            total += A[i, j]
            regrets += A[:, j] - A[i, j]
        if plus:
            np.maximum(regrets, 0.0, out=regrets)
    return LearnerResult(
        avg / avg.sum(), regret_matching(regrets), regrets, total / max(iterations, 1)
    )


def solve_zero_sum(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Minimax LP (HiGHS): (row strategy, column strategy, value for the row player).

    Row: max v s.t. (x^T A)_j >= v for all j, sum x = 1, x >= 0. The column player's
    strategy comes from the same LP on -A^T.
    """
    A = np.asarray(A, float)
    x, v = _maximin(A)
    y, w = _maximin(-A.T)
    if abs(v + w) > 1e-7 * max(1.0, abs(v)):
        raise CfrlabError(f"minimax LP: row value {v} and column value {-w} disagree")
    return x, y, v


def _maximin(A: np.ndarray) -> tuple[np.ndarray, float]:
    m, n = A.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-A.T, np.ones((n, 1))])  # v - (x^T A)_j <= 0
    a_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0, None)] * m + [(None, None)]
    res = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs"
    )
    if res.status != 0:
        raise CfrlabError(f"minimax LP failed: {res.message}")
    x = np.maximum(res.x[:m], 0.0)
    return x / x.sum(), float(res.x[-1])


# --------------------------------------------------------------------------- general sum


def eliminate_dominated(A: np.ndarray, B: np.ndarray) -> tuple[list[int], list[int]]:
    """Iterated elimination of strictly dominated pure strategies; the surviving rows and
    columns (original indices)."""
    A, B = np.asarray(A, float), np.asarray(B, float)
    rows, cols = list(range(A.shape[0])), list(range(A.shape[1]))
    changed = True
    while changed:
        changed = False
        for i in list(rows):
            if any(np.all(A[k, cols] > A[i, cols]) for k in rows if k != i):
                rows.remove(i)
                changed = True
        for j in list(cols):
            if any(np.all(B[rows, k] > B[rows, j]) for k in cols if k != j):
                cols.remove(j)
                changed = True
    return rows, cols


def support_enumeration(
    A: np.ndarray, B: np.ndarray, tol: float = 1e-9
) -> list[tuple[np.ndarray, np.ndarray]]:
    """All Nash equilibria of a nondegenerate bimatrix game (equal-size supports), for small
    games: each pair of supports is solved for the mixtures that make the opponent
    indifferent, then checked for non-negativity and for no better reply outside."""
    A, B = np.asarray(A, float), np.asarray(B, float)
    m, n = A.shape
    found = []
    for k in range(1, min(m, n) + 1):
        for rows in itertools.combinations(range(m), k):
            for cols in itertools.combinations(range(n), k):
                y = _indifferent(A[np.ix_(rows, cols)], cols, n)
                x = _indifferent(B[np.ix_(rows, cols)].T, rows, m)
                if x is None or y is None:
                    continue
                if np.max(A @ y) > (A @ y)[rows[0]] + tol or np.max(x @ B) > (x @ B)[cols[0]] + tol:
                    continue
                found.append((x, y))
    return found


def _indifferent(M: np.ndarray, support, size: int) -> np.ndarray | None:
    """Mixture over `support` (columns of M) making every row of M pay the same."""
    k = M.shape[0]
    lhs = np.zeros((k + 1, k + 1))
    lhs[:k, :k] = M
    lhs[:k, k] = -1.0
    lhs[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    try:
        sol = np.linalg.solve(lhs, rhs)
    except np.linalg.LinAlgError:
        return None
    if np.any(sol[:k] < -1e-12):
        return None
    out = np.zeros(size)
    out[list(support)] = np.maximum(sol[:k], 0.0)
    return out
