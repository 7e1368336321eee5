"""Rounds for the casino management system (``threecard floor rounds --format json|csv``).

One row per round: its table, its journal (the series: the hash of the journal's first
event), round id, status, start and end (the table's clock, ISO 8601 UTC), and per bet
group (``total``, then each bet in the order the dealer pays them) what was wagered, what
was paid to players beyond their stakes, the players' net, and what a void refunded: the
meters' own sums (:func:`controller.game.recall.sum_rounds`), integers in minor units of
the journal's currency (``currency``; empty: not known to the floor). A round dealt in
outcome mode holds no money: its amounts are 0.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import IO, Any

from controller.game.bet_types import PAY_ORDER
from controller.game.recall import sum_rounds

GROUPS = ("total", *PAY_ORDER)
"""The bet groups of a row, in its order (a CSV row always has them all)."""
AMOUNTS = ("wagered", "paid", "net", "refunded")
"""The amounts of a bet group, minor units."""
FIELDS = ("table_id", "journal", "round_id", "status", "void_reason", "started_utc",
          "ended_utc", "bet_entry", "currency")
"""The columns before the amounts (the names ``floor rounds --json`` gives them)."""
COLUMNS = (*FIELDS, *(f"{g}_{a}" for g in GROUPS for a in AMOUNTS))
"""The CSV header."""


def parse_utc(flag: str, text: str) -> str:
    """A time as ``--from``/``--to`` take it, as the records write it (ISO 8601, UTC).

    ``2026-12-05T14:00:00Z`` (or ``+00:00``, with or without fractions of a second), or a
    date, ``2026-12-05``: its midnight UTC.

    Raises:
        ValueError: not one of those; the message names ``flag``.
    """
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
    """A round for the JSON export.

    Its record as ``floor rounds --json`` gives it, with its table, journal, currency and
    amounts by bet group (``groups``).
    """
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
