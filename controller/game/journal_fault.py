"""A journal fault: writes that fail for a while, cleared by a self-check (R2, R20).

A write of the journal fails (a full disk, SQLite's write lock held by another process, a
disk error). Its transaction is rolled back, but the batch may have been applied to the
game already (:meth:`~controller.journal.Journal.append` applies it inside the
transaction), and derived rows held in memory may be gone: nothing in memory is trusted
any more. The table refuses every input with the fault's reason (the views show
``journal fault: ... retrying``, not a lock) and notes what it refused or lost.

It tries again after a back-off (:data:`FIRST_TRY_S`, doubling to :data:`LAST_TRY_S`).
A try first asks SQLite for its write lock without waiting (another process still holding
it ends the try at once), then makes start-up's own self-check on the journal opened
again (:meth:`~controller.journal.Journal.reopen`, the writer's lock kept throughout):
the table's ``_recover`` verifies the journal from its anchored snapshot, rebuilds the
game, the seal writer's state and the derived rows from what is on disk, and journals
the fault's record (:class:`~controller.game.fault_record.JournalFault`: its reason,
when it began, what was refused or lost) as its first event. So the game and the
journal's head agree again, by construction; the round of a card lost meanwhile waits
for a supervisor. A problem that self-check finds is start-up's integrity lock, which
never clears (R4); so is an integrity lock that came during the fault.
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
"""Seconds from a failed write to the first try."""
LAST_TRY_S = 8.0
"""The longest wait between two tries (the wait doubles from :data:`FIRST_TRY_S`)."""
PREFIX, SUFFIX = "journal fault: ", "; retrying"
"""How the reason of a table in a journal fault begins and ends (its lock reason is
otherwise an integrity lock's, or a write that no retry clears)."""


def fault_reason(text: str) -> str:
    """The write's own reason in a fault's lock text (``database or disk is full``)."""
    return text.removeprefix(PREFIX).removesuffix(SUFFIX)


@dataclass
class Fault:
    """One journal fault, from its first failed write.

    Attributes:
        reason: why the first write failed (SQLite's words: ``database or disk is full``,
            ``database is locked``); why each try failed is logged (debug).
        began: when the first write failed (ISO 8601 UTC).
        since: the same, monotonic seconds.
        tries: the self-checks tried.
        wait: seconds until the next try after this one fails.
        next_try: no try before this (monotonic seconds).
        refused: dealer commands refused, by name.
        lost: other inputs not recorded, by kind.
        cards: the cards among them (``?``: a misread).
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
        """The body of its ``journal_fault`` record (its fields checked by the declaration)."""
        return msgspec.to_builtins(JournalFault(
            reason=self.reason[:512], began=self.began, tries=max(1, self.tries),
            refused=dict(self.refused), lost=dict(self.lost),
            cards=tuple(c[:16] for c in self.cards[:MAX_CARDS])))


WRITE_FAILED = "journal write failed: "


def _reason(exc: JournalError, path: str) -> str:
    """The error's words without the journal's path and ``journal write failed`` in front."""
    text = str(exc)
    text = text[len(path) + 2:] if text.startswith(path + ": ") else text
    return text[len(WRITE_FAILED):] if text.startswith(WRITE_FAILED) else text


def write_lock_free(path: str) -> str | None:
    """Whether SQLite's write lock on the journal can be taken now (it is let go at once).

    Returns:
        None when it can; else why not (``database is locked``: another process holds it).
    """
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
    """The journal faults of one table: what fails, what is refused, and the tries.

    Args:
        table: the table (its thread calls every method but :meth:`shows`).

    Attributes:
        fault: the fault in force, or None.
        clearing: a try is journaling the fault's record (the table lets it through).
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.fault: Fault | None = None
        self.clearing = False

    def shows(self, locked: str | None) -> bool:
        """Whether the lock reason ``locked`` is this fault's (not an integrity lock)."""
        f = self.fault
        return f is not None and locked == f.text

    def failed(self, exc: JournalError, batch: list[tuple[str, Any, str, str]]) -> None:
        """A write failed: a fault begins, its batch not recorded (a try's write: no news).

        A table locked for another reason stays so: its lock is never a fault's.
        """
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
        """Try the self-check now (the table thread's, or a test's).

        Returns:
            True when the fault cleared (its record journaled); False when it goes on,
            or when the table was locked for good meanwhile (the fault is then over).
        """
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
