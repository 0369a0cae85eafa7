"""What the limit and no-limit local best responses share: the deck, the deals, the equity.

``LbrCards`` holds a 2-player game's deck and hands (deck-local ids, ``hands.Deck``), deals
a duplicate deal from its own random stream (``deal``), and computes the responder's
showdown equity against every opponent hand (``equity``: the board's completions enumerated
when there are at most ``max_boards`` of them, else ``samples`` of them drawn from a stream
seeded by the responder's cards and the board alone; preflop once per suit class). The
betting and the opponent are the subclasses' (``lbr.LocalBestResponse`` on the limit tree,
``lbr_nolimit.NoLimitLBR`` on the rules engine's states); the lbr module docstring defines
the responder.
"""

from __future__ import annotations

import math

import numpy as np

from cfrlab.cards import kernels as CK
from cfrlab.errors import CfrlabError
from cfrlab.games import GameDef
from cfrlab.realgame import _lbr_kernels as K
from cfrlab.realgame.hands import hand_permutation, make_deck, permute_cards

DEFAULT_SAMPLES = 2000  # completions drawn where there are more than max_boards
DEFAULT_MAX_BOARDS = 2000  # completions enumerated up to this many (HULHE: flop 1,081)
MAX_EXACT_BOARDS = 20000  # exact mode refuses games with more completions than this
# from this many completions on (the hold'em flop), every hand's ranks are computed once per
# board by the threaded kernel and shared by both seats; below it (turn, river) the serial
# enumeration is cheaper than waking the threads (60 ms a call on a loaded machine)
SHARED_RANKS = 200
_MASK = (1 << 64) - 1
_EQ_SALT = 0x6C62_7265_7175_6974  # equity sampling streams: a fixed function of the cards


def _mix(*xs: int) -> int:
    """A 64-bit seed from integers (splitmix64 steps)."""
    z = 0x9E3779B97F4A7C15
    for x in xs:
        z = (z ^ (int(x) & _MASK)) & _MASK
        z = (z + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
    return z


def _stream(seed: int) -> np.ndarray:
    return np.array([seed & _MASK], dtype=np.uint64)


class LbrCards:
    """The cards of a local best response in ``game`` (module docstring)."""

    def __init__(self, game: GameDef, *, call_rounds: int = 0, samples: int = DEFAULT_SAMPLES,
                 max_boards: int = DEFAULT_MAX_BOARDS) -> None:
        if game.num_players != 2:
            raise CfrlabError("the local best response handles 2-player games")
        if game.num_board_cards[0] != 0:
            raise CfrlabError("games that deal board cards in the first round are not supported")
        if call_rounds < 0:
            raise CfrlabError(f"call_rounds must be 0 or more, got {call_rounds}")
        if samples < 1:
            raise CfrlabError(f"samples must be at least 1, got {samples}")
        self.game = game
        self.call_rounds = int(call_rounds)
        self.samples, self.max_boards = int(samples), int(max_boards)
        self.deck = make_deck(game)
        d = self.deck
        self.H, self.h, self.D = d.num_hands, d.num_hole, d.size
        self.R = game.num_rounds
        self.before = [int(x) for x in np.cumsum([0, *game.num_board_cards])]  # board before r
        self.total_board = self.before[-1]
        self.keys = CK.hand_key_table(d.hands, d.to_global)
        self.hands, self.hands_g, self.to_global = self.keys.hands, self.keys.hands_g, self.keys.to_global
        # hands sharing a card with each card: meets[c] bool[H]
        self.meets = np.zeros((self.D, self.H), dtype=bool)
        for q in range(self.h):
            self.meets[self.hands[:, q], np.arange(self.H)] = True
        self._eq0: dict[int, np.ndarray] = {}  # round-0 equities by hand
        self._eq0_canon: dict[int, np.ndarray] = {}  # ... by canonical hand (suit classes)
        self._perm: dict[tuple, np.ndarray] = {}
        self._ranks: dict[tuple, tuple] = {}  # known board -> every hand's rank on each completion

    def disjoint(self, cards) -> np.ndarray:
        """bool[H]: hands that share no card with ``cards`` (local ids)."""
        cards = list(cards)
        if not cards:
            return np.ones(self.H, dtype=bool)
        return ~self.meets[cards].any(axis=0)

    def completions(self, r: int) -> int:
        """How many completions of round r's board the responder's equity averages over."""
        known = self.before[r + 1]
        return math.comb(self.D - self.h - known, self.total_board - known)

    def check_exact(self) -> None:
        """Refuses exact mode where some round's equity has too many completions."""
        for r in range(self.R):
            if self.completions(r) > MAX_EXACT_BOARDS:
                raise CfrlabError("exact LBR enumerates every deal: this game is too large "
                                  "(sample hands instead)")

    def _equity_raw(self, lbr: int, known: np.ndarray, ok: np.ndarray, exact: bool) -> np.ndarray:
        k = self.total_board - len(known)
        eq = np.zeros(self.H)
        seed = _mix(_EQ_SALT, lbr, len(known), *known.tolist())
        K.equity(lbr, known, k, exact, self.samples, _stream(seed), self.keys, ok, eq)
        return eq

    def equity(self, lbr: int, r: int, known, ok: np.ndarray | None = None) -> np.ndarray:
        """eq[j] of the responder holding hand ``lbr`` in round r on board ``known`` (lbr module
        docstring), for the hands ``ok`` (default: every hand missing its cards and the board)."""
        known = np.asarray(known, dtype=np.int64)
        n = self.completions(r)
        exact = n <= self.max_boards
        if r == 0:
            return self._equity0(lbr, exact)
        if ok is None:
            ok = self.disjoint([*self.hands[lbr].tolist(), *known.tolist()])
        ok = np.ascontiguousarray(ok, dtype=np.bool_)
        if not exact or n < SHARED_RANKS:
            return self._equity_raw(lbr, known, ok, exact)
        key = tuple(known.tolist())
        got = self._ranks.get(key)
        if got is None:
            k = self.total_board - len(known)
            n = math.comb(self.D - len(known), k)
            comps = np.zeros((n, k), dtype=np.int64)
            if k:
                CK.board_completions(known, k, self.D, comps)
            ranks = np.empty((n, self.H), dtype=np.int32)
            CK.board_ranks(known, comps, n, self.keys, ranks)
            got = (ranks, math.comb(self.D - 2 * self.h - len(known), k))
            self._ranks[key] = got
        eq = np.zeros(self.H)
        K.equity_from_ranks(lbr, got[0], len(got[0]), got[1], ok, eq)
        return eq

    def _equity0(self, lbr: int, exact: bool) -> np.ndarray:
        eq = self._eq0.get(lbr)
        if eq is not None:
            return eq
        S = self.deck.num_suits
        cards = self.hands[lbr]
        tau = [-1] * S  # suits in order of appearance -> 0, 1, ...
        nxt = 0
        for c in cards.tolist():
            if tau[c % S] < 0:
                tau[c % S] = nxt
                nxt += 1
        for s in range(S):
            if tau[s] < 0:
                tau[s] = nxt
                nxt += 1
        canon = tuple(sorted(permute_cards(cards, tau, S).tolist()))
        ci = self.deck.hand_of[canon]
        base = self._eq0_canon.get(ci)
        if base is None:
            base = self._equity_raw(ci, np.zeros(0, dtype=np.int64),
                                    self.disjoint(self.hands[ci].tolist()), exact)
            self._eq0_canon[ci] = base
        sigma = [0] * S  # tau's inverse: carries the canonical hand onto this one
        for s in range(S):
            sigma[tau[s]] = s
        key = tuple(sigma)
        perm = self._perm.get(key)
        if perm is None:
            perm = hand_permutation(self.deck, sigma)
            self._perm[key] = perm
        eq = np.empty(self.H)
        eq[perm] = base
        self._eq0[lbr] = eq
        return eq

    def deal(self, seed: int, index: int):
        """Deal ``index`` of the run seeded ``seed``: (hand of seat 0, hand of seat 1, board in
        deal order, sorted within each round, local ids) and its random stream."""
        st = _stream(_mix(seed, index))
        h = self.h
        cards = np.zeros(2 * h + self.total_board, dtype=np.int64)
        K.deal_cards(st, self.D, len(cards), cards)
        hole = [self.deck.hand_of[tuple(sorted(cards[p * h:(p + 1) * h].tolist()))] for p in (0, 1)]
        board = cards[2 * h:]
        for r in range(1, self.R):
            board[self.before[r]:self.before[r + 1]].sort()
        return hole, board, st

    def showdown_sign(self, lbr: int, opp: int, board) -> int:
        """+1, 0 or -1: the responder's hand ``lbr`` against ``opp`` on the full ``board``."""
        return int(CK.showdown_sign(self.hands_g[lbr], self.hands_g[opp], self.to_global[board]))

    def board_ranks(self, board: tuple) -> np.ndarray:
        """int64[H]: every hand's rank on the full ``board`` (hands meeting it: 0)."""
        ranks = np.zeros(self.H, dtype=np.int64)
        CK.rank_hands(self.hands_g, self.to_global[np.array(board, dtype=np.int64)],
                      self.disjoint(board), ranks)
        return ranks

    def play(self, seed: int, first: int, count: int) -> np.ndarray:
        """(count, 2): the responder's winnings in seats 0 and 1 on deals first.. of ``seed``
        (``play_deal``: the limit or no-limit responder's)."""
        out = np.zeros((count, 2))
        for i in range(count):
            out[i] = self.play_deal(seed, first + i)
        return out
