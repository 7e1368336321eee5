"""What the log and the service's status say of a locked table (docs/requirements.md R20).

Named at once, again after :data:`REPEAT_AFTER_S` and every :data:`REPEAT_EVERY_S`: never one
line scrolled away nor a flood; a cleared fault is said once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("threecard")

REPEAT_AFTER_S = 600.0
REPEAT_EVERY_S = 60.0


class LockNotice:
    """Says what locks the table, and when, to the log and the service's status."""

    def __init__(self, notifier: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.notifier = notifier
        self.clock = clock
        self.reason: str | None = None
        self.fault = False
        self.since = 0.0
        self.next_line = 0.0

    def show(self, locked: str | None, fault: bool = False) -> None:
        """Say what changed, or repeat a lasting lock when due (``fault``: a journal fault's)."""
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
    return f"JOURNAL FAULT: {locked.removeprefix('journal fault: ')}" if fault \
        else f"TABLE LOCKED: {locked}"


def _line(locked: str, fault: bool) -> str:
    if fault:
        return (f"{_status(locked, fault)}: every input is refused; play goes on by itself "
                "once a self-check proves the fault gone. If it lasts, call a technician.")
    return f"{_status(locked, fault)}. Call a technician."


__all__ = ["LockNotice", "REPEAT_AFTER_S", "REPEAT_EVERY_S"]
