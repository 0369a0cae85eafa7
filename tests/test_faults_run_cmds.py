"""Issue 43, fault injection: options of solve, lbr and cfrbr that were accepted (or gave a
traceback) when they should be refused in one line naming what is allowed."""

from __future__ import annotations

import pytest
from cli_run import one_line_error, run

# -- solve ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1e308", "1e12", "31536001"])
def test_solve_seconds_is_bounded(capsys, value):
    # 1e308 is finite: rate * 1e308 overflowed to inf in the solver's chunk size (a traceback)
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr", "--seconds", value, "--no-progress")
    one_line_error(code, err, "--seconds must be at most 31,536,000", "leave it out for no time limit")
    assert out == ""


def test_api_solve_takes_a_huge_finite_time_budget():
    # the Python API has no CLI bound: seconds=1e308 overflowed int(rate * seconds) in the
    # solver's chunk size (OverflowError); now it is no time limit in practice
    from cfrlab import api

    assert api.solve("kuhn", seconds=1e308, iterations=3).iterations == 3


def test_solve_seconds_up_to_the_bound_is_taken(capsys):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "20", "--seconds", "31536000",
                         "--no-progress")
    assert code == 0, err
    assert "20 iterations" in out


@pytest.mark.parametrize("value", ["-1", "-100"])
def test_solve_show_must_not_be_negative(capsys, value):
    # was accepted: "0 of 3 private states shown" after the solve
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "5", "--show", value,
                         "--no-progress")
    one_line_error(code, err, "--show", value, "0")
    assert out == ""


# -- cfrbr --------------------------------------------------------------------------------------


@pytest.mark.parametrize("workers, words", [
    ("0", ["--workers must be at least 1, got 0"]),
    ("-3", ["--workers must be at least 1, got -3"]),
    ("100000", ["--workers must be at most", "per CPU", "got 100,000"]),
])
def test_cfrbr_workers_in_the_allowed_range(capsys, tmp_path, workers, words):
    # both were accepted (the abstraction file was checked first, or the run started)
    code, _, err = run(capsys, "cfrbr", "leduc", "--abstraction", str(tmp_path / "none.npz"),
                       "--trunk", "1", "--workers", workers, "--no-progress")
    one_line_error(code, err, *words)


@pytest.mark.parametrize("value, words", [
    ("nan", ["--checkpoint-every must be a finite number of seconds"]),
    ("inf", ["--checkpoint-every must be a finite number of seconds"]),
    ("1e308", ["--checkpoint-every must be at most 31,536,000 seconds"]),
    ("0", ["--checkpoint-every must be above 0"]),
])
def test_cfrbr_checkpoint_every_is_a_bounded_time(capsys, tmp_path, value, words):
    code, _, err = run(capsys, "cfrbr", "leduc", "--abstraction", str(tmp_path / "none.npz"),
                       "--checkpoint-every", value, "--no-progress")
    one_line_error(code, err, *words)


# -- lbr ----------------------------------------------------------------------------------------


def test_lbr_refuses_a_run_its_pace_says_takes_too_long(capsys):
    # --hands 10**12 started (its own estimate: 596,870 h); now refused a second or so in
    code, out, err = run(capsys, "lbr", "always-call", "--game", "kuhn", "--hands", str(2**62))
    line = one_line_error(code, err, "--hands 4,611,686,018,427,387,904 would take about",
                          "more than the 24 h allowed without --force", "--force to run anyway")
    assert " h at the pace measured" in line
    assert out == ""


def test_lbr_pace_check_refuses_past_the_bound_unless_forced():
    from cfrlab.cli.lbr_cmd import MAX_HOURS, PaceCheck
    from cfrlab.errors import CfrlabError

    def feed(check, seconds_per_unit, total):
        for done in range(30):
            check(done, total, 5.0 + done * seconds_per_unit)  # 5 s before the first unit: compiles

    units = int(MAX_HOURS * 3600 / 0.1)  # 0.1 s a unit: exactly MAX_HOURS for this many units
    feed(PaceCheck(200 * units, 100, 1, False), 0.1, units)  # at the bound: taken
    with pytest.raises(CfrlabError, match="more than the 24 h allowed"):
        feed(PaceCheck(200 * units, 100, 1, False), 0.1, 2 * units)
    feed(PaceCheck(200 * units, 100, 1, True), 0.1, 2 * units)  # --force
    slow_start = PaceCheck(200 * units, 100, 1, False)  # the first unit's compile is not the pace
    slow_start(0, units, 0.0)
    slow_start(1, units, 3600.0)
    for done in range(2, 30):
        slow_start(done, units, 3600.0 + (done - 1) * 0.05)
    assert slow_start.settled


def test_lbr_runs_past_the_bound_with_force_and_says_what_it_counts(capsys):
    code, out, err = run(capsys, "lbr", "always-call", "--game", "kuhn", "--hands", "300", "--force",
                         "--json")
    assert code == 0, err
    assert "300 hands (150 duplicate deals" in out


def test_lbr_hands_and_match_n_duplicate_say_what_they_count(capsys):
    # lbr --hands N played N hands (N/2 deals), match -n N --duplicate N deals (2N games), and
    # neither said so: their help and output now name both counts, and they agree
    import json

    code, out, err = run(capsys, "lbr", "always-call", "--game", "kuhn", "--hands", "300", "--json")
    assert code == 0, err
    lbr = json.loads(out.strip().splitlines()[-1])
    code, out, err = run(capsys, "match", "kuhn", "always-call", "random", "-n", "150", "-d", "-s", "1",
                         "--json")
    assert code == 0, err
    match = json.loads(out.strip().splitlines()[-1])
    assert (lbr["hands"], lbr["deals"]) == (300, 150)
    assert (match["games"], match["hands"]) == (300, 150)  # match's "hands" are its deals
    assert "150 duplicate deals, 300 games" in " ".join(err.split())  # the table: stderr with --json
    _, lbr_help, _ = run(capsys, "lbr", "--help")
    _, match_help, _ = run(capsys, "match", "--help")
    flat = " ".join(lbr_help.replace("│", " ").split())
    assert "N/2 deals (rounded up), each played once in each seat" in flat, flat
    assert "match -n counts deals" in flat
    flat = " ".join(match_help.replace("│", " ").split())
    assert "number of deals: N games, or 2N with --duplicate" in flat, flat
    assert "lbr --hands N counts games" in flat


def test_match_memory_refusal_counts_deals_not_hands(capsys):
    code, _, err = run(capsys, "match", "holdem-limit", "probe", "probe", "-n", "10000000000", "--duplicate")
    one_line_error(code, err, "a match of 10,000,000,000 deals (20,000,000,000 games)")


# -- Ctrl-C at any moment -----------------------------------------------------------------------


def _commands() -> list[list[str]]:
    """The installed ``cfrlab`` script (what users run) and ``python -m cfrlab.cli.main``."""
    import shutil
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "cfrlab"
    out = [[sys.executable, "-m", "cfrlab.cli.main"]]
    if script.exists() or shutil.which("cfrlab"):
        out.insert(0, [str(script) if script.exists() else shutil.which("cfrlab")])
    return out


@pytest.mark.slow
def test_ctrl_c_early_in_any_command_is_one_line_and_130():
    # 1 try in 9 of Ctrl-C 0.3 s after the start gave a traceback: the KeyboardInterrupt came
    # while Python imported cfrlab (numba_cache's imports), before main() could catch it
    import os
    import signal
    import subprocess
    import time

    def sigint_default():
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background shell job ignores SIGINT

    solve = ["solve", "kuhn", "-a", "cfr", "-n", "100000000", "--no-progress"]
    script, module = (_commands() * 2)[:2]
    runs = [*((script, ["games"], d) for d in (0.0, 0.03, 0.06, 0.1, 0.15, 0.2, 0.3)),
            *((script, solve, d) for d in (0.25, 0.4, 0.6, 0.9)),
            *((module, ["games"], d) for d in (0.1, 0.2, 0.3)), (module, solve, 0.5)]
    for cmd, args, delay in runs:
        p = subprocess.Popen([*cmd, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=sigint_default)  # noqa: PLW1509
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        where = f"{' '.join(args)} interrupted after {delay} s: rc {p.returncode}, stderr {err!r}"
        if p.returncode == -signal.SIGINT and err == "":  # before Python could take the signal
            continue
        if "Traceback" in err and f"{os.sep}cfrlab{os.sep}" not in err:  # no frame in cfrlab:
            assert p.returncode != 0, where  # Python's own start-up (site, runpy, the streams, the
            continue  # import of the package itself), before any line of cfrlab ran
        if p.returncode == 0 and args == ["games"]:  # it had finished before the signal
            continue
        assert "Traceback" not in err and "Exception ignored" not in err, where
        # 130, or killed by SIGINT after the line (a shell's $? is 130 either way): CPython marks
        # a KeyboardInterrupt raised inside an eval() of text (namedtuple, while importing) as
        # unhandled even once cfrlab handled it, and re-raises SIGINT on the way out
        assert p.returncode in (130, -signal.SIGINT), where
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cfrlab: "), where
        assert "interrupted" in lines[0], where


def test_ctrl_c_in_lbr_ends_its_progress_line_and_says_what_was_played(capsys, monkeypatch):
    # the error line used to be glued to the open progress line ("... left ?   cfrlab: error: ...")
    import cfrlab.realgame.lbr as lbr_module

    def interrupted(*args, progress=None, **kwargs):
        progress(0, 100, 0.0, -1.0)
        for done in range(1, 40):
            progress(done, 100, 5.0 + done * 0.1, (100 - done) * 0.1)
        raise KeyboardInterrupt

    monkeypatch.setattr(lbr_module, "local_best_response", interrupted)
    code, out, err = run(capsys, "lbr", "always-call", "--game", "kuhn", "--hands", "20000", "--force")
    assert code == 130 and out == ""
    lines = err.replace("\r", "\n").strip().splitlines()
    assert lines[0].startswith("hands played 200/20,000")  # nothing printed at 0 hands
    assert lines[-1] == "cfrlab: interrupted (7,800 of 20,000 hands played; nothing is kept)"
    assert "Traceback" not in err


# -- connect ----------------------------------------------------------------------------------


@pytest.mark.parametrize("host, port, words", [
    ("127.0.0.1", "9" * 5000, ["PORT must be a number from 1 to 65535", "(5,000 characters)"]),
    ("127.0.0.1", "65536", ["PORT must be a number from 1 to 65535", "'65536'"]),
    ("127.0.0.1", "0", ["PORT must be a number from 1 to 65535"]),
    ("h" * 5000, "80", ["HOST is not a host name or address", "(5,000 characters)"]),
    ("a..b", "80", ["HOST is not a host name or address"]),
])
def test_connect_refuses_an_address_in_one_short_line(capsys, host, port, words):
    # a 5,000-digit PORT was echoed whole; a 5,000-character HOST was an IDNA traceback
    code, out, err = run(capsys, "connect", "kuhn", host, port, "--agent", "random", "--seed", "1")
    line = one_line_error(code, err, *words)
    assert len(line) < 200 and out == ""
