"""``cfrlab.exploit(..., real=True)`` and ``cfrlab exploit --real``: the real-game best response
through the public API and the CLI (the walk itself: tests/test_realgame.py)."""

from __future__ import annotations

import json

import pytest
from cli_run import run
from game_texts import holdem_text

import cfrlab
from cfrlab.errors import CfrlabError


def test_real_equals_abstract_for_a_lossless_strategy():
    s = cfrlab.solve("leduc", "cfr+", iterations=30).strategy
    real = cfrlab.exploit(s, real=True)
    abstract = cfrlab.exploit(s)
    assert real.exploitability == pytest.approx(abstract.exploitability, abs=1e-12)
    assert real.chips == pytest.approx(abstract.chips, abs=1e-12)


def test_a_bot_in_hold_em_is_measured_in_mbb():
    # blinds 2/1 (big blind 2 chips): always-fold loses 1.5 chips a game on average = 750 mbb/g
    g = cfrlab.load_game(holdem_text(4, 2, "0 2 1", "2 2 2"))
    r = cfrlab.exploit("always-fold", game=g, real=True)
    assert r.unit == "mbb/g" and r.exploitability == pytest.approx(750.0, abs=1e-9)


def test_real_only_options_are_refused_without_real():
    with pytest.raises(CfrlabError, match="real=True only"):
        cfrlab.exploit(cfrlab.Strategy.uniform("kuhn"), workers=2)


def test_a_bot_needs_its_game():
    with pytest.raises(CfrlabError, match="needs the game"):
        cfrlab.exploit("always-call", real=True)


def test_cli_exploit_real_matches_exploit(capsys, tmp_path):
    f = tmp_path / "k.npz"
    cfrlab.solve("kuhn", "cfr+", iterations=50).strategy.save(f)
    code, out, _ = run(capsys, "exploit", str(f), "--json")
    assert code == 0
    abstract = json.loads(out.strip().splitlines()[-1])
    code, out, _ = run(capsys, "exploit", str(f), "--real", "--json", "--checkpoint", str(tmp_path / "ck"))
    assert code == 0
    real = json.loads(out.strip().splitlines()[-1])
    assert real["exploitability"] == pytest.approx(abstract["exploitability"], abs=1e-12)


def test_cli_real_options_need_real(capsys, tmp_path):
    code, _, err = run(capsys, "exploit", str(tmp_path / "x.npz"), "--workers", "2")
    assert code != 0 and "go with --real" in err and "Traceback" not in err


def test_cli_saves_the_best_response_itself(capsys, tmp_path):
    f, br = tmp_path / "l.npz", tmp_path / "br.npz"
    cfrlab.solve("leduc", "cfr+", iterations=20).strategy.save(f)
    code, out, _ = run(capsys, "exploit", str(f), "--real", "--json", "--br-out", str(br),
                       "--checkpoint", str(tmp_path / "ck"))
    assert code == 0
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["br_out"] == str(br)
    s = cfrlab.Strategy.load(br)
    assert str(s.model.kind) == "lossless" and s.algorithm == "best-response"
    code, _, err = run(capsys, "exploit", str(f), "--real", "--br-out", str(br),
                       "--checkpoint", str(tmp_path / "ck2"))
    assert code != 0 and "--force" in err  # an existing file is not replaced silently


def test_cli_refuses_to_store_a_hold_em_best_response_before_any_work(capsys, tmp_path):
    code, out, err = run(capsys, "exploit", "always-call", "--game", "holdem-limit", "--real",
                         "--br-out", str(tmp_path / "br.npz"))
    assert code != 0 and "too many to store a best response" in err and "Traceback" not in err
    assert "exploitability" not in out
