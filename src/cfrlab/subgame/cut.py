"""Cutting subgames out of a blueprint: the public roots of a round, the two ranges there, and
the blueprint's counterfactual values the safe methods compare against.

A subgame root is a decision node of the public tree that starts round ``r`` (its parent is
the chance node that dealt the round's cards) together with one board block of the lossless
chance model (docs/ENGINE.md: a block is one public board sequence). Everything is counted in
the engine's units: ``reach[p]`` is player p's own reach probability of the root in each of
its private states, ``cbv[p]`` player p's counterfactual best-response value there against
the other player's blueprint, ``ev[p]`` its counterfactual value when both follow the
blueprint (chance and the other player's reach included, as in the engine's walk: the sum of
``reach[p] * ev[p]`` over states and roots is p's expected winnings in the subgames).

``gift[p]`` is the reach gift of Brown and Sandholm ("Safe and nested subgame solving for
imperfect-information games", NIPS 2017), per unit of counterfactual weight: what player p
gave up, measured by best-response values against the blueprint, at its earlier decisions on
the path to the root, each earlier decision's gift split over every root below it in
proportion to the roots' counterfactual weights (so that independently re-solved subgames
can never spend one gift twice; ``_gifts``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfrlab.abstraction import LosslessModel
from cfrlab.abstraction.model import LOSSLESS, has_blocks
from cfrlab.cards.cards import deck as card_deck
from cfrlab.engine import get_engine
from cfrlab.engine import kernels as K
from cfrlab.engine.core import Engine
from cfrlab.errors import CfrlabError
from cfrlab.strategy import Strategy
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD


@dataclass
class Blueprint:
    """A 2-player blueprint in the game's lossless model (exact cards): tree, model, policy."""

    strategy: Strategy
    tree: object
    model: LosslessModel
    policy: np.ndarray
    engine: Engine


@dataclass
class Cut:
    """The subgame roots of one round with the blueprint's ranges and values (module docstring).

    ``roots`` int64[K]: public tree nodes starting round ``round``; the per-root arrays are
    float64[K, 2, S] over the round's S = ``num_states[round]`` private states (every block)."""

    blueprint: Blueprint
    round: int
    roots: np.ndarray
    reach: np.ndarray
    cbv: np.ndarray
    ev: np.ndarray
    weight: np.ndarray  # [K, 2, S]: counterfactual weight of player p's state (chance x other's reach)
    gift: np.ndarray  # [K, 2, S]: player p's reach gift per unit of weight

    def root_index(self, node: int) -> int:
        hit = np.flatnonzero(self.roots == node)
        if not len(hit):
            raise CfrlabError(f"node {node} is not the start of round {self.round + 1} of this tree")
        return int(hit[0])


def check_game(game, later_round: bool = True) -> None:
    if game.num_players != 2:
        raise CfrlabError(f"subgame solving needs a 2-player game; {game.name or 'this game'} has "
                          f"{game.num_players} players")
    if later_round and game.num_rounds < 2:
        raise CfrlabError(f"{game.name or 'this game'} has one betting round: a subgame starts at a later round")


def blueprint_of(strategy: Strategy, later_round: bool = True) -> Blueprint:
    """The blueprint in exact cards: a lossless strategy as it is, a card-abstracted one lifted
    (each real hand plays its bucket's row). ``later_round``: refuse a game of one round (its
    subgames cannot start a later one; a search from the root can)."""
    if not isinstance(strategy, Strategy):
        raise CfrlabError(f"a blueprint is a Strategy, got {type(strategy).__name__}")
    game = strategy.game
    check_game(game, later_round)
    model = strategy.model
    if model.kind == LOSSLESS:
        lm, policy = model, strategy.policy
    else:
        lm = LosslessModel(game)  # refuses decks too large to enumerate
        policy = lift_policy(strategy, lm)
    engine = get_engine(strategy.tree, lm)
    engine.require_perfect_recall("subgame solving")
    return Blueprint(strategy, strategy.tree, lm, np.ascontiguousarray(policy, dtype=np.float64), engine)


def lift_policy(strategy: Strategy, lm: LosslessModel) -> np.ndarray:
    """``strategy``'s policy in the rows of the lossless model ``lm``: every real private state
    plays the row of the abstract state its cards map to."""
    game, model, tree = strategy.game, strategy.model, strategy.tree
    if not hasattr(model, "deal_states_batch"):
        raise CfrlabError(f"a {model.kind} blueprint cannot be read with real cards")
    maps = [_abstract_states(model, lm, game, r) for r in range(game.num_rounds)]
    src_off, dst_off = strategy.row_offset, tree_rows(tree, lm)
    out = np.empty((int(dst_off[-1]), strategy.policy.shape[1]))
    for d, node in enumerate(tree.decision_node):
        r = int(tree.round[node])
        out[dst_off[d]:dst_off[d + 1]] = strategy.policy[src_off[d] + maps[r]]
    return out


def tree_rows(tree, model) -> np.ndarray:
    return get_engine(tree, model).row_offset


def _abstract_states(model, lm: LosslessModel, game, r: int) -> np.ndarray:
    """int64[lm.num_states[r]]: the abstract state of each real state at round r (as seat 0,
    padding the deal with unused cards: a round-r state depends only on the cards seen)."""
    h, total = game.num_hole_cards, game.total_board_cards()
    deck = [int(c) for c in card_deck(game.num_ranks, game.num_suits)]
    deals = np.empty((lm.num_states[r], 2 * h + total), dtype=np.int64)
    for s in range(lm.num_states[r]):
        hole, board = lm.state_cards(r, s)
        used = set(hole) | set(board)
        rest = [c for c in deck if c not in used]
        need = h + total - len(board)
        deals[s] = hole + rest[:h] + board + rest[h:need]
    return model.deal_states_batch(deals)[:, 0, r].astype(np.int64)


def round_roots(tree, rnd: int) -> np.ndarray:
    """The decision nodes that start round ``rnd`` (children of the chance node closing rnd-1)."""
    R = tree.game.num_rounds
    if not 1 <= rnd < R:
        raise CfrlabError(f"a subgame starts at the start of a later round: round must be 1 to {R - 1} "
                          f"(0 is the first round) in {tree.game.name or 'this game'}, got {rnd}")
    kind, par = tree.kind, tree.parent
    nodes = np.flatnonzero((kind == DECISION) & (tree.round == rnd) & (par >= 0))
    return nodes[kind[par[nodes]] == CHANCE].astype(np.int64)


def _arena_walks(e: Engine, policy: np.ndarray):
    """(reach, br values, ev values) arenas of the whole tree under the fixed ``policy``."""
    lay = e.layout()
    walk = K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off)
    ops = K.exact_ops(K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf,
                                    np.zeros(0, dtype=np.float32), e.opint, e.opc))
    view = K.full_view(e.num_states)
    fixed = K.fixed_tables(policy)
    reach, br = lay.arenas()
    _, ev = lay.arenas()
    K.forward(walk, view, fixed, reach, -1)
    br_action = np.zeros(e.num_rows, dtype=np.int8)
    for i in (0, 1):
        trav = np.zeros(2, dtype=np.bool_)
        trav[i] = True
        K.terminals(ops, view, i, reach, br)
        K.backward(walk, view, fixed, reach, br, trav, K.MODE_BR, K.FIXED_POLICY, 1, br_action)
        K.terminals(ops, view, i, reach, ev)
    K.backward(walk, view, fixed, reach, ev, np.ones(2, dtype=np.bool_), K.MODE_VALUE, K.FIXED_POLICY, 1,
               br_action)
    return lay.node_off, reach, br, ev


def cut(blueprint: Blueprint, rnd: int) -> Cut:
    """The subgames starting round ``rnd`` (0-based) of ``blueprint`` (module docstring)."""
    tree, e = blueprint.tree, blueprint.engine
    roots = round_roots(tree, rnd)
    off, reach, br, ev = _arena_walks(e, blueprint.policy)
    S = int(e.num_states[rnd])
    idx = off[roots][:, None] + np.arange(S)[None, :]
    take = lambda arena: np.stack([arena[0][idx], arena[1][idx]], axis=1)
    r_, cbv, v = take(reach), take(br), take(ev)
    weight = np.stack([_weights(blueprint, rnd, r_[:, 1 - p], p) for p in (0, 1)], axis=1)
    gift = np.stack([_gifts(blueprint, rnd, roots, off, br, weight[:, p], p) for p in (0, 1)], axis=1)
    return Cut(blueprint, rnd, roots, r_, cbv, v, weight, gift)


def fold_blocks(model, rnd: int) -> tuple[np.ndarray, int]:
    if not has_blocks(model):
        raise CfrlabError("subgame solving needs a block-structured (lossless) chance model")
    blocks, B = model.fold_blocks(rnd)
    return np.asarray(blocks, dtype=np.float64), int(B)


def _weights(bp: Blueprint, rnd: int, other_reach: np.ndarray, p: int) -> np.ndarray:
    """[K, S]: player p's counterfactual weight of each state at each root: the chance
    probability of the deal times the other player's reach (P_r applied to the reach)."""
    blocks, B = fold_blocks(bp.model, rnd)
    Kb, H, _ = blocks.shape
    x = other_reach.reshape(len(other_reach), B, H)
    out = np.empty_like(x)
    for b in range(B):
        g = blocks[b % Kb]  # P_r[s0, s1] within the block
        out[:, b] = x[:, b] @ g if p == 1 else x[:, b] @ g.T
    return out.reshape(len(other_reach), -1)


def _gifts(bp: Blueprint, rnd: int, roots: np.ndarray, off: np.ndarray, br: np.ndarray,
           weight: np.ndarray, p: int) -> np.ndarray:
    """[K, S]: player p's reach gift per unit of weight at each root state.

    At p's decision d (state x) before the round, taking action a gives up
    gift = max_b V(d.b, x) - V(d.a, x) (V: p's best-response values against the blueprint);
    every root below d.a takes gift * w / W(d.a, x), where w is the root state's weight and
    W the total weight of the roots' states below d.a that descend from x. The shares of all
    the roots below d.a add up to the gift, so no re-solve can spend more than p gave away."""
    tree, e = bp.tree, bp.engine
    ns, pmap, poff = e.num_states, e.pmap, e.pmap_off
    kind, rnds, par = tree.kind, tree.round, tree.parent
    vec = lambda n: br[p, off[n]:off[n] + ns[rnds[n]]]
    root_row = {int(n): i for i, n in enumerate(roots)}
    inside = np.flatnonzero(rnds < rnd)  # the trunk (preorder)
    # bottom-up: W(n) over p's states at round(n), the weight of the roots below n
    W: dict[int, np.ndarray] = {}
    for n in roots:
        W[int(n)] = weight[root_row[int(n)]]
    for n in inside[::-1]:
        n = int(n)
        if kind[n] >= FOLD:
            continue
        r = int(rnds[n])
        acc = np.zeros(int(ns[r]))
        for c in tree.child[tree.first_child[n]:tree.first_child[n] + tree.num_children[n]]:
            w = W.get(int(c))
            if w is None:
                continue
            if kind[n] == CHANCE:
                pm = pmap[poff[r + 1]:poff[r + 1] + ns[r + 1]]
                w = np.bincount(pm, weights=w, minlength=int(ns[r]))
            acc += w
        W[n] = acc
    # top-down: G(n), the gift per unit of weight accumulated on the path to n
    G: dict[int, np.ndarray] = {0: np.zeros(int(ns[0]))}
    out = np.zeros_like(weight)
    for n in list(inside) + list(roots):
        n = int(n)
        if n == 0:
            continue
        q = int(par[n])
        g = G.get(q)
        if g is None:
            continue
        if kind[q] == CHANCE:
            r = int(rnds[n])
            g = g[pmap[poff[r]:poff[r] + ns[r]]]
        elif kind[q] == DECISION and tree.player[q] == p:
            kids = tree.child[tree.first_child[q]:tree.first_child[q] + tree.num_children[q]]
            best = np.max([vec(int(c)) for c in kids], axis=0)
            given = best - vec(n)
            tot = W.get(n)
            if tot is not None:
                g = g + np.divide(given, tot, out=np.zeros_like(given), where=tot > 0)
        if kind[n] < FOLD:
            G[n] = g
        if n in root_row:
            out[root_row[n]] = g
    return out
