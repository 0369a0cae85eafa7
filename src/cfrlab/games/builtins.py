"""Built-in games (the ACPC game definitions of the competition's games) and ``load_game``."""

from __future__ import annotations

from pathlib import Path

from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.games.gamedef import GameDef, game_of_header, parse_game, shown_input
from cfrlab.games.texts import (  # noqa: F401  (the texts are data of their own; imported from here too)
    BUILTIN_TEXTS,
    HOLDEM_LIMIT,
    HOLDEM_NOLIMIT,
    KUHN_3P,
    KUHN_NOLIMIT,
    LEDUC,
    LEDUC_3P,
    LEDUC_NOLIMIT,
    builtin_text,
    kuhn_text,
)

BUILTIN_NAMES = tuple(BUILTIN_TEXTS) + ("kuhn-N",)
BUILTIN_HELP = {
    "kuhn": "Kuhn poker: 3 cards (Q K A), ante 1, one bet of 1",
    "kuhn-N": "Kuhn poker with N ranks (N > 13 is a cfrlab extension, e.g. kuhn-100)",
    "leduc": "Leduc hold'em: 6 cards, 2 rounds, bets 2 and 4, one board card",
    "holdem-limit": "heads-up limit Texas hold'em (ACPC, reverse blinds)",
    "holdem-nolimit": "heads-up no-limit Texas hold'em (ACPC, 200 big blinds)",
    "kuhn-nolimit": "no-limit Kuhn poker: 3 cards, antes 1, stacks 4 (bets of any size, solved in full)",
    "leduc-nolimit": "no-limit Leduc hold'em: 6 cards, 2 rounds, antes 1, stacks 7 (solved in full)",
    "kuhn-3p": "3-player Kuhn poker (ACPC)",
    "leduc-3p": "3-player Leduc hold'em as OpenSpiel's leduc_poker(players=3): 8 cards (J Q K A, 2 suits), "
                "antes 1, bets 2 and 4, at most 2 raises a round",
}


def builtin_game(name: str) -> GameDef:
    text = builtin_text(name)
    if text is None:
        raise CfrlabError(f"unknown game {shown_input(name)}; built-ins are {', '.join(BUILTIN_NAMES)}, "
                          "or give a .game file")
    return parse_game(text, name=name.lower())


def load_game(name_or_path: str | Path | GameDef) -> GameDef:
    """A built-in name (``kuhn``, ``kuhn-100``, ``leduc``, ``holdem-limit`` ...), a ``.game``
    path, or the text of an ACPC game definition (``GAMEDEF ... END GAMEDEF``)."""
    if isinstance(name_or_path, GameDef):
        return name_or_path
    s = str(name_or_path)
    if isinstance(name_or_path, str) and s.lstrip().upper().startswith("GAMEDEF"):
        return parse_game(s)
    if builtin_text(s) is not None:
        return builtin_game(s)
    p = Path(s)
    try:
        is_file = p.is_file()
    except (OSError, ValueError):  # a name too long for the file system
        is_file = False
    if is_file:
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise CfrlabError(f"{p}: cannot read game file ({e})") from None
        g = parse_game(text, name=p.stem)
        if builtin_text(p.stem) is not None and g != builtin_game(p.stem):
            g = parse_game(text, name=p.name)  # kuhn.game holding another game is not "kuhn"
        return g
    raise CfrlabError(f"unknown game {shown_input(s)}: not a built-in ({', '.join(BUILTIN_NAMES)}) and no such file")


def game_of_file(path, header: dict, what: str, game=None, *, holds: str | None = None) -> GameDef:
    """The game of the ``what`` file ``path`` as its header records it (``game_of_header``),
    checked against ``game`` (a GameDef, a built-in name or a .game file) when one is given:
    another game is refused in one line (``FileMismatchError``: "PATH is a WHAT for X, not for
    Y", or "PATH HOLDS for X, ..."); the same game keeps the caller's name when the file's
    definition has none."""
    g = game_of_header(path, header, what)
    if game is None:
        return g
    want = load_game(game)
    if want.to_text() != g.to_text():
        raise FileMismatchError(f"{path} {holds or f'is a {what}'} for {g.name or 'another game'}, "
                                f"not for {want.name or 'this game'}")
    return g if g.name else want
