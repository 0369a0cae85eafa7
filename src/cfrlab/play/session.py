"""One human against agents: the table both human front ends (terminal, browser) drive.

The human sits in seat 0, agents in the other seats. As at the dealer, seat s has position
``(s - h) mod N`` in hand h and the cards come from ``deal_for_hand(game, seed, h)``. Agents
see exactly what an ACPC seat sees (``State.view``: the ``MatchState`` of the line the dealer
would send), act automatically, and an agent's illegal action or exception becomes call.

``HumanTable.view()`` is a JSON-able dict describing what the human may see right now; the
terminal renders it with rich, the web app sends it as is. Card texts are ACPC (``As``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from cfrlab.cards import card_text, category_name, rank_hand
from cfrlab.errors import CfrlabError, IllegalActionError
from cfrlab.fileio import printable
from cfrlab.games.agent import Agent
from cfrlab.games.gamedef import GameDef
from cfrlab.games.matchstate import seat_view
from cfrlab.games.state import State
from cfrlab.games.units import MBB, is_ante_game, rate_unit, to_unit
from cfrlab.play.client import safe_action
from cfrlab.play.deal import deal_for_hand
from cfrlab.play.dealer import seat_position
from cfrlab.play.trainer import Trainer, TrainerLog, chips_formatter, mistake_threshold
from cfrlab.tree.bets import POT, BetSize

HUMAN_SEAT = 0
MAX_HISTORY = 50


def score_text(game: GameDef, total: float, hands: int) -> tuple[float, str, str]:
    """(per-game value, unit, display text) of a running total over ``hands`` hands."""
    if hands == 0:
        per = 0.0
    else:
        per = to_unit(game, total / hands)
    unit = rate_unit(game)
    return per, unit, f"{per:+.1f} {unit}" if unit == MBB else f"{per:+.3f} {unit}"


def position_name(game: GameDef, position: int) -> str:
    """``big blind`` / ``small blind`` in blind games, else ``first to act`` or ``position k``."""
    blind = game.blind[position]
    if not is_ante_game(game) and blind == game.big_blind:
        return "big blind"
    if not is_ante_game(game) and blind > 0:
        return "small blind"
    if position == game.first_player[0]:
        return "first to act"
    return f"position {position + 1}"


HALF_POT_WORDS = ("h", "half", "halfpot", "half-pot")
POT_WORDS = ("p", "pot")
# the quick sizes offered to a person: the pot-fraction raises of the bet specs ("0.5p", "p")
QUICK_FRACTIONS = (("half", 0.5), ("pot", 1.0))


def quick_raises(state: State) -> dict[str, int] | None:
    """Raise-to totals for a half-pot raise, a pot-size raise and all-in in a no-limit game
    (``{"half": .., "pot": .., "allin": ..}``); None when raising is not possible (or the game
    is limit). A pot-fraction raise calls first, then raises by that fraction of the pot after
    the call (the bet specs' ``0.5p`` and ``p``); each total is clamped to the legal range."""
    bounds = state.raise_range()
    if bounds is None or state.game.is_limit:
        return None
    lo, hi = bounds
    out = {name: min(max(BetSize(POT, f).raise_to(state, state.game.big_blind), lo), hi)
           for name, f in QUICK_FRACTIONS}
    out["allin"] = hi
    return out


def parse_human_action(text: str, state: State) -> str:
    """A typed or clicked action -> an ACPC action legal in ``state``; IllegalActionError with a
    short reason otherwise. Accepts f/fold, c/call, check/k/x (only when there is nothing to
    call), r/raise/bet/b, and in no-limit
    ``r<N>`` / ``r N`` / ``raise N`` (raise to N in total), ``r`` alone (the minimum), a/allin,
    h/half (a half-pot raise) and p/pot (a pot-size raise; ``quick_raises``)."""
    t = text.strip().lower().replace(" ", "")
    if not t:
        raise IllegalActionError("type an action")
    bounds = state.raise_range()
    if t in ("f", "fold"):
        action = "f"
    elif t in ("c", "call"):
        action = "c"
    elif t in ("check", "k", "x"):  # a check when facing a bet would be a call: say so instead
        if state.is_legal("f"):
            raise IllegalActionError("you face a bet: call (c) or fold (f), you cannot check")
        action = "c"
    elif t in ("a", "allin", "all-in", "shove"):
        if bounds is None:
            raise IllegalActionError("raising is not possible now")
        action = "r" if state.game.is_limit else f"r{bounds[1]}"
    elif t in HALF_POT_WORDS or t in POT_WORDS:
        if state.game.is_limit:
            raise IllegalActionError("half-pot and pot raises are for no-limit games: raise with r")
        sizes = quick_raises(state)
        if sizes is None:
            raise IllegalActionError("raising is not possible now")
        action = f"r{sizes['half' if t in HALF_POT_WORDS else 'pot']}"
    elif t[0] in "rb":
        rest = t.lstrip("rb").removeprefix("aise").removeprefix("et").removeprefix("to")
        if bounds is None:
            raise IllegalActionError("raising is not possible now")
        if state.game.is_limit:
            if rest:
                raise IllegalActionError("this is a limit game: raise with plain 'r'")
            action = "r"
        elif not rest:
            action = f"r{bounds[0]}"
        elif rest.isdigit():
            n = int(rest)
            if not bounds[0] <= n <= bounds[1]:
                raise IllegalActionError(f"raise to an amount from {bounds[0]} to {bounds[1]}")
            action = f"r{n}"
        else:
            raise IllegalActionError(f"{text.strip()!r}: give the raise-to amount as a number, e.g. r{bounds[0]}")
    else:
        raise IllegalActionError(f"{text.strip()!r} is not an action (f, c, r)")
    if action == "f" and not state.is_legal("f"):
        raise IllegalActionError("nothing to call: check (c) instead of folding")
    if not state.is_legal(action):
        raise IllegalActionError(f"{action!r} is not legal now (legal: {', '.join(state.legal_actions())})")
    return action


def hand_name(state: State, position: int) -> str | None:
    """What ``position``'s hole cards and the board make, e.g. ``"two pair"``; None for one-card
    hands (Kuhn: the higher card wins)."""
    cards = state.hole_cards(position) + state.visible_board()
    if len(cards) < 2:
        return None
    return category_name(rank_hand(cards)).replace("_", " ")


def describe_action(state: State, action: str, imperative: bool = False) -> str:
    """Words for ``action`` by the player to act in ``state`` (before it is applied):
    ``"raises to 20"``, or with ``imperative`` a button label such as ``"Raise to 20"``."""
    p = state.current_player()
    to_call = state.max_spent - state.spent[p]
    stack = state.game.stack[p]
    if action == "f":
        verb, amount, allin = "fold", None, False
    elif action == "c" and to_call == 0:
        verb, amount, allin = "check", None, False
    elif action == "c":
        amount = min(to_call, stack - state.spent[p])
        verb, allin = "call", state.spent[p] + amount >= stack
    else:
        bounds = state.raise_range()
        amount = bounds[0] if state.game.is_limit and bounds else int(action[1:] or 0)
        opening = to_call == 0 and state.num_raises == 0 and (state.round > 0 or is_ante_game(state.game))
        allin = amount >= stack
        if opening:  # a bet: its size, and the raise-to total when chips are already in
            words = "Bet" if imperative else "bets"
            notes = ([f"to {amount}"] if state.max_spent else []) + (["all-in"] if allin else [])
            return f"{words} {amount - state.max_spent}" + (f" ({', '.join(notes)})" if notes else "")
        verb = "raise to"
    if imperative:
        words = verb[0].upper() + verb[1:]
    else:
        words = {"fold": "folds", "check": "checks", "call": "calls"}.get(verb, "raises to")
    if amount is not None:
        words += f" {amount}"
    return words + (" (all-in)" if allin else "")


@dataclass
class Event:
    round: int
    seat: int
    action: str
    text: str       # third person: "raises to 20"
    label: str      # imperative: "Raise to 20" (for "you raise to 20")


@dataclass
class HandRecord:
    hand_number: int
    position: int
    cards: list[list[str]]          # hole cards by seat
    board: list[str]
    betting: str
    values: list[float]             # by seat
    showdown: bool
    events: list[Event] = field(default_factory=list)
    hand_names: list[str | None] = field(default_factory=list)  # by seat, at a showdown: "one pair"


class HumanTable:
    """A human in seat 0 against ``agents`` (one per other seat). ``start_hand()`` deals the
    next hand and lets the agents act until the human must act or the hand ends; ``act()``
    applies the human's action (refused with IllegalActionError when not legal). With a
    ``trainer`` (``cfrlab.play.trainer.Trainer``) every human decision is rated against its
    strategy before it is applied, in ``trainer_log``."""

    def __init__(self, game: GameDef, agents: Sequence[Agent], *, seed: int | None = None,
                 names: Sequence[str] | None = None, agent_seed: int | None = None,
                 trainer: Trainer | None = None):
        if len(agents) != game.num_players - 1:
            raise CfrlabError(f"{game.name or 'the game'} needs {game.num_players - 1} agent(s), got {len(agents)}")
        if (seed is not None and int(seed) < 0) or (agent_seed is not None and int(agent_seed) < 0):
            raise CfrlabError("seeds must be non-negative integers")
        self.game = game
        self.agents = list(agents)
        self.seed = secrets.randbits(32) if seed is None else int(seed)
        if names:
            self.names = list(names)
        else:
            bots = [getattr(a, "name", "bot") or "bot" for a in agents]
            if len(set(bots)) < len(bots):  # several copies of one agent: number them by seat
                bots = [f"{b}-{seat}" for seat, b in enumerate(bots, 1)]
            self.names = ["you", *bots]
        self.hand_number = -1
        self.state: State | None = None
        self.positions: list[int] = []
        self.events: list[Event] = []
        self.totals = [0.0] * game.num_players
        self.hands_played = 0
        self.history: list[HandRecord] = []
        self.warnings: list[str] = []
        if trainer is not None and trainer.game.to_text() != game.to_text():
            raise CfrlabError(f"the trainer's strategy is for {trainer.game.name or 'another game'}, "
                              f"not for {game.name or 'this game'}")
        self.trainer = trainer
        self.trainer_log = TrainerLog(mistake_threshold(game)) if trainer is not None else None
        for i, a in enumerate(self.agents):
            a.begin_match(game, None if agent_seed is None else agent_seed + i)

    # -- seats and positions -----------------------------------------------------------
    def seat_of(self, position: int) -> int:
        return self.positions.index(position)

    @property
    def human_position(self) -> int:
        return self.positions[HUMAN_SEAT]

    @property
    def hand_over(self) -> bool:
        return self.state is None or self.state.is_terminal()

    @property
    def human_to_act(self) -> bool:
        return self.state is not None and not self.state.is_terminal() and \
            self.state.current_player() == self.human_position

    # -- play --------------------------------------------------------------------------
    def start_hand(self) -> None:
        if not self.hand_over:
            raise IllegalActionError("the current hand is not over yet")
        self.hand_number += 1
        h, n = self.hand_number, self.game.num_players
        self.positions = [seat_position(s, h, n) for s in range(n)]
        self.state = State(self.game, deal_for_hand(self.game, self.seed, h), hand_number=h)
        self.events = []
        if self.trainer_log is not None:
            self.trainer_log.begin_hand()
        self._run_agents()

    def legal_actions(self) -> list[str]:
        return self.state.legal_actions() if self.human_to_act else []

    def act(self, text: str, strict: bool = False) -> str:
        """Apply the human's action; returns the ACPC action. ``text`` is typed input
        (``parse_human_action``), or with ``strict`` exactly an ACPC action (f, c, r, r<N>)."""
        if self.state is None or self.state.is_terminal():
            raise IllegalActionError("the hand is over: start the next hand")
        if not self.human_to_act:
            raise IllegalActionError("it is not your turn")
        if strict:
            if not self.state.is_legal(text):
                legal = ", ".join(self.state.legal_actions())
                rng = self.state.raise_range()
                extra = f" (raise to {rng[0]}..{rng[1]})" if rng and not self.game.is_limit else ""
                raise IllegalActionError(f"{text!r} is not legal now; legal: {legal}{extra}")
            action = text
        else:
            action = parse_human_action(text, self.state)
        if self.trainer is not None:
            self.trainer_log.add(self.trainer.advise(self.state, action, self.hand_number))
        self._apply(action)
        self._run_agents()
        return action

    def _apply(self, action: str) -> None:
        s = self.state
        seat = self.seat_of(s.current_player())
        self.events.append(Event(s.round, seat, action, describe_action(s, action),
                                 describe_action(s, action, imperative=True)))
        s.apply(action)
        if s.is_terminal():
            self._finish_hand()

    def _run_agents(self) -> None:
        s = self.state
        while not s.is_terminal() and s.current_player() != self.human_position:
            p = s.current_player()
            seat = self.seat_of(p)
            view = seat_view(s, p)
            action, warning = safe_action(self.agents[seat - 1], view)
            if warning:
                self.warnings.append(f"hand {self.hand_number}, {self.names[seat]}: {warning}")
            self._apply(action)

    def _finish_hand(self) -> None:
        s = self.state
        values = s.payoffs()
        by_seat = [values[self.positions[seat]] for seat in range(self.game.num_players)]
        for seat, v in enumerate(by_seat):
            self.totals[seat] += v
        self.hands_played += 1
        if self.trainer_log is not None:
            self.trainer_log.end_hand()
        for seat in range(1, self.game.num_players):
            try:
                self.agents[seat - 1].end_hand(seat_view(s, self.positions[seat]))
            except Exception as e:  # noqa: BLE001 (a buggy agent hook must not end the session)
                self.warnings.append(f"{self.names[seat]}.end_hand raised {type(e).__name__}: {e}")
        rec = HandRecord(
            hand_number=self.hand_number,
            position=self.human_position,
            cards=[[card_text(c) for c in s.hole_cards(self.positions[seat])] for seat in range(self.game.num_players)],
            board=[card_text(c) for c in s.visible_board()],
            betting=s.betting_string(),
            values=by_seat,
            showdown=s.is_showdown(),
            events=list(self.events),
            hand_names=[hand_name(s, self.positions[seat]) if s.is_showdown() and not s.folded[self.positions[seat]]
                        else None for seat in range(self.game.num_players)],
        )
        self.history.append(rec)
        del self.history[:-MAX_HISTORY]

    # -- what the human sees -----------------------------------------------------------
    def view(self) -> dict:
        """Everything the human may see now (JSON-able)."""
        g, s = self.game, self.state
        per, unit, text = score_text(g, self.totals[HUMAN_SEAT], self.hands_played)
        out: dict = {
            "game": g.name or "game",
            "limit": g.is_limit,
            "round_names": (["preflop", "flop", "turn", "river"] if g.num_rounds == 4
                            else [f"round {r + 1}" for r in range(g.num_rounds)]),
            "names": self.names,
            "hands_played": self.hands_played,
            "score": {"chips": self.totals[HUMAN_SEAT], "per_game": per, "unit": unit, "text": text},
            "history": [self._record_json(r) for r in reversed(self.history[-20:])],
        }
        if self.trainer_log is not None:
            out["trainer"] = self.trainer_view()
        if s is None:
            out.update(hand_number=None, hand_over=True, your_turn=False, legal=[])
            return out
        over = s.is_terminal()
        n = g.num_players
        board_rounds = [[card_text(c) for c in s.board_cards(r)] for r in range(s.round + 1)]
        seats = []
        for seat in range(n):
            pos = self.positions[seat]
            show = seat == HUMAN_SEAT or over
            seats.append({
                "name": self.names[seat],
                "position": pos,
                "role": position_name(g, pos),
                "button": pos == n - 1,
                "cards": [card_text(c) for c in s.hole_cards(pos)] if show else None,
                "spent": s.spent[pos],
                "folded": s.folded[pos],
            })
        legal = []
        if self.human_to_act:
            for a in s.legal_actions():
                legal.append({"action": a, "label": describe_action(s, a, imperative=True)})
        rng = s.raise_range() if self.human_to_act and not g.is_limit else None
        out.update(
            hand_number=self.hand_number,
            hand_over=over,
            your_turn=self.human_to_act,
            your_position=self.human_position,
            seats=seats,
            board=board_rounds,
            pot=s.pot,
            to_call=(s.max_spent - s.spent[self.human_position]) if self.human_to_act else 0,
            betting=s.betting_string(),
            events=[self._event_json(e) for e in self.events],
            legal=legal,
            raise_range=list(rng) if rng else None,
            quick_raises=quick_raises(s) if rng else None,
            result=self._record_json(self.history[-1]) if over and self.history else None,
        )
        return out

    def trainer_view(self) -> dict:
        """The trainer's words (JSON-able): ``hand``, each decision of the current (or just
        finished) hand rated (``Advice.to_json`` plus ``text``, its one line), and ``summary``
        over the finished hands (``TrainerLog.summary``)."""
        chips = chips_formatter(self.game)
        return {
            "reference": printable(self.trainer.strategy.name, 60),
            "hand": [{**a.to_json(), "text": a.line(chips, self.trainer_log.threshold),
                      "mistake": a.loss is not None and a.loss > self.trainer_log.threshold}
                     for a in self.trainer_log.hand],
            "summary": self.trainer_log.summary(self.game, self.hands_played),
        }

    def _event_json(self, e: Event) -> dict:
        words = e.label[0].lower() + e.label[1:] if e.seat == HUMAN_SEAT else e.text
        return {"round": e.round, "who": self.names[e.seat], "seat": e.seat, "action": e.action, "text": words}

    def _record_json(self, r: HandRecord) -> dict:
        you = r.values[HUMAN_SEAT]
        verdict = "won" if you > 0 else "lost" if you < 0 else "split"
        return {
            "hand_number": r.hand_number,
            "cards": r.cards,
            "board": r.board,
            "betting": r.betting,
            "values": r.values,
            "value": you,
            "showdown": r.showdown,
            "hand_names": r.hand_names,
            "text": f"You {verdict}" + (f" {abs(you):g} chip{'s' if abs(you) != 1 else ''}" if you else " the pot"),
        }

