"""What the journal verifier runs its checks with (:mod:`controller.game.verifier`).

A deadline on what SQLite runs, a thread for the checks start-up runs beside its replay,
and text read from a damaged file made safe for a verdict. No check lives here.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def interrupted_at(db: sqlite3.Connection, deadline: float) -> Iterator[None]:
    """Interrupt what runs on ``db`` at ``deadline`` (monotonic), and nothing after.

    SQLite's interrupt stops a statement between its steps, ``PRAGMA quick_check``
    included; the statement raises ``sqlite3.OperationalError`` ("interrupted").
    """
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
    """Run ``work`` on a thread of its own; returns what waits for it.

    The returned function joins the thread and raises what ``work`` raised, if anything.
    """
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


__all__ = ["in_background", "interrupted_at", "loads_or_none", "one_line"]
