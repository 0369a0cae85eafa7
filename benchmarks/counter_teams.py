"""Teams of counter-strategies against training and hold-out opponents: the thesis's Figure 6.1.

Usage: python benchmarks/counter_teams.py [--strategy out/cfr5.npz] [--abstraction out/b5.npz]
           [--counter out/counter] [--bonus out/bonus7.npz] [--matches 20] [--hands 1000]
           [--coach ucb1] [--reward divat] [--json]

Needs the counter-strategies that ``benchmarks/counter_table.py --save-strategies out/counter``
writes (FBR and RNR to each opponent of its family). Three agents, as in Johanson's thesis
("Robust strategies and counter-strategies", chapter 6): a team of the FBR counter-strategies
to the training opponents, a team of the RNR ones (each with a ``--coach`` choosing a member
per hand, rewarded by ``--reward``), and CFR5 alone. Training opponents: loose, tight,
passive and bonus7 (the teams hold a counter-strategy to each); hold-out opponents, which no
member was built against: the rule bot ``value:0.7,0.4`` and "aggressive" (CFR5 with every
row moved halfway to raise). Each cell is ``--matches`` duplicate matches of ``--hands``
deals, the team starting afresh in each (as the thesis's 50 matches of 1,000 hands); it
reports the mean over the matches by money and by DIVAT (of the whole log: lower variance,
same expectation), in mbb/g with 95% intervals over the matches.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from counter_table import _moved, opponent  # the same opponents as the counter-strategy tables

import cfrlab
from cfrlab.agents.team import TeamAgent
from cfrlab.evaluate.divat import divat_log

TRAINING = ("loose", "tight", "passive", "bonus7")
HOLDOUT = ("value", "aggressive")


def opponents(base, bonus_file: str) -> dict:
    out = {name: opponent(name, base, bonus_file) for name in (*TRAINING, "value")}
    out["aggressive"] = _moved(base, 2, 0.5)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="out/cfr5.npz")
    ap.add_argument("--abstraction", default="out/b5.npz")
    ap.add_argument("--counter", default="out/counter")
    ap.add_argument("--bonus", default="out/bonus7.npz")
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--coach", default="ucb1", choices=("ucb1", "darse"))
    ap.add_argument("--reward", default="divat", choices=("money", "divat", "showdown"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    base = cfrlab.Strategy.load(args.strategy, model=args.abstraction)
    g = base.game
    mbb = 1000.0 / max(g.blind)
    opps = opponents(base, args.bonus)

    def team(kind: str) -> TeamAgent:
        members = [cfrlab.make_agent(cfrlab.Strategy.load(Path(args.counter) / f"{kind}-{o}.npz", model=base.model), g)
                   for o in TRAINING]
        return TeamAgent(members, coach=args.coach, reward=args.reward, name=f"{kind}-team")

    agents = {"fbr-team": team("fbr"), "rnr-team": team("rnr"), "cfr5": base}
    table: dict = {}
    with tempfile.TemporaryDirectory() as d:
        for an, agent in agents.items():
            table[an] = {}
            for on in (*TRAINING, *HOLDOUT):
                t0 = time.perf_counter()
                money, divat, plays = [], [], np.zeros(len(TRAINING), dtype=np.int64)
                for k in range(args.matches):
                    log = Path(d) / "m.log"
                    r = cfrlab.play_match(g, agent, opps[on], args.hands, seed=1000 + k, duplicate=True,
                                          log=log, names=("agent", "opponent"))
                    money.append(r.overall("chips/g").mean * mbb)
                    divat.append(float(divat_log(log, "agent", g).divat.mean()) * mbb)
                    if isinstance(agent, TeamAgent):
                        plays += np.asarray(agent.plays)
                cells = {}
                for name, xs in (("money", money), ("divat", divat)):
                    x = np.asarray(xs)
                    ci = 1.96 * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("inf")
                    cells[name] = [float(x.mean()), float(ci)]
                cells["seconds"] = time.perf_counter() - t0
                if isinstance(agent, TeamAgent):
                    cells["member_share_last_match"] = (np.asarray(agent.plays) / max(1, sum(agent.plays))).round(3).tolist()
                table[an][on] = cells
                print(f"{an:9s} vs {on:10s} money {cells['money'][0]:+8.1f} +- {cells['money'][1]:6.1f}   "
                      f"DIVAT {cells['divat'][0]:+8.1f} +- {cells['divat'][1]:6.1f}   ({cells['seconds']:.0f} s)",
                      flush=True)
    print()
    cols = (*TRAINING, *HOLDOUT)
    print("| agent | " + " | ".join(f"vs {c}{' (hold-out)' if c in HOLDOUT else ''}" for c in cols)
          + " | training mean | hold-out mean |")
    print("|---|" + "---|" * (len(cols) + 2))
    for an, row in table.items():
        cells = [f"{row[c]['money'][0]:+.0f} ± {row[c]['money'][1]:.0f} (DIVAT {row[c]['divat'][0]:+.0f} ± "
                 f"{row[c]['divat'][1]:.0f})" for c in cols]
        tr = np.mean([row[c]["money"][0] for c in TRAINING])
        ho = np.mean([row[c]["money"][0] for c in HOLDOUT])
        print(f"| {an} | " + " | ".join(cells) + f" | {tr:+.0f} | {ho:+.0f} |")
    if args.json:
        print(json.dumps({"table": table, "matches": args.matches, "hands": args.hands, "coach": args.coach,
                          "reward": args.reward}))


if __name__ == "__main__":
    main()
