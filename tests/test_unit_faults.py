"""Faults in the files and inputs of long jobs made of units (issue 27): a real-game best
response resumed from a checkpoint folder whose unit files were damaged, replaced or are not
files at all gives the exact answer of an undamaged run (bad units are computed again, each
said in one line) and never loads a pickle; ``--workers`` has a cap; LBR streams any number of
hands in bounded memory.

The job: a random Leduc strategy (6 units, one per first card: no suit symmetry)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from cli_run import run

from cfrlab.errors import CfrlabError
from cfrlab.jobs import max_workers
from cfrlab.realgame import AgentSpec, real_best_response
from cfrlab.realgame.lbr import local_best_response
from cfrlab.strategy import Strategy


def _strategy(seed: int) -> Strategy:
    s = Strategy.uniform("leduc")
    pol = s.policy * np.random.default_rng(seed).random(s.policy.shape) ** 2
    return Strategy.from_policy(s.game, pol / pol.sum(axis=1, keepdims=True))


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """(strategy, its exact result, a complete checkpoint folder, another strategy's folder)."""
    root = tmp_path_factory.mktemp("units")
    s = _strategy(1)
    ref = real_best_response(s, checkpoint=root / "ck")
    real_best_response(_strategy(2), checkpoint=root / "other")
    assert ref.units == 6
    return s, ref, root / "ck", root / "other"


def _unit(folder: Path, i: int) -> Path:
    (p,) = folder.glob(f"unit-{i:06d}.*")
    return p


def _rewrite_values(path: Path, f) -> None:
    """Replace a unit file's array by ``f(array)``, keeping whatever else the file holds (its
    checksum): a unit changed after it was written."""
    data = np.load(path, allow_pickle=False)
    if isinstance(data, np.ndarray):
        np.save(path.open("wb"), f(data), allow_pickle=False)
        return
    parts = {k: data[k] for k in data.files}
    key = "values" if "values" in parts else next(iter(parts))
    parts[key] = f(parts[key])
    with path.open("wb") as out:
        np.savez(out, **parts)


class _Touch:
    """A pickle that, when loaded, leaves a file behind."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _fault(kind: str, path: Path, other: Path, tmp: Path) -> None:
    if kind == "zeroed":
        _rewrite_values(path, np.zeros_like)
    elif kind == "doubled":
        _rewrite_values(path, lambda a: 2 * a)
    elif kind == "nan":
        _rewrite_values(path, lambda a: np.full_like(a, np.nan))
    elif kind == "reshaped":
        _rewrite_values(path, lambda a: a.reshape(-1))
    elif kind == "float32":
        _rewrite_values(path, lambda a: a.astype(np.float32))
    elif kind == "other-strategy":
        shutil.copyfile(_unit(other, 0), path)
    elif kind == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2])
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "garbage":
        path.write_bytes(os.urandom(4000))
    elif kind == "pickled":
        payload = np.array([_Touch(tmp / "unpickled")], dtype=object)
        if path.suffix == ".npz":
            with path.open("wb") as out:
                np.savez(out, values=payload, check=np.array("0" * 64))
        else:
            np.save(path.open("wb"), payload, allow_pickle=True)
    else:
        raise AssertionError(kind)


FAULTS = ["zeroed", "doubled", "nan", "reshaped", "float32", "other-strategy", "truncated",
          "empty", "garbage", "pickled"]


@pytest.mark.parametrize("kind", FAULTS)
def test_a_bad_unit_is_computed_again_and_said_in_one_line(job, tmp_path, capsys, kind):
    s, ref, ck0, other = job
    ck = tmp_path / "ck"
    shutil.copytree(ck0, ck)
    bad = _unit(ck, 0)
    _fault(kind, bad, other, tmp_path)
    capsys.readouterr()
    got = real_best_response(s, checkpoint=ck, resume=True)
    err = capsys.readouterr().err
    assert got.br == ref.br  # bit for bit: the bad unit was not used
    assert got.units_computed == 1
    lines = [x for x in err.splitlines() if "warning" in x]
    assert len(lines) == 1 and bad.name in lines[0] and "computed again" in lines[0], err
    assert not (tmp_path / "unpickled").exists()
    # the unit written again is good: the next resume computes nothing and says nothing
    again = real_best_response(s, checkpoint=ck, resume=True)
    assert again.br == ref.br and again.units_computed == 0
    assert "warning" not in capsys.readouterr().err


def test_a_unit_renamed_to_another_index_is_computed_again(job, tmp_path, capsys):
    s, ref, ck0, _ = job
    ck = tmp_path / "ck"
    shutil.copytree(ck0, ck)
    shutil.copyfile(_unit(ck, 1), _unit(ck, 0))
    got = real_best_response(s, checkpoint=ck, resume=True)
    assert got.br == ref.br and got.units_computed == 1
    assert "warning" in capsys.readouterr().err


def test_cli_resume_with_an_empty_unit_gives_the_exact_value(job, tmp_path, capsys):
    s, ref, ck0, _ = job
    ck = tmp_path / "ck"
    shutil.copytree(ck0, ck)
    _unit(ck, 3).write_bytes(b"")
    s.save(tmp_path / "s.npz")
    code, out, err = run(capsys, "exploit", str(tmp_path / "s.npz"), "--real", "--resume",
                         "--checkpoint", str(ck), "--json")
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1])["exploitability"] == ref.exploitability
    assert "Traceback" not in err and "interrupted" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_a_unit_file_does_not_hang(job, tmp_path):
    s, ref, ck0, _ = job
    ck = tmp_path / "ck"
    shutil.copytree(ck0, ck)
    fifo = _unit(ck, 2)
    fifo.unlink()
    os.mkfifo(fifo)
    s.save(tmp_path / "s.npz")
    try:  # a hang is a failure after two minutes, not a stuck test run
        done = subprocess.run([sys.executable, "-m", "cfrlab.cli.main", "exploit",
                               str(tmp_path / "s.npz"), "--real", "--resume", "--checkpoint",
                               str(ck), "--json"], capture_output=True, text=True, timeout=120,
                               check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("exploit --real --resume hung on a FIFO in the checkpoint folder")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["exploitability"] == ref.exploitability
    assert fifo.is_file()  # replaced by the unit computed again


def test_units_of_an_older_store_are_refused_not_trusted(job, tmp_path):
    s, _, ck0, _ = job
    ck = tmp_path / "ck"
    shutil.copytree(ck0, ck)
    meta = json.loads((ck / "meta.json").read_text())
    meta.pop("store", None)
    (ck / "meta.json").write_text(json.dumps(meta))
    for p in ck.glob("unit-*"):
        p.rename(p.with_suffix(".npy"))
    with pytest.raises(CfrlabError, match="another job"):
        real_best_response(s, checkpoint=ck, resume=True)


# -- --workers has a cap ----------------------------------------------------------------------

def test_the_api_refuses_too_many_workers():
    too_many = max_workers() + 1
    with pytest.raises(CfrlabError, match=rf"^workers must be at most {max_workers()}\b"):
        real_best_response(_strategy(1), workers=too_many)
    with pytest.raises(CfrlabError, match=r"^workers must be at most"):
        local_best_response(AgentSpec("always-call"), "leduc", hands=10, workers=too_many)


@pytest.mark.parametrize("argv", [
    ["exploit-real", "always-call", "--game", "leduc"],
    ["exploit", "always-call", "--real", "--game", "leduc"],
    ["lbr", "always-call", "--game", "leduc", "--hands", "10"],
    ["match", "leduc", "random", "always-call", "-n", "100"],
])
def test_every_command_refuses_too_many_workers_in_one_line(capsys, argv):
    code, _, err = run(capsys, *argv, "--workers", "100000")
    assert code == 2 and err.count("\n") == 1, err
    assert f"--workers must be at most {max_workers()}" in err and "got 100,000" in err


# -- LBR: any number of hands in bounded memory -------------------------------------------------

LBR_DRIVER = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # 3 GB: the job must fit
    from cfrlab.errors import CfrlabError
    from cfrlab.realgame import AgentSpec
    from cfrlab.realgame.lbr import local_best_response

    class Enough(Exception):
        pass

    def progress(done, total, elapsed, eta):
        if done >= 3:
            print(f"{done} of {total}", flush=True)
            raise Enough

    if __name__ == "__main__":  # worker processes import this file too
        try:
            local_best_response(AgentSpec("always-call"), "leduc", hands=int(sys.argv[2]),
                                progress=progress, workers=int(sys.argv[1]))
        except Enough:
            sys.exit(0)
        except CfrlabError as e:
            print(e, flush=True)
            sys.exit(2)
""")


def _lbr_in_bounded_memory(tmp_path, workers: int, hands: int) -> subprocess.CompletedProcess:
    """The run in a process limited to 3 GB of address space (a run that allocates by the
    number of hands fails there at once, not by exhausting the machine)."""
    script = tmp_path / "lbr.py"
    script.write_text(LBR_DRIVER)
    return subprocess.run([sys.executable, str(script), str(workers), str(hands)],
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("workers", [1, 2])
def test_lbr_streams_a_trillion_hands_in_bounded_memory(tmp_path, workers):
    done = _lbr_in_bounded_memory(tmp_path, workers, 10**12)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "of 5000000000" in done.stdout  # 5e11 duplicate deals in blocks of 100


def test_lbr_refuses_more_hands_than_its_deal_streams_hold(tmp_path):
    done = _lbr_in_bounded_memory(tmp_path, 1, 2**70)
    assert done.returncode == 2 and "hands must be at most" in done.stdout, done.stderr[-2000:]


def test_lbr_large_runs_keep_moments_not_every_deal():
    small = local_best_response(AgentSpec("random"), "leduc", hands=400, seed=3, block=50)
    assert small.winnings is not None and small.winnings.shape == (200, 2)
    pair = small.winnings.mean(axis=1)
    assert small.value == pytest.approx(pair.mean(), abs=1e-12)
    assert small.ci95 == pytest.approx(1.959963984540054 * pair.std(ddof=1) / np.sqrt(200), rel=1e-9)


def test_a_lost_meta_file_keeps_the_units_that_pass_their_checks(job, tmp_path, capsys):
    s, ref, ck0, other = job
    ck = tmp_path / "ck"
    shutil.copytree(ck0, ck)
    (ck / "meta.json").unlink()
    shutil.copyfile(_unit(other, 4), _unit(ck, 4))  # and one unit of another job
    got = real_best_response(s, checkpoint=ck, resume=True)
    assert got.br == ref.br and got.units_computed == 1
    assert "unit-000004" in capsys.readouterr().err
