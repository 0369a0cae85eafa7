import subprocess
import sys

import pytest

from cfrlab.games.builtins import HOLDEM_LIMIT


def cfrlab(*args):
    return subprocess.run(
        [sys.executable, "-m", "cfrlab.cli.main", *args], check=False, capture_output=True, text=True, timeout=120
    )


def test_games_lists_builtins():
    r = cfrlab("games")
    assert r.returncode == 0
    for name in ("kuhn", "leduc", "holdem-limit", "holdem-nolimit", "kuhn-3p"):
        assert name in r.stdout


def test_game_show_prints_acpc_text():
    r = cfrlab("game", "show", "holdem-limit")
    assert r.returncode == 0
    assert r.stdout.startswith(HOLDEM_LIMIT)
    assert "2 players" in r.stdout


def test_bad_game_file_is_one_line_error(tmp_path):
    p = tmp_path / "broken.game"
    p.write_text("GAMEDEF\nlimit\nnumPlayers = two\n")
    r = cfrlab("game", "show", str(p))
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "numPlayers" in r.stderr


def test_unknown_game_is_one_line_error():
    r = cfrlab("game", "show", "no-such-game")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "unknown game" in r.stderr


@pytest.mark.slow
def test_unreadable_game_files_are_one_line_errors(tmp_path):
    binary = tmp_path / "binary.game"
    binary.write_bytes(b"\x00\xff\xfe GAMEDEF")
    huge = tmp_path / "huge.game"
    huge.write_text(HOLDEM_LIMIT.replace("raiseSize = 10 10 20 20", "raiseSize = 10 10 20 99999999999"))
    few = tmp_path / "few.game"
    few.write_text(HOLDEM_LIMIT.replace("firstPlayer = 2 1 1 1", "firstPlayer = 2"))
    for arg, why in [(binary, "cannot read game file"), (tmp_path, "no such file"), (tmp_path / "none.game", "no such file"),
                     (huge, "raiseSize values must be at most"), (few, "firstPlayer needs one value per round")]:
        r = cfrlab("game", "show", str(arg))
        assert r.returncode != 0 and "Traceback" not in r.stderr, arg
        assert r.stderr.startswith("cfrlab: error:") and r.stderr.count("\n") == 1 and why in r.stderr, r.stderr
