"""Counterfactual value networks (cfrlab.subgame.valuenet, valuedata; cfrlab.deep.cfvnet): the
situations' targets in their units, resumable data, the network's held-out error, the leaves
wired exactly (a stand-in network that returns known values gives the continuation solve),
and files for another game refused."""

import itertools
from functools import lru_cache

import numpy as np
import pytest

import cfrlab
from cfrlab.deep.cfvnet import CfvNet, load_cfvnet
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import NpzReader
from cfrlab.games import load_game
from cfrlab.strategy import Strategy
from cfrlab.subgame.cut import blueprint_of
from cfrlab.subgame.depth import (
    continuations,
    depth_limited_strategy,
    entry,
    leaf_tables,
    root_family,
    root_ranges,
    solve_depth,
    truncate,
)
from cfrlab.subgame.valuedata import CHUNK, generate, load_data
from cfrlab.subgame.valuenet import LAYOUT, ValueNets, round_shape

LEDUC = load_game("leduc")


@lru_cache(maxsize=2)
def leduc_bp(iterations: int = 30):
    return cfrlab.solve("leduc", "cfr", iterations=iterations).strategy


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("cfvdata")
    rep = generate(blueprint_of(leduc_bp(), later_round=False), 1, d, situations=2 * CHUNK, iterations=200)
    return d, rep


def test_targets_are_solved_values_in_their_units(data):
    """Both players' values of a situation add up, range-weighted, to twice the solve's gap
    (each is a best response, and the game is zero-sum): the chance weight, the pot and the
    range masses are divided out consistently. The gaps are small: the targets are solved."""
    d, rep = data
    bp = blueprint_of(leduc_bp(), later_round=False)
    shape = round_shape(bp, 1)
    z = load_data(bp, 1, d)
    B, H = shape.blocks, shape.states
    x, y, pot = z["x"], z["y"].astype(np.float64), z["pot"]
    assert rep.situations == len(x) == 2 * CHUNK * 6 and rep.chunks == 2
    r0n, r1n = x[:, B:B + H].astype(np.float64), x[:, B + H:B + 2 * H].astype(np.float64)
    assert np.allclose(r0n.sum(1), 1) and np.allclose(r1n.sum(1), 1)
    excess = (r0n * y[:, :H]).sum(1) + (r1n * y[:, H:]).sum(1)  # pot fractions
    gaps = np.concatenate([NpzReader(f, kind="cfvdata").read("gap") for f in sorted(d.glob("chunk-*.npz"))])
    assert np.allclose(excess * pot, 2 * gaps, atol=1e-5)
    assert 0 <= rep.gap < 0.01 and gaps.min() > -1e-9
    assert set(np.unique(pot)) == {2.0, 6.0, 10.0}  # Leduc's pots after the first round


def test_generation_resumes_to_the_same_data(data, tmp_path):
    d, _ = data
    bp = blueprint_of(leduc_bp(), later_round=False)
    first = generate(bp, 1, tmp_path, situations=CHUNK, iterations=200)
    assert (first.chunks, first.resumed) == (1, 0)
    stamp = (tmp_path / "chunk-00000.npz").stat().st_mtime_ns
    again = generate(bp, 1, tmp_path, situations=2 * CHUNK, iterations=200)
    assert (again.chunks, again.resumed) == (2, 1)
    assert (tmp_path / "chunk-00000.npz").stat().st_mtime_ns == stamp
    for f in ("chunk-00000.npz", "chunk-00001.npz"):
        a, b = (np.load(p / f)["y"] for p in (d, tmp_path))
        assert np.array_equal(a, b)
    with pytest.raises(CfrlabError, match="iterations 200, this run makes them with 100"):
        generate(bp, 1, tmp_path, situations=CHUNK, iterations=100)
    with pytest.raises(CfrlabError, match="rounds 2 to 2"):
        generate(bp, 0, tmp_path, situations=CHUNK)


def test_network_learns_and_reports_its_held_out_error(data, tmp_path):
    pytest.importorskip("jax")
    from cfrlab.subgame.valuedata import train_value_net

    d, _ = data
    bp = blueprint_of(leduc_bp(), later_round=False)
    net, rep = train_value_net(bp, 1, d, hidden=(64, 64), steps=600, batch=256)
    assert rep.held_out == round(0.1 * rep.examples)
    assert rep.mae_held_out < 0.5 * rep.mae_zero  # far better than predicting nothing
    net.save(tmp_path / "net.npz")
    back = load_cfvnet(tmp_path / "net.npz", "leduc")
    x = load_data(bp, 1, d)["x"][:50]
    assert np.array_equal(back.predict(x), net.predict(x))
    assert back.header["mae_held_out_chips"] == pytest.approx(rep.mae_held_out)
    with pytest.raises(FileMismatchError, match="holds a value network for leduc, not for kuhn"):
        load_cfvnet(tmp_path / "net.npz", "kuhn")


class Known(CfvNet):
    """A stand-in network that returns the blueprint continuation's values at each leaf, read
    from the features (block and pot), exactly: the uniform blueprint's values below a round
    start depend on nothing else."""

    def __init__(self, bp, tables: dict, shape):
        super().__init__(LEDUC, 1, LAYOUT, (shape.inputs, 1, shape.outputs), [])
        self.tables, self.shape = tables, shape

    def predict(self, x):
        s = self.shape
        B, H = s.blocks, s.states
        b = x[:, :B].argmax(1)
        r0n, r1n = x[:, B:B + H].astype(np.float64), x[:, B + H:B + 2 * H].astype(np.float64)
        pot = np.rint(x[:, -2:].astype(np.float64) * s.top).sum(1)
        out = np.empty((len(x), 2 * H))
        for k in range(len(x)):
            T = self.tables[pot[k]]  # [2, nb, H, H]
            out[k, :H] = T[0, b[k]] @ r1n[k] / (s.c * pot[k])
            out[k, H:] = T[1, b[k]] @ r0n[k] / (s.c * pot[k])
        return out


@pytest.mark.parametrize("searcher", [0, 1])
def test_network_leaves_give_the_continuation_solve_for_a_network_that_knows_it(searcher):
    uniform = Strategy.uniform("leduc")
    bp = blueprint_of(uniform, later_round=False)
    fam = root_family(bp)
    _, leaves = truncate(fam, 1)
    conts = continuations(bp, 1, 5.0)
    tabs = leaf_tables(bp, fam, leaves, conts, searcher)
    by_pot = {}
    for m, lm in leaves.items():
        pot = float(bp.tree.spent[entry(fam, lm)].sum())
        T = tabs[m][0, :, 0]  # [2, nb, H, H]
        assert pot not in by_pot or np.allclose(by_pot[pot], T)
        by_pot[pot] = T
    nets = ValueNets(bp, {1: Known(bp, by_pot, round_shape(bp, 1))})
    ranges = root_ranges(fam)
    a = solve_depth(bp, fam, ranges, "unsafe", searcher, 1, conts, 30, both=True)
    b = solve_depth(bp, fam, ranges, "unsafe", searcher, 1, conts, 30, both=True, values=nets)
    for m in a.avg:  # the features carry the ranges in float32: equal to its rounding
        assert np.allclose(a.avg[m], b.avg[m], rtol=1e-6, atol=1e-9)
    for leaf, (_, r) in a.below().items():
        other = b.below()[leaf][1]
        assert np.allclose(r.alt, other.alt, rtol=1e-6, atol=1e-6 * np.abs(r.alt).max())
        assert np.allclose(r.reach[searcher], other.reach[searcher], rtol=1e-6)


def test_search_with_networks_is_written_out_and_measured(data):
    """DeepStack's loop with learned leaves: continual re-solving at depth 1, every decision
    of each seat re-solved, measured exactly; a network of another round or game refused."""
    s = leduc_bp()
    bp = blueprint_of(s, later_round=False)
    shape = round_shape(bp, 1)
    rng = np.random.default_rng(0)
    layers = (shape.inputs, 8, shape.outputs)
    net = CfvNet(LEDUC, 1, LAYOUT, layers, [(rng.normal(size=(a, b)).astype(np.float32) * 0.1,
                                             np.zeros(b, np.float32)) for a, b in itertools.pairwise(layers)])
    r = depth_limited_strategy(s, depth=1, continual=True, iterations=20, values=ValueNets(bp, {1: net}))
    e = r.exploitability()
    assert np.isfinite(e) and e > 0 and r.strategy.header["params"]["leaf_values"] == "networks"
    with pytest.raises(CfrlabError, match="is for round 1, these leaves start round 2"):
        ValueNets(bp, {1: CfvNet(LEDUC, 0, LAYOUT, layers, net.net)})
    with pytest.raises(CfrlabError, match="for kuhn, not for leduc"):
        ValueNets(bp, {1: CfvNet(load_game("kuhn"), 1, LAYOUT, layers, net.net)})


def test_cli_trains_a_network_and_searches_with_it_and_the_agent_plays_it(tmp_path, capsys):
    pytest.importorskip("jax")
    from cli_run import one_line_error, run

    from cfrlab.agents.registry import make_agent
    from cfrlab.evaluate.match import play_match

    net, data = tmp_path / "net.npz", tmp_path / "data"
    code, out, err = run(capsys, "value-net", "leduc", "--data", str(data), "-o", str(net), "--situations", "256",
                         "--solve-iterations", "50", "--steps", "200", "--hidden", "32", "--json")
    assert code == 0, err
    summary = __import__("json").loads(out.strip().splitlines()[-1])
    assert summary["situations"] == CHUNK * 6 and summary["mae_held_out_chips"] < summary["mae_zero_chips"]
    assert "held-out situations" in out and net.is_file()
    code, _, err = run(capsys, "value-net", "leduc", "--data", str(data), "-o", str(net), "--situations", "256")
    one_line_error(code, err, "exists; use --force")
    for flag, value, words in (("--hidden", "0", "a width is a whole number"), ("--steps", "0", "steps must be")):
        code, _, err = run(capsys, "value-net", "leduc", "--data", str(tmp_path / "none"), "-o",
                           str(tmp_path / "n2.npz"), flag, value)
        one_line_error(code, err, words)
        assert not (tmp_path / "none").exists()  # refused before any situation is solved
    bp = tmp_path / "bp.npz"
    leduc_bp().save(bp)
    code, out, err = run(capsys, "search", str(bp), "--net", str(net), "--continual", "-n", "5", "--json")
    assert code == 0, err
    assert "value networks at the leaves" in out
    kuhn = tmp_path / "kuhn.npz"
    cfrlab.solve("kuhn", "cfr", iterations=10).strategy.save(kuhn)
    code, _, err = run(capsys, "search", str(kuhn), "--net", str(net))
    one_line_error(code, err, "holds a value network for leduc, not for kuhn")
    agent = make_agent(f"search:{bp}:net={net},continual=yes,iterations=5,time=0", LEDUC, seed=1)
    m = play_match(LEDUC, agent, make_agent(str(bp), LEDUC), 20, seed=3).summary()
    assert m["hands"] == 20
    with pytest.raises(CfrlabError, match="holds a value network for leduc, not for kuhn"):
        make_agent(f"search:{kuhn}:net={net}", load_game("kuhn"))
