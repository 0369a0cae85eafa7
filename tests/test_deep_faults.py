"""Faults of cfrlab deep (issue 43): weights files holding numbers no training writes (NaN,
infinities, 1e300, negative network weights, widths beyond bounds) are refused in one line by
``deep tabulate`` and the ``deep:`` agent instead of becoming a strategy. The weights tests
build their networks with numpy: they run without the JAX extra. Kuhn, tiny networks: seconds."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from tests.cli_run import run
from tests.game_texts import limit_text

import cfrlab
from cfrlab.deep import DeepNets, load_nets
from cfrlab.deep.features import info_features
from cfrlab.deep.network import MAX_PARAM
from cfrlab.deep.play import fits_table
from cfrlab.engine import model_for_game, tree_for
from cfrlab.errors import CfrlabError
from cfrlab.fileio import load_npz, save_npz
from cfrlab.games import load_game
from cfrlab.strategy import Strategy


def _kuhn_sdcfr(path, hidden=8, seed=0) -> DeepNets:
    """Two iterations of SD-CFR-shaped networks for Kuhn, random but sane (numpy only)."""
    g = load_game("kuhn")
    tree, model = tree_for(g), model_for_game(g)
    layers = (info_features(tree, model).shape[1], hidden, tree.num_actions)
    rng = np.random.default_rng(seed)

    def net():
        return [(rng.normal(size=(a, b)).astype(np.float32), rng.normal(size=b).astype(np.float32) * 0.1)
                for a, b in itertools.pairwise(layers)]

    nets = DeepNets(g, "sdcfr", layers, {"adv0": [net(), net()], "adv1": [net(), net()]},
                    {"adv0": [1.0, 2.0], "adv1": [1.0, 2.0]}, {"iterations": 2, "traversals": 10, "seed": seed})
    nets.save(path)
    return nets


@pytest.fixture
def weights(tmp_path):
    path = tmp_path / "w.npz"
    _kuhn_sdcfr(path)
    return path


def _damage(path, array: str | None = None, value=None, header: dict | None = None):
    h, a = load_npz(path)
    if array is not None:
        x = a[array].copy()
        x.flat[0] = value
        a[array] = x
    save_npz(path, {**h, **(header or {})}, a)


BAD_ARRAYS = [
    ("adv0_w0", np.nan, "adv0 layer 0 weights hold NaN or infinite"),
    ("adv1_w1", np.inf, "adv1 layer 1 weights hold NaN or infinite"),
    ("adv0_b1", -np.inf, "adv0 layer 1 biases hold NaN or infinite"),
    ("adv0_w1", 1e30, "adv0 layer 1 weights reach 1e\\+30"),  # finite in float32, beyond any training
    ("adv0_weight", np.nan, "adv0 network weights must be finite numbers from 0"),
    ("adv0_weight", np.inf, "adv0 network weights must be finite numbers from 0"),
    ("adv1_weight", 1e300, "adv1 network weights must be finite numbers from 0 .* got 1e\\+300"),
    ("adv0_weight", -1.0, "adv0 network weights must be finite numbers from 0 .* got -1"),
]


@pytest.mark.parametrize(("array", "value", "message"), BAD_ARRAYS)
def test_weights_holding_numbers_no_training_writes_are_refused_in_one_line(weights, capsys, array, value, message):
    _damage(weights, array, value)
    with pytest.raises(CfrlabError, match=message):
        load_nets(weights)
    with pytest.raises(CfrlabError, match=message):
        cfrlab.make_agent(f"deep:{weights}", "kuhn")
    out_file = weights.with_name("s.npz")
    code, out, err = run(capsys, "deep", "tabulate", str(weights), "-o", str(out_file))
    lines = [x for x in (out + err).splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("cfrlab: error: ") and "corrupt deep weights" in lines[0]
    assert not out_file.exists()  # no strategy written from them


def test_network_weights_all_zero_are_refused(weights):
    h, a = load_npz(weights)
    a["adv0_weight"] = np.zeros(2)
    save_npz(weights, h, a)
    with pytest.raises(CfrlabError, match="adv0 network weights are all 0"):
        load_nets(weights)


@pytest.mark.parametrize(("header", "message"), [
    ({"iterations": "many"}, "iterations is many, expected a whole number"),
    ({"iterations": -3}, "iterations is -3"),
    ({"seconds": float("nan")}, "seconds is nan"),
    ({"traversals": 0}, "traversals is 0"),
    ({"layers": [27, 0, 3]}, "corrupt deep weights header"),
    ({"layers": [27, 10**9, 3]}, "a width is a whole number from 1 to 1,048,576"),
    ({"layers": [27, *[8] * 100, 3]}, "give 1 to 64 hidden layers"),
])
def test_a_header_no_training_writes_is_refused(weights, capsys, header, message):
    _damage(weights, header=header)
    with pytest.raises(CfrlabError, match=message):
        load_nets(weights)
    code, out, err = run(capsys, "deep", "tabulate", str(weights))
    assert code == 2 and len((out + err).strip().splitlines()) == 1, out + err


def test_widths_of_another_game_are_refused_without_naming_the_game(weights):
    """The layers are checked against the file's own game even when no game is asked for."""
    h, a = load_npz(weights)
    a = {k: (v[:, :5] if k.endswith("_w0") else v) for k, v in a.items()}
    save_npz(weights, {**h, "layers": [5, *h["layers"][1:]]}, a)
    with pytest.raises(CfrlabError, match=r"take 5 features .* this game has \d+ features"):
        load_nets(weights)


def test_sane_weights_still_tabulate_to_their_exact_exploitability(weights, tmp_path, capsys):
    """The bounds leave real networks alone: the tabulated policy is the file's, and the
    exploitability printed is the one measured on the strategy written."""
    out_file = tmp_path / "s.npz"
    code, out, err = run(capsys, "deep", "tabulate", str(weights), "-o", str(out_file), "--json")
    assert code == 0, err
    printed = json.loads(out.strip().splitlines()[-1])["exploitability"]
    assert printed == pytest.approx(cfrlab.exploit(Strategy.load(out_file, "kuhn")).exploitability, abs=1e-12)


def test_outputs_that_overflow_are_refused_not_tabulated(tmp_path):
    """Parameters within bounds whose product overflows float64 (a deep stack of 1e6 weights)
    cannot give probabilities: one line, no NaN table."""
    g = load_game("kuhn")
    tree, model = tree_for(g), model_for_game(g)
    F, A, H = info_features(tree, model).shape[1], tree.num_actions, 4
    layers = (F, *[H] * 60, A)
    net = [(np.full((a, b), MAX_PARAM, np.float32), np.zeros(b, np.float32)) for a, b in itertools.pairwise(layers)]
    path = tmp_path / "w.npz"
    DeepNets(g, "deepcfr", layers, {"avg": [net]}, {"avg": [1.0]}).save(path)
    with pytest.raises(CfrlabError, match="outputs overflow"):
        load_nets(path).table()


# -- checkpoints of runs too large to tabulate (JAX needed: the trainer is built) -------------

CKPT_ARGS = ["--method", "sdcfr", "-k", "10", "--hidden", "8,8", "--adv-steps", "5", "--avg-steps", "5",
             "--batch", "32", "--buffer", "500", "-s", "4"]


# a full deck and a 5-card board (too large to tabulate) on a 37-node tree: built at once
BIG_DECK = limit_text(ranks=13, suits=4, hole=2, boards="0 5", max_raises="1 1")


@pytest.fixture(scope="module")
def big_deck(tmp_path_factory):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    path = tmp_path_factory.mktemp("game") / "big.game"
    path.write_text(BIG_DECK)
    assert not fits_table(load_game(path))
    return path


def _ckpt_trainer(game):
    """An SD-CFR trainer with the parameters CKPT_ARGS give on the CLI."""
    from cfrlab.deep import DeepParams, SampledTrainer

    params = DeepParams(hidden=(8, 8), adv_steps=5, adv_batch=32, avg_steps=5, avg_batch=1024, buffer=500)
    return SampledTrainer(game, "sdcfr", 10, seed=4, params=params)


@pytest.fixture(scope="module")
def checkpoint(big_deck):
    """A checkpoint after one iteration, its buffers and networks filled as a run fills them
    (decision nodes of the tree, dealt cards, targets, weight 1), without training (seconds)."""
    tr = _ckpt_trainer(big_deck)
    rng = np.random.default_rng(0)
    for buf in tr.adv:
        n = 40
        buf.dec[:n] = rng.integers(0, len(tr.heads), n)
        cards, _ = tr.deals(n)
        buf.cards[:n] = cards[:, :tr.h + tr.B]
        buf.target[:n] = rng.normal(size=(n, buf.target.shape[1]))
        buf.weight[:n] = 1.0
        buf.seen[0] = n
    nets = [[(rng.normal(size=(a, b)).astype(np.float32), np.zeros(b, np.float32))
             for a, b in itertools.pairwise(tr.layers)] for _ in range(2)]
    tr.latest = nets
    tr.history = {"adv0": [nets[0]], "adv1": [nets[1]]}
    tr.iterations, tr.seconds, tr.cpu_seconds = 1, 1.0, 1.0
    path = big_deck.with_name("run.ckpt.npz")
    tr.save_checkpoint(path)
    return path


def test_a_sane_checkpoint_resumes(checkpoint, big_deck):
    tr = _ckpt_trainer(big_deck)
    tr.load_checkpoint(checkpoint)
    assert tr.iterations == 1 and len(tr.adv[0]) == 40 and len(tr.history["adv1"]) == 1


@pytest.mark.parametrize(("array", "value", "message"), [
    ("adv0_target", np.nan, "adv0 buffer: targets hold NaN or infinite"),
    ("adv1_target", np.inf, "adv1 buffer: targets hold NaN or infinite"),
    ("adv0_weight", -1.0, "adv0 buffer: sample weights outside 1 to 1"),
    ("adv0_weight", np.inf, "adv0 buffer: sample weights outside"),
    ("adv1_weight", 7.0, "adv1 buffer: sample weights outside 1 to 1 \\(the iterations done\\)"),
    ("adv0_seen", -5, "adv0 buffer has seen -5 samples"),
    ("adv0_dec", -1, "adv0 buffer: decision nodes outside"),
    ("adv0_dec", 10**6, "adv0 buffer: decision nodes outside"),
    ("adv1_cards", 60, "adv1 buffer: cards that are not in the deck"),
    ("adv0_0_w1", np.nan, "adv0 network 1 layer 1 weights hold NaN"),
    ("latest1_0_b0", 1e30, "latest1 network 1 layer 0 biases reach"),
])
def test_a_checkpoint_holding_what_no_run_writes_is_refused(checkpoint, big_deck, tmp_path, capsys, array, value,
                                                           message):
    path = tmp_path / "run.ckpt.npz"
    path.write_bytes(checkpoint.read_bytes())
    _damage(path, array, value)
    with pytest.raises(CfrlabError, match=message):
        _ckpt_trainer(big_deck).load_checkpoint(path)
    out = tmp_path / "w.npz"
    code, text, err = run(capsys, "deep", "train", str(big_deck), "-n", "2", *CKPT_ARGS,
                          "--checkpoint", str(path), "-o", str(out))
    lines = [x for x in err.splitlines() if x.startswith("cfrlab: error")]
    assert code == 2 and len(lines) == 1 and "corrupt checkpoint" in lines[0], text + err
    assert not out.exists()


@pytest.mark.parametrize(("header", "message"), [
    ({"iterations": -1}, "iterations is -1"),
    ({"iterations": 3}, "nets .* after 3 iterations of sdcfr"),
    ({"seconds": float("inf")}, "seconds is inf"),
    ({"cpu_seconds": -2.0}, "cpu_seconds is -2.0"),
    ({"deal_rng": {"bit_generator": "PCG64", "state": "x"}}, "deal_rng"),
])
def test_a_checkpoint_header_no_run_writes_is_refused(checkpoint, big_deck, tmp_path, header, message):
    path = tmp_path / "run.ckpt.npz"
    path.write_bytes(checkpoint.read_bytes())
    _damage(path, header=header)
    with pytest.raises(CfrlabError, match=message):
        _ckpt_trainer(big_deck).load_checkpoint(path)


# -- learning rates ----------------------------------------------------------------------------

@pytest.mark.parametrize("lr", ["inf", "nan", "-1", "0", "-inf"])
def test_a_learning_rate_that_is_not_a_finite_positive_number_is_refused(lr, tmp_path, capsys):
    pytest.importorskip("jax")
    out = tmp_path / "w.npz"
    code, _, err = run(capsys, "deep", "train", "kuhn", "-n", "1", "-k", "5", "--hidden", "4",
                          "--adv-steps", "2", f"--lr={lr}", "-o", str(out))
    assert code == 2 and err.strip().splitlines() == [f"cfrlab: error: --lr must be a finite number above 0, got {float(lr)}"]
    assert not out.exists()
    from cfrlab.deep import DeepParams, train

    with pytest.raises(CfrlabError, match="learning rate must be a finite number above 0"):
        train("kuhn", "sdcfr", 1, 5, seed=0, params=DeepParams(hidden=(4,), adv_steps=2, learning_rate=float(lr)))


def test_a_run_whose_networks_diverge_stops_in_one_line_and_writes_nothing(tmp_path, capsys):
    """A finite but absurd learning rate throws the parameters far past anything a converging
    run reaches: refused after the first network, not saved as a strategy."""
    pytest.importorskip("jax")
    out, strategy = tmp_path / "w.npz", tmp_path / "s.npz"
    code, text, err = run(capsys, "deep", "train", "kuhn", "-n", "2", "-k", "20", "--hidden", "8", "--adv-steps", "20",
                          "--buffer", "5000", "--lr", "1e9", "-s", "1", "-o", str(out), "--strategy-out", str(strategy))
    lines = [x for x in err.splitlines() if x.startswith("cfrlab: error")]
    assert code == 2 and len(lines) == 1, text + err
    assert "training diverged: player 0's advantage network at iteration 1" in lines[0]
    assert not out.exists() and not strategy.exists()


# -- Ctrl-C and progress -------------------------------------------------------------------------

TINY_ARGS = ["-k", "20", "--hidden", "4", "--adv-steps", "10", "--buffer", "2000", "-s", "3"]


def _interrupt_at_first_measurement(monkeypatch):
    """Send this process SIGINT when the run first measures its exploitability (after
    iteration 1), as a Ctrl-C in the middle of a run does."""
    import os
    import signal

    from cfrlab.deep.training import Trainer

    measure = Trainer.exploitability

    def measured_then_interrupted(self):
        e = measure(self)
        os.kill(os.getpid(), signal.SIGINT)
        return e

    monkeypatch.setattr(Trainer, "exploitability", measured_then_interrupted)


def test_ctrl_c_stops_train_cleanly_between_phases(monkeypatch):
    """The first SIGINT sets a flag the run checks between phases: ``Interrupted`` names the
    iterations done (no KeyboardInterrupt thrown into JAX or numba), and Ctrl-C is the
    default again afterwards."""
    pytest.importorskip("jax")
    import signal

    from cfrlab.deep import DeepParams, train
    from cfrlab.solvers.driver import Interrupted

    _interrupt_at_first_measurement(monkeypatch)
    # a background shell job starts with SIGINT ignored, and Python then keeps it ignored
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises((Interrupted, KeyboardInterrupt)) as e:
            train("kuhn", "sdcfr", iterations=3, traversals=20, seed=3, eval_every=1,
                  params=DeepParams(hidden=(4,), adv_steps=10, buffer=2000))
        assert e.type is Interrupted and e.value.iterations == 1 and e.value.checkpoint is None
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, old)


def test_ctrl_c_in_the_cli_is_one_line_and_code_130(monkeypatch, tmp_path, capsys):
    pytest.importorskip("jax")
    _interrupt_at_first_measurement(monkeypatch)
    out = tmp_path / "w.npz"
    code, _, err = run(capsys, "deep", "train", "kuhn", "-n", "3", "--eval-every", "1", *TINY_ARGS, "-o", str(out),
                       "--no-progress")
    assert code == 130
    assert err.strip().splitlines() == ["cfrlab: interrupted after 1 iteration; nothing saved"]
    assert not out.exists()


def test_ctrl_c_of_a_checkpointed_run_names_the_checkpoint_and_the_run_resumes(big_deck, tmp_path, capsys, monkeypatch):
    """Too large to tabulate: the checkpoint holds the whole iterations done when Ctrl-C came
    (in iteration 2 here), and the same command continues from it."""
    import os
    import signal

    from cfrlab.deep import sampled

    ckpt = tmp_path / "run.ckpt.npz"
    save = sampled.SampledTrainer.save_checkpoint

    def saved_then_interrupted(self, path):
        save(self, path)
        if self.iterations == 1:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(sampled.SampledTrainer, "save_checkpoint", saved_then_interrupted)
    args = ["deep", "train", str(big_deck), "-n", "2", *CKPT_ARGS, "--checkpoint", str(ckpt), "--no-progress"]
    code, _, err = run(capsys, *args)
    assert code == 130, err
    assert err.strip().splitlines() == [(f"cfrlab: interrupted after 1 iteration; the checkpoint {ckpt} holds them: "
                                        "run the same command to continue")]
    assert load_npz(ckpt)[0]["iterations"] == 1
    monkeypatch.setattr(sampled.SampledTrainer, "save_checkpoint", save)
    code, _text, err = run(capsys, *args)
    assert code == 0, err
    assert load_npz(ckpt)[0]["iterations"] == 2


def test_progress_says_what_the_run_does_from_the_start(capsys):
    """stderr (not a terminal here) hears each phase of the first iteration as it starts,
    the compiles and the losses; --no-progress keeps it quiet."""
    pytest.importorskip("jax")
    code, _, err = run(capsys, "deep", "train", "kuhn", "-n", "2", *TINY_ARGS)
    assert code == 0, err
    lines = err.splitlines()
    assert "building the tree" in lines[0]
    assert any("iteration 1: 20 traversals for player 0" in x for x in lines)
    assert any("iteration 1: training player 1's network (10 steps on" in x for x in lines)
    assert any("player 0's network trained  loss p0 " in x for x in lines)
    assert all(x.startswith("[") for x in lines)  # progress lines only: no error, no traceback
    code, _out, err = run(capsys, "deep", "train", "kuhn", "-n", "2", *TINY_ARGS, "--no-progress")
    assert code == 0 and err == ""


def test_progress_lines_are_throttled_after_the_first_iteration():
    from cfrlab.cli.deep_cmd import TrainProgress

    now = [0.0]
    lines: list[str] = []

    class Out:
        def write(self, s):
            lines.extend(x for x in s.splitlines() if x)

        def flush(self):
            pass

    view = TrainProgress(load_game("kuhn"), "sdcfr", 10, interactive=False, clock=lambda: now[0], out=Out())
    view.status({"phase": "setup", "done": 0})
    view.status({"phase": "traversals", "done": 0, "iteration": 1, "player": 0, "traversals": 5})
    assert len(lines) == 2  # the first iteration: every phase
    now[0] = 1.0
    view.status({"phase": "traversals", "done": 1, "iteration": 2, "player": 0, "traversals": 5})
    assert len(lines) == 2  # later ones: not within 2 s of the last line...
    view.status({"phase": "training", "done": 1, "iteration": 2, "player": 0, "samples": 9, "steps": 3,
                 "compiling": True})
    assert len(lines) == 3 and "JAX compiles it first" in lines[-1]  # ...unless JAX compiles
    now[0] = 3.5
    view.status({"phase": "trained", "done": 1, "iteration": 2, "player": 0, "loss": 0.25})
    assert len(lines) == 4 and lines[-1].endswith("loss p0 0.25")


# -- sizes bounded before any work ---------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["--hidden", "100000000"], "--hidden: a width is a whole number from 1 to 1,048,576, got 100,000,000"),
    (["--hidden", ",".join(["4"] * 65)], "--hidden: give 1 to 64 hidden layers, got 65"),
    (["--batch", "100000000"], "--batch 100,000,000 is above the 16,777,216 rows a minibatch may have"),
    (["--buffer", "3000000000"], "--buffer 3,000,000,000 is above the 2,147,483,647 items a reservoir may hold"),
])
def test_sizes_past_the_hard_bounds_are_refused_before_any_work(args, message, tmp_path, capsys):
    """These never reach XLA (where --hidden 100000000 aborted with a native stack dump), and
    --force does not lift them."""
    pytest.importorskip("jax")
    code, out, err = run(capsys, "deep", "train", "kuhn", "-n", "1", *args, "--force", "-o", str(tmp_path / "w.npz"))
    assert code == 2 and out == "" and err.strip().splitlines() == [f"cfrlab: error: {message}"]


def test_a_run_whose_memory_estimate_is_above_what_is_available_needs_force(monkeypatch, tmp_path, capsys):
    pytest.importorskip("jax")
    from cfrlab.cli import deep_cmd

    monkeypatch.setattr(deep_cmd, "available_memory", lambda: 1000)
    out = tmp_path / "w.npz"
    code, text, err = run(capsys, "deep", "train", "kuhn", "-n", "1", *TINY_ARGS, "-o", str(out), "--no-progress")
    assert code == 2 and text == "" and len(err.strip().splitlines()) == 1
    assert "this run needs about" in err and "1000 bytes is available" in err and "--force trains anyway" in err
    code, text, err = run(capsys, "deep", "train", "kuhn", "-n", "1", *TINY_ARGS, "-o", str(out), "--no-progress",
                          "--force")
    assert code == 0 and out.exists(), err


def test_the_memory_estimate_counts_the_networks_the_run_keeps(tmp_path):
    """Its parameter count is a real network's (one built for Kuhn), and SD-CFR's kept networks
    grow with the iterations: 2 networks of P float32 per iteration, twice while saved."""
    from cfrlab.deep import DeepParams
    from cfrlab.deep.sizes import train_memory

    nets = _kuhn_sdcfr(tmp_path / "w.npz", hidden=8)
    real = sum(w.size + b.size for w, b in nets.nets["adv0"][0])
    g = load_game("kuhn")
    a = train_memory(g, "sdcfr", 10, 100, DeepParams(hidden=(8,)))
    b = train_memory(g, "sdcfr", 20, 100, DeepParams(hidden=(8,)))
    assert a["parameters"] == real
    assert b["networks"] - a["networks"] == 10 * 2 * 2 * 4 * real
