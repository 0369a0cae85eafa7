"""Solving spots (cfrlab.spot.model, cfrlab.spot.solve): the chance model's tables, the
exploitability's conversion to percent of the pot (by hand), the LP's game value, and an
independent best response (a plain walk over combos)."""

import numpy as np
import pytest

from cfrlab.cards import rank_hand
from cfrlab.cards.ranges import COMBOS
from cfrlab.engine import best_response_values, exploitability, game_value, row_offsets, uniform_policy
from cfrlab.errors import CfrlabError
from cfrlab.solvers.lp import solve_lp
from cfrlab.spot import make_spot, spot_tree
from cfrlab.spot.model import SpotModel
from cfrlab.spot.solve import pot_percent, solve_spot
from cfrlab.tree.betting_tree import DECISION, FOLD, SHOWDOWN

RIVER = "Qs Jh 2h 8d 3c"


def nuts_vs_air(**kw):
    """OOP holds QdQc (a set: it wins), IP 7c6c (seven high); OOP may check or bet the pot,
    IP may only check behind or answer the bet (no raise)."""
    args = {"board": RIVER, "pot": 10, "stack": 95, "oop_range": "QdQc", "ip_range": "7c6c",
            "bets": {"bet": "-", "raise": "-", "oop": {"bet": "p"}}}
    return make_spot(**{**args, **kw})


# -- the conversion, by hand -------------------------------------------------------------------
def test_uniform_exploitability_in_percent_of_the_pot_by_hand():
    """Pot P = 10. Against IP folding or calling half the time, betting gives OOP
    (P/2 + 3P/2) / 2 = P (zero-sum winnings, the pot's halves counted as put in), checking
    P/2: BR0 = P. Against OOP betting half the time, IP's best is folding: -P/2 either way:
    BR1 = -P/2. Exploitability (P - P/2) / 2 = P/4 = 2.5 chips = 25% of the pot."""
    spot = nuts_vs_air()
    tree, model = spot_tree(spot), SpotModel(spot)
    pol = uniform_policy(tree, model)
    b0, b1 = best_response_values(tree, model, pol)
    assert b0 == pytest.approx(10.0) and b1 == pytest.approx(-5.0)
    assert pot_percent(exploitability(tree, model, pol), spot.pot) == pytest.approx(25.0)


@pytest.mark.parametrize("oop_position", [0, 1])
def test_solved_nuts_win_the_pot(oop_position):
    """At the equilibrium IP folds to the bet: OOP's EV is the whole pot (as the solvers print
    it), IP's 0, whichever position is out of position."""
    spot = nuts_vs_air(oop_position=oop_position)
    sol = solve_spot(spot, target_pct=1e-6, iterations=2000)
    assert sol.exploitability_pct <= 1e-6
    assert sol.ev("oop") == pytest.approx(10.0, abs=1e-4)
    assert sol.ev("ip") == pytest.approx(0.0, abs=1e-4)
    assert sol.summary()["ev_oop"] == pytest.approx(10.0, abs=1e-4)


# -- the model ---------------------------------------------------------------------------------
def test_model_tables_are_the_ranges_with_card_removal():
    """P and W against a plain count over card pairs: weights multiplied, pairs sharing a card
    out, normalized; W's sign from rank_hand on the full board."""
    spot = make_spot(board=RIVER, pot=10, stack=95, oop_range="AA:0.5, KdKc", ip_range="AsKs:0.25, KhKs")
    m = SpotModel(spot)
    assert m.n == 9 and m.num_states == (9, 9, 9, 9)  # 6 AA, KdKc, AsKs, KhKs
    board = [int(c) for c in spot.board]
    want_p, want_w = np.zeros((9, 9)), np.zeros((9, 9))
    for i, a in enumerate(m.combos):
        for j, b in enumerate(m.combos):
            ca, cb = [int(c) for c in COMBOS[a]], [int(c) for c in COMBOS[b]]
            if set(ca) & set(cb):
                continue
            want_p[i, j] = spot.ranges[0][a] * spot.ranges[1][b]
            want_w[i, j] = want_p[i, j] * np.sign(rank_hand(ca + board) - rank_hand(cb + board))
    total = want_p.sum()
    assert np.allclose(m.fold_matrix(3).toarray(), want_p / total, atol=1e-15)
    assert np.allclose(m.showdown_matrix().toarray(), want_w / total, atol=1e-15)
    assert not m.fold_matrix(0).toarray().any()
    assert m.describe_state(3, 0).endswith("/QsJh2h/8d/3c")


def test_model_refuses_ranges_that_always_collide():
    spot = make_spot(board=RIVER, pot=10, stack=95, oop_range="AsAh", ip_range="AsKs")
    with pytest.raises(CfrlabError, match="no pair of combos"):
        SpotModel(spot)


def test_turn_model_blocks_sum_to_one_and_split_by_river_card():
    spot = make_spot(board="Qs Jh 2h 8d", pot=10, stack=95, oop_range="AA, KK", ip_range="AK, 99")
    m = SpotModel(spot)
    blocks, B = m.fold_blocks(3)
    assert B == 48 and m.num_states[3] == 48 * m.n
    assert blocks.sum() == pytest.approx(1.0)
    # the river card As: no combo holding it has weight in its block
    i = list(m.river_cards).index(51)
    holds = (COMBOS[m.combos] == 51).any(axis=1)
    assert not blocks[i][holds].any() and not blocks[i][:, holds].any()
    assert np.allclose(m.reach_weights(0, 3).reshape(48, -1).sum(axis=0), m.reach_weights(0))
