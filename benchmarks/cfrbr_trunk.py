"""CFR-BR with a sampled trunk on four rounds: seconds per iteration, and the result's exploitability.

    python benchmarks/cfrbr_trunk.py                                  # 24-card deck, 3 buckets, 5 iterations
    python benchmarks/cfrbr_trunk.py --iterations 200 --evaluate      # + the exact real-game BR (~10 min)
    python benchmarks/cfrbr_trunk.py --hulhe-abstraction out/b5.npz   # full HULHE: one flop's cost, by part

Johanson, Bard, Burch and Bowling ("Finding optimal abstract strategies in extensive-form
games", AAAI 2012) run CFR-BR on HULHE with a trunk: the opponent a regret minimizer in the
first round(s) and a best response below, one flop class sampled per iteration
(``cfrlab cfrbr GAME --abstraction A --trunk 1``). The 24-card deck with HULHE's blinds, bets
and caps (benchmarks/real_ladder.py), four rounds (8.3e11 real information sets): the
perfect-recall E[HS^2] abstraction with ``--buckets`` per round (``cfrlab abstract build``),
CFR-BR with trunk 1 for ``--iterations`` (its first iteration, numba's compile included,
reported apart), seconds per iteration and the time that projects to ``--project``
iterations. ``--evaluate``: the current and average strategies' exact real-game
exploitability (``cfrlab exploit --real``, about 500 s each on two workers) next to CFR+'s in
the same abstraction (``--cfr-real``: its recorded figure, docs/figures/abstraction-ladder-6x4.csv,
427.41 mbb/g after 1,000 iterations for 3 buckets).

``--hulhe-abstraction``: full HULHE in that abstraction, one iteration's parts timed on one
flop (the flop's pass 1 and pass 2 below ``--turns`` of its turns, both passes for both
positions) and scaled to the flop's turns: an iteration is one flop's subgame (plus the trunk,
negligible). The opponent's reach entering the turns is there A's (dense, not a pure
response's, which leaves most hands of most river segments out): an upper bound.
``--trunk 2``: the opponent's flop rows in the trunk too. JSON (last line with --json):
``game``, ``buckets``, ``trunk``, ``rows``, ``first_seconds``,
``seconds_per_iteration``, ``projected_hours``, ``iterations``, ``current``/``average`` (mbb/g
or null), ``cfr_real``, ``hulhe`` (``pass1_seconds``, ``pass2_seconds`` per turn, ``turns``,
``iteration_seconds``) or null.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from real_ladder import cfrlab, game_dir, reduced_holdem

from cfrlab.games.units import to_unit
from cfrlab.realgame import _kernels as K
from cfrlab.realgame.cfrbr_trunk import TrunkSolver, real_br_values


def per_iteration(s: TrunkSolver, n: int) -> tuple[float, float]:
    """(the first iteration's seconds, the mean of the next n - 1)."""
    t = time.perf_counter()
    s.iterate(1)
    first = time.perf_counter() - t
    t = time.perf_counter()
    s.iterate(n - 1)
    return first, (time.perf_counter() - t) / max(n - 1, 1)


def hulhe_parts(abstraction: str, turns: int) -> dict:
    """One HULHE flop: pass 1 and pass 2 below ``turns`` of its turns, timed, and scaled."""
    s = TrunkSolver("holdem-limit", abstraction, seed=0)
    w = s.walker
    w.set_policy(s.current_policy())
    s._tabO = K.OpponentTable(s._opponent_trunk(), s.orow_offset)
    s._inst, s._inc = np.zeros_like(s.regret), np.zeros_like(s.avg)
    s._oinst, s._oinc = np.zeros_like(s.oregret), np.zeros_like(s.oavg)
    u = s.units[len(s.units) // 2]
    c0 = w.root_forward()
    flop = np.zeros((w.rounds[1].num_chance, 2, w.H))
    w._pass(1, False, u.board, c0, np.zeros_like(c0), 1.0, flop, np.zeros((0, 2, 0)))
    rest = [c for c in range(w.deck.size) if c not in u.board]
    p1 = p2 = 0.0
    for card in rest[:turns]:
        board = (*u.board, card)
        out = np.zeros((w.rounds[2].num_entries, 2, w.H))
        t = time.perf_counter()
        w._level(2, board, flop, out, 1.0)
        p1 += time.perf_counter() - t
        t = time.perf_counter()
        s._level2(2, board, flop, flop, np.zeros_like(flop), 1.0, 1.0)
        p2 += time.perf_counter() - t
    n = len(rest)
    return {"pass1_seconds": p1 / turns, "pass2_seconds": p2 / turns, "turns": n, "rows": s.num_rows,
            "iteration_seconds": (p1 + p2) / turns * n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=6)
    ap.add_argument("--suits", type=int, default=4)
    ap.add_argument("--buckets", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--project", type=int, default=2000, help="iterations to project the time to")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trunk", type=int, default=1, help="rounds in the trunk: 1 or 2")
    ap.add_argument("--evaluate", action="store_true", help="the exact real-game exploitability of the result")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cfr-real", type=float, default=427.41, help="CFR+'s real-game exploitability (mbb/g)")
    ap.add_argument("--hulhe-abstraction", default=None, help="also time one HULHE flop in this abstraction")
    ap.add_argument("--turns", type=int, default=1, help="HULHE: turns timed")
    ap.add_argument("--skip-deck", action="store_true", help="only the HULHE timing")
    ap.add_argument("--out-dir", default=None, help="default: out/cfrbr-trunk-RxS")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    row: dict = {"game": f"holdem-{a.ranks}x{a.suits}", "buckets": a.buckets, "trunk": a.trunk,
                 "hulhe": None}
    if not a.skip_deck:
        d = Path(a.out_dir or f"out/cfrbr-trunk-{a.ranks}x{a.suits}")
        game = game_dir(d, "game.game", reduced_holdem(a.ranks, a.suits))
        abst = d / f"b{a.buckets}.npz"
        if not abst.exists():
            cfrlab("abstract", "build", str(game), "--buckets", str(a.buckets), "--out", str(abst), "-q",
                   summary=False)
        s = TrunkSolver(game, abst, trunk=a.trunk, seed=a.seed)
        first, each = per_iteration(s, a.iterations)
        row.update(rows=s.num_rows, first_seconds=first, seconds_per_iteration=each,
                   projected_hours=each * a.project / 3600, iterations=s.iterations, cfr_real=a.cfr_real)
        print(f"{a.ranks}x{a.suits} deck, four rounds, {a.buckets} buckets ({s.num_rows:,} rows), "
              f"trunk {a.trunk}: "
              f"first iteration {first:.1f} s, then {each:.1f} s per iteration; {a.project:,} "
              f"iterations: {row['projected_hours']:.1f} h", flush=True)
        for which in ("current", "average"):
            row[which] = None
            if a.evaluate:
                b0, b1 = real_br_values(s, which, a.workers)
                row[which] = to_unit(s.game, 0.5 * (b0 + b1))
                print(f"after {s.iterations} iterations, the {which} strategy: {row[which]:.2f} "
                      f"mbb/g (CFR+ in the abstraction: {a.cfr_real:.2f})", flush=True)
    if a.hulhe_abstraction:
        h = row["hulhe"] = hulhe_parts(a.hulhe_abstraction, a.turns)
        print(f"HULHE ({h['rows']:,} rows): per turn, pass 1 {h['pass1_seconds']:.1f} s, pass 2 "
              f"{h['pass2_seconds']:.1f} s; one iteration (a flop, {h['turns']} turns) about "
              f"{h['iteration_seconds'] / 60:.0f} min", flush=True)
    if a.json:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
