"""The spot walk on several threads (cfrlab.spot.fast): the boards below the first chance node
split in parts walked side by side give the one-thread tables bit for bit."""

import numpy as np
import pytest

from cfrlab.errors import CfrlabError
from cfrlab.spot import make_spot, spot_tree
from cfrlab.spot.fast import FastSolver, SpotGame

ARGS = {"pot": 10, "stack": 30, "oop_range": "AA, QJs, 87s:0.5, 54s, AhKh", "ip_range": "KK, T9s, 76s, A2s:0.5",
        "bets": {"bet": "p", "raise": "a"}}
SMALL = {**ARGS, "oop_range": "AA, 87s, QJs", "ip_range": "KK, T9s, 76s"}


def solver(board, threads, storage="float32", algorithm="dcfr", iterations=5, **kw):
    spot = make_spot(board=board, **{**ARGS, **kw})
    s = FastSolver(SpotGame(spot, spot_tree(spot), True), algorithm, storage, threads=threads)
    s.iterate(iterations)
    return s


def same_tables(a, b):
    for n in a.reg:
        assert np.array_equal(a.reg[n], b.reg[n]) and np.array_equal(a.cum[n], b.cum[n]), n
        assert np.array_equal(a.rscale[n], b.rscale[n]) and np.array_equal(a.cscale[n], b.cscale[n]), n


@pytest.mark.parametrize("board, kw", [("Qs Jh 2h 8d", {}), ("Qs Jh 2h", SMALL)])
@pytest.mark.parametrize("storage", ["float32", "int16"])
def test_two_and_three_threads_equal_one_bit_for_bit(board, kw, storage):
    """A turn spot (river boards split) and a flop spot (turn boards and the rivers below them
    split): the regret and average tables after 5 iterations, and the exact values, are the
    one-thread ones exactly."""
    one = solver(board, 1, storage, **kw)
    assert len(one._parts) == 1
    for threads in (2, 3):
        many = solver(board, threads, storage, **kw)
        assert len(many._parts) == threads
        same_tables(one, many)
        assert many.exact_values() == one.exact_values()
        assert many.best_responses() == one.best_responses()


def test_parts_cover_the_boards_in_contiguous_balanced_ranges():
    """split(k): each level's boards covered once, in order; the last street's boards shared
    about evenly; a river spot (no chance node) is one part."""
    spot = make_spot(board="Qs Jh 2h", **SMALL)
    g = SpotGame(spot, spot_tree(spot), True)
    parts = g.split(2)
    for L, lev in enumerate(g.levels[1:], start=1):
        assert parts[0].lo[L] == 0 and parts[0].hi[L] == parts[1].lo[L] and parts[1].hi[L] == lev.B
    river = [v.B[-1] for v in parts]
    assert sum(river) == g.levels[-1].B and abs(river[0] - river[1]) <= 48
    spot = make_spot(board="Qs Jh 2h 8d 3c", **ARGS)
    assert len(SpotGame(spot, spot_tree(spot), True).split(2)) == 1


def test_threads_must_be_positive():
    spot = make_spot(board="Qs Jh 2h 8d", **ARGS)
    with pytest.raises(CfrlabError, match="threads must be at least 1"):
        FastSolver(SpotGame(spot, spot_tree(spot), True), "dcfr", threads=0)
