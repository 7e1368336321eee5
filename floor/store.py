"""The floor's store: every table's rounds, state, meters and events in one database.

Rounds are keyed by table, journal and round id; only what the recorder verified is
stored. SQLite, or PostgreSQL for a ``postgresql://`` URL, with the same statements.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from controller.game.recall import as_recalled
from floor.messages import MetersMessage, StateMessage, StatusMessage, decode, encode
from floor.store_base import Database, StoreError, greater, open_database, upsert
from floor.store_sealed import ENROLLED, FIRST_USE, PinnedKey, SealedStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS rounds (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, round_id INTEGER NOT NULL,
    seq INTEGER NOT NULL, hash TEXT NOT NULL, prev_seq INTEGER NOT NULL,
    prev_hash TEXT NOT NULL, status TEXT NOT NULL, ended_utc TEXT, record TEXT NOT NULL,
    sent_us INTEGER NOT NULL, stored_us INTEGER NOT NULL, events INTEGER,
    PRIMARY KEY (table_id, journal, round_id));
CREATE TABLE IF NOT EXISTS series (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, first_us INTEGER NOT NULL,
    last_us INTEGER NOT NULL, contiguous INTEGER NOT NULL DEFAULT 0,
    announced INTEGER NOT NULL DEFAULT 0, broken TEXT, status TEXT,
    announced_seq INTEGER NOT NULL DEFAULT 0, announced_hash TEXT, gap_us INTEGER,
    PRIMARY KEY (table_id, journal));
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, journal TEXT NOT NULL, last_us INTEGER NOT NULL,
    status TEXT, status_us INTEGER NOT NULL DEFAULT 0, state TEXT,
    state_us INTEGER NOT NULL DEFAULT 0, meters TEXT, meters_us INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS recorder (
    id INTEGER PRIMARY KEY CHECK (id = 1), client_id TEXT NOT NULL,
    alive_us INTEGER NOT NULL, stopped INTEGER NOT NULL, broker TEXT, broker_lost_us INTEGER,
    broker_why TEXT);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
    severity TEXT NOT NULL, body TEXT NOT NULL, stored_us INTEGER NOT NULL,
    PRIMARY KEY (table_id, journal, seq, kind));
CREATE TABLE IF NOT EXISTS pending_events (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
    body TEXT NOT NULL, stored_us INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS pending_by_seq ON pending_events (table_id, journal, seq);
CREATE TABLE IF NOT EXISTS seals (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, epoch INTEGER NOT NULL,
    seq INTEGER NOT NULL, head TEXT NOT NULL, next_key TEXT NOT NULL,
    signature TEXT NOT NULL, round_id INTEGER NOT NULL,
    PRIMARY KEY (table_id, journal, epoch));
CREATE TABLE IF NOT EXISTS positions (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, journal_id TEXT NOT NULL,
    chain_key TEXT NOT NULL, epoch INTEGER NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL,
    head TEXT NOT NULL, first_utc TEXT NOT NULL, state BLOB NOT NULL,
    PRIMARY KEY (table_id, journal));
CREATE TABLE IF NOT EXISTS keys (
    table_id TEXT NOT NULL, key TEXT NOT NULL, how TEXT NOT NULL, since_us INTEGER NOT NULL,
    PRIMARY KEY (table_id, key));
CREATE TABLE IF NOT EXISTS forged (
    table_id TEXT PRIMARY KEY, count INTEGER NOT NULL, why TEXT NOT NULL,
    last_us INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS rounds_by_end ON rounds (ended_utc);
CREATE TABLE IF NOT EXISTS prunes (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, to_round INTEGER NOT NULL,
    to_seq INTEGER NOT NULL, rounds INTEGER NOT NULL, events INTEGER NOT NULL,
    archive TEXT NOT NULL, sha256 TEXT NOT NULL, pruned_us INTEGER NOT NULL,
    PRIMARY KEY (table_id, journal, to_round));
"""
_TABLES = {"rounds", "series", "tables", "events"}
_RECORDER = ("id", "client_id", "alive_us", "stopped", "broker", "broker_lost_us",
             "broker_why")
# Columns a store of an earlier recorder lacks: added when a recorder opens it.
_ADDED = {"series": ("status TEXT", "announced_seq INTEGER NOT NULL DEFAULT 0",
                     "announced_hash TEXT", "gap_us INTEGER"),
          "rounds": ("epoch INTEGER",),
          "recorder": ("broker TEXT", "broker_lost_us INTEGER", "broker_why TEXT")}


def status_of(m: StatusMessage) -> str:
    """``online``; ``stopped`` (an ``offline`` sent as it stopped); ``offline`` (its last will)."""
    return "stopped" if m.status == "offline" and m.stopped else m.status


def _decoded(name: str, text: Any) -> Any:
    if not isinstance(text, (str, bytes)):
        return None
    try:
        return decode(name, text.encode() if isinstance(text, str) else text)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Link:
    """A stored round's place in its chain: its last event and its previous round's."""

    seq: int
    hash: str
    prev_seq: int
    prev_hash: str


class SeriesRow(NamedTuple):
    """What the floor holds of one table's journal.

    ``contiguous``: rounds 1 to this are stored, each naming the one before; ``gap_us``:
    when the recorder first saw rounds lacking (microseconds; None: none; 0: not said).
    """

    table: str
    journal: str
    contiguous: int
    announced: int
    newest: int
    broken: str | None
    status: str | None = None
    announced_seq: int = 0
    announced_hash: str | None = None
    gap_us: int | None = 0


@dataclass(frozen=True, slots=True)
class TableRow:
    """What the floor knows of one table (``heard_us``: the recorder's clock, microseconds)."""

    table_id: str
    journal: str
    status: str | None
    state: StateMessage | None
    meters: MetersMessage | None
    heard_us: int = 0
    unreadable: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RecorderRow:
    """The recorder that writes the store, as it last said (times in microseconds)."""

    client_id: str
    alive_us: int
    stopped: bool
    broker: str | None = None
    broker_lost_us: int | None = None
    broker_why: str | None = None


@dataclass(frozen=True, slots=True)
class PruneRow:
    """Rounds of a series moved into an archive (``floor prune``; docs/floor-format.md)."""

    table: str
    journal: str
    to_round: int
    to_seq: int
    rounds: int
    events: int
    archive: str
    sha256: str
    pruned_us: int


class Store(SealedStore):
    """An open store: a SQLite file or a ``postgresql://`` URL (tables made unless ``readonly``).

    Raises:
        StoreError: not a floor store, or it cannot be opened.
    """

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.db: Database = open_database(str(path), readonly)
        self.path = self.db.name
        try:
            names = self.db.names()
            if names and not _TABLES <= names:
                raise StoreError(f"{self.path}: not a floor store (it holds "
                                 f"{', '.join(sorted(names)[:5])})")
            if not readonly:
                self.db.script(SCHEMA, _ADDED)
            elif not names:
                raise StoreError(f"{self.path}: an empty floor store (no recorder wrote it)")
            self._series_cols = self.db.columns("series")
        except self.db.errors as exc:
            self.db.close()
            raise StoreError(f"{self.path}: cannot open the floor store: {exc}") from None
        except StoreError:
            self.db.close()
            raise

    # ------------------------------------------------------------------ writing
    def _seen(self, table: str, journal: str, now_us: int) -> None:
        """A message of this table and journal came at ``now_us``: its journal is the table's."""
        self.db.execute("INSERT INTO series (table_id, journal, first_us, last_us) "
                        "VALUES (?,?,?,?) ON CONFLICT (table_id, journal) DO UPDATE SET "
                        f"last_us = {greater('series.last_us', 'excluded.last_us')}",
                        (table, journal, now_us, now_us))
        self.db.execute(upsert("tables", ("table_id", "journal", "last_us"), ("table_id",)),
                        (table, journal, now_us))

    def put_latest(self, m: StateMessage | MetersMessage | StatusMessage, now_us: int,
                   retained: bool = False) -> bool:
        """Keep a table's ``state``, ``meters`` or ``status``: the newest.

        Arrival order is the truth (the broker keeps a topic's order), never ``sent_us``; a
        ``retained`` copy older by ``seq`` is left aside (False).
        """
        col = m.name
        with self.db.transaction():
            if retained and not isinstance(m, StatusMessage):
                row = self.db.execute(f"SELECT {col} FROM tables WHERE table_id = ?",
                                      (m.table,)).fetchone()
                held = _decoded(col, row[0] if row else None)
                if held is not None and held.journal == m.journal and held.seq > m.seq:
                    return False
            self._seen(m.table, m.journal, now_us)
            value = status_of(m) if isinstance(m, StatusMessage) else encode(m).decode()
            self.db.execute(f"UPDATE tables SET {col} = ?, {col}_us = ? WHERE table_id = ?",
                            (value, now_us, m.table))
            if isinstance(m, StateMessage):
                self.db.execute("UPDATE series SET announced = ?, announced_seq = ?, "
                                "announced_hash = ? WHERE table_id = ? AND journal = ?",
                                (m.last_round, m.last_round_seq, m.last_round_hash, m.table,
                                 m.journal))
            elif isinstance(m, StatusMessage):
                self.db.execute("UPDATE series SET status = ? WHERE table_id = ? AND "
                                "journal = ?", (value, m.table, m.journal))
        return True

    def set_contiguous(self, table: str, journal: str, contiguous: int) -> None:
        """Record how far the series' rounds run verified without a gap."""
        self.db.execute("UPDATE series SET contiguous = ? WHERE table_id = ? AND journal = ?",
                        (contiguous, table, journal))

    def set_gap(self, table: str, journal: str, gap_us: int | None) -> None:
        """Record when the recorder first saw the rounds a series lacks (None: none)."""
        self.db.execute("UPDATE series SET gap_us = ? WHERE table_id = ? AND journal = ?",
                        (gap_us, table, journal))

    def set_broken(self, table: str, journal: str, why: str | None) -> None:
        """Record (or clear, with None) why a series' chain cannot be completed."""
        self.db.execute("UPDATE series SET broken = ? WHERE table_id = ? AND journal = ?",
                        (why, table, journal))

    # ------------------------------------------------------------------ reading
    def link(self, table: str, journal: str, round_id: int) -> Link | None:
        """A stored round's :class:`Link`, or None."""
        row = self.db.execute("SELECT seq, hash, prev_seq, prev_hash FROM rounds WHERE "
                              "table_id=? AND journal=? AND round_id=?",
                              (table, journal, round_id)).fetchone()
        return Link(*row) if row else None

    def series(self) -> list[SeriesRow]:
        """Every series, by table, oldest journal first (the order the floor first heard)."""
        extra = ", ".join(f"s.{c}" if c in self._series_cols else d for c, d in (
            ("status", "NULL"), ("announced_seq", "0"), ("announced_hash", "NULL"),
            ("gap_us", "0")))
        return [SeriesRow(*r) for r in self.db.execute(
            "SELECT s.table_id, s.journal, s.contiguous, s.announced, "
            "(SELECT COALESCE(MAX(round_id), 0) FROM rounds r WHERE r.table_id = s.table_id "
            f"AND r.journal = s.journal), s.broken, {extra} FROM series s ORDER BY "
            "s.table_id, s.first_us")]

    def series_now(self) -> list[tuple[str, str, int, int, str | None, str | None]]:
        """(table, journal, contiguous, announced, broken, status) of every series, as stored."""
        return self.db.execute("SELECT table_id, journal, contiguous, announced, broken, "
                               "status FROM series").fetchall()

    def current_journals(self) -> dict[str, str]:
        """Table -> the journal of its newest message received (by any recorder)."""
        return dict(self.db.execute("SELECT table_id, journal FROM tables").fetchall())

    def tables(self) -> list[TableRow]:
        """Every table the floor heard of, by id."""
        out = []
        for tid, journal, status, state, meters, heard in self.db.execute(
                "SELECT table_id, journal, status, state, meters, last_us FROM tables "
                "ORDER BY table_id"):
            st, me = _decoded("state", state), _decoded("meters", meters)
            bad = tuple(name for name, text, value in (("state", state, st),
                                                       ("meters", meters, me))
                        if text is not None and value is None)
            out.append(TableRow(tid, journal, status, st, me, heard, bad))
        return out

    def beat(self, client_id: str, now_us: int, stopped: bool = False, broker: str = "",
             lost_us: int | None = None, why: str = "") -> None:
        """The recorder says it runs (or, ``stopped``, that it stopped cleanly).

        ``now_us`` and ``lost_us`` (since when it cannot reach the broker, None:
        connected) are microseconds since the epoch.
        """
        self.db.execute(upsert("recorder", _RECORDER, ("id",)),
                        (1, client_id, now_us, int(stopped), broker or None, lost_us,
                         why or None))

    def recorder(self) -> RecorderRow | None:
        """The recorder as it last said (None: none said it, or an earlier one's store)."""
        have = self.db.columns("recorder")  # none: written before the recorder said it runs
        cols = [c if c in have else "NULL" for c in _RECORDER[1:]]
        row = self.db.execute(f"SELECT {', '.join(cols)} FROM recorder WHERE id = 1"
                              ).fetchone() if have else None
        if row is None:
            return None
        return RecorderRow(row[0], row[1], bool(row[2]), *row[3:])

    def journals(self, table: str) -> list[str]:
        """The table's journals, oldest first."""
        return [r[0] for r in self.db.execute(
            "SELECT journal FROM series WHERE table_id = ? ORDER BY first_us", (table,))]

    def rounds(self, table: str, journal: str, last: int | None = None) -> list[dict[str, Any]]:
        """The stored round records of one series, newest first (``recall --json``'s shape)."""
        q = ("SELECT record FROM rounds WHERE table_id = ? AND journal = ? "
             "ORDER BY round_id DESC")
        args: tuple[Any, ...] = (table, journal)
        if last is not None:
            q += " LIMIT ?"
            args += (last,)
        return [as_recalled(json.loads(r[0]), "") for r in self.db.execute(q, args)]

    def links(self, table: str, journal: str) -> list[tuple[int, int, str]]:
        """(round id, seq, hash) of every stored round of one series, oldest first."""
        return self.db.execute("SELECT round_id, seq, hash FROM rounds WHERE table_id = ? "
                               "AND journal = ? ORDER BY round_id", (table, journal)).fetchall()

    def rounds_since(self, table: str, journal: str, since_utc: str) -> int:
        """Rounds of a series that ended at or after ``since_utc`` (ISO 8601 UTC)."""
        return self.db.execute("SELECT COUNT(*) FROM rounds WHERE table_id = ? AND journal = ? "
                               "AND ended_utc >= ?", (table, journal, since_utc)).fetchone()[0]

    def rounds_between(self, from_utc: str | None, to_utc: str | None,
                       table: str | None = None) -> list[tuple[str, str, dict[str, Any]]]:
        """(table, journal, record) of rounds ended in ``[from_utc, to_utc)`` (table's clock)."""
        where, args = ["ended_utc IS NOT NULL"], []
        for cond, value in (("ended_utc >= ?", from_utc), ("ended_utc < ?", to_utc),
                            ("table_id = ?", table)):
            if value is not None:
                where.append(cond)
                args.append(value)
        return [(t, j, as_recalled(json.loads(rec), "")) for t, j, rec in self.db.execute(
            f"SELECT table_id, journal, record FROM rounds WHERE {' AND '.join(where)} "
            "ORDER BY ended_utc, table_id, journal, round_id", args)]

    def prunes(self, table: str | None = None) -> list[PruneRow]:
        """The prunes of every series (or a table's), oldest first (none: never pruned)."""
        if not self._has("prunes"):
            return []
        q, args = "SELECT * FROM prunes", ()
        if table is not None:
            q, args = q + " WHERE table_id = ?", (table,)
        return [PruneRow(*r) for r in self.db.execute(
            q + " ORDER BY table_id, journal, to_round", args)]

    def pruned_to(self, table: str, journal: str) -> tuple[int, int]:
        """(round, event) a series was pruned up to ((0, 0): never)."""
        if not self._has("prunes"):
            return 0, 0
        row = self.db.execute("SELECT to_round, to_seq FROM prunes WHERE table_id = ? AND "
                              "journal = ? ORDER BY to_round DESC LIMIT 1",
                              (table, journal)).fetchone()
        return (row[0], row[1]) if row else (0, 0)

    def newest_us(self) -> int:
        """When the newest message was received (the recorder's clock, microseconds; 0)."""
        return self.db.execute("SELECT COALESCE(MAX(last_us), 0) FROM tables").fetchone()[0]

    def latencies_us(self) -> list[int]:
        """Send-to-store time of every stored round, microseconds (the benchmark's figure)."""
        return [r[0] for r in self.db.execute(
            "SELECT stored_us - sent_us FROM rounds WHERE sent_us > 0")]

    def close(self) -> None:
        """Close the file, or the connection."""
        self.db.close()


def read_store(path: str | Path, what: Callable[[Store], Any]) -> Any:
    """``what(store)`` on the store opened read-only (StoreError, never the database's own)."""
    store = Store(path, readonly=True)
    try:
        return what(store)
    except store.db.errors as exc:
        why = (str(exc).strip() or type(exc).__name__).splitlines()[0]
        raise StoreError(f"{store.path}: cannot read the floor store: {why}") from None
    finally:
        with contextlib.suppress(*store.db.errors):
            store.close()


__all__ = ["ENROLLED", "FIRST_USE", "Link", "PinnedKey", "PruneRow", "RecorderRow",
           "SeriesRow", "Store", "StoreError", "TableRow", "read_store", "status_of"]
