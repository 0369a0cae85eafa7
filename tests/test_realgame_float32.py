"""The real-game best response with its last round in single precision (``precision="float32"``).

* Oracle: the float64 run (exact to rounding, itself checked against the lossless engine in
  tests/test_realgame.py). The float32 values differ from it (the option takes effect) by no
  more than the bound stated in ``walk.PRECISIONS``: (2n + 2) roundings of 2^-24 on the largest
  stake, n the hands on a river board.
* The option travels to worker processes (two workers: the same bits as one).
* A results file remembers the precision: a run of the other precision is refused in one line;
  an unknown precision is refused before any work, in the API and the CLI.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from cli_run import run
from test_realgame import _case_strategy
from test_realgame_resume import _Forgetful

import cfrlab
from cfrlab.engine import build_tree_for
from cfrlab.errors import CfrlabError
from cfrlab.realgame import real_best_response
from cfrlab.realgame.hands import make_deck


def _bound(game, tree) -> float:
    """The stated worst case: (2n + 2) * 2^-24 of the largest stake (n hands on a board)."""
    deck = make_deck(game)
    n = comb(deck.size - sum(game.num_board_cards), deck.num_hole)
    return (2 * n + 2) * 2.0 ** -24 * float(np.abs(tree.spent).max())


def _within(a, b, bound: float) -> None:
    diff = max(abs(a.br[0] - b.br[0]), abs(a.br[1] - b.br[1]))
    assert 0.0 < diff <= bound, (diff, bound)  # float32 did run, and within the bound
    assert abs(a.exploitability - b.exploitability) <= bound


def test_float32_lanes_stay_within_the_stated_bound_of_the_exact_values():
    s = _case_strategy()
    exact = real_best_response(s)
    single = real_best_response(s, precision="float32")
    assert single.precision == "float32" and exact.precision == "float64"
    _within(single, exact, _bound(s.game, s.tree))
    # per hand too: each root value within the bound times the opponent's hands
    scale = np.abs(exact.root_values).max()
    np.testing.assert_allclose(single.root_values, exact.root_values, atol=1e-5 * scale)


def test_float32_against_an_opponent_that_forgets_its_history():
    s = _case_strategy()
    opp = _Forgetful(s.tree, 3)
    exact = real_best_response(opp, s.game)
    single = real_best_response(opp, s.game, precision="float32")
    _within(single, exact, _bound(s.game, s.tree))


def test_float32_on_leduc_and_in_worker_processes(tmp_path):
    s = cfrlab.solve("leduc", "cfr+", iterations=30).strategy
    exact = real_best_response(s)
    single = real_best_response(s, precision="float32", method="walk")
    tree = build_tree_for(s.game)
    assert abs(single.exploitability - exact.exploitability) <= _bound(s.game, tree)
    c = _case_strategy()
    one = real_best_response(c, precision="float32")
    two = real_best_response(c, precision="float32", workers=2, checkpoint=tmp_path / "ck")
    assert two.br == one.br  # lanes never mix: the same bits wherever a unit runs


def test_a_results_file_remembers_its_precision(tmp_path):
    s = _case_strategy()
    f = tmp_path / "r.npz"
    real_best_response(s, results=f, units=[0])
    with pytest.raises(CfrlabError, match="another precision"):
        real_best_response(s, results=f, precision="float32")
    g = tmp_path / "r32.npz"
    real_best_response(s, results=g, units=[0], precision="float32")
    with pytest.raises(CfrlabError, match="another precision"):
        real_best_response(s, results=g)
    done = real_best_response(s, results=g, precision="float32")  # continues in float32
    assert done.units_computed == done.units - 1
    with pytest.raises(CfrlabError, match="unknown precision"):
        real_best_response(s, precision="float16")


def test_cli_precision_option(capsys, tmp_path):
    leduc = tmp_path / "l.npz"
    cfrlab.solve("leduc", "cfr+", iterations=20).strategy.save(leduc)
    code, out, _ = run(capsys, "exploit-real", str(leduc), "--precision", "float32", "--json",
                       "--checkpoint", str(tmp_path / "ck"))
    assert code == 0 and '"precision": "float32"' in out and "float32 lanes" in out
    code, _, err = run(capsys, "exploit-real", str(leduc), "--precision", "half",
                       "--checkpoint", str(tmp_path / "ck2"))
    assert code != 0 and "unknown precision" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "exploit", str(leduc), "--precision", "float32")
    assert code != 0 and "go with --real" in err
