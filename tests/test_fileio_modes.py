"""fileio: written files get the umask's mode (not mkstemp's 0600); a file that is not an
.npz is named for what it is, not for what numpy guessed."""

from __future__ import annotations

import json
import os
import pickle
import stat

import numpy as np
import pytest

from cfrlab.errors import CfrlabError
from cfrlab.fileio import atomic_write_text, load_npz, save_npz


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_new_files_follow_the_umask(tmp_path, umask, expected):
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
        save_npz(tmp_path / "b.npz", {"kind": "t"}, {"x": np.zeros(2)})
    finally:
        os.umask(old)
    assert mode(tmp_path / "a.txt") == expected
    assert mode(tmp_path / "b.npz") == expected
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left


def test_a_replaced_file_keeps_its_mode(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("old")
    os.chmod(f, 0o640)
    atomic_write_text(f, "new")
    assert f.read_text() == "new" and mode(f) == 0o640


@pytest.mark.parametrize("name, content, words", [
    ("x.json", json.dumps({"policy": []}).encode(), "JSON text"),
    ("notes.txt", b"hello\n", "holds text"),
    ("empty.npz", b"", "empty"),
    ("p.pkl", pickle.dumps({"a": 1}), "pickled Python objects"),
    ("k.game", b"GAMEDEF\nlimit\nEND GAMEDEF\n", "game definition"),
])
def test_foreign_files_say_what_they_are_not(tmp_path, name, content, words):
    f = tmp_path / name
    f.write_bytes(content)
    with pytest.raises(CfrlabError) as e:
        load_npz(f, kind="strategy")
    msg = str(e.value)
    assert msg.startswith(f"{f} is not a readable cfrlab file (a cfrlab strategy file is .npz with a JSON header)")
    assert words in msg and "This file contains pickled" not in msg


def test_npy_and_directory_are_named(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(3))
    with pytest.raises(CfrlabError, match=r"single NumPy array \(\.npy\)"):
        load_npz(tmp_path / "a.npy", kind="strategy")
    with pytest.raises(CfrlabError, match="it is a directory"):
        load_npz(tmp_path, kind="abstraction")
