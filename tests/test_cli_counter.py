"""``cfrlab counter``: model, fbr, rnr, dbr and sweep from the command line, and their errors."""

import csv
import json

import pytest
from cli_run import run

import cfrlab


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli-counter")
    s = cfrlab.solve("kuhn", "cfr", iterations=30).strategy
    s.save(d / "s.npz")
    cfrlab.play_match("kuhn", s, "random", 5_000, seed=1, log=d / "m.log", names=("target", "field"))
    return d


def test_model_then_counter_strategies(capsys, files):
    d = files
    code, out, _ = run(capsys, "counter", "model", "kuhn", str(d / "m.log"), "--player", "target",
                       "--out", str(d / "model.npz"), "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["hands"] == 5_000
    code, out, _ = run(capsys, "counter", "fbr", str(d / "model.npz"), "--out", str(d / "fbr.npz"), "--json")
    fbr = json.loads(out.splitlines()[-1])
    assert code == 0 and fbr["exploitation"] > 0 and (d / "fbr.npz").exists()
    code, out, _ = run(capsys, "counter", "rnr", str(d / "model.npz"), "--p", "0.5", "-n", "300", "--json")
    r = json.loads(out.splitlines()[-1])
    assert code == 0 and 0 < r["exploitation"] <= fbr["exploitation"] + 1e-9
    assert r["exploitability"] < fbr["exploitability"]
    code, out, _ = run(capsys, "counter", "dbr", str(d / "model.npz"), "--p-max", "0.5", "-n", "300", "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["method"] == "dbr"
    code, out, _ = run(capsys, "counter", "sweep", str(d / "model.npz"), "--p", "0,0.5,1", "-n", "400",
                       "--target", "0.002", "--csv", str(d / "sweep.csv"), "--plot", str(d / "sweep.png"))
    rows = list(csv.DictReader((d / "sweep.csv").open()))
    assert code == 0 and [float(r["parameter"]) for r in rows] == [0.0, 0.5, 1.0]
    assert all(float(r["gap"]) <= 0.002 or int(r["iterations"]) == 400 for r in rows)
    assert (d / "sweep.png").stat().st_size > 0


@pytest.mark.parametrize("argv, message", [
    (("counter", "model", "kuhn", "{d}/m.log", "--player", "nobody", "--out", "{d}/x.npz"), "no hand of player"),
    (("counter", "rnr", "{d}/s.npz", "--p", "1.5"), "probability from 0 to 1"),
    (("counter", "dbr", "{d}/s.npz", "--p-max", "0.5"), "not an opponent model"),
    (("counter", "sweep", "{d}/s.npz", "--p", "0,x"), "comma-separated"),
    (("counter", "fbr", "{d}/m.log"), "m.log"),
])
def test_bad_input_is_one_line(capsys, files, argv, message):
    code, _, err = run(capsys, *(a.format(d=files) for a in argv))
    assert code != 0 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_perturbed_from_the_command_line(capsys, tmp_path):
    code, out, _ = run(capsys, "counter", "perturbed", "kuhn", "--bonus", "0.07", "-n", "500", "--json",
                       "--out", str(tmp_path / "p.npz"))
    r = json.loads(out.splitlines()[-1])
    assert code == 0 and 0 < r["exploitability"] < 0.05
    assert cfrlab.Strategy.load(tmp_path / "p.npz").header["params"] == {"bonus": 0.07, "penalty": 0.0}
    code, _, err = run(capsys, "counter", "perturbed", "kuhn", "--bonus", "-1")
    assert code != 0 and "winner's bonus" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "counter", "perturbed", "kuhn", "--penalty", "0.2", "-n", "300", "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["penalty"] == 0.2
    code, _, err = run(capsys, "counter", "perturbed", "kuhn", "--penalty", "-0.5")
    assert code != 0 and "loser's penalty" in err and err.count("\n") == 1
