"""The bucketed abstraction as a ChanceModel (docs/ENGINE.md): bucket-sequence states per
round, parent maps, the joint tables P_r and the showdown table W, exact over all deals.

Joint tables. For round r, every canonical ordered board (suit isomorphism, weighted by how
many boards it stands for) contributes, for every unordered pair of disjoint hole pairs on
it, its weight to the pair's two states (``_joint_kernels``); on the last round the pair is
also split by who wins. The sums are exact integers; dividing by the number of deals gives
P_r (symmetric, sums to 1, marginals = state masses) and W (antisymmetric). Cost on the full
deck is one pass over the 2,554,656 canonical river boards, about 584,000 hole pairs each.

Real cards -> state (``state_of``, ``deal_states``, ``deal_states_batch``): rounds before
the last are one table lookup through the ordered canonical index (hole | flop | turn ...);
the last round looks up the state on the round before, the river hand strength (from the
metric table, hole | board as a set) and the last-round bucket table.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from functools import cached_property
from math import comb
from pathlib import Path

import numba
import numpy as np

from cfrlab.abstraction import _bucket_kernels as BK
from cfrlab.abstraction import _joint_kernels as JK
from cfrlab.abstraction import cache
from cfrlab.abstraction._bucket_kernels import hole_states_on_boards
from cfrlab.abstraction._metrics_kernels import Indexer
from cfrlab.abstraction.buckets import (
    BucketMaps,
    BucketSpec,
    build_buckets,
    canonical_boards,
    final_boards,
    final_kernel_args,
    seq_indexers,
)
from cfrlab.abstraction.kmeans import build_kmeans_buckets
from cfrlab.abstraction.metrics import (
    board_totals,
    check_holdem_style,
    last_round_table,
    metric_indexers,
    metric_tables,
)
from cfrlab.abstraction.model import BUCKETED, keep_engine_views, say_old_hash
from cfrlab.cards.isomorphism import DeckMap
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import NpzReader, one_line, save_npz
from cfrlab.games.gamedef import GameDef, game_of_header

Progress = Callable[[str], None]
FORMAT_VERSION = 1
# What a file's "hash" covers ("hash_kind" in its header): "full" = ``BucketedModel.hash``, every
# table a solve reads. Files written before it have no "hash_kind": their hash is of the old
# kind, ``maps_hash`` (the bucket maps alone); they load, with one line saying so.
HASH_KIND = "full"
TILE = 100  # states per tile side: a task's accumulator is TILE^2 * 3 * 8 bytes = 240 kB
SMALL_STATES = 160  # below this, one S x S accumulator per thread instead of tiles
GEMM_MAX = 4096  # rounds before the last: inclusion-exclusion + GEMM up to this many states
# Last round: rank sweep with dense count vectors up to this many states (its cost grows
# with S; the by-turn path's with hole pairs x B^2). 6 buckets (1,296 states) sweep.
SWEEP_MAX = 1400
BATCH_BYTES = 64 << 20
CHECKPOINT_SECONDS = 180.0
SWEEP_STEP = 20_000  # final boards per sweep call (progress, checkpoints)
TURN_PATH = True  # many states, last round adds one card: pairs with all their rivers at once
TURN_TILE_STATES = 150  # states per tile side in accumulate_turn_tiles (540 kB accumulator)
TURN_BATCH_BYTES = 320 << 20  # river buckets and ranks of one batch of boards


def _num_threads() -> int:
    return numba.get_num_threads()


def _table_digest(a) -> str:
    """SHA-256 of a table's shape and values as float64 (-0.0 taken as 0.0, so that the
    engine's shared view of -W hashes as W does), read in blocks of rows of about 64 MB."""
    a = np.asarray(a)
    h = hashlib.sha256(f"<f8{a.shape}".encode())
    rows = a.reshape(len(a), -1) if a.ndim else a.reshape(1, 1)
    step = max(1, (64 << 20) // (8 * max(1, rows.shape[1])))
    for i in range(0, len(rows), step):
        h.update(np.ascontiguousarray(rows[i:i + step], dtype=np.float64) + 0.0)
    return h.hexdigest()


def joint_counts(game, maps: BucketMaps, r: int, progress: Progress | None = None,
                 checkpoint: Checkpoint | None = None
                 ) -> tuple[np.ndarray, np.ndarray | None, int]:
    """(P counts, W counts or None, number of deals) of round r, exact int64 (W on the last
    round only): P[s0, s1] = weighted number of ordered deals with the players in s0 and s1,
    W[s0, s1] = the same counted +1 when player 0 wins and -1 when player 1 wins."""
    spec = maps.spec
    S = spec.num_states[r]
    say = progress or (lambda s: None)
    if r < game.num_rounds - 1 and S <= GEMM_MAX:
        return _round_counts_gemm(game, maps, r)
    sweep = r == game.num_rounds - 1 and S <= SWEEP_MAX
    by_turn = (not sweep and TURN_PATH and r == game.num_rounds - 1 and r > 0
               and spec.recall == "perfect" and game.num_board_cards[r] == 1
               and game.deck_size - board_totals(game)[r - 1] < 64)
    if checkpoint is not None:  # a partial sum only resumes the path that wrote it
        checkpoint.params = {**checkpoint.params, "path": ("sweep-by-set" if sweep else
                                                           "by-turn" if by_turn else "tiles")}
    if sweep:
        win, tie, total = _last_counts_sweep(game, maps, say, checkpoint)
    elif by_turn:
        win, tie, total = _last_counts_by_turn(game, maps, say, checkpoint)
    else:
        win, tie, total = _counts_tiles(game, maps, r, say, checkpoint)
    P = win + win.T
    P += tie
    del tie
    if r < game.num_rounds - 1:
        return P, None, total
    W = win - win.T
    return P, W, total


def _round_counts_gemm(game, maps: BucketMaps, r: int) -> tuple[np.ndarray, None, int]:
    """Rounds before the last: n n^T over boards as one float64 GEMM (exact: integers below
    2**53), minus the shared-card correction from ``round_counts``."""
    S = maps.spec.num_states[r]
    D = game.deck_size
    boards, weight = canonical_boards(game, r)
    nb = boards.shape[1]
    m = D - nb
    ix = Indexer(*seq_indexers(game)[r].index_args)
    barg = boards if nb else np.zeros((len(boards), 1), dtype=np.int64)
    T = _num_threads()
    corr = np.zeros((T, S, S), dtype=np.int64)
    nn = np.zeros((S, S))
    diag = np.zeros(S)
    step = max(1, (256 << 20) // (8 * S))
    table = maps.state[r].astype(np.int32)
    for b0 in range(0, len(boards), step):
        b1 = min(b0 + step, len(boards))
        N = np.zeros((b1 - b0, S))
        w = weight[b0:b1].astype(np.int64)
        JK.round_counts(barg[b0:b1], w, nb, D, ix, table, min(T, b1 - b0), N, corr)
        wf = w.astype(np.float64)
        nn += (N * wf[:, None]).T @ N
        diag += wf @ N
    P = np.rint(nn).astype(np.int64) - corr.sum(axis=0)
    P[np.diag_indices(S)] += np.rint(diag).astype(np.int64)
    total = int(weight.sum()) * comb(m, 2) * comb(m - 2, 2)
    return P, None, total


def _final_setup(game, maps: BucketMaps):
    """(final_boards dict, FinalBoards, FinalDeal, prev, weight of each final board, number
    of deals); prev int32[parents, pairs] = each hole's state on the round before."""
    fb = final_boards(game)
    boards, fd = final_kernel_args(game, fb)
    R, D = game.num_rounds, game.deck_size
    nb = fb["nb"]
    mB = D - nb
    prev = np.zeros((len(fb["parents"]), mB * (mB - 1) // 2), dtype=np.int32)
    if R > 1:
        ix = Indexer(*seq_indexers(game)[R - 2].index_args)
        hole_states_on_boards(boards.parents, nb, D, ix, maps.state[R - 2].astype(np.int32),
                              prev)
    weight = fb["pweight"][fb["child_parent"]] * fb["orbit"]
    mf = mB - fb["k"]
    total = int(weight.sum()) * comb(mf, 2) * comb(mf - 2, 2)
    return fb, boards, fd, prev, weight.astype(np.int64), total


def _last_buckets(maps: BucketMaps, prev: np.ndarray, last: np.ndarray) -> JK.LastBuckets:
    spec = maps.spec
    return JK.LastBuckets(prev, last, spec.counts[-1], spec.history, spec.recall == "perfect")


class _Progress:
    """Progress lines at most every 10 s and checkpoints of a last-round pass."""

    def __init__(self, say: Progress, start: int, total: int, checkpoint, what: str = "boards"):
        self.say, self.start, self.total, self.what = say, start, total, what
        self.checkpoint = checkpoint
        self.t0 = self.last_say = time.perf_counter()

    def step(self, done: int, arrays: Callable) -> None:
        """Boards up to `done` are summed; arrays() gives (win, tie) for a checkpoint."""
        now = time.perf_counter()
        if now - self.last_say > 10 or done == self.total:
            _report(self.say, done - self.start, self.total - self.start, now - self.t0,
                    self.what)
            self.last_say = now
        if self.checkpoint is not None and done < self.total:
            self.checkpoint.maybe_save(done, arrays)


def _last_counts_sweep(game, maps: BucketMaps, say: Progress, checkpoint=None):
    spec = maps.spec
    S = spec.num_states[-1]
    _, boards, fd, prev, weight, total = _final_setup(game, maps)
    lb = _last_buckets(maps, prev, maps.last)
    so = _sweep_order(game, boards, fd)
    T = _num_threads()
    win = np.zeros((T, S, S), dtype=np.int64)
    tie = np.zeros((T, S, S), dtype=np.int64)
    start = 0
    if checkpoint is not None and (got := checkpoint.resume()) is not None:
        start, win[0], tie[0] = got
        say(f"  resuming the last round at board {start:,}")
    Q = len(weight)
    step = SWEEP_STEP
    progress = _Progress(say, start, Q, checkpoint)
    for t0 in range(start, Q, step):
        t1 = min(t0 + step, Q)
        JK.last_round_sweep(t0, t1, boards, weight, fd, lb, so, S, T, win, tie)
        progress.step(t1, lambda: (win.sum(axis=0), tie.sum(axis=0)))
    inv = np.argsort(JK.internal_order(S, spec.counts[-1], spec.recall == "perfect"))
    win_s, tie_s = win.sum(axis=0), tie.sum(axis=0)
    return win_s[np.ix_(inv, inv)], tie_s[np.ix_(inv, inv)], total


def _sweep_order(game, boards, fd) -> JK.SweepOrder:
    """The order the rank sweep takes the final boards in: grouped by their set of cards up
    to suits (``JK.final_board_sets``), so that one ranking of a set's holes serves each of
    its boards (on the full deck 2,554,656 boards, 134,459 sets). Places count boards of this
    order (progress, checkpoints)."""
    R, S = game.num_ranks, game.num_suits
    Q = len(boards.children)
    key = np.empty(Q, dtype=np.int64)
    suit_map = np.empty((Q, S), dtype=np.int8)
    JK.final_board_sets(boards, fd.nb, fd.k, R, S, key, suit_map)
    keys, set_id = np.unique(key, return_inverse=True)
    board = np.argsort(set_id, kind="stable")
    # a key holds suit i's ranks (as a bit mask) at bits (S - 1 - i) * R of it
    masks = (keys[:, None] >> (R * np.arange(S - 1, -1, -1))[None, :]) & ((1 << R) - 1)
    _, suit, rank = np.nonzero((masks[:, :, None] >> np.arange(R)) & 1)  # set by set
    sets = (rank * S + suit).reshape(len(keys), fd.nb + fd.k)
    return JK.SweepOrder(board, set_id[board].astype(np.int64), suit_map[board], sets)


def _last_counts_by_turn(game, maps: BucketMaps, say: Progress, checkpoint=None):
    """Perfect recall, many states, one card on the last round: per canonical board of the
    round before, every pair of holes with all its river cards at once, as bit masks over
    the rivers (``_joint_kernels.accumulate_turn_tiles``); tiles of parent states keep each
    task's accumulator in cache. Needs at most 63 river cards."""
    spec = maps.spec
    S = spec.num_states[-1]
    B = spec.counts[-1]
    NP = S // B
    fb, boards, fd, prev, _, total = _final_setup(game, maps)
    lb = _last_buckets(maps, prev, maps.last.astype(np.int16))
    pweight = fb["pweight"].astype(np.int64)
    nb, k, D = fb["nb"], fb["k"], game.deck_size
    mB = D - nb
    HB = mB * (mB - 1) // 2
    tpt = max(1, TURN_TILE_STATES // B)
    NPT = -(-NP // tpt)
    tq0, tq1 = np.triu_indices(NPT)
    tq0, tq1 = tq0.astype(np.int64), tq1.astype(np.int64)
    win = np.zeros((S, S), dtype=np.int64)
    tie = np.zeros((S, S), dtype=np.int64)
    Pn = len(boards.parents)
    start = 0
    if checkpoint is not None and (got := checkpoint.resume()) is not None:
        start, win[:], tie[:] = got
        say(f"  resuming the last round at board {start:,} of the round before")
    mf = mB - k
    nbits = max(1, (mf * (mf - 1) // 2).bit_length())  # dense ranks on a river fit these bits
    step = max(1, TURN_BATCH_BYTES // (HB * (mB * 2 + nbits * 8 + B * 16)))
    progress = _Progress(say, start, Pn, checkpoint, "boards of the round before")
    for p0 in range(start, Pn, step):
        p1 = min(p0 + step, Pn)
        n = p1 - p0
        tb = JK.TurnBatch(np.empty((n, HB), dtype=np.int64), np.empty((n, HB), dtype=np.int64),
                          np.zeros((n, HB, nbits), dtype=np.int64),
                          np.empty((n, NPT + 1), dtype=np.int64))
        X = np.zeros((n, HB, mB), dtype=np.int16)
        JK.prepare_turn_boards(p0, p1, boards.parents, fd, lb, tpt, NPT, X, tb)
        rv = JK.RiverBuckets(np.empty((n, HB, B), dtype=np.int64),
                             np.empty((n, HB, B), dtype=np.int64),
                             np.empty((n, HB), dtype=np.int64))
        JK.river_masks(X, n, HB, mB, rv)
        del X
        JK.accumulate_turn_tiles(n, pweight[p0:p1], tb, rv, tpt, B, NP, tq0, tq1, win, tie)
        del tb, rv
        progress.step(p1, lambda: (win, tie))
    return win, tie, total


def _counts_tiles(game, maps: BucketMaps, r: int, say: Progress, checkpoint=None):
    """Any round, any number of states: pairs of holes accumulated tile by tile."""
    spec = maps.spec
    R = game.num_rounds
    S = spec.num_states[r]
    deck = DeckMap(game.num_ranks, game.num_suits)
    D = deck.size
    win = np.zeros((S, S), dtype=np.int64)
    tie = np.zeros((S, S), dtype=np.int64)
    H_est = comb(D - board_totals(game)[r], 2)
    tw = min(max(TILE, -(-4 * S // H_est)), S)  # about 4+ holes per tile per board
    NT = -(-S // tw)
    tp0, tp1 = np.triu_indices(NT)
    tp0, tp1 = tp0.astype(np.int64), tp1.astype(np.int64)
    small = S <= SMALL_STATES
    if r < R - 1:
        boards, weight = canonical_boards(game, r)
        nb = boards.shape[1]
        m = D - nb
        H = m * (m - 1) // 2
        ix = Indexer(*seq_indexers(game)[r].index_args)
        barg = boards if nb else np.zeros((len(boards), 1), dtype=np.int64)
        step = max(1, BATCH_BYTES // (H * 16))
        for b0 in range(0, len(boards), step):
            b1 = min(b0 + step, len(boards))
            n = b1 - b0
            batch = _batch(n, H, NT)
            JK.prepare_round(barg[b0:b1], nb, D, ix, maps.state[r].astype(np.int32), tw, NT,
                             batch)
            _accumulate(batch, weight[b0:b1], n, H, tw, S, tp0, tp1, small, win, tie)
        total = int(weight.sum()) * comb(m, 2) * comb(m - 2, 2)
        return win, tie, total
    _, boards, fd, prev, weight_all, total = _final_setup(game, maps)
    lb = _last_buckets(maps, prev, maps.last)
    H = len(fd.pa)
    Q = len(boards.children)
    step = max(1, BATCH_BYTES // (H * 16))
    start = 0
    if checkpoint is not None and (got := checkpoint.resume()) is not None:
        start, win[:], tie[:] = got
        say(f"  resuming the last round at board {start:,}")
    progress = _Progress(say, start, Q, checkpoint)
    for q0 in range(start, Q, step):
        q1 = min(q0 + step, Q)
        n = q1 - q0
        batch = _batch(n, H, NT)
        JK.prepare_last(q0, q1, boards, fd, lb, tw, NT, batch)
        _accumulate(batch, weight_all[q0:q1], n, H, tw, S, tp0, tp1, small, win, tie)
        progress.step(q1, lambda: (win, tie))
    return win, tie, total


class Checkpoint:
    """Partial sums of a long joint-table pass, saved to the cache every ``every`` seconds
    (``(next board, win, tie)``) so that an interrupted build resumes where it stopped."""

    def __init__(self, name: str, params: dict, every: float | None = None) -> None:
        self.name, self.params = name, params
        self.every = CHECKPOINT_SECONDS if every is None else every
        self.last = time.perf_counter()

    def resume(self):
        got = cache.load(self.name, self.params)
        if got is None:
            return None
        return int(got["next"][0]), got["win"], got["tie"]

    def maybe_save(self, next_board: int, arrays: Callable) -> None:
        if time.perf_counter() - self.last < self.every:
            return
        win, tie = arrays()
        cache.save(self.name, self.params, {"next": np.array([next_board], dtype=np.int64),
                                            "win": win, "tie": tie})
        self.last = time.perf_counter()

    def clear(self) -> None:
        cache.entry_path(self.name).unlink(missing_ok=True)


def _report(say: Progress, done: int, total: int, seconds: float, what: str = "boards"
            ) -> None:
    rate = done / max(seconds, 1e-9)
    say(f"  joint tables, last round: {done:,}/{total:,} {what}, {rate:,.0f}/s, "
        f"about {(total - done) / max(rate, 1e-9):,.0f} s left")


def _build_key(game, spec: BucketSpec) -> str:
    text = json.dumps({"deck": {"ranks": game.num_ranks, "suits": game.num_suits,
                                "boards": list(game.num_board_cards[:game.num_rounds])},
                       "spec": spec.to_dict(), "format": FORMAT_VERSION}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def clear_build_cache(game, spec: BucketSpec) -> None:
    """Forget an abstraction's cached parts (bucket maps, finished rounds, checkpoints)."""
    for path in cache.cache_dir().glob(f"abstraction-{_build_key(game, spec)}-*.npz"):
        path.unlink(missing_ok=True)


def _save_maps(key: str, params: dict, maps: BucketMaps) -> None:
    arrays = {f"state{r}": a for r, a in enumerate(maps.state)}
    arrays.update({f"mass{r}": m for r, m in enumerate(maps.masses)})
    arrays.update({"last": maps.last, "hist": maps.hist})
    cache.save(f"abstraction-{key}-maps", params, arrays)


def _cached_maps(key: str, params: dict, spec: BucketSpec, mt) -> BucketMaps | None:
    got = cache.load(f"abstraction-{key}-maps", params)
    if got is None:
        return None
    R = len(spec.levels)
    return BucketMaps(spec, dict(mt.params), [got[f"state{r}"] for r in range(R - 1)],
                      got["last"], [got[f"mass{r}"] for r in range(R)], got["hist"])


def _batch(n: int, H: int, NT: int) -> JK.Batch:
    return JK.Batch(np.empty((n, H), np.int32), np.empty((n, H), np.int32),
                    np.empty((n, H), np.int64), np.empty((n, NT + 1), np.int32))


def _accumulate(batch: JK.Batch, w, n, H, tw, S, tp0, tp1, small, win, tie) -> None:
    w = np.ascontiguousarray(w, dtype=np.int64)
    if small:
        JK.accumulate_small(batch, w, n, H, S, min(_num_threads(), max(n, 1)), win, tie)
    else:
        JK.accumulate_tiles(batch, w, n, tw, S, tp0, tp1, win, tie)


def _check_abstraction_header(path, header: dict) -> None:
    """Types of every abstraction header field ``load`` reads; one line naming the field."""
    def bad(what: str) -> CfrlabError:
        return CfrlabError(one_line(f"{path}: corrupt abstraction header ({what})"))

    def is_int(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    fmt = header.get("format")
    if not is_int(fmt) or fmt != FORMAT_VERSION:
        raise CfrlabError(f"{path}: abstraction format {one_line(repr(fmt))[:40]} is not supported "
                          f"(expected {FORMAT_VERSION})")
    for key, types, nullable in (("game", str, False), ("game_name", str, True), ("spec", dict, False),
                                 ("params", dict, False), ("num_states", list, False),
                                 ("hash", str, False), ("hs_digest", str, True),
                                 ("hash_kind", str, True)):
        v = header.get(key)
        if not (isinstance(v, types) or (v is None and nullable)):
            raise bad(f"{key!r} is {one_line(repr(v))[:40]}, expected {types.__name__}")
    if header.get("hash_kind") not in (None, HASH_KIND):
        raise bad(f"'hash_kind' is {one_line(repr(header['hash_kind']))[:40]}, expected {HASH_KIND!r}")
    if not all(is_int(x) and x > 0 for x in header["num_states"]):
        raise bad(f"'num_states' is {one_line(header['num_states'])[:40]}")
    spec = header["spec"]
    levels = spec.get("levels")
    if not (isinstance(levels, list) and levels and all(
            isinstance(lv, list) and lv and all(
                isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and is_int(x[1]) and x[1] >= 1
                for x in lv) for lv in levels)):
        raise bad("'spec' levels are not lists of [metric, count >= 1] pairs")
    if not (isinstance(spec.get("method"), str) and isinstance(spec.get("history"), bool)
            and isinstance(spec.get("recall"), str)):
        raise bad("'spec' needs text 'method', boolean 'history' and text 'recall'")


def old_hash_line(path) -> str:
    """The one line said when an abstraction file's hash is of the old kind."""
    return (f"cfrlab: note: {path}: its hash is of the old kind (the bucket maps only, not the "
            f"joint tables a solve reads); it loads as before, and a build with this cfrlab "
            f"(cfrlab abstract build) writes the full hash")


def same_cards(a, b) -> bool:
    """Whether two games deal the same cards (players, deck, hole cards, board per round):
    a card abstraction of one serves the other whatever their betting (a hold'em abstraction
    built for limit serves no-limit)."""
    R = a.num_rounds
    return (a.num_players == b.num_players and R == b.num_rounds and a.num_ranks == b.num_ranks
            and a.num_suits == b.num_suits and a.num_hole_cards == b.num_hole_cards
            and tuple(a.num_board_cards[:R]) == tuple(b.num_board_cards[:R]))


class BucketedModel:
    """ChanceModel over bucket sequences (see the module docstring and docs/ENGINE.md).

    Beyond the contract: ``spec`` (BucketSpec), ``masses`` (per round, each state's
    probability), ``maps`` (the BucketMaps), ``deal_states_batch(deals)``, ``save(path)``
    and ``BucketedModel.load(path)``.
    """

    kind = BUCKETED

    def __init__(self, game: GameDef, maps: BucketMaps, fold: list[np.ndarray],
                 showdown: np.ndarray, hs_table: np.ndarray | None = None) -> None:
        check_holdem_style(game)
        self.game = game
        self.maps = maps
        self.spec = maps.spec
        self.recall = self.spec.recall  # "imperfect": a state is the round's bucket alone
        self.source_file: str | None = None  # the file it was loaded from (strategy headers)
        self.num_states = tuple(int(s) for s in self.spec.num_states)
        self._fold = fold
        self._showdown = showdown
        self._hs_table = hs_table
        self._hs_digest: str | None = None  # of the hand-strength table (_hs_table_digest)
        self.hash_kind = HASH_KIND  # "old" when loaded from a file with the old kind of hash
        self.masses = maps.masses

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def build(cls, game, spec: BucketSpec, progress: Progress | None = None,
              use_cache: bool = True) -> BucketedModel:
        """Metric tables (cached), buckets, then the exact joint tables of every round."""
        check_holdem_style(game)
        say = progress or (lambda s: None)
        if spec.method == "kmeans":  # imperfect recall: no joint tables (see build_kmeans)
            return cls.build_kmeans(game, spec, say, use_cache)
        mt = metric_tables(game, use_cache=use_cache, progress=say)
        key = _build_key(game, spec)
        params = {"key": key, "format": FORMAT_VERSION}
        maps = _cached_maps(key, params, spec, mt) if use_cache else None
        if maps is None:
            maps = build_buckets(game, spec, mt, progress=say)
            if use_cache:
                _save_maps(key, params, maps)
        else:
            say("buckets: loaded from cache")
        fold, showdown = [], None
        for r in range(game.num_rounds):
            t0 = time.perf_counter()
            name = f"abstraction-{key}-joint{r}"
            got = cache.load(name, params) if use_cache else None
            if got is not None:
                P, W, total = got["P"], got.get("W"), int(got["total"][0])
                say(f"joint tables round {r}: loaded from cache")
            else:
                ck = Checkpoint(f"{name}-partial", params) if use_cache else None
                P, W, total = joint_counts(game, maps, r, progress=say, checkpoint=ck)
                if use_cache:
                    arrays = {"P": P, "total": np.array([total], dtype=np.int64)}
                    if W is not None:
                        arrays["W"] = W
                    cache.save(name, params, arrays)
                    ck.clear()
                say(f"joint tables round {r}: {spec.num_states[r]:,} states "
                    f"({time.perf_counter() - t0:.1f} s)")
            fold.append(P / total)
            del P
            if W is not None:
                showdown = W / total
            del W
        if use_cache:  # the abstraction file is the product; keep only the bucket maps
            for r in range(game.num_rounds):
                cache.entry_path(f"abstraction-{key}-joint{r}").unlink(missing_ok=True)
        return cls(game, maps, fold, showdown, mt.s1[-1])

    @classmethod
    def build_kmeans(cls, game, spec: BucketSpec, progress: Progress | None = None,
                     use_cache: bool = True) -> BucketedModel:
        """Distribution-aware buckets (``cfrlab.abstraction.kmeans``). Imperfect recall: the
        model carries no joint tables (the vector walks that read them need perfect recall;
        public chance sampling computes terminals from the real cards)."""
        say = progress or (lambda s: None)
        hs = last_round_table(game, use_cache=use_cache)
        maps = build_kmeans_buckets(game, spec, hs, progress=say)
        return cls(game, maps, [], None, maps.river)

    # -- ChanceModel contract ---------------------------------------------------------------
    @cached_property
    def parent(self) -> list[np.ndarray] | None:
        """Round r's state -> its round r-1 state; None under imperfect recall (a state is
        the round's bucket alone: ``abstraction.perfect_recall(model)`` is False)."""
        if self.spec.recall != "perfect":
            return None
        out = [np.full(self.num_states[0], -1, dtype=np.int32)]
        for r in range(1, len(self.num_states)):
            out.append((np.arange(self.num_states[r]) // self.spec.counts[r]).astype(np.int32))
        return out

    def _require_tables(self) -> None:
        if not self._fold:
            raise CfrlabError("this imperfect-recall abstraction carries no joint tables: it is "
                              "solved by public chance sampling over real hole pairs")

    def fold_matrix(self, r: int) -> np.ndarray:
        self._require_tables()
        return self._fold[r]

    def showdown_matrix(self) -> np.ndarray:
        self._require_tables()
        if self._showdown is None:  # shared with an engine as -W (see share_tables)
            return -self._neg_showdown
        return self._showdown

    def share_tables(self, fold_ops: list, showdown_op: tuple) -> None:
        """Called by the engine with its packed operators ((blocks, B) views of its buffer):
        where one equals this model's table (P_r symmetric: G = P_r^T = P_r; W antisymmetric:
        G = W^T = -W), keep the view and drop the copy (1.6 GB at 10 buckets)."""
        neg_showdown = keep_engine_views(self._fold, self._showdown, fold_ops, showdown_op)
        if neg_showdown is not None:
            self._neg_showdown = neg_showdown
            self._showdown = None

    @cached_property
    def maps_hash(self) -> str:
        """The hash of what maps real cards to states: the game, the bucket spec, the state
        maps, the last-round bucket table (and a k-means abstraction's river buckets). It is
        all that an abstraction file's hash covered before ``hash`` covered the joint tables
        (files without ``"hash_kind": "full"`` carry it: the *old kind*), and all that a
        strategy's play on real cards depends on (a real-game best response reads no more)."""
        h = hashlib.sha256(f"cfrlab-bucketed-v{FORMAT_VERSION}\n".encode())
        h.update(self.game.to_text().encode())
        h.update(json.dumps(self.spec.to_dict(), sort_keys=True).encode())
        for a in [*self.maps.state, self.maps.last]:
            h.update(cache.array_digest(np.asarray(a)).encode())
        if self.maps.river is not None:
            h.update(cache.array_digest(np.asarray(self.maps.river)).encode())
        return h.hexdigest()

    @cached_property
    def hash(self) -> str:
        """The hash of everything a solve or an evaluation reads: ``maps_hash``, every
        round's joint table P_r, the showdown table W, the state masses and the digest of the
        last round's hand-strength table (what ``state_of`` reads). Two abstractions with the
        same hash solve alike (kind ``HASH_KIND`` in the file's header)."""
        h = hashlib.sha256(f"cfrlab-bucketed-v{FORMAT_VERSION}-{HASH_KIND}\n".encode())
        h.update(self.maps_hash.encode())
        tables = [*self._fold, *([self.showdown_matrix()] if self._fold else []), *self.masses]
        for a in tables:
            h.update(_table_digest(a).encode())
        h.update(str(self._hs_table_digest() or "").encode())
        return h.hexdigest()

    def _hs_table_digest(self) -> str | None:
        """The digest of the hand-strength table the last round's lookups read (None for a
        k-means abstraction, whose river buckets ``maps_hash`` covers)."""
        if self.maps.river is not None:
            return None
        if self._hs_digest is None:
            self._hs_digest = cache.array_digest(self.hs_table)
        return self._hs_digest

    @cached_property
    def _lookup(self) -> BK.StateLookup:
        """What the state-lookup kernels read (``_bucket_kernels.StateLookup``)."""
        g = self.game
        R = g.num_rounds
        seq = seq_indexers(g)[:R - 1]
        met = metric_indexers(g)[-1]

        def pack(arrays, dtype):
            off = np.zeros(len(arrays) + 1, dtype=np.int64)
            off[1:] = np.cumsum([len(a) for a in arrays])
            data = np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype)
            return data, off

        args = [ix.index_args for ix in seq]
        g_all, g_off = pack([a[2] for a in args], np.int64)
        k_all, k_off = pack([a[3] for a in args], np.int64)
        o_all, o_off = pack([a[4] for a in args], np.int64)
        t_all, t_off = pack(list(self.maps.state), np.int32)
        m = met.index_args
        totals = np.array(board_totals(g), dtype=np.int64)
        return BK.StateLookup(
            R, totals, g.num_ranks, g.num_suits, m[5], g_all, g_off, k_all, k_off, o_all, o_off,
            t_all, t_off, m[2], m[3], m[4], self.hs_table, self.maps.last.astype(np.int32),
            self.spec.counts[-1], self.spec.history, self.spec.recall == "perfect")

    @cached_property
    def _deck(self) -> DeckMap:
        return DeckMap(self.game.num_ranks, self.game.num_suits)

    @cached_property
    def _to_local_list(self) -> list[int]:
        return self._deck.to_local.tolist()

    @property
    def hs_table(self) -> np.ndarray:
        """The last round's exact hand-strength table (from the metric cache when loaded);
        a k-means abstraction's bucket per river class (its lookup reads it in that place)."""
        if self.maps.river is not None:
            return self.maps.river
        if self._hs_table is None:
            table = last_round_table(self.game)
            want = getattr(self, "_hs_digest", None)
            if want and cache.array_digest(table) != want:
                raise CfrlabError("the cached hand-strength table differs from the one this "
                                  "abstraction was built with; rebuild the abstraction")
            self._hs_table = table
        return self._hs_table

    def state_of(self, position: int, hole, board, round: int) -> int:
        """Private state at `round` of a player with ACPC hole cards and board (ACPC order).
        About 2-5 us per call from Python; use ``deal_states_batch`` for many hands."""
        del position
        g = self.game
        nb = g.total_board_cards(round)
        if len(hole) != 2 or len(board) < nb or not 0 <= round < g.num_rounds:
            raise CfrlabError(f"round {round} needs 2 hole cards and {nb} board cards")
        to_local = self._to_local_list  # plain Python: numpy's overhead dominates for 2-7 cards
        try:
            local = [to_local[c] if c >= 0 else -1 for c in (*hole, *board[:nb])]
        except (IndexError, TypeError):
            raise CfrlabError("card id out of range") from None
        if min(local) < 0:
            raise CfrlabError("a card is not in this game's deck")
        if len(set(local)) != len(local):
            raise CfrlabError("repeated card")
        hand = np.zeros(2 + g.total_board_cards(), dtype=np.int64)
        hand[:len(local)] = local
        return int(BK.one_player_states(hand, round, self._lookup)[round])

    def deal_states(self, deal) -> np.ndarray:
        """int32[2, R]: each player's state per round for an ACPC-ordered deal."""
        return self.deal_states_batch(np.asarray(deal)[None])[0]

    def deal_states_batch(self, deals) -> np.ndarray:
        """int32[N, 2, R] for deals int[N, 4 + board cards] (ACPC ids, holes then board)."""
        g = self.game
        arr = np.asarray(deals, dtype=np.int64)
        need = 4 + g.total_board_cards()
        if arr.ndim != 2 or arr.shape[1] < need:
            raise CfrlabError(f"deals need {need} cards each")
        local = np.ascontiguousarray(self._deck.local(arr[:, :need]))
        srt = np.sort(local, axis=1)
        if (srt[:, 1:] == srt[:, :-1]).any():
            raise CfrlabError("a deal repeats a card")
        out = np.empty((len(arr), 2, g.num_rounds), dtype=np.int32)
        BK.deal_states_rows(local, self._lookup, out)
        return out

    def describe_state(self, r: int, s: int) -> str:
        """Bucket sequence text, e.g. ``"3-1-4"`` (buckets numbered from 0)."""
        if self.spec.recall != "perfect":
            return f"b{s}"
        out = []
        for c in reversed(self.spec.counts[:r + 1]):
            out.append(s % c)
            s //= c
        return "-".join(str(x) for x in reversed(out))

    # -- files ------------------------------------------------------------------------------
    def save(self, path) -> None:
        header = {
            "kind": "abstraction",
            "format": FORMAT_VERSION,
            "game": self.game.to_text(),
            "game_name": self.game.name,
            "spec": self.spec.to_dict(),
            "params": self.maps.params,
            "num_states": list(self.num_states),
            "hash": self.hash,
            "hash_kind": HASH_KIND,
            "hs_digest": self._hs_table_digest(),
        }
        arrays = {f"state{r}": s for r, s in enumerate(self.maps.state)}
        arrays.update({f"fold{r}": f for r, f in enumerate(self._fold)})
        arrays.update({f"mass{r}": m for r, m in enumerate(self.masses)})
        if self._fold:
            arrays["showdown"] = self.showdown_matrix()
        if self.maps.river is not None:
            arrays["river"] = self.maps.river
        arrays["last"] = self.maps.last
        arrays["hist"] = self.maps.hist
        save_npz(path, header, arrays)

    @classmethod
    def load(cls, path, game=None) -> BucketedModel:
        """Read an abstraction file: header fields checked for type, every table's declared
        shape checked against the bucket spec before it is read, then the hash."""
        with NpzReader(path, "abstraction") as z:
            header = z.header
            _check_abstraction_header(path, header)
            g = game_of_header(path, header, "abstraction")
            if game is not None and game.to_text() != g.to_text() and not same_cards(game, g):
                raise FileMismatchError(f"{path}: this abstraction was built for another game "
                                        f"({g.name or 'custom'}: other cards)")
            try:
                check_holdem_style(g)
                spec = BucketSpec.from_dict(header["spec"])
            except CfrlabError as e:
                raise CfrlabError(one_line(f"{path}: corrupt abstraction header ({e})")) from None
            R = g.num_rounds
            if len(spec.levels) != R or list(spec.num_states) != header["num_states"]:
                raise CfrlabError(f"{path}: corrupt abstraction header (spec for {len(spec.levels)} rounds, "
                                  f"states {header['num_states']}, game of {R} rounds)")
            n = spec.num_states
            km = spec.method == "kmeans"  # no joint tables; a bucket per river class
            tables = [] if km else ["showdown"] + [f"fold{r}" for r in range(R)]
            missing = [k for k in ([f"state{r}" for r in range(R - 1)] + ["last", "hist"] + tables
                                   + [f"mass{r}" for r in range(R)] + (["river"] if km else []))
                       if k not in z.names]
            if missing:
                raise CfrlabError(f"{path}: abstraction file is missing {missing[0]!r}")
            f64 = np.float64
            fold = [z.read(f"fold{r}", shape=(n[r], n[r]), dtype=f64, what=f"round {r}'s joint table")
                    for r in range(R) if not km]
            showdown = None if km else z.read("showdown", shape=(n[-1], n[-1]), dtype=f64,
                                              what="the showdown table")
            river = None
            if km:
                river = z.read("river", shape=(metric_indexers(g)[-1].size,), what="the river buckets")
                if river.dtype.kind not in "iu" or (len(river) and not 0 <= river.min() <= river.max() < n[-1]):
                    raise CfrlabError(f"{path}: corrupt abstraction file (river buckets outside 0..{n[-1] - 1})")
            masses = [z.read(f"mass{r}", shape=(n[r],), dtype=f64, what=f"round {r}'s masses")
                      for r in range(R)]
            states = [z.read(f"state{r}", shape=(None,)) for r in range(R - 1)]
            last = z.read("last", shape=(None, None))
            hist = z.read("hist", shape=(None, None))
        for name, a in [("masses", m) for m in masses] + [("joint tables", f) for f in fold] + (
                [("showdown table", showdown)] if showdown is not None else []):
            if not np.isfinite(a.sum()):  # a sum is finite only when every entry is
                raise CfrlabError(f"{path}: corrupt abstraction file (non-finite {name})")
        for name, a in [("state map", x) for x in states] + [("bucket table", last), ("histogram", hist)]:
            if a.dtype.kind not in "iu":
                raise CfrlabError(f"{path}: corrupt abstraction file ({name} is {a.dtype}, not integers)")
        maps = BucketMaps(spec, header["params"], states, last, masses, hist, river=river)
        old = header.get("hash_kind") is None  # a file written before hashes covered the tables
        try:
            model = cls(g, maps, fold, showdown)
            model._hs_digest = header.get("hs_digest")
            digest = model.maps_hash if old else model.hash
        except (ValueError, TypeError) as e:
            raise CfrlabError(one_line(f"{path}: corrupt abstraction file ({e})")) from None
        if digest != header.get("hash"):
            raise CfrlabError(f"{path}: abstraction contents do not match its hash (corrupt?)")
        model.source_file = Path(path).name
        if old:
            model.hash_kind = "old"
            say_old_hash(old_hash_line(path))
        if game is not None:  # the same cards in another betting (limit -> no-limit): the
            model.game = game  # file's hash stays the model's, the tree is the game's
        return model

    def summary(self) -> dict:
        g = self.game
        return {
            "game": g.name or "custom",
            "deck": f"{g.num_ranks} ranks x {g.num_suits} suits",
            "bucketing": self.spec.label(),
            "buckets_per_round": list(self.spec.counts),
            "num_states": list(self.num_states),
            "hash": self.hash,
        }
