"""Reading a solved spot: any decision node's strategy per combo and per hand class, each
combo's EV and equity there, and the range's action frequencies (docs/spots.md, "Reading").

**Nodes** are addressed by an action path from the spot's root, tokens separated by spaces
(``parse_path``): ``x`` check, ``c`` call (or check), ``f`` fold, ``bN`` a bet or raise *to*
N chips on this street (what the solvers display: "bet 10", "raise to 30"), ``a`` the all-in,
``rN`` the tree's own ACPC action (a raise to N chips in the hand, the pot's halves included),
and, in a turn spot once the turn's betting closes, the river card (``8d``; ``*`` every river
card: a report per card, or a lock on every river). ``""`` is the
root. A path names the node its last token leads to; it must be a decision.

**Figures**, for the player acting at the node (``NodeReport``):

- a combo's **weight**: its probability in the spot's chance (range weight times card removal
  against the other range) times the player's own actions on the path: what a solver's range
  view shows; the **frequencies** are the strategy averaged with these weights, and a hand
  class's cell of the 13x13 grid (``class_grid``) the average over its combos;
- a combo's **EV**: the chips the player expects to take from the pot at the end minus what
  it puts in from this node on, holding that combo at this node (the convention of
  ``SpotSolution.ev`` at the root: OOP's and IP's EVs there, range-weighted, sum to the pot);
- a combo's **equity**: its share of the pot at a showdown against the other player's range
  as it reaches the node (ties count half; every river card on the turn).

Values come from one walk of the node's subtree under the solved strategy with the chance
model's tables (``fold_matrix``, ``showdown_matrix``, ``parent``: the ChanceModel contract),
holding one vector per node on the path being walked, never a whole tree's: ``walk_reports``
streams the reports of a subtree node by node, children before their parent (a parent's values
need its children's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from cfrlab.cards.cards import RANKS, card_text, parse_card
from cfrlab.cards.ranges import COMBOS, combo_text
from cfrlab.engine import kernels as K
from cfrlab.engine import row_offsets
from cfrlab.engine.board import View
from cfrlab.errors import CfrlabError
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN

GRID = 13
_BET = re.compile(r"^([br])(\d+)$")
STREET_NAMES = ("preflop", "flop", "turn", "river")


def check_held(sol, node: int) -> None:
    """Refuse, in one line, a node below the last street a saved solution keeps
    (``save_depth``, a street's name)."""
    r = int(sol.tree.round[node])
    if sol.walk is not None and r > STREET_NAMES.index(sol.save_depth):
        raise CfrlabError(f"this file keeps the strategy down to the {sol.save_depth} (saved with a save "
                          f"depth); the node is on the {STREET_NAMES[r]}")


@dataclass(frozen=True)
class NodeRef:
    """A decision node of a solved spot's tree and, below a chance node, the last card dealt
    (``card``) and every card dealt after the spot's board (``cards``: a flop spot's turn and
    river cards)."""

    node: int
    card: int | None = None
    cards: tuple[int, ...] = ()


@dataclass
class NodeReport:
    """One decision node's figures for the acting player (module docstring). ``combos`` are
    the combos it holds there with a positive weight (``cfrlab.cards.ranges`` indices);
    ``strategy[k, j]`` combo k's probability of ``actions[j]``."""

    path: str
    node: int
    card: int | None
    player: str  # "oop" or "ip"
    street: str
    pot: int  # chips in the pot at the node
    actions: list[str]  # tokens (x, c, f, b10, ...)
    labels: list[str]  # "check", "bet 10", ...
    combos: np.ndarray
    weight: np.ndarray
    strategy: np.ndarray
    ev: np.ndarray
    equity: np.ndarray

    @property
    def frequencies(self) -> np.ndarray:
        """Each action's share of the range (weights as in the module docstring)."""
        tot = self.weight.sum()
        return self.weight @ self.strategy / tot if tot > 0 else np.zeros(len(self.actions))

    def combo_rows(self) -> Iterator[tuple[str, float, list[float], float, float]]:
        """(combo text, weight, strategy, EV, equity) per combo."""
        for k, c in enumerate(self.combos):
            yield (combo_text(int(c)), float(self.weight[k]), [float(x) for x in self.strategy[k]],
                   float(self.ev[k]), float(self.equity[k]))

    def as_dict(self, combos: bool = True) -> dict:
        """JSON-able: the node, its actions and frequencies, the grid and (``combos``) every
        combo's weight, strategy, EV and equity (NaN, where nothing of the other range
        reaches the node, as null)."""
        names, weight, freq = class_grid(self)
        grid = {names[i][j]: {"weight": _num(weight[i, j]), "strategy": [_num(x) for x in freq[i, j]]}
                for i in range(GRID) for j in range(GRID) if weight[i, j] > 0}
        out = {"path": self.path, "node": self.node, "player": self.player, "street": self.street,
               "pot": self.pot, "actions": self.actions, "labels": self.labels,
               "frequencies": [_num(x) for x in self.frequencies], "grid": grid}
        if self.card is not None:
            out["river"] = card_text(self.card)
        if combos:
            out["combos"] = {name: {"weight": _num(w), "strategy": [_num(x) for x in s], "ev": _num(ev),
                                    "equity": _num(eq)} for name, w, s, ev, eq in self.combo_rows()}
        return out


def _num(x: float) -> float | None:
    x = float(x)
    return round(x, 10) if np.isfinite(x) else None


# -- hand classes -----------------------------------------------------------------------------
def class_of(combo: int) -> tuple[int, int]:
    """(row, column) of a combo's hand class in the 13x13 grid: aces first, pairs on the
    diagonal, suited hands above it (row = high card), offsuit below (row = low card)."""
    a, b = (int(c) for c in COMBOS[combo])
    ra, rb = a // 4, b // 4
    hi, lo = max(ra, rb), min(ra, rb)
    if a % 4 == b % 4:
        return GRID - 1 - hi, GRID - 1 - lo
    return GRID - 1 - lo, GRID - 1 - hi


def class_name(row: int, col: int) -> str:
    hi, lo = RANKS[GRID - 1 - min(row, col)], RANKS[GRID - 1 - max(row, col)]
    return hi + lo + ("" if row == col else "s" if row < col else "o")


def class_grid(report: NodeReport) -> tuple[list[list[str]], np.ndarray, np.ndarray]:
    """(names[13][13], weight float64[13, 13], strategy float64[13, 13, A]): each class's total
    weight and its strategy, the combo-weighted average over its combos at the node (zeros
    where the player holds none of them)."""
    A = len(report.actions)
    weight = np.zeros((GRID, GRID))
    mass = np.zeros((GRID, GRID, A))
    for k, c in enumerate(report.combos):
        i, j = class_of(int(c))
        weight[i, j] += report.weight[k]
        mass[i, j] += report.weight[k] * report.strategy[k]
    freq = np.divide(mass, weight[:, :, None], out=np.zeros_like(mass), where=weight[:, :, None] > 0)
    names = [[class_name(i, j) for j in range(GRID)] for i in range(GRID)]
    return names, weight, freq


# -- actions and paths ----------------------------------------------------------------------
def _street_start(tree, n: int) -> np.ndarray:
    """Chips each player had in at the start of node n's street."""
    m = n
    while tree.parent[m] >= 0 and tree.kind[tree.parent[m]] == DECISION and \
            tree.round[tree.parent[m]] == tree.round[n]:
        m = int(tree.parent[m])
    return tree.spent[m]


def _is_allin(tree, child: int) -> bool:
    return int(tree.raise_to[child]) >= int(tree.game.stack[0])


def action_token(tree, n: int, col: int) -> str:
    """The path token of column ``col`` at decision node n (module docstring)."""
    if col == 0:
        return "f"
    if col == 1:
        p = int(tree.player[n])
        return "x" if tree.spent[n, p] == tree.spent[n].max() else "c"
    child = tree.child_by_action(n, col)
    return f"b{int(tree.raise_to[child]) - int(_street_start(tree, n)[tree.player[n]])}"


def action_label(tree, n: int, col: int) -> str:
    """``fold``, ``check``, ``call``, ``bet N`` or ``raise N`` (to N chips on the street),
    ``(all-in)`` added when it is."""
    tok = action_token(tree, n, col)
    if tok[0] != "b":
        return {"f": "fold", "x": "check", "c": "call"}[tok]
    start = _street_start(tree, n)
    facing = tree.spent[n].max() > start.max()
    text = f"{'raise' if facing else 'bet'} {tok[1:]}"
    return text + (" (all-in)" if _is_allin(tree, tree.child_by_action(n, col)) else "")


def _match(tree, n: int, tok: str) -> int:
    """The child of decision node n that ``tok`` names, or -1."""
    for c in tree.children(n):
        col = int(tree.action[c])
        mine = action_token(tree, n, col)
        if tok == mine or (tok == "c" and mine == "x"):
            return int(c)
        if col >= 2 and (tok == f"r{int(tree.raise_to[c])}" or (tok == "a" and _is_allin(tree, int(c)))):
            return int(c)
    return -1


def parse_path(sol, text: str) -> NodeRef:
    """The node ``text`` names in ``sol``'s tree (module docstring); CfrlabError, naming the
    actions there, when a token does not fit."""
    tree = sol.tree
    n, card, done, cards = 0, None, [], []
    for tok in str(text).replace(",", " ").split():
        t = tok.lower()
        kind = tree.kind[n]
        if kind == CHANCE and tok == "*":  # every river card
            if sol.spot.street < 2:
                raise CfrlabError("on a flop spot, choose the turn and river cards (such as Kd), not '*'")
            n = int(tree.children(n)[0])
        elif kind == CHANCE:
            try:
                c = parse_card(tok)
            except CfrlabError:
                street = STREET_NAMES[int(tree.round[tree.children(n)[0]])]
                raise CfrlabError(f"after {' '.join(done) or 'the root'} the {street} card comes "
                                  f"(such as 8d), not {tok!r}") from None
            if c in sol.spot.board or c in cards:
                street = STREET_NAMES[int(tree.round[tree.children(n)[0]])]
                raise CfrlabError(f"the {street} card {card_text(c)} is on the board")
            card, n = c, int(tree.children(n)[0])
            cards.append(c)
        elif kind == DECISION:
            nxt = _match(tree, n, t)
            if nxt < 0:
                legal = ", ".join(action_token(tree, n, int(a)) for a in np.flatnonzero(tree.legal[tree.decision[n]]))
                raise CfrlabError(f"{tok!r} is not an action at {' '.join(done) or 'the root'} "
                                  f"(actions: {legal})")
            n = nxt
        else:
            raise CfrlabError(f"the hand is over after {' '.join(done)}: {tok!r} leads nowhere")
        done.append(tok)
    if tree.kind[n] != DECISION:
        dealt = STREET_NAMES[int(tree.round[tree.children(n)[0]])] if tree.kind[n] == CHANCE else ""
        what = {CHANCE: f"the {dealt} card is dealt (add it, such as 8d)", FOLD: "a fold ends the hand",
                SHOWDOWN: "a showdown ends the hand"}[int(tree.kind[n])]
        raise CfrlabError(f"{' '.join(done) or 'the root'} is not a decision: {what}")
    return NodeRef(n, card, tuple(cards))


def path_text(sol, ref: NodeRef) -> str:
    """The canonical path of a node (``parse_path``'s inverse)."""
    tree = sol.tree
    toks, n = [], ref.node
    cards = list(ref.cards) if ref.cards else ([ref.card] if ref.card is not None else [])
    while tree.parent[n] >= 0:
        par = int(tree.parent[n])
        if tree.kind[par] == CHANCE:
            toks.append(card_text(cards.pop()) if cards else "*")
        else:
            toks.append(action_token(tree, par, int(tree.action[n])))
        n = par
    return " ".join(reversed(toks))


# -- values ---------------------------------------------------------------------------------
class SpotReader:
    """Reports of a solved spot's nodes (module docstring); ``sol`` is a ``SpotSolution``
    (its ``tree``, ``model`` and ``policy``)."""

    def __init__(self, sol) -> None:
        self.sol = sol
        self.tree, self.model, self.policy = sol.tree, sol.model, sol.policy
        self.row_offset = row_offsets(self.tree, self.model)
        self.last = self.tree.num_rounds - 1

    @cached_property
    def _fold(self) -> dict:
        """Round r -> (P_r, P_r^T) as CSR matrices."""
        import scipy.sparse as sp

        out = {}
        for r in range(self.sol.spot.street, self.tree.num_rounds):
            m = sp.csr_matrix(self.model.fold_matrix(r))
            out[r] = (m, m.T.tocsr())
        return out

    @cached_property
    def _showdown(self) -> tuple:
        import scipy.sparse as sp

        w = sp.csr_matrix(self.model.showdown_matrix())
        return w, (-w.T).tocsr()

    @cached_property
    def _cards(self) -> dict:
        """Round r (after the spot's street) -> int64[num_states[r]]: the last board card."""
        m = self.model
        return {r: np.array([m.state_board(r, s)[-1] for s in range(m.num_states[r])], dtype=np.int64)
                for r in range(self.sol.spot.street + 1, self.tree.num_rounds)}

    def _rows(self, n: int, r: int) -> np.ndarray:
        d = int(self.tree.decision[n])
        start = int(self.row_offset[d])
        return self.policy[start:start + self.model.num_states[r]]

    def _against(self, q: int, r: int, pi_opp: np.ndarray) -> np.ndarray:
        """Per state of player q at round r: the chance-weighted reach of the other player."""
        return self._fold[r][q] @ pi_opp

    def _expand(self, r: int, vec: np.ndarray) -> np.ndarray:
        return vec[self.model.parent[r]]

    def _collapse(self, r: int, vec: np.ndarray) -> np.ndarray:
        """Sum round-r values onto their round r-1 states."""
        return np.bincount(self.model.parent[r], weights=vec, minlength=self.model.num_states[r - 1])

    def values(self, n: int, pi: list[np.ndarray], depth: int | None = None,
               emit: Callable[[NodeReport], None] | None = None, prefix: str = "",
               card: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(v0, v1): each player's counterfactual values (chips of zero-sum winnings, weighted
        by the chance of the states and the other player's reach ``pi``) at node n, under the
        solved strategy. ``emit`` gets the report of every decision node of the subtree down to
        ``depth`` more actions (None: all), children first; ``prefix`` is n's path (``*``
        for a river card not chosen: each report names its own)."""
        tree = self.tree
        r = int(tree.round[n])
        kind = tree.kind[n]
        if kind == FOLD:
            u0 = float(tree.spent[n, 1]) if tree.player[n] == 1 else -float(tree.spent[n, 0])
            return u0 * self._against(0, r, pi[1]), -u0 * self._against(1, r, pi[0])
        if kind == SHOWDOWN:
            stake = float(tree.spent[n].min())
            w, wt = self._showdown
            return stake * (w @ pi[1]), stake * (wt @ pi[0])
        if kind == CHANCE:
            c = int(tree.children(n)[0])
            r1 = int(tree.round[c])
            kids = [self._expand(r1, p) for p in pi]
            v = self.values(c, kids, depth, emit, f"{prefix} *".strip(), card)
            return self._collapse(r1, v[0]), self._collapse(r1, v[1])
        q = int(tree.player[n])
        rows = self._rows(n, r)
        v = [np.zeros(self.model.num_states[r]), np.zeros(self.model.num_states[r])]
        for c in tree.children(n):
            a = int(tree.action[c])
            sig = rows[:, a]
            kid = list(pi)
            kid[q] = pi[q] * sig
            tok = action_token(tree, n, a)
            vc = self.values(int(c), kid, None if depth is None else depth - 1, emit,
                             f"{prefix} {tok}".strip(), card)
            v[q] += sig * vc[q]
            v[1 - q] += vc[1 - q]
        if emit is not None and (depth is None or depth >= 0):
            node_vectors = self._node_vectors(n, pi)  # once for every river card's report
            for cd in self._cards_at(r, card):
                emit(self.report(n, pi, v, cd, prefix, node_vectors))
        return v[0], v[1]

    def _cards_at(self, r: int, card: int | None) -> list[int | None]:
        """The river cards a node of round r is reported for: one given, every one, or none."""
        if r <= self.sol.spot.street:
            return [None]
        if card is not None:
            return [card]
        return [int(c) for c in np.unique(self._cards[r])]

    def _node_vectors(self, n: int, pi: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(weight, denominator, showdown share) per state of the player acting at n."""
        r, q = int(self.tree.round[n]), int(self.tree.player[n])
        fold, fold_t = self._fold[r]
        marg = (fold if q == 0 else fold_t) @ np.ones(self.model.num_states[r])
        return marg * pi[q], self._against(q, r, pi[1 - q]), self._showdown_share(q, r, pi[1 - q])

    def report(self, n: int, pi: list[np.ndarray], v: list[np.ndarray], card: int | None,
               path: str, node_vectors=None) -> NodeReport:
        """The ``NodeReport`` of decision node n from both players' reach and values there."""
        tree, r = self.tree, int(self.tree.round[n])
        q = int(tree.player[n])
        weight, denom, share = node_vectors if node_vectors is not None else self._node_vectors(n, pi)
        keep = weight > 0
        if card is not None:
            keep &= self._cards[r] == card
            path = path.replace("*", card_text(card))
        S = np.flatnonzero(keep)
        cols = np.flatnonzero(tree.legal[tree.decision[n]])
        with np.errstate(divide="ignore", invalid="ignore"):
            ev = v[q][S] / denom[S] + (float(tree.spent[n, q]) + 0.5 * self.sol.spot.dead)
            equity = 0.5 * (share[S] / denom[S] + 1.0)
        return NodeReport(
            path=path, node=int(n), card=card, player="oop" if q == self.sol.spot.oop_position else "ip",
            street=STREET_NAMES[r], pot=int(tree.spent[n].sum()) + self.sol.spot.dead,
            actions=[action_token(tree, n, int(a)) for a in cols],
            labels=[action_label(tree, n, int(a)) for a in cols],
            combos=np.array([self.model.state_combo(r, int(s)) for s in S], dtype=np.int64),
            weight=weight[S], strategy=self._rows(n, r)[S][:, cols], ev=ev, equity=equity)

    def _showdown_share(self, q: int, r: int, pi_opp: np.ndarray) -> np.ndarray:
        """Per state of player q at round r: sum over the other's states of chance weight x
        reach x sign(q's hand - theirs) on the final board (summed over the cards to come)."""
        w, wt = self._showdown
        opp = pi_opp
        for rr in range(r + 1, self.tree.num_rounds):
            opp = self._expand(rr, opp)
        out = (w if q == 0 else wt) @ opp
        for rr in range(self.tree.num_rounds - 1, r, -1):
            out = self._collapse(rr, out)
        return out

    def reach(self, ref: NodeRef) -> list[np.ndarray]:
        """Both players' own reach (the product of their actions' probabilities on the path)
        at ``ref``'s node, per state of its round; zero off ``ref.card``'s river."""
        tree = self.tree
        path = []
        n = ref.node
        while tree.parent[n] >= 0:
            path.append(n)
            n = int(tree.parent[n])
        pi = [np.ones(self.model.num_states[int(tree.round[0])]) for _ in range(2)]
        for c in reversed(path):
            par = int(tree.parent[c])
            if tree.kind[par] == CHANCE:
                r1 = int(tree.round[c])
                pi = [self._expand(r1, p) for p in pi]
                if ref.card is not None:
                    on = self._cards[r1] == ref.card
                    pi = [p * on for p in pi]
            else:
                q = int(tree.player[par])
                pi[q] = pi[q] * self._rows(par, int(tree.round[par]))[:, int(tree.action[c])]
        return pi

    def node(self, ref: NodeRef | str) -> NodeReport:
        """The ``NodeReport`` of one node (a ``NodeRef`` or a path). A path through a ``*``
        card names a node on every card: ``card_reports`` gives them one per card."""
        ref = parse_path(self.sol, ref) if isinstance(ref, str) else ref
        if ref.card is None and int(self.tree.round[ref.node]) > self.sol.spot.street:
            raise CfrlabError(f"{path_text(self.sol, ref)}: '*' stands for every river card; choose "
                              "one (such as 8d), or list them all (card_reports)")
        got = []
        self.values(ref.node, self.reach(ref), depth=0, emit=got.append,
                    prefix=path_text(self.sol, ref), card=ref.card)
        return got[-1]

    def walk(self, ref: NodeRef | str = "", depth: int | None = None,
             emit: Callable[[NodeReport], None] | None = None) -> None:
        """``emit`` the report of every decision node under ``ref`` (itself included) down to
        ``depth`` more actions (None: every one), children first."""
        ref = parse_path(self.sol, ref) if isinstance(ref, str) else ref
        self.values(ref.node, self.reach(ref), depth=depth, emit=emit,
                    prefix=path_text(self.sol, ref), card=ref.card)



# -- a spot solved on its walk (a flop spot) ------------------------------------------------------
class WalkReader:
    """``SpotReader``'s reports read from the spot's walk tables (``sol.walk``: a
    ``cfrlab.spot.fast.FastSolver``, as a flop spot is solved and saved). A node below a chance
    node is on the board its path's cards make; its figures are computed on that board's
    representative (suit isomorphism) and the combos mapped back through the suit permutation.
    Values walk the node's subtree on that one board in float64. ``walk`` reports the nodes of
    a subtree down to the next card (a flop spot's turn and river boards are too many to list:
    name the card in the path)."""

    def __init__(self, sol) -> None:
        self.sol, self.tree, self.solver = sol, sol.tree, sol.walk
        self.game = sol.walk.game

    def _strategy(self, n: int, cards: tuple[int, ...]) -> np.ndarray:
        """float64[1326, A] of node n on the board plus ``cards`` (A in child order)."""
        check_held(self.sol, n)
        return self.solver.strategy(n, cards)

    def _own_reach(self, ref: NodeRef) -> list[np.ndarray]:
        """Each player's range weight times its own actions to ``ref``, per combo (1326),
        zero for combos holding a card dealt on the path."""
        tree, g = self.tree, self.game
        out = []
        for p in (0, 1):
            r = np.zeros(len(COMBOS))
            r[g.hands[p]] = g.w[p]
            for c in ref.cards:
                r[(COMBOS == c).any(axis=1)] = 0.0
            out.append(r)
        path, n = [], ref.node
        while tree.parent[n] >= 0:
            path.append(n)
            n = int(tree.parent[n])
        dealt = 0
        for c in reversed(path):
            par = int(tree.parent[c])
            if tree.kind[par] == CHANCE:
                dealt += 1
                continue
            q = int(tree.player[par])
            a = [int(k) for k in tree.children(par)].index(int(c))
            out[q] = out[q] * self._strategy(par, ref.cards[:dealt])[:, a]
        return out

    def _view(self, L: int, b: int):
        """The walk's view of canonical board b of level L and every board below it."""
        g = self.game
        lo, hi = [0] * len(g.levels), [0] * len(g.levels)
        anc = b
        for k in range(L, -1, -1):  # b's ancestors above it
            lo[k], hi[k] = anc, anc + 1
            anc = int(g.levels[k].parent[anc]) if k > 0 else 0
        for k in range(L + 1, len(g.levels)):
            lo[k] = int(np.searchsorted(g.levels[k].parent, lo[k - 1]))
            hi[k] = int(np.searchsorted(g.levels[k].parent, hi[k - 1]))
        return View(g, lo, hi)

    def _share(self, L: int, v, q: int, reach: np.ndarray) -> np.ndarray:
        """Per hand of q on v's level-L board: the other's reach over weaker hands minus over
        stronger ones at the showdown, averaged over the cards to come."""
        g = self.game
        o = 1 - q
        out = np.empty((v.B[L], len(g.hands[q])))
        if L == len(g.levels) - 1:
            sdvalid, sdidx = v.river[q][:2]
            K.showdown_values(reach, g.cards8[q], sdvalid, sdidx, *v.river[o][2:], 1.0, out)
            return out
        down = np.empty((v.B[L + 1], reach.shape[1]))
        K.deal_down(reach, *v.down[L + 1], g.cards[o], down)
        below = self._share(L + 1, v, q, down)
        K.deal_up(below, *v.up[L + 1], g.hmap[q], g.inv_left[L], out)
        return out

    def node(self, ref: NodeRef | str) -> NodeReport:
        """The ``NodeReport`` of one node (a ``NodeRef`` or a path)."""
        ref = parse_path(self.sol, ref) if isinstance(ref, str) else ref
        tree, g, s = self.tree, self.game, self.solver
        n = ref.node
        check_held(self.sol, n)
        L = len(ref.cards)
        q = int(tree.player[n])
        o = 1 - q
        b, tau = g.canonical(ref.cards)
        own = self._own_reach(ref)
        maps = [g.hand_map(p, tau) for p in (0, 1)]
        canon = []  # each player's reach on the representative board, its hands' order
        for p in (0, 1):
            m = maps[p]
            x = np.zeros(len(g.hands[p]))
            ok = m >= 0
            x[m[ok]] = own[p][g.hands[p][ok]]
            canon.append(x * g.levels[L].valid[p][b])
        v = self._view(L, b)
        held = s.held_values.get(n)  # a file that keeps the streets above: values saved with it
        val = held[b:b + 1] if held is not None else s.values_at(n, q, canon[o][None], v)
        denom = np.empty((1, len(g.hands[q])))
        K.fold_values(canon[o][None], g.cards8[o], g.cards8[q], g.same_at[q], g.same_ok[q],
                      v.validf[L][q], 1.0, denom)
        chance = np.zeros(len(g.hands[o]))  # the other range's weights on this board
        chance[:] = g.w[o] * g.levels[L].valid[o][b]
        marg = np.empty((1, len(g.hands[q])))
        K.fold_values(chance[None], g.cards8[o], g.cards8[q], g.same_at[q], g.same_ok[q], v.validf[L][q], 1.0, marg)
        share = self._share(L, v, q, canon[o][None])
        m = maps[q]
        hands = np.flatnonzero(m >= 0)
        hands = hands[own[q][g.hands[q][hands]] > 0]
        c = m[hands]
        weight = own[q][g.hands[q][hands]] * marg[0, c] / g.mass * float(np.prod(g.inv_left[:L]))
        keep = weight > 0
        hands, c, weight = hands[keep], c[keep], weight[keep]
        combos = g.hands[q][hands]
        cols = np.flatnonzero(tree.legal[tree.decision[n]])
        with np.errstate(divide="ignore", invalid="ignore"):
            ev = val[0, c] / denom[0, c] + (float(tree.spent[n, q]) + 0.5 * self.sol.spot.dead)
            equity = 0.5 * (share[0, c] / denom[0, c] + 1.0)
        return NodeReport(
            path=path_text(self.sol, ref), node=int(n), card=ref.card,
            player="oop" if q == self.sol.spot.oop_position else "ip",
            street=STREET_NAMES[int(tree.round[n])], pot=int(tree.spent[n].sum()) + self.sol.spot.dead,
            actions=[action_token(tree, n, int(a)) for a in cols],
            labels=[action_label(tree, n, int(a)) for a in cols],
            combos=combos.astype(np.int64), weight=weight,
            strategy=self._strategy(n, ref.cards)[combos], ev=ev, equity=equity)

    def walk(self, ref: NodeRef | str = "", depth: int | None = None,
             emit: Callable[[NodeReport], None] | None = None) -> None:
        """``emit`` the report of every decision node under ``ref`` (itself included) down to
        ``depth`` more actions (None: every one) and the next card, children first."""
        ref = parse_path(self.sol, ref) if isinstance(ref, str) else ref
        tree = self.tree

        def visit(n: int, d: int | None) -> None:
            for c in tree.children(n):
                if tree.kind[c] == DECISION and (d is None or d >= 1):
                    visit(int(c), None if d is None else d - 1)
            if emit is not None:
                emit(self.node(NodeRef(n, ref.card, ref.cards)))

        visit(ref.node, depth)


def reader_of(sol):
    """The reader of a solved spot: ``SpotReader`` on its policy table, ``WalkReader`` on
    its walk tables (a flop spot)."""
    if sol.walk is not None and (sol.policy is None or sol.spot.street < 2):
        return WalkReader(sol)
    return SpotReader(sol)


# -- every card at once ----------------------------------------------------------------------------
@dataclass
class CardRow:
    """One card's line of ``card_reports``: the node's figures when that card comes."""

    card: int
    reach: float  # the acting player's range weight at the node on this card
    frequencies: np.ndarray
    ev: float  # the acting player's EV, its combos weighted as the frequencies are
    equity: float

    def as_dict(self, actions: list[str]) -> dict:
        return {"card": card_text(self.card), "reach": _num(self.reach),
                "frequencies": dict(zip(actions, (_num(x) for x in self.frequencies))),
                "ev": _num(self.ev), "equity": _num(self.equity)}


def card_reports(reader, text: str) -> tuple[NodeReport, list[CardRow]] | None:
    """A path whose one card token is ``*`` (``x b10 c * x``; a flop spot's turn or river): the
    node's report on every card that may come there, as one row per card (None when the path
    names no ``*``). The first card's report is returned beside the rows (its actions and
    labels are every card's)."""
    toks = str(text).replace(",", " ").split()
    stars = [i for i, t in enumerate(toks) if t == "*"]
    if not stars:
        return None
    if len(stars) > 1:
        raise CfrlabError(f"{text!r}: one '*' at a time (name the other cards, such as 8d)")
    i = stars[0]
    used = set(reader.sol.spot.board)  # the board and the cards the path deals before the '*'
    for t in toks[:i]:
        try:
            used.add(parse_card(t))
        except CfrlabError:
            pass  # an action token
    rows, first = [], None
    for c in sorted(set(range(52)) - used):
        try:
            ref = parse_path(reader.sol, " ".join(toks[:i] + [card_text(c)] + toks[i + 1:]))
        except CfrlabError as e:
            raise CfrlabError(str(e).replace(card_text(c), "*")) from None
        rep = reader.node(ref)
        first = first or rep
        w = rep.weight
        ok = np.isfinite(rep.ev) & (w > 0)
        tot = float(w[ok].sum())
        ev = float(w[ok] @ rep.ev[ok] / tot) if tot > 0 else float("nan")
        eq = float(w[ok] @ rep.equity[ok] / tot) if tot > 0 else float("nan")
        rows.append(CardRow(c, float(w.sum()), rep.frequencies, ev, eq))
    return first, rows


# -- the two ranges at a node (to start the next street's spot) -------------------------------------
def node_ranges(reader, text: str) -> tuple[np.ndarray, np.ndarray]:
    """(OOP's, IP's) range at the node ``text`` names, float64[1326] each: the spot's range
    weight times the player's own actions on the path (each decision's report, so any reader
    serves), zero for the combos holding a card dealt on the path."""
    sol = reader.sol
    tree = sol.tree
    target = parse_path(sol, text)
    out = {"oop": np.array(sol.spot.ranges[0], dtype=np.float64),
           "ip": np.array(sol.spot.ranges[1], dtype=np.float64)}
    for c in target.cards:
        held = (COMBOS == c).any(axis=1)
        for w in out.values():
            w[held] = 0.0
    toks = str(text).replace(",", " ").split()
    for i, tok in enumerate(toks):
        try:
            ref = parse_path(sol, " ".join(toks[:i]))
        except CfrlabError:
            continue  # a chance node: this token is a card
        child = _match(tree, ref.node, tok.lower())
        rep = reader.node(ref)
        cols = [int(a) for a in np.flatnonzero(tree.legal[tree.decision[ref.node]])]
        mine = np.zeros(len(COMBOS))
        mine[rep.combos] = rep.strategy[:, cols.index(int(tree.action[child]))]
        out[rep.player] *= mine
    return out["oop"], out["ip"]
