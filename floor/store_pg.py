"""The floor's store in a PostgreSQL database (``--store postgresql://...``).

``BIGINT`` integers (microseconds exceed 32 bits) and ``COLLATE "C"`` text, so times and
hashes sort as written. psycopg 3 comes with the ``floor`` extra.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from floor.store_base import StoreError, shown

_TYPES = {"INTEGER": "BIGINT", "BLOB": "BYTEA", "TEXT": 'TEXT COLLATE "C"'}
# The advisory lock two recorders starting at once take to create the tables in turn.
_SCHEMA_LOCK = 0x7C4F100
CONNECT_TIMEOUT_S = 10


def dialect(sql: str) -> str:
    """A statement of the shared dialect as psycopg takes it (``%s`` parameters)."""
    return sql.replace("%", "%%").replace("?", "%s")


def schema(sql: str) -> str:
    """The store's schema with PostgreSQL's types."""
    return re.sub(r"\b(INTEGER|BLOB|TEXT)\b", lambda m: _TYPES[m[1]], sql)


class PostgreSQL:
    """A PostgreSQL database holding a floor store (``url``: libpq's ``postgresql://...``).

    Raises:
        StoreError: psycopg is not installed, or the database cannot be reached.
    """

    def __init__(self, url: str, readonly: bool = False) -> None:
        self.name = shown(url)
        try:
            import psycopg
        except ImportError:
            raise StoreError(f"{self.name}: a PostgreSQL store needs psycopg 3: pip install "
                             "'threecard-table[floor]'") from None
        self._pg = psycopg
        self.errors: tuple[type[Exception], ...] = (psycopg.Error,)
        self._sql: dict[str, str] = {}
        try:
            self.db = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            if readonly:
                self.db.execute("SET default_transaction_read_only = on")
        except psycopg.Error as exc:
            why = (str(exc).strip() or type(exc).__name__).splitlines()[0]
            raise StoreError(f"{self.name}: cannot open the floor store: "
                             f"{why.replace(url, self.name)}") from None

    def _q(self, sql: str) -> str:
        q = self._sql.get(sql)
        if q is None:
            q = self._sql[sql] = dialect(sql)
        return q

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """Run one statement."""
        return self.db.execute(self._q(sql), tuple(args))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once for each row of parameters."""
        with self.db.cursor() as cur:
            cur.executemany(self._q(sql), [tuple(r) for r in rows])

    def script(self, sql: str, added: Mapping[str, Sequence[str]] | None = None) -> None:
        """The schema and ``added``, under an advisory lock; a complete store is left alone."""
        if self._complete(sql, added or {}):
            return
        with self.db.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in schema(sql).split(";"):
                if statement.strip():
                    self.db.execute(statement)
            for table, columns in (added or {}).items():
                for col in columns:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS "
                                    f"{schema(col)}")

    def _complete(self, sql: str, added: Mapping[str, Sequence[str]]) -> bool:
        tables = re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", sql)
        indexes = re.findall(r"CREATE INDEX IF NOT EXISTS (\w+)", sql)
        have = {r[0] for r in self.db.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
        return (set(tables) <= self.names() and set(indexes) <= have and all(
            col.split()[0] in self.columns(table)
            for table, cols in added.items() for col in cols))

    def transaction(self) -> AbstractContextManager[Any]:
        """``BEGIN`` ... ``COMMIT``, or ``ROLLBACK`` on an error (nested: a savepoint)."""
        return self.db.transaction()

    def locked(self, key: str) -> AbstractContextManager[Any]:
        """A transaction holding the advisory lock of ``key`` (till its end)."""
        return _Locked(self.db, key)

    def names(self) -> set[str]:
        """The table names of the connection's schema."""
        return {r[0] for r in self.db.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema()")}

    def columns(self, table: str) -> set[str]:
        """A table's column names (empty: no such table)."""
        return {r[0] for r in self.db.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = %s", (table,))}

    def message_fault(self, exc: Exception) -> bool:
        """True when the values written, not the database, are at fault."""
        pg = self._pg
        return isinstance(exc, (pg.DataError, pg.IntegrityError))

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


class _Locked:

    def __init__(self, db: Any, key: str) -> None:
        self.tx = db.transaction()
        self.db, self.key = db, key

    def __enter__(self) -> None:
        self.tx.__enter__()
        try:
            self.db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                            (self.key,))
        except BaseException as exc:
            self.tx.__exit__(type(exc), exc, exc.__traceback__)
            raise

    def __exit__(self, *exc: Any) -> bool | None:
        return self.tx.__exit__(*exc)


__all__ = ["PostgreSQL", "dialect", "schema"]
