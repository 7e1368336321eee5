"""Card codes as shoes send them, turned into the table's canonical card text.

Accepted, case-insensitively:

* rank then suit: ``4S``, ``10H``, ``TH``, ``qh`` (every dialect);
* suit then rank: ``H3``, ``S10``, ``DT`` (only where the dialect allows it, i.e. ``beetek``).

Rank letters (``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``) and suit letters (``C``, ``D``,
``H``, ``S``) do not overlap, so a code can never be read both ways. Anything else,
including two-digit numeric ranks such as ``D12`` and deck indexes such as ``37``, is
*unknown*: :func:`normalise_code` returns None and the caller reports the raw code. No
mapping is ever guessed.
"""

from __future__ import annotations

from controller.game.cards import CardError, parse_card

_SUIT_LETTERS = "CDHS"


def normalise_code(code: str, *, suit_first: bool = False) -> str | None:
    """Canonical text of a card code, or None when the code is not one of the 52 cards.

    Args:
        code: the code exactly as the shoe sent it (surrounding spaces are ignored).
        suit_first: also accept suit-then-rank codes such as ``H3`` (beetek firmware).

    Returns:
        Canonical text such as ``Qh`` or ``Td``; None for an unknown code.
    """
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
