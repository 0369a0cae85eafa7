"""Human play in the terminal (``cfrlab play GAME --vs A``), drawn with rich.

Reads one action per line from ``stdin`` (so it can be scripted by piping), re-prompts on
invalid input with the reason, and ends at ``q`` or end of input with a summary. All the
rules and the score live in ``HumanTable``; this module only draws and reads.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from cfrlab.errors import IllegalActionError
from cfrlab.play.session import HUMAN_SEAT, HumanTable

SUIT_SYMBOL = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
SUIT_STYLE = {"c": "bold green", "d": "bold blue", "h": "bold red", "s": "bold"}
_ROUND_NAMES_HOLDEM = ("preflop", "flop", "turn", "river")


def card_markup(card: str | None) -> Text:
    """``As`` -> a reversed-video ``A♠`` (red hearts, blue diamonds, green clubs); None -> ``??``."""
    if card is None:
        return Text(" ?? ", style="reverse")
    rank, suit = card[:-1], card[-1]
    return Text(f" {rank}{SUIT_SYMBOL.get(suit, suit)} ", style=f"reverse {SUIT_STYLE.get(suit, '')}")


def cards_markup(cards: list[str] | None, hidden: int = 1) -> Text:
    out = Text()
    items = cards if cards is not None else [None] * hidden
    for i, c in enumerate(items):
        if i:
            out.append(" ")
        out.append_text(card_markup(c))
    return out


def round_name(game_rounds: int, r: int) -> str:
    return _ROUND_NAMES_HOLDEM[r] if game_rounds == 4 else f"round {r + 1}"


class TerminalPlay:
    """Draws ``HumanTable.view()`` and reads actions. ``input_line`` returns one line or ''
    at end of input."""

    def __init__(self, table: HumanTable, console: Console | None = None,
                 input_line: Callable[[], str] | None = None, stdin: TextIO | None = None):
        self.table = table
        self.console = console or Console(highlight=False)
        src = stdin or sys.stdin
        self.input_line = input_line or src.readline
        try:
            self.echo = input_line is None and not src.isatty()
        except (AttributeError, ValueError):
            self.echo = False

    # -- drawing -----------------------------------------------------------------------
    def _hole_count(self) -> int:
        return self.table.game.num_hole_cards

    @staticmethod
    def _width(view: dict) -> int:
        return max(8, *(len(n) + 2 for n in view["names"]))

    def draw_table(self, view: dict) -> None:
        c = self.console
        g = self.table.game
        me = view["seats"][HUMAN_SEAT]
        c.rule(f"Hand {view['hand_number'] + 1} \u00b7 you are {me['role']} \u00b7 score {view['score']['text']}")
        board = [card for rnd in view["board"] for card in rnd]
        if g.total_board_cards() > 0:
            line = Text(f"{'Board':<{self._width(view)}}")
            line.append_text(cards_markup(board) if board else Text("(none yet)", style="dim"))
            c.print(line)
        for seat in view["seats"]:
            line = Text(f"{seat['name']:<{self._width(view)}}")
            line.append_text(cards_markup(seat["cards"], self._hole_count()))
            status = " folded" if seat["folded"] else ""
            line.append(f"   in pot {seat['spent']}{status}  ({seat['role']})", style="dim")
            c.print(line)
        c.print(f"Pot {view['pot']}" + (f" \u00b7 to call {view['to_call']}" if view["to_call"] else ""))
        self.draw_events(view)

    def draw_events(self, view: dict) -> None:
        by_round: dict[int, list[str]] = {}
        for e in view["events"]:
            by_round.setdefault(e["round"], []).append(f"{e['who']} {e['text']}")
        for r, items in by_round.items():
            name = round_name(self.table.game.num_rounds, r)
            self.console.print(Text(f"  {name}: " + ", ".join(items), style="cyan"))

    def prompt_text(self, view: dict) -> Text:
        keys = {"f": "f", "c": "c"}
        parts = []
        for a in view["legal"]:
            key = keys.get(a["action"], "r" if self.table.game.is_limit else a["action"])
            parts.append(f"[{key}] {a['label'].lower()}")
        quick = view.get("quick_raises")
        if quick:
            parts.append(f"[h] half pot (r{quick['half']}) \u00b7 [p] pot (r{quick['pot']}) \u00b7 "
                         f"[a] all-in (r{quick['allin']})")
        if view.get("raise_range") and view["raise_range"][0] < view["raise_range"][1]:
            lo, hi = view["raise_range"]
            parts.append(f"r<N> raise to N ({lo}..{hi})")
        parts.append("[?] help \u00b7 [q] quit")
        return Text("Your action \u2014 " + " \u00b7 ".join(parts) + ": ", style="bold")

    def draw_result(self, view: dict) -> None:
        c = self.console
        res = view["result"]
        names = view["names"]
        board = res["board"]
        c.print(Text(f"End of hand {res['hand_number'] + 1}:", style="bold"))
        self.draw_events(view)
        if board:
            line = Text(f"{'Board':<{self._width(view)}}")
            line.append_text(cards_markup(board))
            c.print(line)
        for seat, cards in enumerate(res["cards"]):
            line = Text(f"{names[seat]:<{self._width(view)}}")
            line.append_text(cards_markup(cards))
            if res["hand_names"][seat]:
                line.append(f"  {res['hand_names'][seat]}")
            if seat != HUMAN_SEAT and not res["showdown"]:
                line.append("  (not shown at the table: the hand ended with a fold)", style="dim")
            line.append(f"  {res['values'][seat]:+g}", style="dim")
            c.print(line)
        style = "bold green" if res["value"] > 0 else "bold red" if res["value"] < 0 else "bold"
        c.print(Text(f"{res['text']}.", style=style) + Text(
            f"  Total {view['score']['chips']:+g} chips over {view['hands_played']} hand(s), {view['score']['text']}"))

    # -- trainer mode --------------------------------------------------------------------
    def draw_advice(self) -> None:
        """The trainer's line on the human's last decision, and the EV of each action."""
        if self.table.trainer_log is None or not self.table.trainer_log.hand:
            return
        a = self.table.trainer_view()["hand"][-1]
        style = "bold yellow" if a["mistake"] else "green"
        self.console.print(Text(f"  trainer ({a['cards']}, {a['situation']}): {a['text']}", style=style))
        if a["evs"] is not None:
            evs = ", ".join(f"{w} {ev:+.3f}" for w, ev in zip(a["words"], a["evs"]))
            self.console.print(Text(f"  EV of each action in chips, both continuing with the strategy: {evs}",
                                    style="dim"))

    def trainer_summary(self) -> None:
        """The finished hands' EV given up and the costliest mistakes, as a table."""
        view = self.table.trainer_view()
        s = view["summary"]
        c = self.console
        c.print(Text(f"Trainer (against {view['reference']}): {s['decisions']} decision(s) in {s['hands']} "
                     f"hand(s), {s['mistakes']} mistake(s); EV given up {s['total_loss']:.3f} chips in all, "
                     f"{s['per_hand_text']}", style="bold"))
        if s["rated"] < s["decisions"]:
            c.print(Text(f"  {s['decisions'] - s['rated']} decision(s) off the strategy's tree were not rated",
                         style="dim"))
        if not s["top"]:
            return
        t = Table(title="Costliest mistakes", title_justify="left")
        for col in ("hand", "cards", "situation", "betting", "you", "best", "EV lost (chips)"):
            t.add_column(col, justify="right" if col in ("hand", "EV lost (chips)") else "left")
        for a in s["top"]:
            word = dict(zip(a["actions"], a["words"]))
            t.add_row(str(a["hand_number"] + 1), a["cards"], a["situation"], a["betting"] or "-",
                      word[a["chosen"]], word[a["best"]], f"{a['loss']:.4f}" if a["loss"] < 0.01 else f"{a['loss']:.3f}")
        c.print(t)

    def help_words(self) -> tuple[str, ...]:
        # in no-limit "h" is the half-pot raise; "?" and "help" always show the help
        return ("?", "help") if not self.table.game.is_limit else ("?", "h", "help")

    def help_text(self) -> str:
        if self.table.game.is_limit:
            return "f = fold, c = check/call, r = bet/raise, ? = help, q = quit"
        return ("f = fold, c = check/call, r<N> = bet/raise to N chips in total (r alone: the minimum), "
                "h = half-pot raise, p = pot-size raise (call, then raise by the pot), a = all-in, "
                "? = help, q = quit")

    # -- the loop ----------------------------------------------------------------------
    def read_action(self, view: dict) -> str | None:
        """The human's action (ACPC), or None to quit; re-prompts until the input is legal."""
        while True:
            self.console.print(self.prompt_text(view), end="")
            line = self.input_line()
            if not line:  # end of input
                self.console.print()
                return None
            text = line.strip()
            if self.echo:  # input piped in: show it, so the transcript reads like a session
                self.console.print(Text(text, style="italic"))
            if text.lower() in ("q", "quit", "exit"):
                return None
            if text.lower() in self.help_words():
                self.console.print(self.help_text())
                continue
            try:
                action = self.table.act(text)
            except IllegalActionError as e:
                self.console.print(Text(f"Not accepted: {e}", style="bold red"))
                continue
            self.draw_advice()
            return action

    def play(self, hands: int | None = None) -> int:
        """Play until ``hands`` hands are done (None = until the human quits); returns hands played."""
        t = self.table
        name = t.game.name or "the game"
        keys = ("Type f, c or r, ? for help, q to quit." if t.game.is_limit else
                "Type f, c, r<N> (raise to N), h (half pot), p (pot) or a (all-in), ? for help, q to quit.")
        self.console.print(Text(f"cfrlab: you against {', '.join(t.names[1:])} at {name}. {keys}", style="bold"))
        while hands is None or t.hands_played < hands:
            t.start_hand()
            while not t.hand_over:
                view = t.view()
                self.draw_table(view)
                if self.read_action(view) is None:
                    self.summary(quit_mid_hand=True)
                    return t.hands_played
            self.draw_result(t.view())
        self.summary()
        return t.hands_played

    def summary(self, quit_mid_hand: bool = False) -> None:
        view = self.table.view()
        note = " (the unfinished hand is not counted)" if quit_mid_hand else ""
        self.console.rule("Match over")
        self.console.print(f"{view['hands_played']} hand(s) played{note}: you {view['score']['chips']:+g} chips, "
                           f"{view['score']['text']}.")
        if self.table.trainer_log is not None:
            self.trainer_summary()
