"""The :class:`Table`: the one writer of round state.

Inputs arrive on :attr:`Table.inbox`; one thread (:meth:`Table.start`) takes them in
order and, for each, checks it once against its declaration
(:func:`controller.game.inputs.journal_record`: refused, logged and never journaled when
it fails), journals that record and applies the same record to the
:class:`~controller.game.engine.Game` in the commit's transaction (a round closed is
sealed in it), then shows it. Between rounds and when idle it keeps the write-ahead log
small (:mod:`controller.game.wal_keeper`); a failed write is a journal fault
(:mod:`controller.game.journal_fault`). Start-up verifies the journal and rebuilds the
state (a problem locks the table for good, R4).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import msgspec

from controller.game import clock_steps, verifier
from controller.game.auth import PinChecker, hash_pin
from controller.game.config import RENAMED
from controller.game.engine import Game, TableConfig
from controller.game.events import Heartbeat, ShoeEvent
from controller.game.inputs import (
    STARTUP,
    SYSTEM_RECORDS,
    ChangePin,
    Checked,
    ConfigChange,
    DealerCommand,
    DeviceRecord,
    EnvironmentRecord,
    InputError,
    PinChanged,
    Tick,
    decode_body,
    encode_body,
    journal_record,
)
from controller.game.journal_fault import JournalFaults
from controller.game.refusals import Refusal, invalid_input
from controller.game.round import Rejected
from controller.game.table_views import ViewBuilder, rules_change_text
from controller.game.verdict import integrity_lock
from controller.game.verifier import NO_ANCHOR, JournalVerdict, Progress
from controller.game.views import DealerView, PlayerView
from controller.game.wal_keeper import CHECK_KEEP_S, WalKeeper
from controller.journal import WAL_SIZE_LIMIT, Journal, JournalError
from controller.journal.codec import record_text

log = logging.getLogger("threecard")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What became of one input.

    Attributes:
        seq: its journal sequence number (None when it was not journaled).
        kind: the input's type name.
        accepted: True when applied.
        reason: why it was rejected (the journal's English), else None.
        refusal: the rejection's code and typed parameters, for words in the screen's
            language (:mod:`controller.game.refusals`; a locked table's reason or an
            input that fails its declaration: English text), else None.
    """

    seq: int | None
    kind: str
    accepted: bool
    reason: str | None = None
    refusal: Refusal | None = None


class Clock(Protocol):
    """Where the table gets its times (injected; tests use a fixed one)."""

    def utc(self) -> str:
        """Now, ISO 8601 UTC."""

    def monotonic_ns(self) -> int:
        """A monotonic clock in nanoseconds."""


class SystemClock:
    """The real clock."""

    def utc(self) -> str:
        """Now, ISO 8601 UTC."""
        return datetime.now(UTC).isoformat()

    def monotonic_ns(self) -> int:
        """``time.monotonic_ns()``."""
        return time.monotonic_ns()


Input = ShoeEvent | DealerCommand | Checked | EnvironmentRecord | DeviceRecord
"""What is journaled: a shoe event, a dealer command (:class:`Checked` where it was read),
one of the table's own records."""
Entry = tuple[str, Any, str, str]
"""One input as journaled and applied: kind, checked record (or body), actor, body text."""


def _refused(item: Any, exc: Exception) -> Verdict:
    """The verdict on an input refused before the journal: why, as a refusal."""
    name = (item.name if isinstance(item, DealerCommand)
            else getattr(item, "type", type(item).__name__))
    refusal = (exc.refusal if isinstance(exc, Rejected)
               else invalid_input(name, str(exc)) if isinstance(exc, InputError)
               else Refusal(str(exc)))
    return Verdict(None, name, False, str(exc), refusal)


class _Fence:
    __slots__ = ("event",)

    def __init__(self) -> None:
        self.event = threading.Event()


class _Ask(_Fence):
    """One input whose verdicts someone waits for (set before :attr:`event`)."""

    __slots__ = ("item", "verdicts")

    def __init__(self, item: Input) -> None:
        super().__init__()
        self.item = item
        self.verdicts: list[Verdict] = []


class Table:
    """One table: journal, state, views, and the thread that owns them.

    Args:
        journal: an open :class:`~controller.journal.Journal`, or a path
            (``:memory:`` for a throw-away journal).
        config: the table's settings; journaled at start-up (a change between rounds
            is adopted and logged with old and new values).
        clock: the time source (default: the system clock).
        on_publish: called from the table thread with ``(dealer_view, player_view)``
            after every batch of inputs; keep it quick (e.g. post to a display queue).
        progress: called while start-up verifies the journal, with (events done, events
            to do), at most twice a second (the daemon extends its start timeout).
        software: the running software's identity, journaled in the ``startup`` record
            (:class:`~controller.game.inputs.Software`'s fields), or None.
        screens: the screens the daemon drives, journaled in the ``startup`` record
            (:class:`~controller.game.inputs.Screens`' fields), or None.
        keys: the state folder of the journal's seal keys, when ``journal`` is a path
            (default: :func:`~controller.journal.seal.default_folder`; False: unsealed).

    Attributes:
        inbox: put inputs here (thread-safe), or use :meth:`submit`.
        checkpoint_idle_s: seconds without a journaled input before the write-ahead log is
            emptied.
        derived_idle_s: seconds idle before derived rows held (a round's record, the
            meters) get a commit of their own; until then they ride in the next input's.
        checkpoint_retry_s: seconds between tries while a reader keeps it from emptying.
        wal_warn_bytes: a write-ahead log larger than this is logged as a warning.
        recovered: the state rebuilt from the journal, before this start-up's record
            (``Game.to_dict()`` shape; the crash tests compare it).
        locked: why the table is locked (broken journal), or None; a journal fault's
            reason while it lasts (:attr:`faults`: it clears itself).
        faults: the table's journal faults (:mod:`controller.game.journal_fault`).
        verdict: start-up's verdict on the journal
            (:class:`~controller.game.verifier.JournalVerdict`).

    Raises:
        JournalError: the journal cannot be opened, or a start-up write failed (a
            broken journal is no error: the table opens locked, see :attr:`locked`).
        InputError: ``software`` does not fit its declaration.
    """

    checkpoint_idle_s = 1.0
    derived_idle_s = 0.3
    checkpoint_retry_s = 5.0
    wal_warn_bytes = 2 * WAL_SIZE_LIMIT

    def __init__(self, journal: Journal | str | Path, config: TableConfig | None = None, *,
                 clock: Clock | None = None,
                 on_publish: Callable[[DealerView, PlayerView], None] | None = None,
                 progress: Progress | None = None,
                 software: dict[str, Any] | None = None,
                 screens: dict[str, Any] | None = None,
                 keys: str | Path | bool | None = None) -> None:
        self.config = (config or TableConfig()).pinned().validate()  # its profile's text too
        self._startup_body: dict[str, Any] = {"config": self.config.to_dict()}
        if software is not None:
            self._startup_body["software"] = software
        if screens is not None:
            self._startup_body["screens"] = screens
        decode_body(STARTUP, self._startup_body)  # a bad one is refused before anything
        self.clock = clock or SystemClock()
        self.inbox: queue.Queue = queue.Queue()
        self.locked: str | None = None
        self.faults = JournalFaults(self)
        self._check_progress: tuple[int, str] | None = None  # a full check's, to keep
        self._pins = PinChecker()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._builder = ViewBuilder()
        self._views: tuple[DealerView, PlayerView] | None = None
        self._views_version = -1
        self._subscribers: list[Callable[[DealerView, PlayerView], None]] = []
        if on_publish:
            self._subscribers.append(on_publish)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.heartbeat = time.monotonic()
        self.version = 0
        self.journal = (journal if isinstance(journal, Journal)
                        else Journal(journal, keys=keys))
        self._wal, self._watch = WalKeeper(), clock_steps.ClockWatch()
        self.game = Game(self.config)
        self.recovered: dict[str, Any] = {}
        self.verdict = JournalVerdict()
        try:
            self._recover(progress, (STARTUP, self._startup_body))
        except JournalError:  # a write at start-up failed: let another process try
            if self.journal is not journal:
                with contextlib.suppress(JournalError):
                    self.journal.close()
            raise

    # ------------------------------------------------------------------ start-up
    def _recover(self, progress: Progress | None, record: tuple[str, dict[str, Any]]) -> None:
        """Verify the journal from its anchored snapshot, rebuild the state, go on.

        :func:`controller.game.verifier.check` answers; any problem locks the table for
        good (R4). Then the derived rows a crash kept from being written are written,
        the anchor is kept from now on, and ``record`` is journaled: the ``startup``
        record, or the record of a journal fault this self-check clears.
        """
        out = verifier.check(self.journal, full=False, config=self.config, progress=progress)
        self.verdict = out.verdict
        if self.journal.seal_error and out.verdict.ok:
            log.error("journal %s: %s", self.journal.path, self.journal.seal_error)
            self._lock_table(integrity_lock(self.journal.seal_error))
            return
        if not out.verdict.ok:
            log.error("journal %s: %s", self.journal.path, out.verdict.summary())
            self._lock_table(integrity_lock(out.verdict.message))
            return
        if NO_ANCHOR in out.verdict.notes and self.journal.last_seq:
            log.warning("journal %s has no anchor beside it: its tail could not be checked; "
                        "the anchor starts at event %d", self.journal.path,
                        self.journal.last_seq)
        g, self._builder = out.game, ViewBuilder()
        self.game, self.recovered = g, g.to_dict()
        self.journal.write_derived([*out.pending, g.take_derived()], mark=True)
        self.journal.start_anchoring(out.verified)
        self._process([(record[0], record[1], "system", encode_body(record[1]))])
        j, v = self.journal, out.verdict
        log.log(logging.WARNING if v.after_anchor else logging.INFO,
                "journal %s verified from event %d (%d events); head %d %s%s", j.path,
                v.checked_from, v.events, j.last_seq, j.last_hash[:32],
                "".join(f"; {n}" for n in v.notes if n != NO_ANCHOR))

    def note_check(self, seq: int, seal: str) -> None:
        """A full check verified all up to snapshot ``seq``: kept when idle (thread-safe)."""
        self._check_progress = (seq, seal)

    def lock(self, reason: str) -> None:
        """Lock the table for good: a problem found in its journal after start-up.

        Args:
            reason: what the table shows and refuses inputs with.
        """
        self._lock_table(reason)

    def _lock_table(self, reason: str | None, was: str | None = None) -> None:
        """Lock the table (``reason`` shown; None unlocks) and wake whoever waits for a view.

        With ``was``, only a table still locked for ``was`` (a journal fault's reason).
        """
        with self._changed:
            if was is not None and self.locked != was:
                return
            self.locked = reason
            self.version += 1
            self._changed.notify_all()

    # ------------------------------------------------------------------ inputs
    def submit(self, item: Input | Tick) -> None:
        """Queue an input for the table thread (thread-safe; returns at once)."""
        self.inbox.put(item)

    def process(self, items: Iterable[Input | Tick], flush: bool = True) -> list[Verdict]:
        """Journal and apply inputs in the calling thread (tests, simulator).

        Args:
            items: inputs in order.
            flush: write the derived tables before returning (else they ride in the
                next commit).

        Returns:
            One verdict per journaled input (ticks and heartbeats are not journaled).

        Raises:
            JournalError: the journal could not be written (a journal fault: refused until
                a self-check proves it gone).
        """
        batch: list[Entry] = []
        verdicts: list[Verdict] = []
        for item in items:
            if isinstance(item, (Tick, Heartbeat)):
                self.heartbeat = time.monotonic()
                continue
            given = item.command if isinstance(item, Checked) else item
            try:
                entry = self._entry(item)
            except (InputError, TypeError, Rejected) as exc:  # refused: nothing journaled
                # the verdict says why to whoever gave it (the control channel logs it,
                # the dealer screen shows it): logged once, there
                log.debug("input refused, not journaled: %s", exc)
                if batch:
                    verdicts += self._process(batch)
                    batch = []
                verdicts.append(_refused(given, exc))
                continue
            batch.append(entry)
            if isinstance(given, (ChangePin, ConfigChange)):  # later PINs: the new settings
                verdicts += self._process(batch)
                batch = []
        if batch:
            verdicts += self._process(batch)
        if flush and self.game.derived and not self.locked:
            self._flush_derived()
        return verdicts

    def _entry(self, item: Input) -> Entry:
        """An input checked once, its actor, and its record encoded once for the journal.

        Raises:
            InputError, TypeError: the input fails its declaration, or is none.
            Rejected: a PIN set for two roles.
        """
        kind, record = journal_record(item)
        if isinstance(item, Checked):
            item = item.command
        actor = ("shoe" if isinstance(item, ShoeEvent) else "system"
                 if type(item) in SYSTEM_RECORDS else "dealer")
        if isinstance(item, DealerCommand) and item.pin is not None:
            roles = self._pins.roles_for(item.pin, self.game.config.pin_hashes)
            # one PIN for two roles names none of them (while PIN entry is locked, it is
            # refused as locked, as any PIN: it tells nothing)
            if len(roles) > 1 and not self.game.pin_lockout_ms():
                log.warning("a PIN typed for %s is set for %s: refused, a PIN must name one "
                            "role; set new PINs (change_pin, or [roles] in the "
                            "configuration)", item.name, " and ".join(roles))
                raise Rejected("pin_shared")
            actor = roles[0] if roles else "dealer!"
        if isinstance(item, ChangePin):
            record = PinChanged(role=item.role, pin_hash=hash_pin(item.new_pin))
        elif isinstance(item, ConfigChange):  # the event log keeps the old value (R7)
            name = RENAMED.get(item.key, item.key)
            old = getattr(self.game.config, name, None)
            record = msgspec.structs.replace(  # and a profile's text: replay reads no file
                record, old=old if isinstance(old, (str, int, bool)) else None,
                rules_text=(rules_change_text(self.game.config, item.value)
                            if name == "rules" else None))
        return kind, record, actor, record_text(record)

    def _flush_derived(self) -> None:
        """Write the pending derived rows in a commit of their own.

        A failed write (a full disk) is a journal fault like a failed event write: the
        rows it held are gone from memory, so no later commit may move ``derived_at``
        past them; the self-check that clears it rebuilds them from the events (R2).

        Raises:
            JournalError: the write failed (a journal fault).
        """
        try:
            self.journal.write_derived(self.game.take_derived())
        except JournalError as exc:
            self.faults.failed(exc, [])
            raise

    def _process(self, batch: list[Entry]) -> list[Verdict]:
        if self.locked and not self.faults.clearing:
            self.faults.missed(batch)  # a card refused in a fault is on the layout
            return [Verdict(None, k, False, self.locked, Refusal(self.locked))
                    for k, _, _, _ in batch]
        g, (utc, mono) = self.game, (self.clock.utc(), self.clock.monotonic_ns())
        batch = (steps := self._watch.seen(self.journal, utc, mono)) + batch  # journaled first
        recs = [(k, a, text) for k, _, a, text in batch]
        out: list[Verdict] = []

        def apply(seqs: list[int]) -> bool:
            # in the journal's transaction: a batch that closes a round is sealed in it
            closed = g.rounds_closed
            with self._lock:
                for seq, (kind, body, actor, _) in zip(seqs, batch, strict=True):
                    reason = g.apply(seq, utc, kind, body, actor, mono_ns=mono)
                    out.append(Verdict(seq, kind, reason is None, reason,
                                       g.refusal if reason is not None else None))
            return g.rounds_closed != closed

        try:
            self.journal.append(utc, mono, recs, g.take_derived(), then=apply)
        except JournalError as exc:  # nothing of the batch is shown: a journal fault
            self.faults.failed(exc, batch[len(steps):])
            raise
        if self.journal.seal_error and not self.locked:  # its key could not be written
            log.error("journal %s: %s", self.journal.path, self.journal.seal_error)
            self._lock_table(self.journal.seal_error)
        self._publish()
        return out[len(steps):]

    def _publish(self) -> None:
        """A new version: wake whoever waits for one, and call the subscribers."""
        with self._lock:
            self.version += 1
            self._changed.notify_all()
        if self._subscribers:
            views = self.views()
            for cb in self._subscribers:
                cb(*views)

    # ------------------------------------------------------------------ views
    def views(self) -> tuple[DealerView, PlayerView]:
        """The newest (dealer view, player view); thread-safe, built once per version."""
        with self._lock:
            if self._views_version != self.version or self._views is None:
                self._views = self._builder.build(self.game, self.version, self.locked,
                                                  self.faults.shows(self.locked))
                self._views_version = self.version
            return self._views

    def wait_for_version(self, newer_than: int, timeout: float) -> bool:
        """Block until :attr:`version` exceeds ``newer_than``; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: self.version > newer_than, timeout)

    def subscribe(self, callback: Callable[[DealerView, PlayerView], None]) -> None:
        """Call ``callback(dealer_view, player_view)`` after every batch (table thread)."""
        self._subscribers.append(callback)

    # ------------------------------------------------------------------ thread
    def start(self) -> Table:
        """Start the table thread consuming :attr:`inbox`. Returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="table", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        inbox = self.inbox
        while not self._stop.is_set():
            try:
                item = inbox.get(timeout=0.5)
            except queue.Empty:
                self.heartbeat = time.monotonic()
                self._when_idle()
                continue
            batch, fences = [], []
            ask = None
            while True:
                if isinstance(item, _Ask):
                    ask = item  # answered alone, after what came before it
                    break
                if isinstance(item, _Fence):
                    fences.append(item)
                elif item is not None:
                    batch.append(item)
                if len(batch) >= 256:
                    break
                try:
                    item = inbox.get_nowait()
                except queue.Empty:
                    break
            for items in (batch, [ask.item] if ask else []):
                if items:
                    try:  # derived rows ride in the next commit, or when the table idles
                        out = self.process(items, flush=False)
                    except JournalError:  # a journal fault: refused, as every input now
                        why = self.locked or ""
                        out = [Verdict(None, getattr(i, "name", getattr(i, "type", "")), False,
                                       why, Refusal(why)) for i in items]
                    if ask is not None and items is not batch:
                        ask.verdicts = out
            self.heartbeat = time.monotonic()
            for f in (*fences, *([ask] if ask else [])):
                f.event.set()
            self._when_idle()

    def _when_idle(self) -> None:
        """Do the journal's chores between inputs (quick when there are none).

        A seal due, a full check's progress kept, derived rows held written, the
        write-ahead log emptied.
        """
        j, w, now = self.journal, self._wal, time.monotonic()
        if self.faults.due(now):
            self.faults.retry()
            return
        if not self.locked and j.seal_due(self.clock.monotonic_ns()):
            try:
                j.seal()  # no event waits more than 15 minutes for its seal
            except JournalError as exc:
                self.faults.failed(exc, [])
                return
        done = self._check_progress
        if done is not None and not self.locked and now >= w.check_kept + CHECK_KEEP_S:
            self._check_progress, w.check_kept = None, now
            try:
                j.record_check(*done)  # the next start's full check goes on from here
            except JournalError as exc:
                self.faults.failed(exc, [])
                return
        if not self.locked:  # a round closed: the log copied in, busy or not
            w.between_rounds(j, self.game.rounds_closed, self.wal_warn_bytes)
        if j.commits != w.commits:
            w.commits, w.since = j.commits, now
            return
        if self.game.derived and not self.locked and now - w.since >= self.derived_idle_s:
            try:
                self._flush_derived()
            except JournalError:
                return  # locked; views show it
            w.commits = j.commits
        if not self.locked:
            w.tend(j, now, self.checkpoint_idle_s, self.checkpoint_retry_s, self.wal_warn_bytes)

    def ask(self, item: Input, timeout: float = 5.0) -> list[Verdict] | None:
        """Queue one input and wait until the table thread applied it.

        Args:
            item: the input.
            timeout: seconds to wait.

        Returns:
            Its verdicts (empty when it was not journaled: the table is locked), or None
            when the table thread did not answer in time.
        """
        a = _Ask(item)
        self.inbox.put(a)
        return a.verdicts if a.event.wait(timeout) else None

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued before this call has been processed."""
        return self.fence().wait(timeout)

    def fence(self) -> threading.Event:
        """An event set once everything queued before this call has been processed.

        Its views are published by then. Returns at once: a screen polls the event
        without blocking (:mod:`display.input_script` waits on it between steps).
        """
        f = _Fence()
        self.inbox.put(f)
        return f.event

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the queued inputs, stop the thread and close the journal."""
        if self._thread is not None:
            self.drain(timeout)
            self._stop.set()
            self.inbox.put(None)
            self._thread.join(timeout)
            self._thread = None
        self.close()

    def close(self) -> None:
        """Write pending derived rows and close the journal (no thread may be running)."""
        try:
            if not self.locked and self.game.derived:
                self.journal.write_derived(self.game.take_derived())
        finally:
            self.journal.close()


__all__ = ["Table", "Tick", "Verdict", "Clock", "SystemClock", "TableConfig"]
