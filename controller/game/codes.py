"""Card codes as shoes send them, turned into the table's canonical card text.

Rank then suit (``10H``, ``qh``) or, where the dialect allows, suit then rank (``H3``): the
letters do not overlap, so no code reads both ways; anything else is unknown, never guessed.
"""

from __future__ import annotations

from controller.game.cards import CardError, parse_card

_SUIT_LETTERS = "CDHS"


def normalise_code(code: str, *, suit_first: bool = False) -> str | None:
    """Canonical text of a shoe's card code (``Qh``), or None; ``suit_first`` also reads ``H3``."""
    text = code.strip()
    if not text or len(text) > 3 or not text.isascii():
        return None
    try:
        return str(parse_card(text))
    except CardError:
        pass
    if suit_first and text[0].upper() in _SUIT_LETTERS and len(text) >= 2:
        try:
            return str(parse_card(text[1:] + text[0]))
        except CardError:
            return None
    return None
