"""Flop spots saved, read and locked (cfrlab.spot.store, report.WalkReader, fast.FastSolver's
locks): the walk's tables read back from a file give every node the in-memory solution's
figures, a node on a non-representative turn card equals the plain walk's (no isomorphism),
the walk reader agrees with the engine tables' reader where both exist, and a lock at a flop
node fixes its strategy."""

from dataclasses import replace

import numpy as np
import pytest
from cli_run import one_line_error, run
from spot_helpers import SMALL_TOML, small_river

from cfrlab.cards.cards import parse_card
from cfrlab.errors import CfrlabError
from cfrlab.spot import solve_spot
from cfrlab.spot.fast import FastSolver, SpotGame
from cfrlab.spot.lock import Lock, lock_walk
from cfrlab.spot.report import SpotReader, WalkReader, action_token, reader_of
from cfrlab.spot.store import load_solution, save_solution
from cfrlab.tree.betting_tree import CHANCE, DECISION

FLOP = "Qs Jh 2h"
BETS = {"bet": "p", "raise": "a"}


def small_flop(**kw):
    return small_river(board=FLOP, bets=BETS, **kw)


def tiny_flop():
    """The lock tests' flop spot: the pot-sized bet is all-in (stack 10), so each street has
    one bet and no raise, 12 decisions where small_flop has 42: a solve is four times cheaper,
    and every lock below (at the root, on the bet, on no hand) acts on it the same way."""
    return small_flop(stack=10)


@pytest.fixture(scope="module")
def flop_sol():
    return solve_spot(small_flop(), target_pct=None, iterations=30, threads=1)


def _paths(sol, cards=("Kd", "3c")):
    """Every decision's path on the board plus the given turn and river cards."""
    tree, out = sol.tree, []

    def visit(n, path, k):
        if tree.kind[n] == CHANCE:
            visit(int(tree.children(n)[0]), f"{path} {cards[k]}", k + 1)
        elif tree.kind[n] == DECISION:
            out.append(path)
            for c in tree.children(n):
                visit(int(c), f"{path} {action_token(tree, n, int(tree.action[c]))}".strip(), k)

    visit(0, "", 0)
    return out


def on_every_board(iso):
    """The plain walk (no isomorphism, float64) of an isomorphic solve's spot holding its
    average strategy on every board, read through the suit permutations."""
    spot, g = iso.spot, iso.walk.game
    plain = FastSolver(SpotGame(spot, iso.tree, False), "dcfr", "float64", threads=1)
    for n in iso.tree.decision_node:
        n = int(n)
        L = int(iso.tree.round[n]) - spot.street
        p = int(iso.tree.player[n])
        for b, extras in enumerate(plain.game.levels[L].extras):
            cb, tau = g.canonical(extras)
            plain.cum[n][b] = iso.walk.cum[n][cb][:, g.hand_map(p, tau)]
    return plain


def _same(a, b, tol=0.0, rtol=0.0):
    assert a.path == b.path and np.array_equal(a.combos, b.combos)
    for x, y in ((a.strategy, b.strategy), (a.weight, b.weight), (a.ev, b.ev), (a.equity, b.equity)):
        assert np.allclose(x, y, rtol=rtol, atol=tol, equal_nan=True), a.path


def test_a_saved_flop_spot_reads_back_every_node(flop_sol, tmp_path):
    f = tmp_path / "flop.npz"
    save_solution(flop_sol, f)
    got = load_solution(f, small_flop())
    assert got.policy is None and got.walk.storage == "float32"
    for n, cum in flop_sol.walk.cum.items():
        assert np.array_equal(got.walk.cum[n], cum)
    a, b = WalkReader(flop_sol), reader_of(got)
    paths = _paths(flop_sol)
    assert len(paths) > 20 and "x x Kd x x 3c" in paths
    for path in paths:
        _same(a.node(path), b.node(path))
    assert [f for _, f in got.frequencies(0)] == pytest.approx([f for _, f in flop_sol.frequencies(0)], abs=1e-12)
    assert got.ev("oop") == flop_sol.ev("oop")


def test_walk_reader_equals_the_engine_tables_reader(flop_sol):
    """Where the engine's reader applies (flop and turn nodes of a small flop spot)."""
    a, b = SpotReader(flop_sol), WalkReader(flop_sol)
    for path in ("", "x", "b10", "x x Kd", "x x 8h b10"):
        _same(a.node(path), b.node(path), tol=1e-6)


def test_a_non_representative_card_reads_the_plain_walks_node():
    """Qs Jh 2h with suit-symmetric ranges: Kd and Kc are one turn board. The isomorphic
    solve's node on Kc (read through the suit permutation) equals the plain walk's node on Kc
    with the same strategy copied to every board (the plain iterates themselves drift apart:
    tests/test_spot_fast.py)."""
    spot = small_flop()
    iso = solve_spot(spot, target_pct=None, iterations=20, storage="float64", threads=1)
    plain = on_every_board(iso)
    assert iso.walk.game.levels[1].B < plain.game.levels[1].B
    a, b = WalkReader(iso), WalkReader(replace(iso, walk=plain))
    assert iso.walk.game.canonical((parse_card("Kd"),))[1] != (0, 1, 2, 3)  # Kd: not the representative
    for path in ("x x Kc", "x x Kd", "x x Kd x b10", "b10 c 3d x x 9d", "x x Kd b10 c 4s"):
        _same(a.node(path), b.node(path), tol=1e-9)


def test_a_file_of_another_spot_is_refused(flop_sol, tmp_path):
    f = tmp_path / "flop.npz"
    save_solution(flop_sol, f)
    with pytest.raises(CfrlabError, match="another spot"):
        load_solution(f, small_flop(pot=12))


def test_int16_tables_are_saved_as_they_are(tmp_path):
    sol = solve_spot(small_flop(), target_pct=None, iterations=10, storage="int16", threads=1)
    f = tmp_path / "flop16.npz"
    save_solution(sol, f)
    got = load_solution(f)
    for n in sol.walk.cum:
        assert got.walk.cum[n].dtype == np.uint16 and np.array_equal(got.walk.cum[n], sol.walk.cum[n])
    _same(WalkReader(sol).node("x x Kd b10"), WalkReader(got).node("x x Kd b10"))


def test_cli_saves_and_shows_a_flop_spot(tmp_path, capsys, monkeypatch):
    """In-process (tests/cli_run.py): the same commands as a user's shell, without three
    interpreter starts."""
    monkeypatch.setenv("COLUMNS", "160")  # Rich does not wrap the node line
    cfg = tmp_path / "flop.toml"
    cfg.write_text(SMALL_TOML.replace("Qs Jh 2h 8d 3c", FLOP).replace('bet = "p, a"', 'bet = "p"')
                   .replace("stack = 30", "stack = 10"))  # tiny_flop
    f = tmp_path / "flop.npz"
    code, _, err = run(capsys, "spot", "solve", str(cfg), "--iterations", "10", "--threads", "1", "--save", str(f))
    assert code == 0, err
    code, out, err = run(capsys, "spot", "show", str(f), "--node", "x x Kd b10", "--json", str(tmp_path / "n.json"))
    assert code == 0, err
    assert "x x Kd b10" in out and (tmp_path / "n.json").exists()
    one_line_error(*run(capsys, "spot", "show", str(f), "--node", "x x Qs")[::2], "turn card Qs is on the board")
    # the errors name the street whose card is missing (they said "river" on the flop)
    one_line_error(*run(capsys, "spot", "show", str(f), "--node", "x x")[::2], "the turn card is dealt")
    one_line_error(*run(capsys, "spot", "show", str(f), "--node", "x x b10")[::2], "the turn card comes")
    one_line_error(*run(capsys, "spot", "show", str(f), "--node", "x x Kd x x")[::2], "the river card is dealt")
    code, out, err = run(capsys, "spot", "show", str(f), "--node", "x x * x")  # every turn card
    assert code == 0 and "every card" in out and out.count("\n") > 45, err
    # a file kept down to the turn: its turn nodes read, a river node is refused in one line
    g = tmp_path / "turn.npz"
    code, _, err = run(capsys, "spot", "solve", str(cfg), "--iterations", "10", "--threads", "1", "--save", str(g),
                       "--save-depth", "turn")
    assert code == 0, err
    code, out, err = run(capsys, "spot", "show", str(g), "--node", "x x Kd b10")
    assert code == 0 and "x x Kd b10" in out, err
    one_line_error(*run(capsys, "spot", "show", str(g), "--node", "x x Kd x x 3c")[::2], "down to the turn")
    one_line_error(*run(capsys, "spot", "solve", str(cfg), "--save-depth", "preflop", "--save", str(tmp_path / "p"))[::2],
                   "--save-depth is flop, turn, river or full")
    one_line_error(*run(capsys, "spot", "solve", str(cfg), "--save-depth", "turn")[::2], "needs --save")


# -- node locking on the flop ---------------------------------------------------------------------
def test_a_lock_that_covers_no_hand_is_the_plain_solve_bit_for_bit():
    spot = tiny_flop()
    a = solve_spot(spot, target_pct=None, iterations=12, threads=1)
    b = solve_spot(spot, target_pct=None, iterations=12, threads=1, locks=(Lock("", hands=(("22", "x"),)),))
    for n in a.walk.cum:
        assert np.array_equal(a.walk.cum[n], b.walk.cum[n]) and np.array_equal(a.walk.reg[n], b.walk.reg[n])
    assert a.best_responses == b.best_responses


def test_a_lock_at_the_solved_strategy_changes_little():
    """The root locked at the free solve's root strategy: the locked solve's value is the free
    one's. At 100 iterations (0.03% of the pot from the optimum) they differ by 7e-5 chips, 40
    times under the tolerance; a lock off the equilibrium (always check) moves OOP's EV by 0.23."""
    spot = tiny_flop()
    free = solve_spot(spot, target_pct=None, iterations=100, storage="float64", threads=1)
    locked = solve_spot(spot, target_pct=None, iterations=100, storage="float64", threads=1,
                        locks=(Lock("", strategy="x"),))  # a lock off the equilibrium
    g = free.walk.game
    solver = FastSolver(g, "dcfr", "float64", threads=1)
    root = free.walk.strategy(0)[g.hands[0]].T  # [A, H]
    assert 0.2 < root[0].mean() < 0.8  # a mixed root (checks 38%), not the lock off it below
    solver.lock(0, np.ones(len(g.hands[0]), dtype=bool), root)
    solver.iterate(100)
    assert np.allclose(solver.strategy(0), free.walk.strategy(0), atol=1e-12)
    assert solver.value(0, "ev") == pytest.approx(free.values[0], abs=0.02 * spot.pot / 100 + 1e-3)
    assert locked.ev("oop") != pytest.approx(free.ev("oop"), abs=1e-6)  # a lock off it does change it


def test_a_pure_fold_lock_lets_the_bettor_win_the_pot():
    """IP folds to the flop bet whatever it holds: OOP's best response bets every hand and
    wins the pot (EV 10); the lock stays exactly fold. 40 iterations: EV 9.9994, 0.003% of the
    pot from the locked game's optimum."""
    spot = tiny_flop()
    sol = solve_spot(spot, target_pct=None, iterations=40, threads=1, locks=(Lock("b10", strategy="f"),))
    assert sol.ev("oop") == pytest.approx(10.0, abs=0.05)
    rep = WalkReader(sol).node("b10")
    assert rep.actions[0] == "f" and np.all(rep.strategy[:, 0] == 1.0)
    assert sol.exploitability_pct < 1.0  # in the locked game


def test_a_lock_on_a_board_suit_symmetry_shares_is_refused_in_one_line():
    """On Qs Jh 2h clubs and diamonds are alike: Kd's board is Kc's, so a lock there would lock
    both; without isomorphism it is its own board and the lock is taken."""
    with pytest.raises(CfrlabError, match="together with 1 other") as e:
        solve_spot(small_flop(), target_pct=None, iterations=2, threads=1, locks=(Lock("x x Kd", strategy="x"),))
    assert "\n" not in str(e.value)
    sol = solve_spot(tiny_flop(), target_pct=None, iterations=2, threads=1, isomorphism=False,
                     locks=(Lock("x x Kd", strategy="x"),))
    assert np.all(WalkReader(sol).node("x x Kd").strategy[:, 0] == 1.0)


@pytest.mark.parametrize("node", ["", "x x Ah"])
def test_a_lock_that_breaks_the_suit_symmetry_is_refused_in_one_line(node):
    """On Qs Jh 2h clubs and diamonds are alike: a lock on AcAd is symmetric, one on AcKc alone
    is not (AdKd plays otherwise), so the boards below would be solved for a reach that is not
    theirs; without isomorphism it is taken."""
    ok = solve_spot(tiny_flop(), target_pct=None, iterations=2, threads=1,
                    locks=(Lock(node, hands=(("AcAd", "x"),)),))
    assert ok.iterations == 2
    bad = (Lock(node, hands=(("AA", "x"), ("AcAh", "b10"))),)
    with pytest.raises(CfrlabError, match="differently, which suit symmetry solves") as e:
        solve_spot(tiny_flop(), target_pct=None, iterations=2, threads=1, locks=bad)
    assert "\n" not in str(e.value)
    assert solve_spot(tiny_flop(), target_pct=None, iterations=2, threads=1, isomorphism=False,
                      locks=bad).iterations == 2


def test_turn_and_river_locks_fix_their_board_only():
    """A turn lock (always bet on the Ah) and a river lock (always check on Ah then 3s): the
    average strategy there is the lock exactly, another card's node is free, and a lock
    covering no hand leaves the solve bit for bit."""
    spot = tiny_flop()
    locks = (Lock("x x Ah", strategy="b10"), Lock("x x Ah x x 3s", strategy="x"))
    sol = solve_spot(spot, target_pct=None, iterations=20, threads=1, locks=locks)
    r = WalkReader(sol)
    assert r.node("x x Ah").actions[1] == "b10" and np.all(r.node("x x Ah").strategy[:, 1] == 1.0)
    assert np.all(r.node("x x Ah x x 3s").strategy[:, 0] == 1.0)
    assert not np.all(r.node("x x As").strategy[:, 1] == 1.0)
    assert not np.all(r.node("x x As x x 4s").strategy[:, 0] == 1.0)
    plain = solve_spot(spot, target_pct=None, iterations=12, threads=1)
    none = solve_spot(spot, target_pct=None, iterations=12, threads=1,
                      locks=(Lock("x x Ah x x 3s", hands=(("22", "b10"),)),))  # 22: not in a range
    for n in plain.walk.cum:
        assert np.array_equal(plain.walk.cum[n], none.walk.cum[n])


def test_a_locked_turn_solve_equals_the_plain_walks():
    """Locks on a turn and a river board, solved with suit isomorphism; its strategy copied to
    every board of the plain walk (no isomorphism) with the same locks: the same best
    responses in the locked game and the same value, to 1e-9 (float64 tables). (Two solves'
    iterates drift apart: tests/test_spot_fast.py.)"""
    spot = tiny_flop()
    locks = (Lock("x x Ah", hands=(("AA, KK", "b10"), ("QJs", "x"))), Lock("x x As b10", hands=(("KK, AQs", "f"),)),
             Lock("x x Ah x x 3s", strategy="x"))
    iso = solve_spot(spot, target_pct=None, iterations=15, threads=1, storage="float64", locks=locks)
    plain = on_every_board(iso)
    lock_walk(plain, iso, locks)
    assert plain.exact_values() == pytest.approx(iso.walk.exact_values(), abs=1e-9)
    free = solve_spot(spot, target_pct=None, iterations=15, threads=1, storage="float64")
    assert iso.values[0] != pytest.approx(free.values[0], abs=1e-6)


@pytest.mark.parametrize("depth", ["turn", "flop"])
def test_a_file_saved_down_to_a_street_reads_its_nodes_as_the_whole_file(flop_sol, tmp_path, depth):
    """--save-depth: the nodes kept read back as the full solution's (their EVs from the values
    saved with them, the strategy and equity from the kept tables); a node below is refused in
    one line; the file is smaller than the whole one. The saved values are the walk's, on each
    representative board: on a card that is not one (Kd here, Kc's image) the reader's reach
    differs from it by the float32 tables' rounding (their suit symmetry is exact to 1e-7)."""
    whole, part = tmp_path / "whole.npz", tmp_path / f"{depth}.npz"
    save_solution(flop_sol, whole)
    save_solution(flop_sol, part, depth)
    assert part.stat().st_size < whole.stat().st_size / 2
    got = load_solution(part, small_flop())
    assert got.save_depth == depth
    a, b = WalkReader(flop_sol), reader_of(got)
    last = {"flop": 1, "turn": 2}[depth]
    kept = [p for p in _paths(flop_sol) if p.count(" Kd") + p.count(" 3c") < last]
    below = [p for p in _paths(flop_sol) if p.count(" Kd") + p.count(" 3c") >= last]
    assert kept and below
    g = flop_sol.walk.game
    for path in kept:
        ref = b.node(path)
        cards = tuple(parse_card(c) for c in path.split() if c in ("Kd", "3c"))
        exact = g.canonical(cards)[1] == (0, 1, 2, 3)
        _same(a.node(path), ref, 1e-9, 0.0 if exact else 1e-5)
    assert depth == "flop" or "x x Kd" in kept
    with pytest.raises(CfrlabError, match=f"keeps the strategy down to the {depth}") as e:
        b.node(below[0])
    assert "\n" not in str(e.value)
    assert got.ev("oop") == flop_sol.ev("oop")


def test_a_save_depth_that_is_not_a_street_is_refused(flop_sol, tmp_path):
    with pytest.raises(CfrlabError, match="save depth is one of flop, turn, river"):
        save_solution(flop_sol, tmp_path / "x.npz", "preflop")
    turn = solve_spot(small_river(board="Qs Jh 2h 8d"), target_pct=None, iterations=2)
    with pytest.raises(CfrlabError, match="starts on the turn"):
        save_solution(turn, tmp_path / "y.npz", "flop")
