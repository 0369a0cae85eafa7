"""DIVAT and showdown DIVAT: unbiased (exact enumeration oracle, exact expected values of two
fixed agents, money over sampled matches), lower variance than money, one-line errors."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from cli_run import run
from game_texts import THREE_ROUNDS, TINY_HOLDEM, holdem_text

from cfrlab.agents import make_agent
from cfrlab.cards.cards import deck
from cfrlab.errors import CfrlabError
from cfrlab.evaluate.divat import divat_arrays, divat_log
from cfrlab.evaluate.match import play_match
from cfrlab.games import parse_game
from cfrlab.tree import CHANCE, DECISION, build_tree

Z = 3.29  # two-sided 99.9%: the checks below are fixed-seed, this keeps them far from flaky


def _set_deals(cards: tuple, sizes: list[int]):
    """Every deal of ``sizes[0]``, then ``sizes[1]``, ... cards from ``cards``, each part a set."""
    if not sizes:
        yield ()
        return
    for part in itertools.combinations(cards, sizes[0]):
        rest = tuple(c for c in cards if c not in part)
        for tail in _set_deals(rest, sizes[1:]):
            yield part + tail


def _exact_divat_means(game, policy):
    """Weighted means of (money, showdown DIVAT, DIVAT) over every deal and every betting
    sequence, each with its exact probability under ``policy(player, hole, board_seen, node)``."""
    tree = build_tree(game)
    dk = deck(game.num_ranks, game.num_suits)
    h = game.num_hole_cards
    holes, boards, bets, probs = [], [], [], []
    starts = [game.total_board_cards(r) for r in range(game.num_rounds)]
    # every deal once as sets: each player's hole cards, each round's new board cards (the
    # ordered deals count each of these the same number of times: the same distribution, and
    # in THREE_ROUNDS an eighth of the 40,320 permutations)
    sizes = [h, h] + [n for n in game.num_board_cards if n > 0]
    deals = list(_set_deals(tuple(dk), sizes))
    assert len(deals) == game.num_deals
    # The tree as Python lists and the policy memoized per (node, hole, board seen): the same
    # products in the same order as a walk over the arrays, in a fraction of the time.
    kind, player, rnd = tree.kind.tolist(), tree.player.tolist(), tree.round.tolist()
    kids = [[(int(tree.child[tree.first_child[n] + k]), int(tree.action[tree.child[tree.first_child[n] + k]]))
             for k in range(int(tree.num_children[n]))] for n in range(len(kind))]
    memo = {}

    def moves(node, hole, seen):
        key = (node, tuple(hole), tuple(seen))
        got = memo.get(key)
        if got is None:
            pr = policy(player[node], hole, seen, tree.legal[tree.decision[node]])
            got = memo[key] = [(c, pr[a]) for c, a in kids[node] if pr[a] > 0]
        return got

    for d in deals:
        hole = [list(d[:h]), list(d[h:2 * h])]
        board = list(d[2 * h:])

        def walk(node, p, hole=hole, board=board):
            if kind[node] == CHANCE:
                walk(kids[node][0][0], p, hole, board)
                return
            if kind[node] != DECISION:
                holes.append(hole)
                boards.append(board)
                bets.append(tree.betting[node])
                probs.append(p)
                return
            pl = player[node]
            for c, q in moves(node, hole[pl], board[: starts[rnd[node]]]):
                walk(c, p * q, hole, board)

        walk(0, 1.0 / len(deals))
    out = divat_arrays(game, np.array(holes), np.array(boards), bets)
    return np.asarray(probs) @ out


def _card_policy(pl, hole, seen, legal):
    """A card-dependent policy: raises more with high cards, folds more with low ones."""
    strength = (max(c >> 2 for c in hole) + sum((c >> 2) in {x >> 2 for x in hole} for c in seen)) / 13.0
    pr = np.array([0.3 - 0.2 * strength, 0.4, 0.3 + 0.2 * strength + 0.1 * pl])
    pr = pr * legal
    return pr / pr.sum()


@pytest.mark.parametrize("text", [TINY_HOLDEM, THREE_ROUNDS])
def test_exactly_unbiased_by_enumeration(text):
    """Over every deal and betting sequence weighted by its probability, both estimators'
    expectations equal money's to rounding (the oracle: the rules' own payoffs)."""
    game = parse_game(text)
    money, sd, dv = _exact_divat_means(game, _card_policy)
    assert sd == pytest.approx(money, abs=1e-9)
    assert dv == pytest.approx(money, abs=1e-9)


def _match(tmp_path, game, a, b, hands, seed):
    log = tmp_path / "m.log"
    A, B = make_agent(a, game), make_agent(b, game)
    r = play_match(game, A, B, hands, seed=seed, log=log, exact=True)
    return r, divat_log(log, r.names[0], game)


@pytest.mark.parametrize("game,a,b", [("leduc", "value", "random"), ("leduc", "probe", "value:0.6,0.3"),
                                      (THREE_ROUNDS, "value:0.7,0.4", "always-call")])
def test_means_agree_with_exact_value(tmp_path, game, a, b):
    if game.startswith("GAMEDEF"):
        game = parse_game(game)
    r, d = _match(tmp_path, game, a, b, 60_000, seed=11)
    assert r.exact_chips is not None
    for name, e in d.estimates().items():
        assert abs(e.mean - r.exact_chips) <= Z * e.std / np.sqrt(e.n), (name, e.mean, r.exact_chips)
    ratios = d.variance_ratios()
    assert ratios["showdown_divat"] > 1.3 and ratios["divat"] > 1.3, ratios


def test_solved_leduc_against_probe(tmp_path):
    from cfrlab.api import solve

    s = solve("leduc", "cfr+", iterations=200).strategy
    A = make_agent(s, "leduc")
    B = make_agent("probe", "leduc")
    log = tmp_path / "s.log"
    r = play_match("leduc", A, B, 60_000, seed=5, log=log, exact=True)
    d = divat_log(log, r.names[0], "leduc")
    for name, e in d.estimates().items():
        assert abs(e.mean - r.exact_chips) <= Z * e.std / np.sqrt(e.n), (name, e.mean, r.exact_chips)
    assert d.variance_ratios()["divat"] > 1.3


@pytest.mark.slow
def test_reduced_deck_holdem_money_agreement(tmp_path):
    """A 20-card hold'em (every round's run-outs enumerated per hand): DIVAT agrees with
    money within the interval of their difference, and has a fraction of its variance.
    20,000 hands (DIVAT's run-outs take 0.3 ms a hand): the mean difference is known to 0.02
    chips (a bias above 0.07 fails), and the variance ratios, over seeds 1-8 between 1.78 and
    1.92 (spread 0.03), stay far above 1.6."""
    game = parse_game(holdem_text(5, 4))
    log = tmp_path / "h.log"
    r = play_match(game, make_agent("value:0.7,0.4", game), make_agent("random", game), 20_000, seed=3, log=log)
    d = divat_log(log, r.names[0], game)
    for x in (d.showdown, d.divat):
        diff = d.money - x
        assert abs(diff.mean()) <= Z * diff.std() / np.sqrt(diff.size)
    ratios = d.variance_ratios()
    # Measured 1.83 and 1.89 (seed 3); the random opponent's folds leave little to remove.
    assert ratios["divat"] > 1.6 and ratios["showdown_divat"] > 1.6, ratios


def test_money_column_is_the_log(tmp_path):
    r, d = _match(tmp_path, "leduc", "random", "probe", 2_000, seed=1)
    assert d.hands == 2_000
    assert d.money.sum() == pytest.approx(float(r.values[0].astype(np.float64).sum()), abs=1e-3)


def test_bad_input(tmp_path):
    log = tmp_path / "l.log"
    play_match("leduc", make_agent("random", "leduc"), make_agent("probe", "leduc"), 50, seed=1, log=log)
    with pytest.raises(CfrlabError, match="no hand of player 'nobody'"):
        divat_log(log, "nobody", "leduc")
    with pytest.raises(CfrlabError, match="holdem") as e:
        divat_log(log, "random", "holdem-limit")
    assert "\n" not in str(e.value)


def test_cli(tmp_path, capsys):
    log = tmp_path / "l.log"
    play_match("leduc", make_agent("value", "leduc"), make_agent("random", "leduc"), 3_000, seed=2, log=log)
    code, out, err = run(capsys, "divat", str(log), "--player", "value", "--json")
    assert code == 0, err
    s = json.loads(out.strip().splitlines()[-1])
    assert s["hands"] == 3_000 and set(s["estimators"]) == {"money", "showdown_divat", "divat"}
    code, out, err = run(capsys, "divat", str(log), "--player", "value")
    assert code == 0 and "DIVAT" in out
    code, out, err = run(capsys, "divat", str(log), "--player", "nobody")
    assert code != 0 and len(err.strip().splitlines()) == 1 and "nobody" in err
    code, out, err = run(capsys, "divat", str(log), "--player", "value", "--game", "kuhn")
    assert code != 0 and len(err.strip().splitlines()) == 1
