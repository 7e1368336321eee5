"""The feed's cursor: how far the broker has acknowledged the feed, kept in the journal file.

One row in the table :data:`~controller.journal.OUTBOX_TABLE` of the journal's own
SQLite file, beside the hash chain, written through a connection of its own (never the
table's), so the cursor travels with its journal: a copied journal resumes its feed where
it stood, and a new journal starts its feed from its first event. The verifier leaves this
table out by design (:data:`controller.game.verifier.UNCHECKED_TABLES` says why).

The cursor is the newest journal event whose messages the broker has all acknowledged
(PUBACK at QoS 1). It is written with ``synchronous=NORMAL``: a write costs no disk flush,
so the table, which may wait for SQLite's write lock, never waits for a flush of ours; a
power cut may lose the newest cursor writes, and the feed then sends a few messages again,
which the recorder drops as duplicates.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from controller.journal import OUTBOX_TABLE
from controller.journal.anchor import real_path

_SCHEMA = (f"CREATE TABLE IF NOT EXISTS {OUTBOX_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), "
           "seq INTEGER NOT NULL, journal TEXT NOT NULL, utc TEXT NOT NULL)")


class Outbox:
    """The cursor of one journal's feed.

    Args:
        journal_path: the journal file (it must exist: the table created it).

    Raises:
        sqlite3.Error: the file cannot be opened for writing.
    """

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
        """Move the cursor to event ``seq`` of the journal named by its first event's hash.

        Raises:
            sqlite3.Error: the write failed (the caller tries again later).
        """
        if (seq, journal) == self.saved:
            return
        self.db.execute(f"INSERT OR REPLACE INTO {OUTBOX_TABLE} VALUES (1, ?, ?, ?)",
                        (seq, journal, datetime.now(UTC).isoformat()))
        self.saved = (seq, journal)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()
