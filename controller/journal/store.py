"""How a journal's rows sit in its SQLite file: format 1 (all text) and format 2 (compact)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from controller.journal import codec
from controller.journal import schema as journal_schema
from controller.journal.anchor import GENESIS
from controller.journal.codec import chain_hash

COMMON = """
CREATE TABLE IF NOT EXISTS rejections (seq INTEGER PRIMARY KEY, reason TEXT);
CREATE TABLE IF NOT EXISTS derived_at (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER);
"""
META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID"

V1_SCHEMA = """
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
""" + COMMON

V2_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY, t NOT NULL, m INTEGER NOT NULL, k NOT NULL, b, h BLOB);
CREATE TABLE IF NOT EXISTS rounds (
    round_id INTEGER PRIMARY KEY, status TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meters (
    name TEXT PRIMARY KEY, wagered INTEGER, paid INTEGER, won INTEGER, rounds INTEGER,
    voids INTEGER, refunded INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outcome_meters (name TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, seal BLOB NOT NULL,
    state BLOB NOT NULL);
""" + COMMON + META + ";"

# An event as read: seq, utc, mono_ns, kind, actor, body, prev, hash. Format 2 read without
# hashes gives prev None and the hash as stored (None: none, "": no hash).
Row = tuple[int, str, int, str, str, str, "str | None", "str | None"]

_dumps = json.JSONEncoder(separators=(",", ":")).encode


class RowError(ValueError):
    """An event row that cannot be decoded (damaged or edited), or is ``missing``."""

    def __init__(self, seq: int, detail: str, missing: bool = False) -> None:
        super().__init__(f"event {seq}: {detail}")
        self.seq, self.detail, self.missing = seq, detail, missing


def detect(db: sqlite3.Connection) -> int | None:
    """The format of an open journal file (None: no events table yet, a new file)."""
    if db.execute("PRAGMA user_version").fetchone()[0] == codec.FORMAT:
        return codec.FORMAT
    cols = {r[1] for r in db.execute("PRAGMA table_info(events)")}
    if not cols:
        return None
    return 1 if "body" in cols else codec.FORMAT


class Store:
    """The rows of one journal file, in one format (see the subclasses)."""

    format = 0
    schema = ""
    settings = ""
    new_settings = ""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.base: tuple[int, str] = (0, GENESIS)  # the cut: its event and hash (meta's)

    # ------------------------------------------------------------------ creating
    def create(self, new: bool) -> None:
        """Create the tables missing and the settings, in one transaction (``new``: a new file)."""
        journal_schema.create(self.db, (self.new_settings if new else "") + self.settings,
                              self.schema)

    # ------------------------------------------------------------------ events
    def insert(self, rows: list[Row]) -> None:
        """Insert events (a transaction is open)."""
        raise NotImplementedError

    def rows(self, first: int, last: int | None = None, hashes: bool = True
             ) -> Iterator[Row]:
        """Events ``first <= seq (<= last)``, in order (``hashes`` False: as stored); RowError."""
        raise NotImplementedError

    def event_hash(self, seq: int) -> str | None:
        """The chain hash of event ``seq`` (hex), None when absent; RowError as :meth:`rows`."""
        raise NotImplementedError

    def keep_hash(self, seq: int, h: str) -> None:
        """Store event ``seq``'s hash where format 2 keeps none (a transaction is open)."""

    def last_seq(self) -> int | None:
        """The newest event in the file (None: none)."""
        return self.db.execute("SELECT MAX(seq) FROM events").fetchone()[0]

    def head(self) -> tuple[int, str] | None:
        """The newest event's (seq, hash), None for none; hash "" when it cannot be derived."""
        seq = self.last_seq()
        if seq is None:
            return None
        try:
            return seq, self.event_hash(seq) or ""
        except RowError:
            return seq, ""

    def first_seq(self) -> int | None:
        """The oldest event in the file."""
        return self.db.execute("SELECT MIN(seq) FROM events").fetchone()[0]

    def times(self, first: int = 0) -> Iterator[tuple[int, str]]:
        """(seq, utc) of every event from ``first``, in order."""
        raise NotImplementedError

    def newest_of_kind(self, kind: str, at_most: int) -> Row | None:
        """The newest event of ``kind`` at or before ``at_most``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ derived rows
    def write_rounds(self, rounds: dict[int, dict[str, Any]], ends: dict[int, int]) -> None:
        """Write finished rounds' rows (records by id; the event that made each)."""
        raise NotImplementedError

    def compare_round(self, rid: int, rec: dict[str, Any], seq: int
                      ) -> tuple[str, list[str]]:
        """Round ``rid``'s row against the replay's record at ``seq`` (same, changed...)."""
        raise NotImplementedError

    def round_ends(self, first: int = -(2**63)) -> list[tuple[int, str, int | None]]:
        """(round id, status, the event that last changed its record or None) from ``first``."""
        raise NotImplementedError

    def write_meters(self, meters: dict[str, Any]) -> None:
        """Write the meter tables (absolute values)."""
        ex = self.db.executemany
        ex("INSERT OR REPLACE INTO meters VALUES (?,?,?,?,?,?,?)",
           [(k, *v) for k, v in meters["rows"].items()])
        ex("INSERT OR REPLACE INTO counters VALUES (?,?)", meters["counters"].items())
        ex("INSERT OR REPLACE INTO outcome_meters VALUES (?,?)",
           meters.get("outcomes", {}).items())

    def write_snapshot(self, seq: int, seal: str, state: str) -> None:
        """Write a snapshot (its seal and state JSON)."""
        raise NotImplementedError

    def snapshot(self, seq: int) -> tuple[int, str, str] | None:
        """The snapshot after event ``seq``: (seq, seal hex, state JSON), or None."""
        raise NotImplementedError

    def latest_snapshot(self, at_most: int) -> tuple[int, str, str] | None:
        """The newest snapshot at or before ``at_most``."""
        raise NotImplementedError

    def snapshot_seqs(self, after: int = -(2**63)) -> list[int]:
        """The events snapshots were taken after, from ``after`` on (exclusive), in order."""
        return [s for (s,) in self.db.execute(
            "SELECT seq FROM snapshots WHERE seq > ? ORDER BY seq", (after,))]

    # ------------------------------------------------------------------ meta and the cut
    def meta(self) -> dict[str, Any]:
        """The ``meta`` rows ({} when the table is missing)."""
        try:
            return dict(self.db.execute("SELECT key, value FROM meta"))
        except sqlite3.OperationalError:
            return {}

    def set_meta(self, items: dict[str, Any]) -> None:
        """Write ``meta`` rows (a transaction is open)."""
        self.db.execute(META)
        self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", items.items())

    def seqs_of(self, kind: str) -> list[int]:
        """The events of ``kind``, oldest first."""
        raise NotImplementedError

    def delete_through(self, seq: int, round_below: int) -> None:
        """Delete the events to ``seq``, their derived rows and the rounds below ``round_below``."""
        for table in ("events", "snapshots", "rejections"):
            self.db.execute(f"DELETE FROM {table} WHERE seq <= ?", (seq,))
        self.db.execute("DELETE FROM rounds WHERE round_id < ?", (round_below,))

    def delete_after(self, seq: int) -> None:
        """Delete the events after ``seq`` and their derived rows (an archive's, after a crash)."""
        for table in ("events", "snapshots", "rejections"):
            self.db.execute(f"DELETE FROM {table} WHERE seq > ?", (seq,))
        self.db.execute("DELETE FROM rounds WHERE seq > ?", (seq,))
        self.writing = None

    def store_absolute(self, seq: int, utc: str, mono: int) -> None:
        """Store event ``seq``'s times whole: it is now the file's first (after a cut)."""

    writing: codec.Times | None = None


class V1Store(Store):
    """Format 1: every column text, whole round records (journals of earlier versions)."""

    format = 1
    schema = V1_SCHEMA

    def insert(self, rows: list[Row]) -> None:
        """See :meth:`Store.insert`."""
        self.db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?)", rows)

    def rows(self, first: int, last: int | None = None, hashes: bool = True
             ) -> Iterator[Row]:
        """See :meth:`Store.rows` (every row stores its hashes)."""
        q = ("SELECT seq, utc, mono_ns, kind, actor, body, prev, hash FROM events "
             "WHERE seq >= ?")
        args: tuple[int, ...] = (first,)
        if last is not None:
            q, args = q + " AND seq <= ?", (first, last)
        yield from self.db.execute(q + " ORDER BY seq", args)

    def times(self, first: int = 0) -> Iterator[tuple[int, str]]:
        """See :meth:`Store.times`."""
        yield from self.db.execute("SELECT seq, utc FROM events WHERE seq >= ? ORDER BY seq",
                                   (first,))

    def event_hash(self, seq: int) -> str | None:
        """See :meth:`Store.event_hash`."""
        row = self.db.execute("SELECT hash FROM events WHERE seq=?", (seq,)).fetchone()
        return row[0] if row else None

    def newest_of_kind(self, kind: str, at_most: int) -> Row | None:
        """See :meth:`Store.newest_of_kind`."""
        return self.db.execute(
            "SELECT seq, utc, mono_ns, kind, actor, body, prev, hash FROM events "
            "WHERE kind = ? AND seq <= ? ORDER BY seq DESC LIMIT 1", (kind, at_most)
        ).fetchone()

    def seqs_of(self, kind: str) -> list[int]:
        """See :meth:`Store.seqs_of`."""
        return [s for (s,) in self.db.execute("SELECT seq FROM events WHERE kind = ? "
                                              "ORDER BY seq", (kind,))]

    def write_rounds(self, rounds: dict[int, dict[str, Any]], ends: dict[int, int]) -> None:
        """See :meth:`Store.write_rounds`."""
        self.db.executemany("INSERT OR REPLACE INTO rounds VALUES (?,?,?,?,?,?)",
                            [(rid, r["status"], r["void_reason"], r["started_utc"],
                              r["ended_utc"], _dumps(r)) for rid, r in rounds.items()])

    def compare_round(self, rid: int, rec: dict[str, Any], seq: int
                      ) -> tuple[str, list[str]]:
        """See :meth:`Store.compare_round`."""
        row = self.db.execute("SELECT status, void_reason, started_utc, ended_utc, record "
                              "FROM rounds WHERE round_id = ?", (rid,)).fetchone()
        if row is None:
            return "missing", []
        status, void_reason, started, ended, text = row
        try:
            stored = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            return "unreadable", []
        changed = [name for name, a, b in (
            ("status", status, rec["status"]), ("void_reason", void_reason, rec["void_reason"]),
            ("started_utc", started, rec["started_utc"]), ("ended_utc", ended, rec["ended_utc"]))
            if a != b]
        if stored != rec:
            if isinstance(stored, dict):
                changed += sorted(f"record {k}" for k in stored.keys() | rec.keys()
                                  if stored.get(k) != rec.get(k))
            else:
                changed.append("record")
        return ("changed" if changed else "same"), changed

    def round_ends(self, first: int = -(2**63)) -> list[tuple[int, str, int | None]]:
        """See :meth:`Store.round_ends`."""
        return [(rid, status, None) for rid, status in self.db.execute(
            "SELECT round_id, status FROM rounds WHERE round_id >= ? ORDER BY round_id",
            (first,))]

    def stored_records(self, last: int | None = None) -> list[tuple[int, Any]]:
        """(round id, record text) newest first: format 1 keeps whole records."""
        q = "SELECT round_id, record FROM rounds ORDER BY round_id DESC"
        return (self.db.execute(q + " LIMIT ?", (last,)) if last is not None
                else self.db.execute(q)).fetchall()

    def write_snapshot(self, seq: int, seal: str, state: str) -> None:
        """See :meth:`Store.write_snapshot`."""
        self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?)", (seq, seal, state))

    def snapshot(self, seq: int) -> tuple[int, str, str] | None:
        """See :meth:`Store.snapshot`."""
        return self.db.execute("SELECT seq, hash, state FROM snapshots WHERE seq = ?",
                               (seq,)).fetchone()

    def latest_snapshot(self, at_most: int) -> tuple[int, str, str] | None:
        """See :meth:`Store.latest_snapshot`."""
        return self.db.execute("SELECT seq, hash, state FROM snapshots WHERE seq <= ? "
                               "ORDER BY seq DESC LIMIT 1", (at_most,)).fetchone()


class V2Store(Store):
    """Format 2: the compact rows of :mod:`controller.journal.codec`."""

    format = codec.FORMAT
    schema = V2_SCHEMA
    settings = f"PRAGMA user_version={codec.FORMAT};"
    new_settings = "PRAGMA page_size=1024; PRAGMA auto_vacuum=INCREMENTAL;"

    def __init__(self, db: sqlite3.Connection) -> None:
        super().__init__(db)
        self.bodies = codec.BodyCache()
        self._packed: dict[tuple[str, str], Any] = {}
        self.writing: codec.Times | None = None  # the writer's time state at its head

    # ------------------------------------------------------------------ events
    def _times_at(self, seq: int) -> codec.Times:
        """The time state after event ``seq`` (read from the keyframe before it)."""
        times = codec.Times()
        try:
            for _ in self._times(self._keyframe(seq), seq, times):
                pass
        except RowError:
            return codec.Times()
        return times

    def _times(self, start: int, last: int | None, times: codec.Times
               ) -> Iterator[tuple[int, str]]:
        """(seq, utc) of the events from ``start`` (a keyframe) to ``last``, into ``times``."""
        top = 2**63 - 1 if last is None else last
        for seq, t, m in self.db.execute("SELECT seq, t, m FROM events WHERE seq >= ? AND "
                                         "seq <= ? ORDER BY seq", (start, top)):
            try:
                yield seq, times.decode(seq, t, m)[0]
            except codec.FormatError as exc:
                raise RowError(seq, str(exc)) from None

    def _keyframe(self, seq: int) -> int:
        """Where to start reading to know event ``seq``'s times: a keyframe, or the first event."""
        return max(self.base[0] + 1, seq - (seq - 1) % codec.KEYFRAME)

    def _body(self, kind: str, text: str) -> Any:
        key = (kind, text)
        b = self._packed.get(key, self)
        if b is self:
            b = codec.encode_body(kind, text)
            if len(self._packed) >= codec.BodyCache.LIMIT:
                self._packed.clear()
            self._packed[key] = b
        return b

    def insert(self, rows: list[Row]) -> None:
        """See :meth:`Store.insert`."""
        times = self.writing
        if times is None:
            head = self.head()
            times = self._times_at(head[0]) if head else codec.Times()
        out = []
        for seq, utc, mono, kind, actor, body, _prev, h in rows:
            t, m = times.encode(seq, utc, mono)
            out.append((seq, t, m, codec.encode_kind(kind, actor), self._body(kind, body),
                        None if seq % codec.CHECKPOINT else codec.hash_bytes(h)))
        self.db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?)", out)
        self.writing = times

    def chain_start(self, first: int) -> tuple[int, str]:
        """Where hashes from ``first`` derive from: the newest good hash stored, or the cut's."""
        row = self.db.execute("SELECT seq, h FROM events WHERE seq < ? AND seq > ? AND "
                              "typeof(h) = 'blob' AND length(h) = 32 ORDER BY seq DESC "
                              "LIMIT 1", (first, self.base[0])).fetchone()
        return (row[0], row[1].hex()) if row else self.base

    def rows(self, first: int, last: int | None = None, hashes: bool = True
             ) -> Iterator[Row]:
        """See :meth:`Store.rows`: hashes derived from the checkpoint before ``first``."""
        first = max(first, 1)
        at, prev = self.chain_start(first) if hashes else (first - 1, None)
        start = self._keyframe(at + 1)
        q = "SELECT seq, t, m, k, b, h FROM events WHERE seq >= ?"
        args: tuple[int, ...] = (start,)
        if last is not None:
            q, args = q + " AND seq <= ?", (start, last)
        times, bodies, expect = codec.Times(), self.bodies, at + 1
        for seq, t, m, k, b, h in self.db.execute(q + " ORDER BY seq", args):
            try:
                utc, mono = times.decode(seq, t, m)
                if seq <= at:
                    continue
                kind, actor = codec.decode_kind(k)
                text = bodies.text(kind, k, b)
            except codec.FormatError as exc:
                raise RowError(seq, str(exc)) from None
            stored = (h.hex() if len(h) == 32 else "") if type(h) is bytes else \
                None if h is None else ""
            if prev is None:
                if seq >= first:
                    yield seq, utc, mono, kind, actor, text, None, stored
                continue
            if seq != expect:
                raise RowError(expect, f"missing (next present is {seq})", missing=True)
            h = stored or chain_hash(prev, seq, utc, mono, kind, actor, text)
            if seq >= first:
                yield seq, utc, mono, kind, actor, text, prev, h
            prev, expect = h, expect + 1

    def times(self, first: int = 0) -> Iterator[tuple[int, str]]:
        """See :meth:`Store.times`."""
        for seq, utc in self._times(self._keyframe(max(first, 1)), None, codec.Times()):
            if seq >= first:
                yield seq, utc

    def keep_hash(self, seq: int, h: str) -> None:
        """See :meth:`Store.keep_hash`."""
        self.db.execute("UPDATE events SET h = ? WHERE seq = ?", (codec.hash_bytes(h), seq))

    def event_hash(self, seq: int) -> str | None:
        """See :meth:`Store.event_hash`: stored at a checkpoint, else derived."""
        row = self.db.execute("SELECT h FROM events WHERE seq=?", (seq,)).fetchone()
        if row is None:
            return None
        return codec.hash_text(row[0]) or next(self.rows(seq, seq), (None,) * 8)[7]

    def seqs_of(self, kind: str) -> list[int]:
        """See :meth:`Store.seqs_of`."""
        lo, hi = codec.kind_codes(kind)
        return [s for (s,) in self.db.execute(
            "SELECT seq FROM events WHERE (k >= ? AND k < ? AND typeof(k) = 'integer') OR "
            "(typeof(k) = 'text' AND substr(k, 1, ?) = ?) ORDER BY seq",
            (lo, hi, *_text_kind(kind)))]

    def newest_of_kind(self, kind: str, at_most: int) -> Row | None:
        """See :meth:`Store.newest_of_kind`."""
        lo, hi = codec.kind_codes(kind)
        row = self.db.execute("SELECT seq FROM events WHERE seq <= ? AND ((k >= ? AND k < ? "
                              "AND typeof(k) = 'integer') OR (typeof(k) = 'text' AND "
                              "substr(k, 1, ?) = ?)) ORDER BY seq DESC LIMIT 1",
                              (at_most, lo, hi, *_text_kind(kind))).fetchone()
        if row is None:
            return None
        found = next(self.rows(row[0], row[0], hashes=False), None)
        return found if found is not None and found[3] == kind else None

    # ------------------------------------------------------------------ derived rows
    def write_rounds(self, rounds: dict[int, dict[str, Any]], ends: dict[int, int]) -> None:
        """See :meth:`Store.write_rounds`."""
        self.db.executemany("INSERT OR REPLACE INTO rounds VALUES (?,?,?)",
                            [(rid, r["status"], ends[rid]) for rid, r in rounds.items()])

    def compare_round(self, rid: int, rec: dict[str, Any], seq: int
                      ) -> tuple[str, list[str]]:
        """See :meth:`Store.compare_round`."""
        row = self.db.execute("SELECT status, seq FROM rounds WHERE round_id = ?",
                              (rid,)).fetchone()
        if row is None:
            return "missing", []
        status, end = row
        if not isinstance(status, str) or type(end) is not int:
            return "unreadable", []
        changed = [name for name, a, b in (("status", status, rec["status"]),
                                           ("seq", end, seq)) if a != b]
        return ("changed" if changed else "same"), changed

    def round_ends(self, first: int = -(2**63)) -> list[tuple[int, str, int | None]]:
        """See :meth:`Store.round_ends`."""
        return self.db.execute("SELECT round_id, status, seq FROM rounds WHERE round_id >= ? "
                               "ORDER BY round_id", (first,)).fetchall()

    def write_snapshot(self, seq: int, seal: str, state: str) -> None:
        """See :meth:`Store.write_snapshot`."""
        self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?)",
                        (seq, codec.hash_bytes(seal), codec.pack_state(state)))

    def _snap(self, row: Any) -> tuple[int, str, str] | None:
        if row is None:
            return None
        return row[0], codec.hash_text(row[1]), codec.unpack_state(row[2])

    def snapshot(self, seq: int) -> tuple[int, str, str] | None:
        """See :meth:`Store.snapshot`."""
        return self._snap(self.db.execute("SELECT seq, seal, state FROM snapshots "
                                          "WHERE seq = ?", (seq,)).fetchone())

    def latest_snapshot(self, at_most: int) -> tuple[int, str, str] | None:
        """See :meth:`Store.latest_snapshot`."""
        return self._snap(self.db.execute("SELECT seq, seal, state FROM snapshots WHERE seq <= ? "
                                          "ORDER BY seq DESC LIMIT 1", (at_most,)).fetchone())

    def store_absolute(self, seq: int, utc: str, mono: int) -> None:
        """Store event ``seq``'s times absolute: the chain hash covers times, not their storage."""
        t, m = codec.Times().encode(seq, utc, mono)
        self.db.execute("UPDATE events SET t = ?, m = ? WHERE seq = ?", (t, m, seq))
        self.writing = None


def _text_kind(kind: str) -> tuple[int, str]:
    """How a ``k`` stored as text (``["kind","actor"]``) begins for ``kind``: (length, text)."""
    head = json.dumps([kind])[:-1] + ","
    return len(head), head


def open_store(db: sqlite3.Connection, fmt: int) -> Store:
    """The store of an open file in format ``fmt``."""
    return V1Store(db) if fmt == 1 else V2Store(db)


__all__ = ["META", "Row", "RowError", "Store", "V1Store", "V2Store", "V1_SCHEMA", "V2_SCHEMA",
           "detect", "open_store"]
