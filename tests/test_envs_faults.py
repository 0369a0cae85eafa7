"""The environments' Python API under misuse (issue 43, item 8 and part of 10): calls out of
order, unknown agents, values that are not actions, bad indices, seeds and sizes each give one
clear ``CfrlabError`` line (with the builtin base PettingZoo or Python code expects), and the
Gymnasium environment passes ``check_env`` in every game and seat mode, its seeded resets
replaying exactly."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from cfrlab.envs import BatchedEnv
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.games import BUILTIN_NAMES, load_game

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env

from cfrlab.envs import PokerEnv, PokerGymEnv

GAMES = [g for g in BUILTIN_NAMES if g != "kuhn-N"] + ["kuhn-5"]
# values that are not an action id at all, whatever the illegal-action rule
NOT_ACTIONS = ["c", None, 1.5, math.nan, [1], (1,), True, np.bool_(True), 1.0, np.float64(1.0),
               np.array([1]), np.array(1.0), {"a": 1}]
# integers outside the action space (Leduc's ids are 0, 1, 2)
OUT_OF_SPACE = [-1, 3, 10**30, np.int64(-5), np.uint64(2**63)]


# -- PettingZoo: order of calls, agents ------------------------------------------------------
@pytest.mark.parametrize("call", ["step", "observe", "last"])
def test_pettingzoo_calls_before_reset_ask_for_reset(call):
    env = PokerEnv("leduc")
    do = {"step": lambda: env.step(1), "observe": lambda: env.observe("player_0"), "last": env.last}[call]
    with pytest.raises(CfrlabError, match=r"call reset\(\) first") as err:
        do()
    assert isinstance(err.value, RuntimeError) and "\n" not in str(err.value)


def test_pettingzoo_unknown_agent_is_a_key_error_naming_the_agents():
    env = PokerEnv("leduc")
    env.reset(seed=0)
    for call in (lambda: env.observe("bob"), lambda: env.observation_space("bob"), lambda: env.action_space(3)):
        with pytest.raises(CfrlabError) as err:
            call()
        assert isinstance(err.value, KeyError)  # what PettingZoo's dict lookups raise
        assert "unknown agent" in str(err.value) and "player_0, player_1" in str(err.value)
        assert not str(err.value).startswith("'")  # one readable line, not KeyError's quoted repr


def test_pettingzoo_stepping_after_the_hand_is_over():
    env = PokerEnv("leduc")
    env.reset(seed=0)
    env.step(2)
    env.step(0)  # player 1 folds: the hand is over, both agents terminated
    dead = env.agent_selection
    with pytest.raises(IllegalActionError, match="hand is over.*None") as err:
        env.step(1)  # PettingZoo's rule: a terminated agent steps with None (a ValueError)
    assert isinstance(err.value, ValueError) and env.agent_selection == dead
    env.step(None)
    env.step(None)
    assert env.agents == []
    for call in (lambda: env.step(1), lambda: env.step(None), env.last):
        with pytest.raises(CfrlabError, match=r"hand is over.*call reset\(\)"):
            call()
    env.reset(seed=0)  # and the environment plays on
    env.step(1)
    assert env.table.state.betting_string() == "c"


# -- values that are not actions -------------------------------------------------------------
@pytest.mark.parametrize("rule", ["raise", "call"])
@pytest.mark.parametrize("value", NOT_ACTIONS + OUT_OF_SPACE, ids=repr)
def test_a_value_that_is_not_an_action_is_refused_under_every_rule(value, rule):
    env = PokerEnv("leduc", illegal=rule)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not an action id") as err:
        env.step(value)
    assert "0 fold, 1 call, 2 raise" in str(err.value) and "\n" not in str(err.value)
    assert env.table.state.betting_string() == "" and env.agent_selection == "player_0"
    gym = PokerGymEnv("leduc", "always-call", illegal=rule)
    gym.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not an action id"):
        gym.step(value)
    assert gym.table.state.betting_string() == ""


@pytest.mark.parametrize("value", [1, np.int64(1), np.int8(1), np.array(1), np.uint8(1)], ids=repr)
def test_integer_ids_of_any_integer_type_are_actions(value):
    env = PokerEnv("leduc")
    env.reset(seed=0)
    env.step(value)
    assert env.table.state.betting_string() == "c"


def test_the_call_rule_still_maps_a_legal_typed_illegal_id_to_a_call():
    env = PokerGymEnv("leduc", "always-call", illegal="call")
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.int64(0))  # fold, not facing a bet: illegal, an action id
    assert info["illegal_action"] == 0 and env.table.state.betting_string().startswith("cc")


# -- constructor arguments -------------------------------------------------------------------
@pytest.mark.parametrize("game", ["leduc", "holdem-nolimit"])
@pytest.mark.parametrize("bets", [123, ["p"], b"p,a"], ids=repr)
def test_a_bet_spec_that_is_not_text_is_one_line(game, bets):
    for make in (lambda: PokerEnv(game, bets=bets), lambda: PokerGymEnv(game, bets=bets),
                 lambda: BatchedEnv(game, 2, bets=bets)):
        with pytest.raises(CfrlabError, match="bets must be a bet spec"):
            make()


def test_gymnasium_seat_must_be_a_position_not_a_bool():
    with pytest.raises(CfrlabError, match="seat must be"):
        PokerGymEnv("leduc", seat=True)


@pytest.mark.parametrize("seed", ["x", -1, 1.5, True, [1, -2]], ids=repr)
def test_a_bad_seed_is_one_line(seed):
    with pytest.raises(CfrlabError, match="seed must be"):
        PokerEnv("leduc").reset(seed=seed)
    with pytest.raises(CfrlabError, match="seed must be"):
        BatchedEnv("leduc", 2, seed=seed)
    env = BatchedEnv("leduc", 2, seed=0)
    with pytest.raises(CfrlabError, match="seed must be"):
        env.reset(seed=seed)


def test_gymnasium_bad_seed_follows_gymnasium():
    # Gymnasium's Env.reset checks the seed itself (gymnasium.error.Error): its convention
    with pytest.raises(gymnasium.error.Error):
        PokerGymEnv("leduc").reset(seed=-1)


# -- Gymnasium: order of calls ---------------------------------------------------------------
def test_gymnasium_step_before_reset_and_after_the_hand():
    env = PokerGymEnv("kuhn", "always-raise", seat=1)
    with pytest.raises(CfrlabError, match=r"call reset\(\) first") as err:
        env.step(1)
    assert isinstance(err.value, RuntimeError)
    env.reset(seed=0)
    *_, terminated, _, _ = env.step(0)
    assert terminated
    with pytest.raises(CfrlabError, match=r"hand is over: call reset\(\)"):
        env.step(1)


def _episodes(env, seed: int, hands: int) -> list:
    """(seat, observations, rewards) of ``hands`` hands from ``reset(seed=seed)``, playing the
    lowest legal id."""
    out = []
    obs, info = env.reset(seed=seed)
    for _ in range(hands):
        seen, rewards, terminated = [obs["observation"].tolist()], [], False
        while not terminated:
            obs, reward, terminated, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
            seen.append(obs["observation"].tolist())
            rewards.append(reward)
        out.append((info["seat"], seen, rewards))
        obs, info = env.reset()
    return out


@pytest.mark.parametrize("game", ["kuhn", "leduc-3p"])
def test_gymnasium_alternate_seat_seeded_resets_replay_exactly(game):
    env = PokerGymEnv(game, "random", seat="alternate")
    first = _episodes(env, 5, 6)
    again = _episodes(env, 5, 6)  # same environment, hands already played: the counter restarts
    assert first == again
    assert [s for s, _, _ in first] == [h % load_game(game).num_players for h in range(6)]
    assert _episodes(PokerGymEnv(game, "random", seat="alternate"), 5, 6) == first


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_passes_for_every_seat_mode(game):
    seats = [*range(load_game(game).num_players), "alternate"]
    for seat in seats:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the checker's note about render modes
            check_env(PokerGymEnv(game, "random", seat=seat, illegal="call"))


# -- the batched environment -----------------------------------------------------------------
def test_batched_calls_before_reset_ask_for_reset():
    env = BatchedEnv("leduc", 4, seed=0)
    for call in (lambda: env.step(np.ones(4, np.int64)), env.random_actions, lambda: env.state(0)):
        with pytest.raises(CfrlabError, match=r"call reset\(\) first"):
            call()


@pytest.mark.parametrize("index", [4, 10, -1, -5, "a", 1.5, None, True, np.int64(7)], ids=repr)
def test_batched_state_index_out_of_range_or_not_an_index(index):
    env = BatchedEnv("leduc", 4, seed=0)
    env.reset()
    with pytest.raises(CfrlabError, match=r"hand index must be an integer 0\.\.3") as err:
        env.state(index)
    assert isinstance(err.value, IndexError)
    assert env.state(np.int64(3)).current_player() == env.player[3]


def test_batched_step_names_the_value_it_was_given():
    env = BatchedEnv("leduc", 2, seed=0)
    env.reset()
    with pytest.raises(IllegalActionError, match=f"action {2**63} is not legal"):
        env.step(np.full(2, 2**63, np.uint64))


@pytest.mark.parametrize("num_envs", [True, np.bool_(True), 0, -3, 2.0, "8"], ids=repr)
def test_batched_num_envs_must_be_a_positive_integer(num_envs):
    with pytest.raises(CfrlabError, match="num_envs must be a positive integer"):
        BatchedEnv("leduc", num_envs)


def test_batched_num_envs_past_the_memory_is_refused_naming_it():
    with pytest.raises(CfrlabError) as err:
        BatchedEnv("leduc", 10**12)
    msg = str(err.value)
    per_hand = 30 * 4 + 3 + 6 * 8  # at least: the observation, the mask and the deck of every hand
    assert "num_envs=1,000,000,000,000" in msg and "bytes per hand" in msg and "\n" not in msg
    need = float(msg.split("about ")[1].split(" TB")[0].replace(",", ""))
    assert need * 2**40 >= 10**12 * per_hand
    most = int(msg.split("give num_envs ")[1].split(" ")[0].replace(",", ""))
    env = BatchedEnv("leduc", min(most, 64))  # the bound it names is a size that is made
    assert env.num_envs == min(most, 64)
