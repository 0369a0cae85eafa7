"""Depth-limited solving (cfrlab.subgame.depth): exact leaf values, the full re-solve when the
depth reaches past the end, the blueprint-locked game when k = 1, the search agent's safety."""

import json
from functools import lru_cache

import numpy as np
import pytest
from cli_run import run
from game_texts import holdem_text

import cfrlab
from cfrlab.agents.registry import make_agent
from cfrlab.cards.cards import card_text
from cfrlab.engine import expected_value
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.match import play_match
from cfrlab.games import load_game, parse_game
from cfrlab.games.matchstate import parse_match_state
from cfrlab.spot.lock import LockedRows, LockedSolver
from cfrlab.strategy import Strategy
from cfrlab.subgame import resolve_strategy
from cfrlab.subgame.cut import blueprint_of
from cfrlab.subgame.depth import (
    BIASES,
    Leaves,
    _ends,
    biased,
    continuations,
    depth_limited_strategy,
    leaf_tables,
    root_family,
    root_ranges,
    truncate,
)
from cfrlab.subgame.local import family_sigma
from cfrlab.subgame.methods import family_values
from cfrlab.subgame.search_agent import SearchAgent

LEDUC = load_game("leduc")


@lru_cache(maxsize=4)
def leduc(iterations: int):
    return cfrlab.solve("leduc", "cfr", iterations=iterations).strategy


def later_rows(bp, player: int | None) -> np.ndarray:
    """The policy rows of decisions after the first round (of ``player`` only, if given)."""
    tree, off = bp.tree, bp.engine.row_offset
    rows = np.zeros(int(off[-1]), dtype=bool)
    for d, n in enumerate(tree.decision_node):
        if tree.round[n] >= 1 and (player is None or tree.player[n] == player):
            rows[off[d]:off[d + 1]] = True
    return rows


def test_biased_rows_are_distributions_that_favour_their_kind():
    bp = blueprint_of(leduc(30))
    legal = bp.engine.legal[bp.engine.decision_of_row]
    for kind, cols in (("fold", [0]), ("call", [1]), ("raise", [2])):
        pol = biased(bp.policy, legal, kind, 5.0)
        assert np.allclose(pol.sum(axis=1), 1.0) and np.all(pol[~legal] == 0)
        mixed = (bp.policy[:, cols[0]] > 0) & (bp.policy[:, cols[0]] < 1)
        assert np.all(pol[mixed, cols[0]] > bp.policy[mixed, cols[0]])
    assert biased(bp.policy, legal, "blueprint", 5.0) is bp.policy


@pytest.mark.parametrize("actions", [None, 2])
@pytest.mark.parametrize("searcher", [0, 1])
def test_leaf_tables_are_exact(searcher, actions):
    """With the opponent held to continuation j at every leaf, the truncated walk's value of
    the blueprint above the leaves is the engine's expected value of the full profile: the
    searcher's blueprint everywhere, the opponent's continuation j from every leaf down. Leaves
    at the flop's chance nodes, and with a depth of two actions also at decisions of the first
    round (valued at the decision itself)."""
    bp = blueprint_of(leduc(30))
    fam = root_family(bp)
    short, leaves = truncate(fam, 1, actions)
    kinds = {int(fam.kind[m]) for m in leaves.values()}
    assert short.size < fam.size and kinds == ({1} if actions is None else {0, 1})
    assert actions is not None or len(leaves) == 5
    conts = continuations(bp, len(BIASES), 5.0)
    tabs = Leaves(fam, leaves, leaf_tables(bp, fam, leaves, conts, searcher), searcher)
    sigma = family_sigma(short, bp.policy, bp.engine.row_offset)
    end, off = _ends(fam), bp.engine.row_offset
    below = np.zeros(int(off[-1]), dtype=bool)  # the opponent's rows from a leaf down
    for m in leaves.values():  # the root family's local ids are the tree's nodes
        for n in range(m, int(end[m])):
            d = int(bp.tree.decision[n])
            if d >= 0 and bp.tree.player[n] != searcher:
                below[off[d]:off[d + 1]] = True
    if actions is None:
        assert np.array_equal(below, later_rows(bp, 1 - searcher))
    for j, cont in enumerate(conts):
        tabs.fixed = j
        v0 = family_values(short, sigma, root_ranges(short).reach, 0, leaves=tabs).sum()
        pol = bp.policy.copy()
        pol[below] = cont[below]
        assert v0 == pytest.approx(expected_value(bp.tree, bp.model, pol, pol), abs=1e-12)


@pytest.mark.parametrize("method", ["resolve", "unsafe"])
def test_a_depth_past_the_end_is_the_full_resolve(method):
    s = leduc(30)
    full = resolve_strategy(s, method, round=1, iterations=40)
    for depth in (1, 3):
        r = depth_limited_strategy(s, round=1, depth=depth, method=method, iterations=40)
        assert r.leaves == 0
        assert np.array_equal(r.strategy.policy, full.strategy.policy)
    r = depth_limited_strategy(s, depth=2, iterations=300)  # the whole game from its root
    assert r.leaves == 0 and r.exploitability() < 0.01


def test_k1_solves_the_game_with_the_blueprint_below_the_depth():
    """k = 1: both players continue with the blueprint after the first round, so the
    depth-limited solve is the game whose later rows are locked to the blueprint. The engine's
    compiled CFR+ with those rows locked (an independent solver on the full tree, the same
    update rule) gives the same strategy at the same iteration, to rounding."""
    s = leduc(30)
    bp = blueprint_of(s)
    r = depth_limited_strategy(s, depth=1, k=1, iterations=300)
    assert r.leaves == 5
    rows = np.flatnonzero(later_rows(bp, None))
    assert np.array_equal(r.strategy.policy[rows], bp.policy[rows])
    locked = LockedSolver(bp.tree, bp.model, "cfr+", LockedRows(rows, bp.policy[rows]))
    locked.iterate(300)
    lp = locked.average_policy()
    assert np.allclose(r.strategy.policy, lp, rtol=0, atol=1e-12)
    assert expected_value(bp.tree, bp.model, lp, lp) != pytest.approx(
        expected_value(bp.tree, bp.model, bp.policy, bp.policy), abs=1e-3)  # the re-solve moved


def test_the_search_agent_plays_every_round_and_a_gadget_keeps_it_safer_than_unsafe():
    s = leduc(300)
    safe = depth_limited_strategy(s, depth=1, k=4, iterations=150, nested=True)
    unsafe = depth_limited_strategy(s, depth=1, k=4, iterations=150, nested=True, next_method="unsafe")
    bp = blueprint_of(s)
    rows = later_rows(bp, None)
    assert not np.array_equal(safe.strategy.policy[rows], bp.policy[rows])
    assert safe.strategy.header["params"]["nested"] is True
    assert safe.exploitability() < unsafe.exploitability()


@pytest.mark.parametrize("kwargs, words", [
    ({"depth": 0}, "depth must be"),
    ({"k": 0}, "k must be"),
    ({"k": 5}, "k is at most 4"),
    ({"factor": 1.0}, "above 1"),
    ({"factor": "x"}, "must be a number"),
    ({"round": 2}, "round must be 0 to 1"),
    ({"method": "resolve"}, "re-solved 'unsafe'"),
    ({"next_method": "best"}, "unknown subgame method"),
])
def test_bad_input_is_one_line(kwargs, words):
    with pytest.raises(CfrlabError, match=words) as e:
        depth_limited_strategy(leduc(30), **kwargs)
    assert "\n" not in str(e.value)


def test_cli_search_prints_both_exploitabilities_saves_and_refuses_in_one_line(tmp_path, capsys):
    bp = tmp_path / "bp.npz"
    leduc(30).save(bp)
    out = tmp_path / "search.npz"
    code, stdout, err = run(capsys, "search", str(bp), "-n", "20", "--k", "2", "-o", str(out), "--json")
    assert code == 0, err
    summary = json.loads(stdout.strip().splitlines()[-1])
    s = Strategy.load(str(out))
    assert summary["exploitability"] == pytest.approx(s.exploitability(), abs=1e-12)
    assert summary["blueprint_exploitability"] == pytest.approx(leduc(30).exploitability(), abs=1e-12)
    assert s.header["params"]["k"] == 2 and s.header["params"]["nested"] is True
    for args, words in ((["--depth", "0"], "depth must be"), (["--next-method", "x"], "unknown subgame method"),
                        (["--game", "kuhn"], "not for kuhn")):
        code, stdout, err = run(capsys, "search", str(bp), *args)
        assert code != 0 and stdout == "" and "Traceback" not in err
        assert words in err and len(err.strip().splitlines()) == 1, err


# -- the live agent ---------------------------------------------------------------------------
def _info_sets(strategy):
    """(node, state) for every information set of ``strategy``'s lossless rows."""
    bp = blueprint_of(strategy)
    for node in bp.tree.decision_node:
        for st in range(int(bp.model.num_states[int(bp.tree.round[node])])):
            yield int(node), st


def _view(strategy, game, node: int, st: int):
    """(the match state of that information set, its policy row)."""
    bp = blueprint_of(strategy)
    tree = bp.tree
    rnd, pos, d = int(tree.round[node]), int(tree.player[node]), int(tree.decision[node])
    hole, board = bp.model.state_cards(rnd, st)
    h = "".join(card_text(c) for c in hole)
    cards = (h + "|") if pos == 0 else ("|" + h)
    at = 0
    for r in range(1, rnd + 1):  # one segment per round's board cards
        n = game.num_board_cards[r]
        cards += "/" + "".join(card_text(c) for c in board[at:at + n])
        at += n
    return parse_match_state(game, f"MATCHSTATE:{pos}:0:{tree.betting[node]}:{cards}"), bp.engine.row_offset[d] + st


def test_the_live_agent_plays_the_written_out_strategy_at_every_information_set():
    s = leduc(100)
    written = depth_limited_strategy(s, depth=1, k=2, iterations=50, nested=True).strategy.policy
    agent = SearchAgent(s, depth=1, k=2, iterations=50)
    count = 0
    for node, st in _info_sets(s):
        v, row = _view(s, LEDUC, node, st)
        assert np.allclose(agent.distribution(v), written[row], rtol=0, atol=1e-9)
        count += 1
    assert count == len(written) == 936
    boards = int(blueprint_of(s).engine.num_blocks(1))
    assert len(agent.log) == 2 * (1 + 5 * boards)  # kept: the root, then each (leaf, board) once a seat


def test_the_live_agent_on_three_rounds_chains_its_solves():
    """A 3-round game at depth 1: the flop solve on the board seen, then the turn solve below its
    leaf; sampled information sets of every round match the written-out strategy."""
    g = parse_game(holdem_text(4, 2, "0 2 1", "2 2 2"), name="holdem-4x2")
    s = cfrlab.solve(g, "cfr+", iterations=20).strategy
    written = depth_limited_strategy(s, depth=1, k=2, iterations=8, nested=True).strategy.policy
    agent = SearchAgent(s, depth=1, k=2, iterations=8)
    sets = list(_info_sets(s))
    rng = np.random.default_rng(5)
    first = [i for i, (node, _) in enumerate(sets) if s.tree.round[node] == 0]
    rounds = set()
    for i in [*first[::7], *rng.choice(len(sets), 40, replace=False)]:
        v, row = _view(s, g, *sets[i])
        assert np.allclose(agent.distribution(v), written[row], rtol=0, atol=1e-9)
        rounds.add(v.round)
    assert rounds == {0, 1, 2}


def test_a_live_search_match_lands_in_the_ci_of_its_exact_value(tmp_path):
    s = leduc(100)
    r = depth_limited_strategy(s, depth=1, k=2, iterations=50, nested=True)
    path = tmp_path / "bp.npz"
    s.save(path)
    agent = make_agent(f"search:{path}:k=2,iterations=50,time=0", LEDUC, seed=1)
    assert isinstance(agent, SearchAgent) and agent.k == 2 and agent.seconds == 0
    m = play_match(LEDUC, agent, make_agent(str(path), LEDUC), 3000, seed=11, duplicate=True).summary()
    bp = blueprint_of(s)
    exact = 0.5 * (expected_value(bp.tree, bp.model, r.strategy.policy, bp.policy)
                   - expected_value(bp.tree, bp.model, bp.policy, r.strategy.policy))
    assert abs(m["mean_chips"] - exact) < m["ci95_chips"], (m["mean_chips"], m["ci95_chips"], exact)


@pytest.mark.parametrize("spec, words", [
    ("search:", "a search agent is"),
    ("search:{bp}:kk=2", "unknown option 'kk=2'"),
    ("search:{bp}:k=x", "whole numbers"),
    ("search:{bp}:k=9", "k is at most 4"),
    ("search:{bp}:method=nope", "unknown subgame method"),
    ("search:nothere.npz", "no such strategy file"),
    ("search:{bp}:time=0.000001", "below one iteration of the first solve"),
])
def test_bad_search_specs_are_one_line(tmp_path, capsys, spec, words):
    path = tmp_path / "bp.npz"
    leduc(30).save(path)
    code, _out, err = run(capsys, "match", "leduc", spec.format(bp=path), str(path), "-n", "2")
    assert code != 0 and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


# -- continual re-solving ---------------------------------------------------------------------
def test_continual_resolving_with_exact_leaves_reaches_kuhns_value():
    """Kuhn: the root solved, then a gadget re-solve at each own decision to the end of the game;
    the written-out strategy's exploitability falls with the iterations, and its value is the
    game's -1/18 within that exploitability."""
    s = cfrlab.solve("kuhn", "cfr", iterations=10).strategy
    errs = []
    for n in (50, 1000):
        r = depth_limited_strategy(s, depth=5, iterations=n, continual=True)
        ps = r.strategy
        e = r.exploitability()
        assert abs(expected_value(ps.tree, ps.model, ps.policy, ps.policy) + 1 / 18) <= e
        assert ps.header["params"]["continual"] is True
        errs.append(e)
    assert errs[1] < errs[0] / 10 and errs[1] < 5e-4 and len(r.solves) == 5  # 1 + 2 + 2 decisions re-solved


def test_continual_resolving_with_exact_leaves_approaches_leducs_equilibrium():
    s = leduc(100)
    a = depth_limited_strategy(s, depth=2, iterations=50, continual=True)
    b = depth_limited_strategy(s, depth=2, iterations=200, continual=True)
    assert b.exploitability() < a.exploitability() / 5 and b.exploitability() < 0.01
    assert b.exploitability() < s.exploitability() / 20


@pytest.mark.parametrize("depth, k", [(2, 1), (1, 2)])
def test_the_live_continual_agent_plays_the_written_out_strategy(depth, k):
    s = leduc(100)
    written = depth_limited_strategy(s, depth=depth, k=k, iterations=20, continual=True).strategy.policy
    agent = SearchAgent(s, depth=depth, k=k, iterations=20, continual=True)
    for node, st in _info_sets(s):
        v, row = _view(s, LEDUC, node, st)
        assert np.allclose(agent.distribution(v), written[row], rtol=0, atol=1e-9)


# -- a depth in actions -------------------------------------------------------------------------
def test_a_depth_in_actions_past_every_path_changes_nothing():
    s = leduc(30)
    a = depth_limited_strategy(s, depth=1, k=2, iterations=20, nested=True)
    b = depth_limited_strategy(s, depth=1, k=2, iterations=20, nested=True, actions=50)
    assert np.array_equal(a.strategy.policy, b.strategy.policy)


@pytest.mark.parametrize("continual", [False, True])
def test_the_live_agent_with_a_depth_in_actions_plays_the_written_out_strategy(continual):
    s = leduc(100)
    r = depth_limited_strategy(s, depth=1, k=2, iterations=20, nested=True, continual=continual, actions=2)
    assert r.strategy.header["params"]["actions"] == 2
    agent = SearchAgent(s, depth=1, k=2, iterations=20, continual=continual, actions=2)
    for node, st in _info_sets(s):
        v, row = _view(s, LEDUC, node, st)
        assert np.allclose(agent.distribution(v), r.strategy.policy[row], rtol=0, atol=1e-9)
