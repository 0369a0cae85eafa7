"""The board engine's walk: CFR, a best response or an expected value over every board of the
streets below a public board (``cfrlab.engine.board.BoardGame``), with O(n) terminals and suit
isomorphism (what the fast postflop solvers do).

**Storage** per decision node and board: regrets and the cumulative strategy (the current
strategy is regret matching of the regrets, recomputed), float32 (``"float32"``), float64 for
oracles (``"float64"``) or 16 bits with a scale per board (``"int16"``: half the memory).
Predictive rules (``pcfr+``) keep a third table, the last instantaneous regrets, added to the
regrets when the strategy is matched (float32 or float64 only).

**Threads.** The parts of ``BoardGame.split`` are each walked in a thread of its own with its
own work arrays; the kernels release the GIL, so any number of threads gives the same tables
bit for bit. Work arrays are shared by the two players' walks (one flat array per node depth
and role), and the float64 walks of ``exact_values`` run in smaller parts so that their
arrays stay below the iterations' float32 ones.

**Updates** alternate: player 0's pass updates its regrets and player 1's average strategy
(weighted by player 1's reach), then player 1's pass the other way round. The discounts are
the CFR family's one table (``cfrlab.engine.rules``): before iteration t adds its regrets,
positive ones are multiplied by (t-1)^alpha / ((t-1)^alpha + 1), negative ones by the same in
beta, and the average strategy's sums by ((t-1) / t)^gamma; CFR+ floors the regrets at 0.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from cfrlab.cards.ranges import COMBOS
from cfrlab.engine import _board_kernels as K
from cfrlab.engine.board import STORAGES, BoardGame, View, default_threads
from cfrlab.engine.rules import RULES, discounts
from cfrlab.errors import CfrlabError
from cfrlab.tree.betting_tree import CHANCE, DECISION, FOLD, SHOWDOWN

EXACT_PARTS = 4  # parts per thread of the float64 walks of exact_values (their work arrays)
FAST_ALGORITHMS = ("dcfr", "dcfr+", "cfr+", "lcfr", "pcfr+")  # the rules of ``engine.rules.RULES`` the walk runs


class BoardSolver:
    """Alternating-update CFR over a ``BoardGame`` (module docstring). ``threads`` (default:
    every core) walk the boards below the first chance node in parts (``BoardGame.split``),
    kernels without the GIL; the tables are the same bit for bit for any number of threads."""

    def __init__(self, game: BoardGame, algorithm: str = "dcfr", storage: str = "float32",
                 threads: int | None = None) -> None:
        if algorithm not in FAST_ALGORITHMS:
            raise CfrlabError(f"the board walk runs {', '.join(FAST_ALGORITHMS)}, not {algorithm!r}")
        if storage not in STORAGES:
            raise CfrlabError(f"storage is one of {', '.join(STORAGES)}, not {storage!r}")
        self.game, self.algorithm, self.storage = game, algorithm, storage
        self.params = RULES[algorithm]
        self.floor = self.params.regret_floor
        rdt, cdt, _ = STORAGES[storage]
        self.comp = storage == "int16"
        self.dtype = np.float64 if storage == "float64" else np.float32
        if self.params.predictive and self.comp:
            raise CfrlabError(f"{algorithm} keeps its last regrets beside the accumulated ones: it runs in "
                              "float32 or float64 storage, not int16")
        tree = game.tree
        self.reg, self.cum, self.rscale, self.cscale = {}, {}, {}, {}
        self.pred: dict = {}  # predictive rules: the last instantaneous regrets, as the regrets
        self._nopred = np.zeros((0, 0, 0), dtype=rdt)
        for n in tree.decision_node:
            n = int(n)
            B = game.levels[int(tree.round[n]) - game.street].B
            H = len(game.hands[int(tree.player[n])])
            A = int(tree.num_children[n])
            self.reg[n] = np.zeros((B, A, H), dtype=rdt)
            self.cum[n] = np.zeros((B, A, H), dtype=cdt)
            if self.params.predictive:
                self.pred[n] = np.zeros((B, A, H), dtype=rdt)
            self.rscale[n] = np.ones(B, dtype=np.float32)
            self.cscale[n] = np.ones(B, dtype=np.float32)
        self.iterations = 0
        self._buffers: dict = {}
        self.threads = default_threads() if threads is None else int(threads)
        if self.threads < 1:
            raise CfrlabError(f"threads must be at least 1, got {threads}")
        self._whole = game.split(1)[0]
        self._parts = game.split(self.threads)
        self._pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None
        self.locked: dict = {}  # node -> (bool[B, H] locked hands, float64[A, B, H] their strategy)
        self._record: dict | None = None  # node -> [B, H] values kept by node_values' walks
        self.held_values: dict = {}  # node -> [B, H] values read from a file (from_tables)

    @classmethod
    def from_tables(cls, game: BoardGame, algorithm: str, storage: str, cum: dict, cscale: dict,
                    iterations: int, values: dict | None = None) -> BoardSolver:
        """A solver holding only saved average-strategy tables (``cum``, ``cscale`` per
        decision node): it reads and evaluates the strategy ("ev" and "br" walks), no regrets.
        A file may keep some nodes only, with their ``values`` (``node_values``): the nodes
        whose values are held need no table below them."""
        self = cls.__new__(cls)
        self.game, self.algorithm, self.storage = game, algorithm, storage
        self.params = RULES[algorithm]
        self.floor = self.params.regret_floor
        self.comp = storage == "int16"
        self.dtype = np.float64 if storage == "float64" else np.float32
        self.reg, self.rscale, self.cum, self.cscale = {}, {}, cum, cscale
        self.pred, self._nopred = {}, np.zeros((0, 0, 0), dtype=np.float32)
        self.iterations = int(iterations)
        self._buffers, self.threads = {}, 1
        self._whole = game.split(1)[0]
        self._parts = [self._whole]
        self._pool = None
        self.locked = {}
        self._record = None
        self.held_values = dict(values or {})
        return self

    def state_dict(self) -> dict:
        """The tables and the iteration count (``cfrlab.solvers.driver`` checkpoints): regrets
        ``reg.N``, cumulative strategy ``cum.N`` and, in 16 bits, their scales per board, for
        every decision node N; enough to resume bit for bit (the locks are the caller's)."""
        out = {"algorithm": self.algorithm, "storage": self.storage, "iterations": int(self.iterations)}
        for n in self.reg:
            out[f"reg.{n}"], out[f"cum.{n}"] = self.reg[n].copy(), self.cum[n].copy()
            if n in self.pred:
                out[f"pred.{n}"] = self.pred[n].copy()
            if self.comp:
                out[f"rscale.{n}"], out[f"cscale.{n}"] = self.rscale[n].copy(), self.cscale[n].copy()
        return out

    def load_state_dict(self, d: dict) -> None:
        """Restore ``state_dict``'s tables; refused in one line (nothing changed) unless every
        table is there with this game's shape and type, finite, and the cumulative strategy and
        the scales are not negative (CFR+ regrets neither)."""
        if d.get("algorithm") != self.algorithm or d.get("storage") != self.storage:
            raise CfrlabError(f"the checkpoint is of {d.get('algorithm')!r} in {d.get('storage')!r} storage, "
                              f"this solve runs {self.algorithm!r} in {self.storage!r}")
        it = d.get("iterations")
        if isinstance(it, bool) or not isinstance(it, (int, np.integer)) or it < 0:
            raise CfrlabError(f"the checkpoint's iteration count is {it!r}")
        names = [("reg", self.reg), ("cum", self.cum), ("pred", self.pred)]
        if self.comp:
            names += [("rscale", self.rscale), ("cscale", self.cscale)]
        new = {}
        for key, mine in names:
            for n, arr in mine.items():
                x = d.get(f"{key}.{n}")
                if not isinstance(x, np.ndarray) or x.shape != arr.shape or x.dtype != arr.dtype:
                    what = "missing" if x is None else f"{getattr(x, 'dtype', type(x).__name__)}{getattr(x, 'shape', '')}"
                    raise CfrlabError(f"its table {key}.{n} is {what}, this spot needs {arr.dtype}{arr.shape}")
                if x.dtype.kind == "f" and not np.isfinite(x).all():
                    raise CfrlabError(f"its table {key}.{n} holds NaN or infinite values")
                if key not in ("reg", "pred") and (x < 0).any():
                    raise CfrlabError(f"its table {key}.{n} holds negative values")
                if key == "reg" and self.floor and (x < 0).any():
                    raise CfrlabError(f"its table {key}.{n} holds negative regrets, which {self.algorithm} never keeps")
                new[(key, n)] = x
        for (key, n), x in new.items():
            {"reg": self.reg, "cum": self.cum, "pred": self.pred, "rscale": self.rscale,
             "cscale": self.cscale}[key][n][...] = x
        self.iterations = int(it)

    def lock(self, node: int, hands: np.ndarray, strategy: np.ndarray, board: int = 0) -> None:
        """Fix decision ``node``'s strategy on one board of its street (``board``: its index
        among the street's canonical boards; the first street has one) for the acting player's
        ``hands`` (bool[H]) to ``strategy`` (float64[A, H], columns summing to 1): the walk
        plays it, the regret update leaves it and the average strategy is it. A board stands
        for every board its suit class holds: lock one that is its class alone (``preimages``)
        or walk without isomorphism."""
        g, t = self.game, self.game.tree
        if self.comp:
            raise CfrlabError("a locked walk runs with float32 or float64 storage, not int16")
        L = int(t.round[node]) - g.street
        B, H, A = g.levels[L].B, len(g.hands[int(t.player[node])]), int(t.num_children[node])
        if not 0 <= board < B:
            raise CfrlabError(f"node {node} is on {B} board(s), not on board {board}")
        hands = np.asarray(hands, dtype=bool)
        strategy = np.asarray(strategy, dtype=np.float64)
        mask, strat = self.locked.get(int(node), (np.zeros((B, H), dtype=bool), np.zeros((A, B, H))))
        mask[board] = hands
        strat[:, board] = strategy
        self.locked[int(node)] = (mask, strat)
        self.cum[node][board][:, hands] = strategy[:, hands].astype(self.cum[node].dtype)

    def _locked_values(self, n: int, cfv: np.ndarray, out: np.ndarray, lo: int, hi: int) -> None:
        """The locked hands' values at n under their fixed strategy (after the free ones'), on
        the boards lo:hi of n's street."""
        mask, strat = self.locked[n]
        m = mask[lo:hi]
        if m.any():
            out[m] = np.einsum("abh,abh->bh", cfv, strat[:, lo:hi])[m].astype(out.dtype)

    def _locked_reach(self, n: int, reach: np.ndarray, child_reach: np.ndarray, lo: int, hi: int) -> None:
        """The locked hands' reach under their fixed strategy; their cumulative sums kept at it."""
        mask, strat = self.locked[n]
        bs, hs = np.nonzero(mask[lo:hi])
        if len(bs):
            s = strat[:, lo:hi][:, bs, hs]  # [A, k]
            child_reach[:, bs, hs] = (s * reach[bs, hs][None]).astype(child_reach.dtype)
            self.cum[n][lo + bs, :, hs] = s.T.astype(self.cum[n].dtype)

    # -- the walk ---------------------------------------------------------------------------------
    def _children(self, n: int) -> list[int]:
        t = self.game.tree
        f = int(t.first_child[n])
        return [int(c) for c in t.child[f:f + int(t.num_children[n])]]

    def _buffer(self, key: tuple, shape: tuple) -> np.ndarray:
        """A reused work array of the given shape: the front of one flat array per key (the
        role and depth of the node, the thread's part), kept at the largest size asked for
        (fresh large arrays cost a page fault per page, every node). Both players' walks share
        it: they never run at once, and a node's buffer is free once its value is returned."""
        size = int(np.prod(shape))
        buf = self._buffers.get(key)
        if buf is None or buf.size < size:
            buf = self._buffers[key] = np.empty(size, dtype=self.dtype)
        return buf[:size].reshape(shape)

    def _walk(self, n: int, p: int, reach: np.ndarray, mode: str, coef, out: np.ndarray,
              v: View | None = None, part: int = 0) -> None:
        """Player p's counterfactual values [B, H_p] at node n into ``out``, given the
        opponent's reach [B, H_o], over view v's boards (the whole game by default); mode
        "train" (update), "br" (p best responds) or "ev" (both play their average)."""
        g, t = self.game, self.game.tree
        v = self._whole if v is None else v
        o = 1 - p
        L = int(t.round[n]) - g.street
        kind = int(t.kind[n])
        depth = int(t.depth[n])
        if kind == FOLD:
            K.fold_values(reach, g.cards8[o], g.cards8[p], g.same_at[p], g.same_ok[p], v.validf[L][p],
                          g.fold_pay(n, p), out)
            return
        if kind == SHOWDOWN:
            sdvalid, sdidx = v.river[p][:2]
            stake, share = g.showdown_pay(n, p)
            K.showdown_values(reach, g.cards8[p], sdvalid, sdidx, *v.river[o][2:], stake, out)
            if share:  # the rake's part: -share x the opponent's whole reach (the fold kernel)
                raked = self._buffer(("rake", depth, part), out.shape)
                K.fold_values(reach, g.cards8[o], g.cards8[p], g.same_at[p], g.same_ok[p], v.validf[L][p],
                              -share, raked)
                out += raked
            return
        if kind == CHANCE:
            self._chance(n, p, reach, mode, coef, out, v, part)
            return
        kids = self._children(n)
        A = len(kids)
        lo, hi = v.lo[L], v.hi[L]
        cfv = self._buffer(("cfv", depth, part), (A, v.B[L], out.shape[1]))
        if int(t.player[n]) == p:
            for a, c in enumerate(kids):
                self._walk(c, p, reach, mode, coef, cfv[a], v, part)
            if mode == "train":
                K.player_node(self.reg[n][lo:hi], self.rscale[n][lo:hi], self.comp, cfv, coef[0], coef[1],
                              self.floor, self.pred[n][lo:hi] if n in self.pred else self._nopred, out)
            elif mode == "ev":
                K.combine_average(self.cum[n][lo:hi], cfv, out)
            else:
                K.combine(np.empty((0, 0, 0), dtype=self.dtype), cfv, out)
            if n in self.locked and mode != "ev":  # the locked hands play their lock
                self._locked_values(n, cfv, out, lo, hi)
            if self._record is not None and n in self._record:
                self._record[n][lo:hi] = out
            return
        child_reach = self._buffer(("reach", depth, part), (A,) + reach.shape)
        if mode == "train":
            K.opponent_node(self.reg[n][lo:hi], self.cum[n][lo:hi], self.cscale[n][lo:hi], self.comp, reach,
                            coef[2], True, self.pred[n][lo:hi] if n in self.pred else self._nopred, child_reach)
        else:  # the average strategy, then times the reach in place
            K.average_strategy(self.cum[n][lo:hi], child_reach)
            K.scale_reach(child_reach, reach, child_reach)
        if n in self.locked and mode == "train":
            self._locked_reach(n, reach, child_reach, lo, hi)
        for a, c in enumerate(kids):
            self._walk(c, p, child_reach[a], mode, coef, cfv[a], v, part)
        K.sum_actions(cfv, out)

    def _chance(self, n: int, p: int, reach: np.ndarray, mode: str, coef, out: np.ndarray,
                v: View, part: int) -> None:
        """A chance node: the reach dealt down to the next street's boards, the subtree walked,
        the values summed back up. At the first street with several parts, each part's boards
        are walked in a thread of its own (the kernels release the GIL)."""
        g, t = self.game, self.game.tree
        o = 1 - p
        L = int(t.round[n]) - g.street
        depth = int(t.depth[n])
        child = self._children(n)[0]
        down = self._buffer(("down", depth, part), (v.B[L + 1], reach.shape[1]))
        K.deal_down(reach, *v.down[L + 1], self.game.cards[o], down)
        below = self._buffer(("below", depth, part), (v.B[L + 1], out.shape[1]))
        if L == 0 and len(self._parts) > 1 and v is self._whole:
            # thread i walks parts i, i + threads, ... one after the other with its own buffers
            def work(i: int) -> None:
                for w in self._parts[i::self.threads]:
                    self._walk(child, p, down[w.lo[1]:w.hi[1]], mode, coef, below[w.lo[1]:w.hi[1]], w, i + 1)

            jobs = [self._pool.submit(work, i) for i in range(1, min(self.threads, len(self._parts)))]
            work(0)
            for job in jobs:
                job.result()
        else:
            self._walk(child, p, down, mode, coef, below, v, part)
        K.deal_up(below, *v.up[L + 1], g.hmap[p], g.inv_left[L], out)

    def _root_reach(self, o: int) -> np.ndarray:
        return (self.game.w[o] * self.game.levels[0].valid[o][0]).astype(self.dtype)[None]

    def values_at(self, node: int, p: int, reach: np.ndarray, view: View, mode: str = "ev") -> np.ndarray:
        """float64[boards, H_p]: p's counterfactual values at ``node`` over ``view``'s boards of
        the node's street, given the opponent's reach there (``mode`` "ev" or "br"), walked in
        float64 with buffers of its own (the tables as stored)."""
        L = int(self.game.tree.round[node]) - self.game.street
        keep, keep_buf = self.dtype, self._buffers
        self.dtype, self._buffers = np.float64, {}
        try:
            out = np.empty((view.B[L], len(self.game.hands[p])))
            self._walk(int(node), p, reach, mode, None, out, view)
        finally:
            self.dtype, self._buffers = keep, keep_buf
        return out

    def root_values(self, p: int, mode: str) -> np.ndarray:
        """float64[H_p]: p's counterfactual values at the root ("br" or "ev")."""
        out = np.empty((1, len(self.game.hands[p])), dtype=self.dtype)
        self._walk(0, p, self._root_reach(1 - p), mode, None, out)
        return out[0].astype(np.float64)

    def value(self, p: int, mode: str) -> float:
        """p's expected winnings (chips) best responding ("br") or playing its average ("ev")."""
        return float(self.game.w[p] @ self.root_values(p, mode)) / self.game.mass

    def iterate(self, n: int = 1) -> None:
        for _ in range(int(n)):
            self.iterations += 1
            pos, neg, decay = discounts(self.params, self.iterations)
            for p in (0, 1):
                out = np.empty((1, len(self.game.hands[p])), dtype=self.dtype)
                self._walk(0, p, self._root_reach(1 - p), "train", (pos, neg, decay), out)

    @contextmanager
    def _exact(self):
        """The walk in float64 (the tables stay as stored), in more, smaller parts so that its
        work arrays stay below the iterations' float32 ones; restored after."""
        keep, parts = self.dtype, self._parts
        self.dtype, self._buffers = np.float64, {}
        self._parts = self.game.split(EXACT_PARTS * self.threads)
        try:
            yield
        finally:
            self.dtype, self._buffers, self._parts = keep, {}, parts

    def exact_values(self, ev: bool = True) -> tuple[float, ...]:
        """(BR0, BR1[, EV0, EV1]) of the average strategy with the walk in float64 (the tables
        stay as stored): the figures a solve reports. EV1 is -EV0 unless the game is raked
        (then it is walked too)."""
        with self._exact():
            out = (self.value(0, "br"), self.value(1, "br"))
            if not ev:
                return out
            v0 = self.value(0, "ev")
            return out + (v0, -v0 if self.game.zero_sum else self.value(1, "ev"))

    def exact_exploitability(self) -> float:
        """``exploitability`` with the float64 walk of ``exact_values``."""
        if self.game.zero_sum:
            return 0.5 * sum(self.exact_values(ev=False))
        b0, b1, v0, v1 = self.exact_values()
        return 0.5 * (b0 - v0 + b1 - v1)

    def node_values(self, nodes) -> dict:
        """float64[B, H] per decision node of ``nodes``: the acting player's counterfactual
        values there on every board of the node's street (``values_at`` on each board, the
        opponent's reach its range times its own actions), both playing the average strategy;
        recorded by one float64 "ev" walk per player. A file that keeps the strategy above a
        street keeps these so that its nodes' EVs need no table below them."""
        g, t = self.game, self.game.tree
        rec = {int(n): np.full((g.levels[int(t.round[n]) - g.street].B, len(g.hands[int(t.player[n])])), np.nan)
               for n in nodes}
        self._record = rec
        try:
            with self._exact():
                for p in (0, 1):
                    if any(int(t.player[n]) == p for n in rec):
                        self.root_values(p, "ev")
        finally:
            self._record = None
        return rec

    def best_responses(self) -> tuple[float, float]:
        return self.value(0, "br"), self.value(1, "br")

    def exploitability(self) -> float:
        """(BR0 - EV0 + BR1 - EV1) / 2: what the two best responses gain over the average
        strategy, averaged; (BR0 + BR1) / 2 in a zero-sum game (no rake), where EV0 = -EV1."""
        b0, b1 = self.best_responses()
        if self.game.zero_sum:
            return 0.5 * (b0 + b1)
        return 0.5 * (b0 - self.value(0, "ev") + b1 - self.value(1, "ev"))

    # -- reading the average strategy -----------------------------------------------------------
    def strategy(self, node: int, extras: tuple[int, ...] = ()) -> np.ndarray:
        """float64[1326, A]: the average strategy at decision ``node`` on the board with the
        given turn / river cards, per combo (``cfrlab.cards.ranges`` order; rows of combos the
        acting player cannot hold there are uniform)."""
        g, t = self.game, self.game.tree
        if t.kind[node] != DECISION:
            raise CfrlabError(f"node {node} is not a decision")
        L = int(t.round[node]) - g.street
        if len(extras) != L:
            raise CfrlabError(f"node {node} needs {L} card(s) after the walk's board, got {len(extras)}")
        b, tau = g.canonical(tuple(extras))
        p = int(t.player[node])
        A = int(t.num_children[node])
        avg = np.empty((A, 1, len(g.hands[p])), dtype=np.float64)
        K.average_strategy(self.cum[node][b:b + 1].astype(np.float64), avg)
        out = np.full((len(COMBOS), A), 1.0 / A)
        m = g.hand_map(p, tau)
        ok = (m >= 0) & g.levels[L].valid[p][b][np.maximum(m, 0)]
        out[g.hands[p][ok]] = avg[:, 0, m[ok]].T
        return out
