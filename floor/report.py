"""Reading the floor: the recorder, then one line a table (``threecard floor status``).

What each line says, and when a round is UNCONFIRMED rather than LACKING:
docs/floor-format.md, "What floor status says".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from controller.game.numbers import format_ppm
from floor.messages import MetersMessage
from floor.recorder import GRACE_S
from floor.store import SeriesRow, Store, TableRow

# 3 heartbeats: a recorder silent this long is not running.
SILENT_AFTER_S = 15
# A table online but silent this long is offline, its last will lost or not.
TABLE_SILENT_S = 30


def _utc(us: int | None) -> str | None:
    return datetime.fromtimestamp(us // 1_000_000, UTC).isoformat() if us else None


def _z(utc: str) -> str:
    return f"{utc[:19]}Z"


def _ago(utc: str | None, now: datetime) -> str:
    if utc is None:
        return "never"
    s = max(0, int((now - datetime.fromisoformat(utc)).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= 2 * size:
            return f"{s // size} {unit} ago"
    return f"{s} s ago"


@dataclass(frozen=True, slots=True)
class RecorderStatus:
    """Whether the recorder writing the store runs.

    Attributes:
        state: ``running``, ``stopped`` (it said so), ``silent`` (killed, hung, or its
            machine down) or ``unknown`` (no recorder ever said).
        broker_lost_utc: since when the running recorder cannot reach the broker (None:
            it can): what it knows of each table is as of then.
    """

    state: str
    client_id: str
    heard_utc: str | None
    broker: str | None = None
    broker_lost_utc: str | None = None
    broker_why: str | None = None

    def line(self, now: datetime) -> str:
        """The recorder as one line of text."""
        who = f"recorder {self.client_id}" if self.client_id else "recorder"
        if self.state == "running" and self.broker_lost_utc:
            return (f"{who}: running (heard {_ago(self.heard_utc, now)}); broker "
                    f"{self.broker} UNREACHABLE since {_z(self.broker_lost_utc)} "
                    f"({self.broker_why}): each table's status is unknown since then")
        if self.state == "running":
            return f"{who}: running (heard {_ago(self.heard_utc, now)})"
        if self.state == "stopped":
            return (f"{who}: STOPPED at {self.heard_utc}: what follows is the floor as it "
                    "stood then")
        if self.state == "silent":
            return (f"{who}: SILENT since {self.heard_utc} ({_ago(self.heard_utc, now)}): is "
                    "`threecard floor serve` running? What follows may be out of date")
        return f"{who}: never heard (a store written before the recorder said it runs)"

    def to_dict(self) -> dict[str, Any]:
        """The status as JSON-ready data."""
        return asdict(self)


def recorder_status(store: Store, now: datetime) -> RecorderStatus:
    """Whether the recorder writing ``store`` runs, as of ``now`` (aware, UTC)."""
    r = store.recorder()
    if r is None:
        return RecorderStatus("unknown", "", None)
    heard = _utc(r.alive_us)
    if r.stopped:
        return RecorderStatus("stopped", r.client_id, heard, r.broker)
    silent = now.timestamp() * 1_000_000 - r.alive_us > SILENT_AFTER_S * 1_000_000
    if silent:
        return RecorderStatus("silent", r.client_id, heard, r.broker)
    return RecorderStatus("running", r.client_id, heard, r.broker,
                          _utc(r.broker_lost_us), r.broker_why)


@dataclass(frozen=True, slots=True)
class TableStatus:
    """One table as the floor sees it (the fields: docs/floor-format.md).

    Attributes:
        status: ``online``, ``stopped`` (it said so), ``offline`` (its last will), or
            ``unknown`` (none heard, or the recorder cannot reach the broker).
        hold_ppm: parts per million of the amount wagered (None: nothing wagered).
        unconfirmed: rounds missing for less than the recorder's grace, or not yet looked
            at: they may be on their way.
    """

    table_id: str
    status: str
    journal: str
    last_round: int
    last_round_utc: str | None
    rounds_last_hour: int
    hold_ppm: int | None
    open_alarms: list[str] | None
    lacking: str | None
    heard_utc: str | None = None
    older_lacking: list[str] | None = None
    unconfirmed: str | None = None
    verify_key: str | None = None
    key_pinned: str | None = None
    forged: int = 0
    forged_why: str | None = None
    unknown_since_utc: str | None = None
    pruned: list[str] | None = None

    def line(self, now: datetime | None = None) -> str:
        """The status as one line of text (``now``: for "heard ... ago")."""
        hold = "-" if self.hold_ppm is None else format_ppm(self.hold_ppm)
        alarms = "-" if self.open_alarms is None else ", ".join(self.open_alarms) or "none"
        if self.status == "offline" or self.unknown_since_utc:
            alarms = f"{alarms} (when last heard)"
        ended = f" ended {_z(self.last_round_utc)}" if self.last_round_utc else ""
        heard = f"  heard {_ago(self.heard_utc, now or datetime.now(UTC))}"
        status = self.status.upper()
        if self.unknown_since_utc:
            status += f" since {_z(self.unknown_since_utc)}"
        text = (f"{self.table_id:12} {status:8} last round {self.last_round}"
                f"{ended}  {self.rounds_last_hour} rounds/h  hold {hold}  alarms: {alarms}"
                f"{heard}")
        text += f"  LACKING: {self.lacking}" if self.lacking else ""
        text += f"  UNCONFIRMED: {self.unconfirmed}" if self.unconfirmed else ""
        text += "".join(f"  LACKING in {x}" for x in self.older_lacking or ())
        if self.verify_key:
            text += f"  key {self.verify_key[:16]}... ({self.key_pinned})"
        if self.forged:
            text += f"  FORGED {self.forged}: {self.forged_why}"
        text += "".join(f"  PRUNED {x}" for x in self.pruned or ())
        return text

    def to_dict(self) -> dict[str, Any]:
        """The status as JSON-ready data."""
        return asdict(self)


def hold_ppm(meters: MetersMessage | None) -> int | None:
    """The hold of a ``meters`` ``total`` row, parts per million: (won - paid) / wagered."""
    row = meters.meters.rows.get("total") if meters is not None else None
    if not row or row[0] <= 0:
        return None
    wagered, paid, won = row[0], row[1], row[2]
    num = (won - paid) * 1_000_000
    return (2 * num + wagered) // (2 * wagered)  # rounded half up, integers only


def _lacking(s: SeriesRow, now_us: int) -> tuple[str | None, str | None]:
    """What a series lacks: (confirmed, unconfirmed: a gap younger than the grace)."""
    want = max(s.announced, s.newest)
    if s.broken or s.contiguous >= want:
        return s.broken, None
    text = f"rounds {s.contiguous + 1} to {want} (or part of them)"
    if s.gap_us is None or now_us - s.gap_us < GRACE_S * 1_000_000:
        return None, f"{text}, may be on their way"
    return text, None


def floor_status(store: Store, now: datetime) -> list[TableStatus]:
    """Every table the floor heard of, or whose key was enrolled (never heard: ``unknown``)."""
    since = (now - timedelta(hours=1)).isoformat()
    series = store.series()
    # silence is measured on the recorder's clock, up to when it last wrote
    rec = store.recorder()
    now_us = heard_by_us = int(now.timestamp() * 1_000_000)
    if rec is not None:
        heard_by_us = min(heard_by_us, rec.alive_us)
    away = recorder_status(store, now).broker_lost_utc  # the broker: nothing is known since
    out = []
    forged = store.forged()
    heard = store.tables()
    named = {t.table_id for t in heard}
    known = {*forged, *store.enrolled()} - named  # refused, or enrolled and never heard
    heard += [TableRow(tid, "", None, None, None) for tid in sorted(known)]
    for t in sorted(heard, key=lambda t: t.table_id):
        newest = store.rounds(t.table_id, t.journal, last=1)
        s = next((r for r in series if (r.table, r.journal) == (t.table_id, t.journal)),
                 SeriesRow(t.table_id, t.journal, 0, 0, 0, None))
        status = s.status or "unknown"
        if away is not None:
            status = "unknown"
        elif status == "online" and heard_by_us - t.heard_us > TABLE_SILENT_S * 1_000_000:
            status = "offline"  # silent: its last will was lost, or is late
        alarms = [] if status == "stopped" else None if "state" in t.unreadable else [
            a.kind for a in (t.state.open_alarms if t.state is not None else [])]
        older = [f"journal {r.journal[:16]}: {why}" for r in series
                 if r.table == t.table_id and r.journal != t.journal
                 and (why := _lacking(r, now_us)[0]) is not None]
        lacking, unconfirmed = _lacking(s, now_us)
        keys = store.keys(t.table_id)
        n, why = forged.get(t.table_id, (0, None))
        newest_prune = {p.journal: p for p in store.prunes(t.table_id)}  # oldest first
        pruned = [f"journal {p.journal[:16]}: rounds up to {p.to_round} in {p.archive} "
                  f"(sha256 {p.sha256[:16]}...)" for p in newest_prune.values()]
        out.append(TableStatus(
            t.table_id, status, t.journal,
            newest[0]["round_id"] if newest else 0,
            newest[0]["ended_utc"] if newest else None,
            store.rounds_since(t.table_id, t.journal, since), hold_ppm(t.meters), alarms,
            lacking, _utc(t.heard_us), older, unconfirmed,
            keys[-1].key if keys else None, keys[-1].how if keys else None, n, why, away,
            pruned))
    return out
