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

import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cfrlab.engine import best_response, build_tree_for, model_for_game, row_offsets
from cfrlab.engine.rows import legal_rows
from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader, one_line, save_npz
from cfrlab.games import GameDef, load_game
from cfrlab.games.logscan import read_hands
from cfrlab.strategy import STRATEGY_KIND, Strategy
from cfrlab.tree import CHANCE, DECISION

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

    @property
    def policy(self) -> np.ndarray:
        """float64[rows, 3] in ``Strategy.policy``'s layout: the observed frequencies where the
        player was seen acting, the default policy elsewhere (a new array at each access)."""
        legal = legal_rows(self.tree, row_offsets(self.tree, self.model))
        seen = self.observations
        out = default_policy(legal, self.default)
        hit = seen > 0
        out[hit] = self.counts[hit] / seen[hit, None]
        return out

    def strategy(self) -> Strategy:
        """The model as a strategy (both positions), its header saying what was observed."""
        return Strategy.from_policy(self.game, self.policy, tree=self.tree, model=self.model,
                                    algorithm="opponent-model", extra={"opponent_model": self.info()})

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
        _check_info(path, info)
        return cls(s.game, s.tree, s.model, counts, info.get("default", "call"), info.get("player", ""),
                   info.get("hands", 0))


def _check_info(path, info: dict) -> None:
    """The ``opponent_model`` header entry's types (a hand-edited or foreign header is one line)."""
    def bad(key: str, what: str) -> CfrlabError:
        return CfrlabError(f"{path}: corrupt opponent model ({key} {one_line(repr(info[key]))[:60]} is not {what})")

    for key in ("hands", "decisions", "infosets_seen"):
        v = info.get(key, 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise bad(key, "a count")
    if not isinstance(info.get("player", ""), str):
        raise bad("player", "a name")
    if info.get("default", "call") not in DEFAULTS:
        raise bad("default", f"one of {', '.join(DEFAULTS)}")


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
    """Count ``player``'s decisions in ACPC ``logs`` (a path or a list of paths) in the chance
    model of ``game`` (lossless) or of ``abstraction`` (an abstraction file or model).

    Each log is read by ``cfrlab.games.logscan.read_hands``, the reader every log consumer
    shares: one compiled pass over the file, then every line checked by the rules engine (a
    line of another game, unfinished, malformed or with values its cards and betting do not
    give is refused with its file and line). The decisions of each distinct betting string
    are found in the tree once, the private states of a batch of deals come from the chance
    model's batch lookup, and the counts are added with one ``np.bincount``."""
    logs = [logs] if isinstance(logs, (str, Path)) else list(logs)
    if not logs:
        raise CfrlabError("no log given")
    if max_hands is not None and (isinstance(max_hands, bool) or not isinstance(max_hands, numbers.Integral)
                                  or max_hands < 1):
        raise CfrlabError(f"max_hands must be a positive whole number, got {max_hands!r}")
    game = load_game(game)
    if default not in DEFAULTS:
        raise CfrlabError(f"unknown default policy {default!r}; choose from {', '.join(DEFAULTS)}")
    tree = build_tree_for(game)
    model = model_for_game(game, abstraction)
    reader = _LogReader(game, tree, model, row_offsets(tree, model))
    counts = np.zeros((reader.rows, 3))
    hands = 0
    for path in logs:
        left = None if max_hands is None else max_hands - hands
        n, names_seen = reader.count(Path(path), player, counts, left)
        if n == 0:
            who = ", ".join(sorted(names_seen)) or "none"
            raise CfrlabError(f"{path}: no hand of player {player!r} (players: {who})")
        hands += n
        if max_hands is not None and hands >= max_hands:
            break
    return OpponentModel(game, tree, model, counts, default, player, hands)


class _LogReader:
    """Batch reader of ``STATE`` lines for one game and chance model.

    Each distinct betting string gets a number ``pid`` when first seen; ``2 * pid + position``
    names the decisions one position made on it, kept as a slice of two flat tables (the
    count cell ``3 * row offset + action`` and the round), so that a batch of hands becomes a
    handful of numpy gathers and one ``bincount``."""

    BATCH = 20_000

    def __init__(self, game: GameDef, tree, model, off: np.ndarray):
        self.game, self.tree, self.model, self.off = game, tree, model, off
        self.rows = int(off[-1])
        self.pid: dict[str, int] = {}
        self._start: list[int] = []  # per (pid, position): first entry in the flat tables
        self._len: list[int] = []
        self._cells: list[int] = []
        self._rounds: list[int] = []
        self._arrays: tuple | None = None

    def _path(self, betting: str) -> int:
        """The betting's number (its decisions added to the flat tables when new)."""
        got = self.pid.get(betting)
        if got is not None:
            return got
        tree, node, steps = self.tree, 0, []
        for r, acts in enumerate(betting.split("/")):
            for ch in acts:
                while int(tree.kind[node]) == CHANCE:
                    node = int(tree.child[tree.first_child[node]])
                col = "fcr".find(ch)
                nxt = tree.child_by_action(node, col) if col >= 0 and int(tree.kind[node]) == DECISION else -1
                if nxt < 0:
                    raise ValueError(betting)
                steps.append((int(self.off[tree.decision[node]]), r, col, int(tree.player[node])))
                node = nxt
        for pos in (0, 1):
            mine = [(3 * off + col, r) for off, r, col, actor in steps if actor == pos]
            self._start.append(len(self._cells))
            self._len.append(len(mine))
            self._cells += [m[0] for m in mine]
            self._rounds += [m[1] for m in mine]
        self._arrays = None
        got = self.pid[betting] = len(self.pid)
        return got

    def count(self, path: Path, player: str, counts: np.ndarray, left: int | None) -> tuple[int, set]:
        hands = read_hands(path, self.game, player, limit=left)
        n = len(hands)
        pids = np.empty(n, dtype=np.int64)
        for k in range(n):
            try:
                pids[k] = self._path(hands.bettings[k])
            except ValueError:
                raise CfrlabError(f"{path}:{int(hands.line[k])}: betting {hands.bettings[k]!r} is not in the "
                                  "model's betting tree") from None
        combos = 2 * pids + hands.position
        for a in range(0, n, self.BATCH):
            b = min(n, a + self.BATCH)
            self._flush(hands.cards[a:b], combos[a:b], counts)
        return n, hands.other_names

    def _flush(self, deals: np.ndarray, combos: np.ndarray, counts: np.ndarray) -> None:
        try:
            states = self.model.deal_states_batch(np.asarray(deals, dtype=np.int64))
        except CfrlabError as e:
            raise CfrlabError(f"a log deal does not fit the chance model ({e})") from None
        if self._arrays is None:
            self._arrays = tuple(np.asarray(x, dtype=np.int64)
                                 for x in (self._start, self._len, self._cells, self._rounds))
        start, length, cells, rounds = self._arrays
        lengths = length[combos]
        total = int(lengths.sum())
        if total == 0:
            return
        job = np.repeat(np.arange(len(combos)), lengths)
        within = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        entry = start[combos][job] + within
        st = states[job, combos[job] % 2, rounds[entry]]
        flat = cells[entry] + 3 * st.astype(np.int64)
        counts += np.bincount(flat, minlength=counts.size).reshape(counts.shape)


def frequentist_best_response(tree, model, fixed: np.ndarray) -> tuple[np.ndarray, float]:
    """(counter-strategy float64[rows, 3], its expected chips against ``fixed``): the exact
    best response at each position (Johanson's FBR when ``fixed`` is an opponent model)."""
    v0, br0 = best_response(tree, model, fixed, 0)
    v1, br1 = best_response(tree, model, fixed, 1)
    pos0 = (np.asarray(tree.player)[tree.decision_node] == 0)
    rows0 = np.repeat(pos0, np.diff(row_offsets(tree, model)))
    return np.where(rows0[:, None], br0, br1), 0.5 * (v0 + v1)
