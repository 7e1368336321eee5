"""The one journal verifier: table start-up and ``threecard verify-journal`` (R3, R4, R7, R16).

:func:`check` names every problem in a :class:`JournalVerdict`, never a traceback; start-up
starts at the anchored snapshot so its cost is bounded (docs/journal-format.md, "The
verifier's stages").
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from controller.game.engine import Derived, Game, TableConfig
from controller.game.verdict import (
    CHECKED_TABLES,
    NO_ANCHOR,
    UNCHECKED_TABLES,
    UNSEALED,
    JournalVerdict,
    Note,
    Problem,
    ProblemKind,
    Recovery,
    after_anchor_note,
    unfinished_note,
    unreplayed_note,
)
from controller.game.verifier_history import HistoryChecks, Seen, Stop
from controller.game.verifier_seals import SealChecks, seal_end
from controller.game.verifier_support import (
    beside,
    in_background,
    interrupted_at,
    loads_or_none,
    one_line,
)
from controller.journal import AnchorError, Journal, JournalError, Record, snapshot_hash
from controller.journal.codec import CHECKPOINT
from controller.journal.read import EventUnreadable, why_unreadable

Progress = Callable[[int, int], None]
# Called at the replay's start point (event, state, None, None, None), then after each event
# (event, state, record, None or the refusal, derived rows): the shift report rides on it.
Observer = Callable[[int, Game, Record | None, str | None, Derived | None], None]

# What start-up spends at most on the cheap checks (stage 3); what it did not finish is noted.
HISTORY_SECONDS = 2.0


def check(journal: Journal, *, full: bool, config: TableConfig | None = None,
          logged: Iterable[tuple[int, str]] = (), progress: Progress | None = None,
          since: int | None = None, observe: Observer | None = None,
          keys: Sequence[bytes] = (),
          witness: tuple[int, str] | Sequence[tuple[int, str]] | None = None,
          checked: Callable[[int, str], None] | None = None) -> Recovery:
    """Check a journal and replay it; the verdict, and the replayed state when it is OK.

    ``full``: from the first event, else the anchored snapshot (or the newest sealed one up to
    ``since``). ``observe`` must not change the state; ``checked`` gets (event, seal) progress.
    """
    c = _Check(journal, full, config, progress, since)
    c.observe, c.keys, c.witness, c.checked = observe, keys, witness, checked
    return c.run(logged)


class _Check(SealChecks, HistoryChecks):
    observe: Observer | None = None
    checked: Callable[[int, str], None] | None = None

    def __init__(self, journal: Journal, full: bool, config: TableConfig | None,
                 progress: Progress | None, since: int | None = None) -> None:
        self.j = journal
        self.full = full
        self.since = since
        self.config = config
        self.progress = progress
        self.problems: list[Problem] = []
        self.notes: list[str] = []
        self.unreplayed: tuple[int, int] | None = None
        self.anchor = None
        self.start = 0
        self.snapshots = 0
        self.rounds = 0
        self.verified: tuple[int, str] | None = None
        self.kept: list[Any] | None = None  # the records the chain's check read
        self._done = 0
        self._todo = 0
        self._next_report = 0.0

    def add(self, kind: ProblemKind, message: str, seq: int | None = None,
            key: Any = None) -> None:
        self.problems.append(Problem(kind, message, seq, None if key is None else str(key)))

    def stop(self, kind: ProblemKind, message: str, seq: int | None = None) -> None:
        self.add(kind, message, seq)
        raise Stop

    def tick(self, n: int = 1) -> None:
        self._done += n
        if self.progress is not None:
            now = time.monotonic()
            if now >= self._next_report:
                self._next_report = now + 0.5
                self.progress(self._done, self._todo)

    def run(self, logged: Iterable[tuple[int, str]]) -> Recovery:
        out = Recovery(JournalVerdict())
        try:
            notes, self.problems = beside(self.j)  # what else the file holds, what it lacks
            self.notes += notes
            if self.problems:  # a schema object of its own: what the tables say is not read
                raise Stop
            self.check_anchor(logged)
            game = self.start_point()
            checked = self.start_file_checks(game)
            try:
                self._todo = 2 * (self.j.last_seq - self.start)
                self.check_chain()
                out.game, out.pending = self.replay(game)
            finally:
                checked()  # what it found comes first: its stage comes first
        except Stop:
            out.game, out.pending = None, []
        except sqlite3.DatabaseError as exc:  # a damaged file: a verdict, not a traceback
            self.add(ProblemKind.UNREADABLE, "the journal cannot be read: "
                     + one_line(why_unreadable(self.j.real, exc)))
        out.verdict = JournalVerdict(
            tuple(self.problems), self.j.last_seq, self.start + 1, self.snapshots,
            self.rounds, self.anchor.seq if self.anchor is not None else None,
            tuple(self.notes), self.unreplayed, *self.seal_facts())
        if out.verdict.ok:
            out.verified = self.verified
        else:
            out.game, out.pending = None, []
        return out

    # ------------------------------------------------------------ 1. the anchor
    def check_anchor(self, logged: Iterable[tuple[int, str]]) -> None:
        j = self.j
        try:
            self.anchor = j.read_anchor()
        except AnchorError as exc:
            self.stop(ProblemKind.ANCHOR, str(exc))
        heads = [(seq, h, "the logged head") for seq, h in logged]
        if self.anchor is None:
            if j.real != ":memory:":
                self.notes.append(NO_ANCHOR)
        elif self.anchor.seq:
            heads.insert(0, (self.anchor.seq, self.anchor.hash, "its anchor"))
        for seq, want, whose in heads:
            if seq > j.last_seq:
                if j.last_seq == 0:
                    self.stop(ProblemKind.EMPTIED, f"the journal holds no events, but {whose} "
                              f"names event {seq}: it was emptied or replaced", seq)
                self.stop(ProblemKind.TAIL_DELETED, f"the journal ends at event {j.last_seq}, "
                          f"but {whose} names event {seq}: events {j.last_seq + 1} to {seq} "
                          "were deleted", j.last_seq + 1)
            got = self.hash_at(seq)
            if got is None:
                self.stop(ProblemKind.EVENT_MISSING, f"event {seq} is missing ({whose} names "
                          "it)", seq)
            if not want or not got.startswith(want.lower()):
                self.stop(ProblemKind.REWRITTEN, f"event {seq} does not carry the hash {whose} "
                          f"holds ({want[:16]}): the journal was rewritten"
                          + ("" if j.format == 1 or not seq % CHECKPOINT else
                             ", or an event since the checkpoint before it altered"), seq)
        a = self.anchor
        covered = max(a.seq, seal_end(j.db)) if a is not None else 0  # a sealed journal's
        if a is not None and covered < j.last_seq:  # anchor follows its snapshots; a crash
            self.notes.append(after_anchor_note(covered, j.last_seq))  # leaves a few, a
            # forger more

    def hash_at(self, seq: int) -> str | None:
        """The chain hash of event ``seq`` (None: absent; a problem when unreadable)."""
        try:
            return self.j.event_hash(seq)
        except EventUnreadable as exc:
            self.stop(ProblemKind.EVENT_MISSING if exc.missing else ProblemKind.EVENT_ALTERED,
                      exc.problem, exc.seq)
        return None

    # ------------------------------------------------------------ 2. the start point
    def start_point(self) -> Game:
        a = self.anchor
        if a is not None and a.verified_seq:
            s = a.verified_seq
            row = self.j.snapshot(s)
            if row is None:
                self.stop(ProblemKind.SNAPSHOT, f"the snapshot after event {s}, which the "
                          "anchor names, was deleted", s)
            _, seal, state = row
            h = self.hash_at(s)
            if seal != a.verified_seal or h is None or snapshot_hash(h, state) != seal:
                self.stop(ProblemKind.SNAPSHOT, f"the snapshot after event {s} does not match "
                          "its anchor: it was changed" + (
                              "" if self.j.format == 1 or not s % CHECKPOINT else
                              ", or an event since the checkpoint before it"), s)
            self.verified = (s, seal)
            if not self.full and self.since is not None and self.since < s:
                found = self.j.latest_snapshot(self.since)
                if found is None or found[0] < self.j.first_seq - 1:
                    return self.start_from_first()
                s, _, state = found
                if not self.j.snapshot_ok(*found):
                    self.stop(ProblemKind.SNAPSHOT, f"the snapshot after event {s} is not "
                              "sealed to the chain: it was changed", s)
            if not self.full:
                try:
                    game = Game.from_dict(json.loads(state))
                except Exception:  # noqa: BLE001 - sealed and anchored, so not an edit
                    self.notes.append(Note(f"the snapshot after event {s} cannot be loaded by "
                                           "this version: checked from event 1",
                                           "snapshot_unloadable", seq=s))
                else:
                    self.start = s
                    game.take_derived()  # its own state is no row a crash kept back
                    return game
        return self.start_from_first()

    def start_from_first(self) -> Game:
        if self.j.first_seq > 1:
            return self.start_after_cut()
        return Game(self.config or TableConfig())

    def start_after_cut(self) -> Game:
        """Start from the snapshot after the cut (the archive, not found, is checked on its own)."""
        j, s = self.j, self.j.first_seq - 1
        self.notes.append(Note(j.archive_missing + ": not checked", "archive_missing",
                               last=j.base_seq))
        row = j.snapshot(s)
        if row is None or not j.snapshot_ok(*row):
            self.stop(ProblemKind.SNAPSHOT, f"the snapshot after event {s}, where the journal "
                      "was cut, is missing or not sealed to the cut: it was changed", s)
        try:
            game = Game.from_dict(json.loads(row[2]))
        except Exception:  # noqa: BLE001 - sealed to the cut, but this version cannot read it
            self.stop(ProblemKind.SNAPSHOT, f"the snapshot after event {s}, where the journal "
                      "was cut, cannot be loaded by this version", s)
        self.start = s
        return game

    # ------------------------------------------------------------ 3. the file, cheaply
    def start_file_checks(self, g: Game) -> Callable[[], None]:
        """Start the cheap checks on a thread (SQLite releases the GIL); what waits for them."""
        counters = g.meters.counters
        seen = Seen(g.round_id, [(r.round_id, r.to_dict()) for r in g.recall],
                    counters.get("rejected"), counters.get("voids"))
        if self.full or self.j.real == ":memory:":
            self.check_file(seen)
            return lambda: None
        try:
            older = self.j.archive.path if self.j.archive is not None else None
            sub = _Check(Journal(self.j.real, readonly=True, archive=older), False, None, None,
                         self.since)
        except JournalError:  # not readable a second time: here, then
            self.check_file(seen)
            return lambda: None
        sub.start = self.start
        waited = in_background(lambda: sub.check_file(seen), "journal-check")

        def checked() -> None:
            try:
                waited()
            except Stop:
                pass
            except sqlite3.DatabaseError:
                self.problems[:] = sub.problems  # its stage comes first, as in one thread
                raise
            finally:
                sub.j.close()
            self.notes += sub.notes
            self.unreplayed = self.unreplayed or sub.unreplayed
            self.rounds += sub.rounds
            if sub.problems:
                self.problems[:] = sub.problems
                raise Stop
        return checked

    def check_file(self, seen: Seen) -> None:
        """The cheap checks: no gap, history before the start (:data:`HISTORY_SECONDS`), pages."""
        deadline = time.monotonic() + HISTORY_SECONDS
        unfinished: list[str] = []  # the parts not finished (verdict.CHEAP_CHECKS)
        with contextlib.nullcontext() if self.full else interrupted_at(self.j.db, deadline):
            for part, check in (("count", self.count_events), ("records", self.check_history),
                                ("pages", self.check_pages)):
                if not self.full and time.monotonic() >= deadline:
                    unfinished.append(part)
                    continue
                try:
                    check(seen)
                except sqlite3.OperationalError as exc:
                    if self.full or "interrupt" not in str(exc):
                        raise
                    unfinished.append(part)
        where = "at start-up" if self.since is None else "here"
        if self.start > self.j.base_seq:
            self.unreplayed = (self.j.base_seq + 1, self.start)
            self.notes.append(unreplayed_note(*self.unreplayed, where))
        if unfinished:
            who = "start-up" if self.since is None else "this check"
            self.notes.append(unfinished_note(who, unfinished, HISTORY_SECONDS))
        if self.problems:
            raise Stop

    # ------------------------------------------------------------ 3. the chain
    def check_chain(self) -> None:
        base = self._done

        def rows_checked(n: int) -> None:
            self._done = base + n
            self.tick(0)

        # start-up's records are few (since its snapshot): kept for the replay
        self.kept = None if self.full or self.start < self.j.base_seq else []
        heads = self.seal_heads()
        rep = self.j.verify(max(self.start, 1), progress=rows_checked, keep=self.kept,
                            heads=heads)
        self._done = base + rep.events
        if not rep.ok:
            kind = (ProblemKind.EVENT_MISSING if rep.missing else
                    ProblemKind.UNREADABLE if rep.unreadable else ProblemKind.EVENT_ALTERED)
            self.stop(kind, rep.message, rep.bad_seq)
        self.check_seals(heads)

    # ------------------------------------------------------------ 4. the replay
    def replay(self, g: Game) -> tuple[Game, list[Derived]]:
        j, start, last = self.j, self.start, self.j.last_seq
        upto = self.derived_mark()
        # rows derived from an event before the newest commit's were written by then: a mark
        # before such an event was rolled back (events of one commit share their times)
        committed = j.commit_before(last)
        # from the first event, every stored round and rejection is compared, even one with
        # an id or seq no event can have (0 or below: forged)
        first_round = g.round_id if start else -(2**63)
        open_recs: dict[int, tuple[dict[str, Any], int]] = {}
        seen_rounds: set[int] = set()
        seen_snaps: set[int] = set()
        rejected: dict[int, str] = {}
        pending: list[Derived] = []
        if upto == start:
            self.compare_meters(g)
        if self.observe is not None:
            self.observe(start, g, None, None, None)
        for r in j.records(start) if self.kept is None else self.kept:
            if r.seq <= start:
                continue
            d = self.apply(g, r)
            if r.seq > upto:
                if d and r.seq <= committed:
                    self.stop(ProblemKind.DERIVED_MARK, f"the derived tables are marked as "
                              f"written after event {upto}, but the rows derived from event "
                              f"{r.seq} were committed with later events: they were rolled "
                              "back", r.seq)
                if d:
                    pending.append(d)
                continue
            for rid, rec in d.rounds.items():
                open_recs[rid] = (rec, d.ends.get(rid, r.seq))
            for seq, reason in d.rejections:
                rejected[seq] = reason
            if r.seq == j.base_seq:  # the cut: its own snapshot, the archive's meters
                d.snapshot = d.snapshot or (r.seq, g.dumps())
                self.compare_archive_meters(g)
            if d.snapshot is not None:
                self.compare_snapshot(*d.snapshot)
                seen_snaps.add(d.snapshot[0])
            if r.seq == upto:
                self.compare_meters(g)
                self.flush_rounds(open_recs, seen_rounds, None)
            elif open_recs:
                self.flush_rounds(open_recs, seen_rounds, g.round_id)
        self.flush_rounds(open_recs, seen_rounds, None)
        self.compare_rejections(rejected)
        self.find_added(first_round, seen_rounds, seen_snaps)
        if self.problems:
            raise Stop
        return g, pending

    def derived_mark(self) -> int:
        """The event the derived tables were written after, checked against the journal."""
        j, last = self.j, self.j.last_seq
        upto = j.derived_seq()
        if upto is None:
            if self.anchor is not None:
                self.stop(ProblemKind.DERIVED_MARK, "the record of the event the derived "
                          "tables were written after was deleted")
            upto = last  # a journal from before that record: compared at its end
        if type(upto) is not int or upto < 0:
            self.stop(ProblemKind.DERIVED_MARK, f"the record of the event the derived tables "
                      f"were written after holds {str(upto)[:40]!r}, not an event number: it "
                      "was changed")
        if upto > last:
            self.stop(ProblemKind.DERIVED_MARK, f"the derived tables were written after event "
                      f"{upto}, but the journal ends at event {last}: events {last + 1} to "
                      f"{upto} were deleted", last + 1)
        vseq = self.anchor.verified_seq if self.anchor is not None else 0
        if upto < vseq:
            self.stop(ProblemKind.DERIVED_MARK, f"the derived tables are marked as written after "
                      f"event {upto}, before the verified snapshot after event {vseq}: the "
                      "mark was changed", upto)
        return upto

    def apply(self, g: Game, r: Any) -> Derived:  # noqa: ANN401 - a journal record
        """Replay one journal record; the rows it derives."""
        body = loads_or_none(r.body)
        if not isinstance(body, dict):
            self.stop(ProblemKind.EVENT_UNREADABLE, f"event {r.seq} is not readable: its "
                      "body is not a JSON object", r.seq)
        try:
            refused = g.apply(r.seq, r.utc, r.kind, body, r.actor, mono_ns=r.mono_ns)
        except Exception as exc:  # noqa: BLE001 - any failure to replay is one fault
            self.stop(ProblemKind.REPLAY, f"Journal replay failed at event {r.seq}: {exc}",
                      r.seq)
        d = g.take_derived()
        if self.observe is not None:
            self.observe(r.seq, g, r, refused, d)
        self.tick()
        return d

    def find_added(self, first_round: int, seen_rounds: set[int],
                   seen_snaps: set[int]) -> None:
        """Rounds and snapshots stored that the replay does not have."""
        j = self.j
        for rid, _, _ in j.round_ends(first_round):
            if rid not in seen_rounds:
                self.add(ProblemKind.ROUND, f"a record of round {rid} was added: the replay "
                         "has none", key=rid)
        for seq in j.snapshot_seqs(self.start):
            if seq not in seen_snaps:  # unsealed: worded as start-up's cheap check words it
                sealed = (row := j.snapshot(seq)) is not None and j.snapshot_ok(*row)
                self.add(ProblemKind.SNAPSHOT, f"a snapshot after event {seq} was added: the "
                         "replay has none" if sealed else UNSEALED.format(seq), seq)

    def compare_archive_meters(self, g: Game) -> None:
        a = self.j.archive
        if a is None:
            return
        if a.derived_seq() == self.j.base_seq:
            self.compare_meters(g, a)
        else:
            cut = self.j.base_seq
            self.notes.append(Note(f"the archive runs past the cut at event {cut} (an archive "
                                   "run that did not finish): its rows after it not read",
                                   "archive_past_cut", seq=cut))

    def compare_meters(self, g: Game, journal: Journal | None = None) -> None:
        stored, live = (journal or self.j).stored_meters(), g.meters_dict()
        for what, kind, label in (("rows", ProblemKind.METERS, "meters"),
                                  ("counters", ProblemKind.COUNTERS, "event counters"),
                                  ("outcomes", ProblemKind.METERS, "outcome meters")):
            a, b = stored.get(what, {}), live.get(what, {})
            if a != b:
                names = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
                self.add(kind, f"the {label} were changed ({', '.join(names)})",
                         key=", ".join(names))

    def flush_rounds(self, open_recs: dict[int, tuple[dict[str, Any], int]], seen: set[int],
                     below: int | None) -> None:
        """Compare the rounds whose record can no longer change (ids below ``below``)."""
        for rid in sorted(open_recs):
            if below is not None and rid >= below:
                continue
            self.compare_round(rid, *open_recs.pop(rid))
            seen.add(rid)

    def compare_round(self, rid: int, rec: dict[str, Any], seq: int) -> None:
        self.rounds += 1
        state, changed = self.j.compare_round(rid, rec, seq)
        if state == "missing":
            self.add(ProblemKind.ROUND, f"the record of round {rid} is missing: it was "
                     "deleted", key=rid)
        elif state == "unreadable":
            self.add(ProblemKind.ROUND_UNREADABLE, f"the record of round {rid} is not "
                     "readable", key=rid)
        elif changed:
            self.add(ProblemKind.ROUND, f"the record of round {rid} was changed "
                     f"({', '.join(changed)})", key=rid)

    def compare_snapshot(self, seq: int, state: str) -> None:
        self.snapshots += 1
        row = self.j.snapshot(seq)
        if row is None:
            self.add(ProblemKind.SNAPSHOT, f"the snapshot after event {seq} is missing: it was "
                     "deleted", seq)
            return
        _, seal, stored = row
        if not self.j.snapshot_ok(seq, seal, stored):
            self.add(ProblemKind.SNAPSHOT, UNSEALED.format(seq), seq)
            return
        same = _same_state(stored, state)
        if not same:
            self.add(ProblemKind.SNAPSHOT, f"the snapshot after event {seq} differs from the "
                     "replay: it was changed", seq)
            return
        if self.verified is None or seq > self.verified[0]:
            self.verified = (seq, seal)
        if self.checked is not None and not self.problems:
            self.checked(seq, seal)

    def compare_rejections(self, expected: dict[int, str]) -> None:
        stored = self.j.rejections(after=self.start if self.start else -(2**63))
        for seq in sorted(expected.keys() | stored.keys()):
            want, got = expected.get(seq), stored.get(seq)
            if got == want:
                continue
            if got is None:
                msg = f"the rejection of event {seq} is missing: it was deleted"
            elif want is None:
                msg = f"a rejection of event {seq} was added: the replay accepted it"
            else:
                msg = f"the rejection of event {seq} was changed"
            self.add(ProblemKind.REJECTION, msg, seq)


__all__ = ["CHECKED_TABLES", "JournalVerdict", "NO_ANCHOR", "Problem", "ProblemKind", "Progress",
           "Recovery", "UNCHECKED_TABLES", "check"]


def _same_state(stored: str, replayed: str) -> bool:
    """A stored snapshot equals the replayed state, as this version reads it (older keys mapped)."""
    try:
        if json.loads(stored) == json.loads(replayed):
            return True
        return json.loads(Game.from_dict(json.loads(stored)).dumps()) == json.loads(replayed)
    except Exception:  # noqa: BLE001 - an unreadable snapshot is simply not the same
        return False
