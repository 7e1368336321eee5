"""Round records: what game recall shows (R5), in the JSON shape journals always stored."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import Struct

AMOUNTS = "amounts"


class DealLine(Struct, array_like=True, frozen=True):
    """A card of the round's deal (JSON form: ``[card, where, manual]``)."""

    card: str | None
    where: str
    manual: bool


class BetRecord(Struct, frozen=True, omit_defaults=True):
    """One bet's result (``line``: an outcome-mode win's paytable line, stored only then)."""

    outcome: str
    net: int
    stake: int
    multiple: int
    line: str = ""


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


class RoundRecord(Struct, frozen=True, omit_defaults=True):
    """A round as game recall shows it (``bet_entry`` stored only for ``outcomes``)."""

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
    bet_entry: str = AMOUNTS

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the journal stores (``bet_entry`` only for ``outcomes``)."""
        d = msgspec.to_builtins(self)
        if d.get("bet_entry") == AMOUNTS:  # omit_defaults compares text by identity
            del d["bet_entry"]
        return d

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
