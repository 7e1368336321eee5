"""The journal file's tables, and the hash chain of its event rows.

Every input is one row of ``events``, its hash chained to the row before it
(:func:`chain_hash`); a snapshot is sealed to the hash of the event it follows
(:func:`snapshot_hash`). :mod:`controller.game.journal` writes and reads them; the
verifier, replay and a dispute bundle check them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

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


__all__ = ["SCHEMA", "ChainReport", "Record", "chain_hash", "snapshot_hash"]
