"""What the journal verifier runs its checks with: a deadline, a thread, safe text; no check."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from controller.game.verdict import (
    CHECKED_TABLES,
    UNCHECKED_TABLES,
    Note,
    Problem,
    ProblemKind,
)
from controller.journal.schema import altered, objects

if TYPE_CHECKING:
    from controller.journal import Journal


@contextlib.contextmanager
def interrupted_at(db: sqlite3.Connection, deadline: float) -> Iterator[None]:
    """Interrupt what runs on ``db`` at ``deadline`` (monotonic): it raises OperationalError."""
    lock, live = threading.Lock(), [True]

    def interrupt() -> None:
        with lock:
            if live[0]:
                db.interrupt()

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            live[0] = False
        timer.cancel()


def one_line(what: object) -> str:
    """Text from SQLite or a file as one short printable line."""
    return "".join(c if c.isprintable() else "?" for c in str(what))[:160]


def loads_or_none(text: Any) -> Any:
    """A stored record's JSON, or None when it is not readable."""
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None


def in_background(work: Callable[[], None], name: str) -> Callable[[], None]:
    """Run ``work`` on a thread; the returned function joins it and raises what ``work`` raised."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - raised where it is waited for
            failed.append(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()

    def wait() -> None:
        thread.join()
        if failed:
            raise failed[0]
    return wait


def beside(j: Journal) -> tuple[list[Note], list[Problem]]:
    """(notes, problems) of what the file holds beside the journal and its tables it lacks.

    Other tables and missing ones are noted; a changed definition, a trigger, a view or an
    index of its own (a ``UNIQUE`` one changes rows) is a problem.
    """
    objs = sorted(objects(j.db))  # the file's schema, read once
    tables = {name for kind, name, _, _ in objs if kind.endswith("table")}
    notes = [Note(f"table {name[:40]!r} is no part of the journal: not checked",
                  "other_table", name=name[:40])
             for name in sorted(tables - CHECKED_TABLES - UNCHECKED_TABLES)]
    if j.tables_missing:
        names = ", ".join(j.tables_missing)
        notes.append(Note(f"the file lacked the journal's table(s) {names}: read as empty, "
                          "as the table creates them", "tables_missing", names=names))
    problems = [Problem(ProblemKind.SCHEMA_OBJECT, f"the journal's table {name!r} is not as a "
                        "journal makes it: its definition was changed", None, name)
                for name in altered(objs, j.store.schema)]
    problems += [Problem(ProblemKind.SCHEMA_OBJECT, f"the file holds {_WHAT[kind]}, {name!r} "
                         f"on table {table!r} (no journal has one)", None, name)
                 for kind, name, table, sql in objs
                 if kind in ("trigger", "view") or (kind == "index" and sql)]
    return notes, problems


_WHAT = {"trigger": "a trigger (code that changes what the table writes)",
         "view": "a view (rows made up, read in a table's place)",
         "index": "an index (a constraint that refuses or replaces what the table writes)"}


__all__ = ["beside", "in_background", "interrupted_at", "loads_or_none", "one_line"]
