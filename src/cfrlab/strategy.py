"""Strategies as values and files: a behaviour policy for both players plus a header.

Layout (docs/ENGINE.md): ``policy`` is float64 ``[rows, A]``; for decision node ``d`` the rows
``row_offset[d] : row_offset[d] + num_states[round(d)]`` hold the acting player's distribution
over the tree's action columns in each of its private states: (fold, call/check, raise) in a
limit game, (fold, call/check, then each raise size in increasing amount) in a no-limit tree
(``tree.action_text(node, column)`` names a column). Illegal columns are 0.

A file is ``.npz`` (``cfrlab.fileio``, atomic, no pickle) with one array ``policy`` and a JSON
header: kind ``"strategy"``, ``format``, the ACPC game definition text, the chance model's
kind and hash (lossless, or an abstraction's hash), algorithm, params, iterations, seconds,
exploitability (chips), game value (chips), creation time. A file for another game or model is
refused with one line naming both.

Readable situations (``Strategy.action_probs``) use the ACPC match-state notation:

* ``betting`` is the ACPC betting string, rounds separated by ``/`` (``"rc/r"``); the slash at
  a round's end may be left out (``"rc"`` means the same as ``"rc/"``).
* ``cards`` is the ACPC ``<cards>`` field as the acting player sees it: hole cards by position
  separated by ``|``, then ``/`` and each round's board cards: ``"Ks|/Kh"`` (position 0 holds Ks,
  board Kh), ``"|Qs/Kh"`` (position 1 holds Qs). Without ``|`` the hole cards are the acting
  player's: Kuhn ``"Ks"``, Leduc ``"Ks/Kh"``, hold'em ``"AsKd/2c3d4h/5s"``. That last form is
  canonical: ``infosets()``, ``node_table`` and ``strategy show`` print it. After round 0 the
  older ``"Ks|Kh"`` (hole ``|`` board) is accepted too.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cfrlab.abstraction import LOSSLESS, NPLAYER, ChanceModel, hash_matches
from cfrlab.engine import (
    describe_state,
    load_abstraction,
    model_for_game,
    model_kind,
    row_offsets,
    tree_for,
)
from cfrlab.engine.models import evaluator_for
from cfrlab.engine.rows import uniform_rows
from cfrlab.engine.values import Evaluation
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import NpzReader, one_line, save_npz
from cfrlab.games import GameDef, load_game
from cfrlab.games.builtins import game_of_file
from cfrlab.games.situation import ACTIONS, action_word, parse_situation_cards
from cfrlab.games.units import CHIPS, format_unit, to_unit, unit_of
from cfrlab.tree import CHANCE, DECISION
from cfrlab.tree.bets import parse_bets
from cfrlab.version import __version__ as VERSION

STRATEGY_KIND = "strategy"
FORMAT_VERSION = 1
SUM_TOLERANCE = 1e-6  # a row may sum to 1 +- this
PROB_TOLERANCE = 1e-9  # an entry may be this far below 0, and this much on an illegal action
CHECK_CHUNK_ROWS = 1 << 20  # rows checked per numpy pass (HULHE 10 buckets: 57M rows)

# -- the value object -------------------------------------------------------------------

class InfoSet(NamedTuple):
    """One information set of a strategy (``Strategy.infosets``)."""

    player: int  # the acting position (0 or 1)
    round: int  # 0-based betting round
    betting: str  # ACPC betting so far, rounds separated by '/'
    cards: str  # what the acting player knows: hole cards, then '|' and the board
    node: int  # public-tree node
    state: int  # private-state index (row within the node)
    probs: dict[str, float]  # legal actions (ACPC letters f, c, r) -> probability


@dataclass(eq=False)
class Strategy:
    """A behaviour policy for every player of ``game`` in ``model``'s private states.

    ``policy`` is a float64 array ``[rows, A]``: one row per information set, its columns the
    tree's actions (A = ``tree.num_actions``: fold, call/check and raise, ACPC's ``f``, ``c``,
    ``r``, in a limit game; one column per raise size in a no-limit tree; 0 where illegal).
    The rows of decision ``d`` (the ``d``-th decision node of ``tree``, in
    ``tree.decision_node`` order) are ``row_offset[d] : row_offset[d + 1]``, one per private
    state of the acting player at that round (``model.num_states[round]``; ``state_of_cards``
    gives the index of real cards). ``rows_of(node_of("rc/r"))`` gives one decision's rows;
    ``infosets()`` walks them all with readable keys. To perturb a strategy, change a copy of
    ``policy`` and build a new one with ``Strategy.from_policy(s.game, p, tree=s.tree,
    model=s.model)``: every row must stay a distribution over its legal actions
    (``tree.legal[d]``), which ``from_policy`` checks.

    ``header`` is a dict saved with the policy (JSON): ``kind`` ("strategy"), ``format``,
    ``game`` (the ACPC game definition text) and ``game_name``, ``model_kind`` and
    ``model_hash`` (the chance model: "lossless" or an abstraction, with its hash; a file is
    refused for another), ``abstraction_file``, ``algorithm``, ``params``, ``seed``,
    ``iterations``, ``seconds`` (solver time), ``exploitability`` and ``game_value`` (in chips
    per game, as measured when it was made; None when not measured), ``unit`` (the game's
    reporting unit), ``rows``, ``created`` (UTC time), ``name`` (``Strategy.name``), and what
    a maker adds (``stopped_by``, ``curve``, ``cfrlab_version``, ``counter``,
    ``opponent_model``, ...).
    """

    game: GameDef
    policy: np.ndarray
    header: dict[str, Any] = field(default_factory=dict)
    _tree: Any = field(default=None, repr=False)
    _model: Any = field(default=None, repr=False)
    _offsets: Any = field(default=None, repr=False)

    # construction -------------------------------------------------------------------
    @classmethod
    def from_policy(cls, game: GameDef, policy: np.ndarray, *, tree=None, model=None,
                    algorithm: str = "unknown", params: dict | None = None, seed: int | None = None,
                    iterations: int = 0, seconds: float = 0.0, exploitability: float | None = None,
                    game_value: float | None = None, extra: dict | None = None,
                    name: str | None = None) -> Strategy:
        """A strategy from a policy array in the layout of ``tree`` x ``model`` (the game's
        own lossless model by default); the keywords fill the header (``exploitability`` and
        ``game_value`` in chips per game; ``name``: see ``Strategy.name``). The rows are
        checked (``check_policy``): each a distribution over the legal actions."""
        tree = tree if tree is not None else tree_for(game)
        model = model if model is not None else model_for_game(game)
        policy = np.ascontiguousarray(policy, dtype=np.float64)
        offsets = row_offsets(tree, model)
        want = (int(offsets[-1]), tree.num_actions)
        if policy.shape != want:
            raise CfrlabError(f"policy has shape {policy.shape}, the game needs {want}")
        check_policy(policy, tree, model, offsets, where="policy")
        header = {
            "kind": STRATEGY_KIND,
            "format": FORMAT_VERSION,
            "game": game.to_text(),
            "game_name": game.name,
            "num_players": game.num_players,
            "bets": tree.bets,
            "model_kind": model_kind(model),
            "model_hash": str(model.hash),
            "algorithm": algorithm,
            "params": dict(params or {}),
            "seed": seed,
            "iterations": int(iterations),
            "seconds": float(seconds),
            "exploitability": None if exploitability is None else float(exploitability),
            "game_value": None if game_value is None else float(game_value),
            "unit": unit_of(game),
            "rows": int(offsets[-1]),
            "abstraction_file": getattr(model, "source_file", None),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        if extra:
            header.update(extra)
        s = cls(game, policy, header, tree, model, offsets)
        if name is not None:
            s.name = name
        return s

    @classmethod
    def from_solver(cls, solver, game: GameDef | str | None = None, *, model=None, measure: bool = True,
                    seconds: float | None = None, exploitability: float | None = None,
                    extra: dict | None = None) -> Strategy:
        """The solver's average policy, with a header recording the run from the solver itself:
        algorithm, parameters, seed, iterations, solver seconds and, with ``measure`` (the
        default), the exploitability and the game value, computed here. ``model``: the same
        chance model as the solver's, loaded from its file (for the header's file name);
        ``seconds`` / ``exploitability`` (chips): figures the caller measured itself."""
        tree = solver.tree
        if model is not None and str(model.hash) != str(solver.model.hash):
            raise FileMismatchError(f"model {_short(model.hash)} is not the solver's ({_short(solver.model.hash)})")
        model = model if model is not None else solver.model
        game = load_game(game) if game is not None else tree.game
        p = solver.params
        params = asdict(p) if is_dataclass(p) else dict(p or {})
        avg = solver.average_policy()
        s = cls.from_policy(game, avg, tree=tree, model=model, algorithm=str(solver.algorithm),
                            params=params, seed=getattr(solver, "seed", None), iterations=int(solver.iterations),
                            seconds=float(getattr(solver, "seconds", 0.0) if seconds is None else seconds),
                            exploitability=exploitability, extra={"cfrlab_version": VERSION, **(extra or {})})
        if measure:
            if exploitability is None:
                s.header["exploitability"] = s.exploitability(CHIPS)
            s.header["game_value"] = s.game_value(CHIPS)
        return s

    @classmethod
    def uniform(cls, game: GameDef | str, *, tree=None, model=None, bets=None) -> Strategy:
        """Every legal action with equal probability (a baseline and a test oracle); in a
        no-limit game, in the betting abstraction ``bets`` (every legal amount by default)."""
        game = load_game(game)
        tree = tree if tree is not None else tree_for(game, bets)
        model = model if model is not None else model_for_game(game)
        policy = uniform_rows(tree, row_offsets(tree, model))
        return cls.from_policy(game, policy, tree=tree, model=model, algorithm="uniform")

    # engine objects (built lazily for files loaded from disk) --------------------------
    @property
    def tree(self):
        if self._tree is None:
            self._tree = tree_for(self.game, self.header.get("bets"))
        return self._tree

    @property
    def model(self):
        if self._model is None:
            if self.header.get("model_kind", LOSSLESS) not in (LOSSLESS, NPLAYER):
                raise CfrlabError(
                    f"this strategy was solved in abstraction {self.header.get('abstraction_file') or '?'} "
                    f"(hash {_short(self.header.get('model_hash'))}); give that abstraction file to read it")
            self._model = model_for_game(self.game)
        return self._model

    @property
    def row_offset(self) -> np.ndarray:
        if self._offsets is None:
            self._offsets = row_offsets(self.tree, self.model)
        return self._offsets

    @property
    def algorithm(self) -> str:
        """The header's algorithm ("unknown" when it names none)."""
        return str(self.header.get("algorithm") or "unknown")

    @property
    def name(self) -> str:
        """The name an agent playing this strategy goes by (hand logs, match results):
        ``header["name"]`` when set (``Strategy.from_policy(..., name=...)``, or assign
        ``s.name = "mine"``; saved with the file), else the algorithm."""
        return str(self.header.get("name") or self.algorithm)

    @name.setter
    def name(self, value: str | None) -> None:
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise CfrlabError(f"a strategy's name is non-empty text, got {value!r}")
        self.header["name"] = None if value is None else value.strip()

    @property
    def iterations(self) -> int:
        return int(self.header.get("iterations", 0))

    # files --------------------------------------------------------------------------
    def save(self, path: str | Path, *, overwrite: bool = False) -> None:
        """Write the strategy file atomically; an existing file is replaced only with
        ``overwrite=True`` (the CLI's ``--force``)."""
        if not overwrite and Path(path).exists():
            raise CfrlabError(f"{path} exists; pass overwrite=True to replace it")
        save_npz(path, self.header, {"policy": self.policy})

    @classmethod
    def load(cls, path: str | Path, game: GameDef | str | None = None, model=None) -> Strategy:
        """Read a strategy file; refuse one made for another ``game`` or ``model``, one whose
        header fields have the wrong types, whose policy has another shape than the game
        needs (checked before it is read), or whose rows are not distributions over the
        legal actions (``check_policy``)."""
        with NpzReader(path, kind=STRATEGY_KIND) as z:
            header = z.header
            check_header(path, header)
            file_game = game_of_file(path, header, "strategy", game)
            if model is not None and not isinstance(model, ChanceModel):
                model = model_for_game(file_game, model)  # an abstraction file name
            lossless = header.get("model_kind", LOSSLESS) in (LOSSLESS, NPLAYER)
            if model is None and not lossless:
                model = _abstraction_beside(Path(path), header, file_game)
            if model is not None and not hash_matches(model, header.get("model_hash"), path):
                used = header.get("abstraction_file") or header.get("model_kind", "?")
                given = getattr(model, "source_file", None) or model_kind(model)
                raise FileMismatchError(
                    f"{path} was solved in abstraction {used} (hash {_short(header.get('model_hash'))}), "
                    f"not in {given} (hash {_short(model.hash)})")
            s = cls(file_game, np.zeros((0, 3)), header, None, model, None)
            if model is None and lossless and str(s.model.hash) != str(header.get("model_hash")):
                raise FileMismatchError(f"{path} was solved with lossless model {_short(header.get('model_hash'))}, "
                                        f"this cfrlab builds {_short(s.model.hash)} for that game")
            known = model is not None or lossless  # the row layout is known: check against it
            rows = int(s.row_offset[-1]) if known else header.get("rows")
            if "policy" not in z.names:
                raise CfrlabError(f"{path}: corrupt strategy file (no policy array)")
            shape, dtype = z.declared("policy")
            width = s.tree.num_actions  # 3 in limit games (f, c, r); one per raise size in no-limit
            if len(shape) != 2 or shape[1] != width or dtype != np.float64:
                raise CfrlabError(f"{path}: corrupt strategy file (no float64 [rows, {width}] policy; "
                                  f"found {dtype} {shape})")
            if rows is not None and shape[0] != rows:
                whose = "the game has" if known else "its header says"
                raise CfrlabError(f"{path}: corrupt strategy file ({shape[0]} rows, {whose} {rows})")
            policy = z.read("policy", shape=(rows, width), dtype=np.float64)
        s.policy = np.ascontiguousarray(policy)
        if known:
            check_policy(s.policy, s.tree, s.model, s.row_offset, where=str(path))
        else:  # the layout needs the abstraction: check what does not depend on it
            check_policy(s.policy, where=str(path))
        return s

    # queries ------------------------------------------------------------------------
    def node_of(self, betting: str) -> int:
        """The DECISION node reached by an ACPC betting string (a round's final '/' optional)."""
        tree = self.tree
        b = betting.strip()
        node = tree.node_of_betting.get(b)
        if node is None and b.endswith("/"):
            node = tree.node_of_betting.get(b[:-1])
        if node is None and not b.endswith("/"):
            node = tree.node_of_betting.get(b + "/")
        if node is None:
            raise CfrlabError(f"{b!r} is not a betting sequence of {_game_label(self.game)} "
                              "(ACPC letters f c r, rounds separated by '/')")
        while int(tree.kind[node]) == CHANCE and int(tree.num_children[node]) == 1:
            node = int(tree.child[tree.first_child[node]])
        if int(tree.kind[node]) != DECISION:
            raise CfrlabError(f"nobody acts after {b!r}: the hand is over")
        return int(node)

    def rows_of(self, node: int) -> tuple[int, int]:
        d = int(self.tree.decision[node])
        return int(self.row_offset[d]), int(self.row_offset[d + 1])

    def state_of_cards(self, cards: str, node: int, position: int | None = None) -> int:
        """Private-state index at ``node`` for a readable card string (module docstring)."""
        tree, game = self.tree, self.game
        actor = int(tree.player[node])
        rnd = int(tree.round[node])
        if position is not None and position != actor:
            raise CfrlabError(f"player {actor} acts at {tree.betting[node]!r}, not player {position}")
        hole, board = parse_situation_cards(game, cards, actor, rnd)
        need_board = game.total_board_cards(rnd)
        if len(board) != need_board:
            raise CfrlabError(f"round {rnd + 1} of {_game_label(game)} shows {need_board} board card(s), "
                              f"got {len(board)} in {cards!r}")
        return int(self.model.state_of(actor, hole, board, rnd))

    def action_probs(self, cards: str, betting: str, position: int | None = None) -> dict[str, float]:
        """Distribution of the acting player's legal actions: ``{"c": 0.7, "r": 0.3}``."""
        node = self.node_of(betting)
        state = self.state_of_cards(cards, node, position)
        lo, hi = self.rows_of(node)
        if not 0 <= state < hi - lo:
            raise CfrlabError(f"private state {state} out of range at {betting!r}")
        legal = np.flatnonzero(self.tree.legal[int(self.tree.decision[node])])
        row = self.policy[lo + state]
        return {self.tree.action_text(node, int(a)): float(row[a]) for a in legal}

    def node_table(self, node: int) -> tuple[list[str], list[str], np.ndarray]:
        """(state labels, legal actions as letters, probabilities [states, legal]) at a decision."""
        lo, hi = self.rows_of(node)
        rnd = int(self.tree.round[node])
        legal = np.flatnonzero(self.tree.legal[int(self.tree.decision[node])])
        labels = [describe_state(self.model, rnd, s) for s in range(hi - lo)]
        return labels, [self.tree.action_text(node, int(a)) for a in legal], self.policy[lo:hi][:, legal]

    def infosets(self) -> Iterator[InfoSet]:
        """Every information set, decision by decision in tree order and private state by
        private state: who acts (``player`` = position), the round, the ACPC betting, the
        acting player's cards (``"Ks"``, ``"Ks/Kh"`` hole then board; a bucket label in an
        abstraction) and the distribution over the legal actions as ACPC letters.

            >>> s = Strategy.uniform("kuhn")
            >>> first = next(s.infosets())
            >>> first.player, first.betting, first.cards, first.probs
            (0, '', 'Qs', {'c': 0.5, 'r': 0.5})
        """
        tree = self.tree
        off = self.row_offset
        for d, node in enumerate(tree.decision_node):
            node = int(node)
            rnd, player = int(tree.round[node]), int(tree.player[node])
            legal = [(int(a), tree.action_text(node, int(a))) for a in np.flatnonzero(tree.legal[d])]
            betting = tree.betting[node]
            for k, row in enumerate(self.policy[int(off[d]):int(off[d + 1])]):
                yield InfoSet(player, rnd, betting, describe_state(self.model, rnd, k), node, k,
                              {text: float(row[a]) for a, text in legal})

    def to_dataframe(self):
        """The information sets as a pandas DataFrame (columns player, round, betting, cards,
        f, c, r; NaN where an action is not legal). Needs pandas (not a cfrlab dependency)."""
        try:
            import pandas as pd
        except ImportError:
            raise CfrlabError("to_dataframe needs pandas (pip install pandas); "
                              "Strategy.infosets() gives the same rows without it") from None
        rows = [(i.player, i.round, i.betting, i.cards, *(i.probs.get(a, math.nan) for a in ACTIONS))
                for i in self.infosets()]
        return pd.DataFrame(rows, columns=["player", "round", "betting", "cards", *ACTIONS])

    # evaluation ---------------------------------------------------------------------
    @property
    def unit(self) -> str:
        """The unit of this strategy's figures: ``"mbb/g"`` in a blind game, ``"chips/g"`` in
        an ante game (``cfrlab.games.units``)."""
        return unit_of(self.game)

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def evaluator(self):
        """The exact evaluator of this strategy's game on its tree and model
        (``engine.models.evaluator_for``: the same questions for any player count)."""
        return evaluator_for(self.game, self.tree, self.model)

    def evaluate(self) -> Evaluation:
        """Exact figures in chips per game: every player's value when all play this strategy,
        each one's best-response value against the others, and NashConv (the sum of the
        gains); recorded in the header (``nash_conv``, ``values``, ``br_values``,
        ``exploitability`` = NashConv / N and ``game_value`` = player 0's value)."""
        ev = self.evaluator.evaluate(self.policy)
        self.header.update({"nash_conv": ev.nash_conv, "exploitability": ev.nash_conv / self.num_players,
                            "values": list(ev.values), "br_values": list(ev.br_values),
                            "game_value": ev.values[0]})
        return ev

    def nash_conv(self, unit: str | None = None) -> float:
        """The sum over players of what a best response gains against the others (0 exactly at
        a Nash equilibrium; OpenSpiel's ``nash_conv``), per game in ``unit``."""
        return to_unit(self.game, self.evaluator.best_responses(self.policy)[1], unit)

    def exploitability(self, unit: str | None = None) -> float:
        """NashConv / N: with two players (u0(BR, s1) + u1(s0, BR)) / 2 (docs/ENGINE.md
        convention; OpenSpiel's ``exploitability`` for any N), per game in ``unit``: the
        game's (``self.unit``, as ``solve`` and ``exploit`` report) unless ``"chips/g"`` or
        ``"mbb/g"`` is asked for."""
        return self.nash_conv(unit) / self.num_players

    def game_value(self, unit: str | None = None) -> float:
        """Player 0's expected winnings per game when every seat plays this strategy, in
        ``unit`` (default: the game's, ``self.unit``)."""
        return to_unit(self.game, float(self.evaluator.profile_values(self.policy)[0]), unit)

    def __repr__(self) -> str:
        expl = self.header.get("exploitability")
        shown = "" if expl is None else f", exploitability {format_unit(self.game, expl)}"
        return (f"<Strategy {self.name!r} for {_game_label(self.game)}: {self.policy.shape[0]:,} rows, "
                f"{self.iterations:,} iterations{shown}>")

    def describe(self) -> str:
        h = self.header
        expl = h.get("exploitability")
        expl_s = "not measured" if expl is None else f"{format_unit(self.game, expl)}"
        return (f"{_game_label(self.game)}: {h.get('algorithm')} after {h.get('iterations', 0):,} iterations "
                f"({h.get('seconds', 0.0):.2f} s); exploitability {expl_s}; {self.policy.shape[0]:,} rows; "
                f"model {h.get('model_kind')} {_short(h.get('model_hash'))}")


# -- validation -------------------------------------------------------------------------

_TEXT, _INT, _NUMBER, _DICT = "text", "an integer", "a number", "an object"
# every header field the code reads: (expected kind, may be null, required)
HEADER_FIELDS: dict[str, tuple[str, bool, bool]] = {
    "kind": (_TEXT, False, True),
    "format": (_INT, False, True),
    "game": (_TEXT, False, True),
    "game_name": (_TEXT, True, False),
    "model_kind": (_TEXT, False, False),
    "model_hash": (_TEXT, True, False),
    "algorithm": (_TEXT, True, False),
    "params": (_DICT, True, False),
    "seed": (_INT, True, False),
    "iterations": (_INT, False, False),
    "seconds": (_NUMBER, False, False),
    "exploitability": (_NUMBER, True, False),
    "game_value": (_NUMBER, True, False),
    "unit": (_TEXT, True, False),
    "rows": (_INT, False, False),
    "abstraction_file": (_TEXT, True, False),
    "created": (_TEXT, True, False),
    "name": (_TEXT, True, False),
    "bets": (_TEXT, True, False),
}


def _is(kind: str, v: Any) -> bool:
    """``v`` is of ``kind``; integers within int64 (a JSON integer of thousands of digits is
    no count, seed or figure, and ``float()`` of it overflows)."""
    if kind == _TEXT:
        return isinstance(v, str)
    if isinstance(v, bool):
        return False
    if kind == _INT:
        return isinstance(v, int) and -(2**63) <= v < 2**63
    if kind == _NUMBER:
        return (isinstance(v, int) and -(2**63) <= v < 2**63) or (isinstance(v, float) and math.isfinite(v))
    return isinstance(v, dict)


def _shown(v: Any) -> str:
    text = one_line(repr(v))
    return text if len(text) <= 40 else text[:37] + "..."


def check_header(path: Any, header: dict) -> None:
    """Refuse (one line naming ``path`` and the field) a strategy header whose fields have
    the wrong types or values: what ``Strategy`` and the CLI read must be what they expect."""
    for key, (kind, nullable, required) in HEADER_FIELDS.items():
        if key not in header:
            if required:
                raise CfrlabError(f"{path}: corrupt strategy header (no {key!r} field)")
            continue
        v = header[key]
        if (v is None and nullable) or _is(kind, v):
            continue
        raise CfrlabError(f"{path}: corrupt strategy header ({key!r} is {_shown(v)}, expected {kind}"
                          f"{' or null' if nullable else ''})")
    fmt = header["format"]
    if not 1 <= fmt <= FORMAT_VERSION:
        raise CfrlabError(f"{path}: strategy format {fmt!r} is not readable by this cfrlab "
                          f"(reads formats 1 to {FORMAT_VERSION})")
    for key in ("iterations", "seconds", "rows"):
        if key in header and header[key] < 0:
            raise CfrlabError(f"{path}: corrupt strategy header ({key!r} is {header[key]!r}, below 0)")
    if header.get("bets") not in (None, "limit"):
        try:
            parse_bets(header["bets"])
        except CfrlabError as e:
            raise CfrlabError(f"{path}: corrupt strategy header (bets: {e})") from None


def check_policy(policy: np.ndarray, tree=None, model=None, row_offset=None, *,
                 where: str = "policy") -> None:
    """Refuse a policy whose rows are not probability distributions: every entry finite and
    >= 0 (down to -PROB_TOLERANCE), each row summing to 1 within SUM_TOLERANCE and, when the
    tree and row layout are given, at most PROB_TOLERANCE on an illegal action. The message
    names the first bad row with its betting and private state. Vectorized, in chunks of
    CHECK_CHUNK_ROWS rows (no policy-sized temporaries); each chunk is first checked as a
    whole (a row sum is NaN or infinite when an entry is), rows only when it fails."""
    n = policy.shape[0]
    legal = None
    if tree is not None and row_offset is not None:
        legal = np.asarray(tree.legal, dtype=bool)
        offsets = np.asarray(row_offset, dtype=np.int64)
    ones = np.ones(policy.shape[1])
    for lo in range(0, n, CHECK_CHUNK_ROWS):
        hi = min(n, lo + CHECK_CHUNK_ROWS)
        blk = policy[lo:hi]
        sums_ok = np.abs(blk @ ones - 1.0) <= SUM_TOLERANCE  # False for NaN and infinities
        illegal = None
        if legal is not None:  # the chunk's rows' illegal columns, decision by decision
            d0 = int(np.searchsorted(offsets, lo, side="right")) - 1
            d1 = int(np.searchsorted(offsets, hi - 1, side="right"))
            counts = np.minimum(offsets[d0 + 1:d1 + 1], hi) - np.maximum(offsets[d0:d1], lo)
            illegal = np.repeat(~legal[d0:d1], counts, axis=0)
        if (sums_ok.all() and not (blk < -PROB_TOLERANCE).any()
                and (illegal is None or not ((blk > PROB_TOLERANCE) & illegal).any())):
            continue
        bad = ~sums_ok
        bad |= ~np.isfinite(blk).all(axis=1)
        bad |= (blk < -PROB_TOLERANCE).any(axis=1)
        if illegal is not None:
            bad |= ((blk > PROB_TOLERANCE) & illegal).any(axis=1)
        i = int(np.argmax(bad))
        raise CfrlabError(f"{where}: row {lo + i}{_row_place(lo + i, tree, model, row_offset)} "
                          f"{_row_problem(blk[i], None if illegal is None else ~illegal[i])}")


def _row_problem(row: np.ndarray, legal: np.ndarray | None) -> str:
    values = "[" + ", ".join(f"{x:.6g}" for x in row) + "]"
    if not np.isfinite(row).all():
        return f"has non-finite entries {values}"
    neg = np.flatnonzero(row < -PROB_TOLERANCE)
    if len(neg):
        a = int(neg[0])
        return f"gives {_name(a, legal)} probability {row[a]:.6g}, below 0"
    if legal is not None:
        ill = np.flatnonzero((row > PROB_TOLERANCE) & ~legal)
        if len(ill):
            a = int(ill[0])
            return f"gives {_name(a, legal)} probability {row[a]:.6g}, but {_name(a, legal)} is not legal there"
    return f"sums to {float(row.sum()):.10g}, not 1 ({values})"


def _name(a: int, legal: np.ndarray | None) -> str:
    """``'f' (fold)``: the letter, and the word when the row's legal actions tell check from call."""
    return f"{ACTIONS[a]!r}" if legal is None else f"{ACTIONS[a]!r} ({action_word(a, bool(legal[0]))})"


def _row_place(r: int, tree, model, row_offset) -> str:
    """`` (betting 'rc', state 3: Ks/Kh)`` for row ``r``, or "" without a layout."""
    if tree is None or row_offset is None:
        return ""
    d = int(np.searchsorted(np.asarray(row_offset), r, side="right")) - 1
    node = int(tree.decision_node[d])
    state = r - int(row_offset[d])
    label = ""
    if model is not None:
        try:
            label = f": {describe_state(model, int(tree.round[node]), state)}"
        except CfrlabError:
            label = ""
    return f" (betting {tree.betting[node]!r}, player {int(tree.player[node])}, state {state}{label})"


# -- helpers ----------------------------------------------------------------------------

def _abstraction_beside(path: Path, header: dict, game: GameDef):
    """The abstraction a bucketed strategy names, when that file sits next to the strategy
    file (or in the working directory) with the recorded hash; else None (asked for later)."""
    name = header.get("abstraction_file")
    if not isinstance(name, str) or not name or Path(name).name != name:
        return None
    for where in (path.parent / name, Path(name)):
        if where.is_file():
            model = load_abstraction(where, game)
            if hash_matches(model, header.get("model_hash"), path):
                return model
    return None


def _game_label(game: GameDef) -> str:
    return game.name or "a custom game"


def _short(h: Any) -> str:
    return str(h)[:12] if h else "?"
