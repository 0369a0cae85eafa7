"""Lossless private states and joint chance tables, checked against a plain enumeration of deals."""

import itertools

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from game_texts import THREE_ROUNDS

from cfrlab.abstraction import LosslessModel
from cfrlab.errors import CfrlabError
from cfrlab.games.builtins import load_game
from cfrlab.games.gamedef import parse_game

BOARD_FIRST = """GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 1
raiseSize = 1 2
maxRaises = 1 1
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 1 1
END GAMEDEF
"""

GAMES = {
    "kuhn": load_game("kuhn"),
    "kuhn-7": load_game("kuhn-7"),
    "leduc": load_game("leduc"),
    "holdem-like": parse_game(naive.HOLDEM_LIKE),
    "three-rounds": parse_game(THREE_ROUNDS),
    "board-first": parse_game(BOARD_FIRST),
}


def dense(m):
    return m.toarray() if sp.issparse(m) else np.asarray(m)


def enumerated_tables(game, model):
    """P_r and W accumulated deal by deal (naive's deals and hand values)."""
    R = game.num_rounds
    P = [np.zeros((n, n)) for n in model.num_states]
    W = np.zeros((model.num_states[-1],) * 2)
    ds = naive.deals(game)
    w = 1.0 / len(ds)
    for h0, h1, board in ds:
        st = model.deal_states(list(h0) + list(h1) + list(board))
        for r in range(R):
            P[r][st[0, r], st[1, r]] += w
        vis = naive.visible_board(game, board, R - 1)
        v0, v1 = naive.hand_value(h0 + vis), naive.hand_value(h1 + vis)
        W[st[0, -1], st[1, -1]] += w * ((v0 > v1) - (v1 > v0))
    return P, W


@pytest.mark.parametrize("name", list(GAMES))
def test_tables_match_enumeration(name):
    game = GAMES[name]
    model = LosslessModel(game)
    P, W = enumerated_tables(game, model)
    for r in range(game.num_rounds):
        Pr = dense(model.fold_matrix(r))
        assert Pr.shape == (model.num_states[r],) * 2
        np.testing.assert_allclose(Pr, P[r], atol=1e-15)
        assert Pr.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(Pr, Pr.T, atol=0)
    Wm = dense(model.showdown_matrix())
    np.testing.assert_allclose(Wm, W, atol=1e-15)
    np.testing.assert_allclose(Wm, -Wm.T, atol=0)
    # the batch numbering equals the one-state path
    ds = naive.deals(game)
    batch = model.deal_states_batch(np.array([list(h0) + list(h1) + list(b) for h0, h1, b in ds]))
    for (h0, h1, board), st in zip(ds[::7], batch[::7]):
        for r in range(game.num_rounds):
            assert st[0, r] == model.state_of(0, h0, board, r)
            assert st[1, r] == model.state_of(1, h1, board, r)


@pytest.mark.parametrize("name", list(GAMES))
def test_parents_and_marginals(name):
    game = GAMES[name]
    model = LosslessModel(game)
    assert np.all(model.parent[0] == -1)
    for r in range(1, game.num_rounds):
        n_prev, n = model.num_states[r - 1], model.num_states[r]
        par = model.parent[r]
        assert par.dtype == np.int32 and par.shape == (n,)
        A = np.zeros((n_prev, n))
        A[par, np.arange(n)] = 1.0
        np.testing.assert_allclose(A @ dense(model.fold_matrix(r)) @ A.T, dense(model.fold_matrix(r - 1)), atol=1e-15)
        for s in range(n):  # perfect recall: same hole, board extended
            hole, board = model.state_cards(r, s)
            hole_p, board_p = model.state_cards(r - 1, int(par[s]))
            assert hole == hole_p and board[: len(board_p)] == board_p


@pytest.mark.parametrize("name", list(GAMES))
def test_state_numbering_round_trip(name):
    game = GAMES[name]
    model = LosslessModel(game)
    for r in range(game.num_rounds):
        seen = set()
        for s in range(model.num_states[r]):
            hole, board = model.state_cards(r, s)
            assert len(set(hole) | set(board)) == len(hole) + len(board)
            assert model.state_of(s % 2, hole, board, r) == s
            seen.add((tuple(hole), tuple(board)))
        assert len(seen) == model.num_states[r]


def test_leduc_states():
    model = LosslessModel(load_game("leduc"))
    assert model.num_states == (6, 30)
    assert model.describe_state(0, 0) == "Qh"
    texts = [model.describe_state(1, s) for s in range(30)]
    assert len(set(texts)) == 30 and "Ks/Qh" in texts
    s = model.deal_states([51, 42, 46])  # As | Qh, board Kh
    assert model.describe_state(1, s[0, 1]) == "As/Kh"
    assert model.describe_state(1, s[1, 1]) == "Qh/Kh"
    assert len(model.hash) == 64
    assert model.hash != LosslessModel(load_game("kuhn")).hash


def test_kuhn_100_showdown():
    model = LosslessModel(load_game("kuhn-100"))
    W = dense(model.showdown_matrix())
    i, j = np.meshgrid(np.arange(100), np.arange(100), indexing="ij")
    np.testing.assert_allclose(W, np.sign(i - j) / 9900.0, atol=1e-18)


def test_large_game_is_sparse():
    text = THREE_ROUNDS.replace("numSuits = 2", "numSuits = 3")
    model = LosslessModel(parse_game(text))
    assert model.num_states[1] > 2048
    P = model.fold_matrix(1)
    assert sp.issparse(P) and P.format == "csr"
    assert P.sum() == pytest.approx(1.0)
    W = model.showdown_matrix()
    assert abs(W + W.T).max() == 0.0


def test_block_structure():
    model = LosslessModel(parse_game(THREE_ROUNDS))
    for r in range(3):
        blocks, B = model.fold_blocks(r)
        assert B == model.num_blocks[r] and blocks.shape[1] == model.block_size[r]
        bp = model.block_parent(r)
        if r:
            # a state's parent lies in its block's parent block
            H, Hp = model.block_size[r], model.block_size[r - 1]
            s = np.arange(model.num_states[r])
            assert np.all(model.parent[r] // Hp == bp[s // H])


def test_refusals():
    with pytest.raises(CfrlabError):
        LosslessModel(load_game("holdem-limit"))
    model = LosslessModel(load_game("leduc"))
    with pytest.raises(CfrlabError):
        model.state_of(0, [51], [51], 1)


def test_all_two_card_pairs_counted():
    game = parse_game(naive.HOLDEM_LIKE)
    model = LosslessModel(game)
    assert model.num_states[0] == len(list(itertools.combinations(range(8), 2)))
    assert model.num_states[1] == 28 * 15
