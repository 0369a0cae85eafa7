"""Action translation (Ganzfried and Sandholm, IJCAI 2013) and the exact real-game evaluation of
a translated abstract strategy.

Oracles: the mapping's axioms (f(A) = 1, f(B) = 0, non-increasing, scale invariant); a strategy
solved in the full game is its own translation; the written-out full-game strategy has the same
exploitability in OpenSpiel's universal_poker (1e-9) and in a plain recursive best response of
the real game (games.State) that reads the agent only through its RangePolicy (1e-9); a seeded
duplicate match against the best response lies within its 95% interval of the exact value."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from cfrlab.agents import make_agent, play_match
from cfrlab.agents.ranges import RangePolicy, hands
from cfrlab.agents.translation import TranslatedStrategy, translate
from cfrlab.engine import best_response, build_tree_for, exploitability, model_for_game
from cfrlab.errors import CfrlabError
from cfrlab.games import State, load_game, parse_game
from cfrlab.games.state import UNKNOWN, deal_length
from cfrlab.solvers import make_solver
from cfrlab.strategy import Strategy
from cfrlab.tree.translation import (
    RULES,
    Spot,
    check_rule,
    lower_probability,
    map_size,
    pseudo_harmonic,
    spot_of_state,
)


def leduc_nl(stack: int, blind: int = 1) -> object:
    text = load_game("leduc-nolimit").to_text().replace("stack = 7 7", f"stack = {stack} {stack}")
    text = text.replace("blind = 1 1", f"blind = {blind} {blind}")
    return parse_game(text, name=f"leduc-nl{stack}" + (f"-b{blind}" if blind != 1 else ""))


@cache
def solved(stack: int, bets: str, iterations: int = 300, blind: int = 1) -> Strategy:
    g = leduc_nl(stack, blind)
    tree = build_tree_for(g, None if bets == "fullgame" else bets)
    model = model_for_game(g)
    s = make_solver(tree, model, "cfr+")
    s.iterate(iterations)
    return Strategy.from_policy(g, s.average_policy(), tree=tree, model=model, algorithm="cfr+")


# -- the mapping rules ---------------------------------------------------------------------

SIZES = [(0.0, 1.0), (0.5, 1.0), (1.0, 3.0), (0.25, 0.5), (1.0, 7.5)]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("a,b", SIZES)
def test_axioms_boundaries_and_monotone(rule, a, b):
    assert lower_probability(rule, a, b, a) == 1.0
    assert lower_probability(rule, a, b, b) == 0.0
    xs = np.linspace(a, b, 401)
    f = [lower_probability(rule, a, b, x) for x in xs]
    assert all(0.0 <= v <= 1.0 for v in f)
    assert all(f[i] >= f[i + 1] for i in range(len(f) - 1))
    assert f[0] == 1.0 and f[-1] == 0.0


def test_pseudo_harmonic_formula_and_thresholds():
    # f_A(x) = (B - x)(1 + A) / ((B - A)(1 + x)): half pot between check and pot maps to the check 1/3
    assert pseudo_harmonic(0.0, 1.0, 0.5) == pytest.approx(1 / 3)
    assert lower_probability("pseudo-harmonic", 0.5, 1.0, 0.75) == pytest.approx(0.25 * 1.5 / (0.5 * 1.75))
    # the deterministic threshold is where f = 1/2: (A + B + 2AB) / (A + B + 2)
    for a, b in SIZES:
        t = (a + b + 2 * a * b) / (a + b + 2)
        assert lower_probability("pseudo-harmonic-det", a, b, t - 1e-9) == 1.0
        assert lower_probability("pseudo-harmonic-det", a, b, t + 1e-9) == 0.0
        g = math.sqrt(a * b)
        assert lower_probability("geometric", a, b, g + 1e-9) == 0.0
        if a > 0:
            assert lower_probability("geometric", a, b, g - 1e-9) == 1.0
        m = (a + b) / 2
        assert lower_probability("nearest", a, b, m - 1e-9) == 1.0
        assert lower_probability("nearest", a, b, m + 1e-9) == 0.0


@pytest.mark.parametrize("rule", RULES)
def test_map_size_boundaries(rule):
    sizes = [0.0, 0.5, 1.0, 4.0]
    assert map_size(0.5, sizes, rule) == [(1, 1.0)]  # an exact match maps to itself
    assert map_size(1.0 + 1e-15, sizes, rule) == [(2, 1.0)]
    assert map_size(9.0, sizes, rule) == [(3, 1.0)]  # above the largest: the largest
    assert map_size(-1.0, sizes, rule) == [(0, 1.0)]
    out = map_size(2.0, sizes, rule)
    assert {i for i, _ in out} <= {2, 3} and sum(p for _, p in out) == pytest.approx(1.0)
    assert dict(out).get(2, 0.0) == pytest.approx(lower_probability(rule, 1.0, 4.0, 2.0))


@pytest.mark.parametrize("rule", RULES)
def test_scale_invariance_in_chips(rule):
    """Scaling the bets, the abstract sizes and the pot together leaves the mapping unchanged."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        pot, top, call = (int(v) for v in rng.integers(1, 40, 3))
        a_to, b_to = sorted(int(v) for v in top + rng.choice(np.arange(1, 200), 2, replace=False))
        x_to = int(rng.integers(top + 1, b_to + 30))
        outs = []
        for k in (1, 3, 17):
            spot = Spot(0, 0, k * pot, k * top, k * call, k * top + 1, 10**6, True, 10**6)
            sizes = [0.0, spot.fraction(k * a_to), spot.fraction(k * b_to)]
            outs.append(map_size(spot.fraction(k * x_to), sizes, rule))
        assert outs[0] == outs[1] == outs[2]


def test_scale_invariance_in_the_game():
    """Leduc with stacks and blinds doubled: an off-tree raise doubled maps the same way."""
    small, big = translate(solved(10, "fcpa", 20)), translate(solved(20, "fcpa", 20, blind=2))
    for a, k in ((small, 1), (big, 2)):
        rp = a.range_policy(a.game)
        (path, _), = rp.root(1)
        st = State(a.game, [UNKNOWN] * deal_length(a.game), allow_unknown=True)
        out = rp.advance(path, st, f"r{2 * k}")  # x = 1/2 between check (0) and pot (1)
        tree = a.translator.tree
        assert sorted((tree.betting[p.node], round(q, 12)) for p, q in out) == (
            [("c", 0.333333333333), (f"r{3 * k}", 0.666666666667)])


def test_a_bad_rule_name_is_one_line_listing_the_rules():
    with pytest.raises(CfrlabError) as e:
        check_rule("harmonic")
    msg = str(e.value)
    assert "\n" not in msg and all(r in msg for r in RULES)
    with pytest.raises(CfrlabError, match="pseudo-harmonic-det"):
        translate(solved(7, "fcpa", 10), "bogus")


# -- the translated agent ------------------------------------------------------------------

def test_range_hands_are_the_games_cards():
    # the ACPC small deck: the top ranks and the last suits (Leduc: Qh Qs Kh Ks Ah As)
    assert hands(load_game("leduc-nolimit")) == [(42,), (43,), (46,), (47,), (50,), (51,)]
    assert len(hands(load_game("holdem-nolimit"))) == 1326


def _ranges(agent, position):
    rp = agent.range_policy(agent.game)
    assert isinstance(rp, RangePolicy)
    (path, p), = rp.root(position)
    assert p == 1.0
    return rp, path, State(agent.game, [UNKNOWN] * deal_length(agent.game), allow_unknown=True)


def test_own_raises_are_sized_from_the_real_pot():
    """fcpa at stack 10: the opponent's r2 (half pot) maps to the check 1/3, to the pot raise r3
    2/3; along r3 the agent's abstract pot raise (r9 in the abstract hand) is the real pot
    raise r6 (2 + (3 + 1)), its all-in the real all-in."""
    agent = translate(solved(10, "fcpa", 50))
    rp, path, st = _ranges(agent, 1)
    tree = agent.translator.tree
    out = {tree.betting[p.node]: (p, q) for p, q in rp.advance(path, st, "r2")}
    assert {k: q for k, (_, q) in out.items()} == pytest.approx({"c": 1 / 3, "r3": 2 / 3})
    st.apply("r2")
    node = out["r3"][0]
    assert [tree.action_text(node.node, a) for a in np.flatnonzero(tree.legal[tree.decision[node.node]])] == (
        ["f", "c", "r9", "r10"])
    actions, probs = rp.probs(node, st, [])
    assert actions == ["f", "c", "r6", "r10"]
    assert probs.shape == (len(hands(agent.game)), 4) and np.allclose(probs.sum(axis=1), 1.0)
    assert rp.advance(node, st, "r6") == [(type(node)(1, tree.node_of_betting["r3r9"]), 1.0)]


def test_off_tree_rules_without_an_abstract_neighbour():
    """fc (no raises): a raise maps to the call, the agent never folds to it. p,a;cap=1: the
    opponent's re-raise maps to the call, which closes the abstract round; the agent calls in
    the real round and is back in step at the next round's first decision."""
    agent = translate(solved(10, "fc", 20))
    rp, path, st = _ranges(agent, 1)
    (nxt, q), = rp.advance(path, st, "r5")
    assert q == 1.0 and agent.translator.tree.betting[nxt.node] == "c"
    actions, _ = rp.probs(nxt, st.apply("r5"), [])
    assert actions == ["c"]  # the abstract check is the real call; its fold is not legal

    agent = translate(solved(10, "p,a;cap=1", 50))
    t = agent.translator
    rp, path, st = _ranges(agent, 0)
    actions, _ = rp.probs(path, st, [])
    assert actions == ["c", "r3", "r10"]
    (path,) = [p for p, _ in rp.advance(path, st, "r3")]
    st.apply("r3")
    (path, q), = rp.advance(path, st, "r8")  # the abstract node holds no raise: the call
    assert t.tree.betting[path.node] == "r3c/" and q == 1.0
    st.apply("r8")
    assert rp.probs(path, st, []) == (["c"], pytest.approx(np.ones((6, 1))))  # out of step: call
    assert rp.advance(path, st, "c")[0][0] == path
    st.apply("c")
    board = [hands(agent.game)[0][0]]
    actions, _ = rp.probs(path, st, board)  # round 2, position 0 to act: in step again
    assert actions[0] == "c" and st.round == 1 and t.in_step(path.node, spot_of_state(st))


def test_act_plays_what_the_range_policy_says():
    """Hands against random real amounts: at each of the agent's decisions its distribution
    for its cards is the RangePolicy's row for that hand (a deterministic rule: one path)."""
    from cfrlab.games import parse_match_state

    agent = translate(solved(10, "0.5p,p,2p,a", 100), "geometric")
    game = agent.game
    agent.begin_match(game, seed=3)
    rng = np.random.default_rng(4)
    index = {h: i for i, h in enumerate(hands(game))}
    checked = 0
    for hand in range(60):
        pos = hand % 2
        rp = agent.range_policy(game)
        st = State(game, seed=hand, hand_number=hand)
        (path, _), = rp.root(pos)
        while not st.is_terminal():
            if st.current_player() == pos:
                view = parse_match_state(game, st.match_state(pos))
                board = st.visible_board()
                actions, probs = rp.probs(path, st, board)
                row = probs[index[tuple(sorted(st.hole_cards(pos)))]]
                assert agent.distribution(view) == pytest.approx(dict(zip(actions, row)))
                action = agent.act(view)
                checked += 1
            else:
                lo, hi = st.raise_range() or (0, 0)
                legal = [a for a in ("f", "c") if st.is_legal(a)] + ([f"r{rng.integers(lo, hi + 1)}"] if hi else [])
                action = legal[rng.integers(len(legal))]
            (path, _q), = rp.advance(path, st, action)
            st.apply(action)
    assert checked > 60


def test_the_full_game_strategy_is_its_own_translation():
    s = solved(7, "fullgame", 100)
    e = exploitability(s.tree, s.model, s.policy)
    for rule in RULES:
        w = TranslatedStrategy(s, rule).full_game_strategy()
        assert w.tree.num_nodes == s.tree.num_nodes
        assert exploitability(w.tree, w.model, w.policy) == pytest.approx(e, abs=1e-12)
    assert translate(s).real_exploitability() == pytest.approx(e, abs=1e-12)


def test_written_out_strategy_equals_openspiels_exploitability():
    pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_expl

    from cfrlab.interop.openspiel import load_openspiel_game, to_openspiel

    agent = translate(solved(7, "fcpa", 300))
    w = agent.full_game_strategy()
    ours = exploitability(w.tree, w.model, w.policy)
    theirs = os_expl.exploitability(load_openspiel_game(w.game), to_openspiel(w))
    assert ours > 0.05  # translation costs: not a comparison of two zeros
    assert ours == pytest.approx(theirs, abs=1e-9)


# -- an independent real-game best response, reading only the agent's RangePolicy ---------

def _leduc_strength(card: int, board: int) -> int:
    return 100 + card // 4 if card // 4 == board // 4 else card // 4


def _terminal(state, board, ranges, agent_pos, cards, deals):
    """Responder's value per hand (weighted by deal probability and the agent's reach)."""
    q = 1 - agent_pos
    reach = sum(ranges.values())
    spent = state.spent
    out = np.zeros(len(cards))
    for i, ci in enumerate(cards):
        for j, cj in enumerate(cards):
            if ci == cj or ci in board or cj in board or reach[j] == 0:
                continue
            if state.folded[q]:
                v = -spent[q]
            elif state.folded[agent_pos]:
                v = spent[agent_pos]
            else:
                si, sj = _leduc_strength(ci, board[0]), _leduc_strength(cj, board[0])
                v = spent[agent_pos] if si > sj else (-spent[q] if si < sj else 0)
            out[i] += reach[j] * v / deals
    return out


def _br_walk(rp, state, board, ranges, agent_pos, cards):
    if state.is_terminal():
        deals = len(cards) * (len(cards) - 1) * (len(cards) - 2 if board else 1)
        return _terminal(state, board, ranges, agent_pos, cards, deals)
    if state.current_player() == agent_pos:
        merged: dict[str, dict] = {}
        for path, r in ranges.items():
            actions, probs = rp.probs(path, state, board)
            for k, a in enumerate(actions):
                w = r * probs[:, k]
                if not w.any():
                    continue
                nxt = merged.setdefault(a, {})
                for p2, q in rp.advance(path, state, a):
                    nxt[p2] = nxt.get(p2, 0.0) + q * w
        return sum(_child(rp, state, a, board, nxt, agent_pos, cards) for a, nxt in merged.items())
    lo, hi = state.raise_range() or (1, 0)
    actions = state.legal_actions()[:2 if state.is_legal("f") else 1] + [f"r{x}" for x in range(lo, hi + 1)]
    best = None
    for a in actions:
        nxt: dict = {}
        for path, r in ranges.items():
            for p2, q in rp.advance(path, state, a):
                nxt[p2] = nxt.get(p2, 0.0) + q * r
        v = _child(rp, state, a, board, nxt, agent_pos, cards)
        best = v if best is None else np.maximum(best, v)
    return best


def _child(rp, state, action, board, ranges, agent_pos, cards):
    st = state.clone().apply(action)
    if st.round > 0 and not board:  # the board card comes
        return sum(_br_walk(rp, st, [b], ranges, agent_pos, cards) for b in cards)
    return _br_walk(rp, st, board, ranges, agent_pos, cards)


def naive_exploitability(agent) -> float:
    game = agent.game
    cards = [h[0] for h in hands(game)]
    total = 0.0
    for pos in (0, 1):
        rp = agent.range_policy(game)
        st = State(game, [UNKNOWN] * deal_length(game), allow_unknown=True)
        ranges = {path: p * np.ones(len(cards)) for path, p in rp.root(pos)}
        total += _br_walk(rp, st, [], ranges, pos, cards).sum()
    return total / 2


@pytest.mark.parametrize("stack,bets,rule", [
    (7, "fcpa", "pseudo-harmonic"), (7, "0.5p,p,a", "geometric"), (7, "p,a;cap=1", "pseudo-harmonic"),
    (10, "0.5p,p,2p,a", "pseudo-harmonic"), (10, "fcpa", "nearest"), (10, "fc", "pseudo-harmonic-det")])
def test_real_exploitability_equals_an_independent_walk(stack, bets, rule):
    agent = translate(solved(stack, bets, 300), rule)
    exact = agent.real_exploitability()
    assert exact > 0.01
    assert naive_exploitability(agent) == pytest.approx(exact, abs=1e-9)


def test_a_match_against_the_best_response_lies_within_its_interval_of_the_exact_value():
    agent = translate(solved(7, "fcpa", 300))
    w = agent.full_game_strategy()
    br = w.policy.copy()
    for responder in (0, 1):
        _, full = best_response(w.tree, w.model, w.policy, responder)
        rows = np.repeat(w.tree.player[w.tree.decision_node], np.diff(w.row_offset)) == responder
        br[rows] = full[rows]
    responder = Strategy.from_policy(w.game, br, tree=w.tree, model=w.model)
    exact = -exploitability(w.tree, w.model, w.policy)
    r = play_match(w.game, agent, responder, 3000, seed=11, duplicate=True)
    est = r.overall("chips/g")
    assert exact < -0.05 and abs(est.mean - exact) < est.ci95


# -- agent specs -------------------------------------------------------------------------

def test_agent_specs_translate_nolimit_abstract_strategies(tmp_path):
    s = solved(7, "fcpa", 50)
    path = tmp_path / "fcpa.npz"
    s.save(path)
    g = s.game
    a = make_agent(str(path), g, seed=1)
    assert isinstance(a, TranslatedStrategy) and a.rule == "pseudo-harmonic" and a.name == "fcpa:pseudo-harmonic"
    b = make_agent(f"{path}:translation=geometric", g, seed=1)
    assert isinstance(b, TranslatedStrategy) and b.rule == "geometric"
    assert isinstance(make_agent(s, g), TranslatedStrategy)
    with pytest.raises(CfrlabError, match="choose from pseudo-harmonic, pseudo-harmonic-det, geometric, nearest"):
        make_agent(f"{path}:translation=harmonic", g)
    with pytest.raises(CfrlabError, match="options: greedy, abstraction=FILE, translation=RULE"):
        make_agent(f"{path}:translate=nearest", g)
    r = play_match(g, f"{path}:translation=nearest", "always-call", 200, seed=2)
    assert r.overall("chips/g").mean > 0


def test_translation_on_a_limit_game_is_refused(tmp_path):
    s = Strategy.uniform("leduc")
    path = tmp_path / "leduc.npz"
    s.save(path)
    with pytest.raises(CfrlabError, match="limit game") as e:
        make_agent(f"{path}:translation=geometric", "leduc")
    assert "\n" not in str(e.value)
    with pytest.raises(CfrlabError, match="limit game"):
        TranslatedStrategy(s)


def test_cli_refuses_a_bad_translation_in_one_line(tmp_path, capsys):
    from cli_run import run

    s = solved(7, "fcpa", 20)
    path = tmp_path / "fcpa.npz"
    s.save(path)
    game = tmp_path / "g.game"
    game.write_text(s.game.to_text())
    code, _out, err = run(capsys, "match", str(game), f"{path}:translation=foo", "always-call", "-n", "10")
    assert code != 0 and "choose from pseudo-harmonic" in err and len(err.strip().splitlines()) == 1
    code, _out, err = run(capsys, "match", str(game), f"{path}:translation=nearest", "always-call", "-n", "10")
    assert code == 0, err
