"""The anchor beside a journal: its head and newest verified snapshot, outside the file (R4).

The journal's errors start here, so a failed anchor write stops the table like a commit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

GENESIS = "0" * 64

ANCHOR_SUFFIX = ".anchor"


class JournalError(RuntimeError):
    """The journal cannot be used (not a database, a broken chain, a failed write)."""


class JournalUnreadable(JournalError):
    """The file is not a usable journal (not SQLite, damaged, not UTF-8): readers exit 2."""


class AnchorError(JournalError):
    """The anchor beside a journal cannot be read or written."""


@dataclass(frozen=True, slots=True)
class Anchor:
    """What the anchor file holds: the head (``seq``, ``hash``) and the newest good snapshot."""

    seq: int
    hash: str
    verified_seq: int = 0
    verified_seal: str = ""


def real_path(path: str | Path) -> str:
    """The journal's real file: symlinks resolved (the key of its lock and its anchor)."""
    return os.path.realpath(os.fspath(path))


class AnchorFile:
    """The anchor file: two fixed slots, each a self-checking JSON line (docs/journal-format.md)."""

    SLOT = 256

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None
        self._next_slot = 0

    @classmethod
    def beside(cls, journal_path: str | Path) -> AnchorFile:
        """The anchor file of a journal."""
        return cls(real_path(journal_path) + ANCHOR_SUFFIX)

    @staticmethod
    def encode(anchor: Anchor) -> bytes:
        """One slot: the anchor as JSON, a check of it, padded to :attr:`SLOT` bytes."""
        text = json.dumps({"seq": anchor.seq, "hash": anchor.hash,
                           "verified": [anchor.verified_seq, anchor.verified_seal]},
                          separators=(",", ":"))
        line = f"{text} {hashlib.sha256(text.encode()).hexdigest()[:16]}"
        return line.encode("ascii").ljust(AnchorFile.SLOT - 1) + b"\n"

    @staticmethod
    def decode(slot: bytes) -> Anchor | None:
        """The anchor in one slot, or None when the slot is empty, torn or altered."""
        try:
            text, _, check = slot.decode("ascii").strip().rpartition(" ")
            if hashlib.sha256(text.encode()).hexdigest()[:16] != check:
                return None
            d = json.loads(text)
            vseq, vseal = d["verified"]
            fields = (d["seq"], vseq)
            if any(type(v) is not int or v < 0 for v in fields) or not isinstance(
                    d["hash"], str) or not isinstance(vseal, str):
                return None
            return Anchor(d["seq"], d["hash"], vseq, vseal)
        except (UnicodeDecodeError, ValueError, KeyError, TypeError):
            return None

    def read(self) -> Anchor | None:
        """The newest anchor in the file; None without a file (AnchorError: none readable in it)."""
        try:
            with open(self.path, "rb") as f:
                data = f.read(2 * self.SLOT + 1)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise AnchorError(f"{self.path}: the anchor cannot be read: {exc.strerror}"
                              ) from None
        slots = [self.decode(data[i * self.SLOT:(i + 1) * self.SLOT]) for i in range(2)]
        found = [(a.seq, a.verified_seq, i, a) for i, a in enumerate(slots) if a is not None]
        if not found:
            raise AnchorError(f"{self.path}: the anchor beside the journal is not readable")
        newest = max(found)
        self._next_slot = 1 - newest[2]
        return newest[3]

    def write(self, anchor: Anchor) -> None:
        """Write ``anchor`` into the older slot and flush it (AnchorError when it cannot)."""
        try:
            if self._fd is None:
                created = not os.path.exists(self.path)
                if not created:
                    with contextlib.suppress(AnchorError):
                        self.read()  # the slot to write next
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
                if created:  # the new name itself must survive a power cut
                    dfd = os.open(os.path.dirname(self.path) or ".", os.O_RDONLY)
                    try:
                        os.fsync(dfd)
                    finally:
                        os.close(dfd)
            os.pwrite(self._fd, self.encode(anchor), self._next_slot * self.SLOT)
            os.fdatasync(self._fd)
        except OSError as exc:
            raise AnchorError(f"{self.path}: the anchor cannot be written: {exc.strerror}"
                              ) from None
        self._next_slot = 1 - self._next_slot

    def close(self) -> None:
        """Close the file."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


class AnchorWriter:
    """Keeps an :class:`AnchorFile` at the journal's head from a thread of its own (never ahead)."""

    def __init__(self, file: AnchorFile) -> None:
        self.file = file
        self._cond = threading.Condition()
        self._posted: Anchor | None = None
        self._written: Anchor | None = None
        self._busy = False
        self._closing = False
        self.error: AnchorError | None = None
        self._thread = threading.Thread(target=self._run, name="journal-anchor", daemon=True)
        self._thread.start()

    def post(self, anchor: Anchor) -> None:
        """Write ``anchor`` soon (a newer one posted before it is written replaces it)."""
        with self._cond:
            if anchor != self._posted:
                self._posted = anchor
                self._cond.notify_all()

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until the newest posted anchor is on disk (AnchorError: failed, or timed out)."""
        with self._cond:
            done = self._cond.wait_for(lambda: self.error is not None or (
                not self._busy and self._written == self._posted), timeout)
            if self.error is not None:
                raise self.error
            if not done:
                raise AnchorError(f"{self.file.path}: the anchor write did not finish")

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closing or self._posted != self._written)
                if self._posted == self._written:
                    return  # closing, nothing left
                anchor, self._busy = self._posted, True
            try:
                self.file.write(anchor)
            except AnchorError as exc:
                with self._cond:
                    self.error, self._busy = exc, False
                    self._cond.notify_all()
                return
            with self._cond:
                self._written, self._busy = anchor, False
                self._cond.notify_all()

    def close(self) -> None:
        """Write what was posted, stop the thread and close the file (AnchorError: it failed)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(10.0)
        self.file.close()
        if self.error is not None:
            raise self.error
