import subprocess
import sys

from cfrlab.games.builtins import HOLDEM_LIMIT


def cfrlab(*args):
    return subprocess.run(
        [sys.executable, "-m", "cfrlab.cli.main", *args], capture_output=True, text=True, timeout=120
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
