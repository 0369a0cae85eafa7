"""The CLI's conventions (docs/cli.md): usage errors in one line, --version and -h, the game
first (the older --game still works), one meaning per short option, seeds drawn and printed,
output paths checked before any work, repeated --buckets, the matrix command, match memory,
Ctrl-C in one line, and the browser server's limits."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
from cli_run import one_line_error, run

from cfrlab.cli.main import app

CFRLAB = [sys.executable, "-m", "cfrlab.cli.main"]
HOST = "127.0.0.1"



# -- usage errors, --version, -h, help placeholders ------------------------------------------

@pytest.mark.parametrize("argv, words", [
    (["solve"], ["missing argument 'GAME'", "(see cfrlab solve --help)"]),
    (["solve", "kuhn"], ["missing option '--algorithm'", "(see cfrlab solve --help)"]),
    (["solve", "kuhn", "-a", "cfr", "-n", "many"], ["invalid value for '--iterations'"]),
    (["solve", "kuhn", "-a", "cfr", "-n", "3", "--bogus"], ["no such option: --bogus"]),
    (["nosuch"], ["no such command 'nosuch'", "(see cfrlab --help)"]),
    (["match", "kuhn", "random", "-n", "x"], ["invalid value for '--hands'", "(see cfrlab match --help)"]),
    (["strategy", "show"], ["missing argument 'FILE'", "(see cfrlab strategy show --help)"]),
])
def test_usage_errors_are_one_line_with_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    one_line_error(code, err, *words)


def test_version_and_short_help(capsys):
    from importlib.metadata import version

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"cfrlab {version('cfrlab')}\n"
    code, out, _ = run(capsys, "solve", "-h")
    assert code == 0 and "--algorithm" in out and "Usage" in out


def test_help_shows_no_bool_placeholder_after_flags(capsys):
    for cmd in (["solve"], ["match"], ["dealer"], ["matrix"], []):
        code, out, _ = run(capsys, *cmd, "--help")
        assert code == 0
        assert "<bool>" not in out, cmd
    code, out, _ = run(capsys, "solve", "--help")
    assert "KEY=VALUE" in out and "<list[str]>" not in out and "cfrlab solve [OPTIONS] GAME" in out
    code, out, _ = run(capsys, "match", "--help")
    assert "cfrlab match [OPTIONS] GAME A B" in out and "<list[str]>" not in out


def test_one_meaning_per_short_option():
    """-s is --seed, -n the count, -a --algorithm, -p --param, -o --out, -g the (hidden) game,
    -k --traversals (Deep CFR's K), wherever they appear; --seconds, --port and --agent have no short form."""
    import typer.main

    meaning = {"-s": "--seed", "-n": {"--iterations", "--hands"}, "-a": "--algorithm", "-p": "--param",
               "-o": {"--out", "--out-dir"}, "-g": "--game", "-q": "--quiet", "-d": "--duplicate",
               "-t": "--target", "-b": "--betting", "-c": "--cards",
               "-k": "--traversals"}
    seen = {}

    def walk(cmd, path):
        for p in getattr(cmd, "params", []):
            shorts = [o for o in p.opts if re.fullmatch(r"-[a-zA-Z]", o)]
            longs = [o for o in p.opts if o.startswith("--")]
            for s in shorts:
                seen.setdefault(s, set()).update(longs)
                want = meaning.get(s)
                assert want is not None, (path, s, longs)
                want = {want} if isinstance(want, str) else want
                assert set(longs) <= want, (path, s, longs)
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "cfrlab")
    assert "-s" in seen and seen["-s"] == {"--seed"}


# -- the game first; the older --game spelling -----------------------------------------------

def test_match_takes_the_game_first_and_still_accepts_game_option(capsys):
    code, out, _ = run(capsys, "match", "kuhn", "always-call", "always-fold", "-n", "10", "-s", "1", "--json")
    assert code == 0
    new = json.loads(out.strip().splitlines()[-1])
    code, out, _ = run(capsys, "match", "always-call", "always-fold", "--game", "kuhn", "-n", "10", "-s", "1",
                       "--json")
    assert code == 0
    old = json.loads(out.strip().splitlines()[-1])
    assert new["game"] == old["game"] == "kuhn" and new["mean_chips"] == old["mean_chips"]
    assert new["seed"] == old["seed"] == 1 and new["players"] == old["players"]
    code, _, err = run(capsys, "match", "kuhn", "always-call")
    one_line_error(code, err, "missing B", "cfrlab match GAME A B")
    code, _, err = run(capsys, "match", "kuhn", "a", "b", "c")
    one_line_error(code, err, "too many arguments")


def test_log_and_crosstable_take_the_game_first(capsys, tmp_path):
    log = tmp_path / "m.log"
    code, _, err = run(capsys, "match", "kuhn", "value", "probe", "-n", "50", "-s", "5", "--log", str(log))
    assert code == 0, err
    code, out, _ = run(capsys, "log", "kuhn", str(log), "--json")
    assert code == 0 and json.loads(out.strip().splitlines()[-1])["hands"] == 50
    code, out, _ = run(capsys, "log", str(log), "-g", "kuhn", "--json")
    assert code == 0 and json.loads(out.strip().splitlines()[-1])["hands"] == 50
    code, out, _ = run(capsys, "crosstable", "kuhn", "always-call", "always-fold", "-n", "20", "-s", "2")
    assert code == 0 and "always-call" in out
    code, _, err = run(capsys, "crosstable", "kuhn", "always-call")
    one_line_error(code, err, "at least 2 agents")


# -- seeds -----------------------------------------------------------------------------------

def test_sampling_solve_draws_and_prints_its_seed_and_repeats_with_it(capsys):
    code, out, _ = run(capsys, "solve", "kuhn", "-a", "es", "-n", "200", "--json", "--no-progress")
    assert code == 0
    m = re.search(r"seed (\d+) \(drawn at random; --seed \1 repeats this run\)", out)
    assert m, out
    first = json.loads(out.strip().splitlines()[-1])
    assert first["seed"] == int(m.group(1))
    code, out, _ = run(capsys, "solve", "kuhn", "-a", "es", "-n", "200", "-s", m.group(1), "--json",
                       "--no-progress")
    again = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and "drawn at random" not in out
    assert again["exploitability"] == first["exploitability"]


def test_seed_on_a_deterministic_solver_is_a_note(capsys):
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "20", "-s", "60", "--no-progress")
    assert code == 0 and "cfr+ is deterministic; --seed changes nothing" in err


def test_matrix_sampled_draws_a_seed(capsys):
    code, out, _ = run(capsys, "matrix", "rps", "--vs", "0.4,0.3,0.3", "--sampled", "-n", "2000", "--json")
    assert code == 0
    m = re.search(r"seed (\d+) \(drawn at random", out)
    d = json.loads(out.strip().splitlines()[-1])
    assert m and d["seed"] == int(m.group(1))
    code, out, _ = run(capsys, "matrix", "rps", "--vs", "0.4,0.3,0.3", "--sampled", "-n", "2000", "-s",
                       m.group(1), "--json")
    assert json.loads(out.strip().splitlines()[-1])["average_strategy"] == d["average_strategy"]


# -- output paths checked before any work ----------------------------------------------------

@pytest.mark.parametrize("argv, what", [
    (["solve", "kuhn", "-a", "cfr+", "-n", "5", "--out", "{bad}"], "strategy"),
    (["match", "kuhn", "random", "random", "-n", "5", "--log", "{bad}"], "log"),
    (["crosstable", "kuhn", "random", "probe", "-n", "5", "--csv", "{bad}"], "CSV"),
    (["crosstable", "kuhn", "random", "probe", "-n", "5", "--json-out", "{bad}"], "JSON"),
    (["abstract", "build", "kuhn", "--out", "{bad}"], "abstraction"),
    (["strategy", "import", "kuhn", "x.json", "--out", "{bad}"], "strategy"),
    (["dealer", "kuhn", "--log", "{bad}"], "log"),
])
@pytest.mark.parametrize("kind", ["proc", "directory", "under-a-file"])
def test_unwritable_outputs_are_refused_first_naming_the_path(capsys, tmp_path, argv, what, kind):
    (tmp_path / "afile").write_text("")
    bad = {"proc": "/proc/cfrlab-test.npz", "directory": str(tmp_path),
           "under-a-file": str(tmp_path / "afile" / "x.npz")}[kind]
    t = time.perf_counter()
    code, out, err = run(capsys, *[a.replace("{bad}", bad) for a in argv])
    line = one_line_error(code, err, f"{bad}: cannot write the {what}")
    assert ".tmp" not in line
    assert out == ""  # nothing ran: no solve output, no table, no ports
    assert time.perf_counter() - t < 30


def test_missing_output_folders_are_created_and_said(capsys, tmp_path):
    out = tmp_path / "new" / "deeper" / "k.npz"
    code, _stdout, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "10", "--out", str(out), "--no-progress")
    assert code == 0 and out.is_file()
    assert f"cfrlab: created the folder {out.parent} for the strategy" in err


def test_existing_outputs_still_need_force(capsys, tmp_path):
    out = tmp_path / "k.npz"
    assert run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "10", "--out", str(out), "--no-progress")[0] == 0
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "10", "--out", str(out))
    one_line_error(code, err, f"{out} exists")


def test_a_json_file_given_as_a_strategy_says_what_it_is_not(capsys, tmp_path):
    f = tmp_path / "x.json"
    f.write_text('{"policy": {}}')
    code, _, err = run(capsys, "exploit", str(f))
    one_line_error(code, err, f"{f} is not a readable cfrlab file", "strategy file is .npz with a JSON header",
                   "JSON text")
    assert "pickled" not in err


# -- abstract sizes with several --buckets ----------------------------------------------------

def test_abstract_sizes_prints_every_buckets(capsys):
    code, out, _ = run(capsys, "abstract", "sizes", "holdem-limit", "--buckets", "5", "--buckets", "10")
    assert code == 0
    assert "--buckets 5" in out and "--buckets 10" in out
    assert "3,624,290" in out and "57,337,080" in out  # 5- and 10-bucket information sets
    code, out, _ = run(capsys, "abstract", "sizes", "holdem-limit", "--buckets", "5", "--buckets", "10", "--json")
    rows = [json.loads(line) for line in out.strip().splitlines()]
    assert [r["infosets"] for r in rows] == [3_624_290, 57_337_080]


# -- matrix games ----------------------------------------------------------------------------

def test_matrix_rps_against_the_tutorials_biased_opponent(capsys):
    code, out, _ = run(capsys, "matrix", "rps", "--vs", "rock=0.4,paper=0.3,scissors=0.3", "-n", "5000", "--json")
    assert code == 0
    d = json.loads(out.strip().splitlines()[-1])
    assert d["best_response"] == "paper" and d["average_strategy"][1] > 0.99
    assert d["mean_payoff"] == pytest.approx(0.1, abs=2e-3)
    assert d["equilibrium"]["value"] == pytest.approx(0.0, abs=1e-12)


def test_matrix_builtins(capsys):
    code, out, _ = run(capsys, "matrix", "battle", "--json")
    d = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and len(d["equilibria"]) == 3
    assert any(e["payoffs"] == pytest.approx([1.2, 1.2]) for e in d["equilibria"])
    code, out, _ = run(capsys, "matrix", "dominance", "--json")
    d = json.loads(out.strip().splitlines()[-1])
    assert d["dominated_rows"] == ["a2", "a3"] and d["equilibria"][0]["payoffs"] == [10.0, 2.0]
    code, out, _ = run(capsys, "matrix", "tree", "-a", "rm+", "-n", "20000", "--json")
    d = json.loads(out.strip().splitlines()[-1])
    assert d["equilibrium"]["value"] == pytest.approx(3.0) and d["exploitability"] < 1e-3


def test_matrix_from_a_users_files(capsys, tmp_path):
    pennies = tmp_path / "pennies.csv"
    pennies.write_text("# matching pennies\n, heads, tails\nheads, 1, -1\ntails, -1, 1\n")
    code, out, _ = run(capsys, "matrix", str(pennies), "-a", "rm+", "--json")
    d = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and d["rows"] == ["heads", "tails"] and d["zero_sum"]
    assert d["equilibrium"]["row"] == pytest.approx([0.5, 0.5]) and d["exploitability"] < 1e-3
    pd = tmp_path / "dilemma.txt"  # prisoner's dilemma: two blocks, row's then column's payoffs
    pd.write_text("3 0\n5 1\n\n3 5\n0 1\n")
    code, out, _ = run(capsys, "matrix", str(pd), "--json")
    d = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and not d["zero_sum"] and d["equilibria"] == [{"row": [0.0, 1.0], "column": [0.0, 1.0],
                                                                    "payoffs": [1.0, 1.0]}]
    for text, words in [("1 2\n3\n", "1 payoffs in this row, 2 in the first one"),
                        ("1 x\n", "'x' is not a number"),
                        ("1 2\n\n1 2 3\n", "the column player's matrix is 1x3"),
                        ("", "no payoffs")]:
        bad = tmp_path / "bad.txt"
        bad.write_text(text)
        code, out, err = run(capsys, "matrix", str(bad))
        one_line_error(code, err, words)
        assert out == ""
    code, _, err = run(capsys, "matrix", "nosuch")
    one_line_error(code, err, "unknown matrix game 'nosuch'")
    code, out, err = run(capsys, "matrix", "rps", "--vs", "0.5,0.5")
    one_line_error(code, err, "--vs needs 3 probabilities")
    assert out == ""


# -- match memory ----------------------------------------------------------------------------

def test_a_match_too_big_for_memory_is_refused_at_once(capsys):
    t = time.perf_counter()
    code, out, err = run(capsys, "match", "holdem-limit", "probe", "probe", "-n", "10000000000", "--duplicate")
    line = one_line_error(code, err, "20,000,000,000 games", "would need about", "--hands")
    assert "GB" in line and time.perf_counter() - t < 10 and out == ""


# -- Ctrl-C ----------------------------------------------------------------------------------

def _sigint_default() -> None:
    """The child takes Ctrl-C even when this run was started in the background (a shell's
    background job inherits SIGINT ignored, and Python then leaves it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_after(proc: subprocess.Popen, ready) -> tuple[str, str]:
    end = time.monotonic() + 60
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the command never got going"
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    return proc.communicate(timeout=60)


@pytest.mark.slow
def test_ctrl_c_in_a_match_is_one_line_and_keeps_the_log(tmp_path):
    log = tmp_path / "m.log"
    p = subprocess.Popen(preexec_fn=_sigint_default, args=[*CFRLAB, "match", "kuhn", "random", "probe", "-n", "5000000", "--engine", "python",  # noqa: PLW1509
                          "--log", str(log), "-s", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _out, err = _interrupt_after(p, lambda: log.exists() and log.stat().st_size > 100_000)
    assert p.returncode == 130
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cfrlab: interrupted (about "), err
    kept = sum(1 for ln in log.read_text().splitlines() if ln.startswith("STATE:"))
    assert f"log kept in {log} ({kept:,} hands, no SCORE line)" in lines[0] and kept > 1000


@pytest.mark.slow
def test_ctrl_c_in_the_dealer_and_a_client_is_one_line_each(tmp_path):
    dlog, clog = tmp_path / "d.log", tmp_path / "c.log"
    dealer = subprocess.Popen(preexec_fn=_sigint_default, args=[*CFRLAB, "dealer", "kuhn", "-n", "100000000", "-s", "1", "--log", str(dlog), "-q"],  # noqa: PLW1509
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ports = dealer.stdout.readline().split()
    clients = [subprocess.Popen(preexec_fn=_sigint_default, args=[*CFRLAB, "connect", "kuhn", HOST, port, "--agent", "always-call", "-s", "1",  # noqa: PLW1509
                                 *(["--log", str(clog)] if k == 0 else [])],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for k, port in enumerate(ports)]
    try:
        end = time.monotonic() + 60
        while sum(1 for ln in dlog.read_text().splitlines() if ln.startswith("STATE:")) < 200:
            assert time.monotonic() < end and dealer.poll() is None
            time.sleep(0.1)
        clients[0].send_signal(signal.SIGINT)
        _cout, cerr = clients[0].communicate(timeout=60)
        dealer.communicate(timeout=60)
    finally:
        for p in [dealer, *clients]:
            if p.poll() is None:
                p.kill()
    assert clients[0].returncode == 130
    assert [ln for ln in cerr.splitlines() if ln.startswith("cfrlab:")] == \
        [ln for ln in cerr.splitlines() if ln.startswith("cfrlab: interrupted (")] != []
    assert f"log kept in {clog}" in cerr and "# ERROR: interrupted after" in clog.read_text()
    # the dealer saw its client go: it ends the match itself, the log complete with its SCORE
    assert dealer.returncode == 1 and dlog.read_text().splitlines()[-1].startswith("SCORE:")

    dlog2 = tmp_path / "d2.log"
    dealer = subprocess.Popen(preexec_fn=_sigint_default, args=[*CFRLAB, "dealer", "kuhn", "-n", "10", "--log", str(dlog2)],  # noqa: PLW1509
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        dealer.stdout.readline()  # the ports: it is waiting for its players
        dealer.send_signal(signal.SIGINT)
        _dout, derr = dealer.communicate(timeout=60)
    finally:
        if dealer.poll() is None:
            dealer.kill()
    assert dealer.returncode == 130
    assert "cfrlab: interrupted (0 of 10 hands played; log kept in" in derr
    assert re.search(r"deck seed \d+ \(drawn at random", derr)
    text = dlog2.read_text().splitlines()
    assert text[-2] == "# interrupted after 0 of 10 hands" and text[-1].startswith("SCORE:0|0")


# -- serve: the agent loaded once; bodies bounded -------------------------------------------

def _free_port() -> int:
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_serve_loads_the_agent_once_and_bounds_bodies(capsys, tmp_path):
    httpx = pytest.importorskip("httpx")
    strat = tmp_path / "k.npz"
    assert run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "50", "--out", str(strat), "--no-progress")[0] == 0
    port = _free_port()
    p = subprocess.Popen([*CFRLAB, "serve", "kuhn", "--vs", str(strat), "--port", str(port), "-s", "3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=10) as c:
                    assert c.get("/api/state").status_code == 200
                break
            except httpx.TransportError:
                assert p.poll() is None, p.communicate()
                assert time.monotonic() < end
                time.sleep(0.2)
        os.rename(strat, tmp_path / "moved.npz")  # a moved file must not matter to new visitors
        with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=10) as c:
            r = c.get("/api/state")
            assert r.status_code == 200 and r.json()["names"][1]
            big = b'{"action": "' + b"A" * 100_000 + b'"}'
            r = c.post("/api/action", content=big, headers={"content-type": "application/json"})
            assert r.status_code == 413 and "AAAA" not in r.text
            r = c.post("/api/action", content=b'{"action": "SECRET-' + b"B" * 40 + b'"}',
                       headers={"content-type": "application/json"})
            assert r.status_code == 422 and "SECRET" not in r.text and "at most 32" in r.text
    finally:
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
    assert "Traceback" not in err and " 500 " not in err
