"""Fault injection on postflop spots (issue 43): spot files and saved spots with values of the
wrong type, not finite or forged, FIFOs, outputs over inputs, non-ASCII digits, huge trees.
Every refusal is one line (a ``CfrlabError``; on the CLI one line and a non-zero exit)."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from cli_run import one_line_error, run
from spot_helpers import ROOT, SMALL_TOML, small_river

from cfrlab.cards.ranges import parse_range
from cfrlab.errors import CfrlabError
from cfrlab.spot import load_spot, make_spot
from cfrlab.tree.bets import parse_bets

BIG = "9" * 400


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``cfrlab ARGS`` in a child process (as spot_helpers.cli), killed after ``timeout``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "1", "COLUMNS": "160"}
    return subprocess.run([sys.executable, "-m", "cfrlab.cli.main", *args], capture_output=True,
                          text=True, cwd=ROOT, check=False, env=env, timeout=timeout)


def _one_line(e) -> str:
    text = str(e.value)
    assert "\n" not in text and "Traceback" not in text
    return text


# -- item 5: spot values of the wrong type or not finite ------------------------------------------
def _toml(**lines) -> str:
    """SMALL_TOML with its top-level ``key = value`` lines replaced (None: removed)."""
    out = [f"{k} = {v}" for k, v in lines.items() if v is not None and f"\n{k} = " not in "\n" + SMALL_TOML]
    for line in SMALL_TOML.splitlines():
        key = line.split("=")[0].strip()
        if key in lines and not line.startswith(("oop", "ip", "bet", "raise")):
            if lines[key] is not None:
                out.append(f"{key} = {lines[key]}")
            continue
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("change, words", [
    ({"board": "5"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": "[1.5, 2, 3]"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": "[60, 2, 3]"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": "true"}, "board is text such as 'Qs Jh 2h'"),
    ({"board": None}, "no board"),
    ({"pot": None}, "no pot"),
    ({"stack": None}, "no stack"),
    ({"pot": "nan"}, "pot is a whole number of chips, got nan"),
    ({"pot": "inf"}, "pot is a whole number of chips, got inf"),
    ({"stack": "-inf"}, "stack is a whole number of chips, got -inf"),
    ({"stack": "inf"}, "stack is a whole number of chips, got inf"),
    ({"stack": "[30]"}, "stack is a whole number of chips"),
    ({"game": '["holdem-nolimit"]'}, "game is a name such as 'holdem-nolimit'"),
    ({"oop_position": "nan"}, "0 or 1"),
])
def test_spot_file_values_of_the_wrong_type_are_one_line(tmp_path, change, words):
    f = tmp_path / "spot.toml"
    f.write_text(_toml(**change))
    with pytest.raises(CfrlabError, match=words) as e:
        load_spot(f)
    assert _one_line(e).startswith(str(f))


def test_a_board_as_a_list_of_cards_is_the_board_as_text(tmp_path):
    f = tmp_path / "spot.toml"
    f.write_text(_toml(board='["Qs", "Jh", "2h", "8d", "3c"]'))
    assert load_spot(f).board == small_river().board


def test_an_empty_spot_file_names_what_it_lacks(tmp_path):
    f = tmp_path / "empty.toml"
    f.write_text("")
    with pytest.raises(CfrlabError, match="no board, pot, stack") as e:
        load_spot(f)
    _one_line(e)


@pytest.mark.parametrize("kw, words", [
    ({"oop_range": ["AA"]}, "OOP range is range text"),
    ({"ranges": {"oop": "AA", "ip": 5}}, "IP range is range text"),
    ({"pot": math.nan}, "whole number"), ({"stack": math.inf}, "whole number"),
    ({"board": 5}, "board is text"), ({"board": [None, 1, 2]}, "board is text"),
])
def test_bad_keywords_are_one_line(kw, words):
    with pytest.raises(CfrlabError, match=words) as e:
        small_river(**kw)
    _one_line(e)


@pytest.mark.parametrize("size", [f"{BIG}%", f"{BIG}p", f"{BIG}.5x", f"{BIG}bb", "1000001p", "200000000%"])
def test_a_size_too_large_is_refused(size):
    with pytest.raises(CfrlabError, match="too large") as e:
        parse_bets(f"{size},a")
    _one_line(e)


def test_a_spot_with_a_400_digit_size_is_one_line(tmp_path):
    f = tmp_path / "spot.toml"
    f.write_text(SMALL_TOML.replace('bet = "p, a"', f'bet = "{BIG}%"'))
    with pytest.raises(CfrlabError, match="too large") as e:
        load_spot(f)
    _one_line(e)


def test_a_large_size_still_solves_as_the_all_in():
    """A size as large as allowed is made legal as the all-in (it is still a size)."""
    s = small_river(bets={"bet": "1000000p", "raise": "a"})
    assert s.sizes[("oop", "river", "bet")].rounds[0][0].value == 1e6


# -- item 11: ASCII digits only ---------------------------------------------------------------
ARABIC_HALF = "\u0660.\u0665"  # 0.5 in Arabic-Indic digits
FULL_WIDTH_HALF = "\uff10.\uff15"  # 0.5 in full-width digits


@pytest.mark.parametrize("text", [f"AA:{ARABIC_HALF}", f"AA:{FULL_WIDTH_HALF}", "AA:\u0661"])
def test_range_weights_are_ascii(text):
    assert float(text.partition(":")[2]) in (0.5, 1.0)  # what int()/float() would accept
    with pytest.raises(CfrlabError, match="weight") as e:
        parse_range(text)
    _one_line(e)


@pytest.mark.parametrize("text", [f"{ARABIC_HALF}p,a", f"{FULL_WIDTH_HALF}p", "\u0665\u0660%",
                                  "p,a;cap=\u0662", f"p;allin={ARABIC_HALF}", "\uff12x"])
def test_bet_specs_are_ascii(text):
    with pytest.raises(CfrlabError) as e:
        parse_bets(text)
    _one_line(e)


def test_ascii_forms_still_parse():
    assert parse_range("AA:0.5, KK:1e-1, QQ:.25")[parse_range("AA") > 0].tolist() == [0.5] * 6
    assert parse_bets("0.5p,50%,3x,2.5bb,a;cap=2;allin=0.1").text == "0.5p,3x,2.5bb,a;cap=2;allin=0.1"


def test_make_spot_keeps_working():
    s = make_spot(board=[40, 37, 2], pot=10, stack=30, oop_range="AA", ip_range="KK")
    assert len(s.board) == 3 and np.count_nonzero(s.ranges[0]) == 6


# -- item 4: a FIFO is refused, not read forever --------------------------------------------------
def _fifo(tmp_path, name):
    import os

    path = tmp_path / name
    os.mkfifo(path)
    return path


def _refused_at_once(read, path) -> str:
    """The one-line refusal of ``read(path)``; fails (instead of hanging) if the read blocks:
    then a writer is opened and closed, so the blocked reader sees the end of the pipe."""
    import threading

    got = []

    def run():
        try:
            read(path)
            got.append("read")
        except CfrlabError as e:
            got.append(str(e))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        t.join(30)
        pytest.fail(f"reading the FIFO {path} blocked")
    assert got and "\n" not in got[0]
    return got[0]


def test_a_fifo_spot_file_is_refused(tmp_path):
    assert "named pipe" in _refused_at_once(load_spot, _fifo(tmp_path, "spot.toml"))


def test_a_fifo_lock_file_is_refused(tmp_path):
    from cfrlab.spot.lock import load_locks

    assert "named pipe" in _refused_at_once(load_locks, _fifo(tmp_path, "lock.toml"))


def test_cli_refuses_a_fifo_spot_and_lock_in_one_line(tmp_path):
    spot = tmp_path / "spot.toml"
    spot.write_text(SMALL_TOML)
    for args in (("spot", "sizes", str(_fifo(tmp_path, "a.toml"))),
                 ("spot", "solve", str(spot), "--lock", str(_fifo(tmp_path, "b.toml")))):
        out = cli(*args, timeout=120)  # a read of the FIFO would block: TimeoutExpired
        assert out.returncode != 0 and "named pipe" in out.stderr
        assert out.stderr.strip().count("\n") == 0, out.stderr


# -- item 1: a saved spot is checked as a strategy file; its figures are the solve's record ----------
@pytest.fixture(scope="module")
def saved_river(tmp_path_factory):
    """(a solved river spot, its file)."""
    from cfrlab.spot import solve_spot
    from cfrlab.spot.store import save_solution

    sol = solve_spot(small_river(), target_pct=None, iterations=20, threads=1)
    path = tmp_path_factory.mktemp("saved") / "river.npz"
    save_solution(sol, path)
    return sol, path


def _forge(src, dst, header=None, **arrays):
    """A copy of the saved spot ``src`` with header fields and arrays replaced."""
    from cfrlab.fileio import load_npz, save_npz

    h, a = load_npz(src)
    save_npz(dst, {**h, **(header or {})}, {**a, **arrays})
    return dst


def _policy_changed(policy, how):
    p = policy.copy()
    if how == "zero rows":
        p[:5] = 0.0
    elif how == "scaled by 1e300":
        p *= 1e300
    elif how == "rows summing to 0.5":
        p[3] *= 0.5
    elif how == "a NaN":
        p[2, 1] = np.nan
    elif how == "a negative entry":
        p[1] = [0.0, -0.5, 1.5] + [0.0] * (p.shape[1] - 3)
    elif how == "mass on an illegal action":
        p[0] = 0.0
        p[0, 0] = 1.0  # the root: nothing to call, folding is not an action
    return p


@pytest.mark.parametrize("how", ["zero rows", "scaled by 1e300", "rows summing to 0.5", "a NaN",
                                 "a negative entry", "mass on an illegal action"])
def test_a_saved_strategy_off_the_simplex_is_refused(saved_river, tmp_path, how):
    from cfrlab.spot.store import load_solution

    sol, path = saved_river
    bad = _forge(path, tmp_path / "bad.npz", policy=_policy_changed(sol.policy, how))
    with pytest.raises(CfrlabError, match="bad.npz: its strategy: row ") as e:
        load_solution(bad)
    _one_line(e)


@pytest.mark.parametrize("header, why", [
    ({"exploitability": -0.1, "best_responses": [-0.1, -0.1]}, "below 0"),
    ({"exploitability": 1e31 / 100 * 10, "best_responses": [1e30, 1e30]}, "chips at stake"),
    ({"exploitability": float("nan")}, "not finite"),
    ({"exploitability": float("inf")}, "not finite"),
    ({"exploitability": 0.5}, "do not agree"),
    ({"values": [1.0, 1.0]}, "do not agree"),
    ({"values": ["a", 1.0]}, "not numbers"),
])
def test_recorded_figures_that_cannot_be_measurements_are_ignored(saved_river, tmp_path, header, why):
    from cfrlab.spot.store import load_solution

    sol, path = saved_river
    back = load_solution(_forge(path, tmp_path / "forged.npz", header))
    assert why in back.ignored
    assert math.isnan(back.exploitability) and math.isnan(back.ev("oop"))
    assert np.array_equal(back.policy, sol.policy)  # the strategy still reads


def test_recorded_figures_are_kept_and_labelled(saved_river):
    from cfrlab.spot.store import SavedSolution, load_solution

    sol, path = saved_river
    back = load_solution(path)
    assert isinstance(back, SavedSolution) and back.ignored == ""
    assert back.exploitability == sol.exploitability and back.values == sol.values


@pytest.mark.parametrize("header, words", [
    ({"iterations": "20"}, "'iterations' is '20'"), ({"iterations": -1}, "'iterations' is -1"),
    ({"seconds": float("nan")}, "'seconds' is nan"), ({"algorithm": 5}, "'algorithm' is 5"),
    ({"history": [[1, 2]]}, "'history'"), ({"locks": [5]}, "locks"),
])
def test_a_corrupt_header_is_one_line(saved_river, tmp_path, header, words):
    from cfrlab.spot.store import load_solution

    _, path = saved_river
    with pytest.raises(CfrlabError, match=words) as e:
        load_solution(_forge(path, tmp_path / "h.npz", header))
    _one_line(e)


@pytest.mark.parametrize("pot", [float("nan"), float("inf"), "ten", [10]])
def test_a_header_pot_that_is_not_chips_is_one_line(saved_river, tmp_path, pot):
    from cfrlab.fileio import load_npz
    from cfrlab.spot.store import load_solution

    _, path = saved_river
    h, _ = load_npz(path)
    with pytest.raises(CfrlabError, match="its spot does not load") as e:
        load_solution(_forge(path, tmp_path / "pot.npz", {"spot": {**h["spot"], "pot": pot}}))
    _one_line(e)


def test_cli_show_labels_the_recorded_figures_and_drops_forged_ones(saved_river, tmp_path, capsys, monkeypatch):
    """In-process (tests/cli_run.py): what the commands print and their exit codes, without
    three interpreter starts."""
    monkeypatch.setenv("COLUMNS", "160")  # as cli() above: Rich does not wrap
    sol, path = saved_river
    code, out, err = run(capsys, "spot", "show", str(path), "--no-grid", "--no-combos")
    assert code == 0, err
    assert f"exploitability recorded at solve time: {sol.exploitability_pct:.4f}% of the pot" in out
    ev = sol.ev("oop")
    assert f"OOP {ev:.4f}" in out  # the EV measured on the file's strategy
    forged = _forge(path, tmp_path / "forged.npz", {"exploitability": -0.1, "best_responses": [-0.1, -0.1]})
    code, out, err = run(capsys, "spot", "show", str(forged), "--no-grid", "--no-combos")
    assert code == 0, err
    assert "-10.0000%" not in out and "% of the pot" not in out.splitlines()[1]
    assert "ignored" in out and "below 0" in out and f"OOP {ev:.4f}" in out
    scaled = _forge(path, tmp_path / "scaled.npz", policy=sol.policy * 1e300)
    code, out, err = run(capsys, "spot", "show", str(scaled))
    assert out == "" and "its strategy: row 0" in one_line_error(code, err)


def test_serve_labels_the_recorded_figures(saved_river, tmp_path):
    from cfrlab.spot.store import load_solution
    from cfrlab.spot.web import SpotView

    sol, path = saved_river
    s = SpotView(load_solution(path)).summary()
    assert s["recorded"] and s["exploitability_pct"] == pytest.approx(sol.exploitability_pct)
    assert s["ev_oop"] == pytest.approx(sol.ev("oop")) and s["ignored"] == ""
    forged = _forge(path, tmp_path / "forged.npz", {"exploitability": float("nan")})
    s = SpotView(load_solution(forged)).summary()
    assert s["exploitability_pct"] is None and "not finite" in s["ignored"]
    assert s["ev_oop"] == pytest.approx(sol.ev("oop"))  # measured on the strategy
    assert SpotView(sol).summary()["recorded"] is False  # solved here: measured


def test_a_saved_flop_spots_measured_evs_are_the_solves(tmp_path):
    """The EVs show prints of a file are measured on its strategy: on a flop spot's walk tables
    they are the solve's exact values."""
    from cfrlab.spot import solve_spot
    from cfrlab.spot.report import reader_of
    from cfrlab.spot.show import root_evs
    from cfrlab.spot.store import load_solution, save_solution

    sol = solve_spot(small_river(board="Qs Jh 2h", bets={"bet": "p", "raise": "a"}), target_pct=None,
                     iterations=10, threads=1)
    save_solution(sol, tmp_path / "flop.npz")
    back = load_solution(tmp_path / "flop.npz")
    assert back.walk is not None and back.ignored == ""
    oop, ip = root_evs(reader_of(back).node(""))
    assert oop == pytest.approx(sol.ev("oop"), abs=1e-4) and ip == pytest.approx(sol.ev("ip"), abs=1e-4)


# -- item 3: no spot command writes over one of its inputs, nor over a result without --force ---------
@pytest.fixture
def river_copy(saved_river, tmp_path):
    import shutil

    path = tmp_path / "river.npz"
    shutil.copy(saved_river[1], path)
    return path


@pytest.mark.parametrize("flag", ["--json", "--png"])
def test_show_never_writes_over_the_solved_spot(river_copy, flag):
    before = river_copy.read_bytes()
    for force in ((), ("--force",)):
        out = cli("spot", "show", str(river_copy), flag, str(river_copy), *force)
        assert out.returncode != 0 and out.stdout == "" and out.stderr.count("\n") == 1
        assert "it is an input of this command" in out.stderr
        assert river_copy.read_bytes() == before


def test_show_never_writes_over_its_spot_file_or_a_link_to_an_input(river_copy, tmp_path):
    import os

    cfg = tmp_path / "river.toml"
    cfg.write_text(SMALL_TOML)
    link = tmp_path / "link.npz"
    os.link(river_copy, link)
    for args in (("--spot", str(cfg), "--json", str(cfg)), ("--png", str(link), "--force")):
        out = cli("spot", "show", str(river_copy), *args)
        assert out.returncode != 0 and "it is an input of this command" in out.stderr
    assert cfg.read_text() == SMALL_TOML and link.read_bytes() == river_copy.read_bytes()


def test_show_outputs_are_two_files_and_replaced_only_with_force(river_copy, tmp_path):
    both = tmp_path / "out"
    out = cli("spot", "show", str(river_copy), "--png", str(both), "--json", str(both))
    assert out.returncode != 0 and "the PNG and the JSON cannot be one file" in out.stderr
    old = tmp_path / "old.json"
    old.write_text("keep")
    out = cli("spot", "show", str(river_copy), "--json", str(old), "--no-grid", "--no-combos")
    assert out.returncode != 0 and "exists; use --force" in out.stderr and old.read_text() == "keep"
    out = cli("spot", "show", str(river_copy), "--json", str(old), "--no-grid", "--no-combos", "--force")
    assert out.returncode == 0, out.stderr
    assert '"nodes"' in old.read_text()


def test_solve_never_writes_over_its_inputs_nor_an_existing_result(tmp_path):
    cfg, lock, saved = tmp_path / "river.toml", tmp_path / "lock.toml", tmp_path / "s.npz"
    cfg.write_text(SMALL_TOML)
    lock.write_text('[[lock]]\nnode = ""\nstrategy = "x"\n')
    saved.write_bytes(b"an earlier solve")
    cases = [(("--save", str(cfg), "--force"), "it is an input of this command"),
             (("--lock", str(lock), "--out", str(lock), "--force"), "it is an input of this command"),
             (("--save", str(saved)), "exists; use --force"),
             (("--out", str(tmp_path / "x"), "--save", str(tmp_path / "x")), "cannot be one file")]
    for args, words in cases:
        out = cli("spot", "solve", str(cfg), "--iterations", "10", *args)
        assert out.returncode != 0 and words in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert cfg.read_text() == SMALL_TOML and saved.read_bytes() == b"an earlier solve"
    assert lock.read_text().startswith("[[lock]]")
    out = cli("spot", "solve", str(cfg), "--iterations", "10", "--save", str(saved), "--force")
    assert out.returncode == 0, out.stderr
    assert saved.read_bytes()[:2] == b"PK"  # the new solve's archive


# -- item 10 (part): a huge spot tree is refused up front, with its size and memory ---------------------
MID = {"board": "Qs Jh 2h", "pot": 10, "stack": 200, "oop_range": "AA, QJs", "ip_range": "KK, AQs",
       "bets": {"bet": "33%, 75%, p, a", "raise": "p, a"}}


def test_count_stops_at_a_node_budget_with_the_part_counted():
    from cfrlab.spot.tree import _chooser, root_state
    from cfrlab.tree.betting_tree import TreeTooLarge, count_tree

    s = make_spot(**MID)
    args = (s.tree_game(), _chooser(s))
    whole = count_tree(*args, root=root_state(s))
    assert whole.nodes == 8853  # what build_tree builds (tests/test_spot_config.py: counted == built)
    with pytest.raises(TreeTooLarge, match="more than 1,000 nodes") as e:
        count_tree(*args, root=root_state(s), max_nodes=1000)
    part = e.value.counted
    assert 1000 < part.nodes <= whole.nodes
    assert all(a <= b for k in range(4) for a, b in zip(part.by_kind[k], whole.by_kind[k]))
    assert count_tree(*args, root=root_state(s), max_nodes=whole.nodes).nodes == whole.nodes


def test_spot_count_refuses_with_the_size_and_memory():
    from cfrlab.spot.tree import spot_count

    with pytest.raises(CfrlabError, match=r"more than [0-9,]+ nodes \(at least [0-9,]+ / [0-9,]+ / [0-9,]+ "
                       r"decisions on the flop / turn / river\); building it needs more than .* and "
                       r"solving it at least [0-9.]+ [kMG]B, above the limit of 2,000 nodes") as e:
        spot_count(make_spot(**MID), max_nodes=2000)
    _one_line(e)


@pytest.mark.parametrize("kw", [
    {}, {"board": "Qs Jh 2h 8d"}, {"board": "Qs Js 2s"}, {"board": "Qs Qh Qd"},
    {"bets": {"bet": "-", "raise": "-"}}, {"bets": {"bet": "p", "raise": "a", "cap": 1}},
])
def test_the_memory_floor_is_below_every_solves_estimate(kw):
    from cfrlab.engine.board import STORAGES
    from cfrlab.spot.solve import solve_memory
    from cfrlab.spot.tree import solve_floor, spot_count, spot_tree

    s = small_river(**{"board": "Qs Jh 2h", "bets": {"bet": "p, a", "raise": "a"}, **kw})
    count, tree = spot_count(s), spot_tree(s)
    assert count.nodes == tree.num_nodes
    for storage, (_, _, item) in STORAGES.items():
        floor = solve_floor(s, count, 2 * item)
        assert 0 < floor
        for iso in (True, False):
            assert floor <= solve_memory(s, tree, storage=storage, isomorphism=iso), (storage, iso)


def test_cli_solve_refuses_a_spot_beyond_memory_before_building_it(tmp_path):
    wide = "22+, A2+, K2+, Q2+, J2+, T2+, 92+, 82+, 72+"
    cfg = tmp_path / "wide.toml"
    cfg.write_text(f'board = "Qs Jh 2h"\npot = 10\nstack = 1000\n[ranges]\noop = "{wide}"\nip = "{wide}"\n'
                   '[bets]\nbet = "33%, 75%, p, a"\nraise = "50%, p, a"\n')
    out = cli("spot", "solve", str(cfg))
    assert out.returncode != 0 and out.stdout == "" and out.stderr.count("\n") == 1
    assert re.search(r"this spot's betting tree has [0-9,]+ nodes \([0-9,]+ / [0-9,]+ / [0-9,]+ decisions "
                     r"on the flop / turn / river\); solving it needs at least [0-9.]+ TB", out.stderr), out.stderr


# -- friction: the first spot solve on a machine says its kernels compile ------------------------------
def test_spot_solve_tells_a_compile_where_it_reports_progress(monkeypatch, tmp_path):
    """The CLI tells a first compile on a terminal only (``announce_compiles("terminal")``);
    spot solve, whose progress lines go to stdout terminal or not, tells it there. A compile is
    simulated by numba's compile event for one of cfrlab's kernels during the solve."""
    from numba.core import event
    from typer.testing import CliRunner

    import cfrlab.numba_cache as nc
    import cfrlab.spot
    from cfrlab.cli.main import app
    from cfrlab.engine import kernels

    monkeypatch.setitem(nc._NOTICE, "said", False)
    monkeypatch.setitem(nc._NOTICE, "to", "terminal")
    nc.install()  # the listener is in place
    real = cfrlab.spot.solve_spot

    def compiling(*a, **k):
        with event.trigger_event("numba:compile", data={"dispatcher": kernels.fold_values}):
            pass
        return real(*a, **k)

    monkeypatch.setattr(cfrlab.spot, "solve_spot", compiling)
    cfg = tmp_path / "river.toml"
    cfg.write_text(SMALL_TOML)
    res = CliRunner().invoke(app, ["spot", "solve", str(cfg), "--iterations", "10"])
    assert res.exit_code == 0, res.output
    assert nc.compile_notice() in res.stdout
    assert res.stdout.count("compiling numba kernels") == 1


def test_cli_bets_with_a_400_digit_size_is_one_line():
    out = cli("solve", "holdem-nolimit", "-a", "cfr+", "-n", "1", "--bets", f"{BIG}%,a")
    assert out.returncode != 0 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "is too large" in out.stderr and len(out.stderr) < 300
