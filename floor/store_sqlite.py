"""The floor's store in a SQLite file: the embedded default.

WAL with ``synchronous=NORMAL``: a power cut may lose the newest commits, which the
recorder asks for again. Not on a network share.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from floor.store_base import StoreError


class SQLite:
    """A SQLite file holding a floor store (StoreError: missing when ``readonly``, unopenable)."""

    errors: tuple[type[Exception], ...] = (sqlite3.Error,)

    def __init__(self, path: str, readonly: bool = False) -> None:
        self.name = path
        try:
            if readonly:
                if not os.path.isfile(path):
                    raise StoreError(f"{path}: no such floor store")
                self.db = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro",
                                          uri=True, isolation_level=None,
                                          check_same_thread=False)
            else:
                self.db = sqlite3.connect(path, isolation_level=None,
                                          check_same_thread=False, timeout=10.0)
            self.db.execute("PRAGMA busy_timeout=10000")
            if not readonly:
                self._wal()
                self.db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the floor store: {exc}") from None

    def _wal(self) -> None:
        """The write-ahead log, "database is locked" retried for 10 s (busy waits skip this)."""
        deadline = time.monotonic() + 10.0
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement."""
        return self.db.execute(sql, args)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once for each row of parameters."""
        self.db.executemany(sql, rows)

    def script(self, sql: str, added: Mapping[str, Sequence[str]] | None = None) -> None:
        """The schema and the columns of ``added`` in one ``BEGIN IMMEDIATE`` transaction."""
        with self.transaction():
            for statement in sql.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            for table, columns in (added or {}).items():
                have = self.columns(table)
                for col in columns:
                    if col.split()[0] not in have:
                        self.db.execute(f"ALTER TABLE {table} ADD COLUMN {col}")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK``; nested: a savepoint."""
        if self.db.in_transaction:
            self.db.execute("SAVEPOINT inner")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK TO inner")
                self.db.execute("RELEASE inner")
                raise
            self.db.execute("RELEASE inner")
            return
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            yield

    def locked(self, key: str) -> contextlib.AbstractContextManager[None]:  # noqa: ARG002
        """A transaction: ``BEGIN IMMEDIATE`` locks the whole file for writing already."""
        return self.transaction()

    def names(self) -> set[str]:
        """The file's table names."""
        return {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}

    def columns(self, table: str) -> set[str]:
        """A table's column names (empty: no such table)."""
        return {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}

    def message_fault(self, exc: Exception) -> bool:
        """True when the values written, not the file, are at fault."""
        return isinstance(exc, (sqlite3.IntegrityError, sqlite3.DataError,
                                sqlite3.InterfaceError, sqlite3.ProgrammingError))

    def close(self) -> None:
        """Close the file."""
        self.db.close()


__all__ = ["SQLite"]
