"""Strategy values and files, readable situations, and the solve loop (driver)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfrlab import known_values
from cfrlab.engine import build_tree_for, model_for_game
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import save_npz
from cfrlab.games import load_game
from cfrlab.games.situation import parse_situation_cards
from cfrlab.solvers import make_solver
from cfrlab.solvers.driver import (
    Checkpointer,
    Interrupt,
    Interrupted,
    RunState,
    StopRule,
    run_solve,
    split_state,
)
from cfrlab.solvers.lp import solve_lp
from cfrlab.strategy import Strategy


@pytest.fixture(scope="module")
def kuhn():
    g = load_game("kuhn")
    tree, model = build_tree_for(g), model_for_game(g)
    policy, value = solve_lp(tree, model)
    return Strategy.from_policy(g, policy, tree=tree, model=model, algorithm="lp", game_value=value)


@pytest.fixture(scope="module")
def leduc():
    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    solver = make_solver(tree, model, "cfr+")
    solver.iterate(200)
    return Strategy.from_solver(solver, g)


# -- values -------------------------------------------------------------------------------

def test_uniform_exploitability_is_the_published_value():
    assert Strategy.uniform("kuhn").exploitability() == pytest.approx(known_values.KUHN_UNIFORM_EXPLOITABILITY,
                                                                      abs=1e-12)
    assert Strategy.uniform("leduc").exploitability() == pytest.approx(known_values.LEDUC_UNIFORM_EXPLOITABILITY,
                                                                       abs=1e-12)


def test_kuhn_action_probs_match_the_unique_second_player_equilibrium(kuhn):
    # Kuhn (1950): player 2's equilibrium is unique. Deck Q K A plays the roles of J Q K.
    assert kuhn.game_value() == pytest.approx(known_values.KUHN_GAME_VALUE, abs=1e-9)
    assert kuhn.action_probs("Ks", "r") == pytest.approx({"f": 2 / 3, "c": 1 / 3}, abs=1e-6)
    assert kuhn.action_probs("Qs", "c") == pytest.approx({"c": 2 / 3, "r": 1 / 3}, abs=1e-6)
    assert kuhn.action_probs("As", "r") == pytest.approx({"f": 0.0, "c": 1.0}, abs=1e-6)
    assert kuhn.action_probs("Qs", "r")["f"] == pytest.approx(1.0, abs=1e-6)
    # first player: never opens the middle card; bets A with three times its Q frequency
    assert kuhn.action_probs("Ks", "")["r"] == pytest.approx(0.0, abs=1e-6)
    alpha = kuhn.action_probs("Qs", "")["r"]
    assert -1e-9 <= alpha <= 1 / 3 + 1e-9
    assert kuhn.action_probs("As", "")["r"] == pytest.approx(3 * alpha, abs=1e-6)


def test_leduc_situations_in_every_notation_reach_the_same_row(leduc):
    tree, model = leduc.tree, leduc.model
    node = tree.node_of_betting["rc/"]
    d = tree.decision[node]
    row = leduc.row_offset[d] + model.state_of(0, [_card("Ks")], [_card("Kh")], 1)
    want = {a: leduc.policy[row, i] for i, a in enumerate("fcr") if tree.legal[d, i]}
    for cards, betting in [("Ks|/Kh", "rc/"), ("Ks/Kh", "rc"), ("Ks/Kh", "rc/"), ("Ks|Kh", "rc/")]:
        assert leduc.action_probs(cards, betting) == want
    # position 1's view, as the ACPC dealer shows it
    node = tree.node_of_betting["r"]
    row = leduc.row_offset[tree.decision[node]] + model.state_of(1, [_card("Qs")], [], 0)
    assert leduc.action_probs("|Qs", "r", position=1) == pytest.approx(
        dict(zip("fcr", leduc.policy[row])))
    assert sum(leduc.action_probs("Ah", "rr").values()) == pytest.approx(1.0)


@pytest.mark.parametrize("cards, betting, message", [
    ("Ks", "x", "not a betting sequence"),
    ("Ks", "rc/rc", "hand is over"),
    ("Ks", "cf", "not a betting sequence"),
    ("Ks", "rf", "hand is over"),
    ("Ks/Kh", "r", "shows 0 board card"),
    ("Ks", "rc/", "shows 1 board card"),
    ("2c", "", "not in the deck"),
    ("Ks/Ks", "rc/", "appears twice"),
    ("Ks|", "r", "position 1 acts"),
    ("KsKh", "", "holds 1 card"),
    ("Zz", "", "not a card"),
])
def test_bad_situations_are_one_line_errors(leduc, cards, betting, message):
    with pytest.raises(CfrlabError, match=message) as e:
        leduc.action_probs(cards, betting)
    assert "\n" not in str(e.value)


def test_position_mismatch_is_refused(leduc):
    with pytest.raises(CfrlabError, match="player 1 acts"):
        leduc.action_probs("Ks", "r", position=0)


def test_parse_situation_cards_forms():
    g = load_game("leduc")
    ks, kh, qs = _card("Ks"), _card("Kh"), _card("Qs")
    assert parse_situation_cards(g, "Ks|Qs/Kh", 1, 1) == ([qs], [kh])
    assert parse_situation_cards(g, "Ks|Qs/Kh", 0, 1) == ([ks], [kh])
    assert parse_situation_cards(g, "Ks|Kh", 0, 1) == ([ks], [kh])  # describe_state label
    assert parse_situation_cards(g, "Ks|Qs", 1, 0) == ([qs], [])  # round 0: ACPC hole fields


# -- files ----------------------------------------------------------------------------------

def test_save_load_round_trip(leduc, tmp_path):
    path = tmp_path / "leduc.npz"
    leduc.header["exploitability"] = leduc.exploitability()
    leduc.save(path)
    back = Strategy.load(path, game="leduc")
    assert np.array_equal(back.policy, leduc.policy)
    assert back.policy.dtype == np.float64
    h = back.header
    assert h["kind"] == "strategy" and h["format"] == 1 and h["algorithm"] == "cfr+"
    assert h["iterations"] == 200 and h["model_kind"] == "lossless"
    assert h["model_hash"] == leduc.model.hash
    assert load_game("leduc").to_text() == h["game"]
    assert back.exploitability() == pytest.approx(h["exploitability"], abs=1e-15)
    assert back.action_probs("Ks/Kh", "rc") == leduc.action_probs("Ks/Kh", "rc")
    # the file is a plain npz: no pickles
    with np.load(path, allow_pickle=False) as z:
        assert sorted(z.files) == ["__header__", "policy"]


def test_loading_for_another_game_names_both(leduc, tmp_path):
    path = tmp_path / "s.npz"
    leduc.save(path)
    with pytest.raises(FileMismatchError, match=r"strategy for leduc, not for kuhn") as e:
        Strategy.load(path, game="kuhn")
    assert "\n" not in str(e.value)


def test_loading_with_another_model_is_refused(leduc, tmp_path):
    path = tmp_path / "s.npz"
    leduc.save(path)

    class OtherModel:
        kind = "other"
        hash = "0123456789abcdef"
        num_states = leduc.model.num_states
        parent = leduc.model.parent

        def fold_matrix(self, r):
            return leduc.model.fold_matrix(r)

        def showdown_matrix(self):
            return leduc.model.showdown_matrix()

    with pytest.raises(FileMismatchError, match="not in .*0123456789ab"):
        Strategy.load(path, model=OtherModel())


def test_corrupt_and_foreign_files_are_refused(leduc, tmp_path):
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip file at all")
    with pytest.raises(CfrlabError, match="not a readable cfrlab file"):
        Strategy.load(garbage)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, policy=np.zeros((3, 3)))
    with pytest.raises(CfrlabError, match="not a cfrlab file"):
        Strategy.load(foreign)
    pickled = tmp_path / "pickled.npz"  # a pickle is never loaded, whatever it holds
    np.save(pickled.with_suffix(".npy"), np.array([{"kind": "strategy"}], dtype=object), allow_pickle=True)
    pickled.with_suffix(".npy").rename(pickled)
    with pytest.raises(CfrlabError, match="pickled Python objects"):
        Strategy.load(pickled)
    import pickle

    pickled.write_bytes(pickle.dumps({"policy": [1, 2, 3]}))
    with pytest.raises(CfrlabError, match="pickled Python objects"):
        Strategy.load(pickled)
    other_kind = tmp_path / "ckpt.npz"
    save_npz(other_kind, {"kind": "checkpoint"}, {})
    with pytest.raises(CfrlabError, match="expected a strategy file"):
        Strategy.load(other_kind)
    with pytest.raises(CfrlabError, match="no such file"):
        Strategy.load(tmp_path / "missing.npz")
    header = dict(leduc.header)
    newer = tmp_path / "newer.npz"
    save_npz(newer, {**header, "format": 99}, {"policy": leduc.policy})
    with pytest.raises(CfrlabError, match="format 99"):
        Strategy.load(newer)
    short = tmp_path / "short.npz"
    save_npz(short, header, {"policy": leduc.policy[:10]})
    with pytest.raises(CfrlabError, match="10 rows"):
        Strategy.load(short)
    nan = tmp_path / "nan.npz"
    save_npz(nan, header, {"policy": np.full_like(leduc.policy, np.nan)})
    with pytest.raises(CfrlabError, match="non-finite"):
        Strategy.load(nan)
    bad_game = tmp_path / "badgame.npz"
    save_npz(bad_game, {**header, "game": "GAMEDEF\nnonsense\n"}, {"policy": leduc.policy})
    with pytest.raises(CfrlabError, match="corrupt strategy header"):
        Strategy.load(bad_game)


def test_from_policy_checks_the_shape():
    with pytest.raises(CfrlabError, match="shape"):
        Strategy.from_policy(load_game("kuhn"), np.zeros((5, 3)))


# -- the solve loop -------------------------------------------------------------------------

class ChainSolver:
    """A deterministic fake: its state is a hash chain of the iteration numbers, so any
    difference in how iterations were split, saved or restored shows up in ``digest``."""

    def __init__(self):
        self.iterations = 0
        self.digest = np.zeros(4, dtype=np.uint64)
        self.calls: list[int] = []

    def iterate(self, n):
        self.calls.append(n)
        for _ in range(n):
            self.iterations += 1
            self.digest = (self.digest * np.uint64(6364136223846793005) + np.uint64(self.iterations)) \
                % np.uint64(2**61 - 1)

    def average_policy(self):
        return self.digest.astype(np.float64)

    def state_dict(self):
        return {"iterations": self.iterations, "digest": self.digest.copy(), "note": "x"}

    def load_state_dict(self, d):
        self.iterations = int(d["iterations"])
        self.digest = np.asarray(d["digest"], np.uint64).copy()


def _identity(**kw):
    base = {"game": "G", "game_name": "g", "model_hash": "h", "algorithm": "fake", "params": {}, "seed": None}
    base.update(kw)
    return base


def test_chunks_never_cross_eval_or_checkpoint_multiples(tmp_path):
    s = ChainSolver()
    seen = []
    res = run_solve(s, StopRule(iterations=95), lambda: 1.0 / (s.iterations + 1), eval_every=10,
                    checkpoint=Checkpointer(tmp_path / "c.npz", _identity()), checkpoint_every=25,
                    on_tick=lambda t: seen.append(t.iterations))
    assert res.iterations == 95 and res.stopped_by == "iterations"
    evals = [h[0] for h in res.state.history]
    assert evals == [10, 20, 30, 40, 50, 60, 70, 80, 90, 95]
    boundaries = set(range(10, 95, 10)) | {25, 50, 75}
    assert boundaries <= set(seen)
    assert res.exploitability == pytest.approx(1 / 96)


def test_target_stops_at_the_first_measured_iteration_below_it():
    s = ChainSolver()
    res = run_solve(s, StopRule(target=0.02), lambda: 1.0 / s.iterations, eval_every=7)
    assert res.stopped_by == "target" and res.iterations == 56  # first multiple of 7 above 50
    with pytest.raises(CfrlabError, match="eval"):
        run_solve(ChainSolver(), StopRule(target=0.1), lambda: 0.0, eval_every=None)


def test_seconds_budget_stops():
    s = ChainSolver()
    res = run_solve(s, StopRule(seconds=0.05), lambda: 1.0, eval_every=None)
    assert res.stopped_by == "seconds" and res.state.solver_seconds >= 0.05


def test_stop_rule_validation():
    with pytest.raises(CfrlabError, match="say when to stop"):
        StopRule()
    for kw in ({"iterations": 0}, {"seconds": -1.0}, {"target": 0.0}):
        with pytest.raises(CfrlabError):
            StopRule(**kw)


def test_resume_from_a_checkpoint_equals_an_uninterrupted_run(tmp_path):
    ref = ChainSolver()
    ref.iterate(300)
    first = ChainSolver()
    ck = Checkpointer(tmp_path / "c.npz", _identity())
    run_solve(first, StopRule(iterations=130), lambda: 0.5, eval_every=20, checkpoint=ck, checkpoint_every=40)
    second = ChainSolver()
    run = Checkpointer(tmp_path / "c.npz", _identity()).load(second)
    assert second.iterations == 130 and run.resumed_from == 130
    assert [h[0] for h in run.history] == [20, 40, 60, 80, 100, 120, 130]
    res = run_solve(second, StopRule(iterations=300), lambda: 0.5, eval_every=20, checkpoint=ck,
                    checkpoint_every=40, run=run)
    assert np.array_equal(second.digest, ref.digest)
    assert [h[0] for h in res.state.history][:7] == [20, 40, 60, 80, 100, 120, 130]


def test_checkpoint_identity_mismatch_is_refused(tmp_path):
    s = ChainSolver()
    s.iterate(3)
    Checkpointer(tmp_path / "c.npz", _identity()).save(s, RunState())
    for kw, word in [({"game": "H", "game_name": "other"}, "checkpoint for g"), ({"model_hash": "zz"}, "model"),
                     ({"algorithm": "cfr"}, "algorithm"), ({"seed": 4}, "seed"), ({"params": {"a": 1}}, "params")]:
        with pytest.raises(FileMismatchError, match=word):
            Checkpointer(tmp_path / "c.npz", _identity(**kw)).load(ChainSolver())


def test_interrupt_flag_saves_a_checkpoint_then_raises(tmp_path):
    s = ChainSolver()
    intr = Interrupt()
    ck = Checkpointer(tmp_path / "c.npz", _identity())

    def tick(t):
        if t.iterations >= 17:
            intr.requested = True

    with pytest.raises(Interrupted) as e:
        run_solve(s, StopRule(iterations=1000), lambda: 0.0, eval_every=None, checkpoint=ck,
                  checkpoint_every=100, on_tick=tick, interrupt=intr)
    assert e.value.checkpoint == ck.path
    back = ChainSolver()
    ck.load(back)
    assert back.iterations == e.value.iterations == s.iterations
    assert np.array_equal(back.digest, s.digest)


def test_split_state_separates_arrays_and_json():
    arrays, scalars = split_state({"a": np.zeros(2), "n": np.int64(3), "s": "x", "f": 1.5})
    assert list(arrays) == ["a"]
    assert json.loads(json.dumps(scalars)) == {"n": 3, "s": "x", "f": 1.5}


@pytest.mark.parametrize("algorithm, seed", [("cfr+", None), ("dcfr", None), ("es", 7), ("pcs", 3)])
def test_real_solvers_resume_bit_for_bit(tmp_path, algorithm, seed):
    g = load_game("leduc")
    tree, model = build_tree_for(g), model_for_game(g)
    n = 400 if algorithm in ("es", "pcs") else 120
    ref = make_solver(tree, model, algorithm, seed=seed)
    ref.iterate(n)
    ident = _identity(algorithm=algorithm, seed=seed)
    first = make_solver(tree, model, algorithm, seed=seed)
    ck = Checkpointer(tmp_path / "c.npz", ident)
    run_solve(first, StopRule(iterations=n // 3 + 1), lambda: 0.0, eval_every=None, checkpoint=ck,
              checkpoint_every=n // 4)
    second = make_solver(tree, model, algorithm, seed=seed)
    run = ck.load(second)
    run_solve(second, StopRule(iterations=n), lambda: 0.0, eval_every=None, run=run)
    assert second.iterations == n
    assert np.array_equal(second.average_policy(), ref.average_policy())


def _card(text):
    from cfrlab.cards import parse_card

    return parse_card(text)
