"""Match engine benchmark: hands per second of duplicate matches on both cores.

Usage: python benchmarks/match.py [--hands N] [--seed S] [--hulhe A B] [--json]

Every case is a duplicate match of N deals (2N hands played) on the fast engine, timed after
a warm-up match that pays numba's compile/cache load. "hands" counts hands played (both
halves). Cases:

* ``hulhe-strategies`` (with ``--hulhe A B``, two HULHE strategy specs such as
  ``out/cfrp5.npz out/cfrp8.npz``, abstraction files beside them): solved abstraction
  strategies, real cards -> bucket sequences through the canonical index, sampled actions.
  The headline figure when given.
* ``lossless-strategies``: two sampling strategy agents (random fixed policies) on a
  lossless reduced-deck hold'em (12 cards, 2 rounds, HULHE betting): real StrategyAgents,
  private states from the lossless numbering kernel (the headline without ``--hulhe``).
* ``hulhe-synthetic-buckets``: full HULHE, two random 8-bucket policies over the whole
  6,378-node tree, with buckets from a cheap hash of the cards. It measures deals,
  showdowns and the play kernel at HULHE size, but not an abstraction's bucket lookup.
* ``hulhe-bots``: full HULHE, probe vs random (card-independent bots).
* ``hulhe-value-bot``: full HULHE, the bet-for-value bot (hand strength enumerated every
  round) vs probe; N/20 deals.
* peer (when installed): OpenSpiel's universal_poker HULHE driven from Python with uniform
  random actions, for scale.

With --json the last line is one JSON object: ``hands_per_second`` (the headline case),
``peak_rss_mb``, ``measured`` (what the headline is) and ``cases``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time

import numba
import numpy as np

from cfrlab.agents import play_match
from cfrlab.agents.strategy_agent import StrategyAgent
from cfrlab.evaluate.match import tree_arrays
from cfrlab.games import load_game, parse_game
from cfrlab.games.agent import FastPolicy
from cfrlab.strategy import Strategy

FLOP_HOLDEM = """GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 10 5
raiseSize = 10 10
firstPlayer = 2 1
maxRaises = 3 4
numSuits = 3
numRanks = 4
numHoleCards = 2
numBoardCards = 0 3
END GAMEDEF
"""


def random_strategy(game, seed: int) -> Strategy:
    s = Strategy.uniform(game)
    rng = np.random.default_rng(seed)
    legal = np.repeat(s.tree.legal, np.diff(s.row_offset), axis=0)
    pol = rng.random(s.policy.shape) * legal
    return Strategy.from_policy(s.game, pol / pol.sum(axis=1, keepdims=True), tree=s.tree, model=s.model)


@numba.njit(cache=True, parallel=True)
def _hash_buckets(deals, buckets, board_end):
    n = deals.shape[0]
    out = np.empty((n, 2, board_end.shape[0]), dtype=np.int32)
    for i in numba.prange(n):
        for p in range(2):
            h = np.uint64(deals[i, 2 * p]) * np.uint64(131) + np.uint64(deals[i, 2 * p + 1])
            for r in range(board_end.shape[0]):
                for j in range(board_end[r]):
                    h = h * np.uint64(1000003) + np.uint64(deals[i, 4 + j])
                out[i, p, r] = np.int32(h % np.uint64(buckets))
    return out


class SyntheticBucketAgent(StrategyAgent):
    """A random policy over B buckets per round of HULHE; bucket = hash of the cards."""

    def __init__(self, game, buckets: int, seed: int) -> None:  # no strategy file: skip the parent
        self.name, self.greedy = f"synthetic-{buckets}", False
        self._game, self.buckets, self.seed = game, buckets, seed

    def fast_policy(self, tree) -> FastPolicy:
        rng = np.random.default_rng(self.seed)
        legal = np.repeat(tree.legal, self.buckets, axis=0)
        pol = rng.random(legal.shape) * legal
        pol /= pol.sum(axis=1, keepdims=True)
        board_end = np.array([self._game.total_board_cards(r) for r in range(4)], dtype=np.int64)
        b = self.buckets
        offsets = np.arange(tree.num_decisions, dtype=np.int64) * b
        return FastPolicy(pol, offsets, lambda deals: _hash_buckets(deals, b, board_end))


def timed(game, a, b, hands: int, seed: int) -> dict:
    play_match(game, a, b, 2000, seed=seed, duplicate=True)  # warm-up: compile / cache load
    t0 = time.perf_counter()
    res = play_match(game, a, b, hands, seed=seed, duplicate=True)
    dt = time.perf_counter() - t0
    s = res.summary()
    return {"deals": hands, "hands": res.games_played, "seconds": dt, "hands_per_second": res.games_played / dt,
            "mean": s["mean"], "ci95": s["ci95"], "unit": s["unit"], "engine": res.engine}


def peer_openspiel(hands: int, seed: int) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("universal_poker", {
        "betting": "limit", "numPlayers": 2, "numRounds": 4, "blind": "10 5", "raiseSize": "10 10 20 20",
        "firstPlayer": "2 1 1 1", "maxRaises": "3 4 4 4", "numSuits": 4, "numRanks": 13, "numHoleCards": 2,
        "numBoardCards": "0 3 1 1"})
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for _ in range(hands):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                st.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = st.legal_actions()
                st.apply_action(legal[int(rng.integers(len(legal)))])
    dt = time.perf_counter() - t0
    return {"hands": hands, "seconds": dt, "hands_per_second": hands / dt,
            "what": "pyspiel universal_poker HULHE, uniform random actions, driven from Python"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2_000_000, help="deals per duplicate match (2x hands played)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hulhe", nargs=2, metavar=("A", "B"), default=None,
                    help="two HULHE strategy specs (e.g. out/cfrp5.npz out/cfrp8.npz)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    n, seed = args.hands, args.seed
    print(f"match benchmark: {numba.get_num_threads()} numba threads, {os.cpu_count()} cpus, "
          f"{platform.processor() or platform.machine()}, duplicate matches of {n:,} deals")

    cases: dict[str, dict] = {}
    flop = parse_game(FLOP_HOLDEM, name="flop-holdem-12")
    t0 = time.perf_counter()
    sa = StrategyAgent(random_strategy(flop, 1), name="rand1")
    sb = StrategyAgent(random_strategy(flop, 2), name="rand2")
    print(f"  lossless strategies built in {time.perf_counter() - t0:.2f} s ({sa.strategy.policy.shape[0]:,} rows)")
    cases["lossless-strategies"] = timed(flop, sa, sb, n, seed)

    hulhe = load_game("holdem-limit")
    tree_arrays(hulhe)
    headline = "lossless-strategies"
    if args.hulhe:
        from cfrlab.agents.registry import make_agent

        t0 = time.perf_counter()
        a, b = (make_agent(x, hulhe, seed=seed + i) for i, x in enumerate(args.hulhe))
        print(f"  HULHE strategies loaded in {time.perf_counter() - t0:.1f} s: {a.name}, {b.name}")
        cases["hulhe-strategies"] = timed(hulhe, a, b, n, seed)
        headline = "hulhe-strategies"
    cases["hulhe-synthetic-buckets"] = timed(hulhe, SyntheticBucketAgent(hulhe, 8, 1),
                                             SyntheticBucketAgent(hulhe, 8, 2), n, seed)
    cases["hulhe-bots"] = timed(hulhe, "probe", "random", n, seed)
    cases["hulhe-value-bot"] = timed(hulhe, "value", "probe", max(n // 20, 1000), seed)
    for name, c in cases.items():
        print(f"  {name:26s} {c['hands']:>11,} hands in {c['seconds']:7.2f} s = {c['hands_per_second']:>12,.0f} hands/s"
              f"   (A: {c['mean']:+.2f} ± {c['ci95']:.2f} {c['unit']})")
    peer = peer_openspiel(max(min(n // 200, 5000), 200), seed)
    if peer is not None:
        ratio = cases["hulhe-bots"]["hands_per_second"] / peer["hands_per_second"]
        print(f"  peer: {peer['what']}: {peer['hands_per_second']:,.0f} hands/s "
              f"(hulhe-bots is {ratio:,.0f}x faster)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"  peak RSS {rss:.0f} MB")
    if args.json:
        print(json.dumps({
            "hands_per_second": cases[headline]["hands_per_second"],
            "peak_rss_mb": rss,
            "measured": ("duplicate HULHE match between two solved abstraction strategies (sampling), "
                         if headline == "hulhe-strategies" else
                         "duplicate match, two sampling lossless strategy agents, 12-card 2-round hold'em, ")
                        + "hands played per second on all numba threads",
            "threads": numba.get_num_threads(), "deals": n, "cases": cases, "peer": peer,
        }))


if __name__ == "__main__":
    main()
