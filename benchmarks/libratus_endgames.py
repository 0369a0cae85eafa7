"""The four Libratus endgames (issue: real flops, item 6): two turn and two river subgames of
heads-up no-limit hold'em that Libratus met and solved, each with both players' reach
probabilities over the 1,326 hands, solved by the CFR family and measured exactly.

    git clone https://github.com/Sandholm-Lab/LibratusEndgames /tmp/LibratusEndgames
    python benchmarks/libratus_endgames.py --data /tmp/LibratusEndgames
    python benchmarks/libratus_endgames.py --data DIR --subgames 3,4 --algorithms dcfr,cfr+ \\
        --iterations 1000 --json

The data are not shipped with cfrlab (the repository states no license): the benchmark reads
them from ``--data``. Each file gives the round (3: the turn, 4: the river), the board, the
pot (each player put in half) and 2,652 reach probabilities: the out-of-position player's
1,326 hands, then the button's, hands in the order 2s2h, 2s2d, 2s2c, 2s3s, ..., AdAc (ranks
2 to A, suits s h d c, pairs of cards in that order). Stacks are 20,000 chips each (blinds
50/100), so each player has 20,000 - pot / 2 behind.

Bet sizes (the files do not hold them): ``--bets`` and ``--raises``, by default half pot,
pot and all-in for a round's first bet and pot and all-in for a raise, as we read Brown and
Sandholm, "Solving Imperfect-Information Games via Discounted Regret Minimization" (AAAI
2019), where these four subgames are the HUNL benchmarks of its figures.

Exploitability is in milli-big-blinds per hand played in the subgame (big blind 100 chips;
each player's range normalized to the hands it reaches with, weighted by those
probabilities), and in percent of the pot. ``dcfr``, ``dcfr+`` and ``cfr+`` run on the spot's
walk (``cfrlab.engine.board_walk``), ``lcfr`` and ``pcfr+`` on the engine's dense tables.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from cfrlab.errors import CfrlabError
from cfrlab.spot import make_spot
from cfrlab.spot.solve import solve_spot
from cfrlab.spot.tree import spot_size

RANKS, SUITS = "23456789TJQKA", "shdc"
CARDS = [r + s for r in RANKS for s in SUITS]
HANDS = [CARDS[i] + CARDS[j] for i in range(52) for j in range(i + 1, 52)]  # the files' order
STACK = 20000
BIG_BLIND = 100


def read_endgame(path: Path) -> dict:
    """(round, board text, pot, OOP reach[1326], IP reach[1326]) of one endgame file, checked."""
    fields: dict[str, str] = {}
    for line in path.read_text().splitlines():
        key, _, value = line.strip().partition(" ")
        if key:
            fields[key.lstrip("-")] = value
    try:
        board = fields["board"]
        reach = np.array([float(x) for x in fields["reach"].split()])
        out = {"round": int(fields["round"]), "board": " ".join(board[i:i + 2] for i in range(0, len(board), 2)),
               "pot": int(fields["pot"]), "oop": reach[:1326], "ip": reach[1326:]}
    except (KeyError, ValueError) as e:
        raise CfrlabError(f"{path}: not a Libratus endgame file ({e})") from None
    if reach.shape != (2652,) or not np.isfinite(reach).all() or (reach < 0).any() or reach.max() > 1:
        raise CfrlabError(f"{path}: its reach is not 2,652 probabilities")
    return out


def endgame_spot(e: dict, bets: str, raises: str):
    def text(r: np.ndarray) -> str:
        return ", ".join(f"{h}:{float(w)!r}" for h, w in zip(HANDS, r) if w > 0)

    return make_spot(board=e["board"], pot=e["pot"], stack=STACK - e["pot"] // 2, oop_range=text(e["oop"]),
                     ip_range=text(e["ip"]), bets={"bet": bets, "raise": raises})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="a clone of github.com/Sandholm-Lab/LibratusEndgames")
    ap.add_argument("--subgames", default="1,2,3,4")
    ap.add_argument("--algorithms", default="cfr+,lcfr,dcfr,dcfr+,pcfr+")
    ap.add_argument("--iterations", type=int, default=500, help="iterations of each solve")
    ap.add_argument("--check-every", type=int, default=50, help="iterations between measurements")
    ap.add_argument("--bets", default="0.5p, p, a", help="a round's first bet")
    ap.add_argument("--raises", default="p, a", help="a raise facing a bet")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--png", default=None, help="plot the curves here")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = []
    for k in (int(x) for x in a.subgames.split(",")):
        e = read_endgame(Path(a.data) / f"subgame{k}.txt")
        spot = endgame_spot(e, a.bets, a.raises)
        size = spot_size(spot)
        print(f"subgame {k}: {'turn' if e['round'] == 3 else 'river'} {e['board']}, pot {e['pot']}, "
              f"{size.combos[0]} / {size.combos[1]} combos, {sum(size.decisions)} decisions", flush=True)
        for alg in a.algorithms.split(","):
            t0, cpu = time.perf_counter(), time.process_time()
            sol = solve_spot(spot, alg, target_pct=None, iterations=a.iterations, check_every=a.check_every,
                             storage="float32", threads=a.threads)
            curve = [(int(it), float(pct) * e["pot"] / 100 / BIG_BLIND * 1000) for it, _s, pct in sol.history]
            row = {"subgame": k, "algorithm": alg, "iterations": sol.iterations, "seconds": time.perf_counter() - t0,
                   "cpu_seconds": time.process_time() - cpu, "exploitability_mbb": curve[-1][1],
                   "exploitability_pct": sol.exploitability_pct, "curve_mbb": curve}
            rows.append(row)
            print(f"  {alg:6s} {sol.iterations:5d} it.  {row['exploitability_mbb']:9.3f} mbb/hand "
                  f"({row['exploitability_pct']:.4f}% of the pot), {row['seconds']:.0f} s; curve "
                  + " ".join(f"{i}:{v:.2f}" for i, v in curve), flush=True)
    if a.png:
        plot(rows, a.png)
    if a.json:
        print(json.dumps({"rows": rows, "bets": a.bets, "raises": a.raises}))
    return 0


def plot(rows: list[dict], path: str) -> None:
    """One panel per subgame: exploitability (mbb per hand, log scale) against iterations, a
    line per algorithm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = sorted({r["subgame"] for r in rows})
    fig, axes = plt.subplots(1, len(games), figsize=(4 * len(games), 3.4), squeeze=False)
    for ax, k in zip(axes[0], games):
        for r in (r for r in rows if r["subgame"] == k):
            its, mbb = zip(*r["curve_mbb"])
            ax.plot(its, mbb, label=r["algorithm"], marker=".")
        ax.set_yscale("log")
        ax.set_title(f"subgame {k}")
        ax.set_xlabel("iterations")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("exploitability (mbb per hand)")
    axes[0][-1].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
