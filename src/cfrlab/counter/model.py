"""Opponent models from hand histories, and the frequentist best response to them.

An ACPC log's ``STATE`` lines show every player's hole cards, so each decision a named player
made can be placed in an information set of a chosen chance model (lossless for Kuhn and
Leduc, or a card abstraction for hold'em): the decision node its betting reached and the
private state its cards and the board give at that round. The model counts the actions per
information set; where it saw the player act it plays the observed frequencies, elsewhere a
default policy (Johanson's thesis, "Robust strategies and counter-strategies: building a
champion level computer poker player", chapter 4, compares several and keeps "always call").

A model file is a strategy file (any cfrlab command that takes a strategy takes it) with one
more array, ``counts`` float64[rows, 3], and an ``opponent_model`` header entry (player, hands,
decisions, default policy).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cfrlab.engine import best_response, build_tree_for, model_for_game, row_offsets
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.evaluate.histories import iter_log
from cfrlab.fileio import NpzReader, save_npz
from cfrlab.games import GameDef, load_game
from cfrlab.strategy import STRATEGY_KIND, Strategy
from cfrlab.tree import CHANCE

DEFAULTS = ("call", "fold", "raise", "uniform")


@dataclass
class OpponentModel:
    """Observation counts per information set (``counts`` float64[rows, 3], columns f c r)."""

    game: GameDef
    tree: object
    model: object
    counts: np.ndarray
    default: str = "call"
    player: str = ""
    hands: int = 0

    @property
    def observations(self) -> np.ndarray:
        """float64[rows]: decisions seen per information set."""
        return self.counts.sum(axis=1)

    def policy(self) -> np.ndarray:
        """Observed frequencies where the player was seen acting, the default elsewhere."""
        legal = np.repeat(np.asarray(self.tree.legal, bool), np.diff(row_offsets(self.tree, self.model)), axis=0)
        seen = self.observations
        out = default_policy(legal, self.default)
        hit = seen > 0
        out[hit] = self.counts[hit] / seen[hit, None]
        return out

    def strategy(self) -> Strategy:
        s = Strategy.from_policy(self.game, self.policy(), tree=self.tree, model=self.model,
                                 algorithm="opponent-model", extra={"opponent_model": self.info()})
        return s

    def info(self) -> dict:
        return {"player": self.player, "hands": int(self.hands), "decisions": int(self.counts.sum()),
                "default": self.default, "infosets_seen": int((self.observations > 0).sum())}

    def save(self, path: str | Path, *, overwrite: bool = False) -> None:
        s = self.strategy()
        if not overwrite and Path(path).exists():
            raise CfrlabError(f"{path} exists; pass overwrite=True to replace it")
        save_npz(path, dict(s.header), {"policy": s.policy, "counts": self.counts})  # atomic, no pickle

    @classmethod
    def load(cls, path: str | Path, game: GameDef | str | None = None, abstraction=None) -> OpponentModel:
        """Read a model file; refused with one line when it is a plain strategy (no counts)
        or for another game or abstraction (``Strategy.load``'s checks)."""
        s = Strategy.load(path, game=game, model=abstraction)
        info = s.header.get("opponent_model")
        with NpzReader(path, kind=STRATEGY_KIND) as z:
            if "counts" not in z.names or not isinstance(info, dict):
                raise CfrlabError(f"{path} is a strategy, not an opponent model (make one with `cfrlab counter model`)")
            counts = z.read("counts", shape=s.policy.shape, dtype=np.float64, what="the observation counts")
        if not np.isfinite(counts).all() or (counts < 0).any():
            raise CfrlabError(f"{path}: corrupt opponent model (negative or non-finite counts)")
        default = str(info.get("default", "call"))
        if default not in DEFAULTS:
            raise CfrlabError(f"{path}: corrupt opponent model (default policy {default!r})")
        return cls(s.game, s.tree, s.model, counts, default, str(info.get("player", "")), int(info.get("hands", 0)))


def default_policy(legal: np.ndarray, default: str) -> np.ndarray:
    """float64[rows, 3] of a named default policy over each row's legal actions."""
    if default not in DEFAULTS:
        raise CfrlabError(f"unknown default policy {default!r}; choose from {', '.join(DEFAULTS)}")
    legal = legal.astype(np.float64)
    if default == "uniform":
        return legal / legal.sum(axis=1, keepdims=True)
    want = {"fold": 0, "call": 1, "raise": 2}[default]
    out = np.zeros_like(legal)
    ok = legal[:, want] > 0
    out[ok, want] = 1.0
    out[~ok, 1] = 1.0  # folding with nothing to call, or raising at the cap: call
    return out


def build_model(logs, game: GameDef | str, player: str, *, abstraction=None, default: str = "call",
                max_hands: int | None = None) -> OpponentModel:
    """Count ``player``'s decisions in ACPC ``logs`` (paths) in the chance model of ``game``
    (lossless) or of ``abstraction`` (an abstraction file or model)."""
    game = load_game(game)
    if default not in DEFAULTS:
        raise CfrlabError(f"unknown default policy {default!r}; choose from {', '.join(DEFAULTS)}")
    tree = build_tree_for(game)
    model = model_for_game(game, abstraction)
    off = row_offsets(tree, model)
    counts = np.zeros((int(off[-1]), 3))
    hands = 0
    for path in logs:
        names_seen: set[str] = set()
        found = False
        for rec in iter_log(path, game):
            if isinstance(rec, tuple):
                continue
            names_seen.update(rec.names)
            if player not in rec.names:
                continue
            found = True
            _count_hand(tree, model, off, rec, rec.names.index(player), counts)
            hands += 1
            if max_hands is not None and hands >= max_hands:
                break
        if not found:
            who = ", ".join(sorted(names_seen)) or "none"
            raise CfrlabError(f"{path}: no hand of player {player!r} (players: {who})")
        if max_hands is not None and hands >= max_hands:
            break
    return OpponentModel(game, tree, model, counts, default, player, hands)


def _count_hand(tree, model, off, rec, position: int, counts: np.ndarray) -> None:
    node = 0
    hole = rec.hole[position]
    for r, actions in enumerate(rec.betting):
        board = [c for b in rec.board[: r + 1] for c in b]
        state = None
        for act in actions:
            while int(tree.kind[node]) == CHANCE:
                node = int(tree.child[tree.first_child[node]])
            col = "fcr".index(act[0])
            if int(tree.player[node]) == position:
                if state is None:
                    state = int(model.state_of(position, hole, board, r))
                counts[int(off[tree.decision[node]]) + state, col] += 1.0
            node = int(tree.child_by_action(node, col))


def frequentist_best_response(tree, model, fixed: np.ndarray) -> tuple[np.ndarray, float]:
    """(counter-strategy float64[rows, 3], its expected chips against ``fixed``): the exact
    best response at each position (Johanson's FBR when ``fixed`` is an opponent model)."""
    v0, br0 = best_response(tree, model, fixed, 0)
    v1, br1 = best_response(tree, model, fixed, 1)
    pos0 = (np.asarray(tree.player)[tree.decision_node] == 0)
    rows0 = np.repeat(pos0, np.diff(row_offsets(tree, model)))
    return np.where(rows0[:, None], br0, br1), 0.5 * (v0 + v1)


def check_same_model(model: OpponentModel, tree, chance_model) -> None:
    if str(model.model.hash) != str(chance_model.hash):
        raise FileMismatchError(f"the opponent model was built in chance model {str(model.model.hash)[:12]}, "
                                f"not in {str(chance_model.hash)[:12]}")
