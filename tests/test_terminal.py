"""Human play in the terminal: input parsing, prompts, re-prompts, results and the CLI
(stdin piped; and a real terminal through tmux when tmux is installed)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import time
import uuid

import pytest
from play_helpers import CFRLAB, CallAgent, RaiseAgent
from rich.console import Console

from cfrlab.cards import card_rank, parse_card
from cfrlab.errors import IllegalActionError
from cfrlab.games import load_game
from cfrlab.games.state import State
from cfrlab.play.deal import deal_for_hand
from cfrlab.play.dealer import seat_position
from cfrlab.play.session import HumanTable, parse_human_action
from cfrlab.play.terminal import TerminalPlay


def _run(game_name, lines, agent=None, hands=None, seed=1):
    g = load_game(game_name)
    table = HumanTable(g, [agent or CallAgent()], seed=seed)
    out = io.StringIO()
    feed = iter(lines)
    tp = TerminalPlay(table, console=Console(file=out, width=200, color_system=None),
                      input_line=lambda: next(feed, ""))
    played = tp.play(hands)
    return table, out.getvalue(), played


def _kuhn_showdown_values(seed, hands):
    """Independent oracle: check-check Kuhn hands go to showdown for the ante (1 chip)."""
    g = load_game("kuhn")
    out = []
    for h in range(hands):
        deal = deal_for_hand(g, seed, h)
        me = seat_position(0, h, 2)
        mine, theirs = card_rank(deal[me]), card_rank(deal[1 - me])
        out.append(1 if mine > theirs else -1)
    return out


def test_parse_human_action_limit():
    g = load_game("holdem-limit")
    s = State(g, deal_for_hand(g, 0, 0))  # position 1 faces the big blind
    assert parse_human_action("f", s) == "f"
    assert parse_human_action(" Call ", s) == "c"
    assert parse_human_action("raise", s) == "r"
    assert parse_human_action("b", s) == "r"
    with pytest.raises(IllegalActionError, match="limit game"):
        parse_human_action("r30", s)
    with pytest.raises(IllegalActionError, match="not an action"):
        parse_human_action("zz", s)
    for word in ("check", "x", "k"):  # facing the big blind: a "check" would call, so it is refused
        with pytest.raises(IllegalActionError, match="you face a bet"):
            parse_human_action(word, s)
    s.apply("c")
    with pytest.raises(IllegalActionError, match="nothing to call"):
        parse_human_action("f", s)
    assert [parse_human_action(w, s) for w in ("check", "x", "k", "c", "call")] == ["c"] * 5


def test_parse_human_action_nolimit():
    g = load_game("holdem-nolimit")
    s = State(g, deal_for_hand(g, 0, 0))
    assert parse_human_action("r", s) == "r200"
    assert parse_human_action("r 450", s) == "r450"
    assert parse_human_action("raise 450", s) == "r450"
    assert parse_human_action("r450", s) == "r450"
    assert parse_human_action("a", s) == "r20000"
    with pytest.raises(IllegalActionError, match="from 200 to 20000"):
        parse_human_action("r150", s)
    with pytest.raises(IllegalActionError, match="from 200 to 20000"):
        parse_human_action("r30000", s)
    with pytest.raises(IllegalActionError, match="as a number"):
        parse_human_action("rabc", s)


def test_kuhn_session_shows_cards_results_and_the_running_score():
    table, out, played = _run("kuhn", ["c"] * 10, hands=4, seed=3)
    assert played == 4
    expected = _kuhn_showdown_values(3, 4)
    assert [r.values[0] for r in table.history] == expected
    assert table.totals[0] == sum(expected)
    assert out.count("End of hand") == 4
    assert "caller   " in out and "??" in out  # opponent's card hidden while playing ...
    assert out.count("caller   Q\u2660") + out.count("caller   K\u2660") + out.count("caller   A\u2660") >= 4  # ... shown after
    assert f"Total {sum(expected):+g} chips over 4 hand(s)" in out
    assert "[c] check" in out and "[r] bet 1" in out and "[q] quit" in out
    assert "4 hand(s) played" in out


def test_invalid_inputs_each_get_a_reason():
    _table, out, played = _run("kuhn", ["zz", "f", "r5", "?", "   ", "c"], hands=1, seed=3)
    assert played == 1
    assert "Not accepted: type an action" in out
    assert "Not accepted: 'zz' is not an action" in out
    assert "Not accepted: nothing to call: check (c) instead of folding" in out
    assert "Not accepted: this is a limit game" in out
    assert "f = fold, c = check/call, r = bet/raise" in out
    assert out.count("Your action") == 6


def test_nolimit_raise_sizes_and_all_in():
    table, out, played = _run("holdem-nolimit", ["r100", "r 300", "c", "c", "c", "c", "c", "c"], hands=1, seed=2)
    assert played == 1
    assert "Not accepted: raise to an amount from 200 to 20000" in out
    assert "you raise to 300" in out
    rec = table.history[0]
    assert rec.betting.startswith("cr300c/") or rec.betting.startswith("r300c/")
    assert "r<N> raise to N (200..20000)" in out


def test_quit_and_end_of_input_stop_with_a_summary():
    _table, out, _played = _run("leduc", ["c", "q"], agent=RaiseAgent(), seed=4)
    assert "Match over" in out and "unfinished hand is not counted" in out
    _table, out, played = _run("leduc", [], seed=4)
    assert played == 0 and "Match over" in out


def test_opponent_cards_are_shown_even_after_a_fold():
    # the raiser bets, we fold: the hand ends without a showdown, the cards are still shown
    _table, out, played = _run("kuhn", ["c", "f", "f"], agent=RaiseAgent(), hands=2, seed=5)
    assert played == 2
    assert "not shown at the table: the hand ended with a fold" in out


def test_cli_play_with_piped_stdin():
    p = subprocess.run([*CFRLAB, "play", "kuhn", "--vs", "always-call", "--hands", "2", "--seed", "3"],
                       input="zz\nc\nc\n", capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    assert "Not accepted: 'zz' is not an action" in p.stdout
    assert "2 hand(s) played" in p.stdout
    expected = sum(_kuhn_showdown_values(3, 2))
    assert f"you {expected:+g} chips" in p.stdout


@pytest.mark.parametrize("args, why", [
    (["--vs", "nobody"], "unknown agent"),
    (["--vs", "value", "--hands", "0"], "--hands must be at least 1"),
    (["--vs", "value", "--seed", "-3"], "--seed must be a non-negative integer"),
    (["--vs", "missing.npz"], "no such strategy file"),
])
def test_cli_play_bad_options_are_one_line(args, why):
    p = subprocess.run([*CFRLAB, "play", "kuhn", *args], input="", capture_output=True, text=True,
                       timeout=60, check=False)
    assert p.returncode != 0 and p.stderr.startswith("cfrlab: error:") and why in p.stderr
    assert p.stderr.count("\n") == 1 and p.stdout == ""


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_cli_play_in_a_real_terminal_with_tmux(tmp_path):
    """A real pseudo-terminal: keys typed through tmux, screen captured."""
    sock = f"cfrlab-test-{uuid.uuid4().hex[:8]}"  # a private tmux server, killed at the end
    tmux = ["tmux", "-L", sock]
    cmd = " ".join([*CFRLAB, "play", "kuhn", "--vs", "always-call", "--hands", "1", "--seed", "3"])
    env = dict(os.environ, TERM="xterm-256color")
    subprocess.run([*tmux, "new-session", "-d", "-x", "150", "-y", "50", f"{cmd}; sleep 30"], env=env,
                   check=True, timeout=20)

    def screen():
        return subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True, timeout=10,
                              check=False).stdout

    def wait_for(text, limit=30.0):
        end = time.monotonic() + limit
        while time.monotonic() < end:
            s = screen()
            if text in s:
                return s
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear; screen:\n{screen()}")

    try:
        wait_for("Your action")
        subprocess.run([*tmux, "send-keys", "zz", "Enter"], check=True, timeout=10)
        wait_for("Not accepted")
        subprocess.run([*tmux, "send-keys", "c", "Enter"], check=True, timeout=10)
        s = wait_for("1 hand(s) played")  # the summary's last line: everything before it is on screen
        assert "End of hand 1" in s and "Match over" in s
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=10, check=False)


def test_showdown_names_the_hands():
    """Leduc: a pair when the hole card's rank is the board's, else high card (an independent rule)."""
    table, out, played = _run("leduc", ["c"] * 40, hands=6, seed=8)
    assert played == 6
    for rec in table.history:
        assert rec.showdown  # the caller never folds and we only check or call
        board_rank = card_rank(parse_card(rec.board[0]))
        want = ["one pair" if card_rank(parse_card(c[0])) == board_rank else "high card" for c in rec.cards]
        assert rec.hand_names == want
    assert out.count("one pair") + out.count("high card") >= 12
    kuhn_table, _, _ = _run("kuhn", ["c"] * 4, hands=2)
    assert all(r.hand_names == [None, None] for r in kuhn_table.history)  # one card: no hand name


def test_nolimit_quick_sizes_half_pot_pot_all_in():
    """h, p and a raise by half the pot, the pot (after calling) and all-in; the prompt shows
    their amounts; an illegal amount is refused with the range and the hand goes on."""
    # hand 0: we are the big blind; the caller limps (pot 200), so a pot raise is to 100 + 200
    table, out, played = _run("holdem-nolimit", ["?", "p", "r5", "h", "a"], hands=1, seed=2)
    assert played == 1
    assert "h = half-pot raise, p = pot-size raise" in out  # '?' is the help; 'h' is no longer
    assert "[h] half pot (r200) \u00b7 [p] pot (r300) \u00b7 [a] all-in (r20000)" in out
    assert "Not accepted: raise to an amount from 400 to 20000" in out  # a bet of one big blind at least
    assert "[h] half pot (r600) \u00b7 [p] pot (r900)" in out  # flop: pot 600 -> 300 + 300, 300 + 600
    assert table.history[0].betting == "cr300c/r600c/r20000c/"
    assert out.count("Your action") == 5


def test_quick_sizes_are_refused_in_limit_and_when_raising_is_not_possible():
    g = load_game("holdem-limit")
    s = State(g, deal_for_hand(g, 0, 0))
    with pytest.raises(IllegalActionError, match="no-limit games: raise with r"):
        parse_human_action("p", s)
    g = load_game("holdem-nolimit")
    s = State(g, deal_for_hand(g, 0, 0))
    s.apply("r20000")  # facing an all-in: only fold or call
    with pytest.raises(IllegalActionError, match="raising is not possible now"):
        parse_human_action("h", s)
    s = State(g, deal_for_hand(g, 0, 0))
    s.apply("r19000")  # a pot raise (19000 + 19100) is more than the stack: clamped to all-in
    assert parse_human_action("pot", s) == "r20000"
