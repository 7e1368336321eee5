"""Retention: old rounds moved out of the floor's store into a verified archive file.

``threecard floor prune`` writes each series' old rounds and events to a new archive (a
floor store), reads it back and compares it, and only then deletes them, recording a
prune; the recorder may run meanwhile. Steps and the ``prunes`` table:
docs/floor-format.md, "Export and archives".
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from floor.store import PruneRow, Store, StoreError
from floor.store_base import is_url, upsert

# A series' other rows an archive holds beside its rounds, by the columns they are found by.
_COPIED = {"series": ("table_id", "journal"), "tables": ("table_id",),
           "positions": ("table_id", "journal"), "keys": ("table_id",),
           "seals": ("table_id", "journal")}
_KEYS = {"series": ("table_id", "journal"), "tables": ("table_id",),
         "positions": ("table_id", "journal"), "keys": ("table_id", "key"),
         "seals": ("table_id", "journal", "epoch")}


class PruneError(Exception):
    """The archive cannot be made, or does not hold what was read (nothing was deleted)."""


@dataclass(frozen=True, slots=True)
class _Cut:

    table: str
    journal: str
    after: tuple[int, int]
    to_round: int
    to_seq: int


@dataclass
class Pruned:
    """What ``floor prune`` did.

    Attributes:
        left: series left as they were, and why (the recorder changed them meanwhile).
    """

    archive: str
    sha256: str
    prunes: list[PruneRow] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def _digest(rows: list[Any]) -> str:
    """A SHA-256 of rows, whatever order the database returned them in."""
    text = sorted(json.dumps(list(r), separators=(",", ":")) for r in rows)
    return hashlib.sha256("\n".join(text).encode()).hexdigest()


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _cuts(store: Store, cutoff: str) -> list[_Cut]:
    out = []
    for s in store.series():
        after = store.pruned_to(s.table, s.journal)
        recent = store.db.execute(
            "SELECT MIN(round_id) FROM rounds WHERE table_id = ? AND journal = ? AND "
            "round_id > ? AND (ended_utc IS NULL OR ended_utc >= ?)",
            (s.table, s.journal, after[0], cutoff)).fetchone()[0]
        to_round = min(s.contiguous, s.newest - 1, (recent or s.newest + 1) - 1)
        row = store.db.execute("SELECT seq FROM rounds WHERE table_id = ? AND journal = ? "
                               "AND round_id = ?", (s.table, s.journal, to_round)).fetchone()
        if to_round > after[0] and row is not None:
            out.append(_Cut(s.table, s.journal, after, to_round, row[0]))
    return out


class _Rows:

    def __init__(self, store: Store) -> None:
        self.rounds = sorted(store.db.columns("rounds"))
        self.events = sorted(store.db.columns("events"))

    def where(self, table: str, c: _Cut) -> tuple[str, tuple[Any, ...]]:
        if table == "rounds":
            return ("table_id = ? AND journal = ? AND round_id > ? AND round_id <= ?",
                    (c.table, c.journal, c.after[0], c.to_round))
        return ("table_id = ? AND journal = ? AND seq > ? AND seq <= ?",
                (c.table, c.journal, c.after[1], c.to_seq))

    def read(self, store: Store, c: _Cut, delete: bool = False) -> dict[str, list[Any]]:
        out = {}
        for table, cols in (("rounds", self.rounds), ("events", self.events)):
            where, args = self.where(table, c)
            q = (f"DELETE FROM {table} WHERE {where} RETURNING {', '.join(cols)}" if delete
                 else f"SELECT {', '.join(cols)} FROM {table} WHERE {where}")
            out[table] = [tuple(r) for r in store.db.execute(q, args).fetchall()]
        return out


def _default_archive(target: str, now: datetime) -> Path:
    folder = Path.cwd() if is_url(target) else Path(target).resolve().parent
    return folder / f"floor-archive-{now.strftime('%Y%m%dT%H%M%SZ')}.sqlite3"


def _write(archive: Path, store: Store, rows: _Rows, cuts: dict[_Cut, dict[str, list[Any]]]
           ) -> None:
    out = Store(archive)
    try:
        with out.db.transaction():
            for c, got in cuts.items():
                for table, cols in (("rounds", rows.rounds), ("events", rows.events)):
                    out.db.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
                                       f"({', '.join('?' * len(cols))})", got[table])
                for table in _COPIED:
                    _copy(store, out, table, c)
        out.db.execute("PRAGMA journal_mode=DELETE")  # one file, nothing beside it
    finally:
        out.close()
    fd = os.open(archive, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy(store: Store, out: Store, table: str, c: _Cut) -> None:
    cols = sorted(store.db.columns(table) & out.db.columns(table))
    if not cols:
        return
    key = _COPIED[table]
    where = " AND ".join(f"{k} = ?" for k in key)
    args: tuple[Any, ...] = (c.table, c.journal)[:len(key)]
    if table == "seals":  # the seals of the rounds archived
        where, args = where + " AND round_id <= ?", (*args, c.to_round)
    # the archive's series runs whole up to its last round, and announces no other
    change = {"contiguous": c.to_round, "announced": c.to_round, "announced_seq": c.to_seq,
              "announced_hash": None, "gap_us": None} if table == "series" else {}
    found = store.db.execute(f"SELECT {', '.join(cols)} FROM {table} WHERE {where}",
                             args).fetchall()
    out.db.executemany(upsert(table, cols, _KEYS[table]),
                       [[change.get(col, v) for col, v in zip(cols, r, strict=True)]
                        for r in found])


def prune(target: str, days: int, archive: str | None = None,
          now: datetime | None = None) -> Pruned | None:
    """Move the rounds that ended more than ``days`` days ago into a new archive file.

    Args:
        target: the store (a SQLite file or a ``postgresql://`` URL).
        days: how old, in days (the table's clock, each round's end).
        archive: the archive to make (must not exist); default
            ``floor-archive-YYYYMMDDTHHMMSSZ.sqlite3`` beside a SQLite store, else here.
        now: the time ``days`` counts back from (default now).

    Returns:
        What was moved, or None when nothing was old enough.

    Raises:
        StoreError: the store cannot be opened, read or written.
        PruneError: the archive cannot be made or does not read back as written (nothing
            was deleted, and the archive is removed).
    """
    now = now or datetime.now(UTC)
    cutoff = (now - timedelta(days=days)).isoformat()
    store = Store(target)
    try:
        return _prune(store, cutoff, Path(archive) if archive else
                      _default_archive(target, now))
    except store.db.errors as exc:
        raise StoreError(f"{store.path}: cannot prune the floor store: {exc}") from None
    finally:
        store.close()


def _prune(store: Store, cutoff: str, archive: Path) -> Pruned | None:
    cuts = _cuts(store, cutoff)
    if not cuts:
        return None
    if archive.exists():
        raise PruneError(f"{archive}: exists already (an archive is made, never added to)")
    rows = _Rows(store)
    read = {c: rows.read(store, c) for c in cuts}
    try:
        _write(archive, store, rows, read)
        sha = _file_sha256(archive)
        back = Store(archive, readonly=True)
        try:
            again = {c: rows.read(back, c) for c in cuts}
        finally:
            back.close()
        for c in cuts:
            for table in ("rounds", "events"):
                want, got = read[c][table], again[c][table]
                if len(want) != len(got) or _digest(want) != _digest(got):
                    raise PruneError(f"{archive}: the {table} of table {c.table} journal "
                                     f"{c.journal[:16]} do not read back as written")
        if _file_sha256(archive) != sha:
            raise PruneError(f"{archive}: changed while it was read back")
    except (OSError, StoreError, sqlite3.Error) as exc:
        archive.unlink(missing_ok=True)
        raise PruneError(f"{archive}: cannot make the archive: {exc}") from None
    except PruneError:
        archive.unlink(missing_ok=True)
        raise
    done = Pruned(str(archive), sha)
    for c in cuts:
        p = PruneRow(c.table, c.journal, c.to_round, c.to_seq, len(read[c]["rounds"]),
                     len(read[c]["events"]), str(archive), sha, time.time_ns() // 1000)
        if _delete(store, rows, c, read[c], p):
            done.prunes.append(p)
        else:
            done.left.append(f"table {c.table} journal {c.journal[:16]}: the recorder "
                             "changed its rounds meanwhile; left as it was (prune again)")
    return done


class _Changed(Exception):
    """The rows deleted are not the ones archived: the transaction is rolled back."""

def _delete(store: Store, rows: _Rows, c: _Cut, archived: dict[str, list[Any]],
            p: PruneRow) -> bool:
    """Delete a cut's rows and record the prune, in one transaction (False: rolled back)."""
    try:
        with store.db.transaction():
            gone = rows.read(store, c, delete=True)
            if any(_digest(gone[t]) != _digest(archived[t]) for t in gone):
                raise _Changed
            store.db.execute(f"INSERT INTO prunes VALUES ({', '.join('?' * 9)})",
                             (p.table, p.journal, p.to_round, p.to_seq, p.rounds, p.events,
                              p.archive, p.sha256, p.pruned_us))
    except _Changed:
        return False
    return True


__all__ = ["PruneError", "Pruned", "prune"]
