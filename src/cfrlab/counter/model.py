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

from cfrlab.cards.cards import card_text, deck
from cfrlab.engine import best_response, build_tree_for, model_for_game, row_offsets
from cfrlab.errors import CfrlabError, ParseError
from cfrlab.fileio import NpzReader, save_npz
from cfrlab.games import GameDef, load_game, parse_log_line
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

    def policy(self) -> np.ndarray:
        """Observed frequencies where the player was seen acting, the default elsewhere."""
        legal = np.repeat(np.asarray(self.tree.legal, bool), np.diff(row_offsets(self.tree, self.model)), axis=0)
        seen = self.observations
        out = default_policy(legal, self.default)
        hit = seen > 0
        out[hit] = self.counts[hit] / seen[hit, None]
        return out

    def strategy(self) -> Strategy:
        """The model as a strategy (both positions), its header saying what was observed."""
        return Strategy.from_policy(self.game, self.policy(), tree=self.tree, model=self.model,
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
    (lossless) or of ``abstraction`` (an abstraction file or model).

    Lines are read in batches: the decisions of each distinct betting string are found in
    the tree once, the private states of a batch of deals come from the chance model's batch
    lookup, and the counts are added with one ``np.add.at``. A line this fast reader cannot
    take is handed to the full parser (``cfrlab.games.parse_log_line``), which says, with its
    line number, what is wrong with it."""
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
    """Batch reader of ``STATE`` lines for one game and chance model."""

    BATCH = 20_000

    def __init__(self, game: GameDef, tree, model, off: np.ndarray):
        self.game, self.tree, self.model, self.off = game, tree, model, off
        self.rows = int(off[-1])
        self.paths: dict[str, list[tuple[int, int, int, int]]] = {}
        self._mine_cache: dict[tuple[int, int], tuple] = {}  # keeps the path alive with its id
        self.deck = deck(game.num_ranks, game.num_suits)
        self.card = {card_text(c): c for c in self.deck}
        self.h = game.num_hole_cards
        self.h2 = 2 * self.h
        self.nb = game.total_board_cards()
        self.full = 2 * self.h + self.nb

    def _path(self, betting: str) -> list[tuple[int, int, int, int]]:
        """(row offset of the decision, round, action column, actor) of each action."""
        got = self.paths.get(betting)
        if got is not None:
            return got
        tree, node, out = self.tree, 0, []
        for r, acts in enumerate(betting.split("/")):
            for ch in acts:
                while int(tree.kind[node]) == CHANCE:
                    node = int(tree.child[tree.first_child[node]])
                col = "fcr".find(ch)
                nxt = tree.child_by_action(node, col) if col >= 0 and int(tree.kind[node]) == DECISION else -1
                if nxt < 0:
                    raise ValueError(betting)
                out.append((int(self.off[tree.decision[node]]), r, col, int(tree.player[node])))
                node = nxt
        self.paths[betting] = out
        return out

    def _deal(self, cards: str) -> list[int]:
        """Holes by position, then the board, padded with unused cards to a full deal (the
        padding's states are never read: those rounds were not reached)."""
        holes, _, board = cards.partition("/")
        a, bar, b = holes.partition("|")
        if not bar or len(a) != self.h2 or len(b) != self.h2:
            raise ValueError(cards)
        text = a + b + board.replace("/", "")
        card = self.card
        out = [card[text[i:i + 2]] for i in range(0, len(text), 2)]
        need = self.full - len(out)
        if need > 0:
            used = set(out)
            out += [c for c in self.deck[:len(out) + need] if c not in used][:need]
        return out

    def count(self, path: Path, player: str, counts: np.ndarray, left: int | None) -> tuple[int, set]:
        names_seen: set[str] = set()
        n = 0
        deals, jobs = [], []  # jobs: (deal index, position, betting path)
        try:
            f = open(path, "rb")  # noqa: SIM115 - lines decoded one by one
        except OSError as e:
            raise CfrlabError(f"{path}: cannot read the log ({e.strerror or e})") from None
        with f:
            for lineno, raw in enumerate(f, 1):
                if not raw.startswith(b"STATE:"):
                    if raw.strip() and not raw.startswith((b"#", b";", b"SCORE:")):
                        full_parse(self.game, path, lineno, raw)  # raises the full parser's error
                    continue
                try:
                    line = raw.decode("ascii").rstrip("\r\n")
                    _, _hand, betting, cards, _values, names = line.split(":")
                    who = names.split("|")
                    if player not in who:
                        names_seen.update(who)  # only read when the player is never found
                        continue
                    steps = self._path(betting)
                    deal = self._deal(cards)
                except (ValueError, KeyError, UnicodeDecodeError):
                    full_parse(self.game, path, lineno, raw)
                    raise CfrlabError(f"{path}:{lineno}: cannot read this line") from None
                jobs.append((len(deals), who.index(player), steps))
                deals.append(deal)
                n += 1
                if len(deals) >= self.BATCH:
                    self._flush(deals, jobs, counts)
                    deals, jobs = [], []
                if left is not None and n >= left:
                    break
        if deals:
            self._flush(deals, jobs, counts)
        return n, names_seen

    def _mine(self, steps, pos: int) -> tuple[list[int], list[int]]:
        """The decisions of position ``pos`` on a betting path: (3 * row offset + action
        column, round) each; cached per path and position."""
        key = (id(steps), pos)
        got = self._mine_cache.get(key)
        if got is None:
            mine = [(3 * off + col, r) for off, r, col, actor in steps if actor == pos]
            got = self._mine_cache[key] = ([m[0] for m in mine], [m[1] for m in mine], steps)
        return got[0], got[1]

    def _flush(self, deals, jobs, counts: np.ndarray) -> None:
        try:
            states = self.model.deal_states_batch(np.asarray(deals, dtype=np.int64))
        except CfrlabError as e:
            raise CfrlabError(f"a log deal does not fit the chance model ({e})") from None
        ks, ps, rs, cells = [], [], [], []
        for k, pos, steps in jobs:
            offcol, rounds = self._mine(steps, pos)
            n = len(offcol)
            ks += [k] * n
            ps += [pos] * n
            rs += rounds
            cells += offcol
        if cells:
            st = states[np.asarray(ks, dtype=np.int64), np.asarray(ps, dtype=np.int64),
                        np.asarray(rs, dtype=np.int64)]
            flat = np.asarray(cells, dtype=np.int64) + 3 * st
            counts += np.bincount(flat, minlength=counts.size).reshape(counts.shape)

def full_parse(game: GameDef, path: Path, lineno: int, raw: bytes) -> None:
    """Parse one line with the full parser; its error names the file and line."""
    try:
        parse_log_line(game, raw.decode("utf-8", errors="replace").rstrip("\r\n"))
    except CfrlabError as e:
        raise ParseError(f"{path}:{lineno}: {e}") from None


def frequentist_best_response(tree, model, fixed: np.ndarray) -> tuple[np.ndarray, float]:
    """(counter-strategy float64[rows, 3], its expected chips against ``fixed``): the exact
    best response at each position (Johanson's FBR when ``fixed`` is an opponent model)."""
    v0, br0 = best_response(tree, model, fixed, 0)
    v1, br1 = best_response(tree, model, fixed, 1)
    pos0 = (np.asarray(tree.player)[tree.decision_node] == 0)
    rows0 = np.repeat(pos0, np.diff(row_offsets(tree, model)))
    return np.where(rows0[:, None], br0, br1), 0.5 * (v0 + v1)
