"""A journal's times corrected for its clock steps (recall, the shift report).

``corrected = utc + the steps journaled after the event``: every time is on the newest
event's clock and in event order (docs/journal-format.md, "Clock steps").
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any

from controller.game.clock_steps import CLOCK_STEP
from controller.game.inputs import ClockStep, NextRound, decode_body
from controller.game.verdict import Note
from controller.journal import Journal, Record


def parse_time(utc: str) -> datetime:
    """An ISO 8601 time as an aware UTC time (no offset: UTC); ValueError if not one."""
    t = datetime.fromisoformat(utc)
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def step_parts(ms: int) -> tuple[bool, int, str]:
    """A step's size in parts: (set back, whole days, the rest as ``HH:MM:SS.mmm``)."""
    days, rest = divmod(abs(ms), 86_400_000)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return ms < 0, days, f"{hours:02d}:{minutes:02d}:{rest // 1000:02d}.{rest % 1000:03d}"


def step_words(ms: int) -> str:
    """A step's size in words: ``set back 2 d 00:00:00.000``, ``set forward 00:00:03.500``."""
    back, days, clock = step_parts(ms)
    return ("set back " if back else "set forward ") + (f"{days} d " if days else "") + clock


@dataclass(frozen=True, slots=True)
class JournaledStep:
    """A ``clock_step`` event as read from a journal (``ms`` signed, negative: set back)."""

    seq: int
    utc: str
    ms: int
    wall_before: str
    restart: bool = False

    def parts(self) -> tuple[bool, int, str]:
        """Its size in parts (:func:`step_parts`)."""
        return step_parts(self.ms)

    def words(self) -> str:
        """``clock set back 2 d 00:00:00.000 at event 12 (2026-...: 2026-... before)``."""
        size = step_words(self.ms).replace("back ", "back at least " if self.restart else "back ")
        return (f"clock {size} at event {self.seq} ({self.utc}; "
                f"{self.wall_before} before{', across a restart' if self.restart else ''})")

    def as_dict(self) -> dict[str, Any]:
        """JSON form: ``seq``, ``utc``, ``ms``, ``wall_before``, ``restart``."""
        return {"seq": self.seq, "utc": self.utc, "ms": self.ms,
                "wall_before": self.wall_before, "restart": self.restart}


def _seqs_of(j: Any, kind: str) -> list[int]:
    older = [s for s in _seqs_of(j.archive, kind) if s <= j.base_seq] if j.archive else []
    return older + [s for s in j.store.seqs_of(kind) if s > j.base_seq]


def journaled_steps(journal: Journal) -> list[JournaledStep]:
    """Every clock step a journal holds, in order, unreadable ones skipped (JournalError)."""
    out = []
    for seq in _seqs_of(journal, CLOCK_STEP):
        rec = next(journal.records(seq - 1, seq), None)
        try:
            body = decode_body(CLOCK_STEP, json.loads(rec.body)) if rec else None
        except ValueError:  # the verifier names what is wrong with it
            continue
        if isinstance(body, ClockStep) and rec is not None:
            out.append(JournaledStep(seq, rec.utc, body.ms, body.wall_before, body.restart))
    return out


class Corrections:
    """The corrections a journal's clock steps make to its times."""

    def __init__(self, steps: Iterable[JournaledStep] = ()) -> None:
        self.steps = sorted(steps, key=lambda s: s.seq)
        self._seqs = [s.seq for s in self.steps]
        self._after = list(accumulate((s.ms for s in reversed(self.steps)), initial=0))[::-1]

    @classmethod
    def of(cls, journal: Journal) -> Corrections:
        """The corrections of a journal's steps (:func:`journaled_steps`)."""
        return cls(journaled_steps(journal))

    def __bool__(self) -> bool:
        return bool(self.steps)

    def ms_after(self, seq: int) -> int:
        """The sum of the steps journaled after event ``seq``, milliseconds."""
        return self._after[bisect.bisect_right(self._seqs, seq)]

    def since(self, seq: int) -> list[JournaledStep]:
        """The steps journaled after event ``seq``."""
        return self.steps[bisect.bisect_right(self._seqs, seq):]

    def shown(self, seq: int) -> list[JournaledStep]:
        """The steps journaled after event ``seq``, each at its corrected time."""
        return [replace(s, utc=self.text(s.seq, s.utc)) for s in self.since(seq)]

    def between(self, after: int, upto: int | None) -> list[JournaledStep]:
        """The steps after event ``after`` and at or before ``upto`` (None: any)."""
        return [s for s in self.since(after) if upto is None or s.seq <= upto]

    def time(self, seq: int, utc: str) -> datetime:
        """Event ``seq``'s time ``utc``, corrected (ValueError: not ISO 8601)."""
        return parse_time(utc) + timedelta(milliseconds=self.ms_after(seq))

    def text(self, seq: int, utc: str) -> str:
        """:meth:`time` as ISO 8601 text; ``utc`` itself when nothing corrects it."""
        if not self.ms_after(seq):
            return utc
        try:
            return self.time(seq, utc).isoformat()
        except ValueError:
            return utc

    def record(self, r: Record) -> Record:
        """A journal record with its time corrected."""
        return r if not self.ms_after(r.seq) else replace(r, utc=self.text(r.seq, r.utc))


def step_notes(journal: Journal) -> list[Note]:
    """A verdict's note for each clock step of the journal (facts, not faults)."""
    return [Note(s.words(), "clock_step", seq=s.seq, ms=s.ms, utc=s.utc,
                 before=s.wall_before) for s in journaled_steps(journal)]


def corrected_rounds(journal: Journal, records: list[dict[str, Any]],
                     fix: Corrections | None = None) -> list[dict[str, Any]]:
    """Game recall's records with their times corrected, in the same order.

    Corrected times keep the recorded ones beside them (``recorded_started_utc``...); steps
    during a round are ``clock_steps``; an end before the start is shown at the start.
    """
    fix = fix if fix is not None else Corrections.of(journal)
    if not fix:
        return records
    ends = {rid: end for rid, _, end in journal.round_ends()}
    rejected = journal.rejections()
    opens = [s for s in _seqs_of(journal, NextRound.name) if s not in rejected]
    out = []
    for rec in records:
        rid = rec["round_id"]
        prev = ends.get(rid - 1) if rid > 1 else 0  # None: format 1 keeps no last event
        end = ends.get(rid)
        start = 1 if rid == 1 else None if prev is None else \
            next((s for s in opens if s > prev), None)
        known = prev is not None and (end is not None or rec["status"] == "in_progress")
        out.append(_corrected(rec, fix, start if start is not None else end, end,
                              fix.between(prev or 0, end) if known else []))
    return out


def _corrected(rec: dict[str, Any], fix: Corrections, start: int | None, end: int | None,
               steps: list[JournaledStep]) -> dict[str, Any]:
    new = dict(rec)
    for key, seq in (("started_utc", start), ("ended_utc", end)):
        utc = rec.get(key)
        if utc and seq is not None:
            new[key] = fix.text(seq, utc)
            if new[key] != utc:
                new["recorded_" + key] = utc
    s, e = new.get("started_utc"), new.get("ended_utc")
    try:
        if s and e and parse_time(e) < parse_time(s):
            new["ended_utc"] = s
    except ValueError:
        pass
    if steps:
        new["clock_steps"] = [x.as_dict() for x in steps]
    return new


__all__ = ["Corrections", "JournaledStep", "corrected_rounds", "journaled_steps",
           "parse_time", "step_notes", "step_parts", "step_words"]
