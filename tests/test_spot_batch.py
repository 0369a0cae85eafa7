"""A spot over many flops (cfrlab.spot.batch): the 1,755 flop classes against brute force; the
aggregate equals the per-flop solves it collects and their weighted mean; local workers and a
resumed batch give the serial batch's values bit for bit; bad batches are one line. (On Ray:
tests/test_realgame_ray.py, with its local head.)"""

from itertools import combinations, permutations

import numpy as np
import pytest
from cli_run import one_line_error, run

from cfrlab.errors import CfrlabError
from cfrlab.spot.batch import FIELDS, flop_classes, flop_figures, make_batch, solve_batch

SETTINGS = {"pot": 10, "stack": 10, "oop_range": "AA, QJs, 87s:0.5, 54s", "ip_range": "KK, AQs, 99:0.75, T9s",
            "bets": {"bet": "p", "raise": "a"}}
FLOPS = ["Qs Jh 2h", "As 8d 3c", "7c 7d 2s"]


def test_the_1755_flop_classes_and_their_weights_by_brute_force():
    """Each of the 22,100 flops, put in canonical form by brute force (the least sorted image
    over the 24 suit permutations), lands in a class whose weight is its size."""
    classes = flop_classes()
    assert len(classes) == 1755 and sum(w for _, w in classes) == 22100

    def canon(f):
        return min(tuple(sorted((c // 4) * 4 + p[c % 4] for c in f)) for p in permutations(range(4)))

    sizes: dict = {}
    for f in combinations(range(52), 3):
        k = canon(f)
        sizes[k] = sizes.get(k, 0) + 1
    assert {canon(rep): w for rep, w in classes} == sizes


def test_the_aggregate_is_the_per_flop_solves_and_their_weighted_mean():
    batch = make_batch(board=FLOPS, **SETTINGS)
    res = solve_batch(batch, target_pct=None, iterations=8, threads=1)
    assert res.actions == ["check", "bet 10 (all-in)"] and res.rows.shape == (3, len(FIELDS) + 2)
    for i in range(3):
        alone = flop_figures(batch.spot(i), None, 8, "dcfr", "float32", 1)
        assert np.array_equal(res.rows[i], alone)
    assert np.allclose(res.totals(), res.rows.mean(axis=0), rtol=0, atol=1e-12)
    assert np.allclose(res.rows[:, len(FIELDS):].sum(axis=1), 1.0, atol=1e-9)  # frequencies
    assert (res.rows[:, 0] > 0).all() and ((res.rows[:, 4] > 0) & (res.rows[:, 4] < 1)).all()
    weighted = make_batch(board="*", **{**SETTINGS, "oop_range": "AA", "ip_range": "KK"})
    assert len(weighted.flops) == 1755 and sum(weighted.weights) == 22100


def test_workers_and_a_resumed_batch_give_the_serial_values(tmp_path):
    batch = make_batch(board=FLOPS, **SETTINGS)
    serial = solve_batch(batch, target_pct=None, iterations=6, threads=1)
    two = solve_batch(batch, target_pct=None, iterations=6, threads=1, workers=2, checkpoint=tmp_path / "ck")
    assert np.array_equal(two.rows, serial.rows)
    (tmp_path / "ck" / "unit-000001.npz").unlink()  # a batch stopped before its second flop
    with pytest.raises(CfrlabError, match="finished units of this job"):
        solve_batch(batch, target_pct=None, iterations=6, threads=1, checkpoint=tmp_path / "ck")
    again = solve_batch(batch, target_pct=None, iterations=6, threads=1, checkpoint=tmp_path / "ck", resume=True)
    assert np.array_equal(again.rows, serial.rows) and list(again.seconds) == [1]
    other = make_batch(board=FLOPS[:2], **SETTINGS)  # another job in the same directory
    with pytest.raises(CfrlabError, match="another job"):
        solve_batch(other, target_pct=None, iterations=6, threads=1, checkpoint=tmp_path / "ck", resume=True)


@pytest.mark.parametrize("kw, words", [
    ({"board": "top25"}, "'\\*' \\(every flop\\) or a list of flops"),
    ({"board": ["Qs Jh 2h 8d"]}, "are flops \\(3 cards\\)"),
    ({"board": ["Qs Jh 2h", "Jh 2h Qs"]}, "listed twice"),
    ({"board": "*", "oop_range": "AsKs"}, "treat the suits alike"),
    ({"board": ["Qs Jh 2h"], "pot": 11}, "is odd"),
])
def test_bad_batches_are_one_line(kw, words):
    with pytest.raises(CfrlabError, match=words) as e:
        make_batch(**{**SETTINGS, **kw})
    assert "\n" not in str(e.value)


def test_cli_batch_writes_its_table_and_chart(tmp_path, capsys):
    cfg = tmp_path / "b.toml"
    cfg.write_text('board = ["Qs Jh 2h", "As 8d 3c"]\npot = 10\nstack = 10\n[ranges]\noop = "AA, QJs"\n'
                   'ip = "KK, T9s"\n[bets]\nbet = "p"\nraise = "a"\n')
    out, png = tmp_path / "t.csv", tmp_path / "t.png"
    code, text, err = run(capsys, "spot", "batch", str(cfg), "--iterations", "5", "--threads", "1",
                          "--out", str(out), "--png", str(png))
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines[0].startswith("flop,weight,exploitability_pct") and lines[-1].startswith("weighted,2,")
    assert len(lines) == 4 and png.stat().st_size > 1000 and "weighted" in text
    one_line_error(*run(capsys, "spot", "batch", str(cfg), "--resume")[::2], "--resume needs --checkpoint")
    t = tmp_path / "bad.toml"
    t.write_text(cfg.read_text().replace('["Qs Jh 2h", "As 8d 3c"]', '"top25"'))
    one_line_error(*run(capsys, "spot", "batch", str(t))[::2], "a list of flops")
    t.write_text(cfg.read_text().replace('board = ["Qs Jh 2h", "As 8d 3c"]\n', ""))
    one_line_error(*run(capsys, "spot", "batch", str(t))[::2], "has no board")
    t.write_text("blinds = 3\n" + cfg.read_text())
    one_line_error(*run(capsys, "spot", "batch", str(t))[::2], "unknown setting 'blinds'")
