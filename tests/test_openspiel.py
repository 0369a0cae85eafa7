"""OpenSpiel interop: information-state strings, round trips, exploitability agreement."""

import json

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import exploitability as os_exploitability
from open_spiel.python.algorithms.expected_game_score import policy_value

from cfrlab.errors import CfrlabError
from cfrlab.games.builtins import load_game
from cfrlab.interop.openspiel import (
    OPENSPIEL_GAMES,
    export_openspiel,
    from_openspiel_policy,
    import_openspiel,
    load_openspiel_json,
    openspiel_game_name,
    save_openspiel_json,
    to_openspiel_policy,
)
from cfrlab.solvers.lp import solve_lp
from cfrlab.strategy import Strategy

NAMES = ["kuhn", "leduc"]


def random_strategy(game, seed):
    base = Strategy.uniform(game)
    rng = np.random.default_rng(seed)
    legal = np.repeat(base.tree.legal, np.diff(base.row_offset), axis=0)
    p = np.where(legal, rng.random(legal.shape) + 1e-3, 0.0)
    return Strategy.from_policy(
        game, p / p.sum(axis=1, keepdims=True), tree=base.tree, model=base.model
    )


def lp_strategy(game):
    base = Strategy.uniform(game)
    policy, value = solve_lp(base.tree, base.model)
    return Strategy.from_policy(
        game, policy, tree=base.tree, model=base.model, algorithm="lp", game_value=value
    )


def strategies(name):
    game = load_game(name)
    return {
        "uniform": Strategy.uniform(game),
        "random": random_strategy(game, 3),
        "lp": lp_strategy(game),
    }


def openspiel_exploitability(os_game, mapping):
    """OpenSpiel's two routes: the Python module (NashConv / 2) and the C++ function."""
    py = os_exploitability.exploitability(os_game, to_openspiel_policy(mapping, os_game))
    cpp = pyspiel.exploitability(
        os_game,
        pyspiel.TabularPolicy({k: [(int(a), p) for a, p in v.items()] for k, v in mapping.items()}),
    )
    nash_conv = os_exploitability.nash_conv(os_game, to_openspiel_policy(mapping, os_game))
    assert py == pytest.approx(cpp, abs=1e-12)
    assert py == pytest.approx(nash_conv / 2, abs=1e-12)  # the convention DESIGN.md fixes
    return py


@pytest.mark.parametrize("name", NAMES)
def test_information_states_and_legal_actions_match_openspiel(name):
    os_game = pyspiel.load_game(OPENSPIEL_GAMES[name])
    tab = os_policy.TabularPolicy(os_game)
    mapping = export_openspiel(Strategy.uniform(load_game(name)))
    assert set(mapping) == set(tab.state_lookup)
    assert len(mapping) == (12 if name == "kuhn" else 936)
    for key, idx in tab.state_lookup.items():
        assert sorted(mapping[key]) == list(np.flatnonzero(tab.legal_actions_mask[idx]))


@pytest.mark.parametrize("name", NAMES)
def test_round_trip_is_identical(name):
    for label, s in strategies(name).items():
        back = import_openspiel(s.game, export_openspiel(s), tree=s.tree, model=s.model)
        np.testing.assert_array_equal(back.policy, s.policy, err_msg=label)


@pytest.mark.parametrize("name", NAMES)
def test_exploitability_and_value_agree_with_openspiel(name):
    os_game = pyspiel.load_game(OPENSPIEL_GAMES[name])
    for label, s in strategies(name).items():
        mapping = export_openspiel(s)
        imported = import_openspiel(s.game, mapping)
        theirs = openspiel_exploitability(os_game, mapping)
        assert imported.exploitability() == pytest.approx(theirs, abs=1e-9), label
        # both seats playing the policy: the same expected winnings for player 0
        their_value = policy_value(
            os_game.new_initial_state(), [to_openspiel_policy(mapping, os_game)] * 2
        )[0]
        assert imported.game_value() == pytest.approx(their_value, abs=1e-9), label


@pytest.mark.parametrize("name,iterations", [("kuhn", 30), ("leduc", 3)])
def test_policy_made_by_openspiel_imports_faithfully(name, iterations):
    # a policy born in OpenSpiel (its own CFR) comes in and measures the same
    os_game = pyspiel.load_game(OPENSPIEL_GAMES[name])
    solver = os_cfr.CFRSolver(os_game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    tab = solver.average_policy()
    mapping = from_openspiel_policy(tab)
    s = import_openspiel(load_game(name), mapping)
    want = os_exploitability.exploitability(os_game, tab)
    assert s.exploitability() == pytest.approx(want, abs=1e-9)
    back = export_openspiel(s)
    for key in mapping:
        for a, p in mapping[key].items():
            assert back[key][a] == pytest.approx(p, abs=1e-12)


def test_known_strings_and_cards():
    # Kuhn: OpenSpiel's J Q K are our Qs Ks As; "1pb" = holding Ks, pass then bet
    s = lp_strategy(load_game("kuhn"))
    mapping = export_openspiel(s)
    probs = s.action_probs("Ks", "cr")  # check, raise -> facing a bet: fold or call
    assert mapping["1pb"] == {0: probs["f"], 1: probs["c"]}
    assert mapping["0"][1] == pytest.approx(s.action_probs("Qs", "")["r"])
    # Leduc: card 5 = As, public 2 = Kh; round 1 check, check; round 2 raise, re-raise and
    # player 0 (5 chips in against 9) must fold or call
    s = random_strategy(load_game("leduc"), 9)
    tail = "[Pot: 14][Money: 95 91][Public: 2][Round1: 1 1][Round2: 2 2]"
    key = "[Observer: 1][Private: 5][Round 2][Player: 1]" + tail
    assert key not in export_openspiel(s)  # player 0 acts there
    key = "[Observer: 0][Private: 5][Round 2][Player: 0]" + tail
    probs = s.action_probs("As/Kh", "cc/rr")
    assert export_openspiel(s)[key] == {0: probs["f"], 1: probs["c"]}


def test_json_files(tmp_path):
    s = random_strategy(load_game("leduc"), 5)
    path = tmp_path / "leduc.json"
    assert save_openspiel_json(path, s) == 936
    data = json.loads(path.read_text())
    assert all(isinstance(a, str) for v in data.values() for a in v)
    back = load_openspiel_json(path, load_game("leduc"))
    np.testing.assert_array_equal(back.policy, s.policy)
    assert back.header["imported_from"] == "leduc_poker"


def test_refusals(tmp_path):
    kuhn = load_game("kuhn")
    good = export_openspiel(Strategy.uniform(kuhn))
    with pytest.raises(CfrlabError, match="lacks"):
        import_openspiel(kuhn, {k: v for k, v in good.items() if k != "0pb"})
    with pytest.raises(CfrlabError, match="not an information state"):
        import_openspiel(kuhn, {**good, "3": {0: 1.0}})
    with pytest.raises(CfrlabError, match="sum to"):
        import_openspiel(kuhn, {**good, "0": {0: 0.5, 1: 0.2}})
    with pytest.raises(CfrlabError, match="not a probability"):
        import_openspiel(kuhn, {**good, "0": {0: 1.5, 1: -0.5}})
    leduc = load_game("leduc")
    lgood = export_openspiel(Strategy.uniform(leduc))
    first = (
        "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]"
    )
    with pytest.raises(CfrlabError, match="not legal"):
        import_openspiel(leduc, {**lgood, first: {0: 0.5, 1: 0.5}})
    assert openspiel_game_name(load_game("kuhn-4")) == "universal_poker"  # any other 2-player game
    assert openspiel_game_name(load_game("kuhn-3p")) == "kuhn_poker(players=3)"  # one exchange, any N
    with pytest.raises(CfrlabError, match="no OpenSpiel counterpart"):
        openspiel_game_name(load_game("kuhn-100"))  # more than 13 ranks: a cfrlab extension
    with pytest.raises(CfrlabError, match="not an OpenSpiel kuhn_poker policy"):
        import_openspiel(kuhn, lgood)
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(CfrlabError):
        load_openspiel_json(tmp_path / "bad.json", kuhn)
    with pytest.raises(CfrlabError, match="no such file"):
        load_openspiel_json(tmp_path / "missing.json", kuhn)
