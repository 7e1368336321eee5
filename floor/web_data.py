"""What the pit page and the metrics read of the floor's store, in one place."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from floor.par import expected_hold_ppm
from floor.report import RecorderStatus, TableStatus, floor_status, recorder_status

ALARM_SEVERITIES = ("warning", "error")


@dataclass(frozen=True, slots=True)
class PitRow:
    """One table on the pit page: its status and its meters' figures (minor units; None: none)."""

    status: TableStatus
    currency: str = ""
    profile: str = ""
    drop: int | None = None
    paid: int | None = None
    won: int | None = None
    expected_hold_ppm: int | None = None
    alarms: list[tuple[str, str, str]] = field(default_factory=list)
    rows: dict[str, list[int]] = field(default_factory=dict)
    heard_us: int = 0


@dataclass(frozen=True, slots=True)
class Pit:
    """The recorder and every table, as of ``now``."""

    now: datetime
    recorder: RecorderStatus
    tables: list[PitRow]


def pit(store: Any, now: datetime) -> Pit:
    """The recorder and every table the floor heard of, by id."""
    rows = {t.table_id: t for t in store.tables()}
    out = []
    for s in floor_status(store, now):
        t = rows.get(s.table_id)
        m = t.meters if t is not None else None
        total = m.meters.rows.get("total") if m is not None else None
        alarms = ([(a.kind, a.severity, a.message) for a in t.state.open_alarms]
                  if t is not None and t.state is not None and s.status != "stopped" else [])
        out.append(PitRow(
            s, m.currency if m is not None else "", m.profile if m is not None else "",
            total[0] if total else None, total[1] if total else None,
            total[2] if total else None,
            expected_hold_ppm(m.meters.rows, m.returns) if m is not None else None,
            alarms, {k: list(v) for k, v in m.meters.rows.items()} if m is not None else {},
            t.heard_us if t is not None else 0))
    return Pit(now, recorder_status(store, now), out)


def last_rounds(store: Any, table: str, journal: str, last: int) -> list[dict[str, Any]]:
    """The newest ``last`` rounds of a table's journal, newest first (recall's shape)."""
    return store.rounds(table, journal, last) if journal else []


def recent_alarms(store: Any, table: str, journal: str, last: int = 20
                  ) -> list[dict[str, Any]]:
    """A journal's newest warnings and errors, newest first (``sealed``: not provisional)."""
    marks = ",".join("?" * len(ALARM_SEVERITIES))
    sealed = store.db.execute(
        f"SELECT seq, kind, severity, body, stored_us FROM events WHERE table_id = ? AND "
        f"journal = ? AND severity IN ({marks}) ORDER BY seq DESC LIMIT ?",
        (table, journal, *ALARM_SEVERITIES, last)).fetchall()
    pending = store.db.execute(
        "SELECT seq, kind, body, stored_us FROM pending_events WHERE table_id = ? AND "
        "journal = ? ORDER BY seq DESC LIMIT ?", (table, journal, last)).fetchall()
    out = {}
    for seq, kind, body, stored_us, is_sealed in (
            [(q, k, b, u, True) for q, k, _s, b, u in sealed]
            + [(q, k, b, u, False) for q, k, b, u in pending]):
        try:
            d = json.loads(body)
        except ValueError:
            d = {}
        d = d if isinstance(d, dict) else {}
        if d.get("severity") not in ALARM_SEVERITIES or (seq, kind) in out:
            continue
        out[(seq, kind)] = {"seq": seq, "kind": kind, "severity": d["severity"],
                            "message": str(d.get("message", "")),
                            "round_id": d.get("round_id"), "stored_us": stored_us,
                            "sealed": is_sealed}
    return sorted(out.values(), key=lambda a: -a["seq"])[:last]


def stored_rounds(store: Any) -> dict[str, int]:
    """Rounds recorded of each table, pruned ones included: a Prometheus counter only grows."""
    out = dict(store.db.execute("SELECT table_id, COUNT(*) FROM rounds GROUP BY table_id"))
    for p in store.prunes():
        out[p.table] = out.get(p.table, 0) + p.rounds
    return out


def recorder_lag_us(store: Any) -> int | None:
    """Send-to-store time of the round stored last, microseconds (None: none sent)."""
    row = store.db.execute("SELECT stored_us - sent_us FROM rounds WHERE sent_us > 0 "
                           "ORDER BY stored_us DESC LIMIT 1").fetchone()
    return row[0] if row else None


def rounds_lacking(store: Any) -> dict[str, int]:
    """Rounds each table's journals lack on the floor, on their way or not, by table id."""
    out: dict[str, int] = {}
    for s in store.series():
        want = max(s.announced, s.newest)
        out[s.table] = out.get(s.table, 0) + (0 if s.broken else max(0, want - s.contiguous))
    return out


def forged(store: Any) -> dict[str, int]:
    """Messages refused as forged on each table's topics, by table id."""
    return {t: n for t, (n, _why) in store.forged().items()}
