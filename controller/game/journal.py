"""The journal: an append-only, hash-chained SQLite record of every input (R1, R4, R7).

One row per input in ``events`` (sequence number, UTC and monotonic times, kind,
actor, JSON body, previous hash, hash), written and committed BEFORE the input is
applied. SQLite runs in WAL mode with ``synchronous=FULL``, so a commit is on disk
when it returns. Several inputs already waiting may share one commit (group commit);
each keeps its own row and hash, and none is applied before its commit.

Derived tables, rebuilt from the events whenever needed and written as absolute values
(so writing them twice is harmless): ``rounds`` (one game-recall record per finished
round), ``meters`` and ``counters``, ``snapshots`` (the full state after a given
event, so start-up replays only the tail) and ``rejections`` (why an input was
refused). They ride in the next commit after the input that produced them, or in a
commit of their own when the table goes idle. ``derived_at`` names the event they
reflect: every commit that carries derived rows moves it, in the same transaction, so
the derived tables always equal the replayed state at that event, whatever instant a
crash strikes (:mod:`controller.game.verifier` compares them there).

The anchor: the journal's head (sequence number and hash) and its newest verified
snapshot are also kept in a small file beside it, ``<journal>.anchor``
(:mod:`controller.game.anchor`), flushed to disk after each commit by a thread of its
own (a flush costs about what a commit does, and the table thread does not wait for
it; a burst of commits is anchored at its newest head). It may lag the journal by the
commits of one flush, never lead it: a journal shorter than its anchor, or with another
hash at the anchored event, was cut or rewritten. The table keeps it from the moment
start-up has verified the journal; closing brings it to the head.

The write-ahead log grows while a reader holds a read transaction; once readers leave, the
idle table empties it (:meth:`Journal.checkpoint`; SQLite's own cut it to WAL_SIZE_LIMIT).

One writer per journal, keyed by the real file (symlinks resolved:
:class:`~controller.game.journal_lock.WriterLock`); readers open the
file read-only (SQLite ``mode=ro``, and ``immutable=1`` when no write-ahead log is
beside it), so a journal on read-only media can be read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.game.anchor import (
    GENESIS,
    Anchor,
    AnchorError,
    AnchorFile,
    AnchorWriter,
    JournalError,
    real_path,
)
from controller.game.journal_lock import WriterLock

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY, utc TEXT NOT NULL, mono_ns INTEGER NOT NULL,
    kind TEXT NOT NULL, actor TEXT NOT NULL, body TEXT NOT NULL,
    prev TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (
    round_id INTEGER PRIMARY KEY, status TEXT NOT NULL, void_reason TEXT,
    started_utc TEXT, ended_utc TEXT, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meters (
    name TEXT PRIMARY KEY, wagered INTEGER, paid INTEGER, won INTEGER, rounds INTEGER,
    voids INTEGER, refunded INTEGER);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER);
CREATE TABLE IF NOT EXISTS outcome_meters (name TEXT PRIMARY KEY, value INTEGER);
CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, hash TEXT, state TEXT);
CREATE TABLE IF NOT EXISTS rejections (seq INTEGER PRIMARY KEY, reason TEXT);
CREATE TABLE IF NOT EXISTS derived_at (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER);
"""

OUTBOX_TABLE = "floor_outbox"
"""The floor feed's cursor, kept in the journal's file but no part of the journal: the
verifier leaves it out (:data:`controller.game.verifier.UNCHECKED_TABLES` says why)."""

_dumps = json.JSONEncoder(separators=(",", ":")).encode

WAL_SIZE_LIMIT = 4 * 1024 * 1024
"""``journal_size_limit``: about what the log holds between SQLite's own checkpoints."""


def chain_hash(prev: str, seq: int, utc: str, mono_ns: int, kind: str, actor: str,
               body: str) -> str:
    """The hash of one event row, chained to the previous row's hash."""
    return hashlib.sha256(f"{prev}\n{seq}\t{utc}\t{mono_ns}\t{kind}\t{actor}\t{body}"
                          .encode()).hexdigest()


def snapshot_hash(event_hash: str, state: str) -> str:
    """A snapshot's seal: its state bound to the chain hash of the event it follows."""
    return hashlib.sha256(f"{event_hash}\n{state}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The result of checking the hash chain.

    Attributes:
        ok: every row's hash recomputes and links to the row before it.
        events: rows checked.
        bad_seq: the first bad row, or None.
        message: what is wrong, in English.
        missing: True when the bad row is absent (a gap).
        unreadable: True when SQLite could not read the rows.
    """

    ok: bool
    events: int
    bad_seq: int | None = None
    message: str = ""
    missing: bool = False
    unreadable: bool = False


@dataclass(frozen=True, slots=True)
class Record:
    """One journaled input as read back."""

    seq: int
    utc: str
    mono_ns: int
    kind: str
    actor: str
    body: str


def _readonly_uri(path: str) -> str:
    """The read-only SQLite URI of a journal file.

    ``immutable=1`` when no write-ahead log is beside the file: SQLite then neither locks
    nor creates ``-wal``/``-shm`` files, so read-only media can be read. With a log
    beside it (a table running, or one that stopped without closing) ``mode=ro`` reads
    the log too.
    """
    uri = Path(path).as_uri() + "?mode=ro"
    if not os.path.exists(path + "-wal"):
        uri += "&immutable=1"
    return uri


class Journal:
    """An open journal file (or ``:memory:``).

    Args:
        path: the SQLite file; created when missing. ``:memory:`` for a throw-away one.
            A symlink is followed: the lock and the anchor belong to the real file.
        readonly: open for reading only (recall, meters, verify): nothing is created or
            changed beside the file, so read-only media can be read.

    Attributes:
        path: the path as given.
        real: the real file (symlinks resolved), or ``:memory:``.
        last_seq: the newest event's sequence number (0: none).
        last_hash: its chain hash (:data:`GENESIS` for none).
        anchor: the anchor read when a reader opened the journal (None: no anchor
            file); see :meth:`read_anchor`.
        commits: commits made by this object.

    Raises:
        JournalError: the file is not a regular file or not a usable SQLite database, or
            another table process holds it.
    """

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self.real = self.path if self.path == ":memory:" else real_path(self.path)
        self._writer_lock: WriterLock | None = None
        self._anchor: AnchorWriter | None = None
        self._verified: tuple[int, str] = (0, "")
        self.anchor: Anchor | None = None
        self.anchor_error: str | None = None
        try:
            if self.real != ":memory:":
                self._check_regular()
            if readonly:
                self._open_reader()
            else:
                self._open_writer()
            row = self.db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
                                  ).fetchone()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged, not a journal
            self._release_writer_lock()
            raise JournalError(f"{self.path}: not a usable journal: {exc}") from None
        except JournalError:
            self._release_writer_lock()
            raise
        self.last_seq, self.last_hash = row if row else (0, GENESIS)
        self.commits = 0

    def _check_regular(self) -> None:
        try:
            st = os.stat(self.real)
        except FileNotFoundError:
            if self.readonly:
                raise JournalError(f"{self.path}: no such journal") from None
            return
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc.strerror}"
                               ) from None
        if stat.S_ISDIR(st.st_mode):
            raise JournalError(f"{self.path}: is a directory; give the journal file's path")
        if not stat.S_ISREG(st.st_mode):
            raise JournalError(f"{self.path}: not a journal: not a regular file; a journal is "
                               "a file on a local disk")

    def _open_reader(self) -> None:
        # the anchor first: a running table writes it after its commit, so the read
        # transaction begun below sees at least the events it names
        try:
            self.anchor = AnchorFile.beside(self.real).read()
        except AnchorError as exc:
            self.anchor_error = str(exc)
        self.db = sqlite3.connect(_readonly_uri(self.real), uri=True, isolation_level=None,
                                  check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout=5000")
        try:
            tables = self.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if os.path.exists(self.real + "-wal") and not os.path.exists(self.real + "-shm"):
                raise JournalError(
                    f"{self.path}: its write-ahead log ({self.real}-wal) cannot be read "
                    f"here without its -shm file ({exc}); copy the journal with its -wal "
                    "file to a writable directory") from None
            raise
        if tables == 0:
            self.db.close()
            if self.anchor is None and self.anchor_error is None:  # nothing says it was one
                raise JournalError(f"{self.path}: not a journal: it reads as an empty file")
            # a journal emptied (an anchor beside it names events): read it as no events
            self.db = sqlite3.connect(":memory:", isolation_level=None,
                                      check_same_thread=False)
            self.db.executescript(SCHEMA)
        self._check_is_journal()
        # one read transaction: every read sees the same moment of a running table
        self.db.execute("BEGIN")

    def _open_writer(self) -> None:
        if self.real != ":memory:":
            self._writer_lock = WriterLock(self.real, self.path)
        self.db = sqlite3.connect(self.real, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout=5000")
        self._check_is_journal()
        if self.real != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        if self.db.execute("SELECT seq FROM events LIMIT 1").fetchone() is None:
            # no events, so nothing derived: the derived tables are those of event 0
            self.db.execute("INSERT OR IGNORE INTO derived_at VALUES (1, 0)")

    def _check_is_journal(self) -> None:
        tables = {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "events" not in tables:
            raise JournalError(f"{self.path}: this SQLite file is not a table journal "
                               f"(it holds {', '.join(sorted(tables)[:5])}); give another path")

    # ------------------------------------------------------------------ anchor
    def read_anchor(self) -> Anchor | None:
        """The anchor beside the journal (None: no anchor file, or ``:memory:``).

        Raises:
            AnchorError: the anchor file exists but cannot be read.
        """
        if self.real == ":memory:":
            return None
        if self.readonly:
            if self.anchor_error:
                raise AnchorError(self.anchor_error)
            return self.anchor
        return AnchorFile.beside(self.real).read()

    def start_anchoring(self, verified: tuple[int, str] | None) -> None:
        """Keep the anchor beside the journal from now on; write it at once.

        Called by the table once start-up has verified the journal: from then on every
        commit is followed by an anchor write (:class:`AnchorWriter`: head and newest
        verified snapshot).

        Args:
            verified: the newest verified snapshot (seq, seal), or None.

        Raises:
            AnchorError: the anchor cannot be written.
        """
        if self.readonly or self.real == ":memory:":
            return
        if verified is not None and verified[0] > self._verified[0]:
            self._verified = verified
        if self._anchor is None:
            self._anchor = AnchorWriter(AnchorFile.beside(self.real))
        self._write_anchor()
        self._anchor.flush()

    @property
    def verified(self) -> tuple[int, str]:
        """The newest verified snapshot (seq, seal) the anchor names; (0, "") for none."""
        return self._verified

    def _write_anchor(self) -> None:
        if self._anchor is not None:
            self._anchor.post(Anchor(self.last_seq, self.last_hash, *self._verified))

    def _anchor_failed(self) -> None:
        """Raise the anchor writer's error: the table must stop writing (R2)."""
        if self._anchor is not None and self._anchor.error is not None:
            raise JournalError(str(self._anchor.error))

    # ------------------------------------------------------------------ writing
    def append(self, utc: str, mono_ns: int, records: Sequence[tuple[str, str, str]],
               derived: Any = None) -> list[int]:
        """Append records (``kind``, ``actor``, ``body`` JSON) and commit them.

        Args:
            utc: ISO 8601 UTC time of the batch.
            mono_ns: monotonic clock, nanoseconds.
            records: the inputs, in order.
            derived: a :class:`~controller.game.engine.Derived` holding everything the
                derived tables lack for the state after the newest event before this
                batch: written in the same commit, and ``derived_at`` set to that event
                (even when it is empty). None writes no derived rows.

        Returns:
            The sequence numbers given, in order.

        Raises:
            JournalError: the write failed (the table must stop: R2).
        """
        self._anchor_failed()
        seq, prev = self.last_seq, self.last_hash
        rows = []
        for kind, actor, body in records:
            seq += 1
            h = chain_hash(prev, seq, utc, mono_ns, kind, actor, body)
            rows.append((seq, utc, mono_ns, kind, actor, body, prev, h))
            prev = h
        try:
            self.db.execute("BEGIN IMMEDIATE")
            if derived is not None:  # the state after the events before this batch
                self._write_derived(derived, self.last_seq)
            self.db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?)", rows)
            self._commit()
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"{self.path}: journal write failed: {exc}") from None
        self.last_seq, self.last_hash = seq, prev
        self._committed()
        return [r[0] for r in rows]

    def write_derived(self, derived: Any, mark: bool = False) -> None:
        """Write derived rows in a commit of their own.

        Args:
            derived: what the derived tables lack for the state after the newest event
                (a :class:`~controller.game.engine.Derived`, or several, oldest first).
            mark: set ``derived_at`` to the newest event even when there is nothing to
                write (else an empty ``derived`` writes nothing).

        Raises:
            JournalError: the write failed.
        """
        parts = list(derived) if isinstance(derived, (list, tuple)) else [derived]
        parts = [d for d in parts if d]
        if not parts and not mark:
            return
        self._anchor_failed()
        verified = self._verified
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT OR REPLACE INTO derived_at VALUES (1, ?)", (self.last_seq,))
            for d in parts:
                self._write_derived(d, self.last_seq)
            self._commit()
        except sqlite3.Error as exc:
            self._verified = verified
            self._rollback()
            raise JournalError(f"{self.path}: journal write failed: {exc}") from None
        self._committed()

    def checkpoint(self) -> bool:
        """Copy the write-ahead log into the journal and empty it, waiting for no reader.

        Returns:
            True when the log is empty now; False when a reader holds it (try later).
        """
        if self.readonly or self.real == ":memory:":
            return True
        try:
            self.db.execute("PRAGMA busy_timeout=0")  # a busy reader: answer at once
            return not self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except sqlite3.Error:
            return False
        finally:
            self.db.execute("PRAGMA busy_timeout=5000")

    def wal_bytes(self) -> int:
        """The size of the write-ahead log beside the journal, in bytes (0: none)."""
        with contextlib.suppress(OSError):
            return os.path.getsize(self.real + "-wal")
        return 0

    def _rollback(self) -> None:
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _commit(self) -> None:
        """Commit the open transaction (a test simulating a crash overrides it)."""
        self.commits += 1
        self.db.execute("COMMIT")

    def _committed(self) -> None:
        """After a commit: bring the anchor to the new head (a crash test overrides it)."""
        self._write_anchor()

    def _write_derived(self, d: Any, upto: int) -> None:
        """Write derived rows that reflect the state after event ``upto``."""
        ex = self.db.executemany
        self.db.execute("INSERT OR REPLACE INTO derived_at VALUES (1, ?)", (upto,))
        if d.rounds:
            ex("INSERT OR REPLACE INTO rounds VALUES (?,?,?,?,?,?)",
               [(rid, r["status"], r["void_reason"], r["started_utc"], r["ended_utc"],
                 _dumps(r)) for rid, r in d.rounds.items()])
        if d.meters is not None:
            ex("INSERT OR REPLACE INTO meters VALUES (?,?,?,?,?,?,?)",
               [(k, *v) for k, v in d.meters["rows"].items()])
            ex("INSERT OR REPLACE INTO counters VALUES (?,?)", d.meters["counters"].items())
            ex("INSERT OR REPLACE INTO outcome_meters VALUES (?,?)",
               d.meters.get("outcomes", {}).items())
        if d.snapshot is not None:
            seq, state = d.snapshot
            row = self.db.execute("SELECT hash FROM events WHERE seq=?", (seq,)).fetchone()
            seal = snapshot_hash(row[0] if row else "", state)
            self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?)",
                            (seq, seal, state))
            if row and seq > self._verified[0]:
                self._verified = (seq, seal)  # written by the table itself: known good
        if d.rejections:
            ex("INSERT OR REPLACE INTO rejections VALUES (?,?)", d.rejections)

    # ------------------------------------------------------------------ reading
    def records(self, after: int = 0) -> Iterator[Record]:
        """Event rows with ``seq > after``, in order."""
        cur = self.db.execute("SELECT seq, utc, mono_ns, kind, actor, body FROM events "
                              "WHERE seq > ? ORDER BY seq", (after,))
        for row in cur:
            yield Record(*row)

    def verify(self, start: int = 1, progress: Any = None) -> ChainReport:
        """Recompute the hash chain (docs/requirements.md R4, R7).

        Args:
            start: the first event to check. From 1 the chain starts at
                :data:`GENESIS`; from a later event, at the previous hash that event's
                row holds (its own hash is pinned elsewhere: a snapshot's seal, the anchor).
            progress: called with the number of rows checked, every 65,536 rows.

        Returns:
            The report; ``events`` counts the rows checked.
        """
        prev, expect, n = (GENESIS if start <= 1 else None), max(start, 1), 0
        try:
            cur = self.db.execute("SELECT seq, utc, mono_ns, kind, actor, body, prev, hash "
                                  "FROM events WHERE seq >= ? ORDER BY seq", (expect,))
            for seq, utc, mono, kind, actor, body, rprev, h in cur:
                if seq != expect:
                    return ChainReport(False, n, expect, f"event {expect} is missing "
                                       f"(next present is {seq})", missing=True)
                if prev is None:
                    prev = rprev
                if rprev != prev or chain_hash(prev, seq, utc, mono, kind, actor, body) != h:
                    return ChainReport(False, n, seq, f"event {seq} was altered or torn: "
                                       "its hash does not match")
                prev, expect, n = h, expect + 1, n + 1
                if progress is not None and not n & 0xFFFF:
                    progress(n)
        except sqlite3.DatabaseError as exc:
            return ChainReport(False, n, expect, f"the journal cannot be read: {exc}",
                               unreadable=True)
        return ChainReport(True, n)

    def latest_snapshot(self, at_most: int | None = None) -> tuple[int, str, str] | None:
        """The newest snapshot (seq, event hash at that seq, state JSON), or None."""
        limit = self.last_seq if at_most is None else at_most
        return self.db.execute("SELECT seq, hash, state FROM snapshots WHERE seq <= ? "
                               "ORDER BY seq DESC LIMIT 1", (limit,)).fetchone()

    def snapshot(self, seq: int) -> tuple[int, str, str] | None:
        """The snapshot after event ``seq`` (seq, seal, state JSON), or None."""
        return self.db.execute("SELECT seq, hash, state FROM snapshots WHERE seq = ?",
                               (seq,)).fetchone()

    def snapshots(self) -> list[tuple[int, str, str]]:
        """Every snapshot (seq, event hash, state JSON), oldest first."""
        return self.db.execute("SELECT seq, hash, state FROM snapshots ORDER BY seq").fetchall()

    def derived_seq(self) -> int | None:
        """The event after which the derived tables were last written, or None."""
        try:
            row = self.db.execute("SELECT seq FROM derived_at WHERE id = 1").fetchone()
        except sqlite3.OperationalError:  # a journal from before this record was kept
            return None
        return row[0] if row else None

    def snapshot_ok(self, seq: int, seal: str, state: str) -> bool:
        """True when a snapshot's seal matches its state and the chain at ``seq``."""
        h = self.event_hash(seq)
        return h is not None and snapshot_hash(h, state) == seal

    def event_hash(self, seq: int) -> str | None:
        """The stored hash of event ``seq``."""
        row = self.db.execute("SELECT hash FROM events WHERE seq=?", (seq,)).fetchone()
        return row[0] if row else None

    def stored_rounds(self, last: int | None = None) -> list[dict[str, Any]]:
        """Round records from the ``rounds`` table, newest first.

        Raises:
            JournalError: a record is not readable (``verify-journal`` says more).
        """
        q = "SELECT round_id, record FROM rounds ORDER BY round_id DESC"
        rows = (self.db.execute(q + " LIMIT ?", (last,)) if last is not None
                else self.db.execute(q))
        out = []
        for rid, text in rows:
            try:
                rec = json.loads(text)
            except (TypeError, ValueError):
                rec = None
            if not isinstance(rec, dict):
                raise JournalError(f"{self.path}: the record of round {rid} is not readable; "
                                   "run `threecard verify-journal`")
            out.append(rec)
        return out

    def round_row(self, round_id: int) -> tuple[Any, ...] | None:
        """One ``rounds`` row as stored: (status, void reason, start, end, record text)."""
        return self.db.execute("SELECT status, void_reason, started_utc, ended_utc, record "
                               "FROM rounds WHERE round_id = ?", (round_id,)).fetchone()

    def stored_meters(self) -> dict[str, Any]:
        """The ``meters``, ``counters`` and ``outcome_meters`` tables, as meters are journaled.

        ``outcomes`` only when there are some (:meth:`Game.meters_dict` shapes them so); a
        journal written before outcome meters existed has none.
        """
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
        return dict(self.db.execute("SELECT seq, reason FROM rejections WHERE seq > ?",
                                    (after,)).fetchall())

    def close(self) -> None:
        """Close the database, bring the anchor to the head, let another writer open it.

        Raises:
            AnchorError: the anchor could not be written (the journal is closed).
        """
        anchor, self._anchor = self._anchor, None
        try:
            self.db.close()
            if anchor is not None:
                anchor.close()
        finally:
            self._release_writer_lock()

    def _release_writer_lock(self) -> None:
        """Let another writer in (:meth:`~controller.game.journal_lock.WriterLock.release`)."""
        if self._writer_lock is not None:
            self._writer_lock.release()
            self._writer_lock = None
