"""The environments' discrete action set: action ids and the ACPC actions they stand for.

* Limit games: 3 ids, ``0`` fold, ``1`` check/call, ``2`` raise (the tree's columns).
* No-limit games: ``0`` fold, ``1`` check/call, then one id per raise size of a bet spec
  (``cfrlab.tree.bets``; default ``DEFAULT_BETS``, half pot, pot, twice the pot, all-in):
  id ``2 + i`` is the i-th size of the current round's list, made a legal raise-to total as
  the spec's betting abstraction does (below the minimum raise: the minimum; above the stack:
  the all-in; the spec's ``cap`` and ``allin`` options apply). Two ids may name the same
  total (pot and all-in with a short stack): both are legal and play the same raise.
  ``bets="fullgame"`` holds every amount instead: id ``2 + k`` raises to a total of ``k + 1``
  chips (stacks of at most ``MAX_FULLGAME_STACK`` chips: no-limit Kuhn and Leduc).

An id is legal where its action is: fold only when facing a bet, a raise size where raising
is legal and the size applies (``3x`` needs a bet to face).
"""

from __future__ import annotations

import numpy as np

from cfrlab.envs.checks import check_bets
from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef
from cfrlab.games.state import State
from cfrlab.tree.bets import FULLGAME, BetSpec, big_blind, parse_bets

DEFAULT_BETS = "0.5p,p,2p,a"
MAX_FULLGAME_STACK = 1000
FOLD, CALL, RAISE = 0, 1, 2


class ActionSet:
    """Action ids of one game (module docstring). ``names`` label the ids; ``legal(state)``
    gives, per id, the ACPC action it plays at ``state`` or None where it is illegal."""

    def __init__(self, game: GameDef, bets: str | None = None) -> None:
        check_bets(bets)
        self.game = game
        self.spec: BetSpec | None = None
        self.fullgame = False
        if game.is_limit:
            if bets is not None:
                parse_bets(bets, game)  # refuses a spec on a limit game, in one line
            self.bets = "limit"
            self.names: tuple[str, ...] = ("fold", "call", "raise")
            return
        self.bets = (bets or DEFAULT_BETS).strip().lower()
        spec = parse_bets(self.bets, game)
        if spec is None:
            self._fullgame(game)
            return
        self.spec = spec
        width = max(len(sizes) for sizes in spec.rounds)
        if width == 0:
            self.names = ("fold", "call")
        else:
            per_id = [[spec.sizes_of(r)[i].text for r in range(game.num_rounds) if i < len(spec.sizes_of(r))]
                      for i in range(width)]
            self.names = ("fold", "call", *("/".join(dict.fromkeys(texts)) for texts in per_id))

    def _fullgame(self, game: GameDef) -> None:
        top = max(game.stack[:game.num_players])
        if top > MAX_FULLGAME_STACK:
            raise CfrlabError(f"bets 'fullgame' gives one action per amount, for stacks up to {MAX_FULLGAME_STACK} "
                              f"chips; {game.name or 'this game'} has {top}: give a bet spec such as 'fcpa'")
        self.bets = FULLGAME
        self.fullgame = True
        self.names = ("fold", "call", *(f"r{k + 1}" for k in range(top)))

    @property
    def size(self) -> int:
        """The number of action ids (the action space's size)."""
        return len(self.names)

    def legal(self, state: State) -> list[str | None]:
        """Per id, the ACPC action it plays at ``state`` (``f``, ``c``, ``r``, ``r<total>``), or None."""
        out: list[str | None] = [None] * self.size
        if state.is_terminal():
            return out
        acpc = state.legal_actions()
        out[CALL] = "c"
        if acpc[0] == "f":
            out[FOLD] = "f"
        if self.game.is_limit:
            if acpc[-1] == "r":
                out[RAISE] = "r"
            return out
        bounds = state.raise_range()
        if bounds is None:
            return out
        lo, hi = bounds
        if self.fullgame:
            for to in range(lo, hi + 1):
                out[1 + to] = f"r{to}"
            return out
        for i, to in enumerate(self._spec_totals(state, lo, hi)):
            if to is not None:
                out[RAISE + i] = f"r{to}"
        return out

    def _spec_totals(self, state: State, lo: int, hi: int) -> list[int | None]:
        """The raise-to total of each size of the round's list (None: the size does not apply)."""
        spec = self.spec
        assert spec is not None
        cap = spec.cap_of(state.round)
        if cap is not None and state.num_raises >= cap:
            return []
        bb = big_blind(self.game)
        stack = self.game.stack[state.current_player()]
        out: list[int | None] = []
        for size in spec.sizes_of(state.round):
            to = size.raise_to(state, bb)
            if to is not None:
                to = min(max(to, lo), hi)
                if hi - to < spec.allin * stack:
                    to = hi
            out.append(to)
        return out

    def mask(self, state: State) -> np.ndarray:
        """int8 mask of the legal ids at ``state`` (all zeros once the hand is over)."""
        return np.array([a is not None for a in self.legal(state)], dtype=np.int8)

    def raises(self, state: State) -> list[int]:
        """The distinct raise-to totals the ids play at ``state``, increasing: the tree's
        ``RaiseChooser`` (``cfrlab.tree.build_tree``), so the tree holds exactly these raises."""
        return sorted({int(a[1:]) for a in self.legal(state)[RAISE:] if a is not None})

    def describe(self) -> str:
        return ", ".join(f"{i} {name}" for i, name in enumerate(self.names))
