"""cfrlab.to_openspiel / from_openspiel: strategies cross to OpenSpiel and back with the same
exploitability, including the average policies of pyspiel's C++ solvers."""

import numpy as np
import pytest

import cfrlab

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import exploitability as os_exploitability


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_a_strategy_measures_the_same_in_openspiel(name):
    s = cfrlab.solve(name, "cfr+", iterations=60).strategy
    tab = cfrlab.to_openspiel(s)
    theirs = os_exploitability.exploitability(tab.game, tab)
    assert theirs == pytest.approx(cfrlab.exploit(s).exploitability, abs=1e-9)
    back = cfrlab.from_openspiel(tab)
    assert np.allclose(back.policy, s.policy, atol=1e-12)


@pytest.mark.parametrize("name, solver", [("kuhn", "CFRSolver"), ("leduc", "CFRPlusSolver"),
                                          ("kuhn", "python")])
def test_openspiel_solvers_average_policies_come_in(name, solver):
    os_game = pyspiel.load_game(f"{name}_poker")
    s = os_cfr.CFRSolver(os_game) if solver == "python" else getattr(pyspiel, solver)(os_game)
    for _ in range(20):
        s.evaluate_and_update_policy()
    ours = cfrlab.from_openspiel(s, name)
    avg = s.average_policy()
    want = (os_exploitability.exploitability(os_game, avg) if solver == "python"
            else pyspiel.exploitability(os_game, avg))
    assert cfrlab.exploit(ours).exploitability == pytest.approx(want, abs=1e-9)
    assert ours.header["algorithm"] == "openspiel"


def test_bad_openspiel_input_is_one_line():
    with pytest.raises(cfrlab.CfrlabError, match="say which game"):
        cfrlab.from_openspiel(pyspiel.CFRSolver(pyspiel.load_game("kuhn_poker")))
    with pytest.raises(cfrlab.CfrlabError, match="not an OpenSpiel policy"):
        cfrlab.from_openspiel({"a": 1}, "kuhn")
    with pytest.raises(cfrlab.CfrlabError, match="no OpenSpiel counterpart"):
        cfrlab.to_openspiel(cfrlab.Strategy.uniform("kuhn-100"))
    tab = os_cfr.CFRSolver(pyspiel.load_game("kuhn_poker", {"players": 3})).average_policy()
    three = cfrlab.from_openspiel(tab)  # one exchange for any player count: a 3-player Strategy
    assert three.num_players == 3 and three.game.to_text() == cfrlab.load_game("kuhn-3p").to_text()
    with pytest.raises(cfrlab.CfrlabError, match="no cfrlab counterpart"):  # a game of 8 information
        # states (tic_tac_toe's 294,778 took OpenSpiel's Python CFR 17 s to set up)
        cfrlab.from_openspiel(os_cfr.CFRSolver(pyspiel.load_game("tiny_hanabi")).average_policy())
