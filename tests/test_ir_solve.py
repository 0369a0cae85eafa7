"""The imperfect-recall solver (public chance sampling over hole pairs, ``solvers.pcs_holes``):
the two-thread walk against the one-thread walk it replaced, on the same sampled boards, and
``cfrlab solve`` on an imperfect-recall abstraction (``--no-real``, checkpoints and resume).

Oracle: ``serial_iteration`` below is the previous kernel verbatim (both players in one node
loop; one slice copy written as the loop it means, which numba compiles in a third of the
time) with the previous whole-table numpy discounts; the new path must give the same regrets
and average sums for every update rule (vanilla, DCFR, CFR+ with alternating updates)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import run
from numba import njit
from test_metrics import holdem

from cfrlab import api
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.engine import kernels as EK
from cfrlab.engine.kernels import discounts, disjoint_sum, showdown_sweep
from cfrlab.engine.models import build_tree_for
from cfrlab.errors import CfrlabError
from cfrlab.realgame import real_best_response
from cfrlab.solvers import make_solver
from cfrlab.solvers._pcs_holes_kernels import BoardTables, HoleTree
from cfrlab.strategy import Strategy
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN


@njit
def serial_iteration(tree, board, scale, regret, avg, sigma, reach, values, trav):
    """The one-thread walk (the kernel before the split by player, with the module's terminal
    helpers), kept as the oracle."""
    nodes, child, row_off, legal, node_u = tree
    smap, cards, D, order, gend = board
    N = nodes.shape[0]
    H = smap.shape[2]
    csum = np.zeros(D)
    every = np.zeros(0, np.int64)
    for n in range(N):
        kind = nodes[n, EK.COL_KIND]
        if kind == DECISION:
            q = nodes[n, EK.COL_PLAYER]
            r = nodes[n, EK.COL_ROUND]
            base = row_off[nodes[n, EK.COL_DECISION]]
            for h in range(H):
                EK.regret_match_rows(regret, legal, nodes[n, EK.COL_DECISION], base + smap[q, r, h], 1, sigma)
        if n == 0:
            for p in range(2):
                for h in range(H):
                    reach[p, 0, h] = 1.0
            continue
        p = nodes[n, EK.COL_PARENT]
        for pl in range(2):
            for h in range(H):
                reach[pl, n, h] = reach[pl, p, h]
        if nodes[p, EK.COL_KIND] == DECISION:
            q = nodes[p, EK.COL_PLAYER]
            r = nodes[p, EK.COL_ROUND]
            base = row_off[nodes[p, EK.COL_DECISION]]
            a = nodes[n, EK.COL_ACTION]
            for h in range(H):
                reach[q, n, h] *= sigma[base + smap[q, r, h], a]
    for n in range(N):
        kind = nodes[n, EK.COL_KIND]
        if kind == FOLD:
            for i in range(2):
                if trav[i]:
                    u = node_u[n] if i == 0 else -node_u[n]
                    disjoint_sum(reach[1 - i, n], cards, 2, csum, values[i, n], u * scale, every, -1)
        elif kind == SHOWDOWN:
            for i in range(2):
                if trav[i]:
                    showdown_sweep(reach[1 - i, n], cards, 2, D, order, gend, node_u[n] * scale, values[i, n])
    for n in range(N - 1, -1, -1):
        kind = nodes[n, EK.COL_KIND]
        if kind >= FOLD:
            continue
        fc = nodes[n, EK.COL_FCHILD]
        nc = nodes[n, EK.COL_NCHILD]
        if kind == CHANCE:
            for i in range(2):
                if trav[i]:
                    for h in range(H):  # a loop, not the slice copy it was: 5 s less compile
                        values[i, n, h] = values[i, child[fc], h]
            continue
        q = nodes[n, EK.COL_PLAYER]
        r = nodes[n, EK.COL_ROUND]
        base = row_off[nodes[n, EK.COL_DECISION]]
        for i in range(2):
            if not trav[i]:
                continue
            if i != q:
                for h in range(H):
                    v = 0.0
                    for ci in range(nc):
                        v += values[i, child[fc + ci], h]
                    values[i, n, h] = v
                continue
            for h in range(H):
                x = base + smap[q, r, h]
                v = 0.0
                for ci in range(nc):
                    c = child[fc + ci]
                    v += sigma[x, nodes[c, EK.COL_ACTION]] * values[i, c, h]
                values[i, n, h] = v
                w = reach[i, n, h]
                for ci in range(nc):
                    c = child[fc + ci]
                    a = nodes[c, EK.COL_ACTION]
                    regret[x, a] += values[i, c, h] - v
                    avg[x, a] += w * sigma[x, a]


def serial_run(solver, n: int) -> None:
    """``HolePairPCS.run`` as it was: the serial walk, numpy discounts and floors."""
    hp, e, rule = solver._holes, solver.engine, solver.rule
    tree = HoleTree(e.nodes, e.child, e.row_offset, e.legal, hp.node_u)
    for k in range(n):
        board = solver._rng.choice(hp.D, hp.nb, replace=False).astype(np.int64)
        pos_f, neg_f, avg_f = discounts(rule, solver.iterations + k + 1)
        if pos_f != 1.0 or neg_f != 1.0:
            solver.regret *= np.where(solver.regret > 0.0, pos_f, neg_f)
        if avg_f != 1.0:
            solver.avg *= avg_f
        smap, cards, order, gend = hp.board_tables(board)
        tables = BoardTables(smap, cards, hp.D, order, gend)
        passes = ((True, False), (False, True)) if rule.alternating else ((True, True),)
        for trav in passes:
            serial_iteration(tree, tables, hp.scale, solver.regret, solver.avg, solver._sigma,
                             hp.reach, hp.values, np.array(trav))
            if rule.regret_floor:
                np.maximum(solver.regret, 0.0, out=solver.regret)
    solver.iterations += n


@pytest.fixture(scope="module")
def three_rounds():
    g = holdem(4, 3, "0 3 1")
    ir = BucketedModel.build(g, BucketSpec.make(3, "3-4-5", history=False, recall="imperfect"),
                             use_cache=False)
    return g, build_tree_for(g), ir


@pytest.mark.parametrize("params", [{}, {"alpha": 1.5, "beta": 0.0, "gamma": 2.0},
                                    {"alternating": True, "regret_floor": True, "gamma": 1.0}],
                         ids=["vanilla", "dcfr", "cfr+"])
def test_two_thread_walk_equals_the_serial_walk(three_rounds, params):
    _g, tree, ir = three_rounds
    a = make_solver(tree, ir, "pcs", seed=5, **params)
    b = make_solver(tree, ir, "pcs", seed=5, **params)
    a.iterate(40)
    serial_run(b, 40)
    assert a.iterations == b.iterations == 40
    assert np.abs(a.regret).max() > 0 and np.abs(a.avg).max() > 0
    np.testing.assert_allclose(a.regret, b.regret, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.avg, b.avg, rtol=0, atol=1e-12)


# -- cfrlab solve on an imperfect-recall abstraction: --no-real, checkpoints ------------------

@pytest.fixture(scope="module")
def ir_files(tmp_path_factory):
    g = holdem(4, 3, "0 3")
    d = tmp_path_factory.mktemp("irsolve")
    game = d / "h.game"
    game.write_text(g.to_text())
    ir = BucketedModel.build(g, BucketSpec.make(2, "3-3", history=False, recall="imperfect"),
                             use_cache=False)
    ir.save(d / "ir.npz")
    return d, str(game), str(d / "ir.npz")


def solve_json(capsys, *argv):
    code, out, err = run(capsys, "solve", *argv, "--no-progress", "--json")
    assert code == 0, err
    return json.loads(out.strip().splitlines()[-1]), out


def test_no_real_skips_the_real_game_measurement(capsys, ir_files):
    d, game, ir = ir_files
    base = ("-a", "pcs", "--abstraction", ir, "-n", "30", "-s", "4")
    measured, _ = solve_json(capsys, game, *base, "--out", str(d / "a.npz"))
    skipped, text = solve_json(capsys, game, *base, "--out", str(d / "b.npz"), "--no-real")
    assert skipped["exploitability"] is None and skipped["history"] == []
    assert "exploitability not measured (--no-real" in text and "measured nowhere" in text
    # the same strategy; measured later, it is what the default run measured at its end
    a, b = Strategy.load(d / "a.npz"), Strategy.load(d / "b.npz")
    np.testing.assert_array_equal(a.policy, b.policy)
    assert measured["exploitability_chips"] == pytest.approx(
        real_best_response(b).exploitability, abs=1e-12)


def test_no_real_refuses_measuring_options(capsys, ir_files):
    _, game, ir = ir_files
    for extra in (["--target", "5"], ["--eval-every", "10"]):
        code, _, err = run(capsys, "solve", game, "-a", "pcs", "--abstraction", ir, "-n", "10",
                           "--no-real", "--no-progress", *extra)
        assert code != 0 and len(err.strip().splitlines()) == 1 and "--no-real" in err, err
    with pytest.raises(CfrlabError, match="real=False"):
        api.solve(game, "pcs", abstraction=ir, iterations=5, target=5.0, eval_every=5, real=False)


def test_imperfect_recall_solve_resumes_bit_for_bit(capsys, ir_files):
    d, game, ir = ir_files
    base = ("-a", "pcs", "--abstraction", ir, "-s", "9", "--no-real", "-p", "alpha=1.5",
            "-p", "beta=0", "-p", "gamma=2")
    solve_json(capsys, game, *base, "-n", "40", "--out", str(d / "straight.npz"))
    solve_json(capsys, game, *base, "-n", "15", "--out", str(d / "r.npz"), "--checkpoint-every", "5")
    resumed, _ = solve_json(capsys, game, *base, "-n", "40", "--out", str(d / "r.npz"), "--resume")
    assert resumed["resumed_from"] == 15 and resumed["iterations"] == 40
    np.testing.assert_array_equal(Strategy.load(d / "r.npz").policy,
                                  Strategy.load(d / "straight.npz").policy)
