"""The floor's broker lost and back, as the table journals it (docs/requirements.md R20).

Only an outage past :data:`GRACE_S` is reported: shorter ones lose nothing (the feed
resends from the journal), and records of them would bury those that matter.
"""

from __future__ import annotations

import time
from collections.abc import Callable

GRACE_S = 5.0

# report(state, detail, away_ms): "lost" (why, 0) or "back" (what proved it, ms).
Report = Callable[[str, str, int], object]


class Outage:
    """The feed's outage in progress (``since``: monotonic seconds), and whether it was said."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.why = ""
        self.said = False

    def lost(self, why: str, now: float | None = None) -> None:
        """A connection the broker accepted is lost (the first loss of an outage counts)."""
        if self.since is None:
            self.since, self.why = time.monotonic() if now is None else now, why

    def due(self, report: Report | None, now: float | None = None) -> None:
        """Report the loss once the outage has lasted :data:`GRACE_S` (once)."""
        now = time.monotonic() if now is None else now
        if self.since is not None and not self.said and now - self.since >= GRACE_S:
            self.said = True
            if report is not None:
                report("lost", self.why, 0)

    def back(self, report: Report | None, detail: str, now: float | None = None) -> None:
        """A message was acknowledged: the outage, if any, is over (reported if its loss was).

        ``detail`` says what proved the broker back; ``now`` is monotonic seconds.
        """
        if self.since is None:
            return
        now = time.monotonic() if now is None else now
        if self.said and report is not None:
            report("back", detail, round((now - self.since) * 1000))
        self.since, self.why, self.said = None, "", False


__all__ = ["GRACE_S", "Outage", "Report"]
