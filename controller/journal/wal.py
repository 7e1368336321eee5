"""The writer's write-ahead log: its limits, and copying it into the journal.

A mixin of :class:`~controller.journal.journal.Journal`; when the table does it is
:mod:`controller.game.wal_keeper`'s.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3

WAL_SIZE_LIMIT = 4 * 1024 * 1024
"""``journal_size_limit``: about what the log holds between SQLite's own checkpoints."""

WRITE_BUSY_MS = 2000
"""How long the writer waits for SQLite's write lock another process holds before its
write fails (the table then retries by itself: :mod:`controller.game.journal_fault`).
Within the table thread's heartbeat under the watchdog (WatchdogSec=10: 4.75 s)."""


class WalUpkeep:
    """Checkpoints for a journal writer (attributes set by the journal as it opens)."""

    db: sqlite3.Connection
    readonly: bool
    real: str

    def checkpoint(self, truncate: bool = True) -> bool:
        """Copy the write-ahead log into the journal, waiting for no reader.

        Args:
            truncate: empty the log's file too; False leaves the file as it is, for the
                next commit to write over from its start (between rounds: no file to
                grow again, no flush of its size).

        Returns:
            True when every frame of the log is in the journal now; False when a reader
            or a writer holds it (try later).
        """
        if self.readonly or self.real == ":memory:":
            return True
        try:
            self.db.execute("PRAGMA busy_timeout=0")  # a busy reader: answer at once
            busy, frames, copied = self.db.execute(
                f"PRAGMA wal_checkpoint({'TRUNCATE' if truncate else 'PASSIVE'})").fetchone()
            return not busy and frames == copied
        except sqlite3.Error:
            return False
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute(f"PRAGMA busy_timeout={WRITE_BUSY_MS}")

    def wal_bytes(self) -> int:
        """The size of the write-ahead log beside the journal, in bytes (0: none)."""
        with contextlib.suppress(OSError):
            return os.path.getsize(self.real + "-wal")
        return 0


__all__ = ["WAL_SIZE_LIMIT", "WRITE_BUSY_MS", "WalUpkeep"]
