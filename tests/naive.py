"""Slow, obviously correct twin of the vector engine (the tests' oracle).

Everything here is built straight from the rules of a 2-player limit ACPC game (the
``GameDef`` fields, the ACPC protocol document and game.c) and walks the full game tree deal by deal
with plain dicts. Nothing from cfrlab's tree, abstraction, solvers or evaluate packages is
used, nor cfrlab's hand evaluator: the oracle must not share code with what it checks.

Information sets are keyed ``(player, hole, board, betting)``: the acting player's hole
cards (sorted tuple of card ids), the board cards visible in the current round (tuple in
deal order) and the ACPC betting string (``"rc/cr"``). A policy is a dict from such a key
to a length-3 float array over the actions (0 fold, 1 call/check, 2 raise), illegal
actions carrying 0.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from game_texts import limit_text

from cfrlab.cards import deck

FOLD, CALL, RAISE = 0, 1, 2
LETTERS = "fcr"


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Node:
    """A betting situation (cards are kept outside). ``spent`` includes the blinds."""

    betting: str
    round: int
    spent: tuple[int, int]
    raises: int  # raises made in the current round
    actions_in_round: int
    player: int  # to act; -1 when the hand is over
    folder: int = -1  # -1: nobody folded
    showdown: bool = False

    @property
    def terminal(self) -> bool:
        return self.player < 0


def root(game) -> Node:
    assert game.num_players == 2 and game.is_limit
    assert min(game.stack) >= 1_000_000, (
        "the oracle ignores stacks (ACPC limit games here have none)"
    )
    return Node("", 0, (game.blind[0], game.blind[1]), 0, 0, game.first_player[0])


def legal_actions(game, node: Node) -> list[int]:
    p = node.player
    acts = []
    if node.spent[p] < max(node.spent):
        acts.append(FOLD)
    acts.append(CALL)
    if node.raises < game.max_raises[node.round]:
        acts.append(RAISE)
    return acts


@functools.lru_cache(maxsize=1 << 16)  # pure: the walks below ask for the same children again and again
def apply(game, node: Node, a: int) -> Node:
    p, r = node.player, node.round
    spent = list(node.spent)
    betting = node.betting + LETTERS[a]
    if a == FOLD:
        return Node(betting, r, node.spent, node.raises, node.actions_in_round + 1, -1, folder=p)
    if a == CALL:
        spent[p] = max(spent)
        n_act = node.actions_in_round + 1
        if n_act >= 2:  # both players have acted and the bets are equal: the round closes
            if r + 1 == game.num_rounds:
                return Node(betting, r, tuple(spent), node.raises, n_act, -1, showdown=True)
            return Node(betting + "/", r + 1, tuple(spent), 0, 0, game.first_player[r + 1])
        return Node(betting, r, tuple(spent), node.raises, n_act, 1 - p)
    spent[p] = max(spent) + game.raise_size[r]
    return Node(betting, r, tuple(spent), node.raises + 1, node.actions_in_round + 1, 1 - p)


def all_nodes(game) -> list[Node]:
    """Every betting node, preorder."""
    out = []

    def rec(n: Node) -> None:
        out.append(n)
        if not n.terminal:
            for a in legal_actions(game, n):
                rec(apply(game, n, a))

    rec(root(game))
    return out


# --------------------------------------------------------------------------- cards


def deals(game) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """Every ordered deal (hole0, hole1, board) with equal probability; hole tuples sorted,
    the board in deal order (round by round, each round's cards sorted)."""
    cards = deck(game.num_ranks, game.num_suits)
    h = game.num_hole_cards
    out = []
    for h0 in itertools.combinations(cards, h):
        rest0 = [c for c in cards if c not in h0]
        for h1 in itertools.combinations(rest0, h):
            rest1 = [c for c in rest0 if c not in h1]
            for board in _boards(rest1, list(game.num_board_cards[: game.num_rounds])):
                out.append((h0, h1, board))
    assert len(out) == game.num_deals
    return out


def _boards(rest, per_round):
    if not per_round:
        yield ()
        return
    for first in itertools.combinations(rest, per_round[0]):
        left = [c for c in rest if c not in first]
        for tail in _boards(left, per_round[1:]):
            yield first + tail


def visible_board(game, board, round_: int) -> tuple[int, ...]:
    return tuple(board[: game.total_board_cards(round_)])


def hand_value(cards) -> tuple:
    """Comparable value of a hand (only compared between hands of equal size, as ACPC does).

    One card: its rank. Fewer than five: rank-multiplicity categories with kickers (no
    straights or flushes). Five or more: the best five-card hand, straights (wheel lowest)
    and flushes included.
    """
    return _hand_value(tuple(cards))


@functools.lru_cache(maxsize=1 << 12)  # pure; every showdown of a deal ranks the same two hands
def _hand_value(cards: tuple) -> tuple:
    cards = list(cards)
    if len(cards) == 1:
        return (0, cards[0] // 4)
    if len(cards) < 5:
        return _multiplicity_value([c // 4 for c in cards])
    return max(_five_value(five) for five in itertools.combinations(cards, 5))


_PATTERN_CATEGORY = {(4,): 7, (3, 2): 6, (3,): 3, (2, 2): 2, (2,): 1}


def _multiplicity_value(ranks):
    counts = {r: ranks.count(r) for r in set(ranks)}
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    big = tuple(counts[r] for r in order if counts[r] >= 2)
    cat = 0
    for pattern, c in _PATTERN_CATEGORY.items():
        if big[: len(pattern)] == pattern:
            cat = c
            break
    kickers = tuple(r for r in order for _ in range(counts[r]))
    return (cat,) + kickers


def _five_value(five):
    ranks = [c // 4 for c in five]
    flush = len({c % 4 for c in five}) == 1
    distinct = sorted(set(ranks))
    top = -1
    if len(distinct) == 5:
        if distinct[4] - distinct[0] == 4:
            top = distinct[4]
        elif distinct == [0, 1, 2, 3, 12]:
            top = 3
    if top >= 0:
        return (8 if flush else 4, top)
    if flush:
        return (5,) + tuple(sorted(ranks, reverse=True))
    return _multiplicity_value(ranks)


def payoff0(game, node: Node, deal) -> float:
    """Player 0's winnings (chips) at a terminal node for this deal."""
    if node.folder >= 0:
        return -node.spent[0] if node.folder == 0 else node.spent[1]
    board = visible_board(game, deal[2], game.num_rounds - 1)
    v0 = hand_value(deal[0] + board)
    v1 = hand_value(deal[1] + board)
    if v0 > v1:
        return node.spent[1]
    if v1 > v0:
        return -node.spent[0]
    return 0.0


def infoset_key(game, node: Node, deal) -> tuple:
    p = node.player
    return (p, deal[p], visible_board(game, deal[2], node.round), node.betting)


# --------------------------------------------------------------------------- policies


def infosets(game) -> dict[tuple, np.ndarray]:
    """Every information set -> its legal mask (bool[3])."""
    out: dict[tuple, np.ndarray] = {}
    nodes = [n for n in all_nodes(game) if not n.terminal]
    for deal in deals(game):
        for n in nodes:
            key = infoset_key(game, n, deal)
            if key not in out:
                mask = np.zeros(3, bool)
                mask[legal_actions(game, n)] = True
                out[key] = mask
    return out


def uniform_policy(game) -> dict[tuple, np.ndarray]:
    return {k: m / m.sum() for k, m in infosets(game).items()}


def random_policy(game, rng: np.random.Generator) -> dict[tuple, np.ndarray]:
    out = {}
    for k, m in infosets(game).items():
        p = np.where(m, rng.random(3) + 1e-3, 0.0)
        out[k] = p / p.sum()
    return out


# --------------------------------------------------------------------------- evaluation


def expected_value(game, policy_a, policy_b) -> float:
    """Player 0's expected winnings when player 0 follows policy_a and player 1 policy_b."""
    pols = (policy_a, policy_b)

    def walk(node: Node, deal) -> float:
        if node.terminal:
            return payoff0(game, node, deal)
        probs = pols[node.player][infoset_key(game, node, deal)]
        return sum(
            probs[a] * walk(apply(game, node, a), deal)
            for a in legal_actions(game, node)
            if probs[a] > 0
        )

    ds = deals(game)
    return sum(walk(root(game), d) for d in ds) / len(ds)


def best_response(game, policy, responder: int) -> tuple[float, dict[tuple, int]]:
    """(responder's best-response value in chips, its pure strategy: infoset -> action).

    Bottom-up over information sets: the responder's choice at an information set maximises
    the sum over its histories of (chance x opponent reach) x value, where later choices are
    themselves best responses (computed lazily, memoised; perfect recall guarantees the
    recursion only goes deeper).
    """
    ds = deals(game)
    weight = 1.0 / len(ds)
    sign = 1.0 if responder == 0 else -1.0
    # histories of every responder infoset with their (chance x opponent) reach
    members: dict[tuple, list[tuple[Node, tuple, float]]] = {}

    def collect(node: Node, deal, reach: float) -> None:
        if node.terminal or reach == 0.0:
            return
        acts = legal_actions(game, node)
        if node.player == responder:
            members.setdefault(infoset_key(game, node, deal), []).append((node, deal, reach))
            for a in acts:
                collect(apply(game, node, a), deal, reach)
        else:
            probs = policy[infoset_key(game, node, deal)]
            for a in acts:
                collect(apply(game, node, a), deal, reach * probs[a])

    for d in ds:
        collect(root(game), d, weight)

    choice: dict[tuple, int] = {}
    memo: dict[tuple, float] = {}

    def value(node: Node, deal) -> float:  # responder's value, no reach weighting
        mk = (node.betting, deal)
        if mk in memo:
            return memo[mk]
        if node.terminal:
            v = sign * payoff0(game, node, deal)
        elif node.player == responder:
            v = value(apply(game, node, decide(infoset_key(game, node, deal))), deal)
        else:
            probs = policy[infoset_key(game, node, deal)]
            v = sum(
                probs[a] * value(apply(game, node, a), deal)
                for a in legal_actions(game, node)
                if probs[a] > 0
            )
        memo[mk] = v
        return v

    def decide(key) -> int:
        if key not in choice:
            hist = members[key]
            acts = legal_actions(game, hist[0][0])
            totals = [sum(w * value(apply(game, n, a), d) for n, d, w in hist) for a in acts]
            choice[key] = acts[int(np.argmax(totals))]
        return choice[key]

    total = sum(weight * value(root(game), d) for d in ds)
    return total, choice


def exploitability(game, policy) -> float:
    """(u0(BR, s1) + u1(s0, BR)) / 2 in chips (DESIGN.md convention)."""
    return 0.5 * (best_response(game, policy, 0)[0] + best_response(game, policy, 1)[0])


# --------------------------------------------------------------------------- CFR


def cfr(game, iterations: int, **params) -> tuple[dict, dict]:
    """The CFR family (parameters of ``cfr_tables``): (average policy, current policy)."""
    masks = infosets(game)
    regret, avg = cfr_tables(game, iterations, **params)
    average, current = {}, {}
    for k, m in masks.items():
        s = avg[k].sum()
        average[k] = avg[k] / s if s > 0 else m / m.sum()
        pos = np.where(m, np.maximum(regret[k], 0.0), 0.0)
        current[k] = pos / pos.sum() if pos.sum() > 0 else m / m.sum()
    return average, current


def cfr_tables(
    game,
    iterations: int,
    alternating: bool = False,
    regret_floor: bool = False,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float = 0.0,
    predictive: bool = False,
    start_regret: dict | None = None,
    first_iteration: int = 1,
) -> tuple[dict, dict]:
    """The CFR family with dict tables: (accumulated regrets, average-strategy sums).

    Runs iterations ``first_iteration .. first_iteration + iterations - 1`` from the regrets
    ``start_regret`` (zeros by default) and zero average sums, so one update step can be
    checked on its own.

    Regrets are counterfactual: values weighted by the opponent's reach and the deal's
    probability (1 / number of deals).

    Defaults are vanilla CFR (Zinkevich 2007): simultaneous updates, the average weighted by
    the acting player's own reach. ``alternating``: player 0 updates, then player 1 against
    0's new strategy. ``regret_floor``: regrets clipped at 0 after each update (CFR+).
    ``alpha``/``beta``: before iteration t adds its regrets, positive (negative) accumulated
    regrets are multiplied by (t-1)^alpha / ((t-1)^alpha + 1) (same with beta; DCFR).
    ``gamma``: iteration t's contribution to the average is weighted by t^gamma.
    ``predictive``: strategies come from regret matching on the accumulated regrets plus the
    player's instantaneous regrets of its last update (PCFR+).
    """
    masks = infosets(game)
    regret = {k: np.array(start_regret[k] if start_regret else np.zeros(3), float) for k in masks}
    avg = {k: np.zeros(3) for k in masks}
    last = {k: np.zeros(3) for k in masks}
    ds = deals(game)
    w = 1.0 / len(ds)

    def current(key):
        m = masks[key]
        r = regret[key] + last[key] if predictive else regret[key]
        pos = np.where(m, np.maximum(r, 0.0), 0.0)
        s = pos.sum()
        return pos / s if s > 0 else m / m.sum()

    def walk(
        node: Node,
        deal,
        reach: list[float],
        update: tuple[int, ...],
        strat: dict,
        d_regret: dict,
        d_avg: dict,
    ) -> float:
        if node.terminal:
            return payoff0(game, node, deal)
        p = node.player
        key = infoset_key(game, node, deal)
        sigma = strat[key]
        acts = legal_actions(game, node)
        vals = np.zeros(3)
        for a in acts:
            nr = list(reach)
            nr[p] *= sigma[a]
            vals[a] = walk(apply(game, node, a), deal, nr, update, strat, d_regret, d_avg)
        v = float(sigma @ vals)
        if p in update:
            sgn = 1.0 if p == 0 else -1.0
            cf = reach[1 - p] * w
            for a in acts:
                d_regret[key][a] += sgn * cf * (vals[a] - v)
            d_avg[key] += reach[p] * w * sigma
        return v

    def discount(t: int, exponent: float | None) -> float:
        if exponent is None:
            return 1.0
        x = float(t - 1) ** exponent
        return x / (x + 1.0)

    for t in range(first_iteration, first_iteration + iterations):
        groups = ((0,), (1,)) if alternating else ((0, 1),)
        for upd in groups:
            strat = {k: current(k) for k in masks}
            d_regret = {k: np.zeros(3) for k in masks}
            d_avg = {k: np.zeros(3) for k in masks}
            for d in ds:
                walk(root(game), d, [1.0, 1.0], upd, strat, d_regret, d_avg)
            for k in masks:
                if k[0] not in upd:
                    continue
                r = regret[k]
                r *= np.where(r > 0, discount(t, alpha), discount(t, beta))
                r += d_regret[k]
                if regret_floor:
                    np.maximum(r, 0.0, out=r)
                last[k] = d_regret[k].copy()
                avg[k] += float(t) ** gamma * d_avg[k]
    return regret, avg


# --------------------------------------------------------------------------- games


def exact_fraction(x: float, limit: int = 10_000) -> Fraction:
    return Fraction(x).limit_denominator(limit)


HOLDEM_LIKE = limit_text(max_raises="3 2", ranks=4, hole=2)


# --------------------------------------------------------------------------- glue


def from_engine_policy(game, tree, model, policy: np.ndarray, row_offset: np.ndarray) -> dict:
    """Read an ENGINE.md ``policy[rows, 3]`` as a naive policy dict (via the betting string
    -> node map and ``model.state_of``; nothing else of the engine is trusted)."""
    out = {}
    for key in infosets(game):
        p, hole, board, betting = key
        node = tree.node_of_betting[betting]
        d = int(tree.decision[node])
        s = int(model.state_of(p, list(hole), list(board), int(tree.round[node])))
        out[key] = np.array(policy[int(row_offset[d]) + s], dtype=float)
    return out


def to_engine_policy(game, tree, model, naive_policy: dict, row_offset: np.ndarray) -> np.ndarray:
    """The inverse: fill ``policy[rows, 3]`` from a naive dict (each row from its infoset)."""
    policy = np.zeros((int(row_offset[-1]), 3))
    for (p, hole, board, betting), probs in naive_policy.items():
        node = tree.node_of_betting[betting]
        d = int(tree.decision[node])
        s = int(model.state_of(p, list(hole), list(board), int(tree.round[node])))
        policy[int(row_offset[d]) + s] = probs
    return policy
