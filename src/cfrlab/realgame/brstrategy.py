"""The best response itself, for real games small enough to store one.

``lift(opponent, game)`` writes any opponent the walk can query (a bucketed or lossless
strategy, a built-in bot, an agent with ``batch_policy``) as a strategy of the game's lossless
model: each real private state (hole cards and the board so far) gets the row its cards map
to. ``real_best_response_strategy(opponent, game)`` then asks the lossless engine for each
position's pure best response to that lift: their values are the real-game best response's
(``real_best_response``, which never stores a strategy), and the best response, one strategy
playing both positions, can be saved, played (``cfrlab match``) or inspected like any other. Games whose
lossless model would hold more than ``MAX_ROWS`` information sets are refused: full hold'em
has 3.2e14 on the river alone.
"""

from __future__ import annotations

import numpy as np

from cfrlab.abstraction.lossless import LosslessModel
from cfrlab.abstraction.sizes import private_states
from cfrlab.engine import best_response, build_tree_for, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef, load_game
from cfrlab.games.units import to_unit
from cfrlab.realgame.br import _load
from cfrlab.realgame.hands import make_deck
from cfrlab.realgame.opponents import batch_policy_of
from cfrlab.strategy import Strategy

MAX_ROWS = 20_000_000  # information sets of the lossless model (rows x 3 float64: 480 MB)


def _game(opponent, game) -> GameDef:
    if game is None:
        if isinstance(opponent, Strategy):
            return opponent.game
        raise CfrlabError("the game is needed for an opponent that is not a Strategy")
    return load_game(game)


def lossless_rows(game: GameDef, tree=None) -> int:
    """Information sets of the game's lossless model (by formula, nothing built)."""
    tree = tree if tree is not None else build_tree_for(game)
    states = private_states(game)
    return int(sum(states[int(tree.round[n])] for n in tree.decision_node))


def check_storable(game: GameDef, tree=None) -> None:
    """Refuse, before any work, a game whose best response cannot be stored."""
    if game.num_players != 2 or not game.is_limit:
        raise CfrlabError("the real-game best response handles 2-player limit games")
    rows = lossless_rows(game, tree)
    if rows > MAX_ROWS:
        raise CfrlabError(f"{game.name or 'this game'} has {rows:.3g} information sets in the real "
                          f"game: too many to store a best response (at most {MAX_ROWS:,}); "
                          "real_best_response gives its value")


def real_states(bp, g: GameDef, lm: LosslessModel) -> list[np.ndarray]:
    """Per round, int64[lm.num_states[r]]: each real private state (hole + board) -> the
    state ``bp`` (a ``BatchPolicy``) gives those cards."""
    deck = make_deck(g)
    local = {int(c): i for i, c in enumerate(deck.to_global)}
    state_of = []
    for r in range(g.num_rounds):
        cache: dict[tuple[int, ...], np.ndarray] = {}
        out = np.empty(lm.num_states[r], dtype=np.int64)
        for s in range(lm.num_states[r]):
            hole, board = lm.state_cards(r, s)
            b = tuple(local[c] for c in board)
            if b not in cache:
                arr = np.asarray(b, dtype=np.int64)
                cache[b] = np.asarray(bp.states(r, arr, deck, deck.valid(arr)), dtype=np.int64)
            out[s] = cache[b][deck.hand_of[tuple(sorted(local[c] for c in hole))]]
        state_of.append(out)
    return state_of


def lift(opponent, game: GameDef | str | None = None) -> Strategy:
    """``opponent`` as a Strategy of the game's lossless model (module docstring)."""
    g = _game(opponent, game)
    tree = build_tree_for(g)
    check_storable(g, tree)
    obj = _load(opponent, g)
    if isinstance(obj, Strategy) and obj.game.to_text() != g.to_text():
        raise CfrlabError(f"the strategy is for {obj.game.name or 'another game'}, not for "
                          f"{g.name or 'this game'}")
    bp = batch_policy_of(obj, tree)
    lm = LosslessModel(g)
    state_of = real_states(bp, g, lm)
    off = row_offsets(tree, lm)
    policy = np.zeros((int(off[-1]), 3))
    for d, node in enumerate(tree.decision_node):
        r = int(tree.round[node])
        policy[off[d]:off[d + 1]] = bp.policy[bp.row_offset[d] + state_of[r]]
    return Strategy.from_policy(g, policy, tree=tree, model=lm, algorithm="lift",
                                extra={"lifted": getattr(bp, "kind", "agent")})


def real_best_response_strategy(opponent, game: GameDef | str | None = None
                                ) -> tuple[tuple[float, float], Strategy]:
    """((best-response value as position 0, as position 1) in the game's unit, a lossless
    Strategy that plays in each position the pure best response to the opponent in the other).
    The values are ``real_best_response``'s; their mean is the real-game exploitability.

        >>> import cfrlab
        >>> from cfrlab.realgame import real_best_response
        >>> s = cfrlab.solve("leduc", "cfr", iterations=10).strategy
        >>> (v0, v1), br = real_best_response_strategy(s)
        >>> r = real_best_response(s)
        >>> str(br.model.kind), abs(v1 - to_unit(s.game, r.br[1])) < 1e-9
        ('lossless', True)
    """
    lifted = lift(opponent, game)
    tree, lm = lifted.tree, lifted.model
    v0, pol0 = best_response(tree, lm, lifted.policy, 0)
    v1, pol1 = best_response(tree, lm, lifted.policy, 1)
    off = row_offsets(tree, lm)
    policy = pol0.copy()
    for d, node in enumerate(tree.decision_node):  # position 1's rows from its own response
        if int(tree.player[node]) == 1:
            policy[off[d]:off[d + 1]] = pol1[off[d]:off[d + 1]]
    g = lifted.game
    br = Strategy.from_policy(g, policy, tree=tree, model=lm, algorithm="best-response",
                              extra={"real_game": True, "values_chips": [float(v0), float(v1)]})
    return (to_unit(g, v0), to_unit(g, v1)), br
