"""Strategies as values and files: a behaviour policy for both players plus a header.

Layout (docs/ENGINE.md): ``policy`` is float64 ``[rows, 3]``; for decision node ``d`` the rows
``row_offset[d] : row_offset[d] + num_states[round(d)]`` hold the acting player's distribution
over (fold, call/check, raise) in each of its private states. Illegal columns are 0.

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
  player's: Kuhn ``"Ks"``, Leduc ``"Ks/Kh"``. After round 0 the labels that ``strategy show``
  prints (``describe_state``: ``"Ks|Kh"``, hole then board) are accepted too.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.abstraction import LOSSLESS, ChanceModel
from cfrlab.engine import (
    build_tree_for,
    describe_state,
    expected_value,
    exploitability,
    load_abstraction,
    model_for_game,
    model_kind,
    row_offsets,
)
from cfrlab.errors import CfrlabError, FileMismatchError, ParseError
from cfrlab.fileio import load_npz, save_npz
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.games.situation import parse_situation_cards
from cfrlab.games.units import format_unit, unit_of
from cfrlab.tree import CHANCE, DECISION

STRATEGY_KIND = "strategy"
FORMAT_VERSION = 1
ACTION_LETTERS = ("f", "c", "r")
ACTION_NAMES = ("fold", "call", "raise")

# -- the value object -------------------------------------------------------------------

@dataclass(eq=False)
class Strategy:
    """A behaviour policy for both players of ``game`` in ``model``'s private states."""

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
                    game_value: float | None = None, extra: dict | None = None) -> Strategy:
        tree = tree if tree is not None else build_tree_for(game)
        model = model if model is not None else model_for_game(game)
        policy = np.ascontiguousarray(policy, dtype=np.float64)
        offsets = row_offsets(tree, model)
        if policy.shape != (int(offsets[-1]), 3):
            raise CfrlabError(f"policy has shape {policy.shape}, the game needs ({int(offsets[-1])}, 3)")
        header = {
            "kind": STRATEGY_KIND,
            "format": FORMAT_VERSION,
            "game": game.to_text(),
            "game_name": game.name,
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
        return cls(game, policy, header, tree, model, offsets)

    @classmethod
    def from_solver(cls, solver, game: GameDef, *, tree=None, model=None, algorithm: str,
                    params: dict | None = None, seed: int | None = None, seconds: float = 0.0,
                    exploitability: float | None = None, game_value: float | None = None,
                    extra: dict | None = None) -> Strategy:
        """The solver's average policy, with a header describing the run."""
        return cls.from_policy(game, solver.average_policy(), tree=tree, model=model,
                               algorithm=algorithm, params=params, seed=seed,
                               iterations=int(solver.iterations), seconds=seconds,
                               exploitability=exploitability, game_value=game_value, extra=extra)

    @classmethod
    def uniform(cls, game: GameDef | str, *, tree=None, model=None) -> Strategy:
        """Every legal action with equal probability (a baseline and a test oracle)."""
        game = load_game(game)
        tree = tree if tree is not None else build_tree_for(game)
        model = model if model is not None else model_for_game(game)
        offsets = row_offsets(tree, model)
        legal = np.asarray(tree.legal, dtype=np.float64)
        per_row = np.repeat(legal, np.diff(offsets), axis=0)
        policy = per_row / per_row.sum(axis=1, keepdims=True)
        return cls.from_policy(game, policy, tree=tree, model=model, algorithm="uniform")

    # engine objects (built lazily for files loaded from disk) --------------------------
    @property
    def tree(self):
        if self._tree is None:
            self._tree = build_tree_for(self.game)
        return self._tree

    @property
    def model(self):
        if self._model is None:
            if self.header.get("model_kind", LOSSLESS) != LOSSLESS:
                raise CfrlabError(
                    f"this strategy was solved in abstraction {self.header.get('abstraction_file') or '?'} "
                    f"(hash {_short(self.header.get('model_hash'))}); pass it with --abstraction FILE")
            self._model = model_for_game(self.game)
        return self._model

    @property
    def row_offset(self) -> np.ndarray:
        if self._offsets is None:
            self._offsets = row_offsets(self.tree, self.model)
        return self._offsets

    @property
    def algorithm(self) -> str:
        return str(self.header.get("algorithm", "unknown"))

    @property
    def iterations(self) -> int:
        return int(self.header.get("iterations", 0))

    # files --------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        save_npz(path, self.header, {"policy": self.policy})

    @classmethod
    def load(cls, path: str | Path, game: GameDef | str | None = None, model=None) -> Strategy:
        """Read a strategy file; refuse one made for another ``game`` or ``model``."""
        header, arrays = load_npz(path, kind=STRATEGY_KIND)
        fmt = header.get("format")
        if not isinstance(fmt, int) or fmt > FORMAT_VERSION:
            raise CfrlabError(f"{path}: strategy format {fmt!r} is not readable by this cfrlab "
                              f"(reads format <= {FORMAT_VERSION})")
        try:
            file_game = parse_game(header["game"], name=header.get("game_name") or "")
        except (KeyError, TypeError, ParseError) as e:
            raise CfrlabError(f"{path}: corrupt strategy header (game definition: {e})") from None
        if game is not None:
            want = load_game(game)
            if want.to_text() != file_game.to_text():
                raise FileMismatchError(f"{path} is a strategy for {_game_label(file_game)}, "
                                        f"not for {_game_label(want)}")
            file_game = want if not file_game.name else file_game
        policy = arrays.get("policy")
        if policy is None or policy.ndim != 2 or policy.shape[1] != 3 or policy.dtype != np.float64:
            raise CfrlabError(f"{path}: corrupt strategy file (no float64 [rows, 3] policy)")
        if not np.all(np.isfinite(policy)):
            raise CfrlabError(f"{path}: corrupt strategy file (policy has non-finite entries)")
        if model is not None and not isinstance(model, ChanceModel):
            model = model_for_game(file_game, model)  # an abstraction file name
        if model is None and header.get("model_kind", LOSSLESS) != LOSSLESS:
            model = _abstraction_beside(Path(path), header, file_game)
        if model is not None and str(model.hash) != str(header.get("model_hash")):
            used = header.get("abstraction_file") or header.get("model_kind", "?")
            given = getattr(model, "source_file", None) or model_kind(model)
            raise FileMismatchError(
                f"{path} was solved in abstraction {used} (hash {_short(header.get('model_hash'))}), "
                f"not in {given} (hash {_short(model.hash)})")
        s = cls(file_game, np.ascontiguousarray(policy), header, None, model, None)
        lossless = header.get("model_kind", LOSSLESS) == LOSSLESS
        if model is None and lossless and str(s.model.hash) != str(header.get("model_hash")):
            raise FileMismatchError(f"{path} was solved with lossless model {_short(header.get('model_hash'))}, "
                                    f"this cfrlab builds {_short(s.model.hash)} for that game")
        if (model is not None or lossless) and int(s.row_offset[-1]) != policy.shape[0]:
            raise CfrlabError(f"{path}: corrupt strategy file ({policy.shape[0]} rows, the game "
                              f"has {int(s.row_offset[-1])})")
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
        legal = self.tree.legal[int(self.tree.decision[node])]
        row = self.policy[lo + state]
        return {ACTION_LETTERS[a]: float(row[a]) for a in range(3) if legal[a]}

    def node_table(self, node: int) -> tuple[list[str], list[str], np.ndarray]:
        """(state labels, legal action names, probabilities [states, legal]) at a decision."""
        lo, hi = self.rows_of(node)
        rnd = int(self.tree.round[node])
        legal = np.flatnonzero(self.tree.legal[int(self.tree.decision[node])])
        labels = [describe_state(self.model, rnd, s) for s in range(hi - lo)]
        return labels, [ACTION_NAMES[a] for a in legal], self.policy[lo:hi][:, legal]

    # evaluation ---------------------------------------------------------------------
    def exploitability(self) -> float:
        """(u0(BR, s1) + u1(s0, BR)) / 2 in chips (docs/ENGINE.md convention)."""
        return float(exploitability(self.tree, self.model, self.policy))

    def game_value(self) -> float:
        """Player 0's expected chips when both seats play this strategy."""
        return float(expected_value(self.tree, self.model, self.policy, self.policy))

    def describe(self) -> str:
        h = self.header
        expl = h.get("exploitability")
        expl_s = "not measured" if expl is None else f"{format_unit(self.game, expl)}"
        return (f"{_game_label(self.game)}: {h.get('algorithm')} after {h.get('iterations', 0):,} iterations "
                f"({h.get('seconds', 0.0):.2f} s); exploitability {expl_s}; {self.policy.shape[0]:,} rows; "
                f"model {h.get('model_kind')} {_short(h.get('model_hash'))}")


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
            if str(model.hash) == str(header.get("model_hash")):
                return model
    return None


def _game_label(game: GameDef) -> str:
    return game.name or "a custom game"


def _short(h: Any) -> str:
    return str(h)[:12] if h else "?"
