"""Saving and loading a solved spot: a cfrlab .npz (``cfrlab.fileio``: atomic, never pickled)
holding the average strategy, with a JSON header naming the spot.

The header's ``spot`` is the spot's full config (``spot_config``: what ``make_spot`` takes, so
the file rebuilds its tree and chance model without the TOML it came from), ``spot_key`` a
hash of it, and the solve's figures. ``load_solution(path, spot)`` refuses, in one line, a file
whose spot is not ``spot`` (another board, pot, range or size), and any file whose policy does
not fit the tree and model its own spot rebuilds.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from cfrlab.cards.cards import cards_text
from cfrlab.engine import row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader, save_npz
from cfrlab.spot.config import make_spot
from cfrlab.spot.fast import STORAGES, FastSolver, SpotGame
from cfrlab.spot.lock import Lock
from cfrlab.spot.model import SpotModel
from cfrlab.spot.solve import SpotSolution
from cfrlab.spot.tree import spot_tree

KIND = "spot-solution"
VERSION = 1


def spot_config(spot) -> dict:
    """The spot as ``make_spot``'s keyword arguments (JSON-able; every size written out)."""
    bets: dict = {}
    for (who, street, kind), spec in sorted(spot.sizes.items()):
        bets.setdefault(who, {}).setdefault(street, {})[kind] = spec.text
    if spot.cap is not None:
        bets["cap"] = int(spot.cap)
    if spot.allin:
        bets["allin"] = float(spot.allin)
    return {"game": spot.game.name, "board": cards_text(spot.board), "pot": int(spot.pot),
            "stack": int(spot.stack), "oop_position": int(spot.oop_position),
            "ranges": {"oop": spot.range_text[0], "ip": spot.range_text[1]},
            **({"bets": bets} if bets else {})}


def spot_key(spot) -> str:
    """A short hash of ``spot_config`` (two spots with the same key are the same game), with
    the ranges as weights (two ways of writing one range are one spot)."""
    cfg = spot_config(spot)
    cfg.pop("ranges")
    h = hashlib.sha256(json.dumps(cfg, sort_keys=True).encode())
    for r in spot.ranges:
        h.update(np.ascontiguousarray(r, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def _describe(cfg: dict) -> str:
    return f"board {cfg.get('board')}, pot {cfg.get('pot')}, stack {cfg.get('stack')}"


def save_solution(sol, path) -> None:
    """Write ``sol`` (a ``SpotSolution``) to ``path`` atomically: its policy table, or, for a
    spot solved on the walk whose strategy is not one table (a flop spot), the walk's
    average-strategy tables as stored (``_walk_arrays``)."""
    header = {
        "kind": KIND, "version": VERSION, "spot": spot_config(sol.spot), "spot_key": spot_key(sol.spot),
        "algorithm": sol.algorithm, "iterations": int(sol.iterations), "seconds": float(sol.seconds),
        "exploitability": float(sol.exploitability), "best_responses": [float(b) for b in sol.best_responses],
        "values": [float(v) for v in sol.values], "history": [list(map(float, h)) for h in sol.history],
        "locks": [lk.as_dict() for lk in sol.locks],
    }
    if _on_walk(sol):
        header.update(format="walk", storage=sol.walk.storage, isomorphism=len(sol.walk.game.group) > 1)
        save_npz(path, header, _walk_arrays(sol.walk))
        return
    save_npz(path, header, {"policy": np.ascontiguousarray(sol.policy, dtype=np.float64)})


def _on_walk(sol) -> bool:
    """Saved as the walk's tables: a flop spot solved on the walk, or any spot without a policy."""
    if sol.policy is None and sol.walk is None:
        raise CfrlabError("this solution holds no strategy to save")
    return sol.walk is not None and (sol.policy is None or sol.spot.street < 2)


def _walk_arrays(walk) -> dict:
    """The average strategy per decision node on the representative boards only
    (``cum_N``: [boards, actions, hands] in the storage's type, ``cscale_N`` the 16-bit
    form's scale per board) and each street's representative boards' cards (``boards_L``,
    checked when the file is read: the map from a real card to its representative)."""
    out = {}
    for n, cum in walk.cum.items():
        out[f"cum_{n}"] = cum
        if walk.comp:
            out[f"cscale_{n}"] = walk.cscale[n]
    for L, lev in enumerate(walk.game.levels):
        out[f"boards_{L}"] = np.array(lev.extras, dtype=np.int64).reshape(lev.B, L)
    return out


def _load_walk(p: Path, z, h: dict, saved, tree):
    """The ``FastSolver`` (average strategy only) of a file in the walk's format."""
    storage = h.get("storage")
    if storage not in STORAGES or h.get("algorithm") not in ("dcfr", "dcfr+", "cfr+"):
        raise CfrlabError(f"{p}: its walk tables name no storage or algorithm the walk knows")
    game = SpotGame(saved, tree, bool(h.get("isomorphism", True)))
    for L, lev in enumerate(game.levels):
        boards = z.read(f"boards_{L}", shape=(lev.B, L))
        if not np.array_equal(boards, np.array(lev.extras, dtype=np.int64).reshape(lev.B, L)):
            raise CfrlabError(f"{p}: its representative boards are not this cfrlab's (another version?)")
    dtype = STORAGES[storage][1]
    cum, cscale = {}, {}
    for n in tree.decision_node:
        n = int(n)
        B = game.levels[int(tree.round[n]) - game.street].B
        shape = (B, int(tree.num_children[n]), len(game.hands[int(tree.player[n])]))
        cum[n] = z.read(f"cum_{n}", shape=shape, dtype=dtype)
        if dtype != np.uint16 and (not np.isfinite(cum[n]).all() or (cum[n] < 0).any()):
            raise CfrlabError(f"{p}: its strategy tables are not sums of probabilities")
        cscale[n] = z.read(f"cscale_{n}", shape=(B,)) if storage == "int16" else np.ones(B, dtype=np.float32)
    return FastSolver.from_tables(game, str(h["algorithm"]), storage, cum, cscale, int(h.get("iterations", 0)))


def load_solution(path, spot=None):
    """The ``SpotSolution`` saved at ``path``; with ``spot``, refused unless it is that spot."""
    p = Path(path)
    with NpzReader(p, KIND) as z:
        h = z.header
        if h.get("kind") != KIND:
            raise CfrlabError(f"{p}: not a solved spot (its kind is {h.get('kind')!r})")
        if h.get("version") != VERSION:
            raise CfrlabError(f"{p}: a solved spot of format version {h.get('version')!r}; this "
                              f"cfrlab reads version {VERSION}")
        cfg = h.get("spot")
        if not isinstance(cfg, dict):
            raise CfrlabError(f"{p}: its header names no spot")
        if spot is not None and h.get("spot_key") != spot_key(spot):
            raise CfrlabError(f"{p} is the solution of another spot ({_describe(cfg)}), not of this "
                              f"one ({_describe(spot_config(spot))}, or other ranges or sizes)")
        try:
            saved = make_spot(**cfg)
        except (CfrlabError, TypeError) as e:
            raise CfrlabError(f"{p}: its spot does not load ({e})") from None
        if spot_key(saved) != h.get("spot_key"):
            raise CfrlabError(f"{p}: its spot does not match its key (the file was changed)")
        tree, model = spot_tree(saved), SpotModel(saved)
        walk = policy = None
        if h.get("format") == "walk":
            walk = _load_walk(p, z, h, saved, tree)
        else:
            rows = int(row_offsets(tree, model)[-1])
            policy = z.read("policy", shape=(rows, tree.num_actions))
    if walk is None and (policy.dtype != np.float64 or not np.isfinite(policy).all() or (policy < 0).any()):
        raise CfrlabError(f"{p}: its policy is not a table of probabilities")
    try:
        locks = tuple(Lock.from_dict(d) for d in h.get("locks", []))
        sol = SpotSolution(saved, tree, model, str(h["algorithm"]), policy, int(h["iterations"]),
                           float(h["seconds"]), float(h["exploitability"]),
                           tuple(float(b) for b in h["best_responses"]), tuple(float(v) for v in h["values"]),
                           [tuple(x) for x in h.get("history", [])], walk, locks=locks)
    except (KeyError, TypeError, ValueError) as e:
        raise CfrlabError(f"{p}: its header is incomplete ({e.__class__.__name__}: {e})") from None
    return sol
