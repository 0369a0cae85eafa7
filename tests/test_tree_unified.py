"""The one public tree (cfrlab.tree) for every game: 2 to N players, limit and no-limit.

Oracles: the rules engine (every decision's columns are exactly its legal actions, replayed
from the betting string), the size count made without building (two independent counts for
limit games), OpenSpiel's universal_poker ("fullgame": every amount an action) for the
decisions of a no-limit Leduc, and the known figures (HULHE 6,378 decisions)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cfrlab.errors import CfrlabError
from cfrlab.games import State, load_game, parse_game
from cfrlab.tree import CHANCE, DECISION, FOLD, SHOWDOWN, build_tree
from cfrlab.tree.betting_tree import _count_by_states, all_raises, count_tree


def nolimit_leduc(stack: int) -> str:
    return f"""GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = {stack} {stack}
blind = 1 1
firstPlayer = 1 1
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


NOLIMIT_3P = """GAMEDEF
nolimit
numPlayers = 3
numRounds = 1
stack = 4 5 6
blind = 1 2 0
firstPlayer = 3
numSuits = 1
numRanks = 4
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""


def replay(game, betting: str) -> State:
    """The rules engine's state after an ACPC betting string."""
    st = State(game, seed=0)
    for a in re.findall(r"f|c|r\d*", betting.replace("/", "")):
        st.apply(a)
    return st


GAMES = ["kuhn", "leduc", "kuhn-3p", "leduc-3p", nolimit_leduc(3), nolimit_leduc(7), NOLIMIT_3P]


@pytest.mark.parametrize("spec", GAMES)
def test_every_node_agrees_with_the_rules_engine(spec):
    g = load_game(spec) if "\n" not in spec else parse_game(spec)
    t = build_tree(g)
    assert t.num_players == g.num_players and t.spent.shape == (t.num_nodes, g.num_players)
    for n in range(t.num_nodes):
        st = replay(g, t.betting[n])
        assert list(t.spent[n]) == list(st.spent) and list(t.folded[n]) == list(st.folded)
        k = t.kind[n]
        if k == DECISION:
            assert st.current_player() == t.player[n] and st.round == t.round[n]
            d = t.decision[n]
            texts = [t.action_text(n, a) for a in np.flatnonzero(t.legal[d])]
            want = ["f"] if st.is_legal("f") else []
            want += ["c"] + (["r"] if g.is_limit and st.raise_range() else
                             [f"r{x}" for x in all_raises(st)] if not g.is_limit else [])
            assert texts == want
            for c in t.children(n):  # children in column order, each one action further
                assert t.parent[c] == n and t.depth[c] == t.depth[n] + 1
        elif k in (FOLD, SHOWDOWN):
            assert st.is_terminal() and st.is_showdown() == (k == SHOWDOWN)
        else:
            assert k == CHANCE and t.num_children[n] == 1
    # preorder events: every node entered once and left once, a child inside its parent
    ev = t.events
    assert sorted(ev[ev >= 0].tolist()) == list(range(t.num_nodes))
    assert sorted((-ev[ev < 0] - 1).tolist()) == list(range(t.num_nodes))


@pytest.mark.parametrize("spec", GAMES + ["holdem-limit"])
def test_the_count_made_without_building_is_exact(spec):
    g = load_game(spec) if "\n" not in spec else parse_game(spec)
    t = build_tree(g)
    c = count_tree(g)
    assert c.nodes == t.num_nodes and c.decisions == t.num_decisions
    assert c.betting_chars == sum(len(b) for b in t.betting) and c.depth == t.max_depth
    by_kind = tuple(tuple(int(np.sum((t.kind == k) & (t.round == r))) for r in range(g.num_rounds))
                    for k in range(4))
    assert c.by_kind == by_kind
    if spec == "holdem-limit":
        assert t.decisions_by_round() == [8, 70, 630, 5670]
        # the closed form (2-player limit) and the walk over betting states agree
        s = _count_by_states(g, None, 10**6)
        assert (s.by_kind, s.betting_chars, s.depth) == (c.by_kind, c.betting_chars, c.depth)


def test_nolimit_leduc_columns_and_run_out():
    g = parse_game(nolimit_leduc(7))
    t = build_tree(g)
    assert t.num_decisions == 592 and t.num_actions == 8  # f, c, raise to 2..7
    assert t.bets == "fullgame"
    root = 0
    assert [t.action_text(root, a) for a in np.flatnonzero(t.legal[0])] == \
        ["c", "r2", "r3", "r4", "r5", "r6", "r7"]
    # all-in called in round 0: the board is run out, one chance node, then the showdown
    n = t.node_of_betting["r7c"]
    assert t.kind[n] == CHANCE and t.round[n] == 0
    sd = t.children(n)[0]
    assert t.kind[sd] == SHOWDOWN and t.betting[sd] == "r7c/" and t.round[sd] == 1
    assert t.raise_to[t.node_of_betting["r7"]] == 7 and t.spent[sd].tolist() == [7, 7]


def test_a_betting_abstraction_chooses_the_amounts():
    g = parse_game(nolimit_leduc(7))

    def pot_and_all_in(st):
        return [st.max_spent + st.pot, g.stack[st.current_player()], 10**6]  # 10**6: dropped

    t = build_tree(g, pot_and_all_in, bets="pa")
    assert t.bets == "pa" and t.num_actions == 4
    assert [t.action_text(0, a) for a in np.flatnonzero(t.legal[0])] == ["c", "r3", "r7"]
    assert count_tree(g, pot_and_all_in).nodes == t.num_nodes


def test_nolimit_leduc_matches_openspiel_fullgame():
    pyspiel = pytest.importorskip("pyspiel")
    params = {"betting": "nolimit", "numPlayers": 2, "numRounds": 2, "stack": "7 7",
              "blind": "1 1", "firstPlayer": "1 1", "numSuits": 2, "numRanks": 3,
              "numHoleCards": 1, "numBoardCards": "0 1", "bettingAbstraction": "fullgame"}
    game = pyspiel.load_game("universal_poker", params)
    seen: set[str] = set()

    def walk(s):
        if s.is_terminal():
            return
        if s.is_chance_node():
            return walk(s.child(s.chance_outcomes()[0][0]))
        seen.add(re.search(r"STATE:\d+:([^:]*):", str(s)).group(1))
        for a in s.legal_actions():
            walk(s.child(a))

    walk(game.new_initial_state())
    t = build_tree(parse_game(nolimit_leduc(7)))
    ours = {t.betting[n] for n in t.decision_node}
    assert ours == seen and len(ours) == 592


def test_deep_nolimit_is_refused_quickly_with_a_pointer():
    with pytest.raises(CfrlabError, match=r"19,801 raise amounts.*betting abstraction"):
        build_tree(load_game("holdem-nolimit"))
