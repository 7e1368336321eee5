"""Forward-secure seals: the journal signed by keys the table erases once used (R16).

The key lives in the state folder, never beside the journal, so a journal put back meets
a key that does not fit (docs/journal-format.md, "Seals").
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from controller.journal.anchor import JournalError

SCHEMA = """
CREATE TABLE IF NOT EXISTS chains (
    epoch INTEGER PRIMARY KEY, seq INTEGER NOT NULL, head BLOB NOT NULL, key BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS seals (
    epoch INTEGER PRIMARY KEY, seq INTEGER NOT NULL, head BLOB NOT NULL,
    next_key BLOB NOT NULL, signature BLOB NOT NULL);
"""

# Epochs a key file may lag its journal and be brought forward at start (seals of the last
# seconds before a power cut); further behind, it was put back: the table locks.
CATCH_UP = 16

# No event stays unsealed longer than this (monotonic nanoseconds).
SEAL_EVERY_NS = 15 * 60 * 10**9

_DOMAIN = b"threecard-table seal v1\x00"
_MAGIC = b"TCSEAL1\n"
_SLOT = struct.Struct(">q32s8s")  # epoch, private key bytes, check
_SLOTS = (64,)  # one key, at a fixed place: written over in place
_FILE_SIZE = 192


class SealError(JournalError):
    """The seal key cannot be used with this journal (missing, older, newer, unreadable)."""


def key_text(public: bytes) -> str:
    """A public key as people pass it on: 64 hexadecimal digits of its 32 raw bytes."""
    return public.hex()


def parse_key(text: str) -> bytes:
    """A verification key given as text (:func:`key_text`); ValueError if not 64 hex digits."""
    t = text.strip().lower()
    if len(t) != 64 or any(c not in "0123456789abcdef" for c in t):
        raise ValueError(f"{text[:80]!r} is no verification key (64 hexadecimal digits)")
    return bytes.fromhex(t)


def raw_public(private: Ed25519PrivateKey) -> bytes:
    """The 32 raw bytes of a private key's public key."""
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def is_journal_id(value: object) -> bool:
    """Whether ``value`` is a journal id as one is made: 64 lowercase hexadecimal digits."""
    return isinstance(value, str) and len(value) == 64 and not value.strip("0123456789abcdef")


def message(journal_id: str, epoch: int, seq: int, head: str, next_key: bytes) -> bytes:
    """The bytes a seal signs: journal id, epoch, last event, its head, the next public key."""
    return (_DOMAIN + bytes.fromhex(journal_id) + struct.pack(">qq", epoch, seq)
            + bytes.fromhex(head) + next_key)


def signature_ok(public: bytes, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``public``'s Ed25519 signature of ``data``."""
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def key_file(folder: str | Path, journal: str | Path, journal_id: str) -> Path:
    """The key file of a journal: named by its id and its file's inode (a copy has no key).

    OSError: no inode to read.
    """
    return Path(folder) / f"seal-{journal_id[:16]}-{os.stat(journal).st_ino}.key"


def key_files_of(folder: str | Path, journal: str | Path) -> list[Path]:
    """The key files of the state folder made for the journal's file (its inode)."""
    try:
        ino = os.stat(journal).st_ino
        return sorted(Path(folder).glob(f"seal-*-{ino}.key"))
    except OSError:
        return []


def set_aside(folder: str | Path, journal: str | Path, journal_id: str) -> Path | None:
    """Rename a key file that does not fit (``seal init``), kept for the inquiry; its new name."""
    try:
        path = key_file(folder, journal, journal_id)
        if not os.path.lexists(path):
            return None
        aside = path.with_name(f"{path.name}.replaced-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(path, aside)
    except OSError as exc:
        raise SealError(f"seal key of {journal}: cannot be set aside: {exc.strerror}") from None
    return aside


def next_chain_epoch(db: sqlite3.Connection) -> int:
    """The epoch a new chain starts at: the one after the last seal (0: none)."""
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    last = db.execute("SELECT MAX(epoch) FROM seals").fetchone()[0] if "seals" in names else None
    return last + 1 if isinstance(last, int) else 0


def default_folder() -> Path:
    """The table's state folder: ``$STATE_DIRECTORY``, else the XDG state home."""
    given = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(xdg):  # the XDG rule: a relative path is ignored
        xdg = os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(xdg) / "threecard-table"


def _check(epoch: int, key: bytes) -> bytes:
    return hashlib.sha256(struct.pack(">q", epoch) + key).digest()[:8]


class KeyFile:
    """A journal's private seal key: a slot of a small file, written over in place."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.journal_id = ""  # as read from the file

    @classmethod
    def create(cls, path: Path, journal_id: str, epoch: int,
               private: Ed25519PrivateKey) -> KeyFile:
        """Make the file with its first key (never over another), synced; SealError if it cannot."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as exc:
            raise SealError(f"seal key {path}: cannot be made: {exc.strerror}") from None
        try:
            os.write(fd, (_MAGIC + bytes.fromhex(journal_id)).ljust(_FILE_SIZE, b"\0"))
            os.fsync(fd)
        finally:
            os.close(fd)
        kf = cls(path)
        kf.write(0, epoch, private)
        with contextlib.suppress(OSError):
            d = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(d)
            finally:
                os.close(d)
        return kf

    def read(self) -> dict[int, tuple[int, Ed25519PrivateKey]]:
        """The keys it holds: slot -> (epoch, private key), torn slots left out; SealError."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO never blocks
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise SealError(f"seal key {self.path}: not a regular file")
                data = f.read(_FILE_SIZE + 1)
        except FileNotFoundError:
            raise SealError(f"seal key {self.path}: missing") from None
        except OSError as exc:
            raise SealError(f"seal key {self.path}: cannot be read: {exc.strerror}") from None
        if not data.startswith(_MAGIC) or len(data) != _FILE_SIZE:
            raise SealError(f"seal key {self.path}: not a seal key file")
        self.journal_id = data[len(_MAGIC):len(_MAGIC) + 32].hex()
        out = {}
        for i, at in enumerate(_SLOTS):
            epoch, key, check = _SLOT.unpack_from(data, at)
            if any(key) and check == _check(epoch, key):
                out[i] = (epoch, Ed25519PrivateKey.from_private_bytes(key))
        return out

    def _pwrite(self, slot: int, data: bytes, sync: bool = True) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR)
        except OSError as exc:
            raise SealError(f"seal key {self.path}: cannot be written: {exc.strerror}"
                            ) from None
        try:
            os.pwrite(fd, data, _SLOTS[slot])
            if sync:
                os.fsync(fd)
        except OSError as exc:
            raise SealError(f"seal key {self.path}: cannot be written: {exc.strerror}"
                            ) from None
        finally:
            os.close(fd)

    def write(self, slot: int, epoch: int, private: Ed25519PrivateKey, sync: bool = True
              ) -> None:
        """Put a key in a slot, in place (synced unless not ``sync``); SealError if it fails."""
        raw = private.private_bytes_raw()
        self._pwrite(slot, _SLOT.pack(epoch, raw, _check(epoch, raw)), sync)


@dataclass(frozen=True, slots=True)
class ChainStart:
    """A chain's start: from ``epoch`` on, the key is ``key`` (the journal's head then)."""

    epoch: int
    seq: int
    head: str
    key: bytes


@dataclass(frozen=True, slots=True)
class Seal:
    """A seal: epoch ``epoch`` closed at event ``seq`` (hash ``head``), the next key named."""

    epoch: int
    seq: int
    head: str
    next_key: bytes
    signature: bytes


def has_tables(db: sqlite3.Connection) -> bool:
    """Whether the file holds the seal tables."""
    return db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name IN "
                      "('chains','seals')").fetchone()[0] == 2


def chains(db: sqlite3.Connection) -> list[ChainStart]:
    """Every chain start, oldest first ([] when the file has no seal tables)."""
    if not has_tables(db):
        return []
    return [ChainStart(e, s, h.hex() if isinstance(h, bytes) else str(h), bytes(k))
            for e, s, h, k in db.execute("SELECT * FROM chains ORDER BY epoch")]


def _seal(row: tuple) -> Seal:
    e, s, h, k, sig = row
    return Seal(e, s, h.hex() if isinstance(h, bytes) else str(h), bytes(k), bytes(sig))


def seals(db: sqlite3.Connection, from_epoch: int = -1) -> list[Seal]:
    """The seals from an epoch on, oldest first ([] without seal tables)."""
    if not has_tables(db):
        return []
    return [_seal(r) for r in db.execute("SELECT * FROM seals WHERE epoch >= ? ORDER BY epoch",
                                         (from_epoch,))]


def seals_between(db: sqlite3.Connection, after: int, upto: int) -> list[Seal]:
    """The seals whose event is after ``after`` and at most ``upto``, oldest first."""
    if not has_tables(db):
        return []
    return [_seal(r) for r in db.execute(
        "SELECT * FROM seals WHERE seq > ? AND seq <= ? ORDER BY epoch", (after, upto))]


def closing_seal(db: sqlite3.Connection, seq: int) -> Seal | None:
    """The first seal covering event ``seq`` (None: none yet, or an unsealed journal)."""
    if not has_tables(db):
        return None
    row = db.execute("SELECT * FROM seals WHERE seq >= ? ORDER BY epoch LIMIT 1",
                     (seq,)).fetchone()
    return None if row is None else _seal(row)


def first_epoch_from(db: sqlite3.Connection, seq: int) -> int:
    """The epoch of the first seal covering event ``seq``, read from the newest seal back."""
    if not has_tables(db):
        return 0
    found = _newest_epoch(db, "seals") + 1
    rows = db.execute("SELECT epoch, seq FROM seals ORDER BY epoch DESC")
    for epoch, covers in rows:
        if covers < seq:  # before the event: checked too when its event number is damaged
            older = next(rows, None)  # (seals cover events in order, from event 1)
            bad = covers < 1 or (older is not None and older[1] >= covers)
            return epoch if bad else found
        found = epoch
    return found


def last_seal(db: sqlite3.Connection) -> Seal | None:
    """The newest seal (None: none)."""
    found = seals(db, _newest_epoch(db, "seals"))
    return found[-1] if found else None


def _newest_epoch(db: sqlite3.Connection, table: str) -> int:
    if not has_tables(db):
        return -1
    got = db.execute(f"SELECT MAX(epoch) FROM {table}").fetchone()[0]  # noqa: S608
    return got if isinstance(got, int) else -1


def epoch_key(db: sqlite3.Connection, epoch: int) -> bytes | None:
    """Epoch ``epoch``'s public key, as the journal names it (None: none)."""
    if not has_tables(db):
        return None
    row = db.execute("SELECT key FROM chains WHERE epoch = ?", (epoch,)).fetchone() or \
        db.execute("SELECT next_key FROM seals WHERE epoch = ?", (epoch - 1,)).fetchone()
    return bytes(row[0]) if row else None


def progress_message(journal_id: str, epoch: int, seq: int, seal: str) -> bytes:
    """The bytes a full check's progress is signed over (by epoch ``epoch``'s key)."""
    return (_DOMAIN + b"checked\x00" + bytes.fromhex(journal_id)
            + struct.pack(">qq", epoch, seq) + seal.encode("ascii", "replace"))


def current(db: sqlite3.Connection) -> tuple[int, bytes] | None:
    """The epoch in force and its public key, as the journal's seals say (None: unsealed)."""
    starts = chains(db)
    if not starts:
        return None
    start = starts[-1]
    last = last_seal(db)
    if last is not None and last.epoch >= start.epoch:
        return last.epoch + 1, last.next_key
    return start.epoch, start.key


def next_key(private: Ed25519PrivateKey, journal_id: str, epoch: int) -> Ed25519PrivateKey:
    """Epoch ``epoch``'s private key: HKDF-SHA256 of the previous one, never the reverse."""
    seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=_DOMAIN + bytes.fromhex(journal_id) + struct.pack(">q", epoch)
                ).derive(private.private_bytes_raw())
    return Ed25519PrivateKey.from_private_bytes(seed)


class Sealer:
    """The writer's side: the key of the epoch in force, and the seal of each epoch.

    The used key is overwritten unflushed after each seal's commit; :meth:`open` brings a
    file a few epochs behind forward, so no disk flush of the key file a round.
    """

    def __init__(self, keys: KeyFile, journal_id: str, epoch: int,
                 private: Ed25519PrivateKey) -> None:
        self.keys = keys
        self.path = keys.path
        self.journal_id = journal_id
        self.epoch = epoch
        self._private = private
        self._next: Ed25519PrivateKey | None = None

    @classmethod
    def new(cls, folder: str | Path, journal: str | Path, journal_id: str, epoch: int
            ) -> tuple[Sealer, bytes]:
        """A new chain's first key, its file made: (the sealer, the public key); SealError."""
        private = Ed25519PrivateKey.generate()
        try:
            path = key_file(folder, journal, journal_id)
        except OSError as exc:
            raise SealError(f"{journal}: cannot be read: {exc.strerror}") from None
        kf = KeyFile.create(path, journal_id, epoch, private)
        return cls(kf, journal_id, epoch, private), raw_public(private)

    @classmethod
    def open(cls, folder: str | Path, journal: str | Path, journal_id: str, epoch: int,
             public: bytes) -> Sealer:
        """The key of the epoch in force, brought forward up to :data:`CATCH_UP` epochs.

        SealError: no key file, or its key does not fit (one of the two was put back).
        """
        try:
            kf = KeyFile(key_file(folder, journal, journal_id))
        except OSError as exc:
            raise SealError(f"{journal}: cannot be read: {exc.strerror}") from None
        held = kf.read()
        if kf.journal_id != journal_id:
            raise SealError(f"the seal key does not fit the journal: {kf.path} belongs to "
                            f"journal {kf.journal_id[:16]}, this is journal {journal_id[:16]}: "
                            "the journal was replaced")
        found = held.get(0)
        if found is not None and epoch - CATCH_UP <= found[0] < epoch:
            ahead = found[1]
            for e in range(found[0] + 1, epoch + 1):
                ahead = next_key(ahead, journal_id, e)
            if raw_public(ahead) == public:
                kf.write(0, epoch, ahead)  # the used keys overwritten, on the disk
                found = (epoch, ahead)
        if found is None or found[0] != epoch or raw_public(found[1]) != public:
            if found is None:
                why = "it holds no key"
            elif found[0] < epoch:
                why = (f"it holds epoch {found[0]}, older than the journal: the key file "
                       "was put back")
            elif found[0] > epoch:
                why = (f"it holds epoch {found[0]}, newer than the journal: the journal "
                       "was put back to an older copy")
            else:
                why = f"its key for epoch {epoch} is not the one the journal names"
            raise SealError(f"the seal key does not fit the journal: the journal's seals "
                            f"expect epoch {epoch}; {kf.path}: {why}")
        return cls(kf, journal_id, epoch, found[1])

    def stage(self) -> None:
        """Derive the next epoch's key (in the seal's transaction; nothing is written)."""
        self._next = next_key(self._private, self.journal_id, self.epoch + 1)

    def seal(self, seq: int, head: str) -> Seal:
        """The seal of the epoch in force at event ``seq`` (after :meth:`stage`)."""
        assert self._next is not None, "stage() first"
        nxt = raw_public(self._next)
        sig = self._private.sign(message(self.journal_id, self.epoch, seq, head, nxt))
        return Seal(self.epoch, seq, head, nxt, sig)

    def advance(self) -> None:
        """After the seal's commit: the next epoch in force, its key over the used one, unsynced."""
        assert self._next is not None
        self._private, self._next = self._next, None
        self.epoch += 1
        self.keys.write(0, self.epoch, self._private, sync=False)

    def drop(self) -> None:
        """The seal's commit failed: forget the derived key."""
        self._next = None

    def sign(self, data: bytes) -> bytes:
        """Sign ``data`` with the key in force (a full check's progress)."""
        return self._private.sign(data)


def write_seal(db: sqlite3.Connection, s: Seal) -> None:
    """Insert a seal row (a transaction is open)."""
    db.execute("INSERT INTO seals VALUES (?,?,?,?,?)",
               (s.epoch, s.seq, bytes.fromhex(s.head), s.next_key, s.signature))


def write_chain(db: sqlite3.Connection, c: ChainStart) -> None:
    """Create the seal tables when missing and insert a chain start (a transaction is open)."""
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("INSERT OR REPLACE INTO chains VALUES (?,?,?,?)",  # a chain that sealed nothing
               (c.epoch, c.seq, bytes.fromhex(c.head), c.key))


__all__ = ["CATCH_UP", "ChainStart", "KeyFile", "SEAL_EVERY_NS", "SCHEMA", "Seal",
           "SealError", "Sealer", "chains", "closing_seal", "current",
           "default_folder", "epoch_key", "first_epoch_from", "has_tables", "key_file",
           "key_files_of", "key_text", "last_seal", "message", "next_chain_epoch", "next_key",
           "parse_key", "progress_message", "raw_public", "seals", "seals_between",
           "set_aside", "signature_ok", "write_chain", "write_seal"]
