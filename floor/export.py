"""Rounds for the casino management system (``threecard floor rounds --format json|csv``).

Amounts are the meters' own sums, minor units (docs/floor-format.md).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import IO, Any

from controller.game.bet_types import PAY_ORDER
from controller.game.recall import sum_rounds

GROUPS = ("total", *PAY_ORDER)
# Minor units.
AMOUNTS = ("wagered", "paid", "net", "refunded")
FIELDS = ("table_id", "journal", "round_id", "status", "void_reason", "started_utc",
          "ended_utc", "bet_entry", "currency")
COLUMNS = (*FIELDS, *(f"{g}_{a}" for g in GROUPS for a in AMOUNTS))


def parse_utc(flag: str, text: str) -> str:
    """A ``--from``/``--to`` time: ISO 8601 UTC or a date; ValueError naming ``flag`` otherwise."""
    try:
        if len(text) == 10:
            when = datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC)
        else:
            when = datetime.fromisoformat(text)
            if when.utcoffset() is None or when.utcoffset().total_seconds() != 0:
                raise ValueError("not UTC")
    except ValueError:
        raise ValueError(f"{flag}: {text!r} is not a time in UTC: give 2026-12-05T14:00:00Z "
                         "or a date, 2026-12-05") from None
    return when.astimezone(UTC).isoformat()


def groups(record: dict[str, Any]) -> dict[str, dict[str, int]]:
    """A round record's amounts by bet group (:data:`GROUPS`, those it has), minor units."""
    rows = sum_rounds([record])
    return {g: {"wagered": r[0], "paid": r[1], "net": r[1] - r[2], "refunded": r[5]}
            for g in GROUPS if (r := rows.get(g)) is not None}


def as_json(table: str, journal: str, record: dict[str, Any], currency: str | None
            ) -> dict[str, Any]:
    """A round for the JSON export, with its amounts by bet group (``groups``)."""
    return {"table_id": table, "journal": journal, **record, "currency": currency,
            "groups": groups(record)}


def write_csv(rows: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """Write :func:`as_json` rows as CSV (header :data:`COLUMNS`); how many rows."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    n = 0
    for row in rows:
        amounts = row["groups"]
        w.writerow([*("" if row.get(f) is None else row[f] for f in FIELDS),
                    *(amounts.get(g, {}).get(a, 0) for g in GROUPS for a in AMOUNTS)])
        n += 1
    return n


__all__ = ["AMOUNTS", "COLUMNS", "FIELDS", "GROUPS", "as_json", "groups", "parse_utc",
           "write_csv"]
