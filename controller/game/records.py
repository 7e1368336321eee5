"""Round records: what game recall shows of a round (docs/requirements.md R5).

A :class:`RoundRecord` is complete (the dealer's cards included); the journal keeps one per
finished round in its ``rounds`` table, as JSON (:meth:`RoundRecord.to_dict`), and
:class:`Recall` keeps the newest ones in memory for the views. The JSON shape is the one
journals have always stored, so records stored before compare equal to a replay.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import Struct


class DealLine(Struct, array_like=True, frozen=True):
    """A card of the round's deal (JSON form: ``[card, where, manual]``)."""

    card: str | None
    where: str
    manual: bool


class BetRecord(Struct, frozen=True):
    """One bet's result as recorded (minor units)."""

    outcome: str
    net: int
    stake: int
    multiple: int


class SeatRecord(Struct, frozen=True):
    """One seat's part of a recorded round."""

    seat: int
    cards: list[str | None]
    bets: dict[str, int]
    decision: str | None
    hand: str | None
    six_card_hand: str | None
    results: dict[str, BetRecord]
    net: int | None


class RoundRecord(Struct, frozen=True):
    """A round as game recall shows it.

    Attributes:
        round_id: the round number.
        status: ``settled``, ``void`` or ``in_progress``.
        void_reason: why it was voided, else None.
        started_utc / ended_utc: ISO 8601 UTC times (ended None while in progress).
        state: the round's state value when recorded.
        deal: every card read, in order.
        dealer_cards: the dealer's cards.
        dealer_hand / dealer_qualifies: once revealed, else None.
        seats: the seats with a wager, in seat order.
    """

    round_id: int
    status: str
    void_reason: str | None
    started_utc: str
    ended_utc: str | None
    state: str
    deal: list[DealLine]
    dealer_cards: list[str | None]
    dealer_hand: str | None
    dealer_qualifies: bool | None
    seats: list[SeatRecord]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the journal stores."""
        return msgspec.to_builtins(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RoundRecord:
        """Inverse of :meth:`to_dict`."""
        return msgspec.convert(d, cls)


class Recall:
    """The newest round records, newest first (at most ``depth``)."""

    def __init__(self, depth: int, records: list[RoundRecord] = ()) -> None:
        self._q: deque[RoundRecord] = deque(records, maxlen=depth)

    @property
    def depth(self) -> int:
        """How many records are kept."""
        return self._q.maxlen or 0

    def resize(self, depth: int) -> None:
        """Keep ``depth`` records from now on."""
        if depth != self.depth:
            self._q = deque(self._q, maxlen=depth)

    def add(self, rec: RoundRecord) -> None:
        """Add the newest record."""
        self._q.appendleft(rec)

    def newest(self) -> RoundRecord | None:
        """The newest record, or None."""
        return self._q[0] if self._q else None

    def replace_newest(self, rec: RoundRecord) -> None:
        """Replace the newest record (a burn read between rounds joins its deal)."""
        self._q[0] = rec

    def __iter__(self) -> Iterator[RoundRecord]:
        return iter(self._q)

    def __len__(self) -> int:
        return len(self._q)

    def __bool__(self) -> bool:
        return bool(self._q)

    def snapshot(self) -> list[dict[str, Any]]:
        """The records as JSON, newest first."""
        return [r.to_dict() for r in self._q]
