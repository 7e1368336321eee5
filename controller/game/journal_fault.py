"""A journal fault: writes that fail for a while, cleared by a self-check (R2, R20).

Nothing in memory is trusted after a failed write: inputs are refused and a try, with
back-off, reruns start-up's self-check, rebuilds the game from disk and journals the fault
first. What that check finds locks the table (R4); docs/journal-format.md, "A write that fails".
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from controller.game.fault_record import JOURNAL_FAULT, MAX_CARDS, JournalFault
from controller.game.inputs import COMMAND_NAMED
from controller.journal import JournalError

if TYPE_CHECKING:
    from controller.game.table import Table

log = logging.getLogger("threecard")

FIRST_TRY_S = 0.5
LAST_TRY_S = 8.0
# How a journal fault's lock reason begins and ends (else an integrity lock's or no retry's).
PREFIX, SUFFIX = "journal fault: ", "; retrying"


def fault_reason(text: str) -> str:
    """The write's own reason in a fault's lock text (``database or disk is full``)."""
    return text.removeprefix(PREFIX).removesuffix(SUFFIX)


@dataclass
class Fault:
    """One journal fault, from its first failed write.

    ``reason``: SQLite's words; ``since``, ``next_try``: monotonic seconds; ``lost``: inputs
    not recorded, by kind (``cards``: ``?`` a misread).
    """

    reason: str
    began: str
    since: float
    tries: int = 0
    wait: float = FIRST_TRY_S
    next_try: float = 0.0
    refused: Counter[str] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)
    cards: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The table's lock reason while it lasts: ``journal fault: ...; retrying``."""
        return f"{PREFIX}{self.reason}{SUFFIX}"

    def record(self) -> dict[str, Any]:
        """The body of its ``journal_fault`` record."""
        return msgspec.to_builtins(JournalFault(
            reason=self.reason[:512], began=self.began, tries=max(1, self.tries),
            refused=dict(self.refused), lost=dict(self.lost),
            cards=tuple(c[:16] for c in self.cards[:MAX_CARDS])))


WRITE_FAILED = "journal write failed: "


def _reason(exc: JournalError, path: str) -> str:
    text = str(exc)
    text = text[len(path) + 2:] if text.startswith(path + ": ") else text
    return text[len(WRITE_FAILED):] if text.startswith(WRITE_FAILED) else text


def write_lock_free(path: str) -> str | None:
    """None if SQLite's write lock on the journal can be taken now (and let go), else why not."""
    try:
        db = sqlite3.connect(Path(path).as_uri() + "?mode=rw", uri=True, timeout=0,
                             isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        finally:
            db.close()
    except sqlite3.Error as exc:
        return str(exc)
    return None


class JournalFaults:
    """The journal faults of one table: what fails, what is refused, the tries (table thread)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.fault: Fault | None = None
        self.clearing = False

    def shows(self, locked: str | None) -> bool:
        """Whether the lock reason ``locked`` is this fault's (not an integrity lock)."""
        f = self.fault
        return f is not None and locked == f.text

    def failed(self, exc: JournalError, batch: list[tuple[str, Any, str, str]]) -> None:
        """A write failed: a fault begins, its batch unrecorded (a lock of another kind stays)."""
        t, f = self.table, self.fault
        reason = _reason(exc, t.journal.path)
        if f is None:
            if t.locked:
                return
            f = self.fault = Fault(reason, t.clock.utc(), time.monotonic())
            f.next_try = f.since + f.wait
            self.missed(batch)
            log.debug("journal %s: a write failed (%s): every input is refused until a "
                      "self-check proves the fault gone", t.journal.path, reason)
            t._lock_table(f.text)  # noqa: SLF001 - the table's own lock

    def missed(self, batch: list[tuple[str, Any, str, str]]) -> None:
        """Inputs refused (or lost with a failed write) while the fault lasts."""
        f = self.fault
        if f is None:
            return
        for kind, body, _, _ in batch:
            if kind == JOURNAL_FAULT:
                continue
            (f.refused if kind in COMMAND_NAMED else f.lost)[kind] += 1
            if kind == "card":  # a record (the live input) or a body as journaled
                f.cards.append((body.get("card") or body.get("code") if isinstance(body, dict)
                                else body.card or body.code) or "?")
            elif kind == "misread":
                f.cards.append("?")

    def due(self, now: float) -> bool:
        """A fault is in force and its next try is due (``now``: monotonic seconds)."""
        f = self.fault
        return f is not None and not self.clearing and now >= f.next_try

    def retry(self) -> bool:
        """Try the self-check now; True when the fault cleared (its record journaled)."""
        t, f = self.table, self.fault
        if f is None:
            return False
        if t.locked != f.text:  # locked for good meanwhile (an integrity lock)
            self.fault = None
            return False
        f.tries += 1
        why = write_lock_free(t.journal.real) if t.journal.real != ":memory:" else None
        if why is None:
            self.clearing = True
            try:
                t.journal = t.journal.reopen()
                t._recover(None, (JOURNAL_FAULT, f.record()))  # noqa: SLF001 - start-up's
            except JournalError as exc:
                why = _reason(exc, t.journal.path)
            finally:
                self.clearing = False
        if why is not None:
            f.next_try = time.monotonic() + f.wait
            f.wait = min(LAST_TRY_S, f.wait * 2)
            log.debug("journal fault: try %d failed: %s", f.tries, why)
            return False
        self.fault = None
        if t.locked != f.text:  # the self-check found the journal broken: locked for good
            return False
        t._lock_table(None, f.text)  # noqa: SLF001 - the fault's lock lifted
        t._publish()  # noqa: SLF001 - the screens and the log see the table unlocked
        log.warning("journal fault cleared by the self-check after %.1f s (%d tries): %s; "
                    "refused %s; not recorded %s", time.monotonic() - f.since, f.tries,
                    f.reason, dict(f.refused) or "nothing", dict(f.lost) or "nothing")
        return True


__all__ = ["FIRST_TRY_S", "Fault", "JournalFaults", "LAST_TRY_S", "PREFIX", "write_lock_free"]
