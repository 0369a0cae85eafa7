"""The Python API (cfrlab.solve, exploit, best_response, make_agent, play_match) against
known values and the engine it wraps."""

import subprocess
import sys

import numpy as np
import pytest

import cfrlab
from cfrlab.known_values import KUHN_GAME_VALUE, LEDUC_GAME_VALUE


def test_solve_kuhn_reaches_the_game_value():
    r = cfrlab.solve("kuhn", "cfr+", iterations=2000)
    assert r.unit == "chips/g" and r.iterations == 2000 and r.stopped_by == "iterations"
    assert abs(r.game_value - KUHN_GAME_VALUE) < 1e-3
    assert r.exploitability < 1e-3
    assert r.curve[-1][0] == 2000 and r.curve[-1][2] == pytest.approx(r.exploitability)
    h = r.strategy.header
    assert h["algorithm"] == "cfr+" and h["params"]["regret_floor"] is True
    assert h["iterations"] == 2000 and h["seconds"] > 0 and h["exploitability"] is not None
    assert h["game_value"] == pytest.approx(r.game_value) and h["cfrlab_version"] == cfrlab.__version__


def test_solve_to_a_target_and_exploit_agree():
    r = cfrlab.solve("leduc", "dcfr", target=1e-3)
    assert r.stopped_by == "target" and r.exploitability <= 1e-3
    br = cfrlab.exploit(r.strategy)
    assert br.exploitability == pytest.approx(r.exploitability, abs=1e-12)
    assert br.exploitability == pytest.approx(sum(br.values) / 2)
    assert abs(r.game_value - LEDUC_GAME_VALUE) < 5e-3


def test_lp_is_exact_and_exploit_takes_files(tmp_path):
    r = cfrlab.solve("kuhn", "lp")
    assert r.game_value == pytest.approx(KUHN_GAME_VALUE, abs=1e-9)
    assert r.exploitability < 1e-9
    path = tmp_path / "kuhn.npz"
    r.strategy.save(path)
    assert cfrlab.exploit(path).exploitability < 1e-9


def test_uniform_kuhn_and_the_best_response_strategy():
    uniform = cfrlab.Strategy.uniform("kuhn")
    assert cfrlab.exploit(uniform).exploitability == pytest.approx(11 / 24)
    value, br = cfrlab.best_response(uniform, 0)
    assert value == pytest.approx(cfrlab.exploit(uniform).values[0])
    rows = br.policy[br.tree.player[br.tree.decision_node][np.repeat(
        np.arange(br.tree.num_decisions), np.diff(br.row_offset))] == 0]
    assert set(np.unique(rows)) <= {0.0, 1.0}  # the responder's rows are pure


def test_a_game_from_its_text():
    text = cfrlab.load_game("kuhn").to_text()
    assert cfrlab.load_game(text).to_text() == text
    r = cfrlab.solve(text, "cfr+", iterations=500)
    assert abs(r.game_value - KUHN_GAME_VALUE) < 5e-3


@pytest.mark.parametrize("call, message", [
    (lambda: cfrlab.solve("kuhn", "cfr++", iterations=10), "unknown algorithm"),
    (lambda: cfrlab.solve("kuhn", "cfr+"), "say when to stop"),
    (lambda: cfrlab.solve("kuhn", "dcfr", iterations=10, alpha="2"), "alpha"),
    (lambda: cfrlab.solve("kuhn", "cfr+", iterations=10, eval_every=0), "eval_every"),
    (lambda: cfrlab.solve("nonesuch", "cfr+", iterations=10), "unknown game"),
    (lambda: cfrlab.make_agent("always-call"), "needs the game"),
])
def test_bad_input_is_one_cfrlab_error(call, message):
    with pytest.raises(cfrlab.CfrlabError, match=message) as e:
        call()
    assert "\n" not in str(e.value)


def test_a_strategy_plays_without_a_file():
    r = cfrlab.solve("kuhn", "cfr+", iterations=1000)
    res = cfrlab.play_match("kuhn", r.strategy, "always-call", 20_000, seed=3, duplicate=True, exact=True)
    assert res.exact_chips is not None
    assert res.overall().mean == pytest.approx(res.exact_chips, abs=4 * res.overall().ci95)
    with pytest.raises(cfrlab.CfrlabError, match="not for"):
        cfrlab.make_agent(r.strategy, "leduc")


def test_import_is_light():
    """``import cfrlab`` loads neither the engine nor the hand evaluator."""
    code = ("import sys, cfrlab; print(any(m.startswith(('cfrlab.engine', 'cfrlab.cards._eval'))"
            " for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_docstring_examples_run():
    import doctest

    import cfrlab.agents.matches
    import cfrlab.api
    import cfrlab.realgame.brstrategy
    import cfrlab.strategy

    for module, least in ((cfrlab.api, 6), (cfrlab.agents.matches, 4), (cfrlab.strategy, 2),
                          (cfrlab.realgame.brstrategy, 5)):
        failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert tried >= least and failures == 0, module.__name__


def test_sizes_count_information_sets():
    assert cfrlab.sizes("kuhn")["information_sets"] == 12
    leduc = cfrlab.sizes("leduc")
    assert leduc["information_sets"] == 936 and leduc["decision_nodes"] == 36
    assert leduc["private_states"] == [6, 30] and leduc["memory_bytes"] > 936 * 3 * 8


def test_a_checkpointed_solve_resumes_to_the_same_strategy(tmp_path):
    """Stopped at 30 and resumed to 60 iterations = 60 straight, bit for bit (cfr+ and es)."""
    for alg, seed in (("cfr+", None), ("es", 7)):
        ckpt = tmp_path / f"{alg}.ckpt.npz"
        first = cfrlab.solve("leduc", alg, iterations=30, seed=seed, checkpoint=ckpt, checkpoint_every=10)
        assert ckpt.exists() and first.resumed_from is None
        plans = []
        resumed = cfrlab.solve("leduc", alg, iterations=60, seed=seed, checkpoint=ckpt, on_start=plans.append)
        straight = cfrlab.solve("leduc", alg, iterations=60, seed=seed)
        assert plans[0].resumed_from == 30 and resumed.resumed_from == 30 and resumed.iterations == 60
        assert np.array_equal(resumed.strategy.policy, straight.strategy.policy)
    with pytest.raises(cfrlab.CfrlabError, match="was made with algorithm 'es'"):
        cfrlab.solve("leduc", "os", iterations=40, seed=7, checkpoint=tmp_path / "es.ckpt.npz")


def test_infosets_are_the_rows_with_readable_keys():
    s = cfrlab.solve("leduc", "cfr+", iterations=50).strategy
    sets = list(s.infosets())
    assert len(sets) == cfrlab.sizes("leduc")["information_sets"] == 936
    assert len({(i.betting, i.cards) for i in sets}) == 936  # readable keys are unique
    for i in sets[::37]:
        assert i.probs == pytest.approx(s.action_probs(i.cards, i.betting, position=i.player))
        assert set(i.probs) <= {"f", "c", "r"} and sum(i.probs.values()) == pytest.approx(1.0)
        assert i.player == int(s.tree.player[i.node])
    root = [i for i in sets if i.betting == ""]
    assert len(root) == 6 and all(i.player == 0 and set(i.probs) == {"c", "r"} for i in root)


def test_to_dataframe_or_a_clear_error():
    s = cfrlab.Strategy.uniform("kuhn")
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(cfrlab.CfrlabError, match="needs pandas"):
            s.to_dataframe()
        return
    df = s.to_dataframe()
    assert list(df.columns) == ["player", "round", "betting", "cards", "f", "c", "r"] and len(df) == 12


def test_save_needs_overwrite_and_from_solver_records_the_run(tmp_path):
    from cfrlab.engine import build_tree_for, model_for_game
    from cfrlab.solvers import make_solver

    g = cfrlab.load_game("kuhn")
    solver = make_solver(build_tree_for(g), model_for_game(g), "dcfr", alpha=2.0)
    solver.iterate(200)
    s = cfrlab.Strategy.from_solver(solver)
    h = s.header
    assert h["algorithm"] == "dcfr" and h["params"]["alpha"] == 2.0 and h["iterations"] == 200
    assert h["seconds"] > 0 and h["cfrlab_version"] == cfrlab.__version__
    assert h["exploitability"] == pytest.approx(cfrlab.exploit(s).exploitability, abs=1e-15)
    assert abs(h["game_value"] - KUHN_GAME_VALUE) < 1e-2
    path = tmp_path / "k.npz"
    s.save(path)
    with pytest.raises(cfrlab.CfrlabError, match="exists; pass overwrite=True"):
        s.save(path)
    s.save(path, overwrite=True)
    assert cfrlab.Strategy.load(path).header["params"]["alpha"] == 2.0


def test_exact_says_why_not():
    from cfrlab.games.agent import Agent

    class Caller(Agent):  # a Python agent: no policy table, so no exact value
        name = "caller"

        def act(self, state):
            return "c"

    res = cfrlab.play_match("kuhn", Caller(), "always-raise", 200, seed=1, exact=True)
    assert res.exact_chips is None and "Python agent" in res.exact_reason
    assert "Python agent" in res.summary()["exact_unavailable"]


def _cli_error(capsys, *argv) -> str:
    from cli_run import run

    code, _, err = run(capsys, *argv)
    assert code != 0 and err.startswith("cfrlab: error: ") and err.count("\n") == 1, err
    return err.removeprefix("cfrlab: error: ").strip()


def test_python_errors_are_the_cli_lines(capsys, tmp_path):
    """The same bad input gives the CLI's line as the exception's message, and a subclass
    that says what kind of problem it is."""
    kuhn = tmp_path / "kuhn.npz"
    cfrlab.solve("kuhn", "cfr+", iterations=10).strategy.save(kuhn)
    bad_game = tmp_path / "bad.game"
    bad_game.write_text("GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 1\nEND GAMEDEF\n")
    cases = [
        (lambda: cfrlab.solve("nonesuch", "cfr+", iterations=1), ("solve", "nonesuch", "-a", "cfr+", "-n", "1"),
         cfrlab.CfrlabError),
        (lambda: cfrlab.solve(bad_game, "cfr+", iterations=1), ("solve", str(bad_game), "-a", "cfr+", "-n", "1"),
         cfrlab.errors.ParseError),
        (lambda: cfrlab.exploit(tmp_path / "missing.npz"), ("exploit", str(tmp_path / "missing.npz")),
         cfrlab.CfrlabError),
    ]
    for call, argv, kind in cases:
        with pytest.raises(kind) as e:
            call()
        assert _cli_error(capsys, *argv) == str(e.value)
    with pytest.raises(cfrlab.errors.FileMismatchError) as e:
        cfrlab.make_agent(str(kuhn), "leduc")
    assert _cli_error(capsys, "match", "leduc", str(kuhn), "always-call", "-n", "10") == str(e.value)
