"""Node locking (cfrlab.spot.lock): the locked solver is the engine's solver when nothing is
locked, the locked game's best response is the engine's when nothing is locked, a lock at the
equilibrium changes nothing, a pure exploitable lock lets the other player win its best
response (a plain count over combos), and locked rows never change."""


import numpy as np
import pytest
from spot_helpers import RIVER, SMALL_TOML, cli, small_river

from cfrlab.cards import rank_hand
from cfrlab.cards.ranges import COMBOS, combo_text
from cfrlab.engine import best_response_values, game_value, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.solvers.lp import solve_lp
from cfrlab.solvers.registry import make_solver
from cfrlab.spot import make_spot, solve_spot, spot_tree
from cfrlab.spot.lock import (
    Frame,
    Lock,
    LockedRows,
    LockedSolver,
    load_locks,
    locked_best_response,
    resolve_locks,
)
from cfrlab.spot.model import SpotModel
from cfrlab.spot.report import SpotReader


def no_locks(tree):
    return LockedRows(np.zeros(0, dtype=np.int64), np.zeros((0, tree.num_actions)))


@pytest.mark.parametrize("algorithm", ["dcfr", "cfr+", "pcfr+", "cfr"])
def test_nothing_locked_is_the_engine_solver_bit_for_bit(algorithm):
    spot = small_river()
    tree, model = spot_tree(spot), SpotModel(spot)
    a = make_solver(tree, model, algorithm)
    b = LockedSolver(tree, model, algorithm, no_locks(tree))
    a.iterate(25)
    b.iterate(25)
    assert np.array_equal(a.avg, b.avg) and np.array_equal(a.regret, b.regret)


def test_locked_best_response_without_locks_is_the_engines():
    spot = small_river(oop_position=1)
    sol = solve_spot(spot, target_pct=None, iterations=20)
    reader = SpotReader(sol)
    got = [locked_best_response(reader, p, no_locks(sol.tree)) for p in (0, 1)]
    assert got == pytest.approx(list(best_response_values(sol.tree, sol.model, sol.policy)), abs=1e-12)


def _root_lock(tree, model, policy, spot):
    """A lock of the root for every OOP combo at ``policy``'s mix (exact decimal text)."""
    off = row_offsets(tree, model)
    cols = np.flatnonzero(tree.legal[0])
    names = ["x", "b10", "b30"]
    hands = []
    for s in range(model.n):
        if model.weights[spot.oop_position][s] > 0:
            row = policy[off[0] + s, cols]
            hands.append((combo_text(int(model.combos[s])), ", ".join(f"{a} {float(f)!r}" for a, f in zip(names, row))))
    return Lock("", None, tuple(hands))


def test_lock_at_the_equilibrium_changes_nothing():
    """The LP's equilibrium, its root locked to itself: no best response gains (1e-9), and a
    solve with that lock reaches the LP's game value within its own (locked) exploitability."""
    spot = small_river()
    tree, model = spot_tree(spot), SpotModel(spot)
    lp_policy, value = solve_lp(tree, model)
    lock = _root_lock(tree, model, lp_policy, spot)
    locked = resolve_locks(Frame(spot, tree, model, None), [lock])
    assert len(locked) == 15 == np.count_nonzero(spot.ranges[0])  # AA 6, QJs 2, 87s 3, 54s 4
    reader = SpotReader(Frame(spot, tree, model, lp_policy))
    br = [locked_best_response(reader, p, locked) for p in (0, 1)]
    assert br == pytest.approx([value, -value], abs=1e-9)
    sol = solve_spot(spot, "pcfr+", target_pct=1e-6, iterations=20000, check_every=500, tree=tree,
                     model=model, locks=[lock], storage="float64")
    assert sol.exploitability_pct <= 1e-6
    assert abs(sol.values[0] - value) <= 2 * sol.exploitability + 1e-12
    assert np.array_equal(sol.policy[locked.rows], locked.strategy)


def test_lock_lengths_count_the_live_combos():
    spot = small_river()
    tree, model = spot_tree(spot), SpotModel(spot)
    locked = resolve_locks(Frame(spot, tree, model, None), [Lock("", "x")])
    assert len(locked) == model.n  # every state of the root: the whole live set


# -- a pure exploitable lock ---------------------------------------------------------------------
def bluff_spot():
    """OOP checks or bets the pot at the root (its only decision); IP folds or calls a bet and
    checks behind a check."""
    return make_spot(board=RIVER, pot=10, stack=95, oop_range="AA, 65s, 76s", ip_range="KK, JJ, 99",
                     bets={"bet": "-", "raise": "-", "oop": {"bet": "p"}})


def plain_ip_best_response(spot, bets):
    """IP's EV (chips taken from the pot minus put in, as the solvers print it) when OOP bets
    the pot with the combos in ``bets`` and checks the rest, IP answering each bet with the
    better of fold and call: a count over card-disjoint pairs, ranks from rank_hand."""
    board = [int(c) for c in spot.board]
    oop = [(int(c), w) for c, w in enumerate(spot.ranges[0]) if w > 0]
    ip = [(int(c), w) for c, w in enumerate(spot.ranges[1]) if w > 0]
    total, value = 0.0, 0.0
    for j, wj in ip:
        cj = [int(x) for x in COMBOS[j]]
        fold = call = check = 0.0
        for i, wi in oop:
            ci = [int(x) for x in COMBOS[i]]
            if set(ci) & set(cj):
                continue
            p = wi * wj
            total += p
            sign = np.sign(rank_hand(cj + board) - rank_hand(ci + board))
            if i in bets:
                fold += p * -5.0  # its half of the pot
                call += p * 15.0 * sign
            else:
                check += p * 5.0 * sign
        value += max(fold, call) + check
    return value / total + 5.0


def test_pure_lock_lets_the_other_player_win_its_best_response():
    spot = bluff_spot()
    free = solve_spot(spot, target_pct=1e-4, iterations=5000)
    lock = Lock("", "x", (("AA", "b10"), ("65s", "b10")))  # the bluffs 65s and the value AA
    sol = solve_spot(spot, "cfr+", target_pct=1e-6, iterations=20000, locks=[lock])
    aa65 = {int(c) for c in np.flatnonzero(spot.ranges[0]) if combo_text(int(c))[0] in "A6"}
    want = plain_ip_best_response(spot, aa65)
    assert sol.ev("ip") == pytest.approx(want, abs=1e-6)
    assert sol.ev("ip") > free.ev("ip") + 0.1  # the lock is exploitable: IP wins more than at the equilibrium
    b0, _b1 = best_response_values(sol.tree, sol.model, sol.policy)
    assert b0 > 0.1  # unlocked, OOP would gain by leaving the lock


def test_locked_rows_never_change_during_the_solve():
    spot = small_river()
    tree, model = spot_tree(spot), SpotModel(spot)
    lock = Lock("x b10", "c", (("AA", "f"), ("QJs", "c 0.25, b30 0.75")))  # OOP facing IP's bet
    locked = resolve_locks(Frame(spot, tree, model, None), [lock])
    solver = LockedSolver(tree, model, "dcfr", locked)
    for _ in range(5):
        solver.iterate(3)
        assert np.array_equal(solver._sigma[locked.rows], locked.strategy)
        assert np.array_equal(solver.average_policy()[locked.rows], locked.strategy)
    sol = solve_spot(spot, target_pct=None, iterations=40, locks=[lock])
    rep = SpotReader(sol).node("x b10")
    want = {"A": [1, 0, 0], "Q": [0, 0.25, 0.75], "8": [0, 1, 0], "5": [0, 1, 0]}
    assert rep.player == "oop" and len(rep.combos) == 15
    for name, _w, strat, _ev, _eq in rep.combo_rows():
        assert strat == want[name[0]]
    assert game_value(sol.tree, sol.model, sol.policy) == pytest.approx(sol.values[0], abs=1e-9)


# -- input --------------------------------------------------------------------------------------
@pytest.mark.parametrize("lock, words", [
    (Lock("", "b25"), "'b25' is not an action there (actions: x, b10, b30)"),
    (Lock("", "x 50%, b10 30%"), "sum to 0.8, not 100%"),
    (Lock("", "x 150%"), "from 0 to 100%"),
    (Lock("b10 b30 c x", "x"), "the hand is over after b10 b30 c: 'x' leads nowhere"),
    (Lock("b10 b30 c", "x"), "b10 b30 c is not a decision: a showdown ends the hand"),
    (Lock("x q", "x"), "'q' is not an action at x"),
    (Lock("", None, (("AA:0.5", "x"),)), "take no weights"),
    (Lock("", None, (("AKx", "x"),)), "AKx"),
])
def test_bad_locks_are_one_line(lock, words):
    spot = small_river()
    with pytest.raises(CfrlabError, match=None) as e:
        solve_spot(spot, iterations=5, locks=[lock])
    assert words in str(e.value) and "\n" not in str(e.value)


def test_lock_file(tmp_path):
    p = tmp_path / "locks.toml"
    p.write_text('[[lock]]\nnode = ""\nstrategy = "x"\n[lock.hands]\n"AA, QJs" = "b10"\n\n'
                 '[[lock]]\nnode = "x b10"\nstrategy = "c 50%, f 50%"\n')
    locks = load_locks(p)
    assert locks == (Lock("", "x", (("AA, QJs", "b10"),)), Lock("x b10", "c 50%, f 50%"))
    p.write_text('[[lock]]\nnode = ""\n')
    with pytest.raises(CfrlabError, match="gives neither a strategy nor hands"):
        load_locks(p)
    p.write_text('lock = 3\n')
    with pytest.raises(CfrlabError, match=r"holds \[\[lock\]\] tables"):
        load_locks(p)






def test_cli_solve_with_a_lock_file(tmp_path):
    cfg, locks, out = tmp_path / "river.toml", tmp_path / "locks.toml", tmp_path / "s.npz"
    cfg.write_text(SMALL_TOML)
    locks.write_text('[[lock]]\nnode = ""\nstrategy = "x"\n[lock.hands]\nAA = "b10"\n')
    res = cli("spot", "solve", str(cfg), "--lock", str(locks), "--target", "0.05", "--save", str(out))
    assert res.returncode == 0, res.stderr
    spot = small_river()
    w = SpotModel(spot).reach_weights(spot.oop_position)  # the locked root: AA bets, the rest checks
    aa = np.array([combo_text(int(c))[0] == "A" for c in SpotModel(spot).combos])
    share = w[aa].sum() / w.sum()
    assert "locked: 1 node" in res.stdout
    assert f"root (OOP): check {1 - share:.1%}, bet 10 {share:.1%}, bet 30 0.0%" in res.stdout
    res = cli("spot", "show", str(out))
    assert res.returncode == 0, res.stderr
    assert "locked nodes: the root" in res.stdout
    locks.write_text('[[lock]]\nnode = "b15"\nstrategy = "x"\n')
    res = cli("spot", "solve", str(cfg), "--lock", str(locks))
    assert res.returncode != 0 and "'b15' is not an action at the root" in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_locked_turn_spot_on_the_walk_reaches_the_engine_tables_locked_value():
    """A turn spot with a lock at the turn's root (and, on the river card 3c, at the river's):
    solved on the spot's walk, and by the engine's locked tables (LockedSolver, an independent
    implementation), the two reach the locked game's value within the sum of their
    exploitabilities; with dead money, which only the walk solves, the locked solve runs."""
    from cfrlab.engine import game_value as value_of

    kw = {"board": "Qs Jh 2h 8d", "pot": 10, "stack": 20, "oop_range": "AA, QJs, 65s",
          "ip_range": "KK, T9s, 76s", "bets": {"bet": "p", "raise": "a"}}
    spot = make_spot(**kw)
    locks = [Lock("", "x", (("AA", "b10"),)), Lock("x x 3c", None, (("KK", "b10"),))]
    walk = solve_spot(spot, "dcfr", target_pct=None, iterations=1500, locks=locks, storage="float64")
    assert walk.walk is not None  # on the spot's walk
    tree, model = spot_tree(spot), SpotModel(spot)
    dense = LockedSolver(tree, model, "dcfr", resolve_locks(Frame(spot, tree, model, None), locks))
    dense.iterate(1500)
    v = value_of(tree, model, dense.average_policy())
    assert abs(walk.values[0] - v) <= walk.exploitability + dense.exploitability() + 1e-9
    assert walk.exploitability < 0.02 and dense.exploitability() < 0.05
    dead = solve_spot(make_spot(**{**kw, "pot": 11, "dead": 1}), target_pct=None, iterations=20,
                      locks=[Lock("", "x", (("AA", "b11"),))])
    assert dead.exploitability >= 0 and dead.walk is not None
