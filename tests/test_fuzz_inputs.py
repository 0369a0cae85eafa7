"""Fuzzing what users hand to cfrlab (issue 14): strategy files, .game texts and match-state
lines either load / parse or raise a CfrlabError whose message is one line; never another
exception. The CLI (`cfrlab exploit FILE`, `cfrlab strategy show FILE`) answers corrupt files
with exactly one `cfrlab: error:` line on stderr and a non-zero exit, no traceback."""

from __future__ import annotations

import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from cli_run import run
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cfrlab.errors import CfrlabError
from cfrlab.fileio import load_npz, save_npz
from cfrlab.games import load_game, parse_game
from cfrlab.games.matchstate import parse_log_line, parse_match_state
from cfrlab.strategy import Strategy
from cfrlab.tree.betting_tree import count_tree

FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def loads_or_one_line(fn, *args):
    """Call ``fn``; a CfrlabError must be one non-empty line, any other exception fails."""
    try:
        out = fn(*args)
    except CfrlabError as e:
        msg = str(e)
        assert msg and len(msg.splitlines()) == 1 and "\n" not in msg and "\r" not in msg, repr(msg)
        event(f"{fn.__name__}: refused ({type(e).__name__})")
        return None
    event(f"{fn.__name__}: accepted")
    return out


# -- strategy files ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kuhn_file(tmp_path_factory):
    s = Strategy.uniform("kuhn")
    path = tmp_path_factory.mktemp("fuzz") / "kuhn.npz"
    s.save(path)
    return path


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz-work")


@FUZZ
@given(data=st.data())
def test_mutated_strategy_bytes_load_or_refuse_in_one_line(kuhn_file, work, data):
    raw = bytearray(kuhn_file.read_bytes())
    kind = data.draw(st.sampled_from(["flip", "truncate", "splice", "junk"]))
    if kind == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] = data.draw(st.integers(0, 255))
    elif kind == "truncate":
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    elif kind == "splice":
        i = data.draw(st.integers(0, len(raw)))
        raw[i:i] = data.draw(st.binary(min_size=1, max_size=64))
    else:
        raw = bytearray(data.draw(st.binary(max_size=600)))
    f = work / "mutated.npz"
    f.write_bytes(bytes(raw))
    loads_or_one_line(Strategy.load, f)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10)


@FUZZ
@given(data=st.data())
def test_structured_strategy_faults_load_or_refuse_in_one_line(kuhn_file, work, data):
    header, arrays = load_npz(kuhn_file)
    policy = arrays["policy"]
    for key in data.draw(st.lists(st.sampled_from(sorted(header) + ["extra"]), max_size=3, unique=True)):
        if data.draw(st.booleans()):
            header[key] = data.draw(JSON)
        else:
            header.pop(key, None)
    choice = data.draw(st.sampled_from(["keep", "values", "shape", "dtype", "none"]))
    if choice == "values":
        policy = policy.copy()
        rows = data.draw(st.lists(st.integers(0, len(policy) - 1), min_size=1, max_size=3))
        policy[rows] = data.draw(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64),
                                          min_size=3, max_size=3))
    elif choice == "shape":
        shape = tuple(data.draw(st.lists(st.integers(0, 20), min_size=0, max_size=3)))
        policy = np.full(shape, 1 / 3)
    elif choice == "dtype":
        policy = policy.astype(data.draw(st.sampled_from([np.float32, np.int64, np.uint8, np.bool_, np.complex128])))
    f = work / "structured.npz"
    if data.draw(st.booleans()) or not isinstance(header, dict):
        save_npz(f, header, {} if choice == "none" else {"policy": policy})
    else:  # a header of any JSON type, written by hand
        top = data.draw(JSON)
        np.savez(f, policy=policy, __header__=np.frombuffer(json.dumps(top).encode(), np.uint8))
    s = loads_or_one_line(Strategy.load, f)
    if s is not None:  # what loads is a distribution over legal actions per row
        assert np.allclose(s.policy.sum(axis=1), 1.0, atol=1e-6) and (s.policy >= -1e-9).all()
        legal = np.repeat(s.tree.legal, np.diff(s.row_offset), axis=0)
        assert not (s.policy[~legal] > 1e-9).any()
        s.describe()


# -- .game texts ------------------------------------------------------------------------------

KEYS = ["numPlayers", "numRounds", "blind", "raiseSize", "firstPlayer", "maxRaises", "numSuits",
        "numRanks", "numHoleCards", "numBoardCards", "stack"]


@st.composite
def game_texts(draw):
    lines = ["GAMEDEF", draw(st.sampled_from(["limit", "nolimit", "LIMIT", ""]))]
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=14)):
        values = draw(st.lists(st.integers(-3, 300) | st.sampled_from([2**31, 10**40]), max_size=5))
        sep = draw(st.sampled_from([" = ", "=", " "]))
        lines.append(f"{key}{sep}{' '.join(map(str, values))}")
    if draw(st.booleans()):
        lines.append(draw(st.text(max_size=30)))
    if draw(st.booleans()):
        lines.append("END GAMEDEF")
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=game_texts() | st.text(max_size=200))
def test_game_texts_parse_or_refuse_in_one_line(text):
    g = loads_or_one_line(parse_game, text)
    if g is not None:
        assert parse_game(g.to_text()) == g
        if g.is_limit and g.num_players == 2:  # the tree of what parses is counted, or refused
            loads_or_one_line(count_tree, g)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=game_texts())
def test_game_files_load_or_refuse_in_one_line(work, text):
    f = work / "fuzz.game"
    f.write_text(text)
    loads_or_one_line(load_game, str(f))


# -- match-state lines ------------------------------------------------------------------------

GAMES = {name: load_game(name) for name in ("kuhn", "leduc", "holdem-limit", "holdem-nolimit")}
CARD = st.sampled_from(list("AKQJT98765432")).flatmap(lambda r: st.sampled_from([r + s for s in "shdc"]))


@st.composite
def match_lines(draw):
    betting = draw(st.lists(st.sampled_from(["c", "f", "r", "/", "r20", "r300", "r99999999999", "x"]),
                            max_size=10))
    holes = "|".join("".join(draw(st.lists(CARD, max_size=3))) for _ in range(draw(st.integers(1, 3))))
    boards = "".join("/" + "".join(draw(st.lists(CARD, max_size=3))) for _ in range(draw(st.integers(0, 3))))
    fields = ["MATCHSTATE", str(draw(st.integers(-1, 3))), str(draw(st.integers(-1, 10**30))),
              "".join(betting), holes + boards]
    if draw(st.integers(0, 9)) == 0:
        fields.insert(draw(st.integers(0, 5)), draw(st.text(max_size=5)))
    return ":".join(fields)


@FUZZ
@given(game=st.sampled_from(sorted(GAMES)), line=match_lines() | st.text(max_size=60))
def test_match_state_lines_parse_or_refuse_in_one_line(game, line):
    ms = loads_or_one_line(parse_match_state, GAMES[game], line)
    if ms is not None:
        assert parse_match_state(GAMES[game], ms.to_string()).to_string() == ms.to_string()
    log = "STATE" + line[len("MATCHSTATE"):] if line.startswith("MATCHSTATE") else line
    loads_or_one_line(parse_log_line, GAMES[game], log + ":1|-1:a|b")


# -- the CLI on corrupt files -------------------------------------------------------------------


def _corrupt_files(tmp: Path, kuhn_file: Path) -> dict[str, Path]:
    header, arrays = load_npz(kuhn_file)
    pol = arrays["policy"]
    out: dict[str, Path] = {}

    def put(name, h, a):
        out[name] = tmp / f"{name}.npz"
        save_npz(out[name], h, a)

    put("all zero", header, {"policy": np.zeros_like(pol)})
    put("sums to 2", header, {"policy": 2 * pol})
    put("negative", header, {"policy": np.where(pol > 0, 1.5, -0.5 * (pol == 0))})
    put("game 12345", {**header, "game": 12345}, {"policy": pol})
    put("iterations lots", {**header, "iterations": "lots"}, {"policy": pol})
    put("no policy", header, {})
    out["list header"] = tmp / "list.npz"
    np.savez(out["list header"], policy=pol, __header__=np.frombuffer(b"[1, 2]", np.uint8))
    out["lzma member"] = tmp / "lzma.npz"
    with zipfile.ZipFile(out["lzma member"], "w") as z, zipfile.ZipFile(kuhn_file) as src:
        for info in src.infolist():
            z.writestr(info.filename, src.read(info), compress_type=zipfile.ZIP_LZMA)
    out["truncated"] = tmp / "truncated.npz"
    out["truncated"].write_bytes(kuhn_file.read_bytes()[:300])
    out["pickle"] = tmp / "pickle.npz"
    out["pickle"].write_bytes(pickle.dumps({"policy": [1, 2]}))
    out["empty"] = tmp / "empty.npz"
    out["empty"].write_bytes(b"")
    out["directory"] = tmp / "dir.npz"
    out["directory"].mkdir()
    out["fifo"] = tmp / "fifo.npz"
    os.mkfifo(out["fifo"])
    big = io.BytesIO()  # a small file whose array header declares 60 million rows
    np.save(big, np.full((4, 3), 1 / 3))
    npy = big.getvalue().replace(b"(4, 3)", b"(60000000, 3)").replace(b"    \n", b"\n", 1)
    out["declares 60M rows"] = tmp / "big.npz"
    with zipfile.ZipFile(out["declares 60M rows"], "w") as z:
        z.writestr("policy.npy", npy)
        z.writestr("__header__.npy", _npy_bytes(np.frombuffer(json.dumps(header).encode(), np.uint8)))
    return out


def _npy_bytes(a: np.ndarray) -> bytes:
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


CORRUPT = ["all zero", "sums to 2", "negative", "game 12345", "iterations lots", "no policy", "list header",
           "lzma member", "truncated", "pickle", "empty", "directory", "fifo", "declares 60M rows"]


@pytest.fixture(scope="module")
def corrupt(tmp_path_factory, kuhn_file):
    return _corrupt_files(tmp_path_factory.mktemp("corrupt"), kuhn_file)


@pytest.mark.parametrize("command", [["exploit"], ["strategy", "show"]], ids=["exploit", "strategy show"])
@pytest.mark.parametrize("name", CORRUPT)
def test_cli_refuses_corrupt_strategy_files_in_one_line(capsys, corrupt, command, name):
    code, _, err = run(capsys, *command, str(corrupt[name]))
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cfrlab: error: "), err
    assert "Traceback" not in err and str(corrupt[name]) in lines[0]


def test_cli_process_on_a_fifo_and_a_bad_row_exits_at_once_with_one_line(corrupt):
    for name in ("fifo", "sums to 2"):
        proc = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "exploit", str(corrupt[name])],
                              check=False, capture_output=True, text=True, timeout=120)
        assert proc.returncode != 0 and proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cfrlab: error: "), proc.stderr
        assert "Traceback" not in proc.stderr
