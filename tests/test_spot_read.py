"""Reading a solved spot (cfrlab.spot.report, .show, .store): node paths, per-combo EV and
equity against a plain walk over combos, the class grid, saved files, streamed JSON, and the
``cfrlab spot show`` command."""

import json
import re

import numpy as np
import pytest
from spot_helpers import SMALL_TOML, cli, small_river

from cfrlab.cards import card_text, parse_cards, rank_hand
from cfrlab.cards.ranges import COMBOS, combo_index
from cfrlab.engine import row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.spot import make_spot, solve_spot
from cfrlab.spot.report import SpotReader, class_grid, class_name, class_of, parse_path, path_text
from cfrlab.spot.show import draw_grid, write_json
from cfrlab.spot.store import load_solution, save_solution
from cfrlab.tree.betting_tree import FOLD, SHOWDOWN


def small_turn():
    return make_spot(board="Qs Jh 2h 8d", pot=10, stack=30, oop_range="AA, QJs", ip_range="KK, T9s",
                     bets={"bet": "p, a", "raise": "a", "cap": 1})


@pytest.fixture(scope="module")
def river_sol():
    return solve_spot(small_river(), target_pct=None, iterations=60)


@pytest.fixture(scope="module")
def turn_sol():
    return solve_spot(small_turn(), target_pct=None, iterations=20)


# -- paths ----------------------------------------------------------------------------------------
def test_paths_name_nodes_in_every_spelling(river_sol):
    tree = river_sol.tree
    n = tree.node_of_betting["///cr15"]
    for text in ("x b10", "c r15", "X  B10", "x,b10"):
        assert parse_path(river_sol, text).node == n
    assert parse_path(river_sol, "a").node == tree.node_of_betting["///r35"]
    assert parse_path(river_sol, "b10 a").node == tree.node_of_betting["///r15r35"]
    for node in tree.decision_node:  # path_text is parse_path's inverse on every decision
        ref = parse_path(river_sol, path_text(river_sol, parse_path(river_sol, "").__class__(int(node))))
        assert ref.node == node


def test_turn_spot_paths_take_the_river_card(turn_sol):
    tree = turn_sol.tree
    ref = parse_path(turn_sol, "x x 3c x")
    assert ref.card == parse_cards("3c")[0] and tree.betting[ref.node] == "//cc/c"
    assert path_text(turn_sol, ref) == "x x 3c x"
    assert parse_path(turn_sol, "x x * x").card is None
    with pytest.raises(CfrlabError, match="the river card 8d is on the board"):
        parse_path(turn_sol, "x x 8d")
    with pytest.raises(CfrlabError, match=r"after x x the river card comes \(such as 8d\), not 'b10'"):
        parse_path(turn_sol, "x x b10")
    with pytest.raises(CfrlabError, match="x x is not a decision: the river card is dealt"):
        parse_path(turn_sol, "x x")


# -- figures --------------------------------------------------------------------------------------
def test_root_report_is_the_solutions_figures(river_sol):
    rep = SpotReader(river_sol).node("")
    assert rep.player == "oop" and rep.actions == ["x", "b10", "b30"]
    assert rep.labels == ["check", "bet 10", "bet 30 (all-in)"]
    assert list(rep.frequencies) == pytest.approx([f for _, f in river_sol.frequencies(0)], abs=1e-14)
    assert rep.weight @ rep.ev == pytest.approx(river_sol.ev("oop"), abs=1e-12)
    assert len(rep.combos) == np.count_nonzero(river_sol.spot.ranges[0])


def plain_node(sol, path, combo):
    """EV and equity of ``combo`` for the player acting at ``path`` by a plain recursion over
    the other player's combos (ranges, card removal, ranks straight from the spot)."""
    spot, tree, model = sol.spot, sol.tree, sol.model
    off = row_offsets(tree, model)
    board = [int(c) for c in spot.board]
    node = parse_path(sol, path).node
    me = int(tree.player[node])
    opp = 1 - me
    rng = [spot.ranges[0 if p == spot.oop_position else 1] for p in (0, 1)]
    mine = [int(c) for c in COMBOS[combo]]
    state = {int(c): k for k, c in enumerate(model.combos)}
    theirs = {}
    for c in np.flatnonzero(rng[opp]):
        if not set(mine) & {int(x) for x in COMBOS[c]}:
            theirs[int(c)] = rng[opp][c] * rng[me][combo]
    # the other player's own reach to the node
    n, path_nodes = node, []
    while tree.parent[n] >= 0:
        path_nodes.append(n)
        n = int(tree.parent[n])
    for c in path_nodes:
        par = int(tree.parent[c])
        if tree.player[par] == opp:
            for k in theirs:
                theirs[k] *= sol.policy[off[tree.decision[par]] + state[k], tree.action[c]]
    rank = rank_hand(mine + board)

    def value(n, w):
        if tree.kind[n] == FOLD:
            won = tree.spent[n, opp] if tree.player[n] == opp else -tree.spent[n, me]
            return won * sum(w.values())
        if tree.kind[n] == SHOWDOWN:
            return tree.spent[n].min() * sum(x * np.sign(rank - rank_hand([int(y) for y in COMBOS[k]] + board))
                                             for k, x in w.items())
        d = tree.decision[n]
        kids = tree.children(n)
        if tree.player[n] == me:
            return sum(sol.policy[off[d] + state[combo], tree.action[c]] * value(int(c), w) for c in kids)
        return sum(value(int(c), {k: x * sol.policy[off[d] + state[k], tree.action[c]] for k, x in w.items()})
                   for c in kids)

    total = sum(theirs.values())
    share = sum(x * (1.0 if rank > rank_hand([int(y) for y in COMBOS[k]] + board) else
                     0.5 if rank == rank_hand([int(y) for y in COMBOS[k]] + board) else 0.0)
                for k, x in theirs.items())
    return value(node, theirs) / total + tree.spent[node, me], share / total


@pytest.mark.parametrize("path", ["", "x", "x b10", "b10", "x b30"])
def test_combo_ev_and_equity_against_a_plain_walk(river_sol, path):
    rep = SpotReader(river_sol).node(path)
    assert len(rep.combos) > 0
    for k, c in enumerate(rep.combos):
        ev, eq = plain_node(river_sol, path, int(c))
        assert rep.ev[k] == pytest.approx(ev, abs=1e-10)
        assert rep.equity[k] == pytest.approx(eq, abs=1e-12)


def test_turn_node_equity_averages_the_river_cards(turn_sol):
    """At the root of a turn spot, a combo's equity is the mean over the river cards of its
    river equity, each river weighted by the other range's combos it leaves."""
    rep = SpotReader(turn_sol).node("")
    k = int(np.flatnonzero(rep.combos == combo_index(*parse_cards("Qc Jc")))[0])
    board = parse_cards("Qs Jh 2h 8d")
    mine = parse_cards("Qc Jc")
    won = total = 0.0
    for river in range(52):
        if river in board or river in mine:
            continue
        for c in np.flatnonzero(turn_sol.spot.ranges[1]):
            cards = [int(x) for x in COMBOS[c]]
            if set(cards) & set(mine + [river]):
                continue
            a, b = rank_hand(mine + board + [river]), rank_hand(cards + board + [river])
            won += 1.0 if a > b else 0.5 if a == b else 0.0
            total += 1.0
    assert rep.equity[k] == pytest.approx(won / total, abs=1e-12)


def test_combo_weights_print_with_significant_digits(river_sol):
    """A combo deep in the tree keeps its weight on screen (not 0.0000)."""
    from dataclasses import replace

    from rich.console import Console

    from cfrlab.spot.show import node_tables

    rep = SpotReader(river_sol).node("")
    tiny = replace(rep, weight=rep.weight * 1e-7)
    console = Console(width=200, record=True)
    for part in node_tables(tiny, grid=False):
        console.print(part)
    text = console.export_text()
    k = int(np.argmax(tiny.weight))
    assert f"{tiny.weight[k]:.4g}" in text and "0.0000 " not in text


def test_every_card_of_a_star_path(turn_sol, tmp_path, capsys):
    """'x x * x' lists the node on each of the 48 river cards: each row is that card's own
    report, and the rows equal those read from the walk's tables (the flop spots' reader)."""
    from cli_run import run

    from cfrlab.spot.report import WalkReader, card_reports

    reader = SpotReader(turn_sol)
    first, rows = card_reports(reader, "x x * x")
    assert len(rows) == 52 - 4 and first.street == "river"
    for r in rows[::7]:
        rep = reader.node(f"x x {card_text(r.card)} x")
        assert r.reach == pytest.approx(rep.weight.sum(), rel=1e-12)
        assert r.frequencies == pytest.approx(rep.frequencies, abs=1e-12)
    _, walked = card_reports(WalkReader(turn_sol), "x x * x")
    assert [r.card for r in walked] == [r.card for r in rows]
    for a, b in zip(rows, walked):
        assert a.frequencies == pytest.approx(b.frequencies, abs=1e-6)
        assert (a.ev, a.equity) == pytest.approx((b.ev, b.equity), rel=1e-5, abs=1e-6)
    with pytest.raises(CfrlabError, match="'\\*' stands for every river card"):
        reader.node("x x * x")  # it used to return the last card's report
    assert card_reports(reader, "x x 3c x") is None
    with pytest.raises(CfrlabError, match="one '\\*' at a time"):
        card_reports(reader, "x x * * x")
    with pytest.raises(CfrlabError, match="'b99' is not an action"):
        card_reports(reader, "x x * b99")
    saved, js, png = tmp_path / "t.npz", tmp_path / "cards.json", tmp_path / "cards.png"
    save_solution(turn_sol, saved)
    code, out, err = run(capsys, "spot", "show", str(saved), "--node", "x x * x", "--json", str(js),
                         "--png", str(png))
    assert code == 0, err
    assert "every card" in out and "48 cards written" in out and png.read_bytes()[:4] == b"\x89PNG"
    doc = json.loads(js.read_text())
    assert [c["card"] for c in doc["cards"]] == [card_text(r.card) for r in rows]
    assert doc["cards"][0]["frequencies"] == pytest.approx(dict(zip(first.actions, rows[0].frequencies)))


def test_the_grid_fits_an_80_column_terminal(river_sol):
    """On 80 columns the grid shows each class's most frequent action's share (its colour);
    wide, every action's."""
    from rich.console import Console

    from cfrlab.spot.show import node_tables

    rep = SpotReader(river_sol).node("")
    for width in (80, 240):
        console = Console(width=width, record=True)
        for part in node_tables(rep, combos=False, width=width):
            console.print(part)
        lines = console.export_text().splitlines()
        grid = [ln for ln in lines if ln.lstrip().startswith(("AA", "AKo"))]
        assert len(grid) == 2 and all(len(ln.rstrip()) <= width for ln in lines)
        names, weight, freq = class_grid(rep)
        i, j = map(int, np.argwhere(weight > 0)[0])
        top = round(100 * freq[i, j].max())
        want = f"{names[i][j]:3}{top:>2}" if width == 80 and top < 100 else names[i][j]
        assert want in "\n".join(lines)
        assert ("most frequent action" in lines[-1]) == (width == 80)  # the key, on one line


def test_the_ranges_at_a_node_export_both_ways(river_sol, tmp_path, capsys):
    """At 'x b10' (OOP checks, IP bets 10) OOP's range is its spot range times its root
    check, IP's its spot range times its bet after the check; both notations read back (GTO+'s
    to its rounded percentages)."""
    from cli_run import run

    from cfrlab.cards.ranges import format_range_gtoplus, parse_range
    from cfrlab.spot.report import node_ranges

    reader = SpotReader(river_sol)
    oop, ip = node_ranges(reader, "x b10")
    for who, at, act, got in ((0, "", "x", oop), (1, "x", "b10", ip)):
        rep = reader.node(at)
        mine = np.zeros(1326)
        mine[rep.combos] = rep.strategy[:, rep.actions.index(act)]
        assert got == pytest.approx(river_sol.spot.ranges[who] * mine, abs=1e-15)
        assert 0 < np.count_nonzero(got) <= np.count_nonzero(river_sol.spot.ranges[who])
    back = parse_range(format_range_gtoplus(oop))
    assert back == pytest.approx(np.round(oop * 100, 2) / 100, abs=1e-12)
    saved = tmp_path / "r.npz"
    save_solution(river_sol, saved)
    code, out, err = run(capsys, "spot", "show", str(saved), "--node", "x b10", "--ranges", "--no-grid",
                         "--no-combos")
    assert code == 0, err
    pio = next(ln for ln in out.splitlines() if ln.startswith("OOP range (PioSOLVER): "))
    assert parse_range(pio.split(": ", 1)[1]) == pytest.approx(np.round(oop, 4), abs=1e-12)
    assert "IP range (GTO+): " in out


def test_class_grid():
    assert class_of(combo_index(*parse_cards("As Ks"))) == (0, 1) and class_name(0, 1) == "AKs"
    assert class_of(combo_index(*parse_cards("Ad Ks"))) == (1, 0) and class_name(1, 0) == "AKo"
    assert class_of(combo_index(*parse_cards("2c 2d"))) == (12, 12) and class_name(12, 12) == "22"
    assert class_name(3, 9) == "J5s" and class_name(9, 3) == "J5o"


def test_class_frequency_is_the_combo_weighted_average(river_sol):
    rep = SpotReader(river_sol).node("x b10")
    names, weight, freq = class_grid(rep)
    mask = np.array([class_of(int(c)) == (2, 3) for c in rep.combos])  # QJs
    assert names[2][3] == "QJs" and mask.sum() == 2
    w = rep.weight[mask]
    assert weight[2, 3] == pytest.approx(w.sum())
    assert list(freq[2, 3]) == pytest.approx(list(w @ rep.strategy[mask] / w.sum()), abs=1e-15)
    assert weight.sum() == pytest.approx(rep.weight.sum())


# -- files ----------------------------------------------------------------------------------------
def test_saved_spot_reads_as_the_solved_one(river_sol, tmp_path):
    path = tmp_path / "s.npz"
    save_solution(river_sol, path)
    back = load_solution(path, small_river())
    assert np.array_equal(back.policy, river_sol.policy)
    assert back.exploitability == river_sol.exploitability and back.ev("oop") == river_sol.ev("oop")
    assert back.iterations == 60 and back.history == river_sol.history
    a, b = SpotReader(river_sol).node("x b10"), SpotReader(back).node("x b10")
    assert np.array_equal(a.ev, b.ev) and np.array_equal(a.strategy, b.strategy)


def test_a_file_for_another_spot_is_refused(river_sol, tmp_path):
    path = tmp_path / "s.npz"
    save_solution(river_sol, path)
    for other in (small_river(pot=12), small_river(ip_range="KK, AQs, 99, T9s"),
                  small_river(bets={"bet": "p", "raise": "a"})):
        with pytest.raises(CfrlabError, match="is the solution of another spot") as e:
            load_solution(path, other)
        assert "\n" not in str(e.value)


def test_a_foreign_file_is_refused(tmp_path):
    from cfrlab.fileio import save_npz

    path = tmp_path / "x.npz"
    save_npz(path, {"kind": "strategy"}, {"policy": np.zeros((2, 2))})
    with pytest.raises(CfrlabError, match="expected a spot-solution file"):
        load_solution(path)
    save_npz(path, {"kind": "spot-solution", "version": 1, "spot": {"board": "Qs"}, "spot_key": "x"},
             {"policy": np.zeros((2, 2))})
    with pytest.raises(CfrlabError, match="its spot does not load"):
        load_solution(path)


def test_json_streams_every_decision_node(river_sol, turn_sol, tmp_path):
    out = tmp_path / "r.json"
    n = write_json(SpotReader(river_sol), out)
    doc = json.loads(out.read_text())
    assert n == len(doc["nodes"]) == river_sol.tree.num_decisions
    root = doc["nodes"][-1]  # children first: the root comes last
    assert root["path"] == "" and root["frequencies"] == pytest.approx(
        [f for _, f in river_sol.frequencies(0)], abs=1e-9)
    assert sum(v["weight"] * v["ev"] for v in root["combos"].values()) == pytest.approx(river_sol.ev("oop"))
    assert write_json(SpotReader(river_sol), out, "x", depth=0) == 1
    assert write_json(SpotReader(river_sol), out, "", depth=1) == 4  # the root, x, b10, b30
    tree = turn_sol.tree  # a turn spot: each river node once per river card
    rounds = tree.round[tree.decision_node]
    n = write_json(SpotReader(turn_sol), out, combos=False)
    assert n == int((rounds == 2).sum() + 48 * (rounds == 3).sum())
    doc = json.loads(out.read_text())
    assert {"path", "player", "frequencies", "grid"} <= set(doc["nodes"][0]) and "combos" not in doc["nodes"][0]
    assert doc["nodes"][0]["river"] == doc["nodes"][0]["path"].split()[2]


def test_png_grid(river_sol, tmp_path):
    out = tmp_path / "g.png"
    draw_grid(SpotReader(river_sol).node("x"), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000


# -- the command ----------------------------------------------------------------------------------




def test_cli_spot_show(tmp_path):
    cfg, saved = tmp_path / "river.toml", tmp_path / "s.npz"
    cfg.write_text(SMALL_TOML)
    res = cli("spot", "solve", str(cfg), "--target", "0.05", "--save", str(saved))
    assert res.returncode == 0, res.stderr
    png, js = tmp_path / "g.png", tmp_path / "n.json"
    res = cli("spot", "show", str(saved), "--node", "x b10", "--png", str(png), "--json", str(js),
               "--spot", str(cfg))
    assert res.returncode == 0, res.stderr
    assert re.search(r"^x b10: OOP acts on the river, pot 20; \d+ combos$", res.stdout, re.MULTILINE)
    assert "QJs" in res.stdout and "QcJc" in res.stdout and "equity" in res.stdout
    assert png.read_bytes()[:4] == b"\x89PNG" and "2 nodes written" in res.stdout
    assert [n["path"] for n in json.loads(js.read_text())["nodes"]] == ["x b10 b30", "x b10"]
    other = tmp_path / "other.toml"
    other.write_text(SMALL_TOML.replace("pot = 10", "pot = 12"))
    for args, words in ((["--spot", str(other)], "is the solution of another spot (board QsJh2h8d3c, pot 10"),
                        (["--node", "x b15"], "'b15' is not an action at x (actions: x, b10, b30)"),
                        (["--depth", "-1"], "--depth must be at least 0")):
        res = cli("spot", "show", str(saved), *args)
        assert res.returncode != 0 and words in res.stderr, res.stderr
        assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
