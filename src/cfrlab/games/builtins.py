"""Built-in games (the ACPC game definitions of the competition's games) and ``load_game``."""

from __future__ import annotations

import re
from pathlib import Path

from cfrlab.errors import CfrlabError
from cfrlab.games.gamedef import GameDef, parse_game

HOLDEM_LIMIT = """GAMEDEF
limit
numPlayers = 2
numRounds = 4
blind = 10 5
raiseSize = 10 10 20 20
firstPlayer = 2 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""

HOLDEM_NOLIMIT = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 20000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""

LEDUC = """GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 1
raiseSize = 2 4
firstPlayer = 1 1
maxRaises = 2 2
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""

# no-limit Kuhn and Leduc with stacks small enough for every amount to be an action (the full
# no-limit tree: Kuhn 4 chips, 16 decisions; Leduc 7 chips, 592 decisions, as OpenSpiel's
# universal_poker with bettingAbstraction=fullgame)
KUHN_NOLIMIT = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 1
stack = 4 4
blind = 1 1
firstPlayer = 1
numSuits = 1
numRanks = 3
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""

LEDUC_NOLIMIT = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = 7 7
blind = 1 1
firstPlayer = 1 1
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""

KUHN_3P = """GAMEDEF
limit
numPlayers = 3
numRounds = 1
blind = 1 1 1
raiseSize = 1
firstPlayer = 1
maxRaises = 1
numSuits = 1
numRanks = 4
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""

# OpenSpiel's leduc_poker(players=3): its deck has 2 suits of players + 1 ranks (8 cards here,
# J Q K A: cfrlab's Jh Js Qh Qs Kh Ks Ah As), antes of 1, bets of 2 then 4, at most 2 raises a
# round, player 1 first in both rounds. The 2-player deck (6 cards) would also deal 3 players,
# but matching OpenSpiel lets its tools check ours (tests/test_multiplayer_openspiel.py).
LEDUC_3P = """GAMEDEF
limit
numPlayers = 3
numRounds = 2
blind = 1 1 1
raiseSize = 2 4
firstPlayer = 1 1
maxRaises = 2 2
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


def kuhn_text(num_ranks: int = 3) -> str:
    return f"""GAMEDEF
limit
numPlayers = 2
numRounds = 1
blind = 1 1
raiseSize = 1
firstPlayer = 1
maxRaises = 1
numSuits = 1
numRanks = {num_ranks}
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""


BUILTIN_TEXTS = {
    "kuhn": kuhn_text(3),
    "leduc": LEDUC,
    "holdem-limit": HOLDEM_LIMIT,
    "holdem-nolimit": HOLDEM_NOLIMIT,
    "kuhn-nolimit": KUHN_NOLIMIT,
    "leduc-nolimit": LEDUC_NOLIMIT,
    "kuhn-3p": KUHN_3P,
    "leduc-3p": LEDUC_3P,
}
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


def builtin_text(name: str) -> str | None:
    key = name.lower()
    if key in BUILTIN_TEXTS:
        return BUILTIN_TEXTS[key]
    m = re.fullmatch(r"kuhn-([0-9]+)", key)  # ASCII digits only (int() takes any script)
    if m:
        return kuhn_text(int(m.group(1)))
    return None


def builtin_game(name: str) -> GameDef:
    text = builtin_text(name)
    if text is None:
        raise CfrlabError(f"unknown game {name!r}; built-ins are {', '.join(BUILTIN_NAMES)}, or give a .game file")
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
    if p.is_file():
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise CfrlabError(f"{p}: cannot read game file ({e})") from None
        g = parse_game(text, name=p.stem)
        return g
    raise CfrlabError(f"unknown game {s!r}: not a built-in ({', '.join(BUILTIN_NAMES)}) and no such file")
