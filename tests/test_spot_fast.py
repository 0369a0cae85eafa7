"""The spot's own walk (cfrlab.spot.fast): its O(n) folds and showdowns, suit isomorphism and
16-bit storage against the engine's dense tables (SpotModel) and the plain walk."""

import numpy as np
import pytest

from cfrlab.cards import parse_cards
from cfrlab.cards.ranges import COMBOS, combo_index
from cfrlab.engine import best_response_values, game_value
from cfrlab.errors import CfrlabError
from cfrlab.solvers.lp import solve_lp
from cfrlab.spot import make_spot, spot_tree
from cfrlab.spot.fast import FastSolver, SpotGame, engine_policy
from cfrlab.spot.model import SpotModel
from cfrlab.spot.solve import solve_memory, solve_spot

ARGS = {"pot": 10, "stack": 30, "oop_range": "AA, QJs, 87s:0.5, 54s", "ip_range": "KK, T9s, 76s, A2s:0.5",
        "bets": {"bet": "p", "raise": "a"}}


def spot_on(board, **kw):
    return make_spot(board=board, **{**ARGS, **kw})


def trained(spot, iso, iterations, storage="float64", algorithm="dcfr"):
    tree = spot_tree(spot)
    s = FastSolver(SpotGame(spot, tree, iso), algorithm, storage)
    s.iterate(iterations)
    return tree, s


SMALL = {"oop_range": "AA, 87s", "ip_range": "KK, T9s", "bets": {"bet": "p", "raise": "a"}}


@pytest.mark.parametrize("board, kw", [("Qs Jh 2h 8d 3c", {}), ("Qs Jh 2h 8h", {}), ("Qs Jh 2h", SMALL)])
def test_walk_values_equal_the_engines_dense_tables(board, kw):
    """After some iterations, the walk's best responses and game value (O(n) terminals, suit
    isomorphism) equal the engine's exact ones on the same strategy written in the engine's
    layout over SpotModel's dense tables (every board, no isomorphism)."""
    spot = spot_on(board, **kw)
    tree, s = trained(spot, True, 12)
    model = SpotModel(spot)
    pol = engine_policy(s, model)
    b0, b1, v0, _ = s.exact_values()
    assert (b0, b1) == pytest.approx(best_response_values(tree, model, pol), abs=1e-9)
    assert v0 == pytest.approx(game_value(tree, model, pol), abs=1e-9)
    assert b0 + b1 > 0.01  # 12 iterations: not an equilibrium


def test_isomorphism_merges_boards_and_keeps_the_iterates_on_a_turn():
    """Qs Jh 2h 8h: clubs and diamonds swap; 35 river boards instead of 48, the same iterates
    (the river's values, summed with the hands permuted, are the plain walk's)."""
    spot = spot_on("Qs Jh 2h 8h")
    _, a = trained(spot, True, 20)
    _, b = trained(spot, False, 20)
    assert [lev.B for lev in a.game.levels] == [1, 35] and len(a.game.group) == 2
    assert a.exact_values() == pytest.approx(b.exact_values(), abs=1e-9)


def test_isomorphic_strategy_has_the_plain_walks_values_on_a_flop():
    """On a flop (36 turn cards, 1,429 turn-and-river boards instead of 49 and 2,352), the
    isomorphic solve's strategy copied to every board has the same values in the plain walk.
    (The iterates themselves drift apart: a regret at +-1e-16 flips regret matching.)"""
    spot = spot_on("Qs Jh 2h", **SMALL)
    tree, a = trained(spot, True, 15)
    plain = FastSolver(SpotGame(spot, tree, False), "dcfr", "float64")
    assert [lev.B for lev in a.game.levels] == [1, 36, 1429]
    for n in tree.decision_node:
        n = int(n)
        L = int(tree.round[n]) - plain.game.street
        p = int(tree.player[n])
        for b, extras in enumerate(plain.game.levels[L].extras):
            cb, tau = a.game.canonical(extras)
            m = a.game.hand_map(p, tau)
            plain.cum[n][b] = a.cum[n][cb][:, m]
    assert plain.exact_values() == pytest.approx(a.exact_values(), abs=1e-9)


def test_a_range_that_is_not_suit_symmetric_keeps_its_boards():
    spot = spot_on("Qs Jh 2h 8h", oop_range="AA, QJs, 87s:0.5, 54s, 3c3d:0.5")
    g = SpotGame(spot, spot_tree(spot), True)
    assert len(g.group) == 2  # 3c3d is swapped into itself
    spot = spot_on("Qs Jh 2h 8h", oop_range="AA, QJs, 87s:0.5, 54s, 3c3s")
    g = SpotGame(spot, spot_tree(spot), True)
    assert len(g.group) == 1 and [lev.B for lev in g.levels] == [1, 48]


@pytest.mark.parametrize("algorithm", ["dcfr", "lcfr", "pcfr+"])
def test_turn_spot_value_equals_the_lp(algorithm):
    """A turn spot (suit isomorphism on) small enough for the sequence-form LP: the walk's
    game value to 1e-6 (the river's is tests/test_spot_solve.py's) with DCFR; with linear CFR
    and predictive CFR+ (the rule table's LCFR and PCFR+ on the walk) within their own
    exploitability."""
    spot = make_spot(board="Qs Jh 2h 8h", pot=10, stack=10, oop_range="AA, 87s", ip_range="KK, T9s",
                     bets={"bet": "p", "raise": "-"})
    tree, model = spot_tree(spot), SpotModel(spot)
    _, value = solve_lp(tree, model)
    sol = solve_spot(spot, algorithm, target_pct=1e-7, iterations=3000, check_every=250, storage="float64")
    assert sol.walk is not None
    assert abs(sol.values[0] - value) <= sol.exploitability + 1e-9  # within its own error
    assert sol.values[0] == pytest.approx(value, abs=1e-6 if algorithm == "dcfr" else 1e-4)
    assert sol.exploitability < 2e-3  # chips of a 10-chip pot
    assert sol.policy is not None and abs(value) > 0.1


def test_int16_storage_converges_like_float32():
    spot = spot_on("Qs Jh 2h 8d 3c")
    a = solve_spot(spot, target_pct=None, iterations=200, storage="float32")
    b = solve_spot(spot, target_pct=None, iterations=200, storage="int16")
    assert a.exploitability_pct < 0.1 and b.exploitability_pct < 0.1
    assert b.ev("oop") == pytest.approx(a.ev("oop"), abs=0.01)
    assert b.walk.reg[0].dtype == np.int16 and b.walk.cum[0].dtype == np.uint16


def test_strategy_reads_a_board_up_to_suits():
    """The strategy on a board is its canonical board's with the hands' suits permuted."""
    spot = spot_on("Qs Jh 2h 8h")
    sol = solve_spot(spot, target_pct=None, iterations=30)
    tree = sol.tree
    river = next(int(n) for n in tree.decision_node if tree.round[n] == 3)
    c5, d5 = parse_cards("5c 5d")
    a, b = sol.strategy(river, (c5,)), sol.strategy(river, (d5,))
    swap = lambda c: c ^ 1 if c % 4 < 2 else c
    perm = [combo_index(swap(int(x)), swap(int(y))) for x, y in COMBOS]
    assert np.allclose(a, b[perm])
    with pytest.raises(CfrlabError, match="card"):
        sol.strategy(river, ())


def test_bad_storage_is_refused():
    with pytest.raises(CfrlabError, match="storage is one of"):
        solve_spot(spot_on("Qs Jh 2h 8d 3c"), storage="int8")


def test_a_spot_too_big_is_refused_with_its_estimate():
    spot = spot_on("Qs Jh 2h", **SMALL)
    need = solve_memory(spot, storage="float32")
    assert solve_memory(spot, storage="int16") < need
    with pytest.raises(CfrlabError, match=f"needs about {need / 1e6:,.0f} MB"):
        solve_spot(spot, max_bytes=need - 1)


@pytest.mark.parametrize("p", [0, 1])
def test_showdown_and_fold_kernels_equal_a_pair_by_pair_count(p):
    """The O(n) showdown (prefix sums at slots found once per river board) and fold equal the
    n^2 sums over every pair of hands sharing no card, ties paying nothing, on every river
    board of a turn spot with random reaches (zeros among them)."""
    from cfrlab.cards.evaluator import rank7_batch
    from cfrlab.engine import kernels as K

    spot = spot_on("Qs Jh 2h 8h", oop_range="AA, KK, QJs, JTs, 87s:0.5, 54s, AQo",
                   ip_range="KK, QQ, T9s, 76s, A2s:0.5, AJo, KQs")
    g = SpotGame(spot, spot_tree(spot), True)
    o, lev = 1 - p, g.levels[-1]
    rng = np.random.default_rng(p)
    reach = rng.random((lev.B, len(g.hands[o]))) * (rng.random((lev.B, len(g.hands[o]))) > 0.3)
    reach *= lev.valid[o]
    sd, fold = (np.empty((lev.B, len(g.hands[p]))) for _ in range(2))
    c8 = [c.astype(np.uint8) for c in g.cards]
    K.showdown_values(reach, c8[p], g.sdvalid[p], g.sdidx[p], g.sorder[o], g.count[o], g.cptr[o],
                      g.clist[o], 2.5, sd)
    K.fold_values(reach, c8[o], c8[p], g.same_at[p], g.same_ok[p], g.validf[-1][p], -1.5, fold)
    assert np.abs(sd).max() > 0.1 and np.abs(fold).max() > 0.1
    for b, extras in enumerate(lev.extras):
        board = list(g.board) + list(extras)
        rk = [rank7_batch(np.array([list(c) + board for c in g.cards[q]], dtype=np.uint8)) for q in (p, o)]
        free = ~(g.cards[p][:, None, :, None] == g.cards[o][None, :, None, :]).any(axis=(2, 3))
        free &= lev.valid[p][b][:, None] & lev.valid[o][b][None, :]
        sign = np.sign(rk[0][:, None].astype(np.int64) - rk[1][None, :].astype(np.int64))
        assert sd[b] == pytest.approx(2.5 * (free * sign) @ reach[b], abs=1e-12)
        assert fold[b] == pytest.approx(-1.5 * free @ reach[b], abs=1e-12)
