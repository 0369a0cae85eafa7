"""Results files of the real-game best response (``real_best_response(..., results=FILE)``,
``cfrlab exploit-real --results FILE``), and the river kernel's reach classes.

* A run stopped anywhere (after some units, or by an interrupt) and continued from its results
  file gives the uninterrupted run's values to 1e-12; so does one whose units finished in
  another order (two workers).
* A results file of another strategy, another game, or a damaged one is refused in one line.
* Reach classes: an opponent whose last-round state forgets its history (hands of one state
  reach the river with different probabilities) still gets the exact best response (the lift
  oracle of tests/test_realgame.py); ``column_classes`` groups exactly the identical columns.
"""

from __future__ import annotations

import numpy as np
import pytest
from cli_run import run
from test_realgame import TOL, _case_strategy, bucketed_case, random_policy

import cfrlab
from cfrlab.abstraction.lossless import LosslessModel
from cfrlab.engine import best_response_values, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.realgame import real_best_response
from cfrlab.realgame._lanes_kernels import column_classes
from cfrlab.realgame.hands import make_deck
from cfrlab.strategy import Strategy

EXACT = 1e-12


def _close(a, b) -> None:
    assert a.br == pytest.approx(b.br, abs=EXACT, rel=EXACT)
    np.testing.assert_allclose(a.root_values, b.root_values, rtol=EXACT, atol=EXACT)


def test_a_run_continued_from_its_results_file_equals_the_uninterrupted_run(tmp_path):
    s = _case_strategy()
    one = real_best_response(s)
    f = tmp_path / "r.npz"
    n = one.units
    real_best_response(s, results=f, units=list(range(0, n, 3)))  # stopped after a third
    with np.load(f, allow_pickle=False) as data:
        assert sorted(data["units"].tolist()) == list(range(0, n, 3))
    real_best_response(s, results=f, units=list(range(1, n, 3)))
    last = real_best_response(s, results=f)  # the rest
    assert last.units_computed == n - len(range(0, n, 3)) - len(range(1, n, 3))
    _close(last, one)
    again = real_best_response(s, results=f)  # all done: nothing computed, same values
    assert again.units_computed == 0
    _close(again, one)


def test_an_interrupted_run_keeps_its_finished_units_and_continues(tmp_path):
    s = _case_strategy()
    one = real_best_response(s)
    f = tmp_path / "r.npz"

    def stop(done, total, elapsed, eta):
        if done == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        real_best_response(s, results=f, progress=stop)
    with np.load(f, allow_pickle=False) as data:
        assert len(data["units"]) == 4
    rest = real_best_response(s, results=f, workers=2)  # finishing in any order
    assert rest.units_computed == one.units - 4
    _close(rest, one)


def test_a_results_file_of_another_strategy_or_game_is_refused(tmp_path):
    s = _case_strategy()
    f = tmp_path / "r.npz"
    real_best_response(s, results=f, units=[0])
    other = Strategy.uniform(s.game, tree=s.tree, model=s.model)
    with pytest.raises(CfrlabError, match="another strategy"):
        real_best_response(other, results=f)
    g, tree, bmodel = bucketed_case(4, 2, "0 2 1", 2)
    elsewhere = Strategy.from_policy(g, random_policy(tree, row_offsets(tree, bmodel), 1),
                                     tree=tree, model=bmodel)
    with pytest.raises(CfrlabError, match="another game"):
        real_best_response(elsewhere, results=f)
    with pytest.raises(CfrlabError, match="not both"):
        real_best_response(s, results=f, checkpoint=tmp_path / "ck")


def test_a_damaged_results_file_is_refused_not_overwritten(tmp_path):
    s = _case_strategy()
    f = tmp_path / "r.npz"
    real_best_response(s, results=f, units=[0, 1])
    data = dict(np.load(f, allow_pickle=False))
    data["hi"] = data["hi"] * 2.0  # a changed sum
    with open(f, "wb") as out:
        np.savez(out, **data)
    before = f.read_bytes()
    with pytest.raises(CfrlabError, match="checksum"):
        real_best_response(s, results=f)
    f.write_bytes(before[:100])
    with pytest.raises(CfrlabError, match="not a results file"):
        real_best_response(s, results=f)
    assert f.read_bytes() == before[:100]


def test_cli_results_file_continues_and_refuses_another_game(capsys, tmp_path):
    leduc, kuhn, f = tmp_path / "l.npz", tmp_path / "k.npz", tmp_path / "r.npz"
    s = cfrlab.solve("leduc", "cfr+", iterations=20).strategy
    s.save(leduc)
    cfrlab.solve("kuhn", "cfr+", iterations=20).strategy.save(kuhn)
    code, out, _ = run(capsys, "exploit-real", str(leduc), "--results", str(f), "--json")
    assert code == 0 and "results in" in out
    code, out, _ = run(capsys, "exploit-real", str(leduc), "--results", str(f))
    assert code == 0 and "0 computed now" in out
    assert real_best_response(s).exploitability == pytest.approx(
        real_best_response(s, results=f).exploitability, abs=EXACT)
    code, _, err = run(capsys, "exploit-real", str(kuhn), "--results", str(f))
    assert code != 0 and "another game" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "exploit-real", str(leduc), "--results", str(f), "--resume")
    assert code != 0 and "--results replaces" in err


# -- reach classes ----------------------------------------------------------------------------

class _Forgetful:
    """A card-dependent opponent whose state each round is a hash of its hand and the board,
    with no memory: hands of one last-round state reach it with different probabilities."""

    K = 5

    def __init__(self, tree, seed: int) -> None:
        self.kind, self.suit_symmetric = "custom", False
        nd = len(tree.decision_node)
        self.row_offset = np.arange(nd + 1, dtype=np.int64) * self.K
        legal = np.repeat(np.asarray(tree.legal, dtype=np.float64), self.K, axis=0)
        pol = legal * np.random.default_rng(seed).random(legal.shape) ** 3
        self.policy = pol / pol.sum(axis=1, keepdims=True)

    def state(self, hand: int, board) -> int:
        # another grouping of the hands each round: the last state does not tell the earlier
        return (hand // (len(board) + 1) + int(sum(board))) % self.K

    def states(self, round, board, deck, valid):
        return np.array([self.state(i, board) for i in range(deck.num_hands)], dtype=np.int64)


def test_an_opponent_that_forgets_its_history_gets_the_exact_best_response():
    g, tree, _ = bucketed_case(4, 2, "0 2 1", 2)
    opp = _Forgetful(tree, 3)
    lm = LosslessModel(g)
    deck = make_deck(g)
    glob = {int(c): i for i, c in enumerate(deck.to_global)}
    off_l = row_offsets(tree, lm)
    lifted = np.zeros((int(off_l[-1]), 3))
    for d, node in enumerate(tree.decision_node):
        r = int(tree.round[node])
        for s in range(lm.num_states[r]):
            hole, board = lm.state_cards(r, s)
            hand = deck.hand_of[tuple(sorted(glob[c] for c in hole))]
            lifted[off_l[d] + s] = opp.policy[opp.row_offset[d] + opp.state(hand, [glob[c] for c in board])]
    b0, b1 = best_response_values(tree, lm, lifted)
    r = real_best_response(opp, g)
    assert r.br == pytest.approx((b0, b1), abs=TOL)


def test_column_classes_group_exactly_the_identical_columns():
    rng = np.random.default_rng(0)
    base = rng.random((6, 4))
    x = base[:, [0, 1, 0, 2, 3, 1, 1, 0]]
    x[5, 7] = np.nextafter(x[5, 7], 2.0)  # one bit apart: another class
    cls = column_classes(np.ascontiguousarray(x))
    key = [tuple(col) for col in x.T]
    for i in range(8):
        for j in range(8):
            assert (cls[i] == cls[j]) == (key[i] == key[j])

