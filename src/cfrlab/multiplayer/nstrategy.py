"""N-player strategies as values and files.

The file is the 2-player strategy file (``cfrlab.strategy``): ``.npz`` with one float64
``policy[rows, 3]`` array and a JSON header (kind ``"strategy"``, format 1, the ACPC game
text, algorithm, params, iterations, seconds, ...), atomic, never pickled. The header's
``model_kind`` is ``"nplayer-lossless"`` (rows as ``cfrlab.multiplayer.deals`` numbers them) and
it adds ``num_players``, ``nash_conv`` and the per-player ``values`` / ``br_values`` (chips).
``exploitability`` holds NashConv / N (OpenSpiel's ``exploitability``; docs/ENGINE.md's figure when
N = 2).

The 2-player loader refuses these files (their game has more than two players), and
``NStrategy.load`` refuses 2-player files, each with one line.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cfrlab.abstraction.deals import model_hash
from cfrlab.engine.nplayer import Evaluation, NEngine, get_engine
from cfrlab.errors import CfrlabError, FileMismatchError, ParseError
from cfrlab.fileio import NpzReader, one_line, save_npz
from cfrlab.games import GameDef, load_game, parse_game
from cfrlab.games.units import unit_of
from cfrlab.strategy import STRATEGY_KIND, check_header, check_policy
from cfrlab.version import __version__ as VERSION

MODEL_KIND = "nplayer-lossless"
FORMAT_VERSION = 1


@dataclass(eq=False)
class NStrategy:
    """A behaviour policy for every player of an N-player game (rows: ``NEngine`` layout)."""

    game: GameDef
    policy: np.ndarray
    header: dict[str, Any] = field(default_factory=dict)

    @property
    def engine(self) -> NEngine:
        return get_engine(self.game)

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def algorithm(self) -> str:
        return str(self.header.get("algorithm", "unknown"))

    @property
    def iterations(self) -> int:
        return int(self.header.get("iterations", 0))

    @classmethod
    def from_policy(cls, game: GameDef | str, policy: np.ndarray, *, algorithm: str = "unknown",
                    params: dict | None = None, iterations: int = 0, seconds: float = 0.0,
                    evaluation: Evaluation | None = None, extra: dict | None = None) -> NStrategy:
        game = load_game(game)
        engine = get_engine(game)
        policy = engine.check(policy)
        check_policy(policy, where="policy")
        _check_legal(engine, policy, "policy")
        header = {
            "kind": STRATEGY_KIND,
            "format": FORMAT_VERSION,
            "game": game.to_text(),
            "game_name": game.name,
            "num_players": game.num_players,
            "model_kind": MODEL_KIND,
            "model_hash": model_hash(game),
            "algorithm": algorithm,
            "params": dict(params or {}),
            "seed": None,
            "iterations": int(iterations),
            "seconds": float(seconds),
            "exploitability": None,
            "nash_conv": None,
            "values": None,
            "br_values": None,
            "game_value": None,
            "unit": unit_of(game),
            "rows": engine.rows,
            "abstraction_file": None,
            "cfrlab_version": VERSION,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        if extra:
            header.update(extra)
        s = cls(game, policy, header)
        if evaluation is not None:
            s._record(evaluation)
        return s

    @classmethod
    def uniform(cls, game: GameDef | str) -> NStrategy:
        return cls.from_policy(game, get_engine(game).uniform_policy(), algorithm="uniform")

    def evaluate(self) -> Evaluation:
        """Exact per-player values, best-response values and NashConv (chips per game)."""
        ev = self.engine.evaluate(self.policy)
        self._record(ev)
        return ev

    def _record(self, ev: Evaluation) -> None:
        self.header.update({"nash_conv": ev.nash_conv, "exploitability": ev.nash_conv / self.num_players,
                            "values": list(ev.values), "br_values": list(ev.br_values),
                            "game_value": ev.values[0]})

    def save(self, path: str | Path, *, overwrite: bool = False) -> None:
        if not overwrite and Path(path).exists():
            raise CfrlabError(f"{path} exists; pass overwrite=True to replace it")
        save_npz(path, self.header, {"policy": self.policy})

    @classmethod
    def load(cls, path: str | Path, game: GameDef | str | None = None) -> NStrategy:
        """Read an N-player strategy file; refuse 2-player files, files for another game, and
        policies of the wrong shape or whose rows are not distributions, each with one line."""
        with NpzReader(path, kind=STRATEGY_KIND) as z:
            header = z.header
            check_header(path, header)
            try:
                file_game = parse_game(header["game"], name=header.get("game_name") or "")
            except ParseError as e:
                raise CfrlabError(one_line(f"{path}: corrupt strategy header (game definition: {e})")) from None
            if header.get("model_kind") != MODEL_KIND:
                raise FileMismatchError(
                    f"{path} is a {file_game.num_players}-player strategy ({header.get('model_kind', 'lossless')} "
                    "model); load it with cfrlab.Strategy.load, not the N-player loader")
            if game is not None:
                want = load_game(game)
                if want.to_text() != file_game.to_text():
                    raise FileMismatchError(f"{path} is a strategy for {file_game.name or 'a custom game'}, "
                                            f"not for {want.name or 'this game'}")
                file_game = want if not file_game.name else file_game
            if str(header.get("model_hash")) != model_hash(file_game):
                raise FileMismatchError(f"{path}: its row layout ({str(header.get('model_hash'))[:12]}) is not "
                                        f"this cfrlab's ({model_hash(file_game)[:12]})")
            engine = get_engine(file_game)
            if "policy" not in z.names:
                raise CfrlabError(f"{path}: corrupt strategy file (no policy array)")
            shape, dtype = z.declared("policy")
            if len(shape) != 2 or shape[1] != 3 or dtype != np.float64 or shape[0] != engine.rows:
                raise CfrlabError(f"{path}: corrupt strategy file (policy {dtype} {shape}, the game needs "
                                  f"float64 ({engine.rows}, 3))")
            policy = np.ascontiguousarray(z.read("policy", shape=(engine.rows, 3), dtype=np.float64))
        check_policy(policy, where=str(path))
        _check_legal(engine, policy, str(path))
        return cls(file_game, policy, dict(header))

    def infosets(self):
        """(player, round, betting, cards, {action letter: probability}) per information set."""
        e = self.engine
        t = e.tree
        for d, node in enumerate(t.decision_node):
            node = int(node)
            r, p = int(t.round[node]), int(t.player[node])
            legal = [a for a in range(3) if t.legal[d, a]]
            lo = int(e.row_offset[d])
            for s in range(int(e.row_offset[d + 1]) - lo):
                yield (p, r, t.betting[node], e.deals.describe_state(r, s),
                       {"fcr"[a]: float(self.policy[lo + s, a]) for a in legal})

    def describe(self) -> str:
        h = self.header
        nc = h.get("nash_conv")
        nc_s = "not measured" if nc is None else f"{nc:.6g} chips"
        return (f"{self.game.name or 'a custom game'} ({self.num_players} players): {h.get('algorithm')} after "
                f"{h.get('iterations', 0):,} iterations ({h.get('seconds', 0.0):.2f} s); NashConv {nc_s}; "
                f"{self.policy.shape[0]:,} rows")


def _check_legal(engine: NEngine, policy: np.ndarray, where: str) -> None:
    legal = np.repeat(engine.tree.legal, np.diff(engine.row_offset), axis=0)
    bad = (policy > 1e-9) & ~legal
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        d = int(engine.dec_of_row[row])
        node = int(engine.tree.decision_node[d])
        raise CfrlabError(f"{where}: row {row} (betting {engine.tree.betting[node]!r}) puts probability on an "
                          "illegal action")
