"""Local best response in no-limit games (cfrlab.realgame.lbr_nolimit) against oracles.

* An enumeration oracle written here in plain Python from the definition (Lisý and Bowling):
  every deal played with the rules engine (``games.State``, its payoffs), the opponent read
  card by card (a strategy through its tree and chance model, the bots from their rules, a
  mixture of behaviours chosen privately at the start of a hand), the responder's range
  recomputed from the betting history at each decision, its equity by enumerating the board's
  completions with the Python ranker, its pot raise computed from the rules here. The exact
  mode must equal it; the sampled estimate must hold it in its interval.
* The exact best response (the engine, full no-limit Leduc) bounds LBR, seat by seat.
* Known values: against always-fold the responder wins the blinds, 750 mbb/g in HUNL.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import combinations

import numpy as np
import pytest
from cli_run import run

import cfrlab
from cfrlab.agents.registry import make_agent
from cfrlab.agents.strategy_agent import StrategyAgent
from cfrlab.cards import evaluator
from cfrlab.cards.cards import deck as deck_cards
from cfrlab.engine import best_response_values
from cfrlab.errors import CfrlabError
from cfrlab.games import State, load_game, parse_game
from cfrlab.games.agent import Agent
from cfrlab.realgame import AgentSpec
from cfrlab.realgame.lbr import local_best_response
from cfrlab.strategy import Strategy

TOL = 1e-9


def leduc(stack: int = 7):
    g = load_game("leduc-nolimit")
    return g if stack == 7 else parse_game(g.to_text().replace("stack = 7 7", f"stack = {stack} {stack}"),
                                           name=f"leduc-nl{stack}")


def random_strategy(game, seed, bets=None):
    s = Strategy.uniform(game, bets=bets)
    rng = np.random.default_rng(seed)
    legal = np.repeat(np.asarray(s.tree.legal, dtype=np.float64), np.diff(s.row_offset), axis=0)
    pol = legal * rng.random(legal.shape) ** 3
    return Strategy.from_policy(s.game, pol / pol.sum(axis=1, keepdims=True), tree=s.tree, model=s.model)


@lru_cache(maxsize=1)
def solved():
    return cfrlab.solve("leduc-nolimit", "cfr+", iterations=200).strategy


# -- the opponent, card by card: {action: probability} at a state for a hand ------------------

def strategy_play(s):
    def play(st, hole):
        node = s.node_of(st.betting_string())
        d, rnd = int(s.tree.decision[node]), int(s.tree.round[node])
        row = s.policy[s.row_offset[d] + s.model.state_of(0, list(hole), st.visible_board(), rnd)]
        return {s.tree.action_text(node, int(c)): row[c] for c in np.flatnonzero(s.tree.legal[d])}
    return play


def bot_play(name):
    def play(st, hole):
        legal = st.legal_actions()
        if name == "always-call":
            return {"c": 1.0}
        if name == "always-fold":
            return {"f": 1.0} if "f" in legal else {"c": 1.0}
        if name == "always-raise":
            lo = st.raise_range()  # the minimum raise
            return {f"r{lo[0]}": 1.0} if lo else {"c": 1.0}
        assert name == "random"
        kinds = [k for k in "fcr" if any(a[0] == k for a in legal)]
        out = {k: 1.0 / len(kinds) for k in kinds if k != "r"}
        if "r" in kinds:
            lo, hi = st.raise_range()
            out.update({f"r{x}": 1.0 / len(kinds) / (hi - lo + 1) for x in range(lo, hi + 1)})
        return out
    return play


class Oracle:
    """LBR's expected winnings in each seat against ``components``: [(weight, play)], one
    behaviour drawn with its weight at the start of each hand and kept (one component: a
    plain agent)."""

    def __init__(self, game, components, call_rounds, actions="fcpa"):
        self.g, self.comps, self.K, self.pot = game, components, call_rounds, actions == "fcpa"
        self.cards = deck_cards(game.num_ranks, game.num_suits)
        self.hands = list(combinations(self.cards, game.num_hole_cards))
        self.memo = {}

    def state(self, seat, mine, opp, board, history):
        holes = [None, None]
        holes[seat], holes[1 - seat] = mine, opp
        st = State(self.g, [*holes[0], *holes[1], *board])
        for a in history:
            st.apply(a)
        return st

    def filled(self, used, vis):
        rest = [c for c in self.cards if c not in used and c not in vis]
        return list(vis) + rest[:self.g.total_board_cards() - len(vis)]

    def weights(self, seat, mine, j, vis, history):
        """Each component's weight times hand j's probability of the opponent's actions, and
        the state reached with j."""
        st = self.state(seat, mine, j, self.filled(set(mine) | set(j), vis), [])
        ws = [w for w, _ in self.comps]
        for a in history:
            if st.current_player() == 1 - seat:
                ws = [w * play(st, j).get(a, 0.0) for w, (_, play) in zip(ws, self.comps)]
            st.apply(a)
        return ws, st

    def equity(self, mine, j, vis):
        rest = [c for c in self.cards if c not in mine and c not in j and c not in vis]
        tot = cnt = 0
        for comp in combinations(rest, self.g.total_board_cards() - len(vis)):
            b = list(vis) + list(comp)
            x, y = evaluator.rank_hand(list(mine) + b), evaluator.rank_hand(list(j) + b)
            tot += 1.0 if x > y else (0.5 if x == y else 0.0)
            cnt += 1
        return tot / cnt

    def raises(self, st, seat):
        rr = st.raise_range()
        if rr is None or not self.pot:
            return []
        lo, hi = rr
        to_call = st.max_spent - st.spent[seat]
        pot = st.max_spent + st.pot + to_call  # call, then raise by the pot
        return sorted({min(max(pot, lo), hi), hi})

    def decide(self, seat, mine, vis, history, st):
        key = (seat, mine, tuple(vis), tuple(history))
        if key in self.memo:
            return self.memo[key]
        raises = self.raises(st, seat)
        W = WE = 0.0
        F = dict.fromkeys(raises, 0.0)
        for j in self.hands:
            if set(j) & (set(mine) | set(vis)):
                continue
            ws, sj = self.weights(seat, mine, j, vis, history)
            wj = sum(ws)
            if wj == 0.0:
                continue
            W += wj
            WE += wj * self.equity(mine, j, vis)
            for x in raises:
                after = sj.clone().apply(f"r{x}")
                F[x] += sum(w * play(after, j).get("f", 0.0) for w, (_, play) in zip(ws, self.comps))
        wp = WE / W
        me, op = st.spent[seat], st.spent[1 - seat]
        pot, asked = me + op, op - me
        best, value = "c", wp * pot - (1 - wp) * asked
        for x in raises:
            fp, b = F[x] / W, x - op
            v = fp * pot + (1 - fp) * (wp * (pot + b) - (1 - wp) * (asked + b))
            if v > value + 1e-9:
                best, value = f"r{x}", v
        if "f" in st.legal_actions() and 0.0 > value + 1e-9:
            best = "f"
        self.memo[key] = best
        return best

    def play(self, seat, mine, opp, board, history):
        st = self.state(seat, mine, opp, board, history)
        if st.is_terminal():
            return st.payoffs()[seat]
        vis = st.visible_board()
        if st.current_player() == seat:
            a = "c" if st.round < self.K else self.decide(seat, mine, vis, history, st)
            return self.play(seat, mine, opp, board, history + [a])
        ws, _ = self.weights(seat, mine, opp, vis, history)
        probs = {}
        for w, (_, play) in zip(ws, self.comps):
            for a, p in play(st, opp).items():
                probs[a] = probs.get(a, 0.0) + w * p / sum(ws)
        return sum(p * self.play(seat, mine, opp, board, history + [a]) for a, p in probs.items() if p > 0)

    def values(self):
        out = []
        for seat in (0, 1):
            tot, n = 0.0, 0
            for mine in self.hands:
                for opp in self.hands:
                    if set(mine) & set(opp):
                        continue
                    rest = [c for c in self.cards if c not in mine and c not in opp]
                    boards = list(combinations(rest, self.g.total_board_cards()))
                    tot += sum(self.play(seat, mine, opp, list(b), []) for b in boards) / len(boards)
                    n += 1
            out.append(tot / n)
        return out


class Mixture:
    """A RangePolicy whose hand starts by a private draw among agents' range policies."""

    def __init__(self, game, parts):
        self.parts = [(w, make_agent(name, game).range_policy(game)) for w, name in parts]

    def root(self, position):
        return [(i, w) for i, (w, _) in enumerate(self.parts)]

    def probs(self, path, state, board):
        return self.parts[path][1].probs(None, state, board)

    def advance(self, path, state, action):
        return [(path, 1.0)]


def _opponent(case, game):
    """(what LBR plays against, the oracle's components)."""
    kind, _, arg = case.partition(":")
    if kind == "uniform":
        s = Strategy.uniform(game)
    elif kind == "rand":
        s = random_strategy(game, int(arg))
    elif kind == "cfr":
        s = solved()
    elif kind == "fcpa":  # an abstract strategy: LBR's fcpa amounts are in its tree
        s = random_strategy(game, int(arg), bets="fcpa")
    elif kind == "mix":
        parts = [(0.3, "always-call"), (0.7, "random")]
        return Mixture(game, parts), [(w, bot_play(n)) for w, n in parts]
    else:
        return AgentSpec(kind), [(1.0, bot_play(kind))]
    return s, [(1.0, strategy_play(s))]


ORACLE_CASES = [("uniform", 0, "fcpa"), ("uniform", 1, "fcpa"), ("rand:3", 0, "fcpa"),
                ("rand:4", 1, "fc"), ("cfr", 0, "fcpa"), ("fcpa:5", 0, "fcpa"),
                ("always-call", 0, "fcpa"), ("always-raise", 0, "fcpa"), ("random", 0, "fcpa"),
                ("random", 0, "fc"), ("mix", 0, "fcpa")]


@pytest.mark.parametrize("case,call_rounds,actions", ORACLE_CASES)
def test_exact_mode_equals_the_enumeration_oracle(case, call_rounds, actions):
    g = leduc(5) if case == "random" else leduc()
    opponent, comps = _opponent(case, g)
    want = Oracle(g, comps, call_rounds, actions).values()
    got = local_best_response(opponent, g, exact=True, call_rounds=call_rounds, actions=actions)
    assert got.seat_values == pytest.approx(tuple(want), abs=TOL)
    assert got.value == pytest.approx(0.5 * sum(want), abs=TOL)
    assert got.actions == actions and got.call_rounds == call_rounds


# -- a user's own agent, read through act / action_probabilities ------------------------------

def allin_rule(hole, board, legal, bounds) -> dict:
    """A user's play: all-in with a pair or an ace (call when it cannot raise), fold a queen to a
    bet, else check or call; with ``mixed``, below, a randomized variant."""
    ranks, seen = [c // 4 for c in hole], [c // 4 for c in board]
    if any(r in seen for r in ranks) or max(ranks) == 12:
        return {f"r{bounds[1]}": 1.0} if bounds else {"c": 1.0}
    return {"f": 1.0} if "f" in legal and max(ranks) == 10 else {"c": 1.0}


def mixed_rule(hole, board, legal, bounds) -> dict:
    """Randomized: the minimum raise 40% of the time with a king or better, a queen folds to a
    bet half the time."""
    ranks = [c // 4 for c in hole]
    if max(ranks) >= 11 and bounds:
        return {"c": 0.6, f"r{bounds[0]}": 0.4}
    return {"f": 0.5, "c": 0.5} if "f" in legal and max(ranks) == 10 else {"c": 1.0}


class AllIn(Agent):
    """A user's agent as docs/matches.md shows one: ``act`` alone."""

    name = "allin"

    def act(self, view):
        (a,) = allin_rule(view.my_cards, view.visible_board(), view.legal_actions(), view.raise_range())
        return a


class Mixed:
    """A user's randomizing agent (no ``Agent`` subclass): its ``action_probabilities``."""

    name = "mixed"

    def action_probabilities(self, view):
        return mixed_rule(view.my_cards, view.visible_board(), view.legal_actions(), view.raise_range())


@pytest.mark.parametrize("agent,rule", [(AllIn, allin_rule), (Mixed, mixed_rule)])
@pytest.mark.parametrize("call_rounds,actions", [(0, "fcpa"), (1, "fc")])
def test_a_users_agent_equals_the_enumeration_oracle(agent, rule, call_rounds, actions):
    g = leduc()

    def play(st, hole):
        return rule(list(hole), st.visible_board(), st.legal_actions(), st.raise_range())

    want = Oracle(g, [(1.0, play)], call_rounds, actions).values()
    got = cfrlab.lbr(agent(), g, exact=True, call_rounds=call_rounds, actions=actions)
    assert got.seat_values == pytest.approx(tuple(want), abs=TOL)
    assert got.actions == actions


@pytest.mark.parametrize("case", ["uniform", "rand:7", "rand:8", "cfr"])
def test_lbr_never_exceeds_the_best_response(case):
    g = leduc()
    s, _ = _opponent(case, g)
    b0, b1 = best_response_values(s.tree, s.model, s.policy)
    for actions in ("fcpa", "fc"):
        lbr = local_best_response(s, exact=True, call_rounds=0, actions=actions)
        assert lbr.seat_values[0] <= b0 + TOL and lbr.seat_values[1] <= b1 + TOL
    assert 0.5 * (b0 + b1) > lbr.value  # the full best response finds more


def test_sampled_estimate_holds_the_exact_value():
    s = random_strategy(leduc(), 11)
    exact = local_best_response(s, exact=True, call_rounds=0)
    est = local_best_response(s, hands=3000, seed=7, call_rounds=0)
    assert est.hands == 3000 and est.deals == 1500
    assert abs(est.value - exact.value) < est.ci95
    for v, c, x in zip(est.seat_values, est.seat_ci95, exact.seat_values):
        assert abs(v - x) < c


def test_workers_give_the_same_bits():
    g = leduc()
    one = local_best_response(AgentSpec("random"), g, hands=200, seed=5, block=25, call_rounds=0)
    two = local_best_response(AgentSpec("random"), g, hands=200, seed=5, block=25, call_rounds=0,
                              workers=2)
    np.testing.assert_array_equal(one.winnings, two.winnings)


def test_always_fold_gives_the_blinds_in_hunl():
    g = load_game("holdem-nolimit")
    r = local_best_response(AgentSpec("always-fold"), g, hands=40, seed=3)
    # the big blind (seat 0) wins the small blind; the small blind calls through the flop and
    # bets the pot on the turn, which always-fold folds to: it wins the big blind
    assert r.value_unit == pytest.approx(750.0, abs=1e-9) and r.ci95 == pytest.approx(0.0, abs=1e-12)
    assert r.seat_values == pytest.approx((50.0, 100.0), abs=1e-12)
    assert r.call_rounds == 2 and r.actions == "fcpa"
    # fold/call only: the small blind cannot make it fold after the preflop; a showdown
    fc = local_best_response(AgentSpec("always-fold"), g, hands=40, seed=3, actions="fc")
    assert fc.seat_values[0] == pytest.approx(50.0, abs=1e-12) and fc.seat_ci95[1] > 0


def test_hunl_against_always_call_is_positive():
    r = local_best_response(AgentSpec("always-call"), "holdem-nolimit", hands=60, seed=1)
    # the responder bets for value from the turn on: all-in when ahead, check when not
    assert r.value > 0 and r.hands == 60


# -- the opponent's range policy ---------------------------------------------------------------

def test_an_off_tree_raise_is_translated_or_refused():
    s = random_strategy(leduc(), 5, bets="fcpa")
    # a strategy in a betting abstraction plays through action translation (make_agent's rule) ...
    r = local_best_response(s, exact=True, call_rounds=0, actions="0.5p,a")
    assert np.isfinite(r.value) and r.exact
    # ... the untranslated agent cannot follow a half-pot raise
    with pytest.raises(CfrlabError, match="off-tree action needs action translation"):
        local_best_response(StrategyAgent(s), s.game, exact=True, call_rounds=0, actions="0.5p,a")


def test_the_value_bot_is_read_through_what_it_plays():
    # it has no range policy (refused before): the adapter asks its act for every hand; the
    # oracle asks it card by card, at the very state the enumeration reaches
    from cfrlab.games import parse_match_state

    g = leduc()
    bot = make_agent("value", g)

    def play(st, hole):
        return {bot.act(parse_match_state(g, st.match_state(st.current_player()))): 1.0}

    want = Oracle(g, [(1.0, play)], 0).values()
    got = local_best_response(AgentSpec("value"), g, exact=True, call_rounds=0)
    assert got.seat_values == pytest.approx(tuple(want), abs=TOL)


@pytest.mark.parametrize("actions,msg", [("fullgame", "must list raise sizes"), ("zz", "not a size"),
                                         ("", "empty")])
def test_bad_actions_are_refused(actions, msg):
    with pytest.raises(CfrlabError, match=msg):
        local_best_response(AgentSpec("always-call"), "leduc-nolimit", hands=10, actions=actions)


def test_actions_on_a_limit_game_are_refused():
    with pytest.raises(CfrlabError, match="limit game"):
        local_best_response(AgentSpec("always-call"), "leduc", hands=10, actions="fc")


# -- CLI ------------------------------------------------------------------------------------

@pytest.mark.parametrize("actions", ["fcpa", "fc"])
def test_cli_hunl_json(capsys, actions):
    code, out, _ = run(capsys, *["lbr", "always-fold", "--game", "holdem-nolimit", "--hands", "40",
                                 "--actions", actions, "--json"])
    assert code == 0
    d = json.loads(out.strip().splitlines()[-1])
    assert d["seat_values"][0] == pytest.approx(500.0) and d["unit"] == "mbb/g" and d["actions"] == actions
    assert (d["lbr"] == pytest.approx(750.0)) == (actions == "fcpa")
    assert d["call_rounds"] == 2 and d["hands"] == 40


def test_cli_strategy_file_exact(capsys, tmp_path):
    p = tmp_path / "s.npz"
    s = random_strategy(leduc(), 3)
    s.save(p)
    code, out, _ = run(capsys, *["lbr", str(p), "--exact", "--call-rounds", "0", "--json"])
    assert code == 0
    d = json.loads(out.strip().splitlines()[-1])
    want = local_best_response(s, exact=True, call_rounds=0)
    assert d["lbr_chips"] == pytest.approx(want.value, abs=TOL) and d["actions"] == "fcpa"


@pytest.mark.parametrize("args,msg", [
    (["lbr", "always-call", "--game", "holdem-nolimit", "--actions", "zz"], "--actions: bet spec 'zz'"),
    (["lbr", "always-call", "--game", "holdem-limit", "--actions", "fc"], "limit game"),
    (["lbr", "nosuchbot", "--game", "holdem-nolimit", "--hands", "10"], "unknown agent 'nosuchbot'"),
    (["lbr", "always-call", "--game", "holdem-nolimit", "--exact"], "too large"),
])
def test_cli_bad_input_is_one_line(capsys, args, msg):
    code, _, err = run(capsys, *args)
    assert code != 0
    assert err.startswith("cfrlab: error:") and err.count("\n") == 1 and msg in err, err


# -- range policies against the agents' own play ----------------------------------------------

def test_range_hands_are_acpc_cards():
    from cfrlab.agents.ranges import hands

    assert hands(load_game("leduc-nolimit")) == [(42,), (43,), (46,), (47,), (50,), (51,)]
    assert len(hands(load_game("holdem-nolimit"))) == 1326


@pytest.mark.parametrize("bucketed", [False, True])
def test_tree_range_rows_are_the_agents_rows(bucketed):
    """Every hand's row of TreeRange equals StrategyAgent's distribution for that hand, along
    sampled histories (a bucketed strategy: two hole cards, filler cards in the deals)."""
    from game_texts import holdem_text

    from cfrlab.abstraction.bucketed import BucketedModel
    from cfrlab.abstraction.buckets import BucketSpec
    from cfrlab.agents.ranges import hands
    from cfrlab.agents.strategy_agent import StrategyAgent
    from cfrlab.games import parse_match_state

    if bucketed:
        g = parse_game(holdem_text(3, 2, "0 1 1", "2 2 2"), name="holdem-3x2")
        model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, 2), use_cache=False)
        u = Strategy.uniform(g, model=model)
        pol = np.random.default_rng(1).random(u.policy.shape) * (u.policy > 0)
        s = Strategy.from_policy(g, pol / pol.sum(axis=1, keepdims=True), tree=u.tree, model=model)
    else:
        g = leduc()
        s = random_strategy(g, 2)
    agent = StrategyAgent(s)
    rp = agent.range_policy(g)
    rng = np.random.default_rng(0)
    for hand_no in range(6):
        st = State(g, seed=hand_no)
        (path, w), = rp.root(st.current_player())
        assert w == 1.0
        while not st.is_terminal():
            p = st.current_player()
            acts, probs = rp.probs(path, st, st.visible_board())
            view = parse_match_state(g, st.match_state(p))
            want = agent.distribution(view)
            cols = np.flatnonzero(s.tree.legal[s.tree.decision[s.node_of(st.betting_string())]])
            row = probs[hands(g).index(tuple(sorted(st.hole_cards(p))))]
            assert row == pytest.approx(want[cols], abs=1e-12)
            a = acts[rng.choice(len(acts), p=row / row.sum())]
            (path, w), = rp.advance(path, st, a)
            assert w == 1.0
            st.apply(a)
