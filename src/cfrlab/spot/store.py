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
    """Write ``sol`` (a ``SpotSolution``) to ``path`` atomically. A spot solved on the walk
    whose strategy does not fit the engine's table (a flop spot) cannot be saved yet."""
    if sol.policy is None:
        raise CfrlabError("saving a flop spot (or a turn spot too big for one table) is not "
                          "supported yet: save turn and river spots")
    header = {
        "kind": KIND, "version": VERSION, "spot": spot_config(sol.spot), "spot_key": spot_key(sol.spot),
        "algorithm": sol.algorithm, "iterations": int(sol.iterations), "seconds": float(sol.seconds),
        "exploitability": float(sol.exploitability), "best_responses": [float(b) for b in sol.best_responses],
        "values": [float(v) for v in sol.values], "history": [list(map(float, h)) for h in sol.history],
        "locks": [lk.as_dict() for lk in sol.locks],
    }
    save_npz(path, header, {"policy": np.ascontiguousarray(sol.policy, dtype=np.float64)})


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
        rows = int(row_offsets(tree, model)[-1])
        policy = z.read("policy", shape=(rows, tree.num_actions))
    if policy.dtype != np.float64 or not np.isfinite(policy).all() or (policy < 0).any():
        raise CfrlabError(f"{p}: its policy is not a table of probabilities")
    try:
        locks = tuple(Lock.from_dict(d) for d in h.get("locks", []))
        sol = SpotSolution(saved, tree, model, str(h["algorithm"]), policy, int(h["iterations"]),
                           float(h["seconds"]), float(h["exploitability"]),
                           tuple(float(b) for b in h["best_responses"]), tuple(float(v) for v in h["values"]),
                           [tuple(x) for x in h.get("history", [])], locks=locks)
    except (KeyError, TypeError, ValueError) as e:
        raise CfrlabError(f"{p}: its header is incomplete ({e.__class__.__name__}: {e})") from None
    return sol
