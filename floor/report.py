"""Reading the floor: one line a table (``threecard floor status``).

Each line: whether the table is online (its retained ``status``, the last will saying
``offline`` for a table that vanished), its newest round on the floor and when it ended,
the rounds of the last hour, the hold (the house's win over the amount wagered, from the
table's meters: won minus paid, over wagered) and the alarms it shows now; and, when the
floor lacks rounds of the table's newest journal or its chain is broken, what.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from floor.store import SeriesRow, Store


@dataclass(frozen=True, slots=True)
class TableStatus:
    """One table as the floor sees it.

    Attributes:
        table_id: the table.
        status: ``online``, ``offline``, or ``unknown`` (never heard).
        journal: the hash of its newest journal's first event.
        last_round: its newest round on the floor (0: none).
        last_round_utc: when that round ended, ISO 8601 UTC, or None.
        rounds_last_hour: rounds that ended in the hour before now.
        hold_ppm: the hold in parts per million of the amount wagered (None: nothing
            wagered yet).
        open_alarms: the kinds of the warnings and errors the table shows.
        lacking: what the floor lacks of the newest journal, or None.
    """

    table_id: str
    status: str
    journal: str
    last_round: int
    last_round_utc: str | None
    rounds_last_hour: int
    hold_ppm: int | None
    open_alarms: list[str]
    lacking: str | None

    def line(self) -> str:
        """The status as one line of text."""
        hold = "-" if self.hold_ppm is None else f"{self.hold_ppm / 10_000:.2f} %"
        alarms = ", ".join(self.open_alarms) or "none"
        ended = f" ended {self.last_round_utc[:19]}Z" if self.last_round_utc else ""
        text = (f"{self.table_id:12} {self.status.upper():8} last round {self.last_round}"
                f"{ended}  {self.rounds_last_hour} rounds/h  hold {hold}  alarms: {alarms}")
        return text + (f"  LACKING: {self.lacking}" if self.lacking else "")

    def to_dict(self) -> dict[str, Any]:
        """The status as JSON-ready data."""
        return asdict(self)


def hold_ppm(meters: dict[str, Any] | None) -> int | None:
    """The hold of a ``meters`` payload's ``total`` row, parts per million (rounded).

    The rows are [wagered, paid, won, rounds, voids, refunded] in minor units: the house
    wins ``won`` (stakes lost by players) and pays ``paid``.
    """
    row = ((meters or {}).get("meters") or {}).get("rows", {}).get("total")
    if not row or not row[0]:
        return None
    wagered, paid, won = row[0], row[1], row[2]
    num = (won - paid) * 1_000_000
    return (2 * num + wagered) // (2 * wagered)  # rounded half up, integers only


def floor_status(store: Store, now: datetime) -> list[TableStatus]:
    """Every table the floor heard of, by id.

    Args:
        store: the floor's store.
        now: the time "the last hour" ends at (aware, UTC).
    """
    since = (now - timedelta(hours=1)).isoformat()
    series = {(r.table, r.journal): r for r in store.series()}
    out = []
    for t in store.tables():
        newest = store.rounds(t.table_id, t.journal, last=1)
        s = series.get((t.table_id, t.journal)) or SeriesRow(t.table_id, t.journal, 0, 0, 0,
                                                              None)
        want = max(s.announced, s.newest)
        lacking = s.broken or (f"rounds {s.contiguous + 1} to {want} (or part of them)"
                               if s.contiguous < want else None)
        alarms = [a["kind"] for a in (t.state or {}).get("open_alarms", [])]
        out.append(TableStatus(
            t.table_id, s.status or "unknown", t.journal,
            newest[0]["round_id"] if newest else 0,
            newest[0]["ended_utc"] if newest else None,
            store.rounds_since(t.table_id, t.journal, since), hold_ppm(t.meters), alarms,
            lacking))
    return out
