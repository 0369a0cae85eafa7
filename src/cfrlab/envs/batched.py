"""The batched environment: many hands at once, numpy arrays in and out, compiled with numba.

Each of ``num_envs`` hands walks the game's public tree (``cfrlab.tree``, built once, its
no-limit raises exactly the action set's); a hand that ends is dealt anew at once, so every
call to ``step`` is one decision in every hand. Observations are the acting player's, in the
same encoding as the PettingZoo environment (``cfrlab.envs.encoding``), and action ids are the
same (``cfrlab.envs.actions``)::

    env = BatchedEnv("leduc", num_envs=4096, seed=0)
    obs, mask, player = env.reset()
    actions = env.random_actions()
    obs, mask, player, rewards, done = env.step(actions)

``rewards[i]`` holds the chips of every position of hand i where ``done[i]`` (the hand that
ended there; zeros elsewhere); after it, row i already shows the first decision of the next
hand. The returned arrays are the environment's own buffers, overwritten by the next call:
copy what you keep. An illegal action id raises ``IllegalActionError`` before any hand moves;
``step``, ``random_actions`` and ``state`` before the first ``reset`` raise ``ResetNeededError``,
and ``num_envs`` whose arrays would pass ``MAX_MEMORY_SHARE`` of the machine's memory is refused
with the memory it would take.
"""

from __future__ import annotations

import os

import numpy as np

from cfrlab.envs import _batched_kernels as K
from cfrlab.envs.actions import ActionSet
from cfrlab.envs.checks import ResetNeededError, as_int, check_seed, hand_index
from cfrlab.envs.encoding import Encoding
from cfrlab.errors import CfrlabError, IllegalActionError, human_bytes
from cfrlab.games import load_game
from cfrlab.games.gamedef import GameDef
from cfrlab.games.state import State, deal_length
from cfrlab.tree import CHANCE, DECISION, build_tree
from cfrlab.tree.arrays import compile_tree

MAX_PUBLIC_BYTES = 512 * 2**20  # the per-node public table
MAX_MEMORY_SHARE = 0.8  # the per-hand arrays may take at most this share of the machine's memory
UNKNOWN_MEMORY = 16 * 2**30  # the machine's memory where the system does not say


class BatchedEnv:
    """``num_envs`` hands of ``game`` at once (module docstring). ``bets`` and ``encoding``
    as in ``PokerEnv``; ``seed`` seeds the deals and ``random_actions``."""

    def __init__(self, game: GameDef | str = "leduc", num_envs: int = 1024, *, bets: str | None = None,
                 encoding: str = "auto", seed: int | None = None) -> None:
        n = as_int(num_envs) if isinstance(num_envs, (int, np.integer)) else None
        if n is None or n < 1:
            raise CfrlabError(f"num_envs must be a positive integer, got {num_envs!r}")
        check_seed(seed)
        self.game = load_game(game)
        self.actions = ActionSet(self.game, bets)
        self.encoding = Encoding(self.game, encoding)
        self._check_memory(n)
        if self.game.is_limit:
            self.tree = build_tree(self.game)
        else:
            self.tree = build_tree(self.game, self.actions.raises, bets=self.actions.bets)
        if self.tree.kind[0] != DECISION:
            raise CfrlabError(f"{self.game.name or 'this game'} has no decision at the start of a hand")
        self._build_tables()
        self.num_envs = n
        self.num_players = self.game.num_players
        self.num_actions = self.actions.size
        self.observation_size = self.encoding.size
        n, P = self.num_envs, self.num_players
        self.node = np.zeros(n, np.int32)
        self.deals = np.zeros((n, deal_length(self.game)), np.int64)
        self._strength = np.zeros((n, P), np.int64)
        self._decks = np.tile(np.array(self.encoding.deck, np.int64), (n, 1))
        self._scratch = np.zeros(self.game.num_hole_cards + self.game.total_board_cards(), np.int64)
        self.obs = np.zeros((n, self.observation_size), np.float32)
        self.mask = np.zeros((n, self.num_actions), np.bool_)
        self.player = np.zeros(n, np.int8)
        self.rewards = np.zeros((n, P), np.float32)
        self.done = np.zeros(n, np.bool_)
        self._actions = np.zeros(n, np.int64)
        self._rng = np.zeros(n, np.uint64)
        self._seed(seed)
        self._hands = K.Hands(self.node, self.deals, self._strength, self._decks, self._rng, self._scratch)
        self._views = K.Views(self.obs, self.mask, self.player)
        self._dealt = False

    def bytes_per_hand(self) -> int:
        """Bytes of the arrays kept for every hand (the observation, the mask, the deal, the
        deck, the rewards and the rest)."""
        g = self.game
        P, cards = g.num_players, len(self.encoding.deck)
        return (4 * self.encoding.size + self.actions.size + 8 * (deal_length(g) + cards) + 8 * P + 4 * P
                + 4 + 1 + 1 + 8 + 8)  # node, player, done, action, random stream

    def _check_memory(self, n: int) -> None:
        """Refuse ``n`` hands whose arrays would pass ``MAX_MEMORY_SHARE`` of the machine's memory."""
        per = self.bytes_per_hand()
        total = _machine_memory()
        if n * per > MAX_MEMORY_SHARE * total:
            most = int(MAX_MEMORY_SHARE * total) // per
            raise CfrlabError(f"num_envs={n:,} would take about {human_bytes(n * per)} for {self.game.name or 'this game'} "
                              f"({per:,} bytes per hand), more than {MAX_MEMORY_SHARE:.0%} of this machine's "
                              f"{human_bytes(total)}: give num_envs {most:,} or fewer")

    def _build_tables(self) -> None:
        """Per node the public observation part, per decision the column of each action id
        (both from the rules engine walking the tree), and the compiled tree."""
        t, enc, aset = self.tree, self.encoding, self.actions
        if t.num_nodes * enc.public_size * 4 > MAX_PUBLIC_BYTES:
            raise CfrlabError(f"the batched environment keeps {enc.public_size} values per node of a "
                              f"{t.num_nodes:,}-node tree, above {MAX_PUBLIC_BYTES >> 20} MB: "
                              "use a smaller bet spec")
        self._public = np.zeros((t.num_nodes, enc.public_size), np.float32)
        self._id_col = np.full((t.num_decisions, aset.size), -1, np.int32)
        root = State(self.game, seed=0)
        stack = [(0, root, enc.start(root))]
        while stack:
            node, state, pub = stack.pop()
            self._public[node] = pub
            if t.kind[node] == CHANCE:
                stack.append((int(t.children(node)[0]), state, pub))
                continue
            if t.kind[node] != DECISION:
                continue
            by_text = {t.action_text(node, int(t.action[c])): int(c) for c in t.children(node)}
            for a, text in enumerate(aset.legal(state)):
                if text is not None:
                    self._id_col[t.decision[node], a] = int(t.action[by_text[text]])
            for text, c in by_text.items():
                s2, p2 = state.clone(), pub.copy()
                enc.advance(p2, s2, text)
                stack.append((c, s2, p2))
        arrays = compile_tree(t)
        self._tree = K.EnvTree(arrays.kind, arrays.player, arrays.rnd, arrays.next_node, arrays.decision,
                               np.ascontiguousarray(t.spent, np.int64), np.ascontiguousarray(t.folded, np.bool_),
                               self._id_col, self._public, 0)
        g = self.game
        card_index = np.full(max(enc.deck) + 1, -1, np.int64)
        for c, i in enc.card_index.items():
            card_index[c] = i
        first = g.num_players * g.num_hole_cards
        board_at = np.array([first + g.total_board_cards(r - 1) for r in range(g.num_rounds + 1)], np.int64)
        self._layout = K.CardLayout(card_index, board_at, np.array(enc.board_block, np.int64), g.num_hole_cards,
                                    enc.public_offset)

    def _seed(self, seed: int | None) -> None:
        ss = np.random.SeedSequence(check_seed(seed))
        self._rng[:] = ss.generate_state(self.num_envs, np.uint64)  # in place: the kernels' bundle holds it

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal a new hand everywhere: ``(obs float32[n, size], mask bool[n, actions], player int8[n])``
        (``seed``: reseed first)."""
        if check_seed(seed) is not None:
            self._seed(seed)
        K.reset_hands(self._hands, self._tree, self._layout, self._views)
        self.done[:] = False
        self.rewards[:] = 0.0
        self._dealt = True
        return self.obs, self.mask, self.player

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action id per hand: ``(obs, mask, player, rewards float32[n, players], done bool[n])``."""
        self._started()
        given = np.asarray(actions)
        if given.shape != (self.num_envs,) or not np.issubdtype(given.dtype, np.integer):
            raise CfrlabError(f"step takes one integer action id per hand: an array of shape ({self.num_envs},), "
                              f"got {given.dtype} {given.shape}")
        a = given.astype(np.int64, copy=False)  # a uint64 past int64 wraps to a negative id: illegal too
        bad = K.first_illegal(a, self.node, self._tree.decision, self._id_col)
        if bad >= 0:
            legal = np.flatnonzero(self.mask[bad]).tolist()
            raise IllegalActionError(f"hand {bad}: action {int(given[bad])} is not legal (legal ids: {legal}; "
                                     f"{self.actions.describe()}); no hand moved")
        K.step_hands(a, self._hands, self._tree, self._layout, self._views, self.rewards, self.done)
        return self.obs, self.mask, self.player, self.rewards, self.done

    def _started(self) -> None:
        if not self._dealt:
            raise ResetNeededError("no hand has been dealt: call reset() first")

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal id for every hand (drawn from the hands' own streams; the
        array is reused by the next call)."""
        self._started()
        K.random_legal(self.mask, self._rng, self._actions)
        return self._actions

    def state(self, i: int) -> State:
        """Hand i as a rules-engine ``State`` (its deal and betting so far)."""
        i = hand_index(i, self.num_envs)
        self._started()
        betting = self.tree.betting[int(self.node[i])]
        state = State(self.game, [int(c) for c in self.deals[i]])
        for rnd in betting.split("/"):
            for action in _actions_of(rnd):
                state.apply(action)
        return state


def _machine_memory() -> int:
    """Bytes of physical memory (``UNKNOWN_MEMORY`` where the system does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return UNKNOWN_MEMORY


def _actions_of(betting: str) -> list[str]:
    """ACPC actions of one round's betting text (``"r4c"`` -> ``["r4", "c"]``)."""
    out: list[str] = []
    for ch in betting:
        if ch.isdigit():
            out[-1] += ch
        else:
            out.append(ch)
    return out
