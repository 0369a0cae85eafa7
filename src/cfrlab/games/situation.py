"""Readable situations: the cards one player sees, in ACPC match-state notation.

``cards`` is the ACPC ``<cards>`` field as the acting player sees it: hole cards by position
separated by ``|``, then ``/`` and each round's board cards: ``"Ks|/Kh"`` (position 0 holds Ks,
board Kh), ``"|Qs/Kh"`` (position 1 holds Qs). Without ``|`` the hole cards are the acting
player's: Kuhn ``"Ks"``, Leduc ``"Ks/Kh"``: the canonical form, the one cfrlab prints
(``strategy show``, ``Strategy.infosets``). After round 0 ``"Ks|Kh"`` (hole ``|`` board, what
cfrlab printed before) is accepted too.
"""

from __future__ import annotations

from cfrlab.cards import card_text, deck, parse_cards
from cfrlab.errors import CfrlabError, ParseError
from cfrlab.games.gamedef import GameDef


def parse_situation_cards(game: GameDef, cards: str, actor: int, rnd: int = 0) -> tuple[list[int], list[int]]:
    """(hole cards of ``actor``, board cards) from ``"Ks/Kh"`` (canonical), ``"Ks|/Kh"``,
    ``"|Qs/Kh"``, or (after round 0) the older ``"Ks|Kh"`` labels."""
    text = cards.strip()
    hole_part, _, board_part = text.partition("/")
    fields = hole_part.split("|")
    if len(fields) == 2 and "/" not in text and rnd > 0 and game.num_players == 2:
        # the older labels' "hole|board", unambiguous after round 0
        hole_txt, board_part = fields
    elif len(fields) > 1:
        if len(fields) != game.num_players:
            raise CfrlabError(f"{cards!r}: expected {game.num_players} hole-card fields separated by '|'")
        hole_txt = fields[actor]
        if not hole_txt.strip():
            shown = [i for i, f in enumerate(fields) if f.strip()]
            who = f"position {shown[0]}'s" if shown else "no"
            raise CfrlabError(f"{cards!r} shows {who} hole cards, but position {actor} acts here")
    else:
        hole_txt = hole_part
    try:
        hole = parse_cards(hole_txt)
        board = parse_cards(board_part.replace("/", ""))
    except ParseError as e:
        raise CfrlabError(str(e)) from None
    if len(hole) != game.num_hole_cards:
        raise CfrlabError(f"{cards!r}: a player holds {game.num_hole_cards} card(s) in "
                          f"{(game.name or 'a custom game')}, got {len(hole)}")
    in_deck = set(deck(game.num_ranks, game.num_suits))
    for c in hole + board:
        if c not in in_deck:
            raise CfrlabError(f"{card_text(c)} is not in the deck of {(game.name or 'a custom game')}")
    if len(set(hole + board)) != len(hole + board):
        raise CfrlabError(f"{cards!r}: a card appears twice")
    return hole, board


# -- actions -------------------------------------------------------------------------------

ACTIONS = ("f", "c", "r")  # the action ids everywhere in cfrlab's API: ACPC's letters
_WORDS_FACING = ("fold", "call", "raise")
_WORDS_FREE = ("fold", "check", "bet")


def action_word(action: str | int, facing_bet: bool) -> str:
    """The word for an ACPC action letter (or column 0 / 1 / 2) as a player says it: ``c`` is
    "call" facing a bet and "check" otherwise, ``r`` is "raise" or "bet"."""
    a = ACTIONS.index(action) if isinstance(action, str) else int(action)
    return (_WORDS_FACING if facing_bet else _WORDS_FREE)[a]

