"""The write-ahead log kept to about a round by the table thread, checkpointed between inputs.

A reader's long transaction makes it grow: a warning past the limit, a line when back.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("threecard")

CHECK_KEEP_S = 10.0


@dataclass
class WalKeeper:
    """What the table thread knows of the journal's write-ahead log."""

    commits: int = -1  # the journal's commit count when last seen
    since: float = 0.0  # when that count was first seen (monotonic)
    emptied: int = -1  # the commit count at the last emptying
    retry_at: float = 0.0  # no new try before this (monotonic)
    warned: bool = False  # a warning about its size stands
    check_kept: float = float("-inf")  # when a full check's progress was last written
    rounds: int = 0  # the game's rounds closed when last seen

    def between_rounds(self, j: Any, rounds_closed: int, warn_bytes: int) -> None:
        """Copy the log into the journal when a round closed since the last call."""
        if rounds_closed == self.rounds:
            return
        self.rounds = rounds_closed
        # a reader holding it: the next round, or when idle; a file grown large while a
        # reader held it is emptied too, once no reader does
        j.checkpoint(truncate=self.watch(j, warn_bytes) > warn_bytes)
        self.watch(j, warn_bytes)

    def tend(self, j: Any, now: float, idle_s: float, retry_s: float, warn_bytes: int) -> None:
        """Empty the log after ``idle_s`` without a commit (retry every ``retry_s``)."""
        if self.emptied == j.commits or now - self.since < idle_s or now < self.retry_at:
            return
        try:
            emptied = j.checkpoint()
        except sqlite3.Error as exc:  # the journal's own writes will say more
            log.warning("journal %s: write-ahead log not emptied: %s", j.path, exc)
            emptied = False
        if emptied:
            self.emptied = j.commits
        else:
            self.retry_at = now + retry_s
        self.watch(j, warn_bytes)

    def watch(self, j: Any, warn_bytes: int) -> int:
        """The log's size in bytes; a warning once over ``warn_bytes``, a line once back."""
        size = j.wal_bytes()
        if size > warn_bytes and not self.warned:
            log.warning("journal %s: its write-ahead log is %d bytes: a reader (recall, a "
                        "backup) has held it for a long time; it is emptied once the reader "
                        "lets go", j.path, size)
            self.warned = True
        elif size <= warn_bytes and self.warned:
            log.info("journal %s: its write-ahead log is back to %d bytes", j.path, size)
            self.warned = False
        return size


__all__ = ["CHECK_KEEP_S", "WalKeeper"]
