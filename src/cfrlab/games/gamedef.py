"""ACPC game definitions: the ``GameDef`` value, and ``.game`` text parsing and writing.

Parsing follows the ACPC server's ``readGame``: keywords are case-insensitive prefixes at
column 0, ``=`` is whitespace, ``#`` lines are comments, a repeated keyword overwrites, and
parsing stops at ``END GAMEDEF``. Two things readGame lets pass are refused, in one line: a
line that is no keyword (readGame skips it, so a misspelt ``raiseSzie`` would load another
game; the message names the nearest keyword), and a number outside the 32-bit range the
server keeps (it would wrap). Writing follows ``printGame`` (``firstPlayer`` left out when
every value is 1, ``stack`` / ``maxRaises`` left out when they are the defaults).
"""

from __future__ import annotations

import difflib
import enum
import re
from dataclasses import dataclass, field
from math import comb

from cfrlab.cards import cards_text, deck
from cfrlab.errors import CfrlabError, ParseError, one_line, printable
from cfrlab.games.texts import BUILTIN_TEXTS, builtin_text

INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)
UNLIMITED_RAISES = 255
MAX_STANDARD_RANKS = 13
MAX_EXTENDED_RANKS = 1000  # cfrlab's kuhn-N extension (e.g. the tutorial's 100-card Kuhn)
SHOWN_CHARS = 80  # characters of an offending input line quoted in an error message
# readGame reads numbers with sscanf("%d"): ASCII digits after an optional sign, between ASCII
# blanks; int() would also take "1_0" (the server reads 1) and other scripts' digits
_ACPC_INT = re.compile(r"[+-]?[0-9]+")
_ACPC_BLANKS = re.compile(r"[ \t\n\r\v\f=]+")


def shown_input(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` quoted for an error message: control characters escaped (repr), at most
    ``limit`` characters of it, then "..." (a bad 20 MB line is not echoed whole)."""
    return repr(text if len(text) <= limit else text[:limit]) + ("..." if len(text) > limit else "")


class BettingType(str, enum.Enum):
    LIMIT = "limit"
    NOLIMIT = "nolimit"


@dataclass(frozen=True)
class GameDef:
    """Every field of an ACPC game definition. Lists are per position or per round;
    ``first_player`` is 0-based here (the file is 1-based)."""

    betting_type: BettingType
    num_players: int
    num_rounds: int
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]
    stack: tuple[int, ...] = field(default=())
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.stack:
            object.__setattr__(self, "stack", (INT32_MAX,) * self.num_players)
        if not self.name.isprintable():  # a name from a file header reaches terminals and logs
            object.__setattr__(self, "name", printable(self.name))
        validate(self)

    # -- derived facts -------------------------------------------------------------------
    @property
    def is_limit(self) -> bool:
        return self.betting_type is BettingType.LIMIT

    @property
    def deck_size(self) -> int:
        return self.num_suits * self.num_ranks

    def total_board_cards(self, round_: int | None = None) -> int:
        """Board cards revealed up to and including `round_` (all rounds when None)."""
        end = self.num_rounds if round_ is None else round_ + 1
        return sum(self.num_board_cards[:end])

    @property
    def num_deals(self) -> int:
        """Number of distinct ordered deals (hole cards per position, then board per round)."""
        n, total = self.deck_size, 1
        for _ in range(self.num_players):
            total *= comb(n, self.num_hole_cards)
            n -= self.num_hole_cards
        for b in self.num_board_cards[: self.num_rounds]:
            total *= comb(n, b)
            n -= b
        return total

    @property
    def big_blind(self) -> int:
        return max(self.blind)

    def to_text(self) -> str:
        return write_game(self)

    def summary(self) -> str:
        d = deck(self.num_ranks, self.num_suits)
        deck_s = cards_text(d) if len(d) <= 16 else f"{len(d)} cards ({self.num_ranks} ranks x {self.num_suits} suits)"
        if self.is_limit:
            caps = "/".join("inf" if m == UNLIMITED_RAISES else str(m) for m in self.max_raises[: self.num_rounds])
            betting = f"limit, raise sizes {list(self.raise_size[: self.num_rounds])}, raise caps {caps}"
        else:
            betting = f"no-limit, stacks {list(self.stack)}"
        return (
            f"{self.num_players} players, {self.num_rounds} round(s); blinds {list(self.blind)}; {betting}; "
            f"{self.num_hole_cards} hole card(s), board {list(self.num_board_cards[: self.num_rounds])}; deck {deck_s}"
        )


def shown_int(v: int) -> str:
    """An integer for an error message: as it is, or its size when it is too long to print
    (``str`` refuses more than 4,300 digits, and a message is one short line)."""
    if -(10**30) < v < 10**30:
        return str(v)
    return f"a {'negative ' if v < 0 else ''}number of about {int(abs(v).bit_length() * 0.30103) + 1:,} digits"


def validate(g: GameDef) -> None:
    def bad(msg: str) -> None:
        raise ParseError(f"invalid game definition: {msg}")

    for key in ("blind", "raise_size", "first_player", "max_raises", "num_board_cards", "stack"):
        values = getattr(g, key)
        # the ACPC server keeps chips in int32 (and counts in uint8: the checks below)
        if any(not INT32_MIN <= v <= INT32_MAX for v in values):
            worst = max(values, key=abs)
            bound = f"at most {INT32_MAX}" if worst > 0 else f"at least {INT32_MIN}"
            bad(f"{_file_key(key)} values must be {bound}, got {shown_int(worst)}")
    if not 2 <= g.num_players <= 10:
        bad(f"numPlayers must be 2..10, got {shown_int(g.num_players)}")
    if not 1 <= g.num_rounds <= 4:
        bad(f"numRounds must be 1..4, got {shown_int(g.num_rounds)}")
    if len(g.blind) < g.num_players:
        bad(f"blind needs {g.num_players} values, got {len(g.blind)}")
    if len(g.stack) < g.num_players:
        bad(f"stack needs {g.num_players} values, got {len(g.stack)}")
    if g.is_limit and len(g.raise_size) < g.num_rounds:
        bad(f"a limit game needs raiseSize for each of {g.num_rounds} rounds")
    if len(g.first_player) < g.num_rounds:
        bad("firstPlayer needs one value per round")
    if any(not 0 <= p < g.num_players for p in g.first_player[: g.num_rounds]):
        bad(f"firstPlayer values must be 1..{g.num_players}")
    if len(g.max_raises) < g.num_rounds:
        bad("maxRaises needs one value per round")
    if len(g.num_board_cards) < g.num_rounds:
        bad("numBoardCards needs one value per round")
    if not 1 <= g.num_suits <= 4:
        bad(f"numSuits must be 1..4, got {shown_int(g.num_suits)}")
    if not 1 <= g.num_ranks <= MAX_EXTENDED_RANKS:
        bad(f"numRanks must be 1..13 (or up to {MAX_EXTENDED_RANKS} in cfrlab's extension), got {shown_int(g.num_ranks)}")
    if not 1 <= g.num_hole_cards <= 3:
        bad(f"numHoleCards must be 1..3, got {shown_int(g.num_hole_cards)}")
    if g.num_hole_cards + sum(g.num_board_cards[: g.num_rounds]) > 7:
        bad("a showdown hand (hole cards plus the whole board) has at most 7 cards in cfrlab, "
            f"this game's has {g.num_hole_cards + sum(g.num_board_cards[: g.num_rounds])}")
    if g.num_ranks > MAX_STANDARD_RANKS and g.num_hole_cards + sum(g.num_board_cards[: g.num_rounds]) > 1:
        bad(f"more than {MAX_STANDARD_RANKS} ranks works only for one-card hands (kuhn-N: one hole card, no board); "
            f"this game has {g.num_ranks} ranks")
    if any(b < 0 for b in g.num_board_cards) or sum(g.num_board_cards[: g.num_rounds]) > 7:
        bad("numBoardCards must be >= 0 and add up to at most 7")
    need = g.num_hole_cards * g.num_players + sum(g.num_board_cards[: g.num_rounds])
    if need > g.num_suits * g.num_ranks:
        bad(f"the deck has {g.num_suits * g.num_ranks} cards but a deal needs {need}")
    for p in range(g.num_players):
        if g.blind[p] < 0 or g.blind[p] > g.stack[p]:
            bad(f"blind {g.blind[p]} of position {p + 1} must be between 0 and its stack {g.stack[p]}")
    if g.is_limit and any(r <= 0 for r in g.raise_size[: g.num_rounds]):
        bad("raiseSize values must be positive")
    if any(not 0 <= m <= UNLIMITED_RAISES for m in g.max_raises[: g.num_rounds]):
        bad(f"maxRaises values must be 0..{UNLIMITED_RAISES} ({UNLIMITED_RAISES} = no cap)")


_KEYWORDS = [
    # (keyword as printGame writes it, attribute); matched case-insensitively as a prefix,
    # longest first so that e.g. 'numBoardCards' is not read as 'numB..'
    ("numBoardCards", "num_board_cards"),
    ("numHoleCards", "num_hole_cards"),
    ("numPlayers", "num_players"),
    ("numRounds", "num_rounds"),
    ("numSuits", "num_suits"),
    ("numRanks", "num_ranks"),
    ("raiseSize", "raise_size"),
    ("firstPlayer", "first_player"),
    ("maxRaises", "max_raises"),
    ("stack", "stack"),
    ("blind", "blind"),
]
# every line readGame reads besides comments and blank lines (ACPC.md, section 1.2)
_TAGS = ("GAMEDEF", "END GAMEDEF", "limit", "nolimit")
VALID_KEYWORDS = _TAGS + tuple(kw for kw, _ in _KEYWORDS)
_SCALARS = {"num_players", "num_rounds", "num_suits", "num_ranks", "num_hole_cards"}


def parse_game(text: str, name: str = "") -> GameDef:
    """Parse ACPC ``.game`` text. Raises ParseError with the offending line on bad input."""
    vals: dict[str, tuple[int, ...]] = {}
    betting = BettingType.LIMIT
    saw_end = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        low = line.lower()
        if low.startswith("end gamedef"):
            saw_end = True
            break
        if low.startswith("gamedef"):
            continue
        if low.startswith("nolimit"):
            betting = BettingType.NOLIMIT
            continue
        if low.startswith("limit"):
            betting = BettingType.LIMIT
            continue
        for kw, attr in _KEYWORDS:
            if low.startswith(kw.lower()):
                vals[attr] = _values(line, kw, lineno)
                break
        else:
            raise ParseError(_unknown_line(line, lineno))
    del saw_end  # readGame accepts a file without END GAMEDEF (and ignores what follows it)
    for attr in ("num_players", "num_rounds", "num_suits", "num_ranks", "num_hole_cards"):
        if attr not in vals:
            raise ParseError(f"game definition lacks {_file_key(attr)}")
    if "blind" not in vals:
        raise ParseError("game definition lacks blind")
    if "num_board_cards" not in vals:
        raise ParseError("game definition lacks numBoardCards")
    nr = vals["num_rounds"][0]
    np_ = vals["num_players"][0]
    if betting is BettingType.LIMIT and "raise_size" not in vals:
        raise ParseError("a limit game definition needs raiseSize")
    g = GameDef(
        betting_type=betting,
        num_players=np_,
        num_rounds=nr,
        blind=vals["blind"],
        raise_size=vals.get("raise_size", ()),
        first_player=tuple(p - 1 for p in vals.get("first_player", (1,) * nr)),
        max_raises=vals.get("max_raises", (UNLIMITED_RAISES,) * nr),
        num_suits=vals["num_suits"][0],
        num_ranks=vals["num_ranks"][0],
        num_hole_cards=vals["num_hole_cards"][0],
        num_board_cards=vals["num_board_cards"],
        stack=vals.get("stack", ()),
        name=name,
    )
    return _trimmed(g)


def _values(line: str, kw: str, lineno: int) -> tuple[int, ...]:
    """The integers after keyword ``kw`` on ``line``: ASCII digits as ``sscanf("%d")`` reads
    them, each in the 32-bit range the ACPC server keeps (a longer number is refused before
    ``int()`` reads it: Python refuses more than 4,300 digits, and the server would wrap it)."""
    rest = [x for x in _ACPC_BLANKS.split(line[len(kw):]) if x]
    if not all(_ACPC_INT.fullmatch(x) for x in rest):
        raise ParseError(f"line {lineno}: {kw} expects integers (ASCII digits), got {shown_input(line.strip())}")
    if not rest:
        raise ParseError(f"line {lineno}: {kw} has no values")
    out = []
    for x in rest:
        digits = x.lstrip("+-").lstrip("0") or "0"
        v = int(digits) * (-1 if x.startswith("-") else 1) if len(digits) <= 10 else None
        if v is None or not INT32_MIN <= v <= INT32_MAX:
            bound = f"at least {INT32_MIN}" if x.startswith("-") else f"at most {INT32_MAX}"
            raise ParseError(f"line {lineno}: {kw} values must be {bound} (32-bit integers), "
                             f"got {shown_input(x, 20)}")
        out.append(v)
    return tuple(out)


def _unknown_line(line: str, lineno: int) -> str:
    """Why a line that is no keyword is refused (readGame skips it silently, so a misspelt
    keyword would give another game): the nearest keyword, or that keywords start a line."""
    stripped = line.strip()
    if line[:1].isspace() and any(stripped.lower().startswith(k.lower()) for k in VALID_KEYWORDS):
        return (f"line {lineno}: a keyword starts in the first column (the ACPC server skips an indented "
                f"line): {shown_input(line)}")
    word = stripped.split("=")[0].split()[0] if stripped.split("=")[0].strip() else stripped
    spelt = {k.lower(): k for k in VALID_KEYWORDS}
    near = difflib.get_close_matches(word.lower(), list(spelt), n=1, cutoff=0.6)
    hint = f"did you mean {spelt[near[0]]}?" if near else f"keywords: {', '.join(VALID_KEYWORDS)}; # starts a comment"
    return f"line {lineno}: unknown keyword {shown_input(word, 40)} ({hint}): {shown_input(line)}"


def game_of_header(path, header: dict, what: str) -> GameDef:
    """The game a file's header records (``game``: its definition's text; ``game_name``); a
    definition that does not parse, or a name of a built-in game on another game's definition
    (a Leduc strategy labelled ``kuhn``), is refused in one line naming ``path`` and the
    ``what`` file."""
    try:
        g = parse_game(header["game"], name=header.get("game_name") or "")
    except ParseError as e:
        raise CfrlabError(one_line(f"{path}: corrupt {what} header (game definition: {e})")) from None
    if g.name and not _is_named(g):
        actual = next((n for n, t in BUILTIN_TEXTS.items() if _same_game(t, g)), None)
        which = f"is {actual}'s" if actual else f"is another game ({g.summary()})"
        raise CfrlabError(one_line(f"{path}: corrupt {what} header (it names its game {printable(g.name, 40)}, "
                                   f"but its game definition {which})"))
    return g


def _same_game(text: str, g: GameDef) -> bool:
    try:
        return parse_game(text) == g  # equality leaves the name out
    except ParseError:
        return False


def _is_named(g: GameDef) -> bool:
    """False when ``g.name`` is a built-in game's name and ``g`` is not that game."""
    text = builtin_text(g.name)
    return text is None or _same_game(text, g)


def _trimmed(g: GameDef) -> GameDef:
    """Keep exactly one value per round / per position, so equal games compare equal."""
    from dataclasses import replace

    nr, np_ = g.num_rounds, g.num_players
    return replace(
        g,
        blind=g.blind[:np_],
        stack=g.stack[:np_],
        raise_size=g.raise_size[:nr] if g.is_limit else (),
        first_player=g.first_player[:nr],
        max_raises=g.max_raises[:nr],
        num_board_cards=g.num_board_cards[:nr],
    )


def _file_key(attr: str) -> str:
    return next((kw for kw, a in _KEYWORDS if a == attr), attr)


def write_game(g: GameDef) -> str:
    """ACPC ``printGame`` format; ``parse_game(write_game(g)) == g``."""
    nr, np_ = g.num_rounds, g.num_players

    def join(xs) -> str:
        return " ".join(str(int(x)) for x in xs)

    lines = ["GAMEDEF", g.betting_type.value, f"numPlayers = {np_}", f"numRounds = {nr}"]
    if any(s < INT32_MAX for s in g.stack[:np_]):
        lines.append(f"stack = {join(g.stack[:np_])}")
    lines.append(f"blind = {join(g.blind[:np_])}")
    if g.is_limit:
        lines.append(f"raiseSize = {join(g.raise_size[:nr])}")
    if any(p != 0 for p in g.first_player[:nr]):
        lines.append(f"firstPlayer = {join(p + 1 for p in g.first_player[:nr])}")
    if any(m != UNLIMITED_RAISES for m in g.max_raises[:nr]):
        lines.append(f"maxRaises = {join(g.max_raises[:nr])}")
    lines += [
        f"numSuits = {g.num_suits}",
        f"numRanks = {g.num_ranks}",
        f"numHoleCards = {g.num_hole_cards}",
        f"numBoardCards = {join(g.num_board_cards[:nr])}",
        "END GAMEDEF",
    ]
    return "\n".join(lines) + "\n"
