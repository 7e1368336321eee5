"""Table clocks for tests: one that moves a fixed step at every batch (reproducible
journals), one a test moves by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 1, 1, tzinfo=UTC)
"""Batch 0 of every step clock."""
SECOND = 1_000_000_000
"""Nanoseconds in a second."""


class StepClock:
    """The table's clock (``utc()`` and ``monotonic_ns()``), one ``step`` on per batch.

    The table asks ``utc()`` once per batch: batch n is at ``START + n * step``, and its
    monotonic time is ``n * step`` in nanoseconds.

    Args:
        step: how far each batch moves the clock (one second unless said).
        start: the batches already counted (a clock that starts later, e.g. after a restart).
    """

    def __init__(self, step: timedelta = timedelta(seconds=1), start: int = 0) -> None:
        self.step = step
        self.n = start

    def utc(self) -> str:
        self.n += 1
        return (START + self.n * self.step).isoformat()

    def monotonic_ns(self) -> int:
        return self.n * (self.step // timedelta(microseconds=1)) * 1000


class HandClock:
    """A wall clock and a monotonic clock a test moves by hand: a machine without a
    real-time clock, whose wall clock NTP may step and whose monotonic clock starts again
    at each boot.

    Args:
        wall: the wall clock's time at the start.
        uptime_s: seconds since boot at the start (the monotonic clock).
    """

    def __init__(self, wall: datetime = START, uptime_s: int = 0) -> None:
        self.wall = wall
        self.mono = uptime_s * SECOND

    def utc(self) -> str:
        return self.wall.isoformat()

    def monotonic_ns(self) -> int:
        return self.mono

    def run(self, seconds: float) -> None:
        """Time passes: both clocks move on."""
        self.wall += timedelta(seconds=seconds)
        self.mono += round(seconds * SECOND)

    def step(self, delta: timedelta) -> None:
        """An NTP step: the wall clock jumps, no time elapses."""
        self.wall += delta

    def reboot(self, down_s: float, uptime_s: int) -> None:
        """Power off for ``down_s``, boot, start the table ``uptime_s`` after boot."""
        self.wall += timedelta(seconds=down_s + uptime_s)
        self.mono = uptime_s * SECOND
