"""When `cfrlab solve` measures exploitability (a growing schedule unless --eval-every), how
much of it reaches --json, and how often progress lines are written to a non-terminal."""

from __future__ import annotations

import io
import itertools
import json

import numpy as np
import pytest

from cfrlab.cli.main import main
from cfrlab.solvers.driver import (
    Aimed,
    Checkpointer,
    Every,
    Growing,
    StopRule,
    Tick,
    run_solve,
    thin_history,
)


class CountingSolver:
    """Deterministic fake: its digest depends on how many iterations ran, not how they were split."""

    def __init__(self):
        self.iterations = 0
        self.digest = np.zeros(2, dtype=np.uint64)

    def iterate(self, n):
        for _ in range(n):
            self.iterations += 1
            self.digest = (self.digest * np.uint64(6364136223846793005) + np.uint64(self.iterations)) \
                % np.uint64(2**61 - 1)

    def state_dict(self):
        return {"iterations": self.iterations, "digest": self.digest.copy()}

    def load_state_dict(self, d):
        self.iterations = int(d["iterations"])
        self.digest = np.asarray(d["digest"], np.uint64).copy()


def points(schedule, until):
    out, it = [], 0
    while True:
        it = schedule.next_after(it)
        if it > until:
            return out
        out.append(it)


def test_growing_schedule_points():
    assert points(Growing(10), 1000) == [*range(10, 101, 10), *range(150, 1001, 50)]
    assert points(Growing(1000), 20_000) == [*range(1000, 10_001, 1000), 15_000, 20_000]
    # 175,000 CFR+ iterations: 65 measurements (and one at the end) instead of 17,500 every 10
    assert len(points(Growing(10), 175_000)) == 65
    # never more than 1.5x apart after the first tenfold, so a --target is caught promptly
    p = points(Growing(10), 10**7)
    assert all(b / a <= 1.5 for a, b in itertools.pairwise(p) if a >= 100)
    # next_after is a function of the iteration alone (resume-safe) and strictly increasing
    for it in (0, 9, 10, 99, 100, 101, 149, 150, 999, 1000, 123_456):
        nxt = Growing(10).next_after(it)
        assert nxt > it and nxt in p
    assert points(Every(7), 30) == [7, 14, 21, 28]


def test_run_solve_measures_on_the_growing_schedule_and_resumes_on_it(tmp_path):
    s = CountingSolver()
    res = run_solve(s, StopRule(iterations=420), lambda: 1.0, eval_every=Growing(10))
    assert [h[0] for h in res.state.history] == [*range(10, 101, 10), *range(150, 401, 50), 420]
    # interrupted at 130 (a checkpoint), resumed: the same points and the same final state
    ident = {"game": "G", "game_name": "g", "model_hash": "h", "algorithm": "fake", "params": {}, "seed": None}
    first = CountingSolver()
    ck = Checkpointer(tmp_path / "c.npz", ident)
    run_solve(first, StopRule(iterations=130), lambda: 1.0, eval_every=Growing(10), checkpoint=ck,
              checkpoint_every=65)
    second = CountingSolver()
    run = Checkpointer(tmp_path / "c.npz", ident).load(second)
    res2 = run_solve(second, StopRule(iterations=420), lambda: 1.0, eval_every=Growing(10), run=run)
    assert [h[0] for h in res2.state.history] == [*range(10, 101, 10), 130, *range(150, 401, 50), 420]
    assert np.array_equal(second.digest, s.digest)


def test_target_is_checked_on_the_growing_schedule():
    s = CountingSolver()
    res = run_solve(s, StopRule(target=1 / 300), lambda: 1.0 / s.iterations, eval_every=Growing(10))
    assert res.stopped_by == "target" and res.iterations == 300


@pytest.mark.parametrize("power", [0.5, 1.0, 2.0])
def test_aimed_schedule_catches_the_target_in_fewer_measurements(power):
    """An exploitability falling as 1000 / t^power: the aimed schedule stops at the target no
    more than 50% late (never later than ``Growing`` and a fixed interval allow), with fewer
    measurements than every 10 iterations, and the same points when resumed from its history."""
    for target in (1000 / 250**power, 1000 / 1234**power):
        need = int(np.ceil((1000 / target) ** (1 / power) - 1e-9))
        s = CountingSolver()
        res = run_solve(s, StopRule(target=target), lambda s=s: 1000.0 / s.iterations**power,
                        eval_every=Aimed(10, target))
        assert res.stopped_by == "target" and need <= res.iterations <= 1.5 * need
        f = CountingSolver()
        fixed = run_solve(f, StopRule(target=target), lambda f=f: 1000.0 / f.iterations**power,
                          eval_every=10)
        assert len(res.state.history) < len(fixed.state.history) / 2 or need < 300
        pts = [h[0] for h in res.state.history]
        assert pts[:2] == [10, 20] and all(b <= 1.5 * a for a, b in itertools.pairwise(pts) if a >= 20)
        again = Aimed(10, target)
        again.history = res.state.history
        assert all(again.next_after(a) == b for a, b in itertools.pairwise(pts) if a >= 20)


def test_thin_history_keeps_ends_and_spreads_on_a_log_scale():
    h = [(i, 0.01 * i, 1.0 / i) for i in range(10, 175_001, 10)]
    t = thin_history(h, 100)
    assert len(t) <= 100 and t[0] == h[0] and t[-1] == h[-1]
    its = [x[0] for x in t]
    assert its == sorted(set(its))
    # log-spaced: as many points below 1,000 as between 10,000 and 100,000 (roughly)
    low, high = sum(i < 1000 for i in its), sum(10_000 <= i < 100_000 for i in its)
    assert low >= 20 and high >= 20
    assert thin_history(h[:50], 100) == h[:50]


def tick(it, measured, expl=0.5):
    return Tick(it, it * 0.001, 1000.0, expl if measured is not None else None, measured, None)


def test_line_progress_is_throttled_by_time():
    from cfrlab.cli.solve_cmd import LineProgress
    from cfrlab.games import load_game

    now = [0.0]
    out = io.StringIO()
    lp = LineProgress(load_game("kuhn"), clock=lambda: now[0], out=out)
    for it in range(10, 100_001, 10):  # a measurement every 10 iterations, 10 ms apart
        now[0] += 0.01
        lp.update(tick(it, it))
    lp.finish()
    lines = out.getvalue().splitlines()
    # 100 s of measurements: the first, then one per >= 2 s (5% of elapsed later), and the last
    assert 10 <= len(lines) <= 51, len(lines)
    assert " it 10 " in lines[0] and " it 100,000 " in lines[-1]
    # silence without measurements: one line per minute, saying the last measured point
    out2 = io.StringIO()
    lp2 = LineProgress(load_game("kuhn"), clock=lambda: now[0], out=out2)
    lp2.update(tick(10, 10))
    for k in range(1, 301):
        now[0] += 1.0
        lp2.update(tick(10 + k, 10))
    lines2 = out2.getvalue().splitlines()
    assert len(lines2) == 1 + 5 and "(at 10)" in lines2[-1]


def run(capsys, *argv):
    try:
        main(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_solve_measures_sparsely_and_keeps_json_short(capsys):
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "3000", "--json", "--no-progress")
    assert code == 0, err
    d = json.loads(out.strip().splitlines()[-1])
    its = [h[0] for h in d["history"]]
    assert its == points(Growing(10), 3000)
    assert "measured at 10, 20, ..., 100, 150, 200, ... iterations" in out
    code, out, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "3000", "--eval-every", "5", "--json",
                         "--no-progress")
    d = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and 50 <= len(d["history"]) <= 100  # 600 measurements, thinned for the summary
    assert d["history"][-1][0] == 3000 and d["history"][0][0] == 5
    assert "measured every 5 iterations" in out


@pytest.mark.parametrize("every", ["0", "-3"])
def test_cli_eval_every_must_be_positive(capsys, every):
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr+", "-n", "10", "--eval-every", every)
    assert code != 0 and err.startswith("cfrlab: error:") and "--eval-every" in err
