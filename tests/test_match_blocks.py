"""Long matches in blocks of deals (``cfrlab.jobs``): local worker processes play the same
hands, bit for bit, as one process; what cannot be split is refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import run

from cfrlab.agents import play_match
from cfrlab.agents.registry import make_agent
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.match import play_block
from cfrlab.games import load_game
from cfrlab.strategy import Strategy


def test_any_block_of_deals_is_those_hands_of_the_whole_match():
    g = load_game("holdem-limit")
    a, b = make_agent("random", g), make_agent("always-call", g)
    whole = play_match(g, a, b, 5_000, seed=11, duplicate=True)
    for first, count in [(0, 1), (1_234, 777), (4_000, 1_000)]:
        part = play_block(g, a, b, 11, True, first, count, batch=300)  # batches cut differently too
        np.testing.assert_array_equal(part, whole.values[:, first:first + count])


def test_two_workers_play_the_same_hands_as_one_process(tmp_path):
    rng = np.random.default_rng(2)
    s = Strategy.uniform("leduc")
    pol = s.policy * rng.random(s.policy.shape) ** 2
    Strategy.from_policy(s.game, pol / pol.sum(axis=1, keepdims=True)).save(tmp_path / "s.npz")
    spec = str(tmp_path / "s.npz")
    one = play_match("leduc", spec, "random", 60_000, seed=9, duplicate=True, exact=True)
    two = play_match("leduc", spec, "random", 60_000, seed=9, duplicate=True, exact=True,
                     workers=2, block=7_000)  # 9 blocks, the last one short
    assert two.values.tobytes() == one.values.tobytes()
    assert two.summary()["mean_chips"] == one.summary()["mean_chips"]
    assert two.exact_chips == pytest.approx(one.exact_chips, abs=1e-12)


@pytest.mark.parametrize("options,message", [
    ({"log": "x.log"}, "^log plays in one process: leave out workers and ray"),
    ({"aivat": True}, "^aivat plays in one process"),
    ({"engine": "python"}, "fast engine, not the python one"),
])
def test_what_cannot_be_split_is_refused(options, message):
    with pytest.raises(CfrlabError, match=message):
        play_match("leduc", "random", "always-call", 1_000, seed=1, workers=2, **options)


def test_agent_objects_are_refused_with_workers():
    g = load_game("leduc")
    with pytest.raises(CfrlabError, match="takes its agents as specs"):
        play_match(g, make_agent("random", g), "always-call", 1_000, seed=1, workers=2)


def test_cli_match_with_workers(capsys):
    argv = ["match", "leduc", "random", "always-raise", "-n", "30000", "-d", "--seed", "4", "--json"]
    code, out, _ = run(capsys, *argv, "--workers", "2")
    assert code == 0
    with_workers = json.loads(out.strip().splitlines()[-1])
    code, out, _ = run(capsys, *argv)
    alone = json.loads(out.strip().splitlines()[-1])
    assert (with_workers["mean_chips"], with_workers["ci95_chips"]) == (alone["mean_chips"], alone["ci95_chips"])
    code, _, err = run(capsys, *argv, "--workers", "2", "--log", "x.log")
    assert code != 0 and "--log plays in one process" in err and "Traceback" not in err


def test_cli_refuses_no_workers(capsys):
    code, _, err = run(capsys, "match", "leduc", "random", "always-call", "-n", "100", "--workers", "0")
    assert code != 0 and "--workers must be at least 1" in err and "Traceback" not in err
