"""What the floor's store needs of a database: one small interface, one module per kind."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

SCHEMES = ("postgresql://", "postgres://")


class StoreError(Exception):
    """The store cannot be opened or read (the message names the file or the database)."""


class Cursor(Protocol):
    """The rows of a statement: iterated, or fetched."""

    def fetchone(self) -> Any:
        """The next row, or None."""

    def fetchall(self) -> list[Any]:
        """The rows left."""

    def __iter__(self) -> Iterator[Any]: ...


class Database(Protocol):
    """An open connection to the store's database (``errors``: what its statements raise)."""

    name: str
    errors: tuple[type[Exception], ...]

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        """Run one statement (``?`` parameters), outside a transaction or in the open one."""

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once for each row of parameters."""

    def script(self, sql: str, added: Mapping[str, Sequence[str]] | None = None) -> None:
        """Make the schema and the columns ``added`` in one transaction (recorders may race)."""

    def transaction(self) -> AbstractContextManager[Any]:
        """A transaction: committed at the block's end, rolled back on an error (or a savepoint)."""

    def locked(self, key: str) -> AbstractContextManager[Any]:
        """A transaction no other process writes ``key``'s rows in meanwhile (two recorders)."""

    def names(self) -> set[str]:
        """The store's table names."""

    def columns(self, table: str) -> set[str]:
        """The column names of one of its tables (empty: no such table)."""

    def message_fault(self, exc: Exception) -> bool:
        """True when the values written, not the store, are at fault (too large...)."""

    def close(self) -> None:
        """Close the connection."""


def is_url(target: str) -> bool:
    """True when ``--store`` names a PostgreSQL database rather than a SQLite file."""
    return str(target).startswith(SCHEMES)


def shown(target: str) -> str:
    """A store's name for messages and logs: a URL's password replaced by ``***``."""
    return re.sub(r"^([a-z]+://[^:/@]*):[^@/]*@", r"\1:***@", str(target))


def upsert(table: str, cols: Sequence[str], key: Sequence[str]) -> str:
    """``INSERT`` of every column of ``cols`` that replaces the row of the same ``key``."""
    update = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in key)
    return (f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
            f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {update}")


def greater(a: str, b: str) -> str:
    """The SQL of the greater of two integer expressions (``max`` in SQLite only)."""
    return f"CASE WHEN {a} > {b} THEN {a} ELSE {b} END"


def open_database(target: str, readonly: bool) -> Database:
    """Connect to the store ``target`` names (StoreError: cannot, or no psycopg)."""
    if is_url(target):
        from floor.store_pg import PostgreSQL

        return PostgreSQL(str(target), readonly)
    from floor.store_sqlite import SQLite

    return SQLite(str(target), readonly)


__all__ = ["SCHEMES", "Cursor", "Database", "StoreError", "greater", "is_url",
           "open_database", "shown", "upsert"]
