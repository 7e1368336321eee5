"""What a table's floor feed makes of a journal, and what the floor should end holding."""

from __future__ import annotations

from pathlib import Path

from controller.game import recall as rc
from floor.follower import Follower


def feed_messages(journal: Path | str, table: str, **kw) -> list:
    """Every message a :class:`~floor.follower.Follower` makes of the journal (``kw``: its
    ``after``, ``rounds_from``, ``until``), in order."""
    f = Follower(journal, table, **kw)
    out = []
    try:
        while (batch := f.poll()) is not None:
            out += batch
    finally:
        f.close()
    return out


class Clock:
    """A monotonic clock a test moves by hand (``now``, seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def deliver(recorder, msgs: list) -> None:
    """Hand payloads to a :class:`~floor.recorder.Recorder` as the broker would."""
    from floor.messages import encode

    for m in msgs:
        recorder.on_message(m.table, m.name, encode(m))


def finished(journal: Path | str) -> list[dict]:
    """The journal's settled and voided rounds as ``recall --json`` shows them, newest
    first (with its archive)."""
    return [r for r in rc.recall(journal, 1_000_000) if r["status"] in ("settled", "void")]
