"""Issue 27, fault injection: inputs the CLI answered wrongly. Each is one readable line and a
non-zero exit (or, for file-provided text, printed escaped), before any work starts."""

from __future__ import annotations

import pytest
from cli_run import one_line_error, run

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
    code, _, err = run(capsys, "abstract", "build", "holdem-limit", "--buckets", buckets, "-o", str(out_file), "-q")
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
    code, _, err = run(capsys, "match", "kuhn", spec, "always-call", "-n", "10", "-s", "1")
    one_line_error(code, err, "a team member is empty")


@pytest.mark.parametrize("conf", ["linear:1e400", "step:inf", "linear:nan", "linear:0", "linear:-5"])
def test_dbr_confidence_count_must_be_finite_and_positive(capsys, tmp_path, conf):
    # 1e400 reads as inf: a confidence that never rises, accepted with exit 0
    code, _, err = run(capsys, "counter", "dbr", str(tmp_path / "no-model.json"), "--p-max", "0.5",
                       "--confidence", conf)
    one_line_error(code, err, "observation count must be a positive finite number")


# -- what a strategy file says of itself ------------------------------------------------------


@pytest.fixture(scope="module")
def kuhn_strategy():
    import cfrlab

    return cfrlab.solve("kuhn", "cfr+", iterations=200).strategy


def forged(strategy, path, **fields):
    from cfrlab.fileio import save_npz

    save_npz(path, {**strategy.header, **fields}, {"policy": strategy.policy})
    return str(path)


@pytest.mark.parametrize("value, shown", [
    (0.0, "exploitability recorded at save: 0 chips/g"),
    (-1.0, "the recorded exploitability is not a measurement (below 0), ignored"),
    (None, "no exploitability recorded"),
])
def test_strategy_show_labels_the_header_exploitability_as_recorded(capsys, tmp_path, kuhn_strategy, value, shown):
    f = forged(kuhn_strategy, tmp_path / "s.npz", exploitability=value)
    code, out, err = run(capsys, "strategy", "show", f)
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.endswith(shown), first
    assert "exploitability 0 chips/g" not in out and "exploitability -1" not in out


def test_exploit_measures_and_says_when_the_file_records_another_figure(capsys, tmp_path, kuhn_strategy):
    measured = kuhn_strategy.exploitability()
    f = forged(kuhn_strategy, tmp_path / "s.npz", exploitability=0.0)
    code, out, err = run(capsys, "exploit", f, "--json")
    assert code == 0, err
    assert "recorded at save" not in out.splitlines()[0]  # the header line shows no figure as fact
    assert f"exploitability {measured:.3g} chips/g (mean of the two, measured now)" in out
    assert "note: the file records 0 chips/g at save, not what was measured now" in out
    honest = forged(kuhn_strategy, tmp_path / "h.npz", exploitability=measured)
    code, out, _ = run(capsys, "exploit", honest)
    assert code == 0 and "note:" not in out


ANSI = "\x1b[2J\x1b[Hcfr+\ncfrlab: error: forged"


def test_header_strings_are_printed_escaped(capsys, tmp_path, kuhn_strategy):
    f = forged(kuhn_strategy, tmp_path / "s.npz", algorithm=ANSI, game_name="\x1b[31mkuhn\u202e")
    for argv in (["strategy", "show", f], ["exploit", f]):
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        assert "\x1b" not in out + err and "\u202e" not in out
        assert "\\x1b[31mkuhn\\u202e: \\x1b[2J\\x1b[Hcfr+\\x0acfrlab: error: forged after 200 iterations" in out
        assert not any(line.startswith("cfrlab: error") for line in out.splitlines())


def test_error_lines_escape_what_a_file_put_in_them(capsys, tmp_path, kuhn_strategy):
    f = forged(kuhn_strategy, tmp_path / "s.npz", game_name="\x1b[2Jkuhn\nforged")
    code, _, err = run(capsys, "match", "leduc", f, "always-call", "-n", "10", "-s", "1")
    line = one_line_error(code, err, "\\x1b[2Jkuhn\\x0aforged")
    assert "\x1b" not in line


# -- checkpoints ------------------------------------------------------------------------------


def _seed(algorithm):
    return ["-s", "3"] if algorithm in ("cs", "pcs", "es", "os") else []


def _checkpointed(capsys, tmp_path, algorithm):
    out = tmp_path / "s.npz"
    code, _, err = run(capsys, "solve", "kuhn", "-a", algorithm, "-n", "20", *_seed(algorithm), "--out", str(out),
                       "--checkpoint-every", "10", "--no-progress")
    assert code == 0, err
    return out, tmp_path / "s.ckpt.npz"


def _poison(ckpt, name, edit):
    from cfrlab.fileio import NpzReader, save_npz

    with NpzReader(ckpt) as z:
        header = z.header
        arrays = {k: z.read(k) for k in z.names if k != "__header__"}
    arrays[name] = edit(arrays[name].copy())
    save_npz(ckpt, header, arrays)


def _nan(a):
    a.flat[1] = float("nan")
    return a


def _negative(a):
    a.flat[1] = -1.0
    return a


@pytest.mark.parametrize("algorithm, name, edit, words", [
    ("cfr", "s.avg", _nan, "average-strategy sums"),
    ("cfr", "s.avg", _negative, "average-strategy sums"),
    ("cfr", "s.regret", _nan, "regrets hold NaN"),
    ("cfr+", "s.regret", _negative, "regrets go below 0"),
    ("es", "s.avg", _negative, "average-strategy sums"),
    ("os", "s.regret", _nan, "regrets hold NaN"),
])
def test_resume_refuses_a_checkpoint_no_run_could_write(capsys, tmp_path, algorithm, name, edit, words):
    out, ckpt = _checkpointed(capsys, tmp_path, algorithm)
    _poison(ckpt, name, edit)
    code, _, err = run(capsys, "solve", "kuhn", "-a", algorithm, "-n", "30", *_seed(algorithm), "--out", str(out),
                       "--resume", "--no-progress")
    one_line_error(code, err, str(ckpt), "checkpoint refused", words)


def test_negative_regrets_are_fine_where_they_are_not_floored(capsys, tmp_path):
    out, ckpt = _checkpointed(capsys, tmp_path, "cfr")
    _poison(ckpt, "s.regret", _negative)
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "30", "--out", str(out), "--resume",
                       "--no-progress")
    assert code == 0, err
