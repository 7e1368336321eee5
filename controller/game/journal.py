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
commit of their own when the table goes idle; start-up rewrites them from the replay.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
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
CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, hash TEXT, state TEXT);
CREATE TABLE IF NOT EXISTS rejections (seq INTEGER PRIMARY KEY, reason TEXT);
CREATE TABLE IF NOT EXISTS derived_at (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER);
"""


_dumps = json.JSONEncoder(separators=(",", ":")).encode


class JournalError(RuntimeError):
    """The journal cannot be used (not a database, a broken chain, a failed write)."""


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
    """

    ok: bool
    events: int
    bad_seq: int | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class Record:
    """One journaled input as read back."""

    seq: int
    utc: str
    mono_ns: int
    kind: str
    actor: str
    body: str


class Journal:
    """An open journal file (or ``:memory:``).

    Args:
        path: the SQLite file; created when missing. ``:memory:`` for a throw-away one.
        readonly: open for reading only (recall, meters, verify).

    Raises:
        JournalError: the file is not a usable SQLite database.
    """

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._lock_fd: int | None = None
        try:
            if readonly:
                if Path(self.path).is_dir():
                    raise JournalError(f"{self.path}: is a directory; give the journal "
                                       "file's path")
                if not Path(self.path).is_file():
                    raise JournalError(f"{self.path}: no such journal")
                uri = Path(self.path).resolve().as_uri() + "?mode=ro"
                self.db = sqlite3.connect(uri, uri=True, isolation_level=None,
                                          check_same_thread=False)
                self.db.execute("PRAGMA busy_timeout=5000")
                # one read transaction: every read sees the same moment of a running table
                self.db.execute("BEGIN")
            else:
                if self.path != ":memory:":
                    if Path(self.path).is_dir():
                        raise JournalError(f"{self.path}: is a directory; give the journal "
                                           "file's path")
                    self._take_writer_lock()
                self.db = sqlite3.connect(self.path, isolation_level=None,
                                          check_same_thread=False)
                self.db.execute("PRAGMA busy_timeout=5000")
                tables = {r[0] for r in self.db.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")}
                if tables and "events" not in tables:
                    raise JournalError(f"{self.path}: this SQLite file is not a table journal "
                                       f"(it holds {', '.join(sorted(tables)[:5])}); "
                                       "give another path")
                if self.path != ":memory:":
                    self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(SCHEMA)
            row = self.db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
                                  ).fetchone()
        except sqlite3.DatabaseError as exc:
            self._release_writer_lock()
            raise JournalError(f"{self.path}: not a usable journal: {exc}") from None
        except JournalError:
            self._release_writer_lock()
            raise
        self.last_seq, self.last_hash = row if row else (0, GENESIS)
        self.commits = 0

    # ------------------------------------------------------------------ writing
    def append(self, utc: str, mono_ns: int, records: Sequence[tuple[str, str, str]],
               derived: Any = None) -> list[int]:
        """Append records (``kind``, ``actor``, ``body`` JSON) and commit them.

        Args:
            utc: ISO 8601 UTC time of the batch.
            mono_ns: monotonic clock, nanoseconds.
            records: the inputs, in order.
            derived: a :class:`~controller.game.engine.Derived` to write in the same commit.

        Returns:
            The sequence numbers given, in order.

        Raises:
            JournalError: the write failed (the table must stop: R2).
        """
        seq, prev = self.last_seq, self.last_hash
        rows = []
        for kind, actor, body in records:
            seq += 1
            h = chain_hash(prev, seq, utc, mono_ns, kind, actor, body)
            rows.append((seq, utc, mono_ns, kind, actor, body, prev, h))
            prev = h
        try:
            self.db.execute("BEGIN IMMEDIATE")
            if derived:  # the state after the events before this batch
                self._write_derived(derived, self.last_seq)
            self.db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?)", rows)
            self._commit()
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"{self.path}: journal write failed: {exc}") from None
        self.last_seq, self.last_hash = seq, prev
        return [r[0] for r in rows]

    def write_derived(self, derived: Any) -> None:
        """Write derived rows in a commit of their own (nothing to do when empty)."""
        if not derived:
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self._write_derived(derived, self.last_seq)
            self._commit()
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"{self.path}: journal write failed: {exc}") from None

    def _rollback(self) -> None:
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _commit(self) -> None:
        self.commits += 1
        self.db.execute("COMMIT")

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
        if d.snapshot is not None:
            seq, state = d.snapshot
            row = self.db.execute("SELECT hash FROM events WHERE seq=?", (seq,)).fetchone()
            self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?)",
                            (seq, snapshot_hash(row[0] if row else "", state), state))
        if d.rejections:
            ex("INSERT OR REPLACE INTO rejections VALUES (?,?)", d.rejections)

    # ------------------------------------------------------------------ reading
    def records(self, after: int = 0) -> Iterator[Record]:
        """Event rows with ``seq > after``, in order."""
        cur = self.db.execute("SELECT seq, utc, mono_ns, kind, actor, body FROM events "
                              "WHERE seq > ? ORDER BY seq", (after,))
        for row in cur:
            yield Record(*row)

    def verify(self) -> ChainReport:
        """Recompute the hash chain of every row (docs/requirements.md R4, R7)."""
        prev, expect, n = GENESIS, 1, 0
        try:
            cur = self.db.execute("SELECT seq, utc, mono_ns, kind, actor, body, prev, hash "
                                  "FROM events ORDER BY seq")
            for seq, utc, mono, kind, actor, body, rprev, h in cur:
                if seq != expect:
                    return ChainReport(False, n, expect, f"event {expect} is missing "
                                       f"(next present is {seq})")
                if rprev != prev or chain_hash(prev, seq, utc, mono, kind, actor, body) != h:
                    return ChainReport(False, n, seq, f"event {seq} was altered or torn: "
                                       "its hash does not match")
                prev, expect, n = h, expect + 1, n + 1
        except sqlite3.DatabaseError as exc:
            return ChainReport(False, n, expect, f"the journal cannot be read: {exc}")
        return ChainReport(True, n)

    def latest_snapshot(self, at_most: int | None = None) -> tuple[int, str, str] | None:
        """The newest snapshot (seq, event hash at that seq, state JSON), or None."""
        limit = self.last_seq if at_most is None else at_most
        return self.db.execute("SELECT seq, hash, state FROM snapshots WHERE seq <= ? "
                               "ORDER BY seq DESC LIMIT 1", (limit,)).fetchone()

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

    def round_ids(self) -> tuple[int, int, int]:
        """(count, lowest, highest) round id in the ``rounds`` table (0s when empty)."""
        n, lo, hi = self.db.execute("SELECT COUNT(*), MIN(round_id), MAX(round_id) "
                                    "FROM rounds").fetchone()
        return n, lo or 0, hi or 0

    def snapshot_ok(self, seq: int, seal: str, state: str) -> bool:
        """True when a snapshot's seal matches its state and the chain at ``seq``."""
        h = self.event_hash(seq)
        return h is not None and snapshot_hash(h, state) == seal

    def event_hash(self, seq: int) -> str | None:
        """The stored hash of event ``seq``."""
        row = self.db.execute("SELECT hash FROM events WHERE seq=?", (seq,)).fetchone()
        return row[0] if row else None

    def stored_rounds(self, last: int | None = None) -> list[dict[str, Any]]:
        """Round records from the ``rounds`` table, newest first."""
        q = "SELECT record FROM rounds ORDER BY round_id DESC"
        rows = (self.db.execute(q + " LIMIT ?", (last,)) if last is not None
                else self.db.execute(q))
        return [json.loads(r[0]) for r in rows]

    def round_texts(self, last: int) -> list[tuple[int, str]]:
        """The newest ``last`` round records as stored: (round id, JSON text)."""
        return self.db.execute("SELECT round_id, record FROM rounds ORDER BY round_id DESC "
                               "LIMIT ?", (last,)).fetchall()

    def stored_meters(self) -> dict[str, Any]:
        """The ``meters`` and ``counters`` tables, as :meth:`Game.meters_dict` shapes them."""
        rows = {r[0]: list(r[1:]) for r in self.db.execute("SELECT * FROM meters")}
        counters = dict(self.db.execute("SELECT name, value FROM counters").fetchall())
        return {"rows": rows, "counters": counters}

    def rejections(self) -> dict[int, str]:
        """Map the seq of every rejected input to its reason."""
        return dict(self.db.execute("SELECT seq, reason FROM rejections").fetchall())

    def close(self) -> None:
        """Close the database and let another writer open it."""
        self.db.close()
        self._release_writer_lock()

    def _take_writer_lock(self) -> None:
        """One writer per journal: a second table on the same file is refused, not raced."""
        lock_path = self.path + ".lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc.strerror}"
                               ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise JournalError(f"{self.path}: the journal is in use by another table "
                               f"process (pid {holder}); stop it first") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def _release_writer_lock(self) -> None:
        """Let another writer in: close the lock's descriptor, which drops the flock.

        The ``.lock`` file itself stays, by design: flock on a file that is never removed
        is the safe pattern. Removing it would let a process that opened it just before
        the removal lock the deleted file while a third creates and locks a new one: two
        writers on one journal.
        """
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None
