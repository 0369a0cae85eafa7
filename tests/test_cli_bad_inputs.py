"""Issue 27, fault injection: inputs the CLI answered wrongly. Each is one readable line and a
non-zero exit (or, for file-provided text, printed escaped), before any work starts."""

from __future__ import annotations

import pytest
from cli_run import run


def one_line_error(code: int, err: str, *words: str) -> str:
    assert code != 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cfrlab: error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# -- numbers on the command line --------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity"])
def test_solve_seconds_must_be_finite(capsys, value):
    # inf was an OverflowError traceback (int(rate * inf)); no time limit is --seconds left out
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr", "--seconds", value, "--no-progress")
    one_line_error(code, err, "--seconds must be a finite number", "leave it out for no time limit")
    assert out == ""


def test_api_seconds_must_be_finite():
    import cfrlab

    with pytest.raises(cfrlab.CfrlabError, match="seconds must be finite"):
        cfrlab.solve("kuhn", "cfr", seconds=float("inf"))


@pytest.mark.parametrize("buckets, words", [
    ("-3", ["bad bucket counts '-3'"]),             # was read as 3-3-3-3 and a full build started
    ("8--8-8-8", ["bad bucket counts"]),
    ("8-8-8-8-", ["bad bucket counts"]),
    ("0", ["each is at least 1"]),
    ("3-3", ["give one bucket count or 4", "got 2"]),
    ("\u0663", ["bad bucket counts"]),
])
def test_abstract_build_refuses_bad_bucket_counts_before_any_work(capsys, tmp_path, buckets, words):
    out_file = tmp_path / "a.npz"
    code, out, err = run(capsys, "abstract", "build", "holdem-limit", "--buckets", buckets, "-o", str(out_file), "-q")
    one_line_error(code, err, *words)
    assert not out_file.exists()


def test_abstract_sizes_refuses_bad_bucket_counts(capsys):
    code, _, err = run(capsys, "abstract", "sizes", "holdem-limit", "--buckets", "-3")
    one_line_error(code, err, "bad bucket counts '-3'")


def test_good_bucket_counts_still_read():
    from cfrlab.abstraction.buckets import parse_counts

    assert parse_counts("8-8-8-8", 4) == parse_counts("8 8 8 8", 4) == parse_counts("8, 8,8/8", 4) == (8,) * 4
    assert parse_counts("5", 4) == parse_counts(5, 4) == (5,) * 4
    assert parse_counts([1, 2, 3, 4], 4) == (1, 2, 3, 4)


# -- teams and the confidence function ---------------------------------------------------------


@pytest.mark.parametrize("spec", ["team:ucb1=always-call,,always-raise", "team:ucb1=always-call,",
                                  "team:ucb1= ,always-call"])
def test_empty_team_members_are_refused(capsys, spec):
    # they were skipped: a team of two where three were meant
    code, out, err = run(capsys, "match", "kuhn", spec, "always-call", "-n", "10", "-s", "1")
    one_line_error(code, err, "a team member is empty")


@pytest.mark.parametrize("conf", ["linear:1e400", "step:inf", "linear:nan", "linear:0", "linear:-5"])
def test_dbr_confidence_count_must_be_finite_and_positive(capsys, tmp_path, conf):
    # 1e400 reads as inf: a confidence that never rises, accepted with exit 0
    code, _, err = run(capsys, "counter", "dbr", str(tmp_path / "no-model.json"), "--p-max", "0.5",
                       "--confidence", conf)
    one_line_error(code, err, "observation count must be a positive finite number")
