"""Hand logs every consumer reads the same way: a line ``cfrlab log`` refuses (another game's,
unfinished, malformed, non-finite values, a board card missing) is refused by the opponent
model, DIVAT and AIVAT too, with the file and line named; FIFOs, devices and endless lines are
refused before they are read; model headers of the wrong type are one line."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import numpy as np
import pytest
from cli_run import run

from cfrlab.agents import make_agent
from cfrlab.counter import OpponentModel, build_model
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.aivat import aivat_log
from cfrlab.evaluate.divat import divat_log
from cfrlab.evaluate.histories import read_log
from cfrlab.games import load_game

LEDUC = """# name/game/hands/seed match leduc 8 3
STATE:0:rrf:Ah|As:-3|3:a|b
STATE:1:crrf:Kh|Qs:3|-3:b|a
STATE:2:cc/rrc:As|Ks/Qh:9|-9:a|b
STATE:3:rc/rc:Ks|Kh/As:0|0:b|a
STATE:4:cc/rc:Ah|Kh/Ks:-5|5:a|b
STATE:5:crrc/crrf:Qs|Ks/Kh:9|-9:b|a
STATE:6:rc/rrc:As|Kh/Qs:11|-11:a|b
STATE:7:cc/rc:Ah|Ks/Qh:5|-5:b|a
SCORE:-5|5:a|b
"""

KUHN = """# name/game/hands/seed match kuhn 4 3
STATE:0:rf:As|Qs:1|-1:a|b
STATE:1:crc:Ks|Qs:2|-2:b|a
STATE:2:cc:As|Ks:1|-1:a|b
STATE:3:rc:Ks|Qs:2|-2:b|a
SCORE:2|-2:a|b
"""

# (replacement of line 5, i.e. hand 3, words the message must hold)
BAD_LINES = {
    "unfinished": ("STATE:3:rc/r:Ks|Kh/As:0|0:b|a", "finished"),
    "no slash": ("STATE:3:rcrc:Ks|Kh/As:0|0:b|a", "should be written"),
    "slash mid-round": ("STATE:3:r/c/rc:Ks|Kh/As:0|0:b|a", "should be written"),
    "nan values": ("STATE:3:rc/rc:Ks|Kh/As:nan|nan:b|a", "values"),
    "no board card": ("STATE:3:rc/rc:Ks|Kh:0|0:b|a", "round"),
    "card not in deck": ("STATE:3:rc/rc:Ks|Kh/2c:0|0:b|a", "card"),
    "three players": ("STATE:3:rc/rc:Ks|Kh|Qh/As:0|0|0:b|a|c", "'|'"),
    "three rounds": ("STATE:3:rc/rc/c:Ks|Kh/As/Qh:0|0:b|a", "after the end"),
    "wrong values": ("STATE:3:rc/rc:Ks|Kh/As:5|-5:b|a", "do not match"),
    "one value": ("STATE:3:rc/rc:Ks|Kh/As:0:b|a", "values"),
    "bad hand number": ("STATE:x:rc/rc:Ks|Kh/As:0|0:b|a", "hand number"),
    "repeated card": ("STATE:3:rc/rc:Ks|Ks/As:0|0:b|a", "card"),
}


def _write(tmp_path: Path, text: str, name: str = "m.log") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _with_bad_line(tmp_path: Path, line: str) -> Path:
    lines = LEDUC.splitlines()
    lines[4] = line
    return _write(tmp_path, "\n".join(lines) + "\n", "bad.log")


def _consumers(game):
    yield "log", lambda p: read_log(p, game)
    yield "model", lambda p: build_model([p], game, "a")
    yield "divat", lambda p: divat_log([p], "a", game)
    yield "aivat", lambda p: aivat_log([p], "a", opponent=make_agent("always-call", game), game=game, value="calldown")


def test_the_clean_log_is_read_by_every_consumer(tmp_path):
    game = load_game("leduc")
    p = _write(tmp_path, LEDUC)
    assert len(read_log(p, game).hands) == 8
    assert build_model([p], game, "a").hands == 8
    assert divat_log([p], "a", game).money.tolist() == [-3, -3, 9, 0, -5, -9, 11, -5]
    assert aivat_log([p], "a", opponent=make_agent("always-call", game), game=game, value="calldown").money.tolist() == [-3, -3, 9, 0, -5, -9, 11, -5]


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_a_bad_line_is_refused_by_every_consumer_with_its_line(tmp_path, case):
    line, words = BAD_LINES[case]
    p = _with_bad_line(tmp_path, line)
    game = load_game("leduc")
    for who, read in _consumers(game):
        with pytest.raises(CfrlabError) as e:
            read(p)
        msg = str(e.value)
        assert "bad.log:5:" in msg, (who, msg)
        assert words in msg, (who, msg)
        assert "\n" not in msg


def test_a_kuhn_log_is_not_a_leduc_log(tmp_path):
    p = _write(tmp_path, KUHN, "kuhn.log")
    game = load_game("leduc")
    for who, read in _consumers(game):
        with pytest.raises(CfrlabError, match=r"kuhn\.log:3: .*'crc'") as e:
            read(p)
        assert "the log's header names kuhn, not leduc" in str(e.value), who


def test_lines_of_other_players_are_checked_too(tmp_path):
    lines = LEDUC.splitlines()
    lines[4] = "STATE:3:rc/rc:Ks|Kh/As:nan|nan:c|d"
    p = _write(tmp_path, "\n".join(lines) + "\n", "bad.log")
    with pytest.raises(CfrlabError, match=r"bad\.log:5: .*values"):
        build_model([p], "leduc", "a")


def test_hands_after_max_hands_are_not_read(tmp_path):
    p = _with_bad_line(tmp_path, BAD_LINES["nan values"][0])
    assert build_model([p], "leduc", "a", max_hands=2).hands == 2


def test_build_model_takes_one_path(tmp_path):
    p = _write(tmp_path, LEDUC)
    assert build_model(str(p), "leduc", "a").hands == 8
    assert build_model(p, "leduc", "a").hands == 8
    with pytest.raises(CfrlabError, match="no log"):
        build_model([], "leduc", "a")


@pytest.fixture
def fifo(tmp_path):
    """A FIFO nobody writes to; a reader that opens it would wait forever: the alarm fails it."""
    if not hasattr(os, "mkfifo") or not hasattr(signal, "SIGALRM"):
        pytest.skip("no FIFOs here")
    p = tmp_path / "pipe.log"
    os.mkfifo(p)

    def hung(*_):
        raise AssertionError("the reader waited on the FIFO")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield p
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_a_fifo_is_refused_not_waited_on(fifo):
    game = load_game("leduc")
    for who, read in _consumers(game):
        with pytest.raises(CfrlabError, match="not a regular file"):
            read(fifo)
    with pytest.raises(CfrlabError, match="not a regular file"):
        divat_log([fifo], "a")  # the game from the log's header


def test_a_device_is_refused(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    for who, read in _consumers(load_game("leduc")):
        with pytest.raises(CfrlabError, match="not a regular file"):
            read(Path("/dev/zero"))


def test_cli_refuses_a_fifo(capsys, fifo, tmp_path):
    for argv in (["counter", "model", "leduc", str(fifo), "--player", "a", "--out", str(tmp_path / "m.npz")],
                 ["log", "leduc", str(fifo)], ["divat", str(fifo), "--player", "a"],
                 ["divat", str(fifo), "--player", "a", "--game", "leduc"],
                 ["aivat", str(fifo), "--player", "a", "--opponent", "always-call", "--game", "leduc"],
                 ["aivat", str(fifo), "--player", "a", "--opponent", "always-call"]):
        code, _, err = run(capsys, *argv)
        assert code != 0 and "not a regular file" in err and "Traceback" not in err, (argv, err)


def test_an_endless_line_is_refused_unread(tmp_path):
    p = tmp_path / "long.log"
    with open(p, "wb") as f:
        f.write(LEDUC.encode())
        f.write(b"x" * (20 << 20))
    game = load_game("leduc")
    for who, read in _consumers(game):
        with pytest.raises(CfrlabError, match=r"long\.log:11: .*longer than") as e:
            read(p)
        assert len(str(e.value)) < 300, who


def test_a_mid_round_slash_is_one_line_in_kuhn(tmp_path):
    p = _write(tmp_path, "STATE:0:r/c:Ks|Qs:1|-1:a|b\n", "k.log")
    with pytest.raises(CfrlabError, match=r"k\.log:1: .*should be written 'rc'"):
        build_model([p], "kuhn", "a")


def test_cli_model_refuses_a_bad_line(capsys, tmp_path):
    p = _with_bad_line(tmp_path, BAD_LINES["no board card"][0])
    code, _, err = run(capsys, "counter", "model", "leduc", str(p), "--player", "a", "--out", str(tmp_path / "m.npz"))
    assert code != 0 and "bad.log:5:" in err and "Traceback" not in err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("entry, value", [("hands", "abc"), ("hands", -1), ("hands", 1.5), ("hands", True),
                                           ("player", 3), ("default", None), ("decisions", "x")])
def test_a_model_header_of_the_wrong_type_is_one_line(tmp_path, entry, value):
    m = build_model([_write(tmp_path, LEDUC)], "leduc", "a")
    path = tmp_path / "model.npz"
    m.save(path)
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(arrays["__header__"].tobytes())
    header["opponent_model"][entry] = value
    arrays["__header__"] = np.frombuffer(json.dumps(header).encode(), np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(CfrlabError, match=f"corrupt opponent model.*{entry}"):
        OpponentModel.load(path)


def test_a_log_without_its_game_is_refused_without_naming_a_flag_in_python(capsys, tmp_path):
    p = _write(tmp_path, LEDUC.split("\n", 1)[1], "nohdr.log")  # the dealer's logs name no game
    with pytest.raises(CfrlabError, match="does not name its game") as e:
        divat_log([p], "a")
    assert "--" not in str(e.value)
    for argv in (["divat", str(p), "--player", "a"], ["aivat", str(p), "--player", "a", "--opponent", "always-call"]):
        code, _, err = run(capsys, *argv)
        assert code != 0 and "does not name its game; give the game with --game" in err
