"""Fault injection on postflop spots (issue 43): spot files and saved spots with values of the
wrong type, not finite or forged, FIFOs, outputs over inputs, non-ASCII digits, huge trees.
Every refusal is one line (a ``CfrlabError``; on the CLI one line and a non-zero exit)."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from spot_helpers import ROOT, SMALL_TOML, small_river

from cfrlab.cards.ranges import parse_range
from cfrlab.errors import CfrlabError
from cfrlab.spot import load_spot, make_spot
from cfrlab.tree.bets import parse_bets

BIG = "9" * 400


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``cfrlab ARGS`` in a child process (as spot_helpers.cli), killed after ``timeout``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "1", "COLUMNS": "160"}
    return subprocess.run([sys.executable, "-m", "cfrlab.cli.main", *args], capture_output=True,
                          text=True, cwd=ROOT, check=False, env=env, timeout=timeout)


def _one_line(e) -> str:
    text = str(e.value)
    assert "\n" not in text and "Traceback" not in text
    return text


# -- item 5: spot values of the wrong type or not finite ------------------------------------------
def _toml(**lines) -> str:
    """SMALL_TOML with its top-level ``key = value`` lines replaced (None: removed)."""
    out = [f"{k} = {v}" for k, v in lines.items() if v is not None and f"\n{k} = " not in "\n" + SMALL_TOML]
    for line in SMALL_TOML.splitlines():
        key = line.split("=")[0].strip()
        if key in lines and not line.startswith(("oop", "ip", "bet", "raise")):
            if lines[key] is not None:
                out.append(f"{key} = {lines[key]}")
            continue
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("change, words", [
    ({"board": "5"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": "[1.5, 2, 3]"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": "[60, 2, 3]"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": "true"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": None}, "no board"),
    ({"pot": None}, "no pot"),
    ({"stack": None}, "no stack"),
    ({"pot": "nan"}, "pot is a whole number of chips, got nan"),
    ({"pot": "inf"}, "pot is a whole number of chips, got inf"),
    ({"stack": "-inf"}, "stack is a whole number of chips, got -inf"),
    ({"stack": "inf"}, "stack is a whole number of chips, got inf"),
    ({"stack": "[30]"}, "stack is a whole number of chips"),
    ({"game": '["holdem-nolimit"]'}, "game is a name such as 'holdem-nolimit'"),
    ({"oop_position": "nan"}, "0 or 1"),
])
def test_spot_file_values_of_the_wrong_type_are_one_line(tmp_path, change, words):
    f = tmp_path / "spot.toml"
    f.write_text(_toml(**change))
    with pytest.raises(CfrlabError, match=words) as e:
        load_spot(f)
    assert _one_line(e).startswith(str(f))


def test_a_board_as_a_list_of_cards_is_the_board_as_text(tmp_path):
    f = tmp_path / "spot.toml"
    f.write_text(_toml(board='["Qs", "Jh", "2h", "8d", "3c"]'))
    assert load_spot(f).board == small_river().board


def test_an_empty_spot_file_names_what_it_lacks(tmp_path):
    f = tmp_path / "empty.toml"
    f.write_text("")
    with pytest.raises(CfrlabError, match="no board, pot, stack") as e:
        load_spot(f)
    _one_line(e)


@pytest.mark.parametrize("kw, words", [
    ({"oop_range": ["AA"]}, "OOP range is range text"),
    ({"ranges": {"oop": "AA", "ip": 5}}, "IP range is range text"),
    ({"pot": math.nan}, "whole number"), ({"stack": math.inf}, "whole number"),
    ({"board": 5}, "board is text"), ({"board": [None, 1, 2]}, "board is text"),
])
def test_bad_keywords_are_one_line(kw, words):
    with pytest.raises(CfrlabError, match=words) as e:
        small_river(**kw)
    _one_line(e)


@pytest.mark.parametrize("size", [f"{BIG}%", f"{BIG}p", f"{BIG}.5x", f"{BIG}bb", "1000001p", "200000000%"])
def test_a_size_too_large_is_refused(size):
    with pytest.raises(CfrlabError, match="too large") as e:
        parse_bets(f"{size},a")
    _one_line(e)


def test_a_spot_with_a_400_digit_size_is_one_line(tmp_path):
    f = tmp_path / "spot.toml"
    f.write_text(SMALL_TOML.replace('bet = "p, a"', f'bet = "{BIG}%"'))
    with pytest.raises(CfrlabError, match="too large") as e:
        load_spot(f)
    _one_line(e)


def test_a_large_size_still_solves_as_the_all_in():
    """A size as large as allowed is made legal as the all-in (it is still a size)."""
    s = small_river(bets={"bet": "1000000p", "raise": "a"})
    assert s.sizes[("oop", "river", "bet")].rounds[0][0].value == 1e6


# -- item 11: ASCII digits only ---------------------------------------------------------------
ARABIC_HALF = "\u0660.\u0665"  # 0.5 in Arabic-Indic digits
FULL_WIDTH_HALF = "\uff10.\uff15"  # 0.5 in full-width digits


@pytest.mark.parametrize("text", [f"AA:{ARABIC_HALF}", f"AA:{FULL_WIDTH_HALF}", "AA:\u0661"])
def test_range_weights_are_ascii(text):
    assert float(text.partition(":")[2]) in (0.5, 1.0)  # what int()/float() would accept
    with pytest.raises(CfrlabError, match="weight") as e:
        parse_range(text)
    _one_line(e)


@pytest.mark.parametrize("text", [f"{ARABIC_HALF}p,a", f"{FULL_WIDTH_HALF}p", "\u0665\u0660%",
                                  "p,a;cap=\u0662", f"p;allin={ARABIC_HALF}", "\uff12x"])
def test_bet_specs_are_ascii(text):
    with pytest.raises(CfrlabError) as e:
        parse_bets(text)
    _one_line(e)


def test_ascii_forms_still_parse():
    assert parse_range("AA:0.5, KK:1e-1, QQ:.25")[parse_range("AA") > 0].tolist() == [0.5] * 6
    assert parse_bets("0.5p,50%,3x,2.5bb,a;cap=2;allin=0.1").text == "0.5p,3x,2.5bb,a;cap=2;allin=0.1"


def test_make_spot_keeps_working():
    s = make_spot(board=[40, 37, 2], pot=10, stack=30, oop_range="AA", ip_range="KK")
    assert len(s.board) == 3 and np.count_nonzero(s.ranges[0]) == 6


# -- item 4: a FIFO is refused, not read forever --------------------------------------------------
def _fifo(tmp_path, name):
    import os

    path = tmp_path / name
    os.mkfifo(path)
    return path


def _refused_at_once(read, path) -> str:
    """The one-line refusal of ``read(path)``; fails (instead of hanging) if the read blocks:
    then a writer is opened and closed, so the blocked reader sees the end of the pipe."""
    import threading

    got = []

    def run():
        try:
            read(path)
            got.append("read")
        except CfrlabError as e:
            got.append(str(e))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        t.join(30)
        pytest.fail(f"reading the FIFO {path} blocked")
    assert got and "\n" not in got[0]
    return got[0]


def test_a_fifo_spot_file_is_refused(tmp_path):
    assert "named pipe" in _refused_at_once(load_spot, _fifo(tmp_path, "spot.toml"))


def test_a_fifo_lock_file_is_refused(tmp_path):
    from cfrlab.spot.lock import load_locks

    assert "named pipe" in _refused_at_once(load_locks, _fifo(tmp_path, "lock.toml"))


def test_cli_refuses_a_fifo_spot_and_lock_in_one_line(tmp_path):
    spot = tmp_path / "spot.toml"
    spot.write_text(SMALL_TOML)
    for args in (("spot", "sizes", str(_fifo(tmp_path, "a.toml"))),
                 ("spot", "solve", str(spot), "--lock", str(_fifo(tmp_path, "b.toml")))):
        out = cli(*args, timeout=120)  # a read of the FIFO would block: TimeoutExpired
        assert out.returncode != 0 and "named pipe" in out.stderr
        assert out.stderr.strip().count("\n") == 0, out.stderr
