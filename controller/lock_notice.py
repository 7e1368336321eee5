"""What the log and the service's status say of a locked table (docs/requirements.md R20).

A table locked (a broken journal, a seal key that does not fit, a write no retry clears)
or in a journal fault (which clears itself: :mod:`controller.game.journal_fault`) is
named at once: one error line in the log, and the systemd status (``STATUS=``, shown by
``systemctl status``). While it lasts the log says nothing more for
:data:`REPEAT_AFTER_S`, then names it again once every :data:`REPEAT_EVERY_S`: a lock
nobody cleared is not left to one line long scrolled away, nor does it flood the log. A
journal fault that cleared is said once too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("threecard")

REPEAT_AFTER_S = 600.0
"""Seconds a lock lasts before the log names it again."""
REPEAT_EVERY_S = 60.0
"""Seconds between two lines naming a lock that lasts, after :data:`REPEAT_AFTER_S`."""


class LockNotice:
    """Says what locks the table, and when, to the log and the service's status.

    Args:
        notifier: the systemd notifier (:class:`~controller.notify.Notifier`).
        clock: monotonic seconds (injected by tests).
    """

    def __init__(self, notifier: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.notifier = notifier
        self.clock = clock
        self.reason: str | None = None
        self.fault = False
        self.since = 0.0
        self.next_line = 0.0

    def show(self, locked: str | None, fault: bool = False) -> None:
        """Say what changed, or repeat a lock that lasts when a line is due.

        Args:
            locked: why the table is locked now (the table's ``locked``), or None.
            fault: ``locked`` is a journal fault's, which the table retries.
        """
        now = self.clock()
        if locked != self.reason:
            if locked is not None:
                log.error("%s", _line(locked, fault))
                self.notifier.status(_status(locked, fault))
            elif self.fault:
                log.info("journal fault cleared after %d s: play goes on", now - self.since)
                self.notifier.status(f"journal fault cleared after {now - self.since:.0f} s; "
                                     "play goes on")
            self.reason, self.fault = locked, fault
            self.since, self.next_line = now, now + REPEAT_AFTER_S
        elif locked is not None and now >= self.next_line:
            log.error("%s (for %d minutes)", _line(locked, fault), (now - self.since) // 60)
            self.next_line = now + REPEAT_EVERY_S


def _status(locked: str, fault: bool) -> str:
    """The service's status line of a lock."""
    return f"JOURNAL FAULT: {locked.removeprefix('journal fault: ')}" if fault \
        else f"TABLE LOCKED: {locked}"


def _line(locked: str, fault: bool) -> str:
    """The log line of a lock."""
    if fault:
        return (f"{_status(locked, fault)}: every input is refused; play goes on by itself "
                "once a self-check proves the fault gone. If it lasts, call a technician.")
    return f"{_status(locked, fault)}. Call a technician."


__all__ = ["LockNotice", "REPEAT_AFTER_S", "REPEAT_EVERY_S"]
