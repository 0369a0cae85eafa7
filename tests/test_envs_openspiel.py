"""The environments' Kuhn and Leduc observations equal OpenSpiel's ``information_state_tensor``
for every player at every decision and terminal state of ``kuhn_poker`` and ``leduc_poker``
(2 players: all of them; 3 players: every state of Kuhn, Leduc's states on a sample of the cards)."""

from __future__ import annotations

import numpy as np
import pytest

from cfrlab.envs import Encoding
from cfrlab.games import load_game
from cfrlab.games.state import State

pyspiel = pytest.importorskip("pyspiel")


def _cfrlab_state(game, enc, os_game, os_state) -> State:
    """The rules engine's state at OpenSpiel's ``os_state``: OpenSpiel card i is ``enc.deck[i]``;
    Kuhn's pass is a check or a fold, its bet a raise or a call; Leduc's ids are fold, call, raise."""
    P = game.num_players
    history = [h.action for h in os_state.full_history()]
    replay = os_game.new_initial_state()
    private, board, actions = [], [], []
    for a in history:
        if replay.is_chance_node():
            (private if len(private) < P else board).append(a)
        else:
            actions.append(a)
        replay.apply_action(a)
    used = set(private) | set(board)
    missing = game.total_board_cards() - len(board)
    fill = [i for i in range(len(enc.deck)) if i not in used][:missing]
    state = State(game, [enc.deck[i] for i in private + board + fill])
    for a in actions:
        if enc.kind == "kuhn":
            facing = state.spent[state.current_player()] < state.max_spent
            text = ("f" if facing else "c") if a == 0 else ("c" if facing else "r")
        else:
            text = "fcr"[a]
        state.apply(text)
    return state


def _compare_all(name: str, os_name: str, deals_kept=None) -> int:
    game, os_game = load_game(name), pyspiel.load_game(os_name)
    enc = Encoding(game)
    assert enc.name == "openspiel" and enc.size == os_game.information_state_tensor_shape()[0]
    rng = np.random.default_rng(0)
    compared = 0

    def walk(s):
        nonlocal compared
        if s.is_chance_node():
            outcomes = [a for a, _ in s.chance_outcomes()]
            if deals_kept is not None:
                outcomes = list(rng.choice(outcomes, size=min(deals_kept, len(outcomes)), replace=False))
            for a in outcomes:
                walk(s.child(int(a)))
            return
        ours = _cfrlab_state(game, enc, os_game, s)
        assert ours.is_terminal() == s.is_terminal()
        pub = enc.public_of(ours)
        for p in range(game.num_players):
            want = np.array(s.information_state_tensor(p), dtype=np.float32)
            got = enc.observation(ours, p, pub)
            assert np.array_equal(got, want), (str(s), p, got.tolist(), want.tolist())
            compared += 1
        if not s.is_terminal():
            legal = [0, 1] if enc.kind == "kuhn" else [i for i, t in enumerate("fcr") if ours.is_legal(t)]
            assert s.legal_actions() == legal
            for a in s.legal_actions():
                walk(s.child(a))

    walk(os_game.new_initial_state())
    return compared


def test_kuhn_tensors_equal_openspiel_on_every_state():
    assert _compare_all("kuhn", "kuhn_poker") == 2 * 6 * 9  # 6 deals x 9 states (4 decisions, 5 ends)


def test_leduc_tensors_equal_openspiel_on_every_state():
    assert _compare_all("leduc", "leduc_poker") > 10_000


def test_three_player_kuhn_tensors_equal_openspiel_on_every_state():
    assert _compare_all("kuhn-3p", "kuhn_poker(players=3)") > 1_000


def test_three_player_leduc_tensors_equal_openspiel_on_sampled_deals():
    assert _compare_all("leduc-3p", "leduc_poker(players=3)", deals_kept=2) > 1_000
