"""Reading a journal: its events, chain, snapshots and derived rows, archive first."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from controller.game.text import for_terminal
from controller.journal import codec
from controller.journal.anchor import GENESIS, JournalError, JournalUnreadable
from controller.journal.codec import chain_hash
from controller.journal.store import RowError, Store, V1Store

_UNDECODABLE = re.compile(r"Could not decode to UTF-8 column '([^']{0,64})'")


def why_unreadable(real: str, exc: Exception) -> str:
    """Why SQLite could not read ``real``, in one line of printable text (not its bytes)."""
    found = _UNDECODABLE.search(str(exc))
    where = _undecodable(real, found.group(1)) if found else None
    return f"{where}: text that is not UTF-8" if where else for_terminal(exc)


def unusable(path: str, real: str, exc: Exception) -> JournalUnreadable:
    """The file ``real`` (given as ``path``) is no usable journal: why, in one line."""
    return JournalUnreadable(f"{path}: not a usable journal: {why_unreadable(real, exc)}")


def _undecodable(real: str, column: str) -> str | None:
    try:
        db = sqlite3.connect(f"file:{real}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    db.text_factory = bytes
    try:
        names = [r[0].decode("utf-8", "replace") for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        for name in names:
            cols = [r[1].decode("utf-8", "replace")
                    for r in db.execute("SELECT * FROM pragma_table_info(?)", (name,))]
            if column not in cols or not name.isidentifier():
                continue
            for key, value in db.execute(f'SELECT "{cols[0]}", "{column}" FROM "{name}" '
                                         f"WHERE typeof(\"{column}\") = 'text'"):
                if isinstance(value, bytes):
                    try:
                        value.decode("utf-8")
                    except UnicodeDecodeError:
                        row = key.decode("utf-8", "replace") if isinstance(key, bytes) else key
                        return (f"table {name}, row {for_terminal(row)}, "
                                f"column {for_terminal(column)}")
    except sqlite3.Error:
        return None
    finally:
        db.close()
    return None


class EventUnreadable(JournalError):
    """An event a reader needs cannot be read (torn or edited), or is ``missing``."""

    def __init__(self, path: str, exc: RowError) -> None:
        super().__init__(f"{path}: {exc}: not readable; run `threecard verify-journal`")
        self.seq, self.missing, self.problem = exc.seq, exc.missing, row_problem(exc)


def row_problem(exc: RowError) -> str:
    """What the chain's check says of a row that cannot be read (or is missing)."""
    if exc.missing:
        return f"event {exc.seq} is {exc.detail}"
    return f"event {exc.seq} was altered or torn: it cannot be decoded ({exc})"


def snapshot_hash(event_hash: str, state: str) -> str:
    """A snapshot's seal: its state bound to the chain hash of the event it follows."""
    return hashlib.sha256(f"{event_hash}\n{state}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The result of checking the hash chain (``bad_seq``: the first bad row, or None)."""

    ok: bool
    events: int
    bad_seq: int | None = None
    message: str = ""
    missing: bool = False
    unreadable: bool = False


@dataclass(frozen=True, slots=True)
class Record:
    """One journaled input as read back (``body``: its JSON text, as hashed)."""

    seq: int
    utc: str
    mono_ns: int
    kind: str
    actor: str
    body: str


class JournalReading:
    """The reading half of a journal (attributes set by :class:`~controller.journal.Journal`)."""

    path: str
    real: str
    db: sqlite3.Connection
    store: Store
    meta: dict[str, Any]
    last_seq: int
    base_seq: int
    base_hash: str
    archive: JournalReading | None
    archive_missing: str

    @property
    def first_seq(self) -> int:
        """The first event readable here: 1, or the one after the cut (archive not found)."""
        if not self.base_seq:
            return 1
        return self.archive.first_seq if self.archive is not None else self.base_seq + 1

    def _older(self, seq: int) -> JournalReading | None:
        return self.archive if self.archive is not None and seq <= self.base_seq else None

    def rows(self, first: int = 1, last: int | None = None, hashes: bool = True
             ) -> Iterator[tuple[Any, ...]]:
        """Event rows ``first <= seq <= last``, archive first, with their hashes (JournalError)."""
        if first <= self.base_seq:
            if self.archive is None:
                raise JournalError(f"{self.path}: {self.archive_missing}; give the archive")
            top = self.base_seq if last is None else min(last, self.base_seq)
            yield from self.archive.rows(first, top, hashes)
        try:
            yield from self.store.rows(max(first, self.base_seq + 1), last, hashes)
        except RowError as exc:
            raise EventUnreadable(self.path, exc) from None

    def records(self, after: int = 0, upto: int | None = None) -> Iterator[Record]:
        """Event records with ``after < seq (<= upto)``, in order (archive first)."""
        for row in self.rows(after + 1, upto, hashes=False):
            yield Record(*row[:6])

    def times(self) -> Iterator[tuple[int, str]]:
        """(seq, utc) of every event, in order (archive first)."""
        if self.archive is not None:
            for seq, utc in self.archive.times():
                if seq > self.base_seq:
                    break
                yield seq, utc
        yield from self.store.times(self.base_seq + 1)

    def newest(self, kind: str, at_most: int | None = None) -> Record | None:
        """The newest event of ``kind`` at or before ``at_most`` (default: the newest)."""
        limit = self.last_seq if at_most is None else at_most
        row = self.store.newest_of_kind(kind, limit)
        if row is None and self.archive is not None:
            return self.archive.newest(kind, min(limit, self.base_seq))
        return Record(*row[:6]) if row else None

    def genesis(self) -> tuple[str, str]:
        """The first event's (hash, utc); ("", "") for an empty journal."""
        if self.base_seq:
            g = codec.hash_text(self.meta.get("genesis"))
            utc = self.meta.get("genesis_utc")
            return g, utc if isinstance(utc, str) else ""
        row = next(self.store.rows(1, 1), None)
        return (row[7], row[1]) if row else ("", "")

    def verify(self, start: int = 1, progress: Any = None, last: int | None = None,
               keep: list[Record] | None = None, heads: dict[int, str | None] | None = None
               ) -> ChainReport:
        """Recompute the hash chain (docs/requirements.md R4, R7), archive first.

        From event 1 the chain starts at :data:`GENESIS`, later at the pinned hash before
        ``start``. ``progress`` is called every 65,536 rows; ``keep`` takes the records checked
        (a replay then reads none); ``heads``: events whose computed hashes to fill in.
        """
        start = max(start, 1)
        n = 0
        if start <= self.base_seq:
            if self.archive is None:
                start = self.base_seq + 1
            else:
                rep = self.archive.verify(start, progress, self.base_seq, heads=heads)
                if not rep.ok:
                    return rep
                if self.archive.event_hash(self.base_seq) != self.base_hash:
                    return ChainReport(False, rep.events, self.base_seq, f"event "
                                       f"{self.base_seq}, the last of the archive, does not "
                                       "carry the hash the journal's cut holds: the archive "
                                       "was rewritten or replaced")
                n, start = rep.events, self.base_seq + 1
        return self._verify_file(start, last, progress, n, keep, heads)

    def _verify_file(self, start: int, last: int | None, progress: Any = None,
                     done: int = 0, keep: list[Record] | None = None,
                     heads: dict[int, str | None] | None = None) -> ChainReport:
        """Check this file's chain from ``start`` to ``last`` against every hash stored."""
        first = max(start, self.base_seq + 1)
        prev = (GENESIS if first == 1 else self.base_hash if first == self.base_seq + 1
                else None)
        expect, n = first, done
        every = 1 if self.store.format == 1 else codec.CHECKPOINT
        try:
            if prev is None and self.store.format != 1:
                prev = self.store.event_hash(first - 1)
                if prev is None:
                    return ChainReport(False, n, first - 1, f"event {first - 1} is missing",
                                       missing=True)
            for seq, utc, mono, kind, actor, body, rprev, h in self.store.rows(
                    first, last, hashes=False):
                if seq != expect:
                    return ChainReport(False, n, expect, f"event {expect} is missing "
                                       f"(next present is {seq})", missing=True)
                if prev is None:
                    prev = rprev
                computed = chain_hash(prev, seq, utc, mono, kind, actor, body)
                if (rprev is not None and rprev != prev) or (h is not None and h != computed):
                    since = seq - 1 if every == 1 else self.store.chain_start(seq)[0]
                    return ChainReport(False, n, seq, _altered(since, seq, h))
                if h is None and not seq % every:
                    return ChainReport(False, n, seq, f"event {seq} was altered: it is a "
                                       "checkpoint, but the hash it keeps was removed")
                prev, expect, n = computed, expect + 1, n + 1
                if heads is not None and seq in heads:
                    heads[seq] = computed
                if keep is not None:
                    keep.append(Record(seq, utc, mono, kind, actor, body))
                if progress is not None and not n & 0xFFFF:
                    progress(n)
        except RowError as exc:
            return ChainReport(False, n, exc.seq, row_problem(exc))
        except sqlite3.DatabaseError as exc:
            return ChainReport(False, n, expect, "the journal cannot be read: "
                               + why_unreadable(self.real, exc), unreadable=True)
        if last is not None and expect <= last:
            return ChainReport(False, n, expect, f"event {expect} is missing (the archive "
                               f"ends at event {expect - 1})", missing=True)
        return ChainReport(True, n)

    def commit_before(self, seq: int) -> int:
        """The newest event before the commit of ``seq`` (events of a commit share their times)."""
        span = 64
        try:
            while True:
                lo = max(seq - span, self.base_seq + 1)
                rows = list(self.store.rows(lo, seq, hashes=False))
                if not rows or rows[-1][0] != seq:
                    return 0
                times = rows[-1][1:3]
                for row in reversed(rows[:-1]):
                    if row[1:3] != times:
                        return row[0]
                if lo <= (self.store.first_seq() or seq):
                    return 0
                span *= 4
        except RowError:
            return 0

    def latest_snapshot(self, at_most: int | None = None) -> tuple[int, str, str] | None:
        """The newest snapshot (seq, seal, state JSON) at or before ``at_most``, or None."""
        limit = self.last_seq if at_most is None else at_most
        found = self.store.latest_snapshot(limit)
        if found is None and self.archive is not None:
            return self.archive.latest_snapshot(min(limit, self.base_seq))
        return found

    def snapshot(self, seq: int) -> tuple[int, str, str] | None:
        """The snapshot after event ``seq`` (seq, seal, state JSON), or None."""
        found = self.store.snapshot(seq)
        older = self._older(seq)
        return older.snapshot(seq) if found is None and older is not None else found

    def snapshot_seqs(self, after: int = -(2**63)) -> list[int]:
        """The events snapshots were taken after (``> after``), oldest first."""
        older = self.archive.snapshot_seqs(after) if self.archive is not None else []
        return sorted({*[s for s in older if s <= self.base_seq],
                       *self.store.snapshot_seqs(after)})

    def snapshots(self) -> list[tuple[int, str, str]]:
        """Every snapshot (seq, seal, state JSON), oldest first (read one by one)."""
        return [s for s in map(self.snapshot, self.snapshot_seqs()) if s is not None]

    def derived_seq(self) -> int | None:
        """The event after which the derived tables were last written, or None."""
        try:
            row = self.db.execute("SELECT seq FROM derived_at WHERE id = 1").fetchone()
        except sqlite3.OperationalError:  # a journal from before this record was kept
            return None
        return row[0] if row else None

    def snapshot_ok(self, seq: int, seal: str, state: str) -> bool:
        """True when a snapshot's seal matches its state and the chain at ``seq`` (readable)."""
        try:
            h = self.event_hash(seq)
        except EventUnreadable:
            return False
        return h is not None and snapshot_hash(h, state) == seal

    def event_hash(self, seq: int) -> str | None:
        """Event ``seq``'s chain hash (the cut's for the cut), None if absent; EventUnreadable."""
        if seq and seq == self.base_seq:
            return self.base_hash  # the journal's own record of it, whatever an archive says
        try:
            h = self.store.event_hash(seq)
        except RowError as exc:
            raise EventUnreadable(self.path, exc) from None
        if h is None and seq and seq < self.base_seq:
            older = self._older(seq)
            h = older.event_hash(seq) if older is not None else None
        return h

    def round_ends(self, first: int = -(2**63)) -> list[tuple[int, str, int | None]]:
        """Finished rounds from ``first``, archive first: (id, status, last event or None)."""
        live = self.store.round_ends(first)
        if self.archive is None:
            return live
        ids = {r[0] for r in live}
        return [r for r in self.archive.round_ends(first) if r[0] not in ids] + live

    def compare_round(self, rid: int, rec: dict[str, Any], seq: int
                      ) -> tuple[str, list[str]]:
        """The stored row of round ``rid`` against the replay's record made at ``seq``."""
        state, changed = self.store.compare_round(rid, rec, seq)
        if state == "missing" and self.archive is not None:
            return self.archive.compare_round(rid, rec, seq)
        return state, changed

    def stored_records(self, last: int | None = None) -> list[tuple[int, Any]]:
        """(round id, record JSON), newest first; format 2 keeps none (replay makes them)."""
        live = self.store.stored_records(last) if isinstance(self.store, V1Store) else []
        if self.archive is not None and (last is None or len(live) < last):
            live += self.archive.stored_records(None if last is None else last - len(live))
        return live

    def stored_meters(self) -> dict[str, Any]:
        """The meter tables as meters are journaled (``outcomes`` only when there are some)."""
        rows = {r[0]: list(r[1:]) for r in self.db.execute("SELECT * FROM meters")}
        counters = dict(self.db.execute("SELECT name, value FROM counters").fetchall())
        d = {"rows": rows, "counters": counters}
        try:
            outcomes = dict(self.db.execute("SELECT name, value FROM outcome_meters"))
        except sqlite3.OperationalError:  # read-only, written before: no such table
            outcomes = {}
        if outcomes:
            d["outcomes"] = outcomes
        return d

    def rejections(self, after: int = 0) -> dict[int, str]:
        """Map the seq of every rejected input after event ``after`` to its reason."""
        out = self.archive.rejections(after) if self.archive is not None else {}
        out = {k: v for k, v in out.items() if k <= self.base_seq}
        out.update(self.db.execute("SELECT seq, reason FROM rejections WHERE seq > ?",
                                   (after,)).fetchall())
        return out


def _altered(since: int, seq: int, stored: str) -> str:
    """What the check says of a stored hash that does not recompute (``since``: last good)."""
    if not stored:
        return f"event {seq} was altered or torn: its stored hash is not a hash"
    if since >= seq - 1:
        return f"event {seq} was altered or torn: its hash does not match"
    return (f"event {seq} was altered or torn, or one of events {since + 1} to {seq - 1}: "
            f"the chain from event {since + 1} does not recompute to the hash event {seq} "
            "keeps")


__all__ = ["ChainReport", "EventUnreadable", "JournalReading", "Record", "chain_hash",
           "row_problem", "snapshot_hash", "unusable", "why_unreadable"]
