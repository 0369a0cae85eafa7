"""The bucketed ChanceModel: exact joint tables vs brute force over every deal."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest
from test_metrics import holdem

from cfrlab.abstraction import perfect_recall
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.cards.cards import deck
from cfrlab.cards.evaluator import rank_batch
from cfrlab.errors import CfrlabError


def _ordered_groups(n: int, groups) -> np.ndarray:
    """int64[N, sum(groups)]: every way to draw disjoint groups of these sizes from n positions
    in turn (each group a set, in increasing order)."""
    rows = np.zeros((1, 0), dtype=np.int64)
    used = np.zeros(1, dtype=np.int64)  # bit masks over deck positions
    for g in groups:
        combos = np.array(list(combinations(range(n), g)), dtype=np.int64)
        cmask = (1 << combos).sum(axis=1)
        ok = (used[:, None] & cmask[None, :]) == 0
        ri, ci = np.nonzero(ok)
        rows = np.concatenate([rows[ri], combos[ci]], axis=1)
        used = used[ri] | cmask[ci]
    return rows


def _board_groups(game) -> list[int]:
    return [b for b in game.num_board_cards[1:game.num_rounds]]


@lru_cache(maxsize=8)
def all_deals(game):
    """int64[N, 4 + board]: every ordered deal (hole 0, hole 1, board by round)."""
    cards = np.array(deck(game.num_ranks, game.num_suits), dtype=np.int64)
    return cards[_ordered_groups(len(cards), [2, 2] + _board_groups(game))]


def brute_tables(model):
    """The joint tables by counting every deal once: each board (its cards by round), then
    each two disjoint holes of the cards left (hole 0, hole 1), as all_deals has them. A
    player's states are a function of his hole and the board, so the model's deal map is read
    once per (hole, board), in a deal where he holds it, not once per deal (a fifth of the
    lookups: the 3.3 million deals of the big cases took 9 s); the deals themselves are counted
    with integer bincounts, then one division."""
    g = model.game
    R = g.num_rounds
    cards = np.array(deck(g.num_ranks, g.num_suits), dtype=np.int64)
    board = _ordered_groups(len(cards), _board_groups(g))  # [B, nb] deck positions
    B, nb = board.shape
    inboard = np.zeros((B, len(cards)), dtype=bool)
    inboard[np.arange(B)[:, None], board] = True
    K = len(cards) - nb
    left = np.nonzero(~inboard)[1].reshape(B, K)  # the cards left, by board
    pairs = np.array(list(combinations(range(K), 2)), dtype=np.int64)  # holes, [H, 2] into left
    H = len(pairs)
    other = np.array([[k for k in range(K) if k not in p][:2] for p in pairs], dtype=np.int64)
    hole, opp = left[:, pairs], left[:, other]  # [B, H, 2]
    brd = np.broadcast_to(board[:, None, :], (B, H, nb))
    st0 = model.deal_states_batch(cards[np.concatenate([hole, opp, brd], axis=2)].reshape(B * H, -1))
    st1 = model.deal_states_batch(cards[np.concatenate([opp, hole, brd], axis=2)].reshape(B * H, -1))
    st0, st1 = st0[:, 0].reshape(B, H, R).astype(np.int64), st1[:, 1].reshape(B, H, R).astype(np.int64)
    h0, h1 = np.nonzero((pairs[:, None, :, None] != pairs[None, :, None, :]).all(axis=(2, 3)))
    n = B * len(h0)  # every deal: a board, then two disjoint holes
    assert len(h0) == comb(K, 2) * comb(K - 2, 2)
    P = []
    for r in range(R):
        S = model.num_states[r]
        cells = (st0[:, h0, r] * S + st1[:, h1, r]).ravel()
        P.append(np.bincount(cells, minlength=S * S).reshape(S, S) / n)  # integer counts: exact
    strength = rank_batch(cards[np.concatenate([hole, brd], axis=2)].reshape(B * H, -1)).reshape(B, H)
    strength = strength.astype(np.int64)
    S = model.num_states[R - 1]
    cells = (st0[:, h0, R - 1] * S + st1[:, h1, R - 1]).ravel()
    diff = (strength[:, h0] - strength[:, h1]).ravel()
    W = np.bincount(cells[diff > 0], minlength=S * S) - np.bincount(cells[diff < 0], minlength=S * S)
    return P, W.reshape(S, S) / n


CASES = [
    pytest.param("3x4 four rounds, 3 buckets", holdem(4, 3), BucketSpec.make(4, 3),
                 marks=pytest.mark.slow, id="3x4 four rounds, 3 buckets"),
    ("2x5 nested 2x2, no history", holdem(5, 2), BucketSpec.make(4, None, nested="2x2",
                                                                 history=False)),
    ("2x5 imperfect recall", holdem(5, 2), BucketSpec.make(4, "2-3-2-4", history=False,
                                                           recall="imperfect")),
    ("3x4 two rounds, ehs uniform", holdem(4, 3, "0 3"),
     BucketSpec.make(2, "3-5", metric="ehs", method="uniform")),
    pytest.param("2x6 many states", holdem(6, 2), BucketSpec.make(4, "3-3-3-4"),
                 marks=pytest.mark.slow, id="2x6 many states"),
]


@pytest.mark.parametrize("name,game,spec", CASES,
                         ids=[c[0] if isinstance(c, tuple) else None for c in CASES])
def test_joint_tables_equal_brute_force(name, game, spec):
    model = BucketedModel.build(game, spec)
    P, W = brute_tables(model)
    for r in range(game.num_rounds):
        F = model.fold_matrix(r)
        np.testing.assert_allclose(F, P[r], rtol=0, atol=1e-15)
        assert F.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_array_equal(F, F.T)
        np.testing.assert_allclose(F.sum(axis=1), model.masses[r], rtol=0, atol=1e-15)
    Wm = model.showdown_matrix()
    np.testing.assert_allclose(Wm, W, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(Wm, -Wm.T)


def test_state_of_suit_invariance_and_parents():
    game = holdem(4, 3)
    model = BucketedModel.build(game, BucketSpec.make(4, 3))
    deals = all_deals(game)[::997]
    st = model.deal_states_batch(deals)
    for r in range(1, 4):  # perfect recall: the parent of a round's state is the round before's
        assert (model.parent[r][st[:, :, r]] == st[:, :, r - 1]).all()
    for perm in permutations(range(3)):
        p = np.array([0] + [1 + x for x in perm])  # suits d h s are ids 1..3 of this deck
        moved = (deals // 4) * 4 + p[deals % 4]
        assert (model.deal_states_batch(moved) == st).all()
    d = [int(c) for c in deals[5]]
    for r in range(4):
        nb = game.total_board_cards(r)
        assert model.state_of(0, d[0:2], d[4:4 + nb], r) == st[5, 0, r]
        assert model.state_of(1, d[2:4], d[4:], r) == st[5, 1, r]
    assert (model.deal_states(d) == st[5]).all()
    with pytest.raises(CfrlabError):
        model.state_of(0, d[0:2], d[0:1] + d[5:8], 1)


def test_save_load_round_trip(tmp_path):
    game = holdem(4, 3)
    model = BucketedModel.build(game, BucketSpec.make(4, 2))
    path = tmp_path / "abs.npz"
    model.save(path)
    again = BucketedModel.load(path, game)
    assert again.hash == model.hash
    for r in range(4):
        np.testing.assert_array_equal(again.fold_matrix(r), model.fold_matrix(r))
    np.testing.assert_array_equal(again.showdown_matrix(), model.showdown_matrix())
    deals = all_deals(game)[::5003]
    assert (again.deal_states_batch(deals) == model.deal_states_batch(deals)).all()
    with pytest.raises(CfrlabError):
        BucketedModel.load(path, holdem(5, 3))


def test_imperfect_recall_has_no_parent_map():
    game = holdem(4, 3)
    model = BucketedModel.build(game, BucketSpec.make(4, 2, history=False, recall="imperfect"))
    assert model.parent is None and not perfect_recall(model)


def test_all_accumulation_paths_agree(monkeypatch):
    """The four accumulation schemes (GEMM + shared-card correction, rank sweep, pairs with
    all their river cards, hole-pair tiles) give identical integer tables."""
    from cfrlab.abstraction import bucketed

    game = holdem(4, 3)
    spec = BucketSpec.make(4, "2-3-3-5")
    fast = BucketedModel.build(game, spec, use_cache=False)
    monkeypatch.setattr(bucketed, "GEMM_MAX", 0)
    monkeypatch.setattr(bucketed, "SWEEP_MAX", 0)
    monkeypatch.setattr(bucketed, "TURN_TILE_STATES", 7)  # several parent tiles
    monkeypatch.setattr(bucketed, "TURN_BATCH_BYTES", 100_000)  # several batches
    by_turn = BucketedModel.build(game, spec, use_cache=False)
    monkeypatch.setattr(bucketed, "TURN_PATH", False)
    monkeypatch.setattr(bucketed, "TILE", 7)  # several tiles, partial last tile
    monkeypatch.setattr(bucketed, "SMALL_STATES", 0)
    tiled = BucketedModel.build(game, spec, use_cache=False)
    for other in (by_turn, tiled):
        for r in range(4):
            np.testing.assert_array_equal(fast.fold_matrix(r), other.fold_matrix(r))
        np.testing.assert_array_equal(fast.showdown_matrix(), other.showdown_matrix())


def test_sizes_reproduce_the_seeds():
    from cfrlab import known_values as kv
    from cfrlab.abstraction.sizes import sizes
    from cfrlab.games import load_game

    g = load_game("holdem-limit")
    s10, s5 = sizes(g, 10), sizes(g, 5)
    assert s10["canonical_counts"] == list(kv.HOLDEM_CANONICAL_COUNTS)
    assert s10["decision_nodes"] == kv.HULHE_DECISION_NODES
    assert s10["tree_nodes_with_deals"] == 18_496  # the seeds' states per joint bucket sequence
    assert s10["infosets"] == 57_337_080
    assert float(f"{s10['infosets']:.3g}") == kv.ZINKEVICH_INFOSETS_B10
    assert float(f"{s10['states']:.3g}") == kv.ZINKEVICH_STATES_B10
    assert float(f"{s5['states']:.3g}") == kv.ZINKEVICH_STATES_B5
    assert float(f"{s10['game_states']:.3g}") == kv.HULHE_GAME_STATES
    assert float(f"{s10['game_infosets']:.3g}") == kv.HULHE_GAME_INFOSETS


def test_cli_build_info_sizes(tmp_path):
    import json

    from typer.testing import CliRunner

    from cfrlab.cli.main import app

    game_file = tmp_path / "small.game"
    game_file.write_text(holdem(4, 3).to_text())
    out = tmp_path / "a.npz"
    runner = CliRunner()
    res = runner.invoke(app, ["abstract", "build", str(game_file), "--buckets", "2-2-3-3",
                              "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["abstract", "info", str(out), "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["num_states"] == [2, 4, 12, 36]
    assert abs(sum(info["masses"][3]) - 1) < 1e-12
    res = runner.invoke(app, ["abstract", "build", str(game_file), "--out", str(out)])
    assert res.exit_code != 0  # refuses to overwrite
    res = runner.invoke(app, ["abstract", "sizes", str(game_file), "--buckets", "3", "--json"])
    assert res.exit_code == 0, res.output
    sz = json.loads(res.stdout)
    assert sz["infosets"] == sum(d * 3 ** (r + 1) for r, d in
                                 enumerate(sz["decision_nodes_by_round"]))


def _interrupted_sweep(monkeypatch, tmp_path):
    """A 4x3-deck build killed in its last round's sweep after 3 checkpoints (boards 600)."""
    from cfrlab.abstraction import _joint_kernels as JK
    from cfrlab.abstraction import bucketed

    monkeypatch.setenv("CFRLAB_CACHE", str(tmp_path))
    game = holdem(4, 3)
    spec = BucketSpec.make(4, 3)
    clean = BucketedModel.build(game, spec, use_cache=False)
    monkeypatch.setattr(bucketed, "SWEEP_STEP", 200)
    monkeypatch.setattr(bucketed, "CHECKPOINT_SECONDS", 0.0)
    real, calls = JK.last_round_sweep, []

    def dying(*args):
        calls.append(args[0])
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(JK, "last_round_sweep", dying)
    with pytest.raises(KeyboardInterrupt):
        BucketedModel.build(game, spec)
    monkeypatch.setattr(JK, "last_round_sweep", real)
    return game, spec, clean


def test_interrupted_build_resumes(monkeypatch, tmp_path):
    """A killed build resumes from its last checkpoint and gives the same tables."""
    game, spec, clean = _interrupted_sweep(monkeypatch, tmp_path)
    said = []
    resumed = BucketedModel.build(game, spec, progress=said.append)
    assert any("resuming the last round at board 600" in s for s in said), "\n".join(said)
    assert any("buckets: loaded from cache" in s for s in said)
    for r in range(4):
        np.testing.assert_array_equal(resumed.fold_matrix(r), clean.fold_matrix(r))
    np.testing.assert_array_equal(resumed.showdown_matrix(), clean.showdown_matrix())
    assert not list(tmp_path.glob("abstraction-*-joint*"))  # only the bucket maps stay


def test_partial_sums_resume_only_their_own_path(monkeypatch, tmp_path):
    """The sweep numbers final boards, the tile path another way: after a switch of path
    (SWEEP_MAX changed between runs) the old partial sums are dropped, not misread."""
    from cfrlab.abstraction import bucketed

    game, spec, clean = _interrupted_sweep(monkeypatch, tmp_path)
    monkeypatch.setattr(bucketed, "SWEEP_MAX", 0)
    said = []
    other = BucketedModel.build(game, spec, progress=said.append)
    assert not any("resuming" in s for s in said), "\n".join(said)
    np.testing.assert_array_equal(other.showdown_matrix(), clean.showdown_matrix())


def test_engine_values_equal_the_lifted_real_game():
    """A strategy over bucket sequences, played in the real (lossless) game, has exactly the
    value the engine computes with the abstraction's P_r and W; CFR+ runs on the model."""
    from cfrlab.abstraction import LosslessModel
    from cfrlab.engine import tree_layout
    from cfrlab.engine.values import expected_value, exploitability
    from cfrlab.games.gamedef import parse_game
    from cfrlab.solvers import make_solver
    from cfrlab.tree import build_tree

    game = parse_game(holdem(4, 3, "0 3 1").to_text().replace("maxRaises = 3 3 3",
                                                               "maxRaises = 1 1 1"))
    tree = build_tree(game)
    model = BucketedModel.build(game, BucketSpec.make(3, "2-3-2"))
    real = LosslessModel(game)
    rng = np.random.default_rng(4)
    off_b, off_l = tree_layout(tree, model), tree_layout(tree, real)
    lift = []  # per round: bucket state of every lossless state
    for r in range(3):
        cards = [real.state_cards(r, s) for s in range(real.num_states[r])]
        lift.append(np.array([model.state_of(0, h, b, r) for h, b in cards]))

    def random_policy():
        pol = rng.random((off_b[-1], 3)) * np.repeat(tree.legal, np.diff(off_b), axis=0)
        return pol / pol.sum(axis=1, keepdims=True)

    def lifted(pol):
        out = np.empty((off_l[-1], 3))
        for d, node in enumerate(tree.decision_node):
            r = int(tree.round[node])
            out[off_l[d]:off_l[d + 1]] = pol[off_b[d] + lift[r]]
        return out

    a, b = random_policy(), random_policy()
    want = expected_value(tree, real, lifted(a), lifted(b))
    assert expected_value(tree, model, a, b) == pytest.approx(want, abs=1e-12)
    solver = make_solver(tree, model, "cfr+")
    solver.iterate(50)
    start = exploitability(tree, model, a)
    assert exploitability(tree, model, solver.average_policy()) < 0.2 * start
