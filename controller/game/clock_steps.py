"""Clock steps: the wall clock moved against the monotonic clock between two events.

A step is over 2 s plus 0.05 % of the time elapsed (docs/journal-format.md, "Clock steps").
A leaf: msgspec and the standard library only.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from msgspec import Meta, Struct

CLOCK_STEP = "clock_step"
BASE_NS = 2_000_000_000
RATE_PPM = 500
log = logging.getLogger("threecard")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NS_PER_MS = 1_000_000
Readings = tuple[str, int]


class ClockStep(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The journal body of a ``clock_step`` event (``ms`` signed: negative when set back)."""

    ms: Annotated[int, Meta(ge=-(2**62), le=2**62)]
    wall_before: Annotated[str, Meta(max_length=64)]
    wall_after: Annotated[str, Meta(max_length=64)]
    mono_before_ns: Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]
    mono_after_ns: Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]
    restart: bool = False


def wall_ns(utc: str) -> int | None:
    """Nanoseconds since 1970 of an ISO 8601 time (without an offset: UTC), else None."""
    try:
        t = datetime.fromisoformat(utc)
    except (TypeError, ValueError):
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return (t - _EPOCH) // timedelta(microseconds=1) * 1000


def allowed_ns(elapsed_ns: int) -> int:
    """How far the two clocks' progress may differ over ``elapsed_ns`` of monotonic time."""
    return BASE_NS + max(elapsed_ns, 0) * RATE_PPM // 1_000_000


def step_ns(wall_elapsed_ns: int, mono_elapsed_ns: int) -> int | None:
    """The step between two events of one process, ``wall - mono`` ns, or None within the bound."""
    drift = wall_elapsed_ns - mono_elapsed_ns
    return drift if abs(drift) > allowed_ns(mono_elapsed_ns) else None


def restart_step_ns(wall_elapsed_ns: int) -> int | None:
    """The step seen across a restart, in ns: the wall clock went back over 2 s, else None."""
    return wall_elapsed_ns if wall_elapsed_ns < -BASE_NS else None


def to_ms(ns: int) -> int:
    """Nanoseconds as whole milliseconds, rounded half away from zero."""
    ms = (abs(ns) + _NS_PER_MS // 2) // _NS_PER_MS
    return -ms if ns < 0 else ms


def find_step(before: Readings, after: Readings, restart: bool = False) -> ClockStep | None:
    """The clock step's body between two events' (UTC, monotonic ns), or None (also: unreadable)."""
    w0, w1 = wall_ns(before[0]), wall_ns(after[0])
    if w0 is None or w1 is None:
        return None
    ns = restart_step_ns(w1 - w0) if restart else step_ns(w1 - w0, after[1] - before[1])
    if ns is None:
        return None
    return ClockStep(ms=to_ms(ns), wall_before=before[0], wall_after=after[0],
                     mono_before_ns=before[1], mono_after_ns=after[1], restart=restart)


def step_body(step: ClockStep) -> dict[str, Any]:
    """A step's journal body as a dict (``restart`` only when set)."""
    body = {f: getattr(step, f) for f in step.__struct_fields__}
    if not step.restart:
        del body["restart"]
    return body


class ClockWatch:
    """The table's watch on its clocks: each batch against the one before."""

    def __init__(self) -> None:
        self._last: Readings | None = None
        self._started = False

    def seen(self, journal: Any, utc: str, mono_ns: int
             ) -> list[tuple[str, dict[str, Any], str, str]]:
        """The records to journal before a batch read at ``(utc, mono_ns)``: a step, or none."""
        restart = not self._started
        if restart:
            self._started = True
            self._last = _last_readings(journal)
        before, self._last = self._last, (utc, mono_ns)
        step = find_step(before, self._last, restart) if before is not None else None
        if step is None:
            return []
        log.warning("the wall clock was set %s by %d.%03d s%s (%s, then %s): journaled as "
                    "a clock step; readers correct earlier times by it",
                    "back" if step.ms < 0 else "forward", *divmod(abs(step.ms), 1000),
                    " at least, across a restart" if restart else "", step.wall_before,
                    step.wall_after)
        body = step_body(step)
        return [(CLOCK_STEP, body, "system",
                 json.dumps(body, sort_keys=True, separators=(",", ":")))]


def _last_readings(journal: Any) -> Readings | None:
    try:
        last = journal.last_seq
        rec = next(journal.records(last - 1, last), None) if last else None
    except Exception:  # noqa: BLE001 - a journal that cannot say: nothing to compare with
        return None
    return (rec.utc, rec.mono_ns) if rec is not None else None


def on_clock_step(game: Any, body: ClockStep, actor: str) -> None:
    """Apply a ``clock_step``: a fact about the clocks that changes nothing of the game."""


__all__ = ["BASE_NS", "CLOCK_STEP", "RATE_PPM", "ClockStep", "ClockWatch", "Readings",
           "allowed_ns", "find_step", "on_clock_step", "restart_step_ns", "step_body",
           "step_ns", "to_ms", "wall_ns"]
