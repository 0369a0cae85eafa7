"""Real-game best response (cfrlab.realgame) against independent oracles.

* Lossless strategies (Kuhn, Leduc, a small hold'em): the engine's exact best response in the
  lossless model is the real game's.
* Bucketed strategies: the same policy lifted to real cards (each lossless state's row = the
  row of its bucket) and solved for a best response by the lossless engine.
* Card-independent bots: their one row per decision copied to every lossless state.
* The unit runner: the same bits with 1 or 2 workers, and when a run is stopped and resumed.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from game_texts import holdem_text

from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.abstraction.lossless import LosslessModel
from cfrlab.agents.bots import BOTS
from cfrlab.agents.registry import make_agent
from cfrlab.cards.cards import parse_cards
from cfrlab.engine import best_response_values, build_tree_for, row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.match import exact_value
from cfrlab.games import load_game, parse_game
from cfrlab.games.agent import Agent
from cfrlab.games.units import to_unit
from cfrlab.realgame import (
    AgentSpec,
    TablePolicy,
    brstrategy,
    real_best_response,
    real_best_response_strategy,
)
from cfrlab.realgame.hands import first_round_units, make_deck, next_board_orbits, permute_cards
from cfrlab.realgame.opponents import batch_policy_of
from cfrlab.realgame.walk import Walker
from cfrlab.strategy import Strategy

TOL = 1e-9


def random_policy(tree, offsets, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    legal = np.repeat(np.asarray(tree.legal, dtype=np.float64), np.diff(offsets), axis=0)
    pol = legal * rng.random(legal.shape) ** 3  # skewed rows: far from uniform
    return pol / pol.sum(axis=1, keepdims=True)


def small_holdem(ranks, suits, boards, raises=None):
    return parse_game(holdem_text(ranks, suits, boards, raises), name=f"holdem-{ranks}x{suits}")


@lru_cache(maxsize=4)
def bucketed_case(ranks, suits, boards, buckets):
    g = small_holdem(ranks, suits, boards, " ".join(["2"] * len(boards.split())))
    model = BucketedModel.build(g, BucketSpec.make(g.num_rounds, buckets), use_cache=False)
    return g, build_tree_for(g), model


def lift(tree, bmodel, lmodel, policy_b) -> np.ndarray:
    """The bucketed policy as a lossless one: each lossless state plays its bucket's row."""
    off_b = row_offsets(tree, bmodel)
    off_l = row_offsets(tree, lmodel)
    bucket = []
    for r in range(tree.game.num_rounds):
        states = []
        for s in range(lmodel.num_states[r]):
            hole, board = lmodel.state_cards(r, s)
            states.append(bmodel.state_of(0, hole, board, r))
        bucket.append(np.array(states, dtype=np.int64))
    out = np.zeros((int(off_l[-1]), 3))
    for d, node in enumerate(tree.decision_node):
        r = int(tree.round[node])
        out[off_l[d]:off_l[d + 1]] = policy_b[off_b[d] + bucket[r]]
    return out


def lift_table(tree, lmodel, rows) -> np.ndarray:
    off_l = row_offsets(tree, lmodel)
    return np.repeat(rows, np.diff(off_l), axis=0)


# -- lossless strategies ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_lossless_strategy_matches_the_engine(name, seed):
    g = load_game(name)
    s = Strategy.uniform(g)
    if seed is not None:
        s = Strategy.from_policy(g, random_policy(s.tree, s.row_offset, seed))
    r = real_best_response(s)
    b0, b1 = best_response_values(s.tree, s.model, s.policy)
    assert r.br[0] == pytest.approx(b0, abs=1e-12)
    assert r.br[1] == pytest.approx(b1, abs=1e-12)
    assert r.exploitability == pytest.approx(0.5 * (b0 + b1), abs=1e-12)


def test_uniform_exploitability_figures():
    # DESIGN.md: uniform random is 11/24 (Kuhn) and 2.3736111 (Leduc) exploitable
    assert real_best_response(Strategy.uniform("kuhn")).exploitability == pytest.approx(11 / 24, abs=1e-12)
    assert real_best_response(Strategy.uniform("leduc")).exploitability == pytest.approx(2.3736111, abs=1e-6)


def test_lossless_holdem_strategy_matches_the_engine():
    g = small_holdem(4, 2, "0 2 1", "2 2 2")
    s = Strategy.uniform(g)
    s = Strategy.from_policy(g, random_policy(s.tree, s.row_offset, 3))
    r = real_best_response(s)
    b0, b1 = best_response_values(s.tree, s.model, s.policy)
    assert r.units == 28  # not symmetric: every flop is a unit
    assert r.br == pytest.approx((b0, b1), abs=TOL)


# -- bucketed strategies ------------------------------------------------------------------

BUCKET_CASES = [
    (4, 2, "0 2 1", 2),
    (3, 4, "0 3 1", 3),
]


@pytest.mark.parametrize("ranks,suits,boards,buckets", BUCKET_CASES)
def test_bucketed_strategy_matches_its_lift(ranks, suits, boards, buckets):
    g, tree, bmodel = bucketed_case(ranks, suits, boards, buckets)
    off_b = row_offsets(tree, bmodel)
    pol_b = random_policy(tree, off_b, 7)
    s = Strategy.from_policy(g, pol_b, tree=tree, model=bmodel)
    r = real_best_response(s)
    lm = LosslessModel(g)
    pol_l = lift(tree, bmodel, lm, pol_b)
    b0, b1 = best_response_values(tree, lm, pol_l)
    assert r.br[0] == pytest.approx(b0, abs=TOL)
    assert r.br[1] == pytest.approx(b1, abs=TOL)
    if suits == 4:  # suit isomorphism: fewer units than flops
        assert r.units < len(first_round_units(g, make_deck(g), False))


@pytest.mark.slow
def test_bucketed_four_rounds_matches_its_lift():
    g, tree, bmodel = bucketed_case(3, 3, "0 2 1 1", 2)  # 9 cards: the lossless oracle fits in 1.5 GB
    pol_b = random_policy(tree, row_offsets(tree, bmodel), 11)
    r = real_best_response(Strategy.from_policy(g, pol_b, tree=tree, model=bmodel))
    lm = LosslessModel(g)
    b0, b1 = best_response_values(tree, lm, lift(tree, bmodel, lm, pol_b))
    assert r.br == pytest.approx((b0, b1), abs=TOL)



class _Unsymmetric:
    """A bucketed policy with suit symmetry switched off: every board walked on its own."""

    def __init__(self, bp):
        self.bp = bp
        self.kind, self.policy, self.row_offset = bp.kind, bp.policy, bp.row_offset
        self.suit_symmetric = False

    def states(self, round, board, deck, valid):
        return self.bp.states(round, board, deck, valid)


def test_later_boards_shared_by_suit_orbits_give_the_same_values():
    # four rounds, four suits: turns and rivers fixed by a suit permutation of the flop
    # share one walk; every board walked alone must give the same values per hand
    g, tree, bmodel = bucketed_case(3, 4, "0 2 1 1", 2)
    pol_b = random_policy(tree, row_offsets(tree, bmodel), 5)
    bp = batch_policy_of(Strategy.from_policy(g, pol_b, tree=tree, model=bmodel), tree)
    sym = Walker(g, tree, bp)
    plain = Walker(g, tree, _Unsymmetric(bp))
    unit_sum = np.zeros_like(sym.root_forward())
    for u in first_round_units(g, sym.deck, True):
        unit_sum += sym.unit_values(u)
    plain_sum = np.zeros_like(unit_sum)
    for u in first_round_units(g, plain.deck, False):
        plain_sum += plain.unit_values(u)
    np.testing.assert_allclose(unit_sum, plain_sum, rtol=1e-12, atol=1e-12)
    a, b = sym.finish(unit_sum)[:2], plain.finish(plain_sum)[:2]
    assert a == pytest.approx(b, abs=TOL)


@pytest.mark.parametrize("flop", ["2c3c4c", "2c3c4d", "2c2d5h", "2c3d4h"])
def test_next_board_orbits_partition_the_draws(flop):
    g = load_game("holdem-limit")
    deck = make_deck(g)
    glob = {int(c): i for i, c in enumerate(deck.to_global)}
    board = tuple(sorted(glob[c] for c in parse_cards(flop)))
    rest = [c for c in range(deck.size) if c not in board]
    orbits = next_board_orbits(deck, [board], 1, True)
    images = []
    for rep, perms in orbits:
        assert perms[0] == (0, 1, 2, 3)
        for sg in perms:
            assert sorted(permute_cards(board, sg, 4).tolist()) == list(board)
            images.append(tuple(sorted(permute_cards(rep, sg, 4).tolist())))
    assert sorted(images) == [(c,) for c in rest]  # every turn card once
    # three ranks in three suits: no symmetry; monotone: the 10 clubs left, and one turn per
    # rank of the other three suits (any order of them); two-tone or paired: two suits swap
    expected = {"2c3d4h": 49, "2c3c4c": 10 + 13, "2c3c4d": 49 - 13, "2c2d5h": 49 - 12}
    assert len(orbits) == expected[flop]


# -- bots ---------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["walk", "fixed"])
@pytest.mark.parametrize("bot", ["always-fold", "always-call", "always-raise", "probe", "random"])
def test_bots_match_their_lift(bot, method):
    g = small_holdem(3, 4, "0 3 1", "2 2 2")
    tree = build_tree_for(g)
    fp = BOTS[bot]().fast_policy(tree)
    rows = fp.policy[fp.offsets]
    r = real_best_response(AgentSpec(bot), g, method=method)
    assert r.method == method
    lm = LosslessModel(g)
    b0, b1 = best_response_values(tree, lm, lift_table(tree, lm, rows))
    assert r.br == pytest.approx((b0, b1), abs=TOL)


@pytest.mark.parametrize("game", ["kuhn", "leduc", "four-rounds"])
def test_fixed_method_equals_the_walk_for_any_table(game):
    """A card-independent opponent with different rows at every decision (so no two betting
    subtrees share a group by accident): the fixed method's values, per hand, are the walk's."""
    g = small_holdem(3, 3, "0 3 1 1", "2 2 2 2") if game == "four-rounds" else load_game(game)
    tree = build_tree_for(g)
    rng = np.random.default_rng(7)
    pol = rng.random((tree.num_decisions, 3)) ** 3 * tree.legal
    pol /= pol.sum(axis=1, keepdims=True)
    opp = TablePolicy(pol, np.arange(tree.num_decisions, dtype=np.int64))
    walk = real_best_response(opp, g, method="walk")
    fixed = real_best_response(opp, g, method="fixed")
    assert fixed.method == "fixed" and walk.method == "walk"
    assert fixed.br == pytest.approx(walk.br, abs=TOL)
    np.testing.assert_allclose(fixed.root_values, walk.root_values, atol=TOL)


def test_fixed_method_refuses_card_dependent_opponents():
    with pytest.raises(CfrlabError, match="card-independent"):
        real_best_response(Strategy.uniform("leduc"), method="fixed")
    with pytest.raises(CfrlabError, match="unknown method"):
        real_best_response(AgentSpec("always-call"), "leduc", method="quick")


def test_always_fold_loses_the_blinds():
    g = small_holdem(3, 4, "0 3 1", "2 2 2")
    r = real_best_response(AgentSpec("always-fold"), g)
    # one seat raises and wins the big blind, the other wins the small blind the bot folds
    assert r.exploitability == pytest.approx(0.5 * sum(g.blind[:2]), abs=1e-12)


# -- units, workers, checkpoints ------------------------------------------------------------

def _case_strategy():
    g, tree, bmodel = bucketed_case(3, 4, "0 3 1", 3)
    return Strategy.from_policy(g, random_policy(tree, row_offsets(tree, bmodel), 5), tree=tree,
                                model=bmodel)


def test_workers_and_resume_give_the_same_bits(tmp_path):
    """A run stopped after some units, resumed (twice) from its checkpoints, the last part on
    two workers: bit for bit the serial run. One pool only (starting its two processes costs
    5 s of CPU, the units 0.2 s): the units it computes and the checkpointed ones make one
    result, so a worker that computed a unit differently, or skipped one, fails here."""
    s = _case_strategy()
    one = real_best_response(s)
    ck = tmp_path / "b"
    n = one.units
    real_best_response(s, checkpoint=ck, units=list(range(0, n, 3)))
    with pytest.raises(CfrlabError, match="resume=True"):
        real_best_response(s, checkpoint=ck)
    real_best_response(s, checkpoint=ck, resume=True, units=list(range(1, n, 3)))
    last = real_best_response(s, checkpoint=ck, resume=True, workers=2)
    assert last.units_computed == n - len(range(0, n, 3)) - len(range(1, n, 3))
    assert last.br == one.br
    np.testing.assert_array_equal(last.root_values, one.root_values)


def test_checkpoints_of_another_job_are_refused(tmp_path):
    s = _case_strategy()
    real_best_response(s, checkpoint=tmp_path, units=[0])
    other = Strategy.uniform(s.game, tree=s.tree, model=s.model)
    with pytest.raises(CfrlabError, match="another job"):
        real_best_response(other, checkpoint=tmp_path, resume=True)


# -- bad input ------------------------------------------------------------------------------

def test_strategy_for_another_game_is_refused():
    with pytest.raises(CfrlabError, match="another game|not for"):
        real_best_response(Strategy.uniform("kuhn"), "leduc")


def test_agent_without_batch_queries_is_told_what_to_implement():
    class Plain(Agent):
        name = "plain"

        def act(self, view):
            return "c"

    with pytest.raises(CfrlabError, match="batch_policy"):
        real_best_response(Plain(), "leduc")


# -- the best response itself (games small enough to store it) -------------------------------

def _exact_pair(game, br, opponent):
    return exact_value(game, make_agent(br, game), opponent)


@pytest.mark.parametrize("case", ["leduc-random", "holdem-bucketed", "bot"])
def test_the_stored_best_response_wins_exactly_the_best_response_values(case):
    if case == "leduc-random":
        s = Strategy.uniform("leduc")
        g = s.game
        opponent = Strategy.from_policy(g, random_policy(s.tree, s.row_offset, 4))
        agent = make_agent(opponent, g)
    elif case == "holdem-bucketed":
        g, tree, bmodel = bucketed_case(4, 2, "0 2 1", 2)
        pol_b = random_policy(tree, row_offsets(tree, bmodel), 8)
        opponent = Strategy.from_policy(g, pol_b, tree=tree, model=bmodel)
        lm = LosslessModel(g)  # exact play needs one model: the test's own lift to real cards
        agent = make_agent(Strategy.from_policy(g, lift(tree, bmodel, lm, pol_b), tree=tree, model=lm), g)
    else:
        g = load_game("leduc")
        opponent = AgentSpec("always-raise")
        agent = make_agent("always-raise", g)
    values, br = real_best_response_strategy(opponent, g)
    r = real_best_response(opponent, g)
    assert values == pytest.approx(tuple(to_unit(g, v) for v in r.br), abs=TOL)
    assert str(br.model.kind) == "lossless"
    # played exactly against the opponent, the stored response wins those values per position
    ev = _exact_pair(g, br, agent)
    assert ev is not None
    mean, per_position = ev
    assert per_position == pytest.approx(r.br, abs=TOL)
    assert mean == pytest.approx(r.exploitability, abs=TOL)


def test_a_game_too_large_to_store_a_best_response_is_refused():
    with pytest.raises(CfrlabError, match="too many to store a best response"):
        real_best_response_strategy(AgentSpec("always-call"), "holdem-limit")


def test_the_products_lift_is_the_tests_lift():
    g, tree, bmodel = bucketed_case(3, 4, "0 3 1", 3)
    pol_b = random_policy(tree, row_offsets(tree, bmodel), 2)
    mine = brstrategy.lift(Strategy.from_policy(g, pol_b, tree=tree, model=bmodel))
    np.testing.assert_array_equal(mine.policy, lift(tree, bmodel, LosslessModel(g), pol_b))


@pytest.mark.parametrize("recall", ["perfect", "imperfect"])
def test_last_round_states_from_the_round_before_equal_a_fresh_lookup(recall):
    """The walk asks for a board's last-round states right after its prefix's: those come
    from the states already known (one hand index each); they must equal the full lookup."""
    g = small_holdem(4, 3, "0 2 1 1", "1 1 1 1")
    spec = BucketSpec.make(4, "2-3-3-3", history=recall == "perfect", recall=recall)
    model = BucketedModel.build(g, spec, use_cache=False)
    tree = build_tree_for(g)
    s = Strategy.from_policy(g, random_policy(tree, row_offsets(tree, model), 1), tree=tree,
                             model=model)
    deck = make_deck(g)
    rng = np.random.default_rng(2)
    for _ in range(12):
        board = rng.choice(deck.size, 4, replace=False)
        walk, fresh = batch_policy_of(s, tree), batch_policy_of(s, tree)
        walk.states(2, board[:3], deck, deck.valid(board[:3]))  # the turn, then its river
        got = walk.states(3, board, deck, deck.valid(board))
        want = fresh.states(3, board, deck, deck.valid(board))  # nothing known before
        np.testing.assert_array_equal(got, want)
        other = board.copy()
        other[0] = next(c for c in range(deck.size) if c not in board)  # another prefix
        np.testing.assert_array_equal(walk.states(3, other, deck, deck.valid(other)),
                                      fresh.states(3, other, deck, deck.valid(other)))
