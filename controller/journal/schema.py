"""A journal file's tables: made in one transaction, and read alike by writer and reader."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sqlite3
import tempfile

_TABLE = re.compile(r"\s*CREATE TABLE IF NOT EXISTS (\w+)")
_KIND = re.compile(r"\s*CREATE\s+(?:TEMP(?:ORARY)?\s+)?(?:UNIQUE\s+)?"
                   r"(VIRTUAL\s+TABLE|TABLE|INDEX|TRIGGER|VIEW)\b", re.IGNORECASE)


def objects(db: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    """Every schema object: (kind, name, table, definition), the kind read as SQLite reads it."""
    out = []
    for typ, name, table, sql in db.execute("SELECT type, name, tbl_name, sql FROM "
                                            "main.sqlite_master"):
        m = _KIND.match(sql or "")
        kind = " ".join(m.group(1).lower().split()) if m else str(typ).lower()
        out.append((kind, name, table, sql or ""))
    return out


def table_names(db: sqlite3.Connection) -> set[str]:
    """The names of the file's tables (virtual ones too)."""
    return {name for kind, name, _, _ in objects(db) if kind.endswith("table")}


def tables_of(schema: str) -> dict[str, str]:
    """The tables a schema script creates: name -> its ``CREATE TABLE IF NOT EXISTS``."""
    out = {}
    for statement in schema.split(";"):
        m = _TABLE.match(statement)
        if m:
            out[m.group(1)] = statement.strip()
    return out


def missing(db: sqlite3.Connection, schema: str) -> list[str]:
    """The schema's tables the file (``main``) lacks (no table nor view of the name)."""
    have = {name for kind, name, _, _ in objects(db) if kind != "index" and kind != "trigger"}
    return [name for name in tables_of(schema) if name not in have]


def _words(sql: str) -> str:
    return " ".join(sql.split())


@functools.lru_cache(maxsize=4)
def _as_made(schema: str) -> dict[str, str]:
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        return {n: _words(s) for n, s in db.execute("SELECT name, sql FROM sqlite_master "
                                                     "WHERE type = 'table'")}
    finally:
        db.close()


def altered(objs: list[tuple[str, str, str, str]], schema: str) -> list[str]:
    """The schema's tables the file holds with another definition (a column, a constraint...)."""
    want = _as_made(schema)
    return [name for kind, name, _, sql in objs
            if kind.endswith("table") and name in want and _words(sql) != want[name]]


def create(db: sqlite3.Connection, settings: str, schema: str) -> None:
    """Run ``settings`` (pragmas) and ``schema`` in one transaction (a failure keeps nothing)."""
    try:
        db.executescript(f"BEGIN; {settings} {schema} COMMIT;")
    except sqlite3.DatabaseError:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def stand_in(db: sqlite3.Connection, schema: str, names: list[str]) -> None:
    """An empty temporary table in the place of each of ``names`` (a reader's)."""
    statements = tables_of(schema)
    for name in names:
        db.execute(statements[name].replace("CREATE TABLE IF NOT EXISTS",
                                            "CREATE TEMP TABLE", 1))


def hot_rollback(path: str) -> bool:
    """Whether a rollback journal with content lies beside ``path`` (a cut mid-write)."""
    try:
        with open(path + "-journal", "rb") as f:
            return any(f.read(28))  # a header of zeros: a journal SQLite left unused
    except OSError:
        return False


def rolled_back_copy(path: str) -> tuple[str, str] | None:
    """A copy of ``path`` with its hot rollback journal rolled back, as a writer would.

    (the copy, its temporary folder), or None when the rollback went meanwhile; OSError.
    """
    folder = tempfile.mkdtemp(prefix="threecard-read-")
    copy = os.path.join(folder, "journal.sqlite3")
    try:
        shutil.copyfile(path, copy)
        shutil.copyfile(path + "-journal", copy + "-journal")
        db = sqlite3.connect(copy)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # rolls it back
        finally:
            db.close()
    except FileNotFoundError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return copy, folder


__all__ = ["altered", "create", "hot_rollback", "missing", "objects", "rolled_back_copy",
           "stand_in", "table_names", "tables_of"]
