"""Solving spots (cfrlab.spot.model, cfrlab.spot.solve): the chance model's tables, the
exploitability's conversion to percent of the pot (by hand), the LP's game value, and an
independent best response (a plain walk over combos)."""

import json

import numpy as np
import pytest
from spot_helpers import RIVER, SMALL_TOML, cli, small_river

from cfrlab.cards import card_text, rank_hand
from cfrlab.cards.ranges import COMBOS
from cfrlab.engine import (
    best_response_values,
    exploitability,
    game_value,
    row_offsets,
    uniform_policy,
)
from cfrlab.errors import CfrlabError
from cfrlab.solvers.lp import solve_lp
from cfrlab.spot import make_spot, spot_tree
from cfrlab.spot.model import SpotModel
from cfrlab.spot.solve import pot_percent, solve_spot
from cfrlab.tree.betting_tree import DECISION, FOLD, SHOWDOWN


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


# -- oracles -----------------------------------------------------------------------------------


def test_game_value_equals_the_sequence_form_lp():
    """DCFR's value is within 1e-6 chips of the LP's (and within twice its exploitability, a
    bound that holds for any profile); pcfr+ gets the exploitability itself near zero."""
    spot = small_river()
    tree, model = spot_tree(spot), SpotModel(spot)
    lp_policy, value = solve_lp(tree, model)
    assert exploitability(tree, model, lp_policy) == pytest.approx(0.0, abs=1e-8)
    sol = solve_spot(spot, target_pct=None, iterations=10000, check_every=2500, tree=tree, model=model)
    assert sol.exploitability_pct < 1e-3
    assert abs(sol.values[0] - value) <= 2 * sol.exploitability
    assert sol.values[0] == pytest.approx(value, abs=1e-6)
    assert game_value(tree, model, sol.policy) == pytest.approx(sol.values[0], abs=1e-12)  # the engine on the walk's strategy
    sol = solve_spot(spot, "pcfr+", target_pct=1e-6, iterations=20000, check_every=500, tree=tree, model=model,
                     storage="float64")  # float32's regrets stall it near 1e-3 %
    assert sol.exploitability_pct <= 1e-6
    assert sol.values[0] == pytest.approx(value, abs=1e-7)


def plain_best_response(spot, tree, policy, responder):
    """The responder's best-response value by a plain walk: for each of its combos, a
    recursion over the public tree carrying the opponent's combo weights (its range times
    card removal times its policy), max at its own nodes; cards, ranks and weights straight
    from the spot (no SpotModel tables)."""
    model = SpotModel(spot)  # only for its state numbering and the policy rows
    off = row_offsets(tree, model)
    board = [int(c) for c in spot.board]
    cards = [[int(c) for c in COMBOS[k]] for k in model.combos]
    rank = [rank_hand(c + board) for c in cards]
    ranges = [spot.ranges[0 if p == spot.oop_position else 1][model.combos] for p in (0, 1)]
    opp = 1 - responder
    total = sum(ranges[0][i] * ranges[1][j] for i in range(model.n) for j in range(model.n)
                if not set(cards[i]) & set(cards[j]))

    def value(node, mine, theirs):
        kind = tree.kind[node]
        if kind == FOLD:
            won = tree.spent[node, opp] if tree.player[node] == opp else -tree.spent[node, responder]
            return won * theirs.sum()
        if kind == SHOWDOWN:
            stake = tree.spent[node].min()
            sign = np.sign(rank[mine] - np.array(rank))
            return stake * float(theirs @ sign)
        assert kind == DECISION
        kids = tree.child[tree.first_child[node]:tree.first_child[node] + tree.num_children[node]]
        d = tree.decision[node]
        if tree.player[node] == responder:
            return max(value(c, mine, theirs) for c in kids)
        rows = policy[off[d]:off[d + 1]]
        return sum(value(c, mine, theirs * rows[:, tree.action[c]]) for c in kids)

    out = 0.0
    for i in range(model.n):
        if ranges[responder][i] == 0:
            continue
        theirs = np.array([ranges[opp][j] * ranges[responder][i] * (not set(cards[i]) & set(cards[j]))
                           for j in range(model.n)]) / total
        out += value(0, i, theirs)
    return out


def test_reported_exploitability_equals_a_plain_best_response():
    spot = small_river(oop_position=1)
    sol = solve_spot(spot, target_pct=None, iterations=30)
    b0 = plain_best_response(spot, sol.tree, sol.policy, 0)
    b1 = plain_best_response(spot, sol.tree, sol.policy, 1)
    assert sol.best_responses == pytest.approx((b0, b1), abs=1e-12)
    assert sol.exploitability_pct == pytest.approx(100 * (b0 + b1) / 2 / spot.pot, abs=1e-10)
    assert sol.exploitability_pct > 0.01  # 30 iterations: far from the equilibrium


@pytest.mark.parametrize("kw, words", [
    ({"target_pct": 0}, "target must be positive"),
    ({"iterations": 0}, "iterations must be a positive"),
    ({"seconds": -1}, "seconds must be positive"),
    ({"algorithm": "pcs"}, "full-width CFR variant"),
    ({"target_pct": None, "iterations": None}, "give a target"),
])
def test_solve_spot_refuses_bad_settings(kw, words):
    with pytest.raises(CfrlabError, match=words):
        solve_spot(nuts_vs_air(), **kw)


def test_flop_model_has_a_block_per_turn_card_and_per_turn_and_river_cards():
    spot = make_spot(board="Qs Jh 2h", pot=10, stack=95, oop_range="AA", ip_range="KK")
    m = SpotModel(spot)
    assert m.num_states[1:] == (12, 49 * 12, 49 * 48 * 12)
    for r in (1, 2, 3):
        blocks, B = m.fold_blocks(r)
        assert B == len(m.block_extras(r)) and blocks.sum() == pytest.approx(1.0)
    assert list(m.block_parent(3)[:49]) == [0] * 48 + [1]


def test_root_frequencies_are_the_ranges_average():
    """The frequencies weight each combo by its probability in the spot (card removal in)."""
    spot = small_river()
    sol = solve_spot(spot, target_pct=None, iterations=50)
    freq = dict(sol.frequencies(0))
    w = sol.model.reach_weights(spot.oop_position)
    rows = sol.policy[:sol.model.n]
    cols = np.flatnonzero(sol.tree.legal[0])
    assert list(freq.values()) == pytest.approx(list(w @ rows[:, cols] / w.sum()))
    assert sum(freq.values()) == pytest.approx(1.0)


# -- the command -------------------------------------------------------------------------------




def test_cli_spot_solve(tmp_path):
    cfg = tmp_path / "river.toml"
    cfg.write_text(SMALL_TOML)
    out = cli("spot", "solve", str(cfg), "--target", "0.05")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("live combos 34") and "memory needed" in lines[1]
    assert "% of the pot" in out.stdout and "EV: OOP" in out.stdout and "root (OOP): check" in out.stdout
    res = tmp_path / "res.json"
    out = cli("spot", "solve", str(cfg), "--target", "0.05", "--json", "--out", str(res))
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got == json.loads(res.read_text())
    assert got["exploitability_pct"] <= 0.05
    assert got["ev_oop"] + got["ev_ip"] == pytest.approx(10.0)
    assert sum(a["frequency"] for a in got["root"]) == pytest.approx(1.0)
    # the same figures as the Python API
    sol = solve_spot(make_spot(board=RIVER, pot=10, stack=30, oop_range="AA, QJs, 87s:0.5, 54s",
                               ip_range="KK, AQs, 99:0.75, T9s", bets={"bet": "p, a", "raise": "a"}),
                     target_pct=0.05)
    assert got["iterations"] == sol.iterations and got["ev_oop"] == pytest.approx(sol.ev("oop"), abs=1e-12)


@pytest.mark.parametrize("args, words", [
    (["--target", "0"], "--target must be positive"),
    (["--iterations", "0"], "--iterations must be at least 1"),
])
def test_cli_spot_solve_refuses_bad_flags(tmp_path, args, words):
    cfg = tmp_path / "river.toml"
    cfg.write_text(SMALL_TOML)
    out = cli("spot", "solve", str(cfg), *args)
    assert out.returncode != 0 and words in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_cli_spot_solve_solves_a_flop_spot(tmp_path):
    cfg = tmp_path / "flop.toml"
    cfg.write_text(SMALL_TOML.replace("Qs Jh 2h 8d 3c", "Qs Jh 2h"))
    out = cli("spot", "solve", str(cfg), "--iterations", "20", "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["iterations"] == 20 and got["ev_oop"] + got["ev_ip"] == pytest.approx(10.0)
    out = cli("spot", "solve", str(cfg), "--algorithm", "cfr")  # the engine's dense tables: turn and river
    assert out.returncode != 0 and "flop spot" in out.stderr and "Traceback" not in out.stderr


def test_turn_spot_without_turn_bets_is_the_average_of_its_river_spots():
    """With no bet on the turn, a turn spot is its 48 river spots, each weighted by the chance
    of its river card (card removal included: the pairs of combos that miss it, over 44): the
    LP's game values agree, which pins the turn model's river blocks, normalization and
    showdowns."""
    args = {"pot": 10, "stack": 20, "oop_range": "AA, QJs, 87s", "ip_range": "KK, T9s, 99"}
    river_bets = {"bet": "p", "raise": "a"}
    turn = make_spot(board="Qs Jh 2h 8d", **args, bets={
        **river_bets, "oop": {"turn": {"bet": "-"}}, "ip": {"turn": {"bet": "-"}}})
    model = SpotModel(turn)
    _, v_turn = solve_lp(spot_tree(turn), model)
    cards = COMBOS[model.combos]
    total = 0.0
    for c in model.river_cards:
        board = "Qs Jh 2h 8d " + card_text(int(c))
        miss = [i for i in range(model.n) if c not in cards[i]]
        w = model.weights[:, miss]
        if not w[0].any() or not w[1].any():
            continue  # one range is empty with this river card: no pair, no weight
        river = make_spot(board=board, **args, bets=river_bets)
        rm = SpotModel(river)
        _, v = solve_lp(spot_tree(river), rm)
        total += rm.mass / (44 * model.mass) * v
    assert abs(v_turn) > 0.1 and v_turn == pytest.approx(total, abs=1e-9)
