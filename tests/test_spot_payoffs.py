"""Dead money, rake, big-blind amounts and ``3x`` raises in spots (cfrlab.spot.config, the board
walk's terminals): a rake of 0 is the unraked solve bit for bit; hand-worked values on
check-down spots; the walk's values and best responses equal a plain walk over combo pairs
with the raked, dead-money payoffs written out; sizes read the whole pot; the files keep them."""

import numpy as np
import pytest
from spot_helpers import RIVER, small_river

from cfrlab.cards import rank_hand
from cfrlab.cards.ranges import COMBOS
from cfrlab.errors import CfrlabError
from cfrlab.spot import make_spot, solve_spot, spot_tree
from cfrlab.spot.store import load_solution, save_solution
from cfrlab.tree.betting_tree import DECISION, FOLD, SHOWDOWN


def tables(sol) -> dict:
    return {k: v for k, v in sol.walk.state_dict().items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("zero", [{"rake": {"percent": 0}}, {"rake": {"percent": 5, "cap": 0}}, {"dead": 0}])
def test_a_rake_or_dead_money_of_zero_is_the_plain_solve_bit_for_bit(zero):
    plain = solve_spot(small_river(), target_pct=None, iterations=15)
    same = solve_spot(small_river(**zero), target_pct=None, iterations=15)
    a, b = tables(plain), tables(same)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert same.best_responses == plain.best_responses and same.values == plain.values


def check_down(**kw):
    """A river spot with no bets at all: both players check, the best hand wins."""
    args = {"board": "2c 3d 4h 9s Jc", "pot": 100, "stack": 50, "bets": {"bet": "-", "raise": "-"}}
    return make_spot(**{**args, **kw})


def test_rake_by_hand_on_a_check_down():
    """AA against KK on a low board, pot 100: OOP takes the pot less the rake, 5% capped at 3
    chips: EVs 97 and 0, zero-sum values +47 and -50. On a board both play (a royal flush)
    they split what the rake leaves: 48.5 each. Uncapped, 5% of 100 is 5."""
    sol = solve_spot(check_down(oop_range="AA", ip_range="KK", rake={"percent": 5, "cap": 3}),
                     target_pct=None, iterations=2)
    assert (sol.ev("oop"), sol.ev("ip")) == pytest.approx((97.0, 0.0), abs=1e-12)
    assert sol.values == pytest.approx((47.0, -50.0), abs=1e-12)
    assert sol.exploitability == pytest.approx(0.0, abs=1e-12)
    tie = solve_spot(check_down(board="Ah Kh Qh Jh Th", oop_range="22", ip_range="33",
                                rake={"percent": 5, "cap": 3}), target_pct=None, iterations=2)
    assert (tie.ev("oop"), tie.ev("ip")) == pytest.approx((48.5, 48.5), abs=1e-12)
    five = solve_spot(check_down(oop_range="AA", ip_range="KK", rake={"percent": 5}), target_pct=None, iterations=2)
    assert five.ev("oop") == pytest.approx(95.0, abs=1e-12)


def test_dead_money_by_hand_on_a_check_down():
    """Pot 101 with 1 dead chip (each player put in 50): the winner's EV is the whole pot;
    the zero-sum values count half the dead chip on each side: +50.5 and -50.5."""
    sol = solve_spot(check_down(pot=101, dead=1, oop_range="AA", ip_range="KK"), target_pct=None, iterations=2)
    assert (sol.ev("oop"), sol.ev("ip")) == pytest.approx((101.0, 0.0), abs=1e-12)
    assert sol.values == pytest.approx((50.5, -50.5), abs=1e-12)


def plain_values(sol, rake: float, cap: float | None, dead: float):
    """(BR0, BR1, EV0, EV1) by a plain walk over the public tree for every pair of combos
    (ranges, card removal and ranks straight from the spot), with the payoffs written out:
    a fold costs the folder what it put in plus half the dead money and gives the other
    that less the rake; a showdown's winner gains the stake less the rake, a tie costs
    each half the rake."""
    spot, tree = sol.spot, sol.tree
    board = [int(c) for c in spot.board]
    rng = [spot.ranges[0 if p == spot.oop_position else 1] for p in (0, 1)]
    combos = [np.flatnonzero(r) for r in rng]
    cards = {int(k): {int(c) for c in COMBOS[k]} for k in np.flatnonzero(rng[0] + rng[1])}
    rank = {k: rank_hand(sorted(c) + board) for k, c in cards.items()}
    strat = {int(n): sol.strategy(int(n)) for n in tree.decision_node}

    def rake_at(n):
        take = rake * (float(tree.spent[n].sum()) + dead)
        return take if cap is None else min(take, cap)

    def pay(n, p, mine, theirs):
        o = 1 - p
        if tree.kind[n] == FOLD:
            if tree.player[n] == p:
                return -(tree.spent[n, p] + dead / 2)
            return tree.spent[n, o] + dead / 2 - rake_at(n)
        diff = rank[mine] - rank[theirs]
        stake = tree.spent[n, o] + dead / 2
        return stake - rake_at(n) if diff > 0 else -stake if diff < 0 else -rake_at(n) / 2

    def value(n, p, mine, theirs, best):
        """p's value holding ``mine`` against the opponent's combos ``theirs`` (dict: weight)."""
        if tree.kind[n] in (FOLD, SHOWDOWN):
            return sum(w * pay(n, p, mine, t) for t, w in theirs.items())
        assert tree.kind[n] == DECISION
        kids = tree.child[tree.first_child[n]:tree.first_child[n] + tree.num_children[n]]
        s = strat[int(n)]
        if tree.player[n] == p:
            vals = [value(c, p, mine, theirs, best) for c in kids]
            return max(vals) if best else sum(s[mine, tree.action[c]] * v for c, v in zip(kids, vals))
        return sum(value(c, p, mine, {t: w * s[t, tree.action[c]] for t, w in theirs.items()}, best)
                   for c in kids)

    out = []
    for best in (True, False):
        for p in (0, 1):
            total = mass = 0.0
            for mine in combos[p]:
                theirs = {int(t): rng[1 - p][t] for t in combos[1 - p] if not cards[int(t)] & cards[int(mine)]}
                total += rng[p][mine] * value(0, p, int(mine), theirs, best)
                mass += rng[p][mine] * sum(theirs.values())
            out.append(total / mass)
    return out


@pytest.mark.parametrize("kw, rake, cap, dead", [
    ({"rake": {"percent": 5, "cap": 2}}, 0.05, 2.0, 0.0),
    ({"pot": 11, "dead": 1, "rake": {"percent": 10}}, 0.10, None, 1.0),
    ({"pot": 14, "dead": 4}, 0.0, None, 4.0),
])
def test_walk_equals_a_plain_walk_with_the_payoffs_written_out(kw, rake, cap, dead):
    sol = solve_spot(small_river(**kw), target_pct=None, iterations=12, storage="float64")
    b0, b1, v0, v1 = plain_values(sol, rake, cap, dead)
    assert sol.best_responses == pytest.approx((b0, b1), abs=1e-9)
    assert sol.values == pytest.approx((v0, v1), abs=1e-9)
    assert sol.exploitability == pytest.approx(0.5 * (b0 - v0 + b1 - v1), abs=1e-9)
    assert sol.exploitability > 1e-4  # 12 iterations: not yet an equilibrium


def test_pot_fraction_sizes_read_the_dead_money_and_3x_multiplies_the_bet():
    """Pot 101 (1 dead, 50 each): a pot-size bet is 101 more (raise to 151); facing a bet of
    B, '3x' raises to 3B; '2.5bb' amounts read big_blind."""
    spot = make_spot(board=RIVER, pot=101, dead=1, stack=1000, oop_range="AA", ip_range="KK",
                     bets={"bet": "p", "raise": "3x"})
    tree = spot_tree(spot)
    kids = tree.child[tree.first_child[0]:tree.first_child[0] + tree.num_children[0]]
    bet = next(int(c) for c in kids if tree.raise_to[c] > 0)
    assert tree.raise_to[bet] == 50 + 101
    raised = [int(c) for c in tree.child[tree.first_child[bet]:tree.first_child[bet] + tree.num_children[bet]]
              if tree.raise_to[c] > 0]
    assert [int(tree.raise_to[c]) for c in raised] == [50 + 3 * 101]
    bb = make_spot(board=RIVER, pot="5.5bb", dead="0.5bb", stack="97.5bb", big_blind=2,
                   oop_range="AA", ip_range="KK")
    assert (bb.pot, bb.dead, bb.stack, bb.put_in) == (11, 1, 195, 5)
    assert make_spot(board=RIVER, pot="5.5bb", stack="100bb", oop_range="AA", ip_range="KK").pot == 550


def test_rows_solvers_refuse_dead_money_and_rake_in_one_line():
    turn = make_spot(board="Qs Jh 2h 8d", pot=10, stack=20, oop_range="AA, QJs", ip_range="KK, T9s",
                     bets={"bet": "p", "raise": "-"}, rake={"percent": 5})
    with pytest.raises(CfrlabError, match="dead money or rake is solved on the spot's walk") as e:
        solve_spot(turn, "cfr", target_pct=None, iterations=2)
    assert "\n" not in str(e.value)


def test_saved_raked_spot_reads_back(tmp_path):
    spot = small_river(pot=11, dead=1, big_blind=2, rake={"percent": 5, "cap": 1})
    sol = solve_spot(spot, target_pct=None, iterations=10)
    path = tmp_path / "raked.npz"
    save_solution(sol, path)
    back = load_solution(path)
    assert (back.spot.dead, back.spot.big_blind, back.spot.rake_percent, back.spot.rake_cap) == (1, 2, 5.0, 1)
    assert back.values == sol.values and back.exploitability == sol.exploitability and not back.ignored
    assert (back.ev("oop"), back.ev("ip")) == (sol.ev("oop"), sol.ev("ip"))


# The ACPC 3-player no-limit hold'em: positions SB (blind 50), BB (100), BTN; BTN acts first
# before the flop, the SB first after it
NL3P = ("GAMEDEF\nnolimit\nnumPlayers = 3\nnumRounds = 4\nstack = 20000 20000 20000\nblind = 50 100 0\n"
        "firstPlayer = 3 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\n"
        "END GAMEDEF\n")


@pytest.mark.parametrize("holes", ["Ac Ad|Kc Kd", "Kc Kd|Ac Ad", "Ac Kd|Ad Kc"])
def test_dead_money_spot_is_the_three_player_games_subgame_where_the_blind_folded(holes):
    """BTN raises to 2.5 bb, the SB folds, the BB calls, both check the flop: in the ACPC
    3-player game the turn starts with 550 chips in the pot, 50 of them the folded blind's.
    The spot with pot 550 and 50 dead has the same betting below (every action of its tree,
    33% and 75% bets with 3x and all-in raises, is legal there with the same raise-to amount,
    the pot fractions taken of the 3-player pot) and the same payoffs less the half of the
    dead money the engine credits each player: at every fold and showdown, with the BB's hand
    better, worse and equal."""
    from cfrlab.cards.cards import parse_cards
    from cfrlab.games import parse_game
    from cfrlab.games.state import State
    from cfrlab.spot.fast import SpotGame
    from cfrlab.tree.betting_tree import CHANCE

    game3 = parse_game(NL3P, name="holdem-nolimit-3p")
    board = "Qs Jh 2h 8d 3c"
    bb, btn = holes.split("|")
    sb = "7c 7d"
    deal = parse_cards(f"{sb} {bb} {btn} {board}")
    spot = make_spot(board=board[:11], pot=550, dead=50, stack=19750, oop_range=bb, ip_range=btn,
                     bets={"bet": "33%, 75%", "raise": "3x, a"})
    tree = spot_tree(spot)
    g = SpotGame(spot, tree)
    start = State(game3, deal=deal)
    for a in ("r250", "f", "c", "c", "c"):  # preflop, then the flop checked through
        start.apply(a)
    assert (start.round, start.pot, start.current_player()) == (2, 550, 1)
    bb_wins = rank_hand(parse_cards(bb + " " + board)) > rank_hand(parse_cards(btn + " " + board))
    tie = rank_hand(parse_cards(bb + " " + board)) == rank_hand(parse_cards(btn + " " + board))
    seen = {FOLD: 0, SHOWDOWN: 0}
    bets = 0
    stack = [(0, start)]
    while stack:
        n, s = stack.pop()
        kind = int(tree.kind[n])
        if kind in (FOLD, SHOWDOWN):
            seen[kind] += 1
            pay = s.payoffs()
            if kind == FOLD:
                mine = [g.fold_pay(n, p) for p in (0, 1)]
            else:
                stake = [g.showdown_pay(n, p)[0] for p in (0, 1)]
                sign = 0 if tie else (1 if bb_wins else -1)
                mine = [sign * stake[0], -sign * stake[1]]
            assert pay[0] == -50  # the folded small blind
            assert (pay[1], pay[2]) == pytest.approx((mine[0] + 25, mine[1] + 25), abs=1e-9)
            continue
        first = int(tree.first_child[n])
        for c in tree.child[first:first + int(tree.num_children[n])]:
            c = int(c)
            nxt = s.clone()
            if kind != CHANCE:  # the 3-player state deals its own board
                a = tree.action_text(n, int(tree.action[c]))
                assert a in nxt.legal_actions() or (a[0] == "r" and nxt.raise_range() is not None
                                                    and nxt.raise_range()[0] <= int(a[1:]) <= nxt.raise_range()[1])
                if a[0] == "r" and s.max_spent == 250 + 0 and int(a[1:]) < 19750 + 250:
                    bets += 1  # an opening bet of the turn: a fraction of the 3-player pot
                    frac = (int(a[1:]) - 250) / s.pot
                    assert min(abs(frac - 0.33), abs(frac - 0.75)) < 1.0 / s.pot
                nxt.apply(a)
            stack.append((c, nxt))
    assert seen[FOLD] > 10 and seen[SHOWDOWN] > 10 and bets >= 2
