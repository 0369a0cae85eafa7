"""Trainer mode: what a reference strategy does at each of the person's decisions, and the EV
the person's choice gave up against it.

``Trainer(strategy)`` walks the strategy's profile once, exactly, with the engine's vector walk
(``cfrlab.engine.kernels``: reach vectors forward, counterfactual values backward, both players
following the strategy). Every later question is a lookup. At a decision node n of the acting
player q with private state s (its hand, or its bucket sequence in an abstraction):

* the strategy's play is its row ``policy[row_offset[d] + s]``;
* the value of action a is ``v_q[child_a, s] / w(s)``: the counterfactual value of the child
  (a sum over the opponent's private states and the cards to come, each weighted by its chance
  probability and the opponent's reach under the strategy, both players continuing with it)
  over the counterfactual reach ``w(s) = sum_o P_r[s, o] * reach_opp[n, o]`` (``P_r``: the
  chance model's joint probability of the two private states at round r). That is the action's
  expected winnings in chips, given what q knows there, when the opponent's hands are
  distributed as the strategy's betting so far says.

The EV given up by a choice is the best action's EV minus the chosen one's, as postflop solvers
report an EV loss: 0 for every action an exact equilibrium plays at a spot it reaches. A spot the
strategy never reaches (the opponent did something it never does with any hand) has no such
distribution; there the opponent's hands are weighted as if every action of the strategy had a
tiny probability ``SMOOTHING`` more (its least unlikely explanations), and ``reached`` is False.
A betting the strategy's tree does not hold (a no-limit size outside its betting abstraction)
gets the strategy's play where it is known and no EV.

``TrainerLog`` keeps one session's decisions: the current hand's, and for the finished hands
the total EV given up and the costliest mistakes (``summary``).
"""

from __future__ import annotations

import heapq
import threading
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from cfrlab.abstraction.model import has_blocks
from cfrlab.cards import card_text
from cfrlab.engine import get_engine
from cfrlab.engine import kernels as K
from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef
from cfrlab.games.state import State
from cfrlab.games.units import MBB, is_ante_game, rate_unit, to_unit
from cfrlab.strategy import Strategy

SMOOTHING = 1e-6  # the tremble behind the opponent's hands at spots the strategy never reaches
EXACT = 1e-9  # chips: a smaller loss is rounding
MISTAKE_FRACTION = 1e-3  # a mistake gives up more than this fraction of the big blind (the ante)
TOP_MISTAKES = 10
_NO_F32 = np.zeros(0, dtype=np.float32)  # exact walks run in float64


@dataclass
class Advice:
    """The trainer's word on one decision (chips throughout; ``evs`` None when unknown)."""

    hand_number: int
    round: int
    betting: str
    cards: str  # the person's hole cards, then '/' and the board: "Ks/Kh"
    situation: str  # "round 2, 4 to call"
    actions: list[str]  # the legal actions at the spot, ACPC (f, c, r, r<N>)
    words: list[str]  # the same as a player says them: "fold", "check", "bet", "raise to 450"
    probs: list[float] | None  # the strategy's play there; None off its tree
    evs: list[float] | None  # each action's EV against the strategy, both continuing with it
    chosen: str
    best: str | None = None
    loss: float | None = None  # best EV - chosen EV
    strategy_ev: float | None = None  # the strategy's own mixed EV at the spot
    reached: bool = True  # False: the strategy never reaches the spot (see the module docstring)
    note: str | None = None  # why there is no EV

    def word(self, action: str) -> str:
        return self.words[self.actions.index(action)] if action in self.actions else action

    def line(self, chips_text, threshold: float = EXACT) -> str:
        """One readable line: ``strategy: call 62%, raise 38% · your fold gave up 0.430 chips
        (best: call)``; a loss up to ``threshold`` chips is "next to nothing"."""
        if self.probs is None:
            return f"strategy: {self.note}"
        play = ", ".join(f"{w} {100 * p:.0f}%" for w, p in zip(self.words, self.probs) if p >= 0.005)
        out = f"strategy: {play or 'no play recorded'}"
        if self.loss is None:
            return out + (f" \u00b7 {self.note}" if self.note else "")
        mine = self.word(self.chosen)
        if self.loss <= EXACT:
            out += f" \u00b7 your {mine} gave up nothing"
        elif self.loss <= threshold:
            out += f" \u00b7 your {mine} gave up next to nothing ({chips_text(self.loss)})"
        else:
            out += f" \u00b7 your {mine} gave up {chips_text(self.loss)} (best: {self.word(self.best)})"
        return out + ("" if self.reached else " \u00b7 a spot the strategy never reaches")

    def to_json(self) -> dict:
        return {
            "hand_number": self.hand_number, "round": self.round, "betting": self.betting,
            "cards": self.cards, "situation": self.situation, "actions": self.actions,
            "words": self.words, "probs": self.probs, "evs": self.evs, "chosen": self.chosen,
            "best": self.best, "loss": self.loss, "strategy_ev": self.strategy_ev,
            "reached": self.reached, "note": self.note,
        }


def reference_strategy(agent, game: GameDef, what: str = "the opponent") -> Strategy:
    """The strategy an agent plays (a strategy file's agent, with or without action
    translation); CfrlabError when the agent plays none."""
    strategy = getattr(agent, "strategy", None)
    if not isinstance(strategy, Strategy):
        name = getattr(agent, "name", None) or type(agent).__name__
        raise CfrlabError(f"trainer mode needs a strategy to compare with: {what} ({name}) plays none; "
                          "give a strategy file")
    return strategy


def round_label(game: GameDef, r: int) -> str:
    return ("preflop", "flop", "turn", "river")[r] if game.num_rounds == 4 else f"round {r + 1}"


def action_words(state: State, action: str) -> str:
    """``fold`` / ``check`` / ``call`` / ``bet`` / ``raise`` (no-limit: ``raise to N``, ``bet N``)
    for the player to act in ``state``."""
    p = state.current_player()
    facing = state.max_spent > state.spent[p]
    if action == "f":
        return "fold"
    if action == "c":
        return "call" if facing else "check"
    opening = not facing and state.num_raises == 0
    if state.game.is_limit:
        return "bet" if opening else "raise"
    total = int(action[1:])
    return f"bet {total - state.max_spent}" if opening else f"raise to {total}"


def situation_text(state: State) -> str:
    p = state.current_player()
    to_call = state.max_spent - state.spent[p]
    return f"{round_label(state.game, state.round)}, " + (f"{to_call} to call" if to_call else "nothing to call")


def cards_text(state: State, position: int) -> str:
    hole = "".join(card_text(c) for c in state.hole_cards(position))
    board = "".join(card_text(c) for c in state.visible_board())
    return hole + (f"/{board}" if board else "")


class _Walk:
    """Reach and counterfactual values of both players at every node (arena layout of
    ``cfrlab.engine.core.Layout``): reach under ``reach_policy``, values under ``policy``."""

    def __init__(self, engine, policy: np.ndarray, reach_policy: np.ndarray):
        e = engine
        lay = e.layout()
        self.node_off = lay.node_off
        self.reach, self.values = lay.arenas()
        walk = K.WalkTree(e.nodes, e.child, e.row_offset, e.legal, lay.node_off, e.pmap, e.pmap_off)
        ops = K.TerminalOps(lay.groups, lay.term_util, e.optab, e.opbuf, _NO_F32, e.opint, e.opc)
        view = K.full_view(e.num_states)
        K.forward(walk, view, K.fixed_tables(reach_policy), self.reach, -1)
        for i in (0, 1):
            K.terminals(ops, view, i, self.reach, self.values)
        both = np.ones(2, dtype=np.bool_)
        K.backward(walk, view, K.fixed_tables(policy), self.reach, self.values, both, K.MODE_VALUE,
                   K.FIXED_POLICY, 1, np.zeros(e.num_rows, dtype=np.int8))


class Trainer:
    """Exact action values of ``strategy``'s profile at every information set, computed once
    (module docstring); ``advise(state, action)`` rates one decision. Shared read-only by any
    number of sessions."""

    def __init__(self, strategy: Strategy, game: GameDef | None = None):
        if game is not None and strategy.game.to_text() != game.to_text():
            raise CfrlabError(f"the trainer's strategy is for {strategy.game.name or 'another game'}, "
                              f"not for {game.name or 'this game'}")
        if strategy.game.num_players != 2:
            raise CfrlabError("trainer mode is for two-player games")
        self.strategy = strategy
        self.game = strategy.game
        self.tree = strategy.tree
        self.model = strategy.model
        self.engine = get_engine(self.tree, self.model)
        self.engine.require_perfect_recall("trainer mode")
        self.policy = np.ascontiguousarray(strategy.policy, dtype=np.float64)
        self.offsets = np.asarray(strategy.row_offset, dtype=np.int64)
        self.exact = _Walk(self.engine, self.policy, self.policy)
        self._smooth: _Walk | None = None
        self._lock = threading.Lock()
        self._tables: dict[int, tuple] = {}

    # -- the chance model's joint probabilities ---------------------------------------------
    def _joint_row(self, position: int, r: int, s: int) -> tuple[np.ndarray, int]:
        """(P_r[s, o] over a run of the opponent's states o, the first o) for the acting
        position's state s (P_r transposed for position 1)."""
        with self._lock:
            if r not in self._tables:
                self._tables[r] = ("blocks", *self.model.fold_blocks(r)) if has_blocks(self.model) \
                    else ("matrix", self.model.fold_matrix(r))
            table = self._tables[r]
        if table[0] == "blocks":
            blocks = table[1]
            H = blocks.shape[1]
            b, h = divmod(s, H)
            blk = blocks[b % blocks.shape[0]]
            return np.asarray(blk[h] if position == 0 else blk[:, h], dtype=np.float64), b * H
        m = table[1]
        if sp.issparse(m):
            row = m.getrow(s) if position == 0 else m.getcol(s).T
            return np.asarray(row.toarray()).ravel(), 0
        m = np.asarray(m)
        return np.asarray(m[s] if position == 0 else m[:, s], dtype=np.float64), 0

    def _smoothed(self) -> _Walk:
        with self._lock:
            if self._smooth is None:
                leg = self.engine.legal[self.engine.decision_of_row].astype(np.float64)
                uniform = leg / leg.sum(axis=1, keepdims=True)
                trembling = (1.0 - SMOOTHING) * self.policy + SMOOTHING * uniform
                self._smooth = _Walk(self.engine, self.policy, np.ascontiguousarray(trembling))
            return self._smooth

    def _action_values(self, walk: _Walk, node: int, position: int, r: int, s: int,
                       columns: list[int]) -> tuple[list[float], float]:
        """(EV of each column's child, the counterfactual reach w(s)) at ``node``."""
        joint, start = self._joint_row(position, r, s)
        off = walk.node_off[node] + start
        weight = float(joint @ walk.reach[1 - position, off: off + len(joint)])
        if weight <= 0.0:
            return [], 0.0
        tree = self.tree
        kids = tree.child[tree.first_child[node]: tree.first_child[node] + tree.num_children[node]]
        by_column = {int(tree.action[c]): int(c) for c in kids}
        return [float(walk.values[position, walk.node_off[by_column[a]] + s]) / weight for a in columns], weight

    # -- one decision ------------------------------------------------------------------------
    def advise(self, state: State, action: str, hand_number: int = 0) -> Advice:
        """The trainer's word on ``action`` (ACPC, legal) by the player to act in ``state``,
        before it is applied."""
        position = state.current_player()
        legal = state.legal_actions()
        words = [action_words(state, a) for a in legal]
        base = {"hand_number": hand_number, "round": state.round, "betting": state.betting_string(),
                "cards": cards_text(state, position), "situation": situation_text(state), "chosen": action}
        tree = self.tree
        try:
            node = self.strategy.node_of(state.betting_string())
        except CfrlabError:
            return Advice(**base, actions=legal, words=words, probs=None, evs=None,
                          note="this betting is not on the strategy's tree (a size it does not hold)")
        d = int(tree.decision[node])
        columns = [int(a) for a in np.flatnonzero(tree.legal[d])]
        texts = [tree.action_text(node, a) for a in columns]
        s = int(self.model.state_of(position, state.hole_cards(position), state.visible_board(), state.round))
        row = self.policy[self.offsets[d] + s]
        probs = [float(row[a]) for a in columns]
        words = [action_words(state, t) for t in texts]
        advice = Advice(**base, actions=texts, words=words, probs=probs, evs=None)
        if action not in texts:
            advice.note = f"your {action_words(state, action)} is a size the strategy does not hold: no EV"
            return advice
        evs, _ = self._action_values(self.exact, node, position, state.round, s, columns)
        if not evs:
            advice.reached = False
            evs, _ = self._action_values(self._smoothed(), node, position, state.round, s, columns)
        if not evs:
            advice.note = "no deal of the opponent's cards reaches this spot"
            return advice
        best = int(np.argmax(evs))
        advice.evs = evs
        advice.best = texts[best]
        advice.loss = max(0.0, evs[best] - evs[texts.index(action)])
        advice.strategy_ev = float(np.dot(probs, evs))
        return advice


def mistake_threshold(game: GameDef) -> float:
    """Chips a decision may give up and still not count as a mistake: a thousandth of the big
    blind (of the ante in Kuhn and Leduc), so that a solved strategy's rounding is not one."""
    return MISTAKE_FRACTION * (game.big_blind if not is_ante_game(game) else max(game.blind[0], 1))


def chips_formatter(game: GameDef):
    """Chips as text for one decision: ``0.430 chips``, and in a blind game also big blinds."""
    def text(chips: float) -> str:
        out = f"{chips:.4f} chips" if abs(chips) < 0.01 else f"{chips:.3f} chips" if abs(chips) < 100 \
            else f"{chips:,.1f} chips"
        if not is_ante_game(game) and game.big_blind > 0:
            out += f" ({chips / game.big_blind:.2f} bb)"
        return out
    return text


@dataclass
class TrainerLog:
    """One session's decisions: ``hand`` (the current or last hand's advice) and, over the
    finished hands, the EV given up and the ``top_n`` costliest mistakes (decisions that gave
    up more than ``threshold`` chips; every loss counts in ``total_loss``)."""

    threshold: float = EXACT
    top_n: int = TOP_MISTAKES
    hand: list[Advice] = field(default_factory=list)
    total_loss: float = 0.0  # chips, over the finished hands' rated decisions
    decisions: int = 0  # the finished hands' decisions
    rated: int = 0  # of which with an EV
    mistakes: int = 0
    _top: list = field(default_factory=list)  # heap of (loss, order, Advice)
    _order: int = 0

    def begin_hand(self) -> None:
        self.hand = []

    def add(self, advice: Advice) -> None:
        self.hand.append(advice)

    def end_hand(self) -> None:
        """Count the hand's decisions (a hand left unfinished is never counted)."""
        for a in self.hand:
            self.decisions += 1
            if a.loss is None:
                continue
            self.rated += 1
            self.total_loss += a.loss
            if a.loss > self.threshold:
                self.mistakes += 1
                self._order += 1
                item = (a.loss, -self._order, a)  # equal losses: the earlier one stays
                if len(self._top) < self.top_n:
                    heapq.heappush(self._top, item)
                elif item[:2] > self._top[0][:2]:
                    heapq.heapreplace(self._top, item)

    def top(self) -> list[Advice]:
        """The costliest mistakes, the costliest first."""
        return [a for _, _, a in sorted(self._top, key=lambda x: x[:2], reverse=True)]

    def summary(self, game: GameDef, hands_played: int) -> dict:
        """Totals over the finished hands (JSON-able): EV given up in chips and per hand in the
        game's unit (chips/g or mbb/g), and the costliest mistakes."""
        per = to_unit(game, self.total_loss / hands_played) if hands_played else 0.0
        unit = rate_unit(game)
        return {
            "hands": hands_played, "decisions": self.decisions, "rated": self.rated,
            "mistakes": self.mistakes, "total_loss": self.total_loss,
            "per_hand": per, "unit": unit,
            "per_hand_text": f"{per:.1f} {unit}" if unit == MBB else f"{per:.3f} {unit}",
            "threshold": self.threshold,
            "top": [a.to_json() for a in self.top()],
        }
