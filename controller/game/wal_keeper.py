"""What the table thread does for its journal between inputs: the write-ahead log kept small.

After every round it closes, the table copies the log into the journal
(:meth:`~controller.journal.Journal.checkpoint`, the log's file kept for the next commits to
write over from its start, unless it grew past the warning's size): a table in continuous
play, which is never idle, keeps a log of about one round. Once no input was journaled
for a while, it empties the log's file too, and tries again later while a reader keeps it.
The log grows while a reader holds a read transaction: a warning is logged once it is
larger than the limit (a reader that never lets go), and a line when it is back.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("threecard")

CHECK_KEEP_S = 10.0
"""Seconds between two writes of a full check's progress (one commit each)."""


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
        """Copy the log into the journal when a round closed since the last call.

        Args:
            j: the table's :class:`~controller.journal.Journal`.
            rounds_closed: the game's count of rounds closed.
            warn_bytes: a log larger than this is logged as a warning.
        """
        if rounds_closed == self.rounds:
            return
        self.rounds = rounds_closed
        # a reader holding it: the next round, or when idle; a file grown large while a
        # reader held it is emptied too, once no reader does
        j.checkpoint(truncate=self.watch(j, warn_bytes) > warn_bytes)
        self.watch(j, warn_bytes)

    def tend(self, j: Any, now: float, idle_s: float, retry_s: float, warn_bytes: int) -> None:
        """Empty the log after ``idle_s`` seconds without a commit; say when it is large.

        Args:
            j: the table's :class:`~controller.journal.Journal`.
            now: monotonic seconds.
            idle_s: seconds without a commit before the log is emptied.
            retry_s: seconds between tries while a reader holds it.
            warn_bytes: a log larger than this is logged as a warning.
        """
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
        """Log a warning once the log is larger than ``warn_bytes``, a line once it is back.

        Returns:
            The log's size, in bytes.
        """
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
