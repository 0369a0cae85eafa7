"""A solved spot in the browser (``cfrlab spot serve SOLVED.npz``): walk the tree, the 13x13
grid coloured by action frequencies, a hand class's combos with their strategy, EV and equity.

``SpotView`` is the Python side (JSON-able dicts from ``cfrlab.spot.report``'s figures);
``create_spot_app`` serves it with the play page's stack (FastAPI, static files in
``cfrlab/play/static``: ``spot.html``, ``spot.js``, ``spot.css``). Read-only, GET only:

* ``GET /api/spot``                   the spot, its solve's figures and the river cards
* ``GET /api/spot/node?path=x b10``   a decision node: actions (and where each leads), the
  range's frequencies, the grid (each class's weight, density and strategy)
* ``GET /api/spot/hand?path=...&hand=AKs``  a hand class's combos at the node

A malformed path or hand (characters a path never has, too long, ``*`` instead of a river
card, ``AKx``) is 400; a well-formed path that names no decision node of this tree is 404,
with the message naming the actions there.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

import numpy as np

from cfrlab.cards.cards import RANKS, card_text
from cfrlab.cards.ranges import combo_text
from cfrlab.errors import CfrlabError
from cfrlab.play.web import STATIC_DIR
from cfrlab.spot.report import (
    GRID,
    NodeRef,
    NodeReport,
    class_grid,
    class_name,
    class_of,
    parse_path,
    path_text,
    reader_of,
)
from cfrlab.spot.show import _class_sizes, action_colors, root_evs
from cfrlab.spot.store import SavedSolution
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD

try:
    from fastapi import FastAPI, HTTPException
    from fastapi.responses import FileResponse
    from fastapi.staticfiles import StaticFiles
except ImportError as e:  # pragma: no cover - the web extra is not installed
    raise CfrlabError("the browser view needs FastAPI and uvicorn: pip install 'cfrlab[web]'") from e

MAX_PATH = 400  # characters: a path is a few tokens a street
_PATH_CHARS = re.compile(r"^[A-Za-z0-9 ,*]*$")
_HAND = re.compile(r"^([2-9TJQKA])([2-9TJQKA])([so]?)$", re.IGNORECASE)
CACHE = 64  # node reports kept (a report walks the node's subtree once)


class BadRequest(CfrlabError):
    """A path or hand that is not written as one (HTTP 400)."""


class NoSuchNode(CfrlabError):
    """A well-formed path that names no decision node of the spot's tree (HTTP 404)."""


def _num(x) -> float | None:
    x = float(x)
    return round(x, 8) if np.isfinite(x) else None


class SpotView:
    """JSON-able views of a solved spot's nodes (``sol``: a ``SpotSolution`` with its policy,
    as ``cfrlab.spot.store.load_solution`` returns it). Reports are cached by path."""

    def __init__(self, sol) -> None:
        if sol.policy is None and sol.walk is None:
            raise CfrlabError("the browser view reads a solved spot's strategy, and this one holds none")
        self.sol = sol
        self.reader = reader_of(sol)
        self._reports: OrderedDict[str, NodeReport] = OrderedDict()
        self._lock = threading.Lock()

    # -- paths ---------------------------------------------------------------------------------
    def ref(self, path: str) -> NodeRef:
        """The node ``path`` names; ``BadRequest`` when it is malformed, ``NoSuchNode`` when
        this tree has no decision there."""
        path = str(path)
        if len(path) > MAX_PATH:
            raise BadRequest(f"a path is at most {MAX_PATH} characters, got {len(path)}")
        if not _PATH_CHARS.match(path):
            raise BadRequest("a path is action tokens (x, c, f, b10, a, r15) and river cards "
                             "separated by spaces")
        if "*" in path:
            raise BadRequest("choose a river card (such as 8d), not '*'")
        try:
            return parse_path(self.sol, path)
        except CfrlabError as e:
            raise NoSuchNode(str(e)) from None

    def report(self, path: str) -> NodeReport:
        ref = self.ref(path)
        key = path_text(self.sol, ref)
        with self._lock:  # one walk at a time: the machine's cores are few
            rep = self._reports.get(key)
            if rep is None:
                rep = self.reader.node(ref)
                self._reports[key] = rep
                while len(self._reports) > CACHE:
                    self._reports.popitem(last=False)
            self._reports.move_to_end(key)
        return rep

    def _parent(self, ref: NodeRef) -> str | None:
        """The path of the decision before ``ref`` (over a river card), None at the root."""
        tree, n, cards = self.sol.tree, ref.node, list(ref.cards)
        while tree.parent[n] >= 0:
            n = int(tree.parent[n])
            if tree.kind[n] == CHANCE:
                cards = cards[:-1]
            elif tree.kind[n] == DECISION:
                return path_text(self.sol, NodeRef(n, cards[-1] if cards else None, tuple(cards)))
        return None

    def _trail(self, ref: NodeRef) -> list[dict]:
        """Each token of the path with the path it ends (breadcrumbs; None where it ends
        at the river card's deal, not at a decision)."""
        toks = path_text(self.sol, ref).split()
        out = []
        for i, t in enumerate(toks):
            p = " ".join(toks[:i + 1])
            try:
                parse_path(self.sol, p)
            except CfrlabError:
                p = None
            out.append({"token": t, "path": p})
        return out

    def _next(self, ref: NodeRef, child: int, path: str) -> dict:
        """Where an action leads: another decision, a river card to choose, or the hand's end."""
        tree = self.sol.tree
        kind = int(tree.kind[child])
        if kind == DECISION:
            return {"kind": "decision", "path": path}
        if kind == CHANCE and tree.kind[tree.children(child)[0]] == DECISION:
            return {"kind": "card", "path": path, "cards": self.river_cards(ref.cards)}
        return {"kind": "end", "what": "fold" if kind == FOLD else "showdown"}

    def river_cards(self, dealt: tuple[int, ...] = ()) -> list[str]:
        """The cards that can come next after ``dealt`` (none on a river spot)."""
        if len(self.sol.spot.board) + len(dealt) >= 5:
            return []
        used = {int(c) for c in self.sol.spot.board} | {int(c) for c in dealt}
        return [card_text(c) for c in range(51, -1, -1) if c not in used]

    # -- views -----------------------------------------------------------------------------------
    def summary(self) -> dict:
        """The spot and its solve's figures: ``recorded`` when they are a file's record of its
        solve (``cfrlab.spot.store.SavedSolution``: its exploitability, None when ``ignored``
        says it cannot be a measurement), the EVs measured on the strategy (the root's report)."""
        sol = self.sol
        recorded = isinstance(sol, SavedSolution)
        ev_oop, ev_ip = root_evs(self.report(""), sol.spot.raked) if recorded else (sol.ev("oop"), sol.ev("ip"))
        return {"spot": sol.spot.summary(), "board": [card_text(int(c)) for c in sol.spot.board],
                "pot": int(sol.spot.pot), "stack": int(sol.spot.stack),
                "exploitability_pct": _num(sol.exploitability_pct), "recorded": recorded,
                "ignored": sol.ignored if recorded else "", "ev_oop": _num(ev_oop),
                "ev_ip": _num(ev_ip), "iterations": int(sol.iterations),
                "locked": [lk.node for lk in sol.locks], "river_cards": self.river_cards()}

    def node(self, path: str = "") -> dict:
        """A decision node: who acts, the pot, its actions (label, frequency, colour and where
        each leads), the range's frequencies and the 13x13 grid: per class its name, weight,
        density (weight per combo, the densest class 1) and strategy (``None`` where the
        player holds none of it)."""
        rep = self.report(path)
        ref = parse_path(self.sol, rep.path)
        tree = self.sol.tree
        colors = action_colors(rep.actions)
        children = {int(tree.action[c]): int(c) for c in tree.children(rep.node)}
        cols = np.flatnonzero(tree.legal[tree.decision[rep.node]])
        actions = []
        for tok, lab, f, color, col in zip(rep.actions, rep.labels, rep.frequencies, colors, cols):
            nxt = f"{rep.path} {tok}".strip()
            actions.append({"token": tok, "label": lab, "frequency": _num(f), "color": color,
                            "next": self._next(ref, children[int(col)], nxt)})
        names, weight, freq = class_grid(rep)
        dens = weight / _class_sizes()
        dens = dens / dens.max() if dens.max() > 0 else dens
        grid = [[{"hand": names[i][j], "weight": _num(weight[i, j]), "density": _num(dens[i, j]),
                  "strategy": [_num(x) for x in freq[i, j]] if weight[i, j] > 0 else None}
                 for j in range(GRID)] for i in range(GRID)]
        board = [card_text(int(c)) for c in tuple(self.sol.spot.board) + ref.cards]
        return {"path": rep.path, "parent": self._parent(ref), "trail": self._trail(ref),
                "player": rep.player, "street": rep.street, "pot": rep.pot, "board": board,
                "actions": actions, "combos": len(rep.combos), "grid": grid}

    def hand(self, path: str, hand: str) -> dict:
        """A hand class's combos at the node (each one's weight, strategy, EV and equity; EV
        and equity ``None`` where nothing of the other range gets there) and the class's
        weighted strategy and EV."""
        row, col = _parse_hand(hand)
        rep = self.report(path)
        mine = [k for k, c in enumerate(rep.combos) if class_of(int(c)) == (row, col)]
        w = rep.weight[mine]
        combos = [{"combo": combo_text(int(rep.combos[k])), "weight": _num(rep.weight[k]),
                   "strategy": [_num(x) for x in rep.strategy[k]], "ev": _num(rep.ev[k]),
                   "equity": _num(rep.equity[k])} for k in mine]
        tot = float(w.sum())
        strat = (w @ rep.strategy[mine] / tot) if tot > 0 else np.zeros(len(rep.actions))
        evs = rep.ev[mine]
        ok = np.isfinite(evs) & (w > 0)
        ev = float(w[ok] @ evs[ok] / w[ok].sum()) if ok.any() else float("nan")
        return {"path": rep.path, "hand": class_name(row, col), "player": rep.player,
                "actions": rep.actions, "labels": rep.labels, "weight": _num(tot),
                "strategy": [_num(x) for x in strat], "ev": _num(ev), "combos": combos}


def _parse_hand(text: str) -> tuple[int, int]:
    """(row, column) of a hand class written ``AA``, ``AKs`` or ``AKo`` (either order)."""
    m = _HAND.match(str(text).strip())
    if not m:
        raise BadRequest(f"a hand class is written like AA, AKs or AKo, not {str(text)[:20]!r}")
    a, b, kind = RANKS.index(m[1].upper()), RANKS.index(m[2].upper()), m[3].lower()
    hi, lo = max(a, b), min(a, b)
    if (hi == lo) != (kind == ""):
        raise BadRequest(f"{str(text)!r}: a pair has no s or o, other hands need one (AKs, AKo)")
    if kind == "o":
        return GRID - 1 - lo, GRID - 1 - hi
    return GRID - 1 - hi, GRID - 1 - lo


def create_spot_app(sol, title: str | None = None):
    """The FastAPI app of the browser view of ``sol`` (a ``SpotSolution`` or a ``SpotView``)."""
    view = sol if isinstance(sol, SpotView) else SpotView(sol)
    app = FastAPI(title=title or "cfrlab spot", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.view = view
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    def answer(fn, *args) -> dict:
        try:
            return fn(*args)
        except BadRequest as e:
            raise HTTPException(400, str(e)) from None
        except NoSuchNode as e:
            raise HTTPException(404, str(e)) from None

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "spot.html", media_type="text/html")

    @app.get("/api/spot")
    def get_spot() -> dict:
        return view.summary()

    @app.get("/api/spot/node")
    def get_node(path: str = "") -> dict:
        return answer(view.node, path)

    @app.get("/api/spot/hand")
    def get_hand(hand: str = "", path: str = "") -> dict:
        return answer(view.hand, path, hand)

    return app
