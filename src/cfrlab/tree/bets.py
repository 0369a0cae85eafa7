"""Betting abstractions of no-limit games: which raise amounts a tree holds.

A no-limit game allows every raise-to total between the minimum raise and the all-in; a
betting abstraction keeps a few per decision. A spec is text, one list of sizes per round
(the last list serves the later rounds), then options::

    fcpa                          fold, call, pot, all-in (Hyperborean07's; OpenSpiel's fcpa)
    fc                            fold and call only
    0.5p,1p,a/1p,a                half pot, pot, all-in preflop; pot, all-in later
    2.5bb,3x,1p,a/0.5p,1p,a;cap=3;allin=0.15

Sizes (each becomes a raise-to total, the ACPC convention):

- ``<f>p``: a pot-fraction raise: call first, then raise by f times the pot after the call
  (``1p`` or ``p`` is the pot-size raise); ``50%`` means ``0.5p``.
- ``<k>x``: facing a bet, raise to the current bet plus (k - 1) times the last bet or raise
  (``3x`` against an open bet of B is a raise to 3B); left out when there is no bet to face.
- ``<n>bb``: raise to n big blinds in total for the hand (a preflop open: ``2.5bb``).
- ``a``: all-in.
- ``-``: no raise in that round.

Options: ``cap=N`` (or ``cap=N/M/...`` per round): at most N raises in a round, the blinds not
counted; ``allin=F``: a raise that would leave the raiser less than F times its stack becomes
the all-in. Every amount is made legal: below the minimum raise it becomes the minimum raise,
above the stack the all-in; equal amounts are kept once. ``fullgame`` holds every legal amount
(small games only). The spec's canonical text (``BetSpec.text``) names it in strategy files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef
from cfrlab.games.state import State

POT, MULTIPLE, BIG_BLINDS, ALL_IN = "p", "x", "bb", "a"
FULLGAME = "fullgame"
PRESETS = {
    "fc": "-",
    "fcpa": "p,a",
    # the richer default for hold'em: a 2.5 big-blind open beside pot and all-in, pot and
    # all-in on the flop, half pot too on the turn and river; two raises a round; a raise
    # leaving less than a tenth of the stack goes all-in (HUNL: 9,846 decisions, 4 GB of
    # solver tables at 8 buckets, against fcpa's 1,360 and 0.35 GB)
    "default": "2.5bb,p,a/p,a/0.5p,p,a;cap=2;allin=0.1",
}
_NUMBER = r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)"  # ASCII digits only (int() and float() take others)
_SIZE = re.compile(rf"^(?:{_NUMBER}(p|x|bb|%)|(p)|(a))$")
_INT = re.compile(r"^[0-9]+$")
_FRACTION = re.compile(rf"^{_NUMBER}(?:e[-+]?[0-9]+)?$")  # allin=1e-05 (a spot file's float)
MAX_SIZE = 1e6  # a size's number at most this (a pot-fraction, multiple or big blinds beyond
# it is past any stack a game holds: 'a' says all-in); keeps every raise-to total finite


@dataclass(frozen=True)
class BetSize:
    """One raise size: ``kind`` is "p" (pot fraction), "x" (multiple), "bb" or "a"."""

    kind: str
    value: float = 0.0

    @property
    def text(self) -> str:
        if self.kind == ALL_IN:
            return "a"
        if self.kind == POT and self.value == 1.0:
            return "p"
        return f"{_num(self.value)}{self.kind}"

    def raise_to(self, state: State, big_blind: int, dead: int = 0) -> int | None:
        """The raise-to total this size asks for at ``state`` (before it is made legal);
        None where the size does not apply (a multiple with no bet to face). ``dead``: chips
        in the pot that no player of ``state`` put in (a spot's dead money), counted in the
        pot a pot-fraction size is taken of."""
        p = state.current_player()
        stack = state.game.stack[p]
        if self.kind == ALL_IN:
            return stack
        top = state.max_spent
        if self.kind == POT:
            call = top - state.spent[p]
            return top + math.floor(self.value * (state.pot + dead + call) + 0.5)
        if self.kind == BIG_BLINDS:
            return math.floor(self.value * big_blind + 0.5)
        if state.spent[p] >= top:  # a multiple of nothing
            return None
        last = _last_raise(state, big_blind)
        return top + math.floor((self.value - 1.0) * last + 0.5)


def _last_raise(state: State, big_blind: int) -> int:
    """The size of the last bet or raise of the round: the minimum raise-to total less the
    current bet (ACPC's minimum raise is that size, at least a big blind)."""
    bounds = state.raise_range()
    if bounds is None:
        return big_blind
    return max(1, bounds[0] - state.max_spent)


def _num(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class BetSpec:
    """A parsed betting abstraction (module docstring). ``raises(state)`` is the tree's
    ``RaiseChooser``: the legal raise-to totals to hold at a state, increasing."""

    rounds: tuple[tuple[BetSize, ...], ...]
    cap: tuple[int, ...] = ()
    allin: float = 0.0
    name: str = ""  # the preset's name, when it is one

    @property
    def text(self) -> str:
        """Canonical text: the preset's name, or the sizes and options as parsed."""
        if self.name:
            return self.name
        body = "/".join(",".join(s.text for s in sizes) or "-" for sizes in self.rounds)
        if self.cap:
            body += ";cap=" + "/".join(str(c) for c in self.cap)
        if self.allin:
            body += f";allin={_num(self.allin)}"
        return body

    def sizes_of(self, rnd: int) -> tuple[BetSize, ...]:
        return self.rounds[min(rnd, len(self.rounds) - 1)]

    def cap_of(self, rnd: int) -> int | None:
        return self.cap[min(rnd, len(self.cap) - 1)] if self.cap else None

    def raises(self, state: State, dead: int = 0) -> list[int]:
        """The legal raise-to totals to hold at ``state``, increasing (``dead``: as in
        ``BetSize.raise_to``)."""
        bounds = state.raise_range()
        if bounds is None:
            return []
        cap = self.cap_of(state.round)
        if cap is not None and state.num_raises >= cap:
            return []
        lo, hi = bounds
        bb = big_blind(state.game)
        stack = state.game.stack[state.current_player()]
        out = set()
        for size in self.sizes_of(state.round):
            to = size.raise_to(state, bb, dead)
            if to is None:
                continue
            to = min(max(to, lo), hi)
            if hi - to < self.allin * stack:
                to = hi
            out.add(to)
        return sorted(out)

    def __call__(self, state: State) -> Sequence[int]:
        return self.raises(state)


def big_blind(game: GameDef) -> int:
    """The largest blind (the unit of ``bb`` sizes); 1 in a game without blinds."""
    return max(max(game.blind[:game.num_players]), 1)


def parse_bets(text: str, game: GameDef | None = None) -> BetSpec | None:
    """Parse a betting abstraction spec (module docstring). ``fullgame`` gives None (every
    legal amount). With ``game``, a spec on a limit game is refused (limit games have one raise
    size)."""
    if not isinstance(text, str) or not text.strip():
        raise CfrlabError("a bet spec is empty; give sizes such as 'fcpa' or '0.5p,p,a/p,a'")
    spec_text = text.strip().lower()
    if game is not None and game.is_limit:
        raise CfrlabError(f"{game.name or 'this game'} is a limit game: its raises have one size, "
                          "so it takes no bet spec (betting abstractions are for no-limit games)")
    if spec_text == FULLGAME:
        return None
    head, *options = [part.strip() for part in spec_text.split(";")]
    name = head if head in PRESETS and not options else ""
    if head in PRESETS:
        preset_head, *preset_opts = PRESETS[head].split(";")
        head, options = preset_head, preset_opts + options
    rounds = tuple(_parse_round(part, text) for part in head.split("/"))
    if game is not None and len(rounds) > game.num_rounds:
        raise CfrlabError(f"bet spec {text!r} gives sizes for {len(rounds)} rounds; "
                          f"{game.name or 'the game'} has {game.num_rounds}")
    cap: tuple[int, ...] = ()
    allin = 0.0
    for opt in options:
        key, _, value = opt.partition("=")
        if key == "cap" and value:
            cap = tuple(_parse_int(v, text) for v in value.split("/"))
        elif key == "allin" and value:
            allin = _parse_fraction(value, text)
        else:
            raise CfrlabError(f"bet spec {text!r}: unknown option {opt!r} (options: cap=N, allin=F)")
    spec = BetSpec(rounds, cap, allin, name)
    uses_bb = any(s.kind == BIG_BLINDS for sizes in rounds for s in sizes)
    if uses_bb and game is not None and max(game.blind[:game.num_players]) == 0:
        raise CfrlabError(f"bet spec {text!r} uses big blinds, but {game.name or 'the game'} has no blinds")
    return spec


def _parse_round(part: str, text: str) -> tuple[BetSize, ...]:
    part = part.strip()
    if part == "-":
        return ()
    if not part:
        raise CfrlabError(f"bet spec {text!r} has an empty round (write '-' for no raises)")
    sizes = []
    for tok in part.split(","):
        tok = tok.strip()
        m = _SIZE.match(tok)
        if m is None:
            raise CfrlabError(f"bet spec {_short(text)!r}: {_short(tok)!r} is not a size (pot fraction '0.5p', "
                              "percent '50%', multiple '3x', big blinds '2.5bb', all-in 'a')")
        number, unit, pot, allin = m.groups()
        if allin:
            sizes.append(BetSize(ALL_IN))
        elif pot:
            sizes.append(BetSize(POT, 1.0))
        else:
            v = float(number)
            if unit == "%":
                unit, v = POT, v / 100.0
            if not v > 0 or (unit == MULTIPLE and v <= 1.0):
                raise CfrlabError(f"bet spec {_short(text)!r}: size {_short(tok)!r} must be positive "
                                  "(and a multiple above 1)")
            if not v <= MAX_SIZE:
                raise CfrlabError(f"bet spec {_short(text)!r}: size {_short(tok)!r} is too large (at most "
                                  f"{MAX_SIZE:g}{unit}; 'a' is the all-in)")
            sizes.append(BetSize(unit, v))
    return tuple(dict.fromkeys(sizes))


def _parse_int(value: str, text: str) -> int:
    if not _INT.match(value) or len(value) > 9:
        raise CfrlabError(f"bet spec {_short(text)!r}: cap {_short(value)!r} is not a whole number "
                          f">= 0 (at most 9 digits)")
    return int(value)


def _parse_fraction(value: str, text: str) -> float:
    v = float(value) if _FRACTION.match(value) else math.nan
    if not 0.0 <= v < 1.0:
        raise CfrlabError(f"bet spec {_short(text)!r}: allin {_short(value)!r} is not a fraction in [0, 1)")
    return v


def _short(text: str, limit: int = 40) -> str:
    """Text quoted in a message, cut (a 400-digit size need not be printed whole)."""
    return text if len(text) <= limit else text[:limit] + "..."
