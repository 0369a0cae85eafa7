"""Agents: the registry, the built-in bots, strategy agents and their fast-kernel tables."""

import itertools

import numpy as np
import pytest
from naive import hand_value

from cfrlab.agents.bots import AlwaysRaise, ValueBot, _holdings
from cfrlab.agents.registry import BOT_NAMES, make_agent
from cfrlab.agents.strategy_agent import StrategyAgent, batch_states
from cfrlab.cards import parse_cards
from cfrlab.cards._strength_kernels import hand_strength
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.evaluate.match import deal_cards, tree_arrays
from cfrlab.games import load_game, parse_game
from cfrlab.games.agent import Agent
from cfrlab.games.matchstate import parse_match_state
from cfrlab.games.state import State
from cfrlab.strategy import Strategy

# A reduced-deck hold'em (10 cards, HULHE betting): lossless states stay small.
SMALL_HOLDEM = parse_game(
    """GAMEDEF
limit
numPlayers = 2
numRounds = 4
blind = 10 5
raiseSize = 10 10 20 20
firstPlayer = 2 1 1 1
maxRaises = 3 4 4 4
numSuits = 2
numRanks = 5
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
""", name="small-holdem")
# Two rounds on 12 cards: small enough for lossless strategies (SMALL_HOLDEM has 285M rows).
FLOP_HOLDEM = parse_game(
    """GAMEDEF
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
""", name="flop-holdem")


def view(game, line):
    return parse_match_state(load_game(game), line)


# -- registry ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_bot_name_makes_an_agent(name):
    agent = make_agent(name, "leduc", seed=1)
    assert isinstance(agent, Agent)
    assert agent.act(view("leduc", "MATCHSTATE:0:0::Ks|")) in ("c", "r")


def test_teddy_is_always_raise_and_names_are_case_insensitive():
    assert isinstance(make_agent("teddy", "kuhn"), AlwaysRaise)
    assert isinstance(make_agent("Always-Raise", "kuhn"), AlwaysRaise)


def test_unknown_agent_is_one_line_listing_the_bots():
    with pytest.raises(CfrlabError) as e:
        make_agent("alwys-call", "kuhn")
    msg = str(e.value)
    assert "\n" not in msg and "alwys-call" in msg
    for name in BOT_NAMES:
        assert name in msg


@pytest.mark.parametrize("spec", ["value:0.3,0.8", "value:abc", "value:0.5"])
def test_bad_value_thresholds(spec):
    with pytest.raises(CfrlabError, match="value"):
        make_agent(spec, "kuhn")


def test_strategy_for_another_game_is_refused(tmp_path):
    path = tmp_path / "kuhn.npz"
    Strategy.uniform("kuhn").save(path)
    with pytest.raises(FileMismatchError) as e:
        make_agent(str(path), "leduc")
    assert "\n" not in str(e.value) and "kuhn" in str(e.value)
    assert isinstance(make_agent(str(path), "kuhn"), StrategyAgent)
    assert make_agent(f"{path}:greedy", "kuhn").greedy
    with pytest.raises(CfrlabError, match="unknown strategy option"):
        make_agent(f"{path}:fast", "kuhn")


# -- the bots' decisions ---------------------------------------------------------------------


def test_always_fold_folds_to_a_bet_and_checks_when_free():
    bot = make_agent("always-fold", "holdem-limit")
    assert bot.act(view("holdem-limit", "MATCHSTATE:1:0::|AsAd")) == "f"  # small blind faces the big blind
    assert bot.act(view("holdem-limit", "MATCHSTATE:0:0:c:AsAd|")) == "c"  # big blind may check


def test_always_raise_calls_at_the_cap():
    bot = make_agent("always-raise", "holdem-limit")
    assert bot.act(view("holdem-limit", "MATCHSTATE:1:0::|AsAd")) == "r"
    assert bot.act(view("holdem-limit", "MATCHSTATE:0:0:rrr:AsAd|")) == "c"  # 3 raises preflop: capped


def test_probe_never_folds_and_mixes_call_and_raise():
    bot = make_agent("probe", "holdem-limit", seed=3)
    v = view("holdem-limit", "MATCHSTATE:1:0::|7c2d")
    seen = [bot.act(v) for _ in range(400)]
    assert set(seen) == {"c", "r"}
    assert 150 < seen.count("r") < 250


def test_random_plays_only_legal_actions_in_no_limit():
    bot = make_agent("random", "holdem-nolimit", seed=5)
    v = view("holdem-nolimit", "MATCHSTATE:1:0::|7c2d")
    lo, hi = v.raise_range()
    for _ in range(200):
        a = bot.act(v)
        assert a in ("f", "c") or (a[0] == "r" and lo <= int(a[1:]) <= hi)


def test_value_bot_by_strength_in_kuhn():
    bot = make_agent("value", "kuhn")  # HS: Q 0, K 0.5, A 1
    assert bot.act(view("kuhn", "MATCHSTATE:0:0::As|")) == "r"
    assert bot.act(view("kuhn", "MATCHSTATE:1:0:r:|Ks")) == "c"
    assert bot.act(view("kuhn", "MATCHSTATE:1:0:r:|Qs")) == "f"
    assert bot.act(view("kuhn", "MATCHSTATE:1:0:c:|Qs")) == "c"  # free check


def test_value_bot_in_holdem():
    bot = make_agent("value", "holdem-limit")
    assert bot.act(view("holdem-limit", "MATCHSTATE:1:0::|AsAd")) == "r"
    assert bot.act(view("holdem-limit", "MATCHSTATE:1:0::|7c2d")) == "f"
    # the nuts on the river raises; nothing on a paired board folds to a bet
    assert bot.act(view("holdem-limit", "MATCHSTATE:0:0:cc/cc/cc/r:AhKh|/QhJhTh/2c/3d")) == "r"
    assert bot.act(view("holdem-limit", "MATCHSTATE:0:0:cc/cc/cc/r:7c2d|/AhAsKd/Kc/9h")) == "f"


# -- hand strength against an independent evaluator ------------------------------------------


def naive_hs(game, hole, board):
    known = set(hole) | set(board)
    rest = [c for c in parse_cards("".join(_deck_text(game))) if c not in known]
    mine = hand_value(list(hole) + list(board))
    wins = ties = count = 0
    for opp in itertools.combinations(rest, game.num_hole_cards):
        v = hand_value(list(opp) + list(board))
        wins += mine > v
        ties += mine == v
        count += 1
    return (wins + 0.5 * ties) / count


def _deck_text(game):
    from cfrlab.cards import cards_text, deck

    return cards_text(deck(game.num_ranks, game.num_suits))


@pytest.mark.parametrize("game_name,nb", [("leduc", 1), ("holdem-limit", 3), ("holdem-limit", 5)])
def test_hand_strength_matches_naive_enumeration(game_name, nb):
    game = load_game(game_name)
    combos, _ = _holdings(game.num_ranks, game.num_suits, game.num_hole_cards)
    deals = deal_cards(game, seed=11, n=4)
    h = game.num_hole_cards
    for d in deals:
        hole, board = [int(c) for c in d[:h]], [int(c) for c in d[2 * h:2 * h + nb]]
        got = hand_strength(np.array(hole), np.array(board), combos)
        assert got == pytest.approx(naive_hs(game, hole, board), abs=1e-12)


@pytest.mark.parametrize("game", ["kuhn", "leduc", SMALL_HOLDEM, "holdem-limit"])
def test_value_bot_batch_classes_equal_the_single_situation_path(game):
    game = load_game(game)
    bot = ValueBot(0.7, 0.35)
    fp = bot.fast_policy(tree_arrays(game).tree)
    deals = deal_cards(game, seed=2, n=60)
    got = fp.states(deals)
    from cfrlab.cards._strength_kernels import strength_class

    h = game.num_hole_cards
    for i, d in enumerate(deals):
        for p in range(2):
            for r in range(game.num_rounds):
                board = [int(c) for c in d[2 * h: 2 * h + game.total_board_cards(r)]]
                hs = bot.strength(game, [int(c) for c in d[p * h:(p + 1) * h]], board)
                assert got[i, p, r] == strength_class(hs, 0.7, 0.35)


# -- tables and acts agree at every decision ---------------------------------------------------


@pytest.mark.parametrize("name", ["always-fold", "always-call", "always-raise", "probe", "random"])
@pytest.mark.parametrize("game_name", ["kuhn", "leduc"])
def test_bot_table_rows_match_act(name, game_name):
    game = load_game(game_name)
    ta = tree_arrays(game)
    bot = make_agent(name, game, seed=0)
    fp = bot.fast_policy(ta.tree)
    deal = deal_cards(game, seed=0, n=1)[0]
    for d, node in enumerate(ta.tree.decision_node):
        state = State(game, [int(c) for c in deal])
        for ch in ta.tree.betting[node].replace("/", ""):
            state.apply(ch)
        v = parse_match_state(game, state.match_state(state.current_player()))
        row = fp.policy[fp.offsets[d]]
        assert row.sum() == pytest.approx(1.0)
        assert np.all(row[~ta.tree.legal[d]] == 0)
        acts = {bot.act(v) for _ in range(30)}
        assert acts == {"fcr"[a] for a in range(3) if row[a] > 0}


# -- strategy agents -------------------------------------------------------------------------


def _random_strategy(game, seed):
    s = Strategy.uniform(game)
    rng = np.random.default_rng(seed)
    legal = np.repeat(s.tree.legal, np.diff(s.row_offset), axis=0)
    pol = rng.random(s.policy.shape) * legal
    return Strategy.from_policy(s.game, pol / pol.sum(axis=1, keepdims=True), tree=s.tree, model=s.model)


def test_strategy_agent_plays_its_rows():
    strat = _random_strategy("leduc", 1)
    agent = StrategyAgent(strat)
    agent.begin_match(strat.game, 7)
    v = view("leduc", "MATCHSTATE:1:0:r:|Qh")
    want = strat.action_probs("|Qh", "r")
    got = agent.distribution(v)
    assert [got[i] for i in range(3) if "fcr"[i] in want] == pytest.approx(list(want.values()))
    counts = {a: 0 for a in "fcr"}
    for _ in range(3000):
        counts[agent.act(v)] += 1
    for a, p in want.items():
        assert abs(counts[a] / 3000 - p) < 0.04
    greedy = StrategyAgent(strat, greedy=True)
    assert greedy.act(v) == max(want, key=want.get)


@pytest.mark.parametrize("game", ["kuhn", "leduc", SMALL_HOLDEM])
def test_lossless_batch_states_equal_model_deal_states(game):
    game = load_game(game)
    from cfrlab.abstraction import LosslessModel

    model = LosslessModel(game)
    deals = deal_cards(game, seed=9, n=300)
    want = np.array([model.deal_states([int(c) for c in d]) for d in deals])
    assert np.array_equal(batch_states(model, deals), want)


def test_python_agent_classes_load_from_a_file(tmp_path):
    src = tmp_path / "mine.py"
    src.write_text("from cfrlab.agents import Agent\n\n"
                   "class Caller(Agent):\n    name = 'mine'\n\n    def act(self, view):\n        return 'c'\n\n"
                   "class NotAnAgent:\n    pass\n")
    agent = make_agent(f"py:{src}:Caller", "leduc")
    assert agent.name == "mine" and agent.act(view("leduc", "MATCHSTATE:0:0::Ks|")) == "c"
    for bad, why in [(f"py:{src}:NotAnAgent", "not an Agent"), (f"py:{src}:Missing", "not an Agent"),
                     ("py:no_such_module_xyz:A", "cannot load"), (f"py:{tmp_path}/nope.py:A", "no such file"),
                     ("py:justaname", "py:FILE.py:ClassName")]:
        with pytest.raises(CfrlabError, match=why) as e:
            make_agent(bad, "leduc")
        assert "\n" not in str(e.value)


def test_package_exports():
    from cfrlab.agents import BOT_NAMES as names
    from cfrlab.agents import make_agent as exported
    from cfrlab.cards import category_name, hand_category, rank_hand

    assert exported is make_agent and names == BOT_NAMES
    r = rank_hand(parse_cards("AsKsQsJsTs"))
    assert hand_category(r) == 8 and category_name(r) == "straight_flush"


def test_strategy_paths_that_do_not_exist_are_named(tmp_path):
    with pytest.raises(CfrlabError, match="no such strategy file") as e:
        make_agent(str(tmp_path / "nope.npz"), "leduc")
    assert "\n" not in str(e.value)
    with pytest.raises(CfrlabError, match="is a directory"):
        make_agent(str(tmp_path), "leduc")
    path = tmp_path / "leduc.npz"
    Strategy.uniform("leduc").save(path)
    with pytest.raises(CfrlabError, match="no such abstraction file"):
        make_agent(f"{path}:abstraction={tmp_path / 'b5.npz'}", "leduc")
