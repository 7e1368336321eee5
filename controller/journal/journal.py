"""The journal: an append-only, hash-chained, sealed SQLite record of every input (R1, R4, R7).

Each input is committed in ``events`` before it is applied; derived tables ride in the next
commit; a round's end is sealed in its commit. One writer per real file
(:class:`~controller.journal.lock.WriterLock`); readers open it read-only, so read-only
media can be read. How it lies in the file: docs/journal-format.md.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from controller.journal import codec
from controller.journal import seal as sealing
from controller.journal.anchor import (
    GENESIS,
    Anchor,
    AnchorError,
    AnchorFile,
    AnchorWriter,
    JournalError,
    JournalUnreadable,
    real_path,
)
from controller.journal.lock import WriterLock
from controller.journal.read import (
    ChainReport,
    JournalReading,
    Record,
    chain_hash,
    snapshot_hash,
    unusable,
)
from controller.journal.schema import (
    hot_rollback,
    missing,
    rolled_back_copy,
    stand_in,
    table_names,
)
from controller.journal.seal_writing import SealWriting
from controller.journal.store import detect, open_store
from controller.journal.wal import WAL_SIZE_LIMIT, WRITE_BUSY_MS, WalUpkeep

OUTBOX_TABLE = "floor_outbox"
"""The floor feed's cursor, kept in the journal's file but no part of the journal: the
verifier leaves it out (:data:`controller.game.verifier.UNCHECKED_TABLES` says why)."""

ARCHIVE_OF = "archive_of"
"""The ``meta`` key of an archive: the hash of the first event of the journal it belongs to
(a table refuses to write to such a file)."""


def _readonly_uri(path: str) -> str:
    """The read-only SQLite URI of a journal file (``immutable=1`` with no log beside it).

    Immutable, SQLite neither locks nor creates ``-wal``/``-shm`` files (read-only media);
    with a log beside it (a table running, or stopped unclosed) ``mode=ro`` reads it too.
    """
    uri = Path(path).as_uri() + "?mode=ro"
    if not os.path.exists(path + "-wal"):
        uri += "&immutable=1"
    return uri


_SQLITE_HEADER = b"SQLite format 3\x00"


def _may_be_journal(real: str) -> bool:
    """The file is an SQLite database, empty, or missing (a new journal): else no journal.

    A file cut while being made (a hot rollback journal beside it) may lack its header.
    """
    try:
        with open(real, "rb") as f:
            head = f.read(len(_SQLITE_HEADER))
    except OSError:
        return True  # missing: a new journal; else the open that follows says why
    return not head or head == _SQLITE_HEADER or hot_rollback(real)


class Journal(SealWriting, JournalReading, WalUpkeep):
    """An open journal file (or ``:memory:``), and its archive when a reader finds one.

    Args:
        path: the SQLite file, created when missing (``:memory:``: a throw-away one); a
            symlink is followed (the lock and the anchor are the real file's).
        readonly: open for reading only: nothing is created or changed beside the file.
        fmt: the format of a journal created here (default: 2; a journal keeps its own).
        archive: a reader's archive file (default: the one ``meta`` names, beside it).
        as_archive: open an archive for writing (:mod:`controller.game.archive` only).
        keys: the seal keys' folder (default: :func:`~controller.journal.seal.default_folder`;
            False: unsealed).
        lock: the writer's lock on this file, already held (:meth:`reopen`).

    Attributes:
        real: the real file (symlinks resolved), or ``:memory:``.
        last_seq, last_hash: the newest event and its chain hash (0 and :data:`GENESIS`:
            none); ``base_seq``, ``base_hash``: the last event moved to an archive.
        archive: the archive a reader opened (None: none, or ``archive_missing`` says).
        anchor: the anchor read when a reader opened the journal (see :meth:`read_anchor`).
        commits: commits made by this object.
        tables_missing: the tables the file lacked at opening (see :mod:`.schema`).

    Raises:
        JournalError: not a regular file or a usable SQLite database, held by another
            table process, or a given archive cannot be opened.
    """

    def __init__(self, path: str | Path, readonly: bool = False, *, fmt: int | None = None,
                 archive: str | Path | None = None, as_archive: bool = False,
                 keys: str | Path | bool | None = None, lock: WriterLock | None = None
                 ) -> None:
        self.path = str(path)
        self.sealer: sealing.Sealer | None = None
        self.seal_error: str | None = None
        self.sealed_seq = 0
        self._key_folder: Path | None = None
        self._new_chain = False
        self.chain_started = False  # a new journal's chain made by this object
        self._unsealed_since: int | None = None
        self.readonly = readonly
        self.real = self.path if self.path == ":memory:" else real_path(self.path)
        self._writer_lock: WriterLock | None = None
        self._lent_lock = lock  # not released when this opening fails
        self._anchor: AnchorWriter | None = None
        self._verified: tuple[int, str] = (0, "")
        self._anchored: tuple[int, str] = (0, "")  # the verified snapshot last anchored
        self.anchor: Anchor | None = None
        self.anchor_error: str | None = None
        self.archive: Journal | None = None
        self.archive_missing = ""
        self.tables_missing: tuple[str, ...] = ()
        self._scratch = ""  # a reader's rolled-back copy's folder (removed at close)
        try:
            if self.real != ":memory:":
                self._check_regular()
            if readonly:
                self._open_reader()
            else:
                self._open_writer(fmt)
            meta = self.store.meta()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged, not a journal
            self._release_writer_lock()
            raise unusable(self.path, self.real, exc) from None
        except JournalError:
            self._release_writer_lock()
            raise
        if not readonly and meta.get(ARCHIVE_OF) and not as_archive:
            self.close()
            raise JournalError(f"{self.path}: this file is the archive of a journal: it is "
                               "only read (recall, verify-journal); give the journal itself")
        self.meta = meta
        self._read_head()
        self.commits = 0
        if not readonly and not as_archive and self.real != ":memory:" and keys is not False:
            self._key_folder = (sealing.default_folder() if keys in (None, True)
                                else Path(keys))  # type: ignore[arg-type]
            try:
                self._open_sealer()
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged: locked
                self.seal_error = f"the journal's seals cannot be read: {exc}"
        if self.base_seq:
            name = meta.get("archive")
            self.archive_missing = (f"events 1 to {self.base_seq} were moved to an archive "
                                    f"({name if isinstance(name, str) else 'unnamed'}) not "
                                    "found beside the journal")
            if readonly:
                self._open_archive(archive)

    def _read_head(self) -> None:
        """The cut and the head; JournalError: the newest events cannot be read (closed)."""
        base = self.meta.get("base_seq", 0)
        self.base_seq = base if type(base) is int and base > 0 else 0  # else: none (the
        # chain then misses the events before the first one here, and says so)
        self.base_hash = codec.hash_text(self.meta.get("base_hash")) or GENESIS
        self.store.base = (self.base_seq, self.base_hash)
        try:
            head = self.store.head()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            self.close()
            raise unusable(self.path, self.real, exc) from None
        self.last_seq, self.last_hash = head if head else (self.base_seq, self.base_hash)

    @property
    def format(self) -> int:
        """The file's format: 1 (earlier versions) or 2 (compact)."""
        return self.store.format

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
        read = self.real
        if hot_rollback(read) and not os.path.exists(read + "-wal"):  # a cut as it was made
            copy = rolled_back_copy(read)
            if copy is not None:
                read, self._scratch = copy
        self.db = sqlite3.connect(_readonly_uri(read), uri=True, isolation_level=None,
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
        self._check_is_journal()
        fmt = detect(self.db) if tables else None
        if fmt is None:
            self.db.close()
            if self.anchor is None and self.anchor_error is None:  # nothing says it was one
                raise JournalError(f"{self.path}: not a journal: it reads as an empty file")
            # a journal emptied (an anchor beside it names events): read it as no events
            self.db = sqlite3.connect(":memory:", isolation_level=None,
                                      check_same_thread=False)
            self.store = open_store(self.db, codec.FORMAT)
            self.store.create(True)
        else:
            self.store = open_store(self.db, fmt)
            self.tables_missing = tuple(missing(self.db, self.store.schema))
            stand_in(self.db, self.store.schema, list(self.tables_missing))  # as a writer
        # one read transaction: every read sees the same moment of a running table
        self.db.execute("BEGIN")

    def _open_writer(self, fmt: int | None) -> None:
        if self.real != ":memory:":
            # refused before the lock: a file that is no journal (a journal's own .lock
            # file given as the journal) gets no lock file beside it
            if not _may_be_journal(self.real):
                raise sqlite3.DatabaseError("file is not a database")
            self._writer_lock = self._lent_lock or WriterLock(self.real, self.path)
        self.db = sqlite3.connect(self.real, isolation_level=None, check_same_thread=False)
        self.db.execute(f"PRAGMA busy_timeout={WRITE_BUSY_MS}")
        self._check_is_journal()
        found = detect(self.db)
        self.store = open_store(self.db, found or fmt or codec.FORMAT)
        if found is None:
            self.store.create(True)  # before the log: a new file's settings come first
        else:  # an earlier version's journal, or a table dropped: made empty, and named
            self.tables_missing = tuple(missing(self.db, self.store.schema))
        if self.real != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
            # SQLite's own checkpoint (two flushes) once the log holds about WAL_SIZE_LIMIT,
            # whatever the page size: every few rounds with 1 KiB pages at its default
            page = self.db.execute("PRAGMA page_size").fetchone()[0]
            self.db.execute(f"PRAGMA wal_autocheckpoint={WAL_SIZE_LIMIT // page}")
        self.db.execute("PRAGMA synchronous=FULL")
        self.store.create(False)
        if self.store.last_seq() is None:  # (the newest page only: an old one damaged is
            # the verifier's to find)
            # no events, so nothing derived: the derived tables are those of event 0
            self.db.execute("INSERT OR IGNORE INTO derived_at VALUES (1, 0)")

    def _check_is_journal(self) -> None:
        tables = table_names(self.db)
        if tables and "events" not in tables:
            raise JournalError(f"{self.path}: this SQLite file is not a table journal "
                               f"(it holds {', '.join(sorted(tables)[:5])}); give another path")

    def _open_archive(self, given: str | Path | None) -> None:
        """Open the archive holding the events up to the cut (a reader's)."""
        name = self.meta.get("archive")
        if given is None and isinstance(name, str) and name and self.real != ":memory:":
            found = os.path.join(os.path.dirname(self.real), os.path.basename(name))
            given = found if os.path.exists(found) else None
        if given is not None:
            self.archive = Journal(given, readonly=True)
            self.archive_missing = ""

    def table_names(self) -> set[str]:
        """The tables of the journal's file."""
        return table_names(self.db)

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
               derived: Any = None, then: Callable[[list[int]], bool] | None = None
               ) -> list[int]:
        """Append records (``kind``, ``actor``, ``body`` JSON) and commit them.

        A batch that closes a round (``then`` says so) or comes 15 minutes after the
        oldest unsealed event carries the seal of the epoch in force, in the same commit.

        Args:
            utc: ISO 8601 UTC time of the batch.
            mono_ns: monotonic clock, nanoseconds.
            records: the inputs, in order.
            derived: what the derived tables lack for the state before this batch
                (a :class:`~controller.game.engine.Derived`), written in the same commit
                (``derived_at`` set even when it is empty); None: none.
            then: called in the transaction with the rows' sequence numbers; True seals
                them (the table applies the batch here: did a round close?). Never raises.

        Returns:
            The sequence numbers given, in order.

        Raises:
            JournalError: the write failed (the table must stop: R2).
        """
        self._anchor_failed()
        if not self.last_hash:
            raise JournalError(f"{self.path}: the newest events cannot be read, so the chain "
                               "cannot go on; run `threecard verify-journal`")
        rows = self._chained(utc, mono_ns, records)
        seq, prev = (rows[-1][0], rows[-1][7]) if rows else (self.last_seq, self.last_hash)
        chain = self._chain_for(rows) if self._new_chain and rows and rows[0][0] == 1 else None
        sealed = self._write_batch(rows, derived, then, chain, mono_ns)
        self.last_seq, self.last_hash = seq, prev
        if chain is not None:
            self._new_chain, self.chain_started = False, True
        if sealed:
            self._sealed(seq)
        self._committed()
        return [r[0] for r in rows]

    def _chained(self, utc: str, mono_ns: int, records: Sequence[tuple[str, str, str]]
                 ) -> list[tuple[Any, ...]]:
        """The rows of ``records``, numbered after the head, each hash chained to the last."""
        seq, prev = self.last_seq, self.last_hash
        rows = []
        for kind, actor, body in records:
            seq += 1
            h = chain_hash(prev, seq, utc, mono_ns, kind, actor, body)
            rows.append((seq, utc, mono_ns, kind, actor, body, prev, h))
            prev = h
        return rows

    def _write_batch(self, rows: list[tuple[Any, ...]], derived: Any,
                     then: Callable[[list[int]], bool] | None, chain: Any, mono_ns: int
                     ) -> bool:
        """Write and commit ``rows`` (after ``derived``) in one transaction; True: sealed.

        Raises:
            JournalError: the write failed (rolled back).
        """
        seq, prev = (rows[-1][0], rows[-1][7]) if rows else (self.last_seq, self.last_hash)
        sealed, verified = False, self._verified
        try:
            self.db.execute("BEGIN IMMEDIATE")
            if derived is not None:  # the state after the events before this batch
                self._write_derived(derived, self.last_seq)
            self.store.insert(rows)
            if chain is not None:
                sealing.write_chain(self.db, chain)
                self.store.set_meta({"journal_id": self.sealer.journal_id})
            closes = then([r[0] for r in rows]) if then is not None else False
            if self._unsealed_since is None and rows:
                self._unsealed_since = mono_ns
            if closes or self.seal_due(mono_ns):
                sealed = self._seal_rows(seq, prev)
            self._commit()
        except (sqlite3.Error, sealing.SealError) as exc:
            self._verified = verified  # a snapshot in the batch's derived rows is not written
            self._rollback()
            if self.sealer is not None:
                self.sealer.drop()
            if chain is not None:
                self.sealer = None
            raise JournalError(f"{self.path}: journal write failed: {exc}") from None
        return sealed

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

    def copy_in(self, rows: list[tuple[Any, ...]], derived: Any) -> None:
        """Insert events read from another journal, with their own hashes, in one commit.

        The archive's writing (:mod:`controller.game.archive`): ``rows`` of the journal
        the history comes from, and the derived rows their replay gives.

        Raises:
            JournalError: the write failed.
        """
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.store.insert(rows)
            self.store.keep_hash(rows[-1][0], rows[-1][7])  # the archive's end is read
            self._write_derived(derived, rows[-1][0])
            self._commit()
        except sqlite3.Error as exc:
            self._rollback()
            raise JournalError(f"{self.path}: archive write failed: {exc}") from None
        self.last_seq, self.last_hash = rows[-1][0], rows[-1][7]

    def _rollback(self) -> None:
        self.store.writing = None  # the time state is read again from the head
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _commit(self) -> None:
        """Commit the open transaction (a test simulating a crash overrides it)."""
        self.commits += 1
        self.db.execute("COMMIT")

    def _committed(self) -> None:
        """After a commit: bring the anchor to the new head (a crash test overrides it).

        A sealed journal's seals cover its head: its anchor moves only with a new verified
        snapshot (the start point it names), at start-up and at close, one disk flush every
        snapshot interval instead of one a commit.
        """
        if self.sealer is None or self._verified != self._anchored:
            self._anchored = self._verified
            self._write_anchor()

    def _write_derived(self, d: Any, upto: int) -> None:
        """Write derived rows that reflect the state after event ``upto``."""
        self.db.execute("INSERT OR REPLACE INTO derived_at VALUES (1, ?)", (upto,))
        if d.rounds:
            self.store.write_rounds(d.rounds, d.ends)
        if d.meters is not None:
            self.store.write_meters(d.meters)
        if d.snapshot is not None:
            seq, state = d.snapshot
            h = self.last_hash if seq == self.last_seq else self.store.event_hash(seq)
            seal = snapshot_hash(h or "", state)
            self.store.write_snapshot(seq, seal, state)
            if h:
                self.store.keep_hash(seq, h)  # its seal is checked without a derivation
            if h and seq > self._verified[0]:
                self._verified = (seq, seal)  # written by the table itself: known good
        if d.rejections:
            self.db.executemany("INSERT OR REPLACE INTO rejections VALUES (?,?)", d.rejections)

    def close(self) -> None:
        """Close the database and the archive; bring the anchor to the head; free the lock.

        Raises:
            AnchorError: the anchor could not be written (the journal is closed).
        """
        if self.sealer is not None and not self.seal_error:
            with contextlib.suppress(JournalError):
                self.seal()  # the tail; a failure leaves it to the next round's seal
            self._write_anchor()
        anchor, self._anchor = self._anchor, None
        try:
            self.db.close()
            if self._scratch:
                shutil.rmtree(self._scratch, ignore_errors=True)
            if self.archive is not None:
                self.archive.close()
            if anchor is not None:
                anchor.close()
        finally:
            self._release_writer_lock()

    def _release_writer_lock(self) -> None:
        """Let another writer in (a lock lent by :meth:`reopen` stays held, for the next try)."""
        if self._writer_lock is not None and self._writer_lock is not self._lent_lock:
            self._writer_lock.release()
        self._writer_lock = None

    def reopen(self) -> Journal:
        """This journal opened again as a start opens it (after a write that failed).

        The writer's lock is kept throughout (also when the opening fails, for the next
        try); this object is closed without a seal, its anchor at its last commit.

        Returns:
            The journal opened again, holding the lock.

        Raises:
            JournalError: it cannot be opened now (a full disk, a lock held elsewhere), or
                it is a journal in memory, which cannot be opened again.
        """
        if self.real == ":memory:":
            raise JournalError(f"{self.path}: a journal in memory cannot be opened again")
        self._write_anchor()  # the head committed last (a sealed journal's moves at close)
        anchor, self._anchor = self._anchor, None
        if anchor is not None:
            with contextlib.suppress(AnchorError):
                anchor.close()
        with contextlib.suppress(sqlite3.Error):
            self.db.close()
        self.sealer = None  # its key is the new object's to read
        try:
            again = Journal(self.path, keys=self._key_folder or False, lock=self._writer_lock)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: the journal cannot be opened again: {exc}"
                               ) from None
        again._lent_lock = None  # noqa: SLF001 - its own lock from now on
        self._writer_lock = None
        return again


__all__ = ["ARCHIVE_OF", "AnchorError", "ChainReport", "GENESIS", "Journal", "JournalError",
           "JournalUnreadable", "OUTBOX_TABLE", "Record", "WAL_SIZE_LIMIT", "chain_hash",
           "snapshot_hash"]
