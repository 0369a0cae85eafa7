"""cfrlab's ACPC client against the real ACPC dealer (benchmarks/acpc_dealer.py).

The matches run only when CFRLAB_ACPC_DIR names a directory with the ACPC server's built
``dealer`` and ``example_player`` (``make dealer example_player`` in its source; the ACPC
code is not part of cfrlab). The script's refusals and its reading of the dealer's
complaints are tested everywhere."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfrlab.games import load_game

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "acpc_dealer.py"
ACPC = os.environ.get("CFRLAB_ACPC_DIR", "")
HAVE_ACPC = bool(ACPC) and all(os.access(Path(ACPC) / b, os.X_OK) for b in ("dealer", "example_player"))
needs_acpc = pytest.mark.skipif(
    not HAVE_ACPC, reason="the real ACPC dealer is not available: set CFRLAB_ACPC_DIR to a directory with "
                          "the ACPC server's built dealer and example_player")


def _script():
    spec = importlib.util.spec_from_file_location("acpc_dealer_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(*args: str, env_dir: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    env.pop("CFRLAB_ACPC_DIR", None)
    if env_dir is not None:
        env["CFRLAB_ACPC_DIR"] = env_dir
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300, check=False)


def test_refuses_missing_binaries_in_one_line(tmp_path):
    (tmp_path / "dealer").write_text("")  # present but not executable, and no example_player
    r = run("--acpc", str(tmp_path), "--agent", "random", "--hands", "5")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1
    assert "dealer and example_player not found" in r.stderr and str(tmp_path) in r.stderr
    r = run("--agent", "random")
    assert r.returncode == 2 and "CFRLAB_ACPC_DIR" in r.stderr and r.stderr.count("\n") == 1


def test_dealer_complaints_count_as_protocol_errors(tmp_path):
    """Every ERROR/WARNING line the dealer writes, and a client that disagrees with the
    dealer's SCORE, are errors; a clean match has none."""
    mod = _script()
    header = "# name/game/hands/seed seat1 x.game 2 1\n#--t_response 600000\n"
    score = "SCORE:-150|150:cfrlab|example_player\n"
    (tmp_path / "seat1.log").write_text("STATE:0:cc:..\nSTATE:1:f:..\n" + score)
    (tmp_path / "seat1.client.stderr").write_text("random: 2 hands, -150 chips (-75.0000 per hand), ...\n")
    (tmp_path / "seat1.dealer.stderr").write_text(header + score)
    clean = mod._outcome(tmp_path, "seat1", 1, score, 1.0, False, 0)
    assert (clean["errors"], clean["dealer_hands"], clean["client_hands"], clean["agent_chips"]) == (0, 2, 2, -150.0)
    (tmp_path / "seat1.dealer.stderr").write_text(
        header + "WARNING: invalid action, changed to call\nWARNING: raise of 5 increased to 200\n"
        "ERROR: seat 1 ran out of time\n" + score)
    bad = mod._outcome(tmp_path, "seat1", 1, score, 1.0, False, 0)
    assert bad["errors"] == 3 and bad["complaints"][0] == "dealer: WARNING: invalid action, changed to call"
    (tmp_path / "seat1.dealer.stderr").write_text(header + score)
    (tmp_path / "seat1.client.stderr").write_text("random: 2 hands, -100 chips (-50.0000 per hand), ...\n")
    mismatch = mod._outcome(tmp_path, "seat1", 1, score, 1.0, False, 0)
    assert mismatch["complaints"] == ["the client counts -100 chips, the dealer -150"]


@needs_acpc
def test_acpc_game_file_is_the_builtin_holdem_nolimit():
    text = (Path(ACPC) / "holdem.nolimit.2p.reverse_blinds.game").read_text()
    assert load_game("holdem-nolimit").to_text() == text


@needs_acpc
def test_short_nolimit_match_both_seats_without_protocol_errors(tmp_path):
    r = run("--agent", "random", "--hands", "50", "--seed", "3", "--logs", str(tmp_path), "--json", env_dir=ACPC)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["errors"] == 0 and [m["agent_seat"] for m in out["matches"]] == [1, 2]
    for m in out["matches"]:
        assert m["dealer_hands"] == m["client_hands"] == 50
        assert m["agent_chips"] == m["client_chips"]
    assert "r20000" in (tmp_path / "seat1.log").read_text()  # all-ins were played (example_player shoves)


@needs_acpc
def test_strategy_file_spec_passes_through(tmp_path):
    """A strategy-file spec (with an option after a colon) reaches cfrlab connect unchanged,
    relative to the caller's directory; an agent that errs is reported, exit status 1."""
    import cfrlab

    cfrlab.solve("leduc-nolimit", "cfr+", iterations=20).strategy.save(tmp_path / "lnl.npz")
    r = run("--agent", "lnl.npz:greedy", "--game", "leduc-nolimit", "--hands", "40", "--json",
            env_dir=ACPC, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["agent"] == "lnl.npz:greedy" and out["errors"] == 0
    assert [m["dealer_hands"] for m in out["matches"]] == [40, 40]
    r = run("--agent", f"py:{ROOT / 'tests' / 'play_helpers.py'}:BadAgent", "--game", "leduc-nolimit",
            "--hands", "10", env_dir=ACPC)
    assert r.returncode == 1 and "sent call instead" in r.stdout
