"""CFR against CFR-BR in the same card abstraction: real-game exploitability of each.

    python benchmarks/cfrbr.py                                  # 6 ranks x 4 suits, 2 rounds
    python benchmarks/cfrbr.py --buckets 2,3 --cfrbr-iterations 100 --json
    python benchmarks/cfrbr.py --buckets 2 --opponent br --algorithm cfr+ --cfrbr-iterations 300

Johanson, Bard, Burch and Bowling ("Finding optimal abstract strategies in extensive-form
games", AAAI 2012) report 103 mbb/g for CFR and 25 for CFR-BR in the same abstraction. CFR-BR
here takes an exact best response in the real game every iteration through the lossless
engine's real game (``cfrlab cfrbr``; the response's policy from the real-game walk, the
regrets from the engine's walk), so the real game must fit the engine: the real-game ladder's 24-card deck
with HULHE's blinds, bets and caps, cut to its first two rounds (preflop and a two-card flop,
4.5 million real information sets; the four-round game has 8.3e11). For each bucket count, with
the commands a user runs: the perfect-recall E[HS^2] percentile abstraction (`cfrlab abstract
build`), CFR+ in it (`cfrlab solve`) and its exact real-game exploitability (`cfrlab exploit
--real`), then CFR-BR in the same abstraction (`cfrlab cfrbr`, the strategy it returns, the
exploitability printed is exact). Files go to --out-dir; a second run reuses them (a stopped
CFR-BR run resumes from its checkpoint).
JSON (last line with --json): ``game``, ``rows`` (``buckets``, ``infosets``, ``cfr_abstract``,
``cfr_real``, ``cfrbr_real``, ``ratio``, ``cfrbr_iterations``, ``cfrbr_seconds`` (of this run),
``cfrbr_resumed_from`` (the checkpoint's iterations it continued from, or null),
``cfrbr_opponent``, ``cfrbr_algorithm``, ``cfrbr_policy``, ``cfrbr_lower_bound`` (against
``real``: no strategy of the abstraction is less exploitable), ``cfrbr_history`` ([iteration,
exploitability]: every iteration's current strategy against ``br``, the returned average
every ``--eval-every`` iterations against ``real``)). ``--opponent real`` (the default, as
``cfrlab cfrbr``'s): the abstract player against a real-game regret minimizer, its average
strategy; ``--opponent br``: CFR-BR proper, its current strategy.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from real_ladder import cached, cfrlab, game_dir, reduced_holdem


def game_text(ranks: int, suits: int, rounds: int) -> str:
    """The ladder's game (HULHE betting on a reduced deck), cut to its first ``rounds``."""
    text = reduced_holdem(ranks, suits)
    for key in ("raiseSize", "firstPlayer", "maxRaises", "numBoardCards"):
        values = re.search(rf"{key} = (.*)", text).group(1).split()[:rounds]
        text = re.sub(rf"{key} = .*", f"{key} = {' '.join(values)}", text)
    text = re.sub(r"numRounds = \d+", f"numRounds = {rounds}", text)
    if rounds == 2:  # a two-card flop: the real game stays within the lossless engine
        text = re.sub(r"numBoardCards = .*", "numBoardCards = 0 2", text)
    return text


def row(d: Path, game: Path, b: int, a: argparse.Namespace) -> dict:
    tag = "" if (a.opponent, a.algorithm) == ("br", "cfr+") else f"-{a.opponent}-{a.algorithm}"
    abst, strat, br = d / f"b{b}.npz", d / f"cfr{b}.npz", d / f"cfrbr{b}{tag}.npz"
    if not abst.exists():
        cfrlab("abstract", "build", str(game), "--buckets", str(b), "--out", str(abst), "-q",
               summary=False)
    solved = cached(d / f"cfr{b}.json", lambda: cfrlab(
        "solve", str(game), "--abstraction", str(abst), "-a", "cfr+", "-n", str(a.cfr_iterations),
        "--eval-every", str(a.cfr_iterations), "--out", str(strat), "--no-progress", "--force"))
    real = cached(d / f"cfr{b}.real.json", lambda: cfrlab(
        "exploit", str(strat), "--real", "--game", str(game), "--resume"))
    cb = cached(d / f"cfrbr{b}{tag}.json", lambda: cfrlab(
        "cfrbr", str(game), "--abstraction", str(abst), "-n", str(a.cfrbr_iterations),
        "-a", a.algorithm, "--opponent", a.opponent, "--eval-every", str(a.eval_every),
        "--out", str(br), "--resume", "--checkpoint-every", "30"))
    return {"buckets": b, "infosets": solved["infosets"], "cfr_abstract": solved["exploitability"],
            "cfr_real": real["exploitability"], "cfrbr_real": cb["exploitability"],
            "ratio": real["exploitability"] / cb["exploitability"],
            "cfrbr_iterations": cb["iterations"], "cfrbr_seconds": cb["seconds"],
            "cfrbr_resumed_from": cb.get("resumed_from"), "cfrbr_opponent": a.opponent,
            "cfrbr_lower_bound": cb.get("lower_bound"),
            "cfrbr_algorithm": a.algorithm, "cfrbr_policy": cb.get("policy"),
            "cfrbr_history": cb.get("history")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=6)
    ap.add_argument("--suits", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--buckets", default="2,3,4,5", help="bucket counts, comma-separated")
    ap.add_argument("--cfr-iterations", type=int, default=1000, help="CFR+ iterations in the abstraction")
    ap.add_argument("--cfrbr-iterations", type=int, default=100, help="CFR-BR iterations")
    ap.add_argument("--algorithm", default="dcfr", help="the abstract player's rule: cfr, cfr+, dcfr, pcfr+")
    ap.add_argument("--opponent", default="real", help="real (a real-game regret minimizer, "
                    "cfrlab cfrbr's default) or br (CFR-BR as in the paper)")
    ap.add_argument("--eval-every", type=int, default=10, help="opponent real: evaluate every N")
    ap.add_argument("--out-dir", default=None, help="default: out/cfrbr-RxSxN")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    d = Path(a.out_dir or f"out/cfrbr-{a.ranks}x{a.suits}x{a.rounds}")
    game = game_dir(d, "game.game", game_text(a.ranks, a.suits, a.rounds))
    print(f"{a.ranks} ranks x {a.suits} suits, HULHE betting, {a.rounds} rounds; CFR+ "
          f"{a.cfr_iterations} iterations, CFR-BR {a.cfrbr_iterations}; files in {d}", flush=True)
    print(f"{'buckets':>7} {'infosets':>9} {'CFR abstract':>12} {'CFR real':>9} {'CFR-BR real':>11} "
          f"{'ratio':>6} {'CFR-BR time':>11}", flush=True)
    rows = []
    for b in (int(x) for x in a.buckets.split(",")):
        r = row(d, game, b, a)
        rows.append(r)
        print(f"{b:>7} {r['infosets']:>9,} {r['cfr_abstract']:>12.3f} {r['cfr_real']:>9.2f} "
              f"{r['cfrbr_real']:>11.2f} {r['ratio']:>6.2f} {r['cfrbr_seconds']:>10.0f}s", flush=True)
    print("(mbb/g; CFR abstract: CFR+'s exploitability in its own abstraction; real: exact best "
          "response with real cards; CFR-BR: the average against a real opponent, the current strategy against br)")
    if a.json:
        print(json.dumps({"game": f"holdem-{a.ranks}x{a.suits}x{a.rounds}", "rows": rows}))


if __name__ == "__main__":
    main()
