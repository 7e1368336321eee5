"""The writer's write-ahead log: its limits, and copying it into the journal."""

from __future__ import annotations

import contextlib
import os
import sqlite3

WAL_SIZE_LIMIT = 4 * 1024 * 1024

# Then the write fails and the table retries by itself; within the table thread's heartbeat
# under the watchdog (WatchdogSec=10: 4.75 s).
WRITE_BUSY_MS = 2000


class WalUpkeep:
    """Checkpoints for a journal writer (attributes set by the journal as it opens)."""

    db: sqlite3.Connection
    readonly: bool
    real: str

    def checkpoint(self, truncate: bool = True) -> bool:
        """Checkpoint the log into the journal, waiting for no reader (False: try later).

        ``truncate`` empties the log's file too; without, the next commit writes over it.
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
