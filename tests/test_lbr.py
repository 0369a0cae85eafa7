"""Local best response (cfrlab.realgame.lbr) against independent oracles.

* An enumeration oracle written here in plain Python from the definition (Lisý and Bowling,
  adapted to limit): every deal, the opponent's actions weighted by their probabilities read
  through the strategy's lossless model card by card, the responder's range recomputed from
  the betting history at each of its decisions, its equity by enumerating the board's
  completions with the Python hand ranker. The fast code's exact mode must equal it, and the
  sampled estimate must hold it in its confidence interval.
* The exact real-game best response bounds LBR, seat by seat.
* Known values: always-fold in hold'em loses exactly the mean of the blinds.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import combinations

import numpy as np
import pytest
from game_texts import holdem_text

import cfrlab
from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.cards import evaluator
from cfrlab.cards.cards import deck as deck_cards
from cfrlab.engine import build_tree_for, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game, parse_game
from cfrlab.games.agent import Agent
from cfrlab.realgame import AgentSpec, real_best_response
from cfrlab.realgame.lbr import local_best_response
from cfrlab.strategy import Strategy
from cfrlab.tree import CHANCE, DECISION, FOLD

TOL = 1e-9


def random_policy(tree, offsets, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    legal = np.repeat(np.asarray(tree.legal, dtype=np.float64), np.diff(offsets), axis=0)
    pol = legal * rng.random(legal.shape) ** 3
    return pol / pol.sum(axis=1, keepdims=True)


def random_strategy(game, seed):
    s = Strategy.uniform(game)
    return Strategy.from_policy(s.game, random_policy(s.tree, s.row_offset, seed))


def tiny_holdem():
    # 6 cards, two hole cards each, one flop card, one turn card: every card is dealt
    return parse_game(holdem_text(3, 2, "0 1 1", "2 2 2"), name="holdem-3x2")


# -- the oracle: plain Python from the definition --------------------------------------------

class Oracle:
    """LBR's expected winnings in each seat against a lossless strategy, by enumeration."""

    def __init__(self, strategy: Strategy, call_rounds: int = 0) -> None:
        self.s = strategy
        self.g = strategy.game
        self.t = strategy.tree
        self.K = call_rounds
        self.cards = deck_cards(self.g.num_ranks, self.g.num_suits)
        self.hands = [tuple(c) for c in combinations(self.cards, self.g.num_hole_cards)]
        self.nb = list(self.g.num_board_cards)
        self.memo = {}

    def probs(self, d, hole, board, r):
        st = self.s.model.state_of(0, list(hole), list(board), r)
        return self.s.policy[self.s.row_offset[d] + st]

    def child(self, n, a):
        return self.t.child_by_action(n, a)

    def known(self, board, r):
        return board[:sum(self.nb[:r + 1])]

    def equity(self, mine, opp, known):
        rest = [c for c in self.cards if c not in mine and c not in opp and c not in known]
        k = sum(self.nb) - len(known)
        tot = 0.0
        cnt = 0
        for comp in combinations(rest, k):
            b = list(known) + list(comp)
            x = evaluator.rank_hand(list(mine) + b)
            y = evaluator.rank_hand(list(opp) + b)
            tot += 1.0 if x > y else (0.5 if x == y else 0.0)
            cnt += 1
        return tot / cnt

    def decide(self, seat, mine, node, known, hist):
        """The responder's action: hist = [(decision, action, round), ...] of the opponent."""
        key = (seat, mine, node, known, tuple(hist))
        if key in self.memo:
            return self.memo[key]
        d = int(self.t.decision[node])
        W = WE = F = 0.0
        raise_child = self.child(node, 2)
        for j in self.hands:
            if set(j) & set(mine) or set(j) & set(known):
                continue
            w = 1.0
            for dd, a, r in hist:
                w *= self.probs(dd, j, self.known(known, r), r)[a]
            if w == 0.0:
                continue
            W += w
            WE += w * self.equity(mine, j, known)
            if raise_child >= 0 and self.t.kind[raise_child] == DECISION:
                F += w * self.probs(int(self.t.decision[raise_child]), j, known,
                                    int(self.t.round[node]))[0]
        wp = WE / W
        me, op = float(self.t.spent[node, seat]), float(self.t.spent[node, 1 - seat])
        pot, asked = me + op, op - me
        u = {1: wp * pot - (1 - wp) * asked}
        if self.t.legal[d, 2]:
            b = float(self.t.spent[raise_child, seat]) - op
            fp = F / W
            u[2] = fp * pot + (1 - fp) * (wp * (pot + b) - (1 - wp) * (asked + b))
        best = 1
        if 2 in u and u[2] > u[1] + 1e-9:
            best = 2
        if self.t.legal[d, 0] and 0.0 > u[best] + 1e-9:
            best = 0
        self.memo[key] = best
        return best

    def play(self, seat, mine, opp, board, node, hist):
        kind = int(self.t.kind[node])
        if kind == FOLD:
            f = int(self.t.player[node])
            return -float(self.t.spent[node, seat]) if f == seat else float(self.t.spent[node, 1 - seat])
        if kind == CHANCE:
            return self.play(seat, mine, opp, board, int(self.t.children(node)[0]), hist)
        if kind != DECISION:  # showdown
            x = evaluator.rank_hand(list(mine) + list(board))
            y = evaluator.rank_hand(list(opp) + list(board))
            return float(self.t.spent[node, seat]) * (1 if x > y else (-1 if x < y else 0))
        r = int(self.t.round[node])
        known = tuple(self.known(board, r))
        if self.t.player[node] == seat:
            a = 1 if r < self.K else self.decide(seat, mine, node, known, hist)
            return self.play(seat, mine, opp, board, self.child(node, a), hist)
        d = int(self.t.decision[node])
        p = self.probs(d, opp, known, r)
        v = 0.0
        for a in range(3):
            if self.t.legal[d, a] and p[a] > 0:
                v += p[a] * self.play(seat, mine, opp, board, self.child(node, a), hist + [(d, a, r)])
        return v

    def boards(self, used):
        """Every full board (sorted within each round) missing ``used``, in deal order."""
        out = [()]
        for k in self.nb[1:]:
            nxt = []
            for b in out:
                rest = [c for c in self.cards if c not in used and c not in b]
                nxt.extend(b + comp for comp in combinations(rest, k))
            out = nxt
        return out

    def values(self):
        res = []
        for seat in (0, 1):
            tot = 0.0
            n = 0
            for mine in self.hands:
                for opp in self.hands:
                    if set(mine) & set(opp):
                        continue
                    bs = self.boards(set(mine) | set(opp))
                    tot += sum(self.play(seat, mine, opp, b, 0, []) for b in bs) / len(bs)
                    n += 1
            res.append(tot / n)
        return res


@lru_cache(maxsize=1)
def _bucketed():
    """A bucketed strategy (2 buckets a round) of the tiny hold'em, random policy."""
    g = tiny_holdem()
    model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, 2), use_cache=False)
    tree = build_tree_for(g)
    return Strategy.from_policy(g, random_policy(tree, row_offsets(tree, model), 5), tree=tree,
                                model=model)


ORACLE_CASES = [("kuhn", 1, 0), ("kuhn", None, 0), ("leduc", 2, 0), ("leduc", 3, 1),
                ("leduc", None, 0), ("tiny-holdem", 4, 0), ("tiny-bucketed", None, 0)]


def _case(name, seed):
    if name == "tiny-bucketed":
        return _bucketed()
    g = tiny_holdem() if name == "tiny-holdem" else load_game(name)
    return Strategy.uniform(g) if seed is None else random_strategy(g, seed)


@pytest.mark.parametrize("name,seed,call_rounds", ORACLE_CASES)
def test_exact_mode_equals_the_enumeration_oracle(name, seed, call_rounds):
    s = _case(name, seed)
    want = Oracle(s, call_rounds).values()
    got = local_best_response(s, exact=True, call_rounds=call_rounds)
    assert got.seat_values == pytest.approx(tuple(want), abs=TOL)
    assert got.value == pytest.approx(0.5 * sum(want), abs=TOL)


@pytest.mark.parametrize("name,seed,call_rounds", [("leduc", 2, 0), ("tiny-holdem", 4, 0)])
def test_sampled_estimate_holds_the_exact_value(name, seed, call_rounds):
    s = _case(name, seed)
    exact = local_best_response(s, exact=True, call_rounds=call_rounds)
    est = local_best_response(s, hands=12000, seed=7, call_rounds=call_rounds)
    assert est.hands == 12000 and est.deals == 6000
    assert abs(est.value - exact.value) < est.ci95
    for v, c, x in zip(est.seat_values, est.seat_ci95, exact.seat_values):
        assert abs(v - x) < c


@pytest.mark.parametrize("case", ["kuhn-uniform", "leduc-random", "leduc-call1", "holdem-random",
                                  "bucketed"])
def test_lbr_never_exceeds_the_best_response(case):
    call_rounds = 1 if case == "leduc-call1" else 0
    if case == "kuhn-uniform":
        s = Strategy.uniform("kuhn")
    elif case.startswith("leduc"):
        s = random_strategy(load_game("leduc"), 9)
    elif case == "holdem-random":
        s = random_strategy(tiny_holdem(), 10)
    else:
        s = _bucketed()
    br = real_best_response(s)
    lbr = local_best_response(s, exact=True, call_rounds=call_rounds)
    assert lbr.seat_values[0] <= br.br[0] + TOL
    assert lbr.seat_values[1] <= br.br[1] + TOL
    assert lbr.value <= br.exploitability + TOL
    assert lbr.value > 0  # these strategies are far from equilibrium


def test_always_fold_loses_the_blinds_in_holdem():
    g = load_game("holdem-limit")
    r = local_best_response(AgentSpec("always-fold"), g, hands=60, seed=3)
    # the big blind wins the small blind, the small blind raises and wins the big blind
    assert r.value == pytest.approx(0.5 * sum(g.blind[:2]), abs=1e-12)
    assert r.value_unit == pytest.approx(750.0, abs=1e-9)
    assert r.ci95 == pytest.approx(0.0, abs=1e-12)
    assert r.seat_values == pytest.approx((g.blind[1], g.blind[0]), abs=1e-12)


def test_against_a_cfr_solution_of_leduc_lbr_is_small():
    s = cfrlab.solve("leduc", "cfr+", iterations=300).strategy
    br = real_best_response(s)
    lbr = local_best_response(s, exact=True)
    assert lbr.seat_values[0] <= br.br[0] + TOL and lbr.seat_values[1] <= br.br[1] + TOL
    assert br.exploitability < 0.01  # near equilibrium...
    # ...so LBR, which assumes check/call from each decision on, wins nothing (its own
    # mistakes cost it a little: about -0.06 chips, seat 0 about -0.16, seat 1 +0.04)
    assert -0.1 < lbr.value <= br.exploitability + TOL


def test_workers_give_the_same_bits():
    s = random_strategy(load_game("leduc"), 2)
    one = local_best_response(s, hands=600, seed=5, block=50)
    two = local_best_response(s, hands=600, seed=5, block=50, workers=2)
    np.testing.assert_array_equal(one.winnings, two.winnings)


# -- bad input ------------------------------------------------------------------------------

def test_strategy_for_another_game_is_refused():
    with pytest.raises(CfrlabError, match="not for"):
        local_best_response(Strategy.uniform("kuhn"), "leduc", hands=10)


def test_an_agent_needs_its_game():
    with pytest.raises(CfrlabError, match="^local_best_response needs the game"):
        local_best_response(AgentSpec("always-call"), hands=10)


def test_an_object_that_does_not_play_is_told_what_to_implement():
    class Nothing:
        name = "nothing"

    with pytest.raises(CfrlabError, match=r"^nothing: local best response plays against an agent \(a method act"):
        local_best_response(Nothing(), "leduc", hands=10)


# -- a user's own agent, read through act / action_probabilities ------------------------------

def pair_rule(hole, board, can_fold: bool, can_raise: bool) -> int:
    """A user's pure strategy: raise with a pair or an ace (call if it cannot), fold a queen to
    a bet, else check or call. 0 fold, 1 call, 2 raise (Leduc: Q, K, A are ranks 10, 11, 12)."""
    ranks, seen = [c // 4 for c in hole], [c // 4 for c in board]
    if any(r in seen for r in ranks) or max(ranks) == 12:
        return 2 if can_raise else 1
    return 0 if can_fold and max(ranks) == 10 else 1


class PairRaiser(Agent):
    """The rule as a user writes an agent: ``act`` alone (docs/matches.md)."""

    name = "pairs"

    def act(self, view):
        legal = view.legal_actions()
        return "fcr"[pair_rule(view.my_cards, view.visible_board(), "f" in legal, "r" in legal)]


class StrategyReader:
    """A user's randomizing agent, not even an ``Agent`` subclass: it says its probabilities,
    read from a lossless strategy's table by hand (its tree node, its private state)."""

    name = "reader"

    def __init__(self, s):
        self.s = s

    def action_probabilities(self, view):
        node = self.s.node_of(view.betting_string())
        d, r = int(self.s.tree.decision[node]), int(self.s.tree.round[node])
        row = self.s.policy[self.s.row_offset[d] + self.s.model.state_of(0, view.my_cards,
                                                                         view.visible_board(), r)]
        return {a: float(row["fcr".index(a)]) for a in view.legal_actions()}

    def act(self, view):  # pragma: no cover - LBR reads action_probabilities
        raise AssertionError("act is not read when action_probabilities is there")


class RuleOracle(Oracle):
    """The enumeration oracle against ``pair_rule``: its probabilities from the rule itself."""

    def probs(self, d, hole, board, r):
        legal = self.t.legal[d]
        row = np.zeros(3)
        row[pair_rule(hole, board, bool(legal[0]), bool(legal[2]))] = 1.0
        return row


@pytest.mark.parametrize("name,call_rounds", [("kuhn", 0), ("leduc", 0), ("leduc", 1)])
def test_a_users_act_agent_equals_the_enumeration_oracle(name, call_rounds):
    want = RuleOracle(Strategy.uniform(name), call_rounds).values()
    got = local_best_response(PairRaiser(), name, exact=True, call_rounds=call_rounds)
    assert got.seat_values == pytest.approx(tuple(want), abs=TOL)
    facade = cfrlab.lbr(PairRaiser(), name, exact=True, call_rounds=call_rounds)  # the facade
    assert facade.seat_values == pytest.approx(tuple(want), abs=TOL) and facade.unit == "chips/g"


def test_a_users_randomizing_agent_equals_the_oracle_through_its_probabilities():
    s = random_strategy(load_game("leduc"), 2)
    want = Oracle(s).values()
    got = cfrlab.lbr(StrategyReader(s), "leduc", exact=True)
    assert got.seat_values == pytest.approx(tuple(want), abs=TOL)
    est = cfrlab.lbr(StrategyReader(s), "leduc", hands=600, seed=4)  # sampled play holds it
    assert est.hands == 600 and est.deals == 300
    assert abs(est.value - got.value) < est.ci95


def test_a_users_agent_plays_like_the_builtin_it_copies():
    class Caller(Agent):
        def act(self, view):
            return "c"

    for game in ("kuhn", "leduc"):
        mine = cfrlab.lbr(Caller(), game, exact=True)
        builtin = cfrlab.lbr("always-call", game, exact=True)
        assert mine.seat_values == pytest.approx(builtin.seat_values, abs=TOL)


def test_a_random_act_agent_is_refused_in_one_line():
    class Coin(Agent):
        name = "coin"

        def act(self, view):
            return "c" if self.rng.random() < 0.5 else "r" if "r" in view.legal_actions() else "c"

    with pytest.raises(CfrlabError, match=r"^coin: act answers .* action_probabilities") as e:
        cfrlab.lbr(Coin(), "leduc", hands=10)
    assert "\n" not in str(e.value)


def test_an_illegal_answer_is_refused_in_one_line():
    class Folder(Agent):
        name = "folder"

        def act(self, view):
            return "f"  # also where checking is free: not legal

    with pytest.raises(CfrlabError, match=r"^folder: 'f' is not a legal action at MATCHSTATE:"):
        cfrlab.lbr(Folder(), "kuhn", exact=True)


def test_cli_lbr_against_a_users_agent_file(capsys, tmp_path):
    src = tmp_path / "mybot.py"
    src.write_text(
        "from cfrlab.agents import Agent\n\n\n"
        "class Caller(Agent):\n"
        "    name = 'caller'\n\n"
        "    def act(self, view):\n"
        "        return 'c'\n")
    code, out, err = _cli(capsys, ["lbr", f"py:{src}:Caller", "--game", "leduc", "--exact", "--json"])
    assert code == 0, err
    d = json.loads(out.strip().splitlines()[-1])
    want = cfrlab.lbr("always-call", "leduc", exact=True)
    assert d["lbr_chips"] == pytest.approx(want.value, abs=TOL)


@pytest.mark.parametrize("hands", [0, -5])
def test_hands_must_be_positive(hands):
    with pytest.raises(CfrlabError, match="^hands must be positive"):  # no CLI flag in the API
        local_best_response(Strategy.uniform("leduc"), hands=hands)


def test_exact_mode_refuses_a_big_game():
    with pytest.raises(CfrlabError, match="too large"):
        local_best_response(AgentSpec("always-call"), "holdem-limit", exact=True)


# -- CLI ------------------------------------------------------------------------------------

def _cli(capsys, args):
    """(exit code, stdout, stderr) of ``cfrlab ARGS`` run in this process."""
    from cfrlab.cli.main import main

    code = 0
    try:
        main(args)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_prints_a_json_summary(capsys):
    code, out, _ = _cli(capsys, ["lbr", "always-fold", "--game", "holdem-limit", "--hands", "40",
                                 "--json"])
    assert code == 0
    d = json.loads(out.strip().splitlines()[-1])
    assert d["lbr"] == pytest.approx(750.0) and d["unit"] == "mbb/g" and d["hands"] == 40


def test_cli_strategy_file(capsys, tmp_path):
    p = tmp_path / "s.npz"
    random_strategy(load_game("leduc"), 2).save(p)
    code, out, _ = _cli(capsys, ["lbr", str(p), "--hands", "200", "--seed", "1", "--call-rounds",
                                 "1", "--json"])
    assert code == 0
    d = json.loads(out.strip().splitlines()[-1])
    assert d["unit"] == "chips/g" and d["call_rounds"] == 1 and d["hands"] == 200


@pytest.mark.parametrize("args,msg", [
    (["lbr", "always-call", "--game", "leduc", "--hands", "0"], "--hands"),
    (["lbr", "always-call", "--hands", "10"], "--game"),
    (["lbr", "kuhn.npz", "--hands", "10"], "kuhn"),
])
def test_cli_bad_input_is_one_line(capsys, tmp_path, monkeypatch, args, msg):
    monkeypatch.chdir(tmp_path)
    Strategy.uniform("kuhn").save(tmp_path / "kuhn.npz")
    if "kuhn.npz" in args:
        args = [*args, "--game", "leduc"]  # a strategy for another game
    code, _, err = _cli(capsys, args)
    assert code != 0
    assert err.startswith("cfrlab: error:") and err.count("\n") == 1 and msg in err, err
