"""Exact hand-strength metrics: tables vs plain enumeration, a Python oracle and eval7."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from game_texts import holdem_text
from naive import hand_value

from cfrlab.abstraction.metrics import direct_metrics, metric_tables
from cfrlab.cards import cards_text, deck, parse_cards
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.games.gamedef import parse_game


def holdem(ranks: int, suits: int, boards: str = "0 3 1 1") -> object:
    return parse_game(holdem_text(ranks, suits, boards), name=f"holdem-{ranks}x{suits}")


@pytest.fixture(scope="module")
def small():
    g = holdem(6, 4)
    return g, metric_tables(g)


def python_hs(hole, board, cards):
    """Plain-Python river HS with the reference evaluator."""
    rest = [c for c in cards if c not in hole and c not in board]
    mine = hand_value(list(hole) + list(board))
    score = n = 0
    for opp in combinations(rest, 2):
        theirs = hand_value(list(opp) + list(board))
        score += 2 if mine > theirs else (1 if mine == theirs else 0)
        n += 2
    return score / n


def python_ehs(hole, board, final, cards):
    rest = [c for c in cards if c not in hole and c not in board]
    vals = [python_hs(hole, list(board) + list(extra), cards)
            for extra in combinations(rest, final - len(board))]
    return float(np.mean(vals)), float(np.mean(np.square(vals)))


@pytest.mark.slow
def test_tables_match_enumeration_every_round(small):
    g, mt = small
    rng = np.random.default_rng(3)
    for r in range(4):
        ix = mt.indexers[r]
        e1, e2 = mt.ehs(r), mt.ehs2(r)
        picks = rng.integers(0, ix.size, 40 if r else ix.size)
        for i in picks:
            cards = ix.unindex(int(i))
            a, b = direct_metrics(g, cards[:2], cards[2:])
            assert e1[i] == pytest.approx(a, abs=1e-12)
            assert e2[i] == pytest.approx(b, abs=1e-12)


def test_tables_match_python_oracle(small):
    _g, mt = small
    cards = deck(6, 4)
    rng = np.random.default_rng(5)
    for board_len in (5, 4):
        for _ in range(4 if board_len == 5 else 2):
            pick = [cards[i] for i in rng.permutation(len(cards))[:2 + board_len]]
            hole, board = pick[:2], pick[2:]
            want = python_ehs(hole, board, 5, cards)
            got = mt.lookup(hole, board)
            assert got == pytest.approx(want, abs=1e-12)


def test_metric_invariants(small):
    _g, mt = small
    for r in range(4):
        e1, e2 = mt.ehs(r), mt.ehs2(r)
        assert (e1 >= 0).all() and (e1 <= 1).all()
        assert (e2 >= e1 * e1 - 1e-15).all()
        if r == 3:
            np.testing.assert_allclose(e2, e1 * e1, rtol=1e-13, atol=0)
        else:  # strict somewhere: earlier rounds have variance
            assert (e2 > e1 * e1 + 1e-9).any()
        # the mass-weighted mean of E[HS] is exactly 1/2 (the game is symmetric)
        w = mt.indexers[r].multiplicities()
        assert float((w * e1).sum() / w.sum()) == pytest.approx(0.5, abs=1e-12)


def test_preflop_order_small_deck(small):
    _g, mt = small
    ix = mt.indexers[0]
    order = np.argsort(mt.ehs(0))
    top = ix.unindex(int(order[-1]))
    assert top[0] // 4 == top[1] // 4  # a pocket pair (KK on this 9..A deck, where AA can't wheel)
    last = ix.unindex(int(order[0]))
    assert last[0] // 4 != last[1] // 4 and last[0] % 4 != last[1] % 4  # an offsuit hand


def test_two_round_game_and_cache_reload(tmp_path, monkeypatch):
    monkeypatch.setenv("CFRLAB_CACHE", str(tmp_path))
    g = holdem(5, 4, "0 3")
    mt = metric_tables(g)
    again = metric_tables(g)
    assert all(np.array_equal(a, b) for a, b in zip(mt.s1, again.s1))
    files = sorted(tmp_path.glob("metrics-*.npz"))
    assert len(files) == 2
    files[0].write_bytes(files[0].read_bytes()[:100])  # a partial file is rebuilt, not trusted
    third = metric_tables(g)
    assert all(np.array_equal(a, b) for a, b in zip(mt.s1, third.s1))
    hole, board = parse_cards("AsKs"), parse_cards("QsJsTh")
    assert mt.lookup(hole, board) == pytest.approx(direct_metrics(g, hole, board))


def test_rejects_non_holdem_games():
    with pytest.raises(CfrlabError):
        metric_tables(load_game("leduc"))


@pytest.mark.slow
def test_full_deck_situations_vs_eval7():
    """eval7's exact equity takes complete boards only: average it over every completion."""
    eval7 = pytest.importorskip("eval7")
    g = load_game("holdem-limit")
    every = eval7.HandRange("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32")
    E = {c: eval7.Card(cards_text([c])) for c in range(52)}
    rng = np.random.default_rng(11)
    for board_len, count in ((5, 200), (4, 60), (3, 4)):
        for _ in range(count):
            pick = rng.permutation(52)[:2 + board_len]
            hole, board = [int(c) for c in pick[:2]], [int(c) for c in pick[2:]]
            rest = [c for c in range(52) if c not in hole and c not in board]
            hs = [eval7.py_hand_vs_range_exact([E[c] for c in hole], every,
                                               [E[c] for c in board + list(extra)])
                  for extra in combinations(rest, 5 - board_len)]
            ehs, ehs2 = direct_metrics(g, hole, board)
            assert ehs == pytest.approx(float(np.mean(hs)), abs=1e-6)
            assert ehs2 == pytest.approx(float(np.mean(np.square(hs))), abs=1e-6)
