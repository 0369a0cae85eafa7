"""The public betting tree: exact node counts, preorder, betting strings, pot contributions."""

import numpy as np
import pytest
from game_texts import THREE_ROUNDS

from cfrlab import known_values
from cfrlab.errors import CfrlabError
from cfrlab.games.builtins import load_game
from cfrlab.games.gamedef import parse_game
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN, build_tree, node_of_betting


@pytest.fixture(scope="module")
def hulhe():
    return build_tree(load_game("holdem-limit"))


def test_hulhe_decision_nodes(hulhe):
    assert hulhe.num_decisions == known_values.HULHE_DECISION_NODES
    assert tuple(hulhe.decisions_by_round()) == known_values.HULHE_DECISION_NODES_BY_ROUND


def test_kuhn_tree_exact():
    t = build_tree(load_game("kuhn"))
    assert t.betting == ["", "c", "cc", "cr", "crf", "crc", "r", "rf", "rc"]
    assert t.kind.tolist() == [DECISION, DECISION, SHOWDOWN, DECISION, FOLD, SHOWDOWN, DECISION, FOLD, SHOWDOWN]
    assert t.player.tolist() == [0, 1, -1, 0, 0, -1, 1, 1, -1]
    assert t.legal.tolist() == [[False, True, True], [False, True, True], [True, True, False], [True, True, False]]
    assert t.spent[node_of_betting(t, "crc")].tolist() == [2, 2]
    assert t.spent[node_of_betting(t, "rf")].tolist() == [2, 1]


def test_leduc_counts():
    t = build_tree(load_game("leduc"))
    assert t.decisions_by_round() == [6, 30]
    # 6 round-0 decisions x 6 cards + 30 round-1 decisions x 30 (card, board) = 936 infosets
    assert 6 * 6 + 30 * 30 == known_values.LEDUC_INFOSETS
    n = node_of_betting(t, "rc")
    assert t.kind[n] == CHANCE and t.round[n] == 0
    c = t.children(n)
    assert len(c) == 1 and t.betting[c[0]] == "rc/" and t.action[c[0]] == -1 and t.round[c[0]] == 1
    assert t.spent[node_of_betting(t, "rrc/rrc")].tolist() == [13, 13]
    with pytest.raises(CfrlabError):
        node_of_betting(t, "rrr")


@pytest.mark.parametrize("name", ["kuhn", "leduc", "holdem-limit"])
def test_structure_invariants(name):
    t = build_tree(load_game(name))
    n = t.num_nodes
    assert t.parent[0] == -1
    assert np.all(t.parent[1:] < np.arange(1, n))  # preorder: parent first
    for v in range(n):
        ch = t.children(v)
        if t.kind[v] == DECISION:
            d = t.decision[v]
            assert t.decision_node[d] == v
            assert [t.action[c] for c in ch] == list(np.flatnonzero(t.legal[d]))
            for c in ch:
                assert t.betting[c] == t.betting[v] + "fcr"[t.action[c]]
        elif t.kind[v] == CHANCE:
            assert len(ch) == 1 and t.round[ch[0]] == t.round[v] + 1
        else:
            assert len(ch) == 0
        if t.kind[v] == SHOWDOWN:
            assert t.spent[v, 0] == t.spent[v, 1]
            assert t.round[v] == t.num_rounds - 1
        if t.kind[v] == FOLD:
            p = t.player[v]
            assert t.spent[v, p] < t.spent[v, 1 - p]
        for c in ch:
            assert t.parent[c] == v
        assert t.node_of_betting[t.betting[v]] == v
    assert len(t.node_of_betting) == n


def test_hulhe_blinds_and_first_player(hulhe):
    t = hulhe
    assert t.player[0] == 1  # the small blind (position 1) opens preflop
    assert t.spent[0].tolist() == [10, 5]
    assert t.legal[0].tolist() == [True, True, True]
    flop = node_of_betting(t, "cc/")
    assert t.player[flop] == 0
    # preflop: 3 raises at most (blinds do not count), so "rrr" cannot raise again
    d = t.decision[node_of_betting(t, "rrr")]
    assert t.legal[d].tolist() == [True, True, False]
    assert t.spent[node_of_betting(t, "rrrc")].tolist() == [40, 40]


def test_custom_game_and_refusals():
    t = build_tree(parse_game(THREE_ROUNDS))
    # per round: 4 decisions per continuing line; 3 lines continue each round (cc, crc, rc)
    assert t.decisions_by_round() == [4, 12, 36]
    with pytest.raises(CfrlabError, match="betting abstraction"):
        build_tree(load_game("holdem-nolimit"))
    assert build_tree(load_game("kuhn-3p")).num_decisions == 12
