"""Deck files: scripted deal orders for ``threecard shoe-sim`` and ``threecard simulate``.

One reader for both commands' ``--deck-file``, so a file means the same to each and a
bad one gets the same one-line error. The format::

    # round 1: seat 1, seat 2, dealer, three times
    As Kd 2c  9h 9d 4s  Qc Jc 3h
    10h Td 5s   # "10" and "T" are both ten; "#" starts a comment

Card texts (rank ``2``-``9``, ``T`` or ``10``, ``J``, ``Q``, ``K``, ``A``, then suit
``c``, ``d``, ``h``, ``s``) are separated by spaces or line breaks; blank lines and
comments are skipped. ``simulate`` reads each line as one round from one deck (a card
may not appear twice on a line); ``shoe-sim`` deals the cards in file order, several
packs one after another.
"""

from __future__ import annotations

from controller.game.cards import CardError, parse_card


class DeckFileError(ValueError):
    """A deck file that cannot be used; the message names the flag, the file and the line."""


def read_deck_file(path: str, *, one_deck_per_line: bool = False,
                   flag: str = "--deck-file") -> list[list[str]]:
    """The cards of a deck file, line by line.

    Args:
        path: the file (UTF-8 text).
        one_deck_per_line: refuse a line that names a card twice (a round dealt from one
            deck, as ``simulate`` reads it).
        flag: the option that named the file, for the messages.

    Returns:
        One list of canonical card texts (``"Td"``) per line that holds cards, in file
        order; at least one card in all.

    Raises:
        DeckFileError: the file cannot be read or is not UTF-8 text, a text is not a
            card, a line repeats a card (``one_deck_per_line``), or the file holds no
            card. For example ``--deck-file d.txt, line 1: not a card: 'Xx' (...)``.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise DeckFileError(f"{flag} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise DeckFileError(f"{flag} {path}: not UTF-8 text") from None
    lines: list[list[str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        cards: list[str] = []
        for item in line.split("#", 1)[0].split():
            try:
                card = str(parse_card(item))
            except CardError as exc:
                raise DeckFileError(f"{flag} {path}, line {number}: {exc}") from None
            if one_deck_per_line and card in cards:
                raise DeckFileError(f"{flag} {path}, line {number}: the same card twice: "
                                    f"{card} (a line is one round, from one deck)")
            cards.append(card)
        if cards:
            lines.append(cards)
    if not lines:
        raise DeckFileError(f"{flag} {path}: no card in it (only blank lines or comments)")
    return lines
