"""Trainer mode (cfrlab.play.trainer): the EV each action of the person's decisions gets against a
reference strategy, both continuing with it, and what the choice gave up.

Oracles: Kuhn's known equilibrium family (every action it plays gives up 0; calling a bet with
the Queen gives up exactly 1 chip, betting the King first exactly 1/6, worked out by hand below);
Leduc's action values by brute-force enumeration of the deals with the slow twin (tests/naive.py);
the summary's totals are the sums of the per-decision losses; the CLI's bad input in one line."""

from __future__ import annotations

import io
import itertools

import naive
import numpy as np
import pytest
from cli_run import run
from play_helpers import RaiseAgent, kuhn_equilibrium, kuhn_seed_queen_facing_a_bet
from rich.console import Console

from cfrlab.cards import deck, parse_cards
from cfrlab.engine import model_for_game, tree_for
from cfrlab.errors import CfrlabError
from cfrlab.games import load_game
from cfrlab.games.state import State
from cfrlab.play.deal import deal_for_hand
from cfrlab.play.session import HumanTable
from cfrlab.play.terminal import TerminalPlay
from cfrlab.play.trainer import Trainer, TrainerLog, mistake_threshold, reference_strategy
from cfrlab.solvers import make_solver
from cfrlab.strategy import Strategy

EXACT = 1e-9


def kuhn_spot(cards: str, betting: str) -> State:
    """The Kuhn state after ``betting`` with ``cards`` (position 0's card, then position 1's)."""
    s = State(load_game("kuhn"), parse_cards(cards))
    for a in betting:
        s.apply(a)
    return s


@pytest.fixture(scope="module")
def kuhn_trainer():
    return Trainer(kuhn_equilibrium(1 / 6))


@pytest.fixture(scope="module")
def leduc_solved():
    g = load_game("leduc")
    tree, model = tree_for(g), model_for_game(g)
    solver = make_solver(tree, model, "cfr+")
    solver.iterate(60)  # far from exact on purpose: positive losses to check
    return Strategy.from_policy(g, solver.average_policy(), tree=tree, model=model, name="leduc-cfr+60")


# -- Kuhn: the known equilibrium --------------------------------------------------------------
def test_kuhn_equilibrium_actions_give_up_nothing(kuhn_trainer):
    """Every action the equilibrium plays, in every deal and spot, gives up 0 (indifference),
    and every spot is reached (alpha = 1/6: every hand's betting has positive reach)."""
    assert kuhn_trainer.strategy.exploitability() < 1e-12
    seen = 0
    for c0, c1 in itertools.permutations(["Qs", "Ks", "As"], 2):
        for betting in ("", "c", "r", "cr"):
            s = kuhn_spot(c0 + c1, betting)
            for action in s.legal_actions():
                a = kuhn_trainer.advise(s, action)
                assert a.reached and a.evs is not None and a.actions == s.legal_actions()
                if a.probs[a.actions.index(action)] > 0:
                    assert a.loss == pytest.approx(0.0, abs=EXACT), (c0, c1, betting, action)
                    seen += 1
                assert a.loss == pytest.approx(max(a.evs) - a.evs[a.actions.index(action)], abs=1e-15)
                assert a.strategy_ev == pytest.approx(max(a.evs), abs=EXACT)  # it mixes only best actions
    # each card acts twice per spot over the 6 deals; played actions per card (Q, K, A): root 2 1 2,
    # after a check 2 1 1, facing a bet 1 2 1, after check-bet 1 2 1
    assert seen == 2 * (5 + 4 + 4 + 4)


def test_kuhn_hand_worked_losses(kuhn_trainer):
    """By hand, for any alpha. The second player holds Q facing a bet: the bettor holds K (bets 0)
    or A (bets 3 alpha), so A: folding loses the ante (-1), calling loses 2: calling gives up 1.
    The first player holds K: a bet is called by A and folded by Q: (1 - 2) / 2 = -1/2. A check:
    Q bets 1/3 and is called with alpha + 1/3 (wins 2) else K folds (-1), Q checks behind 2/3 (+1):
    alpha + 2/3; A bets and K calls alpha + 1/3 (-2) or folds (-1): -alpha - 4/3; so -1/3 in all.
    Betting K gives up 1/6."""
    a = kuhn_trainer.advise(kuhn_spot("AsQs", "r"), "c")
    assert (a.chosen, a.best, a.cards, a.situation) == ("c", "f", "Qs", "round 1, 1 to call")
    assert a.evs == pytest.approx([-1.0, -2.0], abs=EXACT) and a.loss == pytest.approx(1.0, abs=EXACT)
    assert a.probs == [1.0, 0.0] and a.words == ["fold", "call"]
    b = kuhn_trainer.advise(kuhn_spot("KsQs", ""), "r")
    assert b.evs == pytest.approx([-1 / 3, -1 / 2], abs=EXACT) and b.loss == pytest.approx(1 / 6, abs=EXACT)
    assert b.best == "c" and b.words == ["check", "bet"]
    assert b.line(lambda x: f"{x:.3f} chips") == \
        "strategy: check 100% \u00b7 your bet gave up 0.167 chips (best: check)"
    for alpha in (0.05, 1 / 3):  # the same losses across the family
        t = Trainer(kuhn_equilibrium(alpha))
        assert t.advise(kuhn_spot("AsQs", "r"), "c").loss == pytest.approx(1.0, abs=EXACT)
        assert t.advise(kuhn_spot("KsAs", ""), "r").loss == pytest.approx(1 / 6, abs=EXACT)


def test_kuhn_spot_never_reached():
    """alpha = 0: the first player never bets, so a bet is a spot the strategy never reaches. The
    opponent's hands are then weighted as trembles of equal size (every hand's check row is the
    same): Q calling gives up 1 as before, K folding gives up 1 (call: (+2 - 2) / 2 = 0)."""
    t = Trainer(kuhn_equilibrium(0.0))
    a = t.advise(kuhn_spot("AsQs", "r"), "c")
    assert not a.reached and a.loss == pytest.approx(1.0, abs=1e-5)
    b = t.advise(kuhn_spot("QsKs", "r"), "f")
    assert not b.reached and b.evs == pytest.approx([-1.0, 0.0], abs=1e-5) and b.best == "c"
    assert "never reaches" in b.line(str, 1e-3)
    assert t.advise(kuhn_spot("QsKs", ""), "c").reached  # the root is reached whatever the cards


# -- Leduc: brute force --------------------------------------------------------------------------
def _naive_action_values(game, policy, key):
    """Each legal action's EV at the information set ``key`` = (player, hole, board, betting):
    over every deal consistent with it, weighted by the opponent's reach along the betting
    (both players' rows from ``policy``), the action's value with both following the policy."""
    p, hole, board, betting = key

    def value(node, deal):
        if node.terminal:
            u = naive.payoff0(game, node, deal)
            return u if p == 0 else -u
        probs = policy[naive.infoset_key(game, node, deal)]
        return sum(probs[a] * value(naive.apply(game, node, a), deal)
                   for a in naive.legal_actions(game, node) if probs[a] > 0)

    num = {}
    den = 0.0
    for deal in naive.deals(game):
        if deal[p] != hole or naive.visible_board(game, deal[2], 1 if board else 0) != board:
            continue
        node, reach = naive.root(game), 1.0
        for letter in betting.replace("/", ""):
            a = naive.LETTERS.index(letter)
            if node.player != p:
                reach *= policy[naive.infoset_key(game, node, deal)][a]
            node = naive.apply(game, node, a)
        den += reach
        for a in naive.legal_actions(game, node):
            num[a] = num.get(a, 0.0) + reach * value(naive.apply(game, node, a), deal)
    return {naive.LETTERS[a]: v / den for a, v in num.items()}


def test_leduc_action_values_equal_brute_force(leduc_solved):
    g = leduc_solved.game
    tree, model = leduc_solved.tree, leduc_solved.model
    pol = naive.from_engine_policy(g, tree, model, leduc_solved.policy, leduc_solved.row_offset)
    trainer = Trainer(leduc_solved, g)
    keys = sorted(naive.infosets(g), key=repr)
    rng = np.random.default_rng(7)
    picked = [keys[i] for i in rng.choice(len(keys), 10, replace=False)]
    picked += [k for k in keys if k[3] in ("", "cr")][::3]  # first round
    picked += [k for k in keys if k[3] in ("rrc/r", "crrc/crr")][:4]  # second round, deep
    assert {k[0] for k in picked} == {0, 1} and any(k[2] for k in picked) and any(not k[2] for k in picked)
    losses = []
    for key in picked:
        p, hole, board, betting = key
        want = _naive_action_values(g, pol, key)
        # a deal with these cards: the opponent's card any one left
        left = [c for c in deck(g.num_ranks, g.num_suits) if c not in hole + board]
        holes = [list(hole), [left[0]]] if p == 0 else [[left[0]], list(hole)]
        state = State(g, holes[0] + holes[1] + (list(board) if board else [left[1]]))
        for a in betting.replace("/", ""):
            state.apply(a)
        for action in state.legal_actions():
            adv = trainer.advise(state, action)
            assert adv.reached
            got = dict(zip(adv.actions, adv.evs))
            assert got.keys() == want.keys()
            for a, v in want.items():
                assert got[a] == pytest.approx(v, abs=1e-9), (key, a)
            assert adv.loss == pytest.approx(max(want.values()) - want[action], abs=1e-9)
            losses.append(adv.loss)
    assert max(losses) > 0.05  # the brute force is compared on real losses, not only zeros


# -- the session: per decision, summary ----------------------------------------------------------
def test_summary_sums_the_decisions(leduc_solved):
    """Scripted play against a raiser: the summary's total is the sum of every finished hand's
    losses, its mistakes those above the threshold, its top list the largest of them in order;
    the unfinished hand is not counted."""
    g = leduc_solved.game
    table = HumanTable(g, [RaiseAgent()], seed=11, trainer=Trainer(leduc_solved, g))
    table.trainer_log.top_n = 3
    rng = np.random.default_rng(3)
    losses = []
    for _ in range(12):
        table.start_hand()
        while not table.hand_over:
            legal = table.legal_actions()
            table.act(legal[int(rng.integers(len(legal)))])
        losses += [a.loss for a in table.trainer_log.hand]
        assert all(a.hand_number == table.hand_number for a in table.trainer_log.hand)
    table.start_hand()
    table.act("c" if "c" in table.legal_actions() else table.legal_actions()[0])  # unfinished
    v = table.view()["trainer"]
    s = v["summary"]
    threshold = mistake_threshold(g)
    assert None not in losses and s["decisions"] == len(losses) == s["rated"]
    assert s["total_loss"] == pytest.approx(sum(losses), abs=1e-12)
    assert s["mistakes"] == sum(x > threshold for x in losses) >= 3
    assert [a["loss"] for a in s["top"]] == sorted((x for x in losses if x > threshold), reverse=True)[:3]
    assert s["per_hand"] == pytest.approx(sum(losses) / 12) and s["unit"] == "chips/g" and s["hands"] == 12
    assert len(v["hand"]) == 1 and v["hand"][0]["hand_number"] == 12  # the current hand, not counted
    assert v["hand"][0]["text"].startswith("strategy: ")


def test_trainer_log_keeps_the_costliest():
    from cfrlab.play.trainer import Advice

    log = TrainerLog(threshold=0.01, top_n=2)
    for h, loss in enumerate([0.5, 0.001, 2.0, 0.5, None, 1.0]):
        log.begin_hand()
        log.add(Advice(h, 0, "", "Ks", "round 1", ["c", "r"], ["check", "bet"], [1.0, 0.0], None, "r", "c", loss))
        log.end_hand()
    assert (log.decisions, log.rated, log.mistakes) == (6, 5, 4)
    assert log.total_loss == pytest.approx(4.001)
    assert [(a.hand_number, a.loss) for a in log.top()] == [(2, 2.0), (5, 1.0)]


def test_terminal_prints_each_decision_and_the_summary(kuhn_trainer):
    """Hand 1: the human holds Q facing the raiser's bet and calls: 1 chip given up, said at once
    and in the summary's table."""
    g = load_game("kuhn")
    seed = kuhn_seed_queen_facing_a_bet()
    table = HumanTable(g, [RaiseAgent()], seed=seed, trainer=kuhn_trainer)
    out = io.StringIO()
    feed = iter(["c", "c", "c", "q"])
    TerminalPlay(table, console=Console(file=out, width=200, color_system=None),
                 input_line=lambda: next(feed, "")).play(2)
    text = out.getvalue()
    assert "trainer (Qs, round 1, 1 to call): strategy: fold 100% \u00b7 your call gave up 1.000 chips (best: fold)" \
        in text
    assert "EV of each action in chips, both continuing with the strategy: fold -1.000, call -2.000" in text
    assert "Costliest mistakes" in text
    row = next(line for line in text.splitlines() if "\u2502 Qs" in line)
    assert "call" in row and "fold" in row and "1.000" in row
    s = table.view()["trainer"]["summary"]
    assert s["hands"] == 2 and s["total_loss"] >= 1.0 - EXACT


# -- bad input ----------------------------------------------------------------------------------
def test_reference_strategy_refuses_a_bot():
    with pytest.raises(CfrlabError, match="plays none"):
        reference_strategy(RaiseAgent(), load_game("kuhn"))
    with pytest.raises(CfrlabError, match="is for kuhn, not for leduc"):
        Trainer(kuhn_equilibrium(0.1), load_game("leduc"))
    with pytest.raises(CfrlabError, match="trainer's strategy is for"):
        HumanTable(load_game("leduc"), [RaiseAgent()], trainer=Trainer(kuhn_equilibrium(0.1)))


@pytest.fixture(scope="module")
def kuhn_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("trainer") / "kuhn.npz"
    kuhn_equilibrium(1 / 6).save(path)
    return str(path)


@pytest.mark.parametrize("command", ["play", "serve"])
@pytest.mark.parametrize("argv, words", [
    (["kuhn", "--vs", "always-call", "--trainer"], ["--trainer needs a strategy", "always-call plays none",
                                                    "--trainer-strategy FILE"]),
    (["kuhn", "--vs", "always-call", "--trainer-strategy", "always-raise"], ["--trainer-strategy always-raise",
                                                                             "plays none"]),
    (["leduc", "--vs", "always-call", "--trainer-strategy", "{kuhn}"], ["--trainer-strategy: ", "is a strategy for kuhn, not for leduc"]),
    (["leduc", "--vs", "{kuhn}", "--trainer"], ["is a strategy for kuhn"]),
    (["kuhn-3p", "--vs", "always-call", "--trainer"], ["--trainer is for two-player games"]),
])
def test_cli_bad_trainer_input_is_one_line(capsys, kuhn_file, command, argv, words):
    code, _, err = run(capsys, command, *(a.replace("{kuhn}", kuhn_file) for a in argv), "--seed", "1")
    lines = err.strip().splitlines()
    assert code != 0 and len(lines) == 1 and lines[0].startswith("cfrlab: error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_cli_play_trainer_end_to_end(capsys, kuhn_file, monkeypatch):
    seed = kuhn_seed_queen_facing_a_bet()
    monkeypatch.setattr("sys.stdin", io.StringIO("c\nc\nc\n"))  # hand 0: check, call; hand 1: call
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run(capsys, "play", "kuhn", "--vs", "always-raise", "--trainer-strategy", kuhn_file,
                         "--seed", str(seed), "-n", "2")
    assert code == 0, err
    assert "trainer mode: your decisions are rated against kuhn-eq-0.167" in err
    assert "your call gave up 1.000 chips (best: fold)" in out
    assert "Trainer (against kuhn-eq-0.167)" in out and "Costliest mistakes" in out


# -- an abstraction: the hand's bucket ------------------------------------------------------------
def test_bucketed_holdem_values_add_up_to_the_game_value():
    """A reduced-deck limit hold'em solved in a bucketed abstraction: at the root, the buckets'
    counterfactual reach times the strategy's mixed EV add up to the profile's game value, and a
    real deal is rated through its bucket."""
    from test_metrics import holdem

    from cfrlab.abstraction.bucketed import BucketedModel
    from cfrlab.abstraction.buckets import BucketSpec

    game = holdem(4, 3, "0 3")
    model = BucketedModel.build(game, BucketSpec.make(2, "3-5", metric="ehs", method="uniform"))
    tree = tree_for(game)
    solver = make_solver(tree, model, "cfr+")
    solver.iterate(30)
    strategy = Strategy.from_policy(game, solver.average_policy(), tree=tree, model=model)
    trainer = Trainer(strategy, game)
    root = strategy.node_of("")
    d = int(tree.decision[root])
    columns = [int(a) for a in np.flatnonzero(tree.legal[d])]
    actor = int(tree.player[root])  # the small blind (position 1) acts first
    total = 0.0
    for s in range(model.num_states[0]):
        evs, weight = trainer._action_values(trainer.exact, root, actor, 0, s, columns)
        if weight == 0.0:  # a bucket no hand falls in (uniform buckets on a tiny deck)
            continue
        total += weight * float(np.dot(strategy.policy[strategy.row_offset[d] + s][columns], evs))
    assert total == pytest.approx((1 - 2 * actor) * strategy.game_value("chips/g"), abs=1e-9)
    assert abs(total) > 1e-3
    state = State(game, deal_for_hand(game, 0, 0))
    a = trainer.advise(state, state.legal_actions()[-1])
    bucket = model.state_of(actor, state.hole_cards(actor), [], 0)
    assert a.probs == pytest.approx(list(strategy.policy[strategy.row_offset[d] + bucket][columns]))
    assert a.evs is not None and a.loss >= 0.0
