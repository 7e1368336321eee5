"""Deck files: scripted deal orders for ``shoe-sim`` and ``simulate`` (docs/deck-file-format.md)."""

from __future__ import annotations

from controller.game.cards import CardError, parse_card


class DeckFileError(ValueError):
    """A deck file that cannot be used; the message names the flag, the file and the line."""


def read_deck_file(path: str, *, one_deck_per_line: bool = False,
                   flag: str = "--deck-file") -> list[list[str]]:
    """The cards of a deck file: canonical texts (``"Td"``) per line that holds cards.

    Args:
        path: the file (UTF-8 text).
        one_deck_per_line: refuse a line that names a card twice (``simulate``).
        flag: the option that named the file, for the messages.

    Raises:
        DeckFileError: unreadable or not UTF-8, not a card, a card repeated on a line,
            or no card at all.
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
