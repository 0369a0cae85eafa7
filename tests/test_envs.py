"""The environments (cfrlab.envs) against the rules engine (``State``, the oracle) on random
play in every built-in game, the PettingZoo and Gymnasium API checkers, seeding, illegal
actions and the missing ``env`` extra."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from cfrlab.envs import BatchedEnv, Encoding
from cfrlab.envs.actions import ActionSet
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.games import BUILTIN_NAMES, load_game
from cfrlab.games.state import State

pettingzoo = pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from cfrlab.envs import PokerEnv, PokerGymEnv

GAMES = [g for g in BUILTIN_NAMES if g != "kuhn-N"] + ["kuhn-5"]
THREE_PLAYER_NOLIMIT = """GAMEDEF
nolimit
numPlayers = 3
numRounds = 2
stack = 12 9 15
blind = 2 1 0
firstPlayer = 3 1
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("games") / "short3.game"
    path.write_text(THREE_PLAYER_NOLIMIT)
    return str(path)


def _rules_legal(state: State, aset: ActionSet) -> list[str | None]:
    """What each id may play, from the rules engine's own answers only."""
    acpc = state.legal_actions()
    want: list[str | None] = [None] * aset.size
    want[1] = "c"
    want[0] = "f" if state.is_legal("f") else None
    if aset.game.is_limit:
        want[2] = "r" if "r" in acpc else None
    return want


def _check_against_rules(env: PokerEnv, rng, hands: int) -> None:
    aset = env.table.actions
    for h in range(hands):
        env.reset(seed=int(rng.integers(1 << 30)) if h == 0 else None)
        oracle = State(env.game, env.table.state.deal)
        for agent in env.agent_iter():
            obs, reward, term, _, _ = env.last()
            if term:
                assert oracle.is_terminal()
                assert reward == oracle.payoffs()[env.possible_agents.index(agent)]
                env.step(None)
                continue
            p = env.possible_agents.index(agent)
            assert p == oracle.current_player()
            mask = obs["action_mask"]
            want = _rules_legal(oracle, aset)
            assert bool(mask[0]) == (want[0] is not None) and mask[1] == 1
            if env.game.is_limit:
                assert bool(mask[2]) == (want[2] is not None)
            else:  # every legal raise id plays a legal amount; raises offered iff raising is legal
                texts = aset.legal(env.table.state)
                raises = [t for t, m in zip(texts[2:], mask[2:]) if m]
                assert bool(raises) == (oracle.raise_range() is not None)
                assert all(oracle.is_legal(t) for t in raises)
            ids = np.flatnonzero(mask)
            a = int(rng.choice(ids))
            oracle.apply(env.table.legal()[a])
            env.step(a)
        assert oracle.is_terminal()


@pytest.mark.parametrize("game", [*GAMES, "file"])
def test_pettingzoo_env_equals_the_rules_engine_on_random_hands(game, game_file):
    env = PokerEnv(game_file if game == "file" else game)
    _check_against_rules(env, np.random.default_rng(7), 40)


def _batched_against_rules(env: BatchedEnv, steps: int) -> int:
    enc, aset, n = env.encoding, env.actions, env.num_envs
    obs, mask, player = env.reset()
    states = [State(env.game, [int(c) for c in env.deals[i]]) for i in range(n)]
    hands = 0
    for _ in range(steps):
        acts = env.random_actions().copy()
        for i, s in enumerate(states):
            assert player[i] == s.current_player()
            assert np.array_equal(mask[i], aset.mask(s).astype(bool))
            assert np.array_equal(obs[i], enc.observation(s, s.current_player(), enc.public_of(s)))
        texts = [aset.legal(states[i])[acts[i]] for i in range(n)]
        obs, mask, player, rewards, done = env.step(acts)
        for i in range(n):
            states[i].apply(texts[i])
            assert done[i] == states[i].is_terminal()
            if done[i]:
                hands += 1
                assert rewards[i].tolist() == pytest.approx(states[i].payoffs(), abs=1e-4)
                states[i] = State(env.game, [int(c) for c in env.deals[i]])
    return hands


@pytest.mark.parametrize("game", [g for g in GAMES if g not in ("holdem-nolimit",)] + ["file"])
def test_batched_env_equals_the_rules_engine_on_random_hands(game, game_file):
    env = BatchedEnv(game_file if game == "file" else game, 6, seed=3)
    assert _batched_against_rules(env, 60) > 10


def test_batched_env_no_limit_holdem_with_a_small_bet_spec():
    env = BatchedEnv("holdem-nolimit", 4, bets="p,a", seed=5)
    assert env.num_actions == 4
    assert _batched_against_rules(env, 40) > 5


def test_batched_env_state_rebuilds_each_hand():
    env = BatchedEnv("leduc", 3, seed=1)
    env.reset()
    for _ in range(5):
        env.step(env.random_actions())
        for i in range(3):
            s = env.state(i)
            assert s.current_player() == env.player[i] and not s.is_terminal()


def test_batched_env_is_seeded_and_refuses_illegal_ids_without_moving():
    a, b = BatchedEnv("leduc", 8, seed=11), BatchedEnv("leduc", 8, seed=11)
    a.reset(), b.reset()
    for _ in range(20):
        ra, rb = a.random_actions().copy(), b.random_actions().copy()
        assert np.array_equal(ra, rb)
        oa, ob = a.step(ra)[0].copy(), b.step(rb)[0]
        assert np.array_equal(oa, ob) and np.array_equal(a.deals, b.deals)
    node = a.node.copy()
    bad = a.random_actions().copy()
    i = int(np.flatnonzero(~a.mask[:, 0])[0]) if (~a.mask[:, 0]).any() else 0
    bad[i] = 0 if not a.mask[i, 0] else 7
    with pytest.raises(IllegalActionError, match=f"hand {i}: action"):
        a.step(bad)
    assert np.array_equal(a.node, node)
    with pytest.raises(CfrlabError, match="one integer action id per hand"):
        a.step(np.zeros(3, np.int64))


@pytest.mark.parametrize("game", ["kuhn", "leduc", "leduc-3p", "holdem-limit", "holdem-nolimit", "leduc-nolimit"])
def test_pettingzoo_api_and_seed_tests_pass(game):
    api_test(PokerEnv(game), num_cycles=20)
    seed_test(lambda: PokerEnv(game), num_cycles=20)


def test_pettingzoo_spaces_are_fixed_and_the_rewards_are_chips():
    env = PokerEnv("leduc")
    env.reset(seed=0)
    assert env.observation_space("player_0")["observation"].shape == (30,)
    assert env.action_space("player_1").n == 3
    env.step(2)  # player 0 raises to 3
    env.step(0)  # player 1 folds: player 0 wins the ante
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())


def test_pettingzoo_illegal_action_raises_and_leaves_the_hand_or_plays_a_call():
    env = PokerEnv("leduc")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="action 0 is not legal for position 0"):
        env.step(0)  # fold when not facing a bet
    with pytest.raises(IllegalActionError, match="5 is not an action id"):
        env.step(5)  # outside the action space: not an action under any rule (tests/test_envs_faults.py)
    assert env.table.state.betting_string() == "" and env.agent_selection == "player_0"
    env = PokerEnv("leduc", illegal="call")
    env.reset(seed=0)
    env.step(0)
    assert env.table.state.betting_string() == "c"
    assert env.infos["player_0"]["illegal_action"] == 0


def test_no_limit_action_ids_are_the_bet_spec_sizes():
    env = PokerEnv("holdem-nolimit")
    env.reset(seed=1)
    assert env.table.actions.names == ("fold", "call", "0.5p", "p", "2p", "a")
    # position 1 (small blind, 50 in) acts first against the big blind's 100: the pot after
    # the call is 200, so half pot raises to 200, pot to 300, twice the pot to 500
    assert env.table.legal() == ["f", "c", "r200", "r300", "r500", "r20000"]
    env.step(3)
    assert env.table.state.betting_string() == "r300"
    full = PokerEnv("kuhn-nolimit", bets="fullgame")
    full.reset(seed=0)
    assert full.table.legal() == [None, "c", None, "r2", "r3", "r4"]
    with pytest.raises(CfrlabError, match="up to 1000 chips"):
        PokerEnv("holdem-nolimit", bets="fullgame")
    with pytest.raises(CfrlabError, match="limit game"):
        PokerEnv("leduc", bets="p,a")


def test_gymnasium_check_env_passes_and_an_episode_is_a_hand():
    check_env(PokerGymEnv("leduc", "random", illegal="call"))
    check_env(PokerGymEnv("kuhn-3p", ["always-raise", "random"], seat=2, illegal="call"))
    env = PokerGymEnv("kuhn", "always-raise", seat=1)
    obs, info = env.reset(seed=4)
    assert info["seat"] == 1 and obs["action_mask"].tolist() == [1, 1, 0]  # facing the bet
    obs, reward, terminated, truncated, _ = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)


def test_gymnasium_plays_any_agent_spec_and_alternates_seats(tmp_path):
    import cfrlab

    strategy = cfrlab.solve("kuhn", "cfr+", iterations=50).strategy
    strategy.save(tmp_path / "kuhn.npz")
    env = PokerGymEnv("kuhn", str(tmp_path / "kuhn.npz"), seat="alternate")
    obs, info = env.reset(seed=0)
    seats = []
    for _ in range(4):
        seats.append(info["seat"])
        terminated = False
        while not terminated:
            obs, _, terminated, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        obs, info = env.reset()
    assert seats == [0, 1, 0, 1]
    with pytest.raises(CfrlabError, match="seat must be"):
        PokerGymEnv("kuhn", "random", seat=2)
    with pytest.raises(CfrlabError, match="unknown agent"):
        PokerGymEnv("kuhn", "no-such-bot")


def test_gymnasium_illegal_action_raises():
    env = PokerGymEnv("leduc", "always-call")
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"][0] == 0
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(0)


def test_missing_extra_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    with pytest.raises(CfrlabError) as err:
        PokerEnv("leduc")
    assert str(err.value) == ("the environments need pettingzoo and gymnasium: pip install cfrlab[env] "
                              "(pettingzoo is missing)")
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    with pytest.raises(CfrlabError, match=r"pip install cfrlab\[env\]"):
        PokerGymEnv("leduc")


def test_encodings_are_named_and_sized():
    assert Encoding(load_game("kuhn")).size == 11 and Encoding(load_game("leduc")).size == 30
    assert Encoding(load_game("leduc"), "cfrlab").name == "cfrlab"
    with pytest.raises(CfrlabError, match="openspiel encoding is for"):
        Encoding(load_game("holdem-limit"), "openspiel")
    with pytest.raises(CfrlabError, match="unknown encoding"):
        Encoding(load_game("kuhn"), "pixels")
