"""Issue 14, files and inputs: corrupt, foreign or hostile files are refused with one line,
before anything large is allocated; strategies must be distributions over legal actions;
temp files of killed writers are cleaned."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest

from cfrlab.engine import build_tree_for, model_for_game
from cfrlab.errors import CfrlabError
from cfrlab.fileio import (
    NpzReader,
    atomic_open,
    load_npz,
    remove_stale_temps,
    save_npz,
    stale_temps,
)
from cfrlab.games import load_game
from cfrlab.strategy import Strategy, check_policy

# -- fixtures -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def leduc():
    return Strategy.uniform("leduc")


def one_line_error(excinfo) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg and msg
    return msg


def strategy_file(path, strategy, policy=None, **header):
    save_npz(path, {**strategy.header, **header}, {"policy": strategy.policy if policy is None else policy})
    return path


# -- fileio: what is not a plain, honest .npz ------------------------------------------------


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "s.npz"
    os.mkfifo(fifo)
    signal.signal(signal.SIGALRM, lambda *a: pytest.fail("load_npz blocked on a FIFO"))
    signal.alarm(5)
    try:
        with pytest.raises(CfrlabError) as e:
            load_npz(fifo, kind="strategy")
    finally:
        signal.alarm(0)
    assert "named pipe (FIFO), not a regular file" in one_line_error(e)


@pytest.mark.parametrize("method", [zipfile.ZIP_LZMA, 99])
def test_unsupported_zip_compression_is_one_line(tmp_path, method):
    f = tmp_path / "c.npz"
    save_npz(f, {"kind": "strategy"}, {"policy": np.zeros((4, 3))})
    if method == 99:  # a method number zipfile has never heard of: patch both headers
        data = bytearray(f.read_bytes())
        for sig, off in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
            i = data.find(sig)
            while i >= 0:
                data[i + off:i + off + 2] = (99).to_bytes(2, "little")
                i = data.find(sig, i + 4)
        f.write_bytes(bytes(data))
    else:
        with zipfile.ZipFile(tmp_path / "plain.npz", "w") as z, zipfile.ZipFile(f) as src:
            for info in src.infolist():
                z.writestr(info.filename, src.read(info), compress_type=method)
        f = tmp_path / "plain.npz"
    with pytest.raises(CfrlabError) as e:
        load_npz(f, kind="strategy")
    assert f"compression method {method}" in one_line_error(e)


def _inflate_declared_rows(path, rows_from: int, rows_to: int) -> None:
    """Rewrite the .npy header of the stored policy so it declares ``rows_to`` rows, keeping
    the header length (the padding absorbs the extra digits): the data stays small."""
    data = bytearray(path.read_bytes())
    old = f"({rows_from}, 3)".encode()
    i = data.index(old)
    end = data.index(b"\n", i)
    seg = bytes(data[i:end]).replace(old, f"({rows_to}, 3)".encode())
    seg = seg[:end - i] if len(seg) > end - i else seg
    assert seg.rstrip().endswith(b"}")
    data[i:end] = seg.ljust(end - i)[:end - i]
    path.write_bytes(bytes(data))


def test_a_small_file_declaring_a_huge_array_is_refused_before_allocating(tmp_path):
    f = tmp_path / "big.npz"
    save_npz(f, {"kind": "strategy"}, {"policy": np.full((60_000, 3), 1 / 3)})
    _inflate_declared_rows(f, 60_000, 60_000_000)
    assert f.stat().st_size < 2 << 20
    tracemalloc.start()
    try:
        with pytest.raises(CfrlabError) as e:
            load_npz(f, kind="strategy")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    msg = one_line_error(e)
    assert "declares shape (60000000, 3)" in msg and "holds 1.4 MB" in msg
    assert peak < 8 << 20  # the 1.4 GB array was never allocated


def test_zip_sizes_larger_than_the_file_are_refused(tmp_path):
    f = tmp_path / "s.npz"
    save_npz(f, {"kind": "strategy"}, {"policy": np.zeros((100, 3))})
    data = bytearray(f.read_bytes())
    i = data.find(b"PK\x01\x02")  # first central directory entry: sizes at +20 (compressed), +24
    data[i + 20:i + 24] = (10**9).to_bytes(4, "little")
    data[i + 24:i + 28] = (10**9).to_bytes(4, "little")
    f.write_bytes(bytes(data))
    with pytest.raises(CfrlabError) as e:
        load_npz(f)
    assert "1,000,000,000 bytes" in one_line_error(e)


@pytest.mark.parametrize("header, words", [
    ([1, 2], "header is a JSON list, not an object"),
    ("strategy", "header is a JSON string, not an object"),
    (None, "header is a JSON null, not an object"),
])
def test_a_header_that_is_not_an_object_is_one_line(tmp_path, header, words):
    f = tmp_path / "h.npz"
    np.savez(f, policy=np.zeros((2, 3)), __header__=np.frombuffer(json.dumps(header).encode(), np.uint8))
    with pytest.raises(CfrlabError) as e:
        load_npz(f, kind="strategy")
    assert words in one_line_error(e)


def test_header_bytes_that_are_not_json_are_one_line(tmp_path):
    f = tmp_path / "h.npz"
    np.savez(f, __header__=np.frombuffer(b"\xff{not json\n\n", np.uint8))
    with pytest.raises(CfrlabError) as e:
        load_npz(f)
    assert "header is not JSON" in one_line_error(e)


def test_reader_checks_the_expected_shape_before_reading(tmp_path):
    f = tmp_path / "a.npz"
    save_npz(f, {"kind": "x"}, {"a": np.zeros((7, 3)), "b": np.arange(4)})
    with NpzReader(f, "x") as z:
        assert sorted(z.names) == ["a", "b"]
        assert z.declared("a") == ((7, 3), np.dtype(np.float64))
        assert z.read("a", shape=(None, 3), dtype=np.float64).shape == (7, 3)
        with pytest.raises(CfrlabError, match=r"shape \(7, 3\), expected \(8, 3\)"):
            z.read("a", shape=(8, 3))
        with pytest.raises(CfrlabError, match="is int64, expected float64"):
            z.read("b", dtype=np.float64)
        with pytest.raises(CfrlabError, match="no array 'c'"):
            z.read("c")


# -- strategies: rows must be distributions over the legal actions ---------------------------


def _place(strategy: Strategy, row: int) -> str:
    """'(betting ..., player p, state s' for ``row``, found by scanning the layout in Python."""
    off = strategy.row_offset
    for d in range(len(off) - 1):
        if off[d] <= row < off[d + 1]:
            node = int(strategy.tree.decision_node[d])
            return (f"row {row} (betting {strategy.tree.betting[node]!r}, "
                    f"player {int(strategy.tree.player[node])}, state {row - int(off[d])}")
    raise AssertionError(row)


@pytest.mark.parametrize("fault, words", [
    ("zero", "sums to 0, not 1"),
    ("double", "sums to 2, not 1"),
    ("negative", "probability -0.5, below 0"),
    ("nan", "non-finite entries"),
    ("illegal", "is not legal there"),
])
def test_bad_rows_are_refused_naming_the_row(leduc, tmp_path, fault, words):
    pol = leduc.policy.copy()
    legal = np.repeat(leduc.tree.legal, np.diff(leduc.row_offset), axis=0)
    row = int(np.flatnonzero(~legal[:, 0])[7])  # a row where fold is illegal (nothing to call)
    if fault == "zero":
        pol[row] = 0.0
    elif fault == "double":
        pol[row] *= 2
    elif fault == "negative":
        pol[row] = [0.0, -0.5, 1.5]
    elif fault == "nan":
        pol[row, 1] = np.nan
    else:
        pol[row] = [0.5, 0.5, 0.0]
    f = strategy_file(tmp_path / "bad.npz", leduc, pol)
    with pytest.raises(CfrlabError) as e:
        Strategy.load(f)
    msg = one_line_error(e)
    assert msg.startswith(f"{f}: {_place(leduc, row)}") and words in msg
    with pytest.raises(CfrlabError) as e:  # built in Python: the same check
        Strategy.from_policy(leduc.game, pol, tree=leduc.tree, model=leduc.model)
    assert one_line_error(e).startswith(f"policy: {_place(leduc, row)}")


def test_tolerances_accept_rounding_and_refuse_more(leduc):
    pol = leduc.policy.copy()
    pol[3] *= 1 + 5e-7
    pol[4] = np.where(pol[4] > 0, pol[4], -1e-12)
    check_policy(pol, leduc.tree, leduc.model, leduc.row_offset)
    pol[5] *= 1 + 5e-6
    with pytest.raises(CfrlabError, match="row 5 .*sums to 1.000005"):
        check_policy(pol, leduc.tree, leduc.model, leduc.row_offset)


def test_the_first_bad_row_is_found_across_chunks(leduc, monkeypatch):
    import cfrlab.strategy as S

    monkeypatch.setattr(S, "CHECK_CHUNK_ROWS", 100)
    pol = leduc.policy.copy()
    pol[[250, 777]] = 0.0
    with pytest.raises(CfrlabError, match=r"^policy: row 250 \("):
        check_policy(pol, leduc.tree, leduc.model, leduc.row_offset)
    with pytest.raises(CfrlabError, match=r"^x: row 250 sums to 0"):  # no layout: no betting named
        check_policy(pol, where="x")


def test_a_policy_of_the_wrong_row_count_is_refused_before_it_is_read(leduc, tmp_path):
    f = strategy_file(tmp_path / "s.npz", leduc, np.full((leduc.policy.shape[0] + 1, 3), 1 / 3))
    tracemalloc.start()
    try:
        with pytest.raises(CfrlabError) as e:
            Strategy.load(f)
    finally:
        tracemalloc.stop()
    assert f"({leduc.policy.shape[0] + 1} rows, the game has {leduc.policy.shape[0]})" in one_line_error(e)


@pytest.mark.parametrize("field, value, words", [
    ("game", 12345, "'game' is 12345, expected text"),
    ("iterations", "lots", "'iterations' is 'lots', expected an integer"),
    ("iterations", -3, "'iterations' is -3, below 0"),
    ("seconds", "1s", "'seconds' is '1s', expected a number"),
    ("format", True, "'format' is True, expected an integer"),
    ("format", 0, "strategy format 0 is not readable"),
    ("params", [1], "'params' is [1], expected an object"),
    ("exploitability", "low", "'exploitability' is 'low', expected a number or null"),
    ("algorithm", {"a": 1}, "'algorithm' is {'a': 1}, expected text or null"),
    ("model_kind", None, "'model_kind' is None, expected text"),
])
def test_header_fields_of_the_wrong_type_are_one_line(leduc, tmp_path, field, value, words):
    f = strategy_file(tmp_path / "h.npz", leduc, **{field: value})
    with pytest.raises(CfrlabError) as e:
        Strategy.load(f)
    assert words in one_line_error(e)


def test_a_missing_game_field_is_named(leduc, tmp_path):
    header = {k: v for k, v in leduc.header.items() if k != "game"}
    f = tmp_path / "g.npz"
    save_npz(f, header, {"policy": leduc.policy})
    with pytest.raises(CfrlabError, match="no 'game' field"):
        Strategy.load(f)


def test_a_good_file_round_trips(leduc, tmp_path):
    f = strategy_file(tmp_path / "ok.npz", leduc)
    s = Strategy.load(f)
    assert np.array_equal(s.policy, leduc.policy) and s.header == leduc.header


def test_openspiel_import_fills_unreached_rows_with_valid_distributions():
    from cfrlab.interop.openspiel import export_openspiel, import_openspiel

    g = load_game("kuhn")
    tree, model = build_tree_for(g), model_for_game(g)
    s = Strategy.uniform(g, tree=tree, model=model)
    back = import_openspiel(g, export_openspiel(s), tree=tree, model=model)
    check_policy(back.policy, tree, model, back.row_offset)


# -- temp files of writers that died -------------------------------------------------------


def test_temp_files_are_named_for_their_target_and_writer(tmp_path):
    target = tmp_path / "ckpt.npz"
    with atomic_open(target) as f:
        names = [p.name for p in tmp_path.iterdir()]
        assert names == [f".ckpt.npz.{os.getpid()}.tmp"]
        assert stale_temps(target) == []  # this process is writing it: not stale
        with atomic_open(target) as g:  # a second write of the same target at once
            assert sorted(p.name for p in tmp_path.iterdir()) == [
                f".ckpt.npz.{os.getpid()}-1.tmp", f".ckpt.npz.{os.getpid()}.tmp"]
            g.write(b"b")
        f.write(b"a")
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.npz"] and target.read_bytes() == b"a"


KILLED_WRITER = """
import os, signal, sys
from cfrlab.fileio import atomic_open
with atomic_open(sys.argv[1]) as f:
    f.write(b"half a checkpoint")
    f.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_writer_killed_mid_write_leaves_a_temp_that_the_next_write_removes(tmp_path):
    target = tmp_path / "run.ckpt.npz"
    save_npz(target, {"kind": "checkpoint", "n": 1}, {"a": np.zeros(3)})
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)])
    assert proc.wait(timeout=120) == -signal.SIGKILL
    leftover = tmp_path / f".run.ckpt.npz.{proc.pid}.tmp"
    assert leftover.read_bytes() == b"half a checkpoint"
    assert load_npz(target)[0]["n"] == 1  # the target is untouched
    # stale too: a temp of this process that no write of it holds; kept: another target's
    # temp, and one of a live process (the parent) written after that process started
    own = tmp_path / f".run.ckpt.npz.{os.getpid()}-3.tmp"
    own.write_bytes(b"x")
    other_target = tmp_path / f".other.npz.{proc.pid}.tmp"
    other_target.write_bytes(b"x")
    live = tmp_path / f".run.ckpt.npz.{os.getppid()}.tmp"
    live.write_bytes(b"x")
    assert sorted(stale_temps(target)) == sorted([leftover, own])
    save_npz(target, {"kind": "checkpoint", "n": 2}, {"a": np.zeros(3)})
    assert not leftover.exists() and not own.exists()
    assert other_target.exists() and live.exists()
    assert load_npz(target)[0]["n"] == 2
    assert remove_stale_temps(target) == []


def test_a_temp_older_than_the_live_process_holding_its_pid_is_stale(tmp_path):
    target = tmp_path / "x.npz"
    tmp = tmp_path / f".x.npz.{os.getppid()}.tmp"
    tmp.write_bytes(b"x")
    os.utime(tmp, (1_000_000_000, 1_000_000_000))  # 2001: before the parent process started
    assert stale_temps(target) == [tmp]


# -- abstraction files ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def abstraction(tmp_path_factory):
    from test_metrics import holdem

    from cfrlab.abstraction.bucketed import BucketedModel
    from cfrlab.abstraction.buckets import BucketSpec

    game = holdem(4, 3)
    model = BucketedModel.build(game, BucketSpec.make(4, 2))
    path = tmp_path_factory.mktemp("abs") / "abs.npz"
    model.save(path)
    header, arrays = load_npz(path, "abstraction")
    return game, path, header, arrays


def _load_abstraction(path):
    from cfrlab.abstraction.bucketed import BucketedModel

    return BucketedModel.load(path)


@pytest.mark.parametrize("change, words", [
    ({"spec": [1, 2]}, "'spec' is [1, 2], expected dict"),
    ({"game": 12345}, "'game' is 12345, expected str"),
    ({"format": "1"}, "abstraction format '1' is not supported"),
    ({"num_states": [2, 4, 8, "16"]}, "'num_states' is"),
    ({"num_states": [2, 4, 8, 17]}, "states [2, 4, 8, 17]"),
    ({"spec": {"levels": [[["ehs2", "2"]]] * 4, "method": "percentile", "history": True,
               "recall": "perfect"}}, "'spec' levels are not lists of [metric, count >= 1] pairs"),
    ({"spec": {"levels": [[["ehs2", 2]]] * 4, "method": 5, "history": True, "recall": "perfect"}},
     "'spec' needs text 'method'"),
    ({"spec": {"levels": [[["ehs9", 2]]] * 4, "method": "percentile", "history": True,
               "recall": "perfect"}}, "unknown metric 'ehs9'"),
    ({"hash": "0" * 64}, "do not match its hash"),
])
def test_abstraction_headers_of_the_wrong_shape_are_one_line(abstraction, tmp_path, change, words):
    _, _, header, arrays = abstraction
    f = tmp_path / "a.npz"
    save_npz(f, {**header, **change}, arrays)
    with pytest.raises(CfrlabError) as e:
        _load_abstraction(f)
    assert words in one_line_error(e)


@pytest.mark.parametrize("name, value, words", [
    ("fold1", np.zeros((5, 5)), "round 1's joint table has shape (5, 5), expected (4, 4)"),
    ("showdown", np.zeros((16, 16), dtype=np.float32), "the showdown table is float32, expected float64"),
    ("mass0", np.array([np.nan, 1.0]), "non-finite masses"),
    ("last", np.zeros((2, 2)), "bucket table is float64, not integers"),
    ("state0", None, "missing 'state0'"),
])
def test_abstraction_tables_of_the_wrong_shape_are_refused(abstraction, tmp_path, name, value, words):
    _, _, header, arrays = abstraction
    arrays = dict(arrays)
    if value is None:
        del arrays[name]
    else:
        arrays[name] = value
    f = tmp_path / "a.npz"
    save_npz(f, header, arrays)
    with pytest.raises(CfrlabError) as e:
        _load_abstraction(f)
    assert words in one_line_error(e)


def test_a_good_abstraction_still_loads(abstraction):
    _, path, header, _ = abstraction
    assert _load_abstraction(path).hash == header["hash"]


# -- checkpoints ----------------------------------------------------------------------------


@pytest.fixture()
def checkpoint(tmp_path):
    from cfrlab.solvers import make_solver
    from cfrlab.solvers.driver import Checkpointer, RunState

    g = load_game("kuhn")
    tree, model = build_tree_for(g), model_for_game(g)
    solver = make_solver(tree, model, "cfr+")
    solver.iterate(7)
    identity = {"game": g.to_text(), "game_name": "kuhn", "model_hash": str(model.hash),
                "algorithm": "cfr+", "params": {}, "seed": None}
    path = tmp_path / "run.ckpt"
    Checkpointer(path, identity).save(solver, RunState(history=[(7, 0.1, 0.2)]))

    def fresh():
        return Checkpointer(path, identity), make_solver(tree, model, "cfr+")
    return path, fresh


@pytest.mark.parametrize("change, words", [
    ({"iterations": "lots"}, "'iterations' is 'lots', expected an integer >= 0"),
    ({"format": True}, "checkpoint format True is not readable"),
    ({"run": {"history": [[1, 2]]}}, "run 'history' is not a list of [iteration, seconds, exploitability]"),
    ({"run": {"solver_seconds": "1 h"}}, "run 'solver_seconds' is '1 h'"),
    ({"solver_state": [1]}, "'solver_state' is [1], expected an object"),
    ({"game": 7}, "'game' is 7, expected text"),
])
def test_checkpoint_headers_of_the_wrong_type_are_one_line(checkpoint, change, words):
    path, fresh = checkpoint
    header, arrays = load_npz(path, "checkpoint")
    save_npz(path, {**header, **change}, arrays)
    ck, solver = fresh()
    with pytest.raises(CfrlabError) as e:
        ck.load(solver)
    assert words in one_line_error(e) and solver.iterations == 0


def test_checkpoint_tables_of_another_shape_are_refused_before_reading(checkpoint):
    path, fresh = checkpoint
    header, arrays = load_npz(path, "checkpoint")
    rows = arrays["s.regret"].shape[0]
    save_npz(path, header, {**arrays, "s.regret": np.zeros((rows + 5, 3))})
    ck, solver = fresh()
    with pytest.raises(CfrlabError) as e:
        ck.load(solver)
    assert f"'regret' table has shape ({rows + 5}, 3), expected ({rows}, 3)" in one_line_error(e)


def test_resuming_removes_the_temp_of_a_killed_checkpoint_write(checkpoint):
    path, fresh = checkpoint
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)])
    assert proc.wait(timeout=120) == -signal.SIGKILL
    leftover = path.parent / f".{path.name}.{proc.pid}.tmp"
    assert leftover.exists()
    ck, solver = fresh()
    run = ck.load(solver)
    assert not leftover.exists() and solver.iterations == 7 and run.history == [(7, 0.1, 0.2)]
