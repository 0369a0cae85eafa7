"""Networks that play without a table (cfrlab.deep.play): on Leduc, small enough to tabulate,
the per-decision answers equal the tabulated policy's rows (Deep CFR and SD-CFR); the card
features built per hand equal the table's; a hold'em weights file refuses another game in
one line; the deep: agent in HULHE plays per decision, and LBR measures it through enter().
Tiny networks: seconds."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("optax")

from tests.cli_run import run

from cfrlab.agents.registry import make_agent
from cfrlab.cli.main import main
from cfrlab.deep import DeepNets, DeepParams, load_nets, train
from cfrlab.deep.features import info_features
from cfrlab.deep.play import NetAgent, NetBatchPolicy, NetPolicy, fits_table
from cfrlab.engine import model_for_game, row_offsets, tree_for
from cfrlab.errors import FileMismatchError
from cfrlab.games import load_game
from cfrlab.realgame.lbr import local_best_response
from cfrlab.tree import DECISION

TINY = DeepParams(hidden=(16, 16), adv_steps=40, adv_batch=128, avg_steps=100, avg_batch=256, buffer=20_000)


@pytest.fixture(scope="module", params=["sdcfr", "deepcfr"])
def leduc_nets(request) -> DeepNets:
    return train("leduc", request.param, iterations=3, traversals=40, seed=5, params=TINY).nets


def _every_row(game):
    """(node, row, hole, board) of every row of the lossless table."""
    tree, model = tree_for(game), model_for_game(game)
    offsets = row_offsets(tree, model)
    for n in range(tree.num_nodes):
        if tree.kind[n] != DECISION:
            continue
        d, r = int(tree.decision[n]), int(tree.round[n])
        for s in range(model.num_states[r]):
            hole, board = model.state_cards(r, s)
            yield n, int(offsets[d]) + s, hole, board


def test_per_decision_probabilities_equal_the_tabulated_rows(leduc_nets):
    g = load_game("leduc")
    table = leduc_nets.table()
    net = NetPolicy(leduc_nets)
    feats = info_features(tree_for(g), model_for_game(g))
    worst = 0.0
    for n, row, hole, board in _every_row(g):
        assert np.array_equal(net.features(n, [hole], board)[0], feats[row])
        worst = max(worst, float(np.abs(net.probs(n, [hole], board)[0] - table[row]).max()))
    assert worst < 1e-12  # the same arithmetic; matrix products of other sizes may round differently


def test_batched_answers_equal_single_ones(leduc_nets):
    g = load_game("leduc")
    net = NetPolicy(leduc_nets)
    node = int(np.flatnonzero((np.asarray(net.tree.kind) == DECISION) & (np.asarray(net.tree.round) == 1))[3])
    holes = [[40], [41], [44], [45]]  # the cards left beside the board Ah
    many = net.probs(node, holes, [48])
    for i, h in enumerate(holes):
        assert np.allclose(many[i], net.probs(node, [h], [48])[0], rtol=0, atol=1e-12)
    assert fits_table(g) and not fits_table(load_game("holdem-limit"))


@pytest.fixture(scope="module")
def holdem_run(tmp_path_factory):
    """The file's one hold'em training (a HULHE Deep CFR run, 8 s, most of it compiling): a
    tiny ``cfrlab deep train`` in-process, whose output test_cli_trains_holdem_and_refuses_to_
    tabulate_it reads and whose weights file the other hold'em tests use. (exit code, output,
    path)"""
    path = tmp_path_factory.mktemp("hul") / "hul.npz"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(["deep", "train", "holdem-limit", "--method", "deepcfr", "-n", "1", "-k", "20", "--hidden", "8,8",
                  "--adv-steps", "5", "--avg-steps", "5", "--batch", "32", "--buffer", "5000", "-s", "1",
                  "-o", str(path)])
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, out.getvalue(), path


@pytest.fixture(scope="module")
def holdem_file(holdem_run):
    code, text, path = holdem_run
    assert code == 0 and path.exists(), text
    return path


def test_holdem_file_refuses_another_game_in_one_line(holdem_file, capsys):
    with pytest.raises(FileMismatchError, match="holds networks for holdem-limit, not for leduc"):
        load_nets(holdem_file, "leduc")
    code, out, err = run(capsys, "match", "leduc", f"deep:{holdem_file}", "call", "-n", "10")
    lines = [x for x in (out + err).strip().splitlines() if x.strip()]
    assert code != 0 and len(lines) == 1 and "holds networks for holdem-limit" in lines[0], out + err


def test_holdem_agent_answers_per_decision_and_lbr_measures_it(holdem_file):
    g = load_game("holdem-limit")
    agent = make_agent(f"deep:{holdem_file}", g, seed=0)
    assert isinstance(agent, NetAgent)
    p = agent.policy.probs(0, [[48, 49], [0, 5]], [])
    assert p.shape == (2, 3) and np.allclose(p.sum(axis=1), 1.0) and np.all(p >= 0)
    res = local_best_response(agent, g, hands=4, seed=2)
    assert res.hands == 4 and np.isfinite(res.value)


def test_hulhe_run_resumed_from_its_checkpoint_equals_the_uninterrupted_run(tmp_path):
    params = DeepParams(hidden=(8, 8), adv_steps=5, adv_batch=32, avg_steps=5, avg_batch=32, buffer=3_000)
    whole = train("holdem-limit", "sdcfr", iterations=2, traversals=15, seed=4, params=params).nets
    ckpt = tmp_path / "run.ckpt.npz"
    train("holdem-limit", "sdcfr", iterations=1, traversals=15, seed=4, params=params, checkpoint=ckpt)
    resumed = train("holdem-limit", "sdcfr", iterations=2, traversals=15, seed=4, params=params, checkpoint=ckpt).nets
    for group in ("adv0", "adv1"):
        assert len(resumed.nets[group]) == 2
        for a, b in zip(whole.nets[group], resumed.nets[group]):
            for (wa, ba), (wb, bb) in zip(a, b):
                assert np.array_equal(wa, wb) and np.array_equal(ba, bb)


def test_cli_trains_holdem_and_refuses_to_tabulate_it(holdem_run, capsys):
    code, text, out = holdem_run  # cfrlab deep train holdem-limit (the module's fixture)
    assert code == 0 and "not tabulated" in text and out.exists(), text
    code, text, err = run(capsys, "deep", "tabulate", str(out))
    lines = [x for x in (text + err).strip().splitlines() if x.strip()]
    assert code != 0 and len(lines) == 1 and "too large to tabulate" in lines[0]


def test_cli_lbr_takes_a_deep_agent_and_the_real_best_response_refuses_it(holdem_file, capsys):
    code, out, err = run(capsys, "lbr", f"deep:{holdem_file}", "--hands", "4", "--json")
    assert code == 0, out + err
    assert '"hands": 4' in out.strip().splitlines()[-1]
    code, out, err = run(capsys, "exploit-real", f"deep:{holdem_file}")
    lines = [x for x in (out + err).strip().splitlines() if x.strip()]
    assert code != 0 and len(lines) == 1 and "needs the opponent as a table" in lines[0], out + err


def test_lbr_against_the_per_decision_network_equals_lbr_against_its_table(leduc_nets):
    """The per-round table (NetBatchPolicy.enter) gives LBR the same opponent as the full table:
    the same deals, the same sampled actions, the same winnings."""
    by_round = local_best_response(NetBatchPolicy(NetPolicy(leduc_nets)), "leduc", hands=300, seed=7)
    table = local_best_response(leduc_nets.strategy(measure=False), "leduc", hands=300, seed=7)
    assert np.allclose(by_round.winnings, table.winnings, rtol=0, atol=1e-9)
    assert by_round.value == pytest.approx(table.value, abs=1e-9)
