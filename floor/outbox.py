"""The feed's cursor, kept in the journal file so it travels with its journal.

Written on its own connection with ``synchronous=NORMAL``: the table never waits for our
flush (docs/floor-format.md).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from controller.journal import OUTBOX_TABLE
from controller.journal.anchor import real_path

_SCHEMA = (f"CREATE TABLE IF NOT EXISTS {OUTBOX_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), "
           "seq INTEGER NOT NULL, journal TEXT NOT NULL, utc TEXT NOT NULL)")


class Outbox:
    """The cursor of one journal's feed (the file must exist; sqlite3.Error if unopenable)."""

    def __init__(self, journal_path: str) -> None:
        self.db = sqlite3.connect(real_path(journal_path), isolation_level=None,
                                  check_same_thread=False, timeout=10.0)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(_SCHEMA)
        self.saved = self.read()

    def read(self) -> tuple[int, str]:
        """The cursor: (event seq, the journal's first event hash), (0, "") for none."""
        row = self.db.execute(f"SELECT seq, journal FROM {OUTBOX_TABLE} WHERE id = 1").fetchone()
        return (row[0], row[1]) if row else (0, "")

    def write(self, seq: int, journal: str) -> None:
        """Move the cursor to event ``seq`` of ``journal`` (its first hash); sqlite3.Error."""
        if (seq, journal) == self.saved:
            return
        self.db.execute(f"INSERT OR REPLACE INTO {OUTBOX_TABLE} VALUES (1, ?, ?, ?)",
                        (seq, journal, datetime.now(UTC).isoformat()))
        self.saved = (seq, journal)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()
