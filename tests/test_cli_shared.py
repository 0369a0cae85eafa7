"""The CLI helpers commands share (cli/common): the strategy-or-bot target of ``lbr`` and
``exploit-real``, durations in progress lines, command groups that show their help bare."""

import pytest
from cli_run import run

import cfrlab
from cfrlab.cli.common import human_seconds


@pytest.fixture(scope="module")
def kuhn_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli-shared") / "k.npz"
    cfrlab.Strategy.uniform("kuhn").save(path)
    return path


@pytest.mark.parametrize("command", ["lbr", "exploit-real"])
def test_strategy_or_bot_targets_are_refused_in_one_line(capsys, tmp_path, kuhn_file, command):
    for argv, words in [
        ([str(tmp_path / "nope.npz")], f"no such strategy file {tmp_path / 'nope.npz'}"),
        (["always-call"], "always-call: a bot needs --game"),
        ([str(kuhn_file), "--game", "leduc"], f"{kuhn_file} is a strategy for kuhn, not for leduc"),
    ]:
        code, out, err = run(capsys, command, *argv)
        assert code != 0 and out == "", argv
        assert err.strip().splitlines() == [f"cfrlab: error: {words}"], argv


def test_a_bot_target_with_its_game_is_played(capsys):
    code, out, _ = run(capsys, "exploit-real", "always-raise", "--game", "kuhn")
    assert code == 0 and "real-game exploitability 0.3333 chips/g" in out


@pytest.mark.parametrize("seconds, text", [(-1.0, "?"), (0.0, "0 s"), (89.4, "89 s"), (90.0, "1.5 min"),
                                           (5399.0, "90.0 min"), (5400.0, "1.5 h")])
def test_durations_in_progress_lines(seconds, text):
    assert human_seconds(seconds) == text


@pytest.mark.parametrize("group", ["abstract", "counter", "experiment", "game", "strategy"])
def test_command_groups_show_their_help_when_called_bare(capsys, group):
    _, out, err = run(capsys, group)
    assert f"Usage: cfrlab {group} [OPTIONS] COMMAND [ARGS]..." in out + err
