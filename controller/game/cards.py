"""Playing cards: ranks, suits, the deck, card text (``As``; ``AS``, ``10h`` read too)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

# Rank characters, low to high; rank value = index + 2 (ace = 14).
RANK_CHARS = "23456789TJQKA"
# Clubs, diamonds, hearts, spades: suits are never ranked.
SUITS = "cdhs"
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}


class CardError(ValueError):
    """A card text that is not one of the 52 cards, or an invalid card set (``text`` as given)."""

    def __init__(self, message: str, text: object = None) -> None:
        super().__init__(message)
        self.text = text


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One card of the 52: ``rank`` 2..14 (ace 14), ``suit`` one of ``c d h s``."""

    rank: int
    suit: str
    # Position 0..51 in the ordered deck: (rank - 2) * 4 + suit.
    index: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not (isinstance(self.rank, int) and 2 <= self.rank <= 14 and isinstance(self.suit, str)
                and len(self.suit) == 1 and self.suit in SUITS):
            raise CardError(f"not a card: rank {self.rank!r}, suit {self.suit!r}")
        object.__setattr__(self, "index", (self.rank - 2) * 4 + SUITS.index(self.suit))

    def __hash__(self) -> int:
        return self.index

    @property
    def rank_char(self) -> str:
        """The rank as one character: ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return RANK_CHARS[self.rank - 2]

    def __str__(self) -> str:
        return self.rank_char + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(2, 15) for s in SUITS)
_BY_TEXT: dict[str, Card] = {str(c).upper(): c for c in DECK}
_SPELLINGS: dict[object, Card] = {
    r + s: c
    for c in DECK
    for r in ({c.rank_char, c.rank_char.lower()} | ({"10"} if c.rank == 10 else set()))
    for s in (c.suit, c.suit.upper())
}
CARDS_BY_TEXT: Mapping[object, Card] = MappingProxyType(_SPELLINGS)


def parse_card(text: object) -> Card:
    """Parse one card, spaces around ignored; one shared instance per card (CardError names it)."""
    card = _SPELLINGS.get(text)  # type: ignore[arg-type]
    if card is not None:
        return card
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} (expected text such as 'As' or '10h')", text)
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    card = _BY_TEXT.get(t)
    if card is None:
        raise CardError(f"not a card: {text!r} (expected rank 2-9/T/10/J/Q/K/A then suit c/d/h/s)",
                        text)
    return card


def parse_cards(texts: str | Iterable[object], count: int | None = None) -> tuple[Card, ...]:
    """Parse distinct cards from ``"As Td 2c"`` or texts, exactly ``count`` unless None.

    Raises:
        CardError: not a card, a card twice, or the wrong count.
    """
    items = texts.split() if isinstance(texts, str) else list(texts)
    cards = tuple([parse_card(t) for t in items])
    if count is not None and len(cards) != count:
        raise CardError(f"expected {count} cards, got {len(cards)}: {items!r}", texts)
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"the same card twice: {c}", texts)
        seen.add(c)
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Canonical text of cards, space separated: ``As Td 2c``."""
    return " ".join(str(c) for c in cards)


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A full deck in an order drawn from ``rng`` (reproducible for a seeded rng)."""
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def ensure_distinct(cards: Sequence[Card]) -> None:
    """Raise :class:`CardError` if any card appears more than once in ``cards``."""
    if len(set(cards)) != len(cards):
        seen: set[Card] = set()
        for c in cards:
            if c in seen:
                raise CardError(f"the same card twice: {c}", format_cards(cards))
            seen.add(c)
