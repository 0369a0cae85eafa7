"""The ACPC texts of the built-in games, by name (data only: ``gamedef`` checks a file header's
game name against them, ``builtins`` loads them)."""

from __future__ import annotations

import re

MAX_KUHN_DIGITS = 9  # kuhn-N: a longer N is no game (int() would refuse past 4,300 digits)

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


def builtin_text(name: str) -> str | None:
    """The text of the built-in game ``name`` (``kuhn-N`` for any N), or None."""
    key = name.lower()
    if key in BUILTIN_TEXTS:
        return BUILTIN_TEXTS[key]
    m = re.fullmatch(r"kuhn-([0-9]+)", key)  # ASCII digits only (int() takes any script)
    if m and len(m.group(1).lstrip("0")) <= MAX_KUHN_DIGITS:
        return kuhn_text(int(m.group(1)))
    return None
