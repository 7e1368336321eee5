"""What the floor hears of a table, made from its journal alone.

A :class:`Follower` opens the journal read-only and replays it in a game of its own
(:meth:`controller.game.engine.Game.apply`, exactly as start-up and game recall do), so
each message names the event that made it: a round's record comes with the sequence
number and hash of its last event, and the previous round's. A round's last event is the
newest event that changed its record: its settlement or void, or a burn card read between
rounds, which joins the finished round's deal (the round is then sent again, and the
recorder keeps the newer record).

The follower never writes: it reads the committed events after its position, page by
page, and each read is a short transaction of its own (a running table's write-ahead log
is never held back).

Where it starts: messages are made for the events after ``after`` (the outbox cursor);
the game is first rebuilt from a sealed snapshot taken in a round BEFORE the first round
it may report, so that the previous round's last event is known too
(:meth:`Follower._start_snapshot`). A resend follows the same way from the round asked for,
and makes the ``event`` messages after the end of the round before it too.

Each round counts the ``event`` messages made after the previous round's end up to its
own, and ``state`` those made after the last round's end: the floor holds its events
against these counts. A count is made while replaying, reported or not, so a feed
resumed at any cursor counts as a whole feed does; a round whose previous round ended
before the follower started reading has no count (None).

The journal is read through its reading API, in either format, with the archive its
history was moved to (:mod:`controller.game.archive`): a resend of archived rounds is
answered from the archive. Without the archive beside the journal the follower starts at
the cut, and a round whose previous round ended before the cut is not sent (no previous
round is made up): :attr:`Follower.withheld` names it, and the floor goes on lacking it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from controller.game.engine import Game
from controller.game.inputs import Role
from controller.game.recall import as_recalled
from controller.game.records import RoundRecord
from controller.game.replay import ReplayError, start_state
from controller.game.roles import WRONG_PIN
from controller.journal import Journal, JournalError
from controller.journal.anchor import GENESIS
from floor.messages import (
    FINISHED,
    Alarm,
    EventMessage,
    Message,
    Meters,
    MetersMessage,
    RoundMessage,
    StateMessage,
)

PAGE = 500
"""Events read and replayed per :meth:`Follower.poll`."""
ROLES = (Role.SUPERVISOR.value, Role.TECHNICIAN.value, WRONG_PIN)
"""Actors whose inputs are role actions on the ``event`` topic (:data:`WRONG_PIN`: a PIN
that matched no role)."""
ALARM_SEVERITIES = ("warning", "error")
"""Notices counted as open alarms in ``state``."""


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message the follower made.

    Attributes:
        seq: the journal event it comes from (the cursor passes it once acknowledged).
        body: the payload (its ``name`` is the topic's), without its send time.
        retain: the broker keeps it for new subscribers (``meters``, ``state``).
    """

    seq: int
    body: Message
    retain: bool = False

    @property
    def name(self) -> str:
        """The topic name: ``round``, ``event``, ``meters`` or ``state``."""
        return self.body.name


def _round_of(snapshot: tuple[int, str, str] | None) -> int | None:
    """The round in play in a snapshot's state (None: no snapshot, or not readable)."""
    try:
        rid = json.loads(snapshot[2]).get("round_id") if snapshot else None
    except (ValueError, AttributeError):
        return None
    return rid if isinstance(rid, int) else None


class Follower:
    """Replays a journal read-only and turns what happens into floor messages.

    Args:
        path: the journal file (a running table's: its write-ahead log is read too).
        table_id: the table's id, which every message carries.
        after: make messages for the events after this one.
        rounds_from: a resend: only ``round`` messages, for rounds from this id on, and
            only up to event ``until``; None: the live feed (every topic).
        until: the last event a resend reads.
        pause: called with the seconds each stretch of the rebuild took (the feed's pacing:
            the table's thread keeps its pace).

    Attributes:
        position: the newest event replayed.
        genesis: the hash of the journal's first event (empty before it exists).
        withheld: the newest round not sent because the round before it ended where the
            follower cannot read (an archive not found beside the journal); 0: none.

    Raises:
        JournalError: the file is not a journal.
        ReplayError: a snapshot or an event cannot be replayed (a broken journal).
    """

    def __init__(self, path: str | Path, table_id: str, after: int = 0,
                 rounds_from: int | None = None, until: int | None = None,
                 pause: Callable[[float], None] | None = None) -> None:
        self.table_id = table_id
        self.journal = Journal(path, readonly=True)
        self.db = self.journal.db
        self.db.execute("COMMIT")  # the reader's own transaction: one per read from now on
        self.rounds_from = rounds_from
        self.until = until
        self.emit_after = after
        self.pairs: dict[int, tuple[int, str]] = {}
        self.made = 0  # event messages made (reported or not) since the start point
        self.made_at: dict[int, int] = {}  # round id -> ``made`` at its end
        self.genesis, self.first_utc = self._first()
        self.last_round = self.withheld = self._withheld_said = 0
        self._notes: dict[str, Any] = {}
        # events moved to an archive not found here cannot be read: start at the cut
        start = self._start_snapshot(max(after, self.journal.first_seq - 1), rounds_from)
        try:
            self.game, self.position = (start_state(self.journal, start) if start
                                        else (Game(), 0))
        finally:
            self._end_read()
        self._notes = dict(self.game.notes)
        if not start:  # from the journal's first event: "round 0" ended before it
            self.made_at[0] = 0
        # a resend sends the events after the end of the round before the one asked for
        self._events_after: int | None = 0 if rounds_from == 1 else None
        while self.position < after:  # rebuild up to the cursor: nothing is made for these
            t = time.perf_counter()
            if self.poll(min(PAGE, after - self.position)) is None:
                break
            if pause is not None:
                pause(time.perf_counter() - t)

    @property
    def live(self) -> bool:
        """True for the live feed (every topic), False for a resend."""
        return self.rounds_from is None

    @property
    def done(self) -> bool:
        """A resend read every event it was asked to."""
        return self.until is not None and self.position >= self.until

    def _end_read(self) -> None:
        if self.db.in_transaction:
            self.db.execute("COMMIT")

    def _first(self) -> tuple[str, str]:
        try:
            return self.journal.genesis()
        finally:
            self._end_read()

    def _start_snapshot(self, after: int, rounds_from: int | None) -> int:
        """The sealed snapshot to rebuild from (its event; 0: the journal's start).

        The newest at or before event ``after`` taken in a round before the first round
        this follower may report. Snapshots are taken as a round opens. The first round
        reported is the first finished after ``after`` (at least the round of the newest
        snapshot before it) or ``rounds_from``; a snapshot of an earlier round also sees
        its previous round end.
        """
        j = self.journal
        try:
            below = rounds_from
            if below is None:
                below = _round_of(j.latest_snapshot(after))
                if below is None:
                    return 0
            limit = after if rounds_from is None else (self.until or after)
            for seq in reversed(j.snapshot_seqs()):  # read one by one, newest first
                if seq <= limit:
                    rid = _round_of(j.snapshot(seq))
                    if rid is not None and rid < below:
                        return seq
            return j.first_seq - 1
        finally:
            self._end_read()

    def withheld_note(self) -> str | None:
        """What to log of the rounds not sent (:attr:`withheld`): once, when it changes.

        Returns:
            The line to log, or None: nothing new withheld since the last call.
        """
        if self.withheld == self._withheld_said:
            return None
        self._withheld_said = self.withheld
        return (f"floor: round {self.withheld} and those before it cannot be sent to the "
                f"floor: {self.journal.archive_missing or 'the journal does not hold them'}"
                " (the floor gets them once the archive is back beside the journal)")

    def head(self) -> int:
        """The journal's newest event (a read of its own)."""
        try:
            head = self.journal.store.last_seq()
        finally:
            self._end_read()
        return self.journal.base_seq if head is None else head

    def poll(self, limit: int = PAGE) -> list[Outgoing] | None:
        """Replay the next events (at most ``limit``) and return the messages they make.

        Returns:
            The messages, in journal order (a live feed adds the ``meters`` and ``state``
            of the newest event when anything changed); None when no event was read.

        Raises:
            ReplayError: an event body cannot be read (a broken journal).
        """
        if self.until is not None:
            limit = min(limit, self.until - self.position)
            if limit <= 0:
                return None
        try:
            rows = list(self.journal.rows(self.position + 1, self.position + limit))
        except JournalError as exc:
            raise ReplayError(str(exc)) from None
        finally:
            self._end_read()
        if not rows:
            return None
        out: list[Outgoing] = []
        rounds_closed = False
        for seq, utc, mono, kind, actor, body, _, h in rows:
            if seq == 1:
                self.genesis, self.first_utc = h, utc
            try:
                reason = self.game.apply(seq, utc, kind, json.loads(body), actor, mono_ns=mono)
            except ValueError:
                raise ReplayError(f"event {seq} cannot be read: its body is not JSON") from None
            report = seq > self.emit_after
            events = self._events(seq, h, kind, actor, reason)
            self.made += len(events)
            closed = []
            for rid, rec in sorted(self.game.take_derived().rounds.items()):
                if rec["status"] not in FINISHED:
                    continue
                prev = self.pairs.get(rid - 1, (0, GENESIS) if rid == 1 else None)
                base = self.made_at.get(rid - 1)
                self.pairs[rid], self.made_at[rid] = (seq, h), self.made
                self.last_round = max(self.last_round, rid)
                if not self.live and rid == self.rounds_from - 1 and self._events_after is None:
                    self._events_after = seq
                if report and (self.live or rid >= self.rounds_from):
                    if prev is None:  # the round before it ended where we cannot read
                        self.withheld = rid
                        continue
                    closed.append(Outgoing(seq, RoundMessage(
                        table=self.table_id, journal=self.genesis, round_id=rid, seq=seq,
                        hash=h, prev_seq=prev[0], prev_hash=prev[1],
                        record=RoundRecord.from_dict(as_recalled(rec, self.first_utc)),
                        events=None if base is None else self.made - base)))
            if report and (self.live or (self._events_after is not None
                                         and seq > self._events_after)):
                out += events  # an event's messages before the rounds it ends
            out += closed
            rounds_closed |= bool(closed)
            self.position = seq
        for rid in [r for r in self.pairs if r < self.last_round - 1]:
            del self.pairs[rid]
            self.made_at.pop(rid, None)
        if self.live and (rounds_closed or out):
            out += self.latest(meters=rounds_closed)
        return out

    def latest(self, meters: bool = True) -> list[Outgoing]:
        """The retained messages of the newest event replayed: ``meters`` and ``state``."""
        out = [Outgoing(self.position, MetersMessage(
            table=self.table_id, journal=self.genesis, seq=self.position,
            meters=msgspec.convert(self.game.meters_dict(), Meters)), retain=True)] \
            if meters else []
        return out + [Outgoing(self.position, self.state(), retain=True)]

    def _events(self, seq: int, h: str, kind: str, actor: str, reason: str | None
                ) -> list[Outgoing]:
        """The ``event`` messages of one event: notices new or changed, a role action."""
        out = []
        notes = self.game.notes
        if notes != self._notes:
            for name, note in notes.items():
                if self._notes.get(name) != note:
                    out.append(Outgoing(seq, EventMessage(
                        table=self.table_id, journal=self.genesis, seq=seq, hash=h,
                        round_id=self.game.round_id, kind=name, severity=note.severity,
                        message=note.message, action=note.action, params=dict(note.params),
                        input=kind, actor=actor)))
            self._notes = dict(notes)
        if actor in ROLES:
            out.append(Outgoing(seq, EventMessage(
                table=self.table_id, journal=self.genesis, seq=seq, hash=h,
                round_id=self.game.round_id, kind="role_action",
                severity="info" if reason is None else "warning", input=kind, actor=actor,
                accepted=reason is None, reason=reason)))
        return out

    def state(self) -> StateMessage:
        """The ``state`` payload: the newest finished round and what the table shows."""
        g = self.game
        seq, h = self.pairs.get(self.last_round, (0, GENESIS))
        base = self.made_at.get(self.last_round)
        return StateMessage(
            table=self.table_id, journal=self.genesis, seq=self.position,
            last_round=self.last_round, last_round_seq=seq, last_round_hash=h,
            round_in_play=g.round_id, round_state=g.state.value,
            open_alarms=[Alarm(k, n.severity, n.message) for k, n in sorted(g.notes.items())
                         if n.severity in ALARM_SEVERITIES],
            events=None if base is None else self.made - base)

    def close(self) -> None:
        """Close the journal reader."""
        self.journal.close()
