"""Exact real-game ladder on a reduced-deck hold'em: does a finer abstraction lose less?

    python benchmarks/real_ladder.py                          # 6 ranks x 4 suits, buckets 2-5
    python benchmarks/real_ladder.py --ranks 5 --buckets 2,3 --json

The exact best response of a bucketed strategy in full HULHE takes about a day of two cores
(docs/results/realgame.md). With HULHE's betting on a 24-card deck it takes minutes, so the
question the real-game ladder asks (is a strategy solved in a finer abstraction less exploitable
in the real game, as it is in its own abstraction?) has an exact answer there. For each bucket
count, with the same commands a user runs: the E[HS^2] abstraction (`cfrlab abstract
build`), CFR+ for a fixed number of iterations (`cfrlab solve`, which reports the
exploitability in the abstraction), the exact real-game best response (`cfrlab exploit
--real`) and LBR's lower bound (`cfrlab lbr`). Files go to --out-dir; a second run reuses
the ones already there (a stopped best response resumes from its finished units).
JSON (last line with --json): ``game``, ``iterations``, ``rows`` (one per bucket count:
``buckets``, ``infosets``, ``abstract_mbb``, ``real_mbb``, ``real_by_position``,
``lbr_mbb``, ``lbr_ci95``, ``solve_seconds``, ``real_seconds``, ``lbr_seconds``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from cfrlab.games.builtins import builtin_text


def reduced_holdem(ranks: int, suits: int) -> str:
    """HULHE's built-in definition with a smaller deck."""
    text = builtin_text("holdem-limit")
    text = re.sub(r"numRanks = \d+", f"numRanks = {ranks}", text)
    return re.sub(r"numSuits = \d+", f"numSuits = {suits}", text)


CFRLAB = str(Path(sys.executable).with_name("cfrlab"))


def cfrlab(*args: str, summary: bool = True) -> dict:
    """Run one cfrlab command (its progress and errors on stderr) and return its --json summary."""
    done = subprocess.run([CFRLAB, *args, *(["--json"] if summary else [])], check=False,
                          stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"failed: cfrlab {' '.join(args)}")
    return json.loads(done.stdout.strip().splitlines()[-1]) if summary else {}


def cached(path: Path, make) -> dict:
    """The JSON summary stored at ``path``, computed by ``make()`` the first time."""
    if path.exists():
        return json.loads(path.read_text())
    result = make()
    tmp = path.with_suffix(".part")
    tmp.write_text(json.dumps(result))
    tmp.replace(path)
    return result


def game_dir(d: Path, name: str, text: str) -> Path:
    """Create the results folder ``d`` and write its game file ``name`` (refusing a folder
    whose game file holds another game: its cached results belong to that game)."""
    d.mkdir(parents=True, exist_ok=True)
    game = d / name
    if game.exists() and game.read_text() != text:
        sys.exit(f"{game} holds another game; pass another --out-dir")
    game.write_text(text)
    return game


def rung(d: Path, game: Path, b: int, a: argparse.Namespace) -> dict:
    abst, strat = d / f"b{b}.npz", d / f"s{b}.npz"
    if not abst.exists():
        cfrlab("abstract", "build", str(game), "--buckets", str(b), "--out", str(abst), "-q",
               summary=False)
    solved = cached(d / f"s{b}.json", lambda: cfrlab(
        "solve", str(game), "--abstraction", str(abst), "-a", "cfr+", "-n", str(a.iterations),
        "--eval-every", str(a.iterations), "--out", str(strat), "--no-progress"))
    real = cached(d / f"br{b}.json", lambda: cfrlab(
        "exploit", str(strat), "--real", "--game", str(game), "--workers", str(a.workers),
        "--resume"))
    lbr = cached(d / f"lbr{b}.json", lambda: cfrlab(
        "lbr", str(strat), "--hands", str(a.lbr_hands), "--seed", str(a.seed)))
    return {"buckets": b, "infosets": solved["infosets"], "abstract_mbb": solved["exploitability"],
            "real_mbb": real["exploitability"], "real_by_position": real["best_response_values"],
            "lbr_mbb": lbr["lbr"], "lbr_ci95": lbr["ci95"], "solve_seconds": solved["seconds"],
            "real_seconds": real["seconds"], "lbr_seconds": lbr["seconds"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=6,
                    help="ranks in the deck (13: full HULHE, about a day each)")
    ap.add_argument("--suits", type=int, default=4)
    ap.add_argument("--buckets", default="2,3,4,5", help="bucket counts, comma-separated")
    ap.add_argument("--iterations", type=int, default=1000, help="CFR+ iterations per strategy")
    ap.add_argument("--workers", type=int, default=2, help="worker processes for the best response")
    ap.add_argument("--lbr-hands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1, help="seed of LBR's deals")
    ap.add_argument("--out-dir", default=None, help="default: out/ladder-RxS")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    d = Path(a.out_dir or f"out/ladder-{a.ranks}x{a.suits}")
    game = game_dir(d, f"holdem-{a.ranks}x{a.suits}.game", reduced_holdem(a.ranks, a.suits))
    print(f"{a.ranks} ranks x {a.suits} suits, HULHE betting; CFR+ {a.iterations} iterations; "
          f"files in {d}", flush=True)
    print(f"{'buckets':>7} {'infosets':>10} {'abstract':>9} {'real game':>10} {'BR pos 0 / 1':>17} "
          f"{'LBR':>15} {'BR time':>8}", flush=True)
    rows = []
    for b in (int(x) for x in a.buckets.split(",")):
        r = rung(d, game, b, a)
        rows.append(r)
        p0, p1 = r["real_by_position"]
        print(f"{b:>7} {r['infosets']:>10,} {r['abstract_mbb']:>9.3f} {r['real_mbb']:>10.2f} "
              f"{p0:>8.1f} / {p1:>6.1f} {r['lbr_mbb']:>7.1f} ± {r['lbr_ci95']:>5.1f} "
              f"{r['real_seconds']:>7.0f}s", flush=True)
    print("(mbb/g; abstract: exploitability in the strategy's own abstraction; real game: exact "
          "best response with real cards; LBR: a lower bound, 95% interval)")
    if a.json:
        print(json.dumps({"game": game.name, "iterations": a.iterations, "rows": rows}))


if __name__ == "__main__":
    main()
