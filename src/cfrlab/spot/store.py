"""Saving and loading a solved spot: a cfrlab .npz (``cfrlab.fileio``: atomic, never pickled)
holding the average strategy, with a JSON header naming the spot.

The header's ``spot`` is the spot's full config (``spot_config``: what ``make_spot`` takes, so
the file rebuilds its tree and chance model without the TOML it came from), ``spot_key`` a
hash of it, and the solve's figures. ``load_solution(path, spot)`` refuses, in one line, a file
whose spot is not ``spot`` (another board, pot, range or size), and any file whose strategy is
not one of the tree and model its own spot rebuilds, checked as a strategy file is
(``cfrlab.strategy.check_policy``: finite, every row on the simplex, nothing on an illegal
action; the walk's tables finite sums of probabilities). It returns a ``SavedSolution``: the
figures the header records (exploitability, best responses, values) are the solve's record,
not measured on the strategy read, and are dropped when they cannot be a measurement.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cfrlab.cards.cards import cards_text
from cfrlab.engine import row_offsets
from cfrlab.errors import CfrlabError
from cfrlab.fileio import NpzReader, save_npz
from cfrlab.solvers.driver import Checkpointer, RunState
from cfrlab.spot.config import DEFAULT_BIG_BLIND, STREETS, make_spot
from cfrlab.spot.fast import FAST_ALGORITHMS, STORAGES, FastSolver, SpotGame
from cfrlab.spot.lock import Lock
from cfrlab.spot.model import SpotModel
from cfrlab.spot.solve import SAVED_SPOT, SpotSolution, checkpoint_identity
from cfrlab.spot.tree import spot_tree
from cfrlab.strategy import check_policy

KIND = SAVED_SPOT
VERSION = 1
SAVE_DEPTHS = (*STREETS, "full")
FIGURE_TOLERANCE = 1e-6  # recorded figures agree with each other to this fraction of the stakes


@dataclass(eq=False)
class SavedSolution(SpotSolution):
    """A ``SpotSolution`` read from a file (``load_solution``). Its strategy is checked; its
    ``exploitability``, ``best_responses`` and ``values`` (hence ``ev``) are the figures the
    file records of its solve, not measured on the strategy read: NaN, with ``ignored`` saying
    why, when they cannot be a measurement (not finite, below 0 or above the chips at stake,
    or not agreeing with each other)."""

    ignored: str = ""


def spot_config(spot) -> dict:
    """The spot as ``make_spot``'s keyword arguments (JSON-able; every size written out)."""
    bets: dict = {}
    for (who, street, kind), spec in sorted(spot.sizes.items()):
        bets.setdefault(who, {}).setdefault(street, {})[kind] = spec.text
    if spot.cap is not None:
        bets["cap"] = int(spot.cap)
    if spot.allin:
        bets["allin"] = float(spot.allin)
    extra: dict = {}
    if spot.dead:
        extra["dead"] = int(spot.dead)
    if spot.big_blind != DEFAULT_BIG_BLIND:
        extra["big_blind"] = int(spot.big_blind)
    if spot.rake_percent:
        extra["rake"] = {"percent": float(spot.rake_percent),
                         **({"cap": int(spot.rake_cap)} if spot.rake_cap is not None else {})}
    return {"game": spot.game.name, "board": cards_text(spot.board), "pot": int(spot.pot),
            "stack": int(spot.stack), "oop_position": int(spot.oop_position),
            "ranges": {"oop": spot.range_text[0], "ip": spot.range_text[1]},
            **extra, **({"bets": bets} if bets else {})}


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


def save_solution(sol, path, depth: str | None = None) -> None:
    """Write ``sol`` (a ``SpotSolution``) to ``path`` atomically: its policy table, or, for a
    spot solved on the walk whose strategy is not one table (a flop spot), the walk's
    average-strategy tables as stored (``_walk_arrays``). ``depth`` ("flop", "turn" or
    "river", PioSOLVER's "no rivers" and "no turns") keeps the strategy of the streets down to
    that one only, with each kept node's values (its EVs need no table below it); "full" keeps
    the whole solver state as well (its regrets: about twice the size), so that a solve
    resumed from the file (``solve_spot(..., resume=path)``) continues bit for bit."""
    if depth is not None and depth not in SAVE_DEPTHS:
        raise CfrlabError(f"the save depth is one of {', '.join(SAVE_DEPTHS)}, not {depth!r}")
    if depth == "full":
        _save_full(sol, path)
        return
    if depth is not None and depth != "full" and STREETS.index(depth) + 1 < sol.spot.street:
        raise CfrlabError(f"this spot starts on the {STREETS[sol.spot.street - 1]}: a save depth of "
                          f"{depth} keeps nothing")
    if depth is not None and sol.walk is None:
        raise CfrlabError("a save depth applies to a spot solved on the spot's walk (dcfr, dcfr+, cfr+)")
    header = _header(sol)
    if depth is not None and depth != STREETS[-1]:
        header.update(format="walk", storage=sol.walk.storage, isomorphism=len(sol.walk.game.group) > 1,
                      save_depth=depth)
        save_npz(path, header, _walk_arrays(sol.walk, STREETS.index(depth) + 1))
        return
    if _on_walk(sol):
        header.update(format="walk", storage=sol.walk.storage, isomorphism=len(sol.walk.game.group) > 1)
        save_npz(path, header, _walk_arrays(sol.walk))
        return
    save_npz(path, header, {"policy": np.ascontiguousarray(sol.policy, dtype=np.float64)})


def _header(sol) -> dict:
    return {
        "kind": KIND, "version": VERSION, "spot": spot_config(sol.spot), "spot_key": spot_key(sol.spot),
        "algorithm": sol.algorithm, "iterations": int(sol.iterations), "seconds": float(sol.seconds),
        "exploitability": float(sol.exploitability), "best_responses": [float(b) for b in sol.best_responses],
        "values": [float(v) for v in sol.values], "history": [list(map(float, h)) for h in sol.history],
        "locks": [lk.as_dict() for lk in sol.locks],
    }


def _save_full(sol, path) -> None:
    """The walk's average strategy and its whole state (``BoardSolver.state_dict``) as a
    checkpoint carried inside the file (``Checkpointer.contents``): the average tables once."""
    walk = sol.walk
    if walk is None or not walk.reg:
        raise CfrlabError("a full save keeps the state of a spot solved on the spot's walk (dcfr, dcfr+, cfr+) "
                          "in this process; this solution has none")
    iso = len(walk.game.group) > 1
    ident = checkpoint_identity(sol.tree, sol.model, sol.algorithm, walk.storage, walk.game.isomorphism, sol.locks)
    run = RunState(history=[(int(i), float(s), float(e) * sol.spot.pot / 100.0) for i, s, e in sol.history])
    ck, arrays = Checkpointer(path, ident).contents(walk, run)
    header = {**_header(sol), "format": "walk", "storage": walk.storage, "isomorphism": iso,
              "save_depth": "full", "checkpoint": ck}
    save_npz(path, header, {**_walk_arrays(walk, cum=False), **arrays})


def _on_walk(sol) -> bool:
    """Saved as the walk's tables: a flop spot solved on the walk, or any spot without a policy."""
    if sol.policy is None and sol.walk is None:
        raise CfrlabError("this solution holds no strategy to save")
    return sol.walk is not None and (sol.policy is None or sol.spot.street < 2)


def _walk_arrays(walk, last: int | None = None, cum: bool = True) -> dict:
    """The average strategy per decision node on the representative boards only
    (``cum_N``: [boards, actions, hands] in the storage's type, ``cscale_N`` the 16-bit
    form's scale per board) and each street's representative boards' cards (``boards_L``,
    checked when the file is read: the map from a real card to its representative). With
    ``last`` (a game round), the nodes of rounds after it are left out and each kept node has
    its acting player's values (``value_N``: float64 [boards, hands], ``node_values``).
    Without ``cum`` the strategy tables are left out (a full save carries them in its state)."""
    out = {}
    rnd = walk.game.tree.round
    kept = [n for n in walk.cum if last is None or int(rnd[n]) <= last]
    if last is not None:
        for n, val in walk.node_values(kept).items():
            out[f"value_{n}"] = val
    for n in kept if cum else ():
        out[f"cum_{n}"] = walk.cum[n]
        if walk.comp:
            out[f"cscale_{n}"] = walk.cscale[n]
    for L, lev in enumerate(walk.game.levels):
        out[f"boards_{L}"] = np.array(lev.extras, dtype=np.int64).reshape(lev.B, L)
    return out


def _load_walk(p: Path, z, h: dict, saved, tree):
    """The ``FastSolver`` (average strategy only) of a file in the walk's format, and the last
    street it keeps."""
    storage = h.get("storage")
    if storage not in STORAGES or h.get("algorithm") not in FAST_ALGORITHMS:
        raise CfrlabError(f"{p}: its walk tables name no storage or algorithm the walk knows")
    game = SpotGame(saved, tree, bool(h.get("isomorphism", True)))
    for L, lev in enumerate(game.levels):
        boards = z.read(f"boards_{L}", shape=(lev.B, L))
        if not np.array_equal(boards, np.array(lev.extras, dtype=np.int64).reshape(lev.B, L)):
            raise CfrlabError(f"{p}: its representative boards are not this cfrlab's (another version?)")
    depth = h.get("save_depth", STREETS[-1])
    full = depth == "full"
    if not full and (depth not in STREETS or STREETS.index(depth) + 1 < saved.street):
        raise CfrlabError(f"{p}: its save depth {_short(depth)} is not a street of its spot")
    last = len(STREETS) if full else STREETS.index(depth) + 1
    key = "s.cum.{}" if full else "cum_{}"  # a full save's strategy is in its solver state
    skey = "s.cscale.{}" if full else "cscale_{}"
    dtype = STORAGES[storage][1]
    cum, cscale, values = {}, {}, {}
    for n in tree.decision_node:
        n = int(n)
        if int(tree.round[n]) > last:
            continue
        B = game.levels[int(tree.round[n]) - game.street].B
        if last < len(STREETS):
            values[n] = z.read(f"value_{n}", shape=(B, len(game.hands[int(tree.player[n])])), dtype=np.float64)
            if not np.isfinite(values[n]).all():
                raise CfrlabError(f"{p}: its node values are not finite")
        shape = (B, int(tree.num_children[n]), len(game.hands[int(tree.player[n])]))
        cum[n] = z.read(key.format(n), shape=shape, dtype=dtype)
        total = cum[n].sum(axis=1, dtype=np.float64)  # a row's sum: finite (1e308 rows overflow it)
        if (dtype != np.uint16 and (cum[n] < 0).any()) or not np.isfinite(total).all():
            raise CfrlabError(f"{p}: its strategy tables are not sums of probabilities")
        cscale[n] = z.read(skey.format(n), shape=(B,)) if storage == "int16" else np.ones(B, dtype=np.float32)
        if not (np.isfinite(cscale[n]).all() and (cscale[n] > 0).all()):
            raise CfrlabError(f"{p}: its strategy tables' scales are not positive numbers")
    return FastSolver.from_tables(game, str(h["algorithm"]), storage, cum, cscale, int(h.get("iterations", 0)),
                                  values), STREETS[-1] if full else depth


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
        fields = _header_fields(p, h)
        tree, model = spot_tree(saved), SpotModel(saved)
        walk = policy = None
        depth = STREETS[-1]
        if h.get("format") == "walk":
            walk, depth = _load_walk(p, z, h, saved, tree)
        else:
            offsets = row_offsets(tree, model)
            policy = z.read("policy", shape=(int(offsets[-1]), tree.num_actions), dtype=np.float64)
            check_policy(policy, tree, model, offsets, where=f"{p}: its strategy")
    figures, ignored = _recorded_figures(h, saved)
    return SavedSolution(saved, tree, model, fields["algorithm"], policy, fields["iterations"],
                         fields["seconds"], *figures, fields["history"], walk, locks=fields["locks"],
                         save_depth=depth, ignored=ignored)


def _header_fields(p: Path, h: dict) -> dict:
    """The header's solve fields, checked: a refusal names the field."""

    def bad(key: str, what: str) -> CfrlabError:
        return CfrlabError(f"{p}: its header is corrupt ({key!r} is {_short(h.get(key))}, not {what})")

    for key in ("algorithm", "iterations", "seconds", "exploitability", "best_responses", "values"):
        if key not in h:
            raise CfrlabError(f"{p}: its header is incomplete (no {key!r})")
    if not isinstance(h["algorithm"], str) or not h["algorithm"]:
        raise bad("algorithm", "an algorithm's name")
    it = h["iterations"]
    if not isinstance(it, int) or isinstance(it, bool) or it < 0:
        raise bad("iterations", "a whole number >= 0")
    if not _number(h["seconds"]) or h["seconds"] < 0:
        raise bad("seconds", "a number of seconds >= 0")
    history = h.get("history", [])
    if not isinstance(history, list) or not all(
            isinstance(x, list) and len(x) == 3 and all(_number(v) for v in x) for x in history):
        raise bad("history", "a list of (iterations, seconds, exploitability %)")
    try:
        locks = tuple(Lock.from_dict(d) for d in h.get("locks", []))
    except (CfrlabError, TypeError) as e:
        raise CfrlabError(f"{p}: its header is corrupt (locks: {e})") from None
    return {"algorithm": h["algorithm"], "iterations": it, "seconds": float(h["seconds"]),
            "history": [tuple(x) for x in history], "locks": locks}


def _recorded_figures(h: dict, spot) -> tuple[tuple, str]:
    """((exploitability, best responses, values), "") as the header records them, or NaNs and
    why they cannot be a measurement. A player's winnings in the spot lie within the chips at
    stake (half the pot plus the stack) either way; the exploitability is >= 0 and what the two
    best responses gain over the values, averaged; the values are zero-sum unless raked."""
    nan = math.nan
    dropped = (nan, (nan, nan), (nan, nan))
    e, br, v = h["exploitability"], h["best_responses"], h["values"]
    if not (_real(e) and _pair(br) and _pair(v)):
        return dropped, "the recorded exploitability, best responses or values are not numbers"
    stake = spot.pot / 2 + spot.stack
    tol = FIGURE_TOLERANCE * stake
    if not all(math.isfinite(x) for x in (e, *br, *v)):
        return dropped, "a recorded figure is not finite"
    if e < -tol:
        return dropped, f"the recorded exploitability {e:.6g} chips is below 0"
    if max(abs(x) for x in (e, *br, *v)) > stake + tol:
        return dropped, f"a recorded figure is more than the {stake:g} chips at stake"
    if abs(e - 0.5 * (br[0] - v[0] + br[1] - v[1])) > tol or (not spot.raked and abs(v[0] + v[1]) > tol):
        return dropped, "the recorded exploitability, best responses and values do not agree"
    return (float(e), (float(br[0]), float(br[1])), (float(v[0]), float(v[1]))), ""


def _real(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _number(x) -> bool:
    return _real(x) and math.isfinite(x)


def _pair(x) -> bool:
    return isinstance(x, list) and len(x) == 2 and all(_real(v) for v in x)


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:40] + "..."
