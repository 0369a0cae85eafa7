"""Small gaps of the Python API a researcher meets in the first hour (issue 27, item 3)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import cfrlab
from cfrlab.agents.strategy_agent import StrategyAgent
from cfrlab.errors import CfrlabError
from cfrlab.strategy import Strategy


def test_a_strategy_name_reaches_the_hand_log(tmp_path):
    s = Strategy.uniform("kuhn")
    assert s.name == "uniform"  # by default, the algorithm
    s.name = "mine"
    assert StrategyAgent(s).name == "mine" and StrategyAgent(s, name="other").name == "other"
    log = tmp_path / "m.log"
    cfrlab.play_match("kuhn", s, "always-call", 10, seed=1, log=log)
    assert ":mine|always-call" in log.read_text() or ":always-call|mine" in log.read_text()
    t = Strategy.from_policy(s.game, s.policy, name="probe-1")
    assert t.name == "probe-1" and t.algorithm == "unknown"
    t.save(tmp_path / "t.npz")
    assert Strategy.load(tmp_path / "t.npz").name == "probe-1"
    for bad in ("", "  ", 3):
        with pytest.raises(CfrlabError, match="name"):
            t.name = bad


def test_policy_and_header_are_documented_for_perturbing():
    doc = " ".join(inspect.getdoc(Strategy).split())
    for word in ("float64", "row_offset", "fold, call/check and raise", "from_policy", "model_hash",
                 "exploitability", "chips per game", "name"):
        assert word in doc, word
    s = Strategy.uniform("leduc")
    p = s.policy.copy()  # perturb as the docstring says: one decision's rows
    lo, hi = s.rows_of(s.node_of(""))
    p[lo:hi] = [0.0, 1.0, 0.0]
    t = Strategy.from_policy(s.game, p, tree=s.tree, model=s.model)
    assert t.action_probs("Ks", "") == {"c": 1.0, "r": 0.0}


def test_opponent_model_policy_is_an_array_like_strategy_policy():
    from cfrlab.counter.model import OpponentModel

    s = Strategy.uniform("kuhn")
    m = OpponentModel(s.game, s.tree, s.model, np.zeros_like(s.policy))
    assert isinstance(m.policy, np.ndarray) and m.policy.shape == s.policy.shape
    assert isinstance(type(m).policy, property) and isinstance(Strategy.uniform("kuhn").policy, np.ndarray)
    assert np.array_equal(m.strategy().policy, m.policy)


def test_card_labels_print_as_they_are_read():
    s = cfrlab.solve("leduc", "cfr+", iterations=20).strategy
    later = [i for i in s.infosets() if i.round == 1]
    assert later[0].cards.count("/") == 1 and "|" not in later[0].cards  # "Ks/Kh", ACPC's view
    for info in later[::37]:
        assert s.action_probs(info.cards, info.betting) == info.probs
        hole, board = info.cards.split("/")
        assert s.action_probs(f"{hole}|{board}", info.betting) == info.probs  # the older labels
    labels, _, _ = s.node_table(later[0].node)
    assert all("/" in x and "|" not in x for x in labels)


def test_solver_has_its_own_docstring():
    from cfrlab.solvers import Solver

    doc = inspect.getdoc(Solver)
    assert "average_policy" in doc and "Protocol" in doc and "Structural subtyping" not in doc


def test_printing_a_result_is_short():
    r = cfrlab.solve("kuhn", "cfr+", iterations=3000, eval_every=1)  # a 3,000-point curve
    assert len(r.curve) == 3000
    for obj in (r, r.strategy, cfrlab.exploit(r.strategy),
                cfrlab.play_match("kuhn", r.strategy, "always-call", 5000, seed=1)):
        text = repr(obj)
        assert len(text) < 300 and "\n" not in text, text
        assert "chips/g" in text
