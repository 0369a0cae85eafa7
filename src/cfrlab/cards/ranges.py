"""Hold'em ranges in the notation players write, as one weight per hole-card combo.

A range is float64[1326]: the weight (0..1) of every two-card combo, in the order
``itertools.combinations(range(52), 2)`` gives them (card ids ``rank * 4 + suit``, ACPC), which
is the order of ``cfrlab.agents.ranges.hands`` for hold'em. Entries are separated by commas,
spaces are ignored, and a weight may follow a colon (``KK:0.5``, 0 < w <= 1; no weight is 1;
above 1 it is a percentage, ``KK:50``, as GTO+ writes it; GTO+'s blocks ``[50]AA,KK[/50]`` too):

    AA, KK:0.5          a pair (6 combos)
    QQ+  22-55  55-22   pairs from QQ up to AA; a run of pairs (either order)
    AKs  AKo  AK        suited (4 combos), offsuit (12), both (16)
    ATs+  KTo+  AT+     the kicker up to one below the high card: ATs AJs AQs AKs
    A5s-A2s             one high card, kickers from 5 down to 2 (either order)
    T9s-65s             a run of hands with the same gap: T9s 98s 87s 76s 65s (either order)
    AhKh                one combo (ranks in any case, suits cdhs)

A later entry sets the weight of its combos again (``AK, AKs:0.5``: suited at half, offsuit
whole). ``format_range`` writes a weight vector back in this notation, compactly (``parse_range``
of it gives the same weights exactly). ``with_board`` removes the combos that meet a board.
"""

from __future__ import annotations

import re
from itertools import combinations

import numpy as np

from cfrlab.cards.cards import RANKS, SUITS, card_id, card_text
from cfrlab.cards.isomorphism import permute_cards, suit_permutations
from cfrlab.errors import CfrlabError

NUM_COMBOS = 1326
COMBOS = np.array(list(combinations(range(52), 2)), dtype=np.int16)  # [1326, 2], low card first
_INDEX = np.full((52, 52), -1, dtype=np.int32)
_INDEX[COMBOS[:, 0], COMBOS[:, 1]] = np.arange(NUM_COMBOS)
_INDEX[COMBOS[:, 1], COMBOS[:, 0]] = np.arange(NUM_COMBOS)

_HAND = re.compile(r"^([2-9TJQKA])([2-9TJQKA])([so]?)$", re.IGNORECASE)
_COMBO = re.compile(r"^([2-9TJQKA][cdhs])([2-9TJQKA][cdhs])$", re.IGNORECASE)
_FORMS = "e.g. AA, QQ+, 22-55, AKs, AKo, AK, ATs+, A5s-A2s, T9s-65s, AhKh"
# a weight: ASCII digits only (float() also takes other scripts' digits, and "inf", "1_0")
_NUMBER = re.compile(r"^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$")


def combo_index(a: int, b: int) -> int:
    """Index of the combo of two distinct card ids (either order) in a range vector."""
    return int(_INDEX[a, b])


def suit_group(board, weights) -> list[tuple[int, ...]]:
    """The suit permutations (identity first) that map the board (as a set) onto itself and
    every 1,326-combo weight vector of ``weights`` onto itself."""
    out = []
    for sigma in suit_permutations(4):
        if set(permute_cards(list(board), sigma, 4).tolist()) != {int(c) for c in board}:
            continue
        a, b = permute_cards(COMBOS[:, 0], sigma, 4), permute_cards(COMBOS[:, 1], sigma, 4)
        idx = np.array([combo_index(int(x), int(y)) for x, y in zip(a, b)])
        if all(np.array_equal(w[idx], w) for w in weights):
            out.append(tuple(int(x) for x in sigma))
    return out


def combo_text(i: int) -> str:
    """A combo as text, the higher card first: ``AhKh``."""
    lo, hi = COMBOS[i]
    return card_text(int(hi)) + card_text(int(lo))


# -- hand classes ----------------------------------------------------------------------------
def _class_combos(high: int, low: int, kind: str) -> list[int]:
    """Combo indices of a hand class: ranks high >= low (0 = deuce); kind "s", "o" or ""."""
    if high == low:
        return [combo_index(card_id(high, s), card_id(high, t)) for s, t in combinations(range(4), 2)]
    out = []
    for s in range(4):
        for t in range(4):
            if (kind == "s" and s != t) or (kind == "o" and s == t):
                continue
            out.append(combo_index(card_id(high, s), card_id(low, t)))
    return out


def _hand(token: str, entry: str) -> tuple[int, int, str]:
    """(high rank, low rank, suffix) of a hand class such as ``AKs`` or ``QQ``."""
    m = _HAND.match(token)
    if m is None:
        raise CfrlabError(f"range entry {entry!r}: {token!r} is not a hand ({_FORMS})")
    a, b = RANKS.index(m.group(1).upper()), RANKS.index(m.group(2).upper())
    kind = m.group(3).lower()
    if a == b and kind:
        raise CfrlabError(f"range entry {entry!r}: a pair has no suited/offsuit suffix (write "
                          f"{RANKS[a] * 2})")
    return max(a, b), min(a, b), kind


def _entry_combos(token: str, entry: str) -> list[int]:
    """Combo indices of one entry without its weight."""
    m = _COMBO.match(token)
    if m is not None:
        a, b = (card_id(RANKS.index(c[0].upper()), SUITS.index(c[1].lower())) for c in m.groups())
        if a == b:
            raise CfrlabError(f"range entry {entry!r}: a combo needs two different cards")
        return [combo_index(a, b)]
    if token.endswith("+"):
        high, low, kind = _hand(token[:-1], entry)
        if high == low:  # QQ+: QQ up to AA
            return [c for r in range(low, 13) for c in _class_combos(r, r, "")]
        return [c for k in range(low, high) for c in _class_combos(high, k, kind)]
    if "-" in token:
        return _dash_combos(token, entry)
    high, low, kind = _hand(token, entry)
    return _class_combos(high, low, kind)


def _dash_combos(token: str, entry: str) -> list[int]:
    left, _, right = token.partition("-")
    (h1, l1, k1), (h2, l2, k2) = _hand(left, entry), _hand(right, entry)
    if k1 != k2 or (h1 == l1) != (h2 == l2):
        raise CfrlabError(f"range entry {entry!r}: both ends of a dash range must be hands of one "
                          f"kind (22-55, A5s-A2s, T9s-65s)")
    if h1 == l1:  # pairs: 22-55
        return [c for r in range(min(h1, h2), max(h1, h2) + 1) for c in _class_combos(r, r, "")]
    if h1 == h2:  # one high card: A5s-A2s
        return [c for k in range(min(l1, l2), max(l1, l2) + 1) for c in _class_combos(h1, k, k1)]
    if h1 - l1 == h2 - l2:  # one gap: T9s-65s
        lo, hi = min(h1, h2), max(h1, h2)
        gap = h1 - l1
        return [c for h in range(lo, hi + 1) for c in _class_combos(h, h - gap, k1)]
    raise CfrlabError(f"range entry {entry!r}: a dash range keeps either the high card (A5s-A2s) "
                      f"or the gap between the ranks (T9s-65s)")


def _weight(text: str, entry: str) -> float:
    """A weight after ':': a fraction (0, 1], or a percentage (1, 100] as GTO+ writes it."""
    w = float(text) if _NUMBER.match(text) else float("nan")
    if not 0.0 < w <= 100.0:
        raise CfrlabError(f"range entry {entry!r}: the weight after ':' must be above 0 and at most 1 "
                          "(or a percentage, at most 100)")
    return w if w <= 1.0 else w / 100.0


# GTO+'s weighted blocks: [50]AA,KK[/50] gives every entry inside weight 50%
_BLOCK = re.compile(r"\[\s*([0-9]+(?:\.[0-9]*)?)\s*\](.*?)\[\s*/\s*\1\s*\]", re.DOTALL)


def _expand_blocks(text: str) -> str:
    """The range with each ``[w]...[/w]`` block written as entries of weight w%."""
    def weighted(m: re.Match) -> str:
        pct = float(m.group(1))
        if not 0.0 < pct <= 100.0:
            raise CfrlabError(f"range block [{m.group(1)}]: the weight is a percentage above 0 and at most 100")
        w = repr(pct / 100.0)
        return ",".join(e if ":" in e or not e.strip() else f"{e.strip()}:{w}" for e in m.group(2).split(","))

    out = _BLOCK.sub(weighted, text)
    if "[" in out or "]" in out:
        raise CfrlabError("a range block [w]...[/w] is not closed by the same weight (such as [50]AA,KK[/50])")
    return out


def parse_range(text: str) -> np.ndarray:
    """float64[1326] weights of a range in players' notation (module docstring)."""
    if not isinstance(text, str):
        raise CfrlabError(f"a range is text such as 'AA, KK:0.5, AQs+', got {type(text).__name__}")
    weights = np.zeros(NUM_COMBOS, dtype=np.float64)
    for raw in _expand_blocks(text).split(","):
        entry = "".join(raw.split())
        if not entry:
            continue  # a trailing or doubled comma
        token, colon, wtext = entry.partition(":")
        w = _weight(wtext, entry) if colon else 1.0
        weights[_entry_combos(token, entry)] = w
    if not weights.any():
        raise CfrlabError("a range is empty; give hands such as 'AA, KK:0.5, AQs+'")
    return weights


def single_combos(text: str) -> list[int]:
    """The combos a range names one by one (``AhKh``), which a spot refuses on its board
    (a hand class merely loses the combos that meet the board)."""
    out = []
    for raw in text.split(","):
        m = _COMBO.match("".join(raw.split()).partition(":")[0])
        if m is not None:
            a, b = (card_id(RANKS.index(c[0].upper()), SUITS.index(c[1].lower())) for c in m.groups())
            if a != b:
                out.append(combo_index(a, b))
    return out


def with_board(weights: np.ndarray, board) -> tuple[np.ndarray, int]:
    """The range with every combo that holds a board card set to 0, and how many combos of
    weight above 0 that removed."""
    out = np.array(weights, dtype=np.float64, copy=True)
    cards = np.asarray(list(board), dtype=np.int64)
    meets = np.isin(COMBOS[:, 0], cards) | np.isin(COMBOS[:, 1], cards)
    lost = int(np.count_nonzero(out[meets] > 0))
    out[meets] = 0.0
    return out, lost


def num_combos(weights: np.ndarray) -> float:
    """The weighted number of combos (AA at 0.5 counts 3)."""
    return float(np.sum(weights))


# -- writing a range back ----------------------------------------------------------------------
def _weight_text(w: float) -> str:
    return "" if w == 1.0 else ":" + repr(float(w))


def format_range(weights) -> str:
    """A weight vector in compact notation (module docstring); ``""`` when it is empty.
    Whole hand classes of one weight become runs (``QQ+``, ``ATs+``, ``A5s-A2s``), suited and
    offsuit of one weight one class (``AK``), anything else its combos (``AhKh:0.5``)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (NUM_COMBOS,):
        raise CfrlabError(f"a range has {NUM_COMBOS} weights, got shape {w.shape}")
    out: list[str] = []
    pairs = [_uniform(w, _class_combos(r, r, "")) for r in range(13)]
    out += _runs(pairs, 13, lambda a, b: f"{RANKS[a] * 2}-{RANKS[b] * 2}", lambda a: RANKS[a] * 2)
    loose: list[str] = []
    loose += _loose(w, pairs, [(r, r, "") for r in range(13)])
    for high in reversed(range(1, 13)):
        for kind in ("", "s", "o"):
            cls = [_kind_weight(w, high, k, kind) for k in range(high)]
            name = RANKS[high]
            out += _runs(cls, high, lambda a, b, n=name, s=kind: f"{n}{RANKS[a]}{s}-{n}{RANKS[b]}{s}",
                         lambda a, n=name, s=kind: f"{n}{RANKS[a]}{s}")
        for kind in ("s", "o"):
            cls = [_uniform(w, _class_combos(high, k, kind)) for k in range(high)]
            loose += _loose(w, cls, [(high, k, kind) for k in range(high)])
    return ", ".join(out + loose)


def _uniform(w: np.ndarray, combos: list[int]) -> float | None:
    """The one weight every combo of a class has (None if they differ; 0 for none)."""
    vals = w[combos]
    return float(vals[0]) if np.all(vals == vals[0]) else None


def _kind_weight(w: np.ndarray, high: int, low: int, kind: str) -> float | None:
    """A class's weight as written with ``kind``: both halves of one weight for "" (AK), a
    half alone when the other half differs."""
    s = _uniform(w, _class_combos(high, low, "s"))
    o = _uniform(w, _class_combos(high, low, "o"))
    if kind == "":
        return s if s is not None and s == o else None
    mine, other = (s, o) if kind == "s" else (o, s)
    return mine if mine is not None and mine != other else None


def _runs(cls: list[float | None], top: int, dash, single) -> list[str]:
    """Entries for maximal runs of equal, positive class weights over ranks 0..top-1: a run
    ending at top-1 is ``X+``, a longer one ``hi-lo``, a lone one its class."""
    out = []
    k = top - 1
    while k >= 0:
        v = cls[k]
        if not v:
            k -= 1
            continue
        j = k
        while j - 1 >= 0 and cls[j - 1] == v:
            j -= 1
        if k == top - 1 and j < k:
            out.append(single(j) + "+" + _weight_text(v))
        elif j < k:
            out.append(dash(k, j) + _weight_text(v))
        else:
            out.append(single(k) + _weight_text(v))
        k = j - 1
    return out


def _loose(w: np.ndarray, cls: list[float | None], keys) -> list[str]:
    """Combo entries for the classes whose combos differ in weight."""
    out = []
    for v, (high, low, kind) in zip(cls, keys):
        if v is None:
            out += [combo_text(c) + _weight_text(w[c]) for c in _class_combos(high, low, kind) if w[c] > 0]
    return out


def format_range_gtoplus(weights, decimals: int = 2) -> str:
    """A weight vector in GTO+'s notation: the combos of each weight (in percent, rounded to
    ``decimals``) as one ``[w]...[/w]`` block (none at 100%), written as ``format_range``
    writes them; ``parse_range`` reads it back to those rounded weights."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (NUM_COMBOS,):
        raise CfrlabError(f"a range has {NUM_COMBOS} weights, got shape {w.shape}")
    pct = np.round(w * 100.0, decimals)
    parts = []
    for p in sorted({float(x) for x in pct[pct > 0]}, reverse=True):
        body = format_range((pct == p).astype(np.float64))
        parts.append(body if p == 100.0 else f"[{p:g}]{body}[/{p:g}]")
    return ", ".join(parts)
