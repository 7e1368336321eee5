"""A table clock for tests that moves a fixed step at every batch: reproducible journals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 1, 1, tzinfo=UTC)
"""Batch 0 of every step clock."""


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
