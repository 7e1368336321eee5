"""The verifier's cheap checks of a journal's file (stage 3 of :mod:`controller.game.verifier`).

No rehash nor replay: numbering without gaps, ``PRAGMA quick_check``, at start-up the rows
before its start point (docs/journal-format.md, "The verifier's stages").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.game.round import RoundState
from controller.game.verdict import UNSEALED, Note, Problem, ProblemKind
from controller.game.verifier_support import loads_or_none, one_line

if TYPE_CHECKING:
    from controller.journal import Journal

FINISHED = (RoundState.SETTLED.value, RoundState.VOID.value)


class Stop(Exception):
    """A stage found a problem: the check ends."""


@dataclass(frozen=True, slots=True)
class Seen:
    """The start point's round, recall and counters, read before the replay."""

    round_id: int
    recall: list[tuple[int, dict[str, Any]]]
    rejected: int | None
    voids: int | None


@dataclass(frozen=True, slots=True)
class _Cut:

    round_id: int = 1
    rejected: int = 0
    voids: int = 0


class HistoryChecks:
    """The cheap checks, as methods of the verifier's check (which sets what is declared)."""

    j: Journal
    start: int
    problems: list[Problem]
    notes: list[str]
    add: Callable[..., None]
    stop: Callable[..., None]
    compare_round: Callable[[int, dict[str, Any], int], None]

    def count_events(self, _seen: Seen) -> None:
        """The events numbered from the file's first (1, or the one after its cut) on."""
        db, last, base = self.j.db, self.j.last_seq, self.j.base_seq
        n, first = db.execute("SELECT COUNT(*), MIN(seq) FROM events").fetchone()
        if n == last - base and first in (base + 1, None):
            return
        if first <= base:
            self.stop(ProblemKind.EVENT_ALTERED, f"an event numbered {first} was added: events "
                      f"are numbered from {base + 1}", first)
        gap = base + 1 if first > base + 1 else db.execute(
            "SELECT a.seq + 1 FROM events a WHERE a.seq < ? AND NOT EXISTS (SELECT 1 FROM "
            "events b WHERE b.seq = a.seq + 1) ORDER BY a.seq LIMIT 1", (last,)).fetchone()[0]
        after = db.execute("SELECT MIN(seq) FROM events WHERE seq > ?", (gap,)).fetchone()[0]
        self.stop(ProblemKind.EVENT_MISSING, f"event {gap} is missing (next present is "
                  f"{after})", gap)

    def check_pages(self, _seen: Seen) -> None:
        """SQLite's check of every page of the file."""
        found = [r[0] for r in self.j.db.execute("PRAGMA quick_check(4)") if r[0] != "ok"]
        if found:
            self.stop(ProblemKind.UNREADABLE, "the journal's file is damaged: "
                      + one_line("; ".join(map(str, found))))

    def check_history(self, seen: Seen) -> None:
        """What start-up can check before its start point without a replay."""
        if not self.start:
            return
        live = self.j
        if self.start < live.base_seq and live.archive is not None:
            self.j = live.archive  # the start point is in the archive: so are its records
            try:
                self.check_history(seen)
            finally:
                self.j = live
            return
        cut = self._cut()
        if cut is None:
            return
        j, s, first = self.j, self.start, seen.round_id
        db = j.db
        n, lo = db.execute("SELECT COUNT(*), MIN(round_id) FROM rounds WHERE round_id < ?",
                           (first,)).fetchone()
        if lo is not None and lo < cut.round_id:
            self.add(ProblemKind.ROUND, f"a record of round {lo} was added: the replay has "
                     "none", key=lo)
        elif n != first - cut.round_id:
            (rid,) = db.execute(
                "SELECT MIN(a.round_id) + 1 FROM (SELECT ? AS round_id UNION ALL SELECT "
                "round_id FROM rounds WHERE round_id < ?) a WHERE NOT EXISTS (SELECT 1 FROM "
                "rounds b WHERE b.round_id = a.round_id + 1)", (cut.round_id - 1, first)
            ).fetchone()
            self.add(ProblemKind.ROUND, f"the record of round {rid} is missing: it was "
                     "deleted", key=rid)
        reported = {int(p.key) for p in self.problems if p.kind is ProblemKind.ROUND}
        (self._records if j.format == 1 else self._rows)(first, reported)
        recalled = min((rid for rid, _ in seen.recall), default=first)
        ends = {rid: end for rid, _, end in j.store.round_ends(max(cut.round_id, recalled))}
        for rid, rec in seen.recall:  # the newest rounds before it: held whole by the snapshot
            if rid not in reported and rid >= cut.round_id:
                self.compare_round(rid, rec, ends.get(rid) or 0)
        if j.format != 1 and seen.voids is not None and not any(
                p.kind in (ProblemKind.ROUND, ProblemKind.ROUND_UNREADABLE)
                for p in self.problems):
            voids = db.execute("SELECT COUNT(*) FROM rounds WHERE round_id < ? AND status = ?",
                               (first, RoundState.VOID.value)).fetchone()[0]
            if voids != seen.voids - cut.voids:
                self.add(ProblemKind.ROUND, f"{voids} rounds before round {first} are stored as "
                         f"void, but the verified snapshot counts {seen.voids - cut.voids}: the "
                         "status of one was changed")
        self._rejections(seen, cut)
        for seq in j.store.snapshot_seqs():
            if seq >= s:
                break
            row = j.store.snapshot(seq)
            if row is None or not j.snapshot_ok(*row):
                self.add(ProblemKind.SNAPSHOT, UNSEALED.format(seq), seq)

    def _cut(self) -> _Cut | None:
        """The state at the journal's cut (None: unreadable; a problem or a note says so)."""
        b = self.j.base_seq
        if not b:
            return _Cut()
        row = self.j.store.snapshot(b)
        if row is None or not self.j.snapshot_ok(*row):
            self.add(ProblemKind.SNAPSHOT, f"the snapshot after event {b}, where the journal "
                     "was cut, is missing or not sealed to the cut: it was changed", b)
            return None
        state = loads_or_none(row[2])
        try:
            counters = state["meters"]["counters"]
            return _Cut(int(state["round_id"]), int(counters.get("rejected", 0)),
                        int(counters.get("voids", 0)))
        except (TypeError, KeyError, ValueError, AttributeError):  # sealed: no edit
            self.notes.append(Note(f"the snapshot after event {b}, where the journal was "
                                   "cut, cannot be read by this version: the records before "
                                   "the start point were not checked",
                                   "cut_snapshot_unreadable", seq=b))
            return None

    def _records(self, first: int, reported: set[int]) -> None:
        cols = ("status", "void_reason", "started_utc", "ended_utc")
        differ = " OR ".join(f"json_extract(record, '$.{c}') IS NOT {c}" for c in cols)
        for rid, *row, text in self.j.db.execute(
                "SELECT round_id, status, void_reason, started_utc, ended_utc, record FROM "
                "rounds WHERE round_id < ? AND CASE WHEN json_valid(record) THEN "
                "json_type(record) != 'object' OR json_extract(record, '$.round_id') IS NOT "
                f"round_id OR {differ} ELSE 1 END ORDER BY round_id", (first,)):
            reported.add(rid)
            stored = loads_or_none(text)
            if not isinstance(stored, dict):
                self.add(ProblemKind.ROUND_UNREADABLE if stored is None else ProblemKind.ROUND,
                         f"the record of round {rid} is not readable" if stored is None
                         else f"the record of round {rid} was changed (record)", key=rid)
                continue
            changed = [c for c, v in zip(cols, row, strict=True) if stored.get(c) != v]
            changed += ["record round_id"] if stored.get("round_id") != rid else []
            if changed:
                self.add(ProblemKind.ROUND, f"the record of round {rid} was changed "
                         f"({', '.join(changed)})", key=rid)

    def _rows(self, first: int, reported: set[int]) -> None:
        """Format 2: round rows before ``first`` readable, finished, in order."""
        for rid, status, end, before in self.j.db.execute(
                "SELECT * FROM (SELECT round_id, status, seq, LAG(seq, 1, ?) OVER (ORDER BY "
                "round_id) AS before FROM rounds WHERE round_id < ?) WHERE typeof(status) != "
                "'text' OR typeof(seq) != 'integer' OR status NOT IN (?, ?) OR seq > ? OR "
                "(typeof(before) = 'integer' AND seq <= before)",
                (self.j.base_seq, first, *FINISHED, self.start)):
            if not isinstance(status, str) or type(end) is not int:
                self.add(ProblemKind.ROUND_UNREADABLE, f"the record of round {rid} is not "
                         "readable", key=rid)
                reported.add(rid)
                continue
            changed = ["status"] if status not in FINISHED else []
            if end > self.start or (type(before) is int and end <= before):
                changed.append("seq")
            if changed:
                self.add(ProblemKind.ROUND, f"the record of round {rid} was changed "
                         f"({', '.join(changed)})", key=rid)
                reported.add(rid)

    def _rejections(self, seen: Seen, cut: _Cut) -> None:
        s = self.start
        n, lo, texts = self.j.db.execute(
            "SELECT COUNT(*), MIN(seq), SUM(typeof(reason) = 'text') FROM rejections WHERE "
            "seq <= ?", (s,)).fetchone()
        counted = n if seen.rejected is None else seen.rejected - cut.rejected
        if lo is not None and lo <= self.j.base_seq:
            self.add(ProblemKind.REJECTION, f"a rejection of event {lo} was added: the replay "
                     "accepted it", lo)
        elif n != counted:
            self.add(ProblemKind.REJECTION, f"{n} rejections of events {self.j.base_seq + 1} "
                     f"to {s} are stored, but the verified snapshot counts {counted}: one was "
                     "deleted or added")
        elif n != (texts or 0):
            self.add(ProblemKind.REJECTION, f"a rejection of events {self.j.base_seq + 1} to "
                     f"{s} is not text: it was changed")


__all__ = ["FINISHED", "HistoryChecks", "Seen", "Stop"]
