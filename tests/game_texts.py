"""ACPC game definitions for the tests' small custom games, written from a few numbers."""

from __future__ import annotations


def limit_text(*, rounds: int = 2, blind: str = "2 1", raise_size: str = "2 4", first: str = "2 1",
               max_raises: str = "2 2", suits: int = 2, ranks: int = 3, hole: int = 1,
               boards: str = "0 2", players: int = 2) -> str:
    """A limit game's ``.game`` text; the defaults are the tests' tiny two-round hold'em."""
    return f"""GAMEDEF
limit
numPlayers = {players}
numRounds = {rounds}
blind = {blind}
raiseSize = {raise_size}
firstPlayer = {first}
maxRaises = {max_raises}
numSuits = {suits}
numRanks = {ranks}
numHoleCards = {hole}
numBoardCards = {boards}
END GAMEDEF
"""


def holdem_text(ranks: int, suits: int, boards: str = "0 3 1 1", raises: str | None = None) -> str:
    """Hold'em betting (blinds 2/1, raise 2, reverse first player) on a reduced deck."""
    n = len(boards.split())
    return limit_text(rounds=n, raise_size=" ".join(["2"] * n), first=" ".join(["2"] + ["1"] * (n - 1)),
                      max_raises=raises or " ".join(["3"] * n), suits=suits, ranks=ranks, hole=2,
                      boards=boards)


TINY_HOLDEM = limit_text()  # 6 cards, one hole card, a two-card board
THREE_ROUNDS = limit_text(rounds=3, blind="1 1", raise_size="1 2 2", first="1 1 1", max_raises="1 1 1",
                          ranks=4, hole=2, boards="0 2 1")
