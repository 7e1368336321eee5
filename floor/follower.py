"""What the floor hears of a table, made from its journal alone (docs/floor-format.md)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from controller.game.engine import Game
from controller.game.replay import ReplayError, start_state
from controller.game.round import RoundState
from controller.journal import Journal, JournalError, Record
from controller.journal import seal as sealing
from controller.journal.anchor import GENESIS
from floor.derive import Replay
from floor.messages import (
    MAX_PAYLOAD_BYTES,
    Alarm,
    ChainRow,
    EventMessage,
    JournalRow,
    Message,
    Meters,
    MetersMessage,
    RoundMessage,
    SealRow,
    StateMessage,
    WitnessMessage,
)
from floor.par import profile_returns
from floor.witness import WitnessVerdict, check

PAGE = 500
# Rows past this many bytes go in several messages cut at seals (a 7-seat round is ~5 KiB).
PART_BYTES = MAX_PAYLOAD_BYTES // 2
ALARM_SEVERITIES = ("warning", "error")
UNSEALED = ("the journal is not sealed (a journal of an earlier version): the floor takes "
            "no round of it; `threecard seal init` starts its seals")


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message the follower made (``seq``: its journal event; ``body``: without send time)."""

    seq: int
    body: Message
    retain: bool = False

    @property
    def name(self) -> str:
        """The topic name: ``round``, ``event``, ``meters`` or ``state``."""
        return self.body.name


def _round_of(snapshot: tuple[int, str, str] | None) -> int | None:
    try:
        rid = json.loads(snapshot[2]).get("round_id") if snapshot else None
    except (ValueError, AttributeError):
        return None
    return rid if isinstance(rid, int) else None


def _parts(after: int, rows: list[JournalRow], seals: list[SealRow]
           ) -> list[tuple[int, list[JournalRow], list[SealRow]]] | None:
    """A round's (after, rows, seals), cut at seals when too many; None if one epoch is too many."""
    out: list[tuple[int, list[JournalRow], list[SealRow]]] = []
    start, cur_rows, cur_seals, size = after, [], [], 0
    i = 0
    for s in seals:
        seg = []
        while i < len(rows) and rows[i].seq <= s.seq:
            seg.append(rows[i])
            i += 1
        bytes_ = sum(len(r.body) + len(r.utc) + len(r.kind) + 48 for r in seg) + 400
        if bytes_ > PART_BYTES:
            return None
        if cur_seals and size + bytes_ > PART_BYTES:
            out.append((start, cur_rows, cur_seals))
            start, cur_rows, cur_seals, size = cur_seals[-1].seq, [], [], 0
        cur_rows, cur_seals, size = cur_rows + seg, cur_seals + [s], size + bytes_
    out.append((start, cur_rows, cur_seals))
    return out


def _closed(game: Game) -> int:
    done = game.state in (RoundState.SETTLED, RoundState.VOID)
    return game.round_id if done else game.round_id - 1


class Follower:
    """Replays a journal read-only and turns what happens into floor messages.

    Args:
        path: the journal file (a running table's: its write-ahead log is read too).
        table_id: the table's id.
        after: make messages for the events after this one.
        rounds_from: a resend from this round, up to event ``until``; None: the live feed.
        until: the last event a resend reads.
        pause: called with the seconds each stretch of the rebuild took (pacing).

    Attributes:
        withheld: the newest round not sent (its previous seal unreadable, or unsealed).

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
        self.genesis, self.first_utc = self._first()
        self.withheld = self._withheld_said = 0
        self._withheld_why = ""
        self.journal_id = ""
        # events moved to an archive not found here cannot be read: start at the cut
        start = self._start_snapshot(max(after, self.journal.first_seq - 1), rounds_from)
        try:
            game, self.position = (start_state(self.journal, start) if start
                                   else (Game(), 0))
        finally:
            self._end_read()
        self.replay = Replay(table_id, game, self.genesis, self.first_utc)
        self.closed = _closed(game)
        self.sealed_at: int | None = None if start else 0
        # a resend sends the events after the end of the round before the one asked for
        self._events_after: int | None = 0 if rounds_from == 1 else None
        while self.position < after:  # rebuild up to the cursor: nothing is made for these
            t = time.perf_counter()
            if self.poll(min(PAGE, after - self.position)) is None:
                break
            if pause is not None:
                pause(time.perf_counter() - t)

    @property
    def game(self) -> Game:
        """The replayed state."""
        return self.replay.game

    @property
    def last_round(self) -> int:
        """The newest round finished in the replay."""
        return self.replay.last_round

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
        """The snapshot to rebuild from: one in a round before the first reported (0: the start)."""
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
        """What to log of :attr:`withheld` when it changes; None: nothing new."""
        if self.withheld == self._withheld_said:
            return None
        self._withheld_said = self.withheld
        return (f"floor: round {self.withheld} and those before it cannot be sent to the "
                f"floor: {self._withheld_why}")

    def _withhold(self, rid: int, why: str) -> None:
        self.withheld, self._withheld_why = rid, why

    def head(self) -> int:
        """The journal's newest event (a read of its own)."""
        try:
            head = self.journal.store.last_seq()
        finally:
            self._end_read()
        return self.journal.base_seq if head is None else head

    def poll(self, limit: int = PAGE) -> list[Outgoing] | None:
        """Replay at most ``limit`` events; their messages (None: none read); ReplayError."""
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
            events, finished = self.replay.apply(Record(seq, utc, mono, kind, actor, body), h)
            report = seq > self.emit_after
            closed = []
            for f in finished:
                if f.round_id <= self.closed:
                    continue  # a record changed after its end: the next round's rows say it
                self.closed = f.round_id
                if not self.live and f.round_id == self.rounds_from - 1 \
                        and self._events_after is None:
                    self._events_after = seq
                wanted = report and (self.live or f.round_id >= self.rounds_from)
                closed += [Outgoing(seq, m) for m in self._round(f.round_id, seq, wanted)]
            if report and (self.live or (self._events_after is not None
                                         and seq > self._events_after)):
                out += [Outgoing(seq, e) for e in events]  # an event's messages first
            out += closed
            rounds_closed |= bool(closed)
            self.position = seq
        if self.live and (rounds_closed or out):
            out += self.latest(meters=rounds_closed)
        return out

    def _round(self, rid: int, end: int, wanted: bool) -> list[RoundMessage]:
        """The messages of round ``rid`` (ended at event ``end``) up to the seal covering it.

        None when an earlier message carried that seal, or the seal before it is unknown or
        unreadable, or the journal unsealed (the last two set :attr:`withheld`).
        """
        try:
            closing = sealing.closing_seal(self.db, end)
            if closing is None:
                if wanted:
                    self._withhold(rid, UNSEALED)
                return []
            after, self.sealed_at = self.sealed_at, closing.seq
            if after is None or after >= closing.seq or not wanted:
                if after is None and wanted:
                    self._withhold(rid, self.journal.archive_missing
                                   or "the journal does not hold them")
                return []
            try:
                rows = [JournalRow(*r[:6]) for r in self.journal.rows(after + 1, closing.seq,
                                                                      hashes=False)]
            except JournalError:  # in an archive not found here
                self._withhold(rid, self.journal.archive_missing
                               or "the journal does not hold them")
                return []
            seals = sealing.seals_between(self.db, after, closing.seq)
            if not self.journal_id:
                self.journal_id = str(self.journal.store.meta().get("journal_id") or "")
            chains = [ChainRow(c.epoch, c.seq, c.head, sealing.key_text(c.key))
                      for c in sealing.chains(self.db)
                      if seals[0].epoch <= c.epoch <= seals[-1].epoch]
        finally:
            self._end_read()
        parts = _parts(after, rows, [SealRow(s.epoch, s.seq, s.head,
                                             sealing.key_text(s.next_key), s.signature.hex())
                                     for s in seals])
        if parts is None:
            self._withhold(rid, f"the events of one of its epochs are too many for a message "
                           f"of {MAX_PAYLOAD_BYTES} bytes")
            return []
        return [RoundMessage(table=self.table_id, journal=self.genesis, round_id=rid,
                             journal_id=self.journal_id or "0" * 64, after=a, rows=r,
                             seals=ss, chains=[c for c in chains
                                               if ss[0].epoch <= c.epoch <= ss[-1].epoch])
                for a, r, ss in parts]

    def check_witness(self, w: WitnessMessage) -> WitnessVerdict:
        """The journal against the floor's witness (:func:`floor.witness.check`)."""
        try:
            return check(self.journal, w)
        finally:
            self._end_read()

    def latest(self, meters: bool = True) -> list[Outgoing]:
        """The retained messages of the newest event replayed: ``meters`` and ``state``."""
        out = [Outgoing(self.position, MetersMessage(
            table=self.table_id, journal=self.genesis, seq=self.position,
            meters=msgspec.convert(self.game.meters_dict(), Meters),
            profile=self.game.profile.name[:64], returns=profile_returns(self.game.profile),
            currency=_currency(self.game)), retain=True)] if meters else []
        return out + [Outgoing(self.position, self.state(), retain=True)]

    def state(self) -> StateMessage:
        """The ``state`` payload: the newest finished round and what the table shows."""
        g = self.game
        seq, h = self.replay.ends.get(self.last_round, (0, GENESIS))
        return StateMessage(
            table=self.table_id, journal=self.genesis, seq=self.position,
            last_round=self.last_round, last_round_seq=seq, last_round_hash=h,
            round_in_play=g.round_id, round_state=g.state.value,
            open_alarms=[Alarm(k, n.severity, n.message) for k, n in sorted(g.notes.items())
                         if n.severity in ALARM_SEVERITIES])

    def close(self) -> None:
        """Close the journal reader."""
        self.journal.close()


def _currency(game: Game) -> str:
    code = getattr(game.config, "currency", "")
    return code if isinstance(code, str) and len(code) == 3 and code.isupper() else ""


__all__ = ["EventMessage", "Follower", "Outgoing", "UNSEALED"]
