"""The deal of the round in play: positions, cards read, dealer's cards, the deck's inventory."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Struct

from controller.game.round import deal_positions, position_name


class Position(Struct, array_like=True, frozen=True):
    """A deal position (snapshot form ``[seat, card_no]``): seat 0 the dealer, -1 a burn."""

    seat: int
    number: int


class DealEntry(Struct, array_like=True, frozen=True):
    """A card read this round (``[card, where, manual, seq, dealt]``; not ``dealt``: set aside)."""

    card: str | None
    where: str
    manual: bool
    seq: int | None
    dealt: bool

    def line(self) -> list[Any]:
        """The game recall form: ``[card, where, manual]``."""
        return [self.card, self.where, self.manual]


class Deal:
    """The deal of the round in play (mutable; owned by the table thread)."""

    def __init__(self) -> None:
        self.positions: list[Position] = []
        self.index = 0
        self.entries: list[DealEntry] = []
        self.dealer_cards: list[str | None] = []
        self.seen: set[str] = set()
        self.blocked: str | None = None

    def open(self, seats: list[int], pattern: str, burns: int) -> None:
        """Lay out the positions of a deal to ``seats`` (no more bets)."""
        self.positions = [Position(s, n) for s, n in deal_positions(seats, pattern, burns)]

    def reset(self, new_deck: bool) -> None:
        """Clear the deal for the next round (``new_deck``: forget the inventory too)."""
        self.positions, self.index, self.entries, self.dealer_cards = [], 0, [], []
        if new_deck:
            self.seen = set()

    @property
    def complete(self) -> bool:
        """Every position is filled."""
        return self.index == len(self.positions)

    @property
    def next(self) -> Position | None:
        """The next position to fill, or None."""
        return None if self.complete else self.positions[self.index]

    def problem(self, card: str | None) -> str | None:
        """``unknown_card`` or ``duplicate_card`` when ``card`` cannot be in this deck."""
        if card is None:
            return "unknown_card"
        if card in self.seen:
            return "duplicate_card"
        return None

    def take(self, card: str | None, manual: bool, seq: int | None) -> Position:
        """Fill the next position with ``card`` (None: an unreadable burn); returns it."""
        pos = self.positions[self.index]
        self.index += 1
        if card is not None:
            self.seen.add(card)
        self.entries.append(DealEntry(card, position_name(pos.seat), manual, seq, True))
        if pos.seat == 0:
            self.dealer_cards.append(card)
        return pos

    def set_aside(self, card: str | None, where: str, seq: int | None,
                  seen: bool = True) -> DealEntry:
        """Record a card read but not dealt (``seen``: it counts in the deck's inventory)."""
        if card is not None and seen:
            self.seen.add(card)
        entry = DealEntry(card, where, False, seq, False)
        self.entries.append(entry)
        return entry

    def undo(self) -> Position:
        """Empty the last filled position (the caller takes the card back from its seat)."""
        self.index -= 1
        pos = self.positions[self.index]
        if pos.seat == 0:
            self.dealer_cards.pop()
        return pos

    def pop_last(self) -> DealEntry:
        """Forget the last card read (a retract), and take it out of the inventory."""
        last = self.entries.pop()
        if last.card is not None:
            self.seen.discard(last.card)
        return last

    def burn_last(self) -> None:
        """The last card read is burned after all (an exposed card, policy ``burn``)."""
        self.entries[-1] = msgspec.structs.replace(self.entries[-1], where="burn", dealt=False)

    def snapshot(self) -> dict[str, Any]:
        """The snapshot's keys for the deal (JSON-ready)."""
        return {"positions": msgspec.to_builtins(self.positions), "deal_index": self.index,
                "deal": msgspec.to_builtins(self.entries),
                "dealer_cards": list(self.dealer_cards), "seen": sorted(self.seen),
                "deck_blocked": self.blocked}

    @classmethod
    def from_snapshot(cls, d: dict[str, Any]) -> Deal:
        """Inverse of :meth:`snapshot` (reads every snapshot written before)."""
        deal = cls()
        deal.positions = msgspec.convert(d["positions"], list[Position])
        deal.index = d["deal_index"]
        deal.entries = msgspec.convert(d["deal"], list[DealEntry])
        deal.dealer_cards = list(d["dealer_cards"])
        deal.seen = set(d["seen"])
        deal.blocked = d["deck_blocked"]
        return deal
