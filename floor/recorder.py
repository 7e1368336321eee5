"""The floor recorder: every table's feed verified into the store, its continuity kept.

It believes no payload on its word: rounds are verified against their seals and replayed,
events stay provisional until sealed, and rounds that lack are asked for again on
``resend``. The rules: docs/floor-format.md, "The recorder".
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from controller.game.replay import ReplayError
from floor.messages import (
    EventMessage,
    MetersMessage,
    ResendRequest,
    RoundMessage,
    StateMessage,
    StatusMessage,
    WitnessMessage,
    decode,
    decode_part,
    is_part,
)
from floor.mqtt import Throttle
from floor.parts import Joiner
from floor.sealed import AHEAD, DUPLICATE, Position, Refused, verify
from floor.store import Store, status_of

log = logging.getLogger("threecard.floor")

# Seconds a lack must last before the table is asked (messages may be on their way).
GRACE_S = 1.0
RETRY_S = 3.0
# Round messages held ahead of what was verified, per journal (oldest dropped first).
HELD_LIMIT = 200
# Provisional events held per journal at most; a table makes far fewer between two seals.
PENDING_LIMIT = 5000

@dataclass
class _Series:

    table: str
    journal: str
    contiguous: int = 0  # rounds 1..contiguous are stored, verified
    announced: int = 0  # the last round the newest state named, or a message ahead
    broken: str | None = None
    status: str | None = None  # as the newest status of this journal said
    position: Position | None = None  # as verified (None: not read from the store yet)
    loaded: bool = False
    held: list[tuple[RoundMessage, int]] = field(default_factory=list)  # ahead, unchecked
    gap_since: float | None = None
    asked: tuple[int, float] | None = None  # (from round, when)
    gap_seen: bool = False  # the store says when the rounds lacking were first seen

    def gap(self) -> bool:
        """Rounds are missing (what ``floor status`` shows)."""
        return self.contiguous < self.announced

    def lacking(self) -> int | None:
        """The first round to ask for, or None."""
        return self.contiguous + 1 if self.gap() else None


class Recorder:
    """Verifies and stores the feed, and keeps each series whole.

    Args:
        store: the open store.
        ask: publishes a resend request: ``ask(table_id, request)``.
        clock: seconds, monotonic.
        witness: publishes a table's witness (retained): ``witness(table_id, message)``.
        shared: other recorders write the same store: :meth:`check` reads each series
            from the store before it asks for anything.

    Attributes:
        counts: messages by outcome (``stored``, ``duplicate``, ``refused``, ``forged``,
            ``ahead``, ``asked``, ``joined``).
    """

    def __init__(self, store: Store, ask: Callable[[str, ResendRequest], None],
                 clock: Callable[[], float] = time.monotonic,
                 witness: Callable[[str, WitnessMessage], None] | None = None,
                 shared: bool = False) -> None:
        self.store = store
        self.shared = shared
        self.ask = ask
        self.clock = clock
        self.publish_witness = witness
        self.counts = {"stored": 0, "duplicate": 0, "refused": 0, "forged": 0, "ahead": 0,
                       "asked": 0, "joined": 0}
        self.throttle = Throttle(log)  # the same refusal again: once a minute
        self.joiner = Joiner(clock)  # the parts of messages too large for the broker
        self.current: dict[str, str] = {t.table_id: t.journal for t in store.tables()}
        self._received_us = store.newest_us()  # never backwards: the order of arrival
        self.series: dict[tuple[str, str], _Series] = {}
        for r in store.series():
            verified = r.contiguous
            if verified and store.chain(r.table, r.journal) is None:
                verified = 0  # rounds an earlier recorder took on their word: asked again
                store.set_contiguous(r.table, r.journal, 0)
            self.series[r.table, r.journal] = _Series(
                r.table, r.journal, verified, r.announced, r.broken, r.status,
                gap_seen=r.gap_us is not None)

    def _series(self, table: str, journal: str) -> _Series:
        s = self.series.get((table, journal))
        if s is None:
            s = self.series[table, journal] = _Series(table, journal)
        return s

    def _position(self, s: _Series) -> Position | None:
        """How far the store says the series is verified (read again if another recorder moved it).

        Raises:
            ValueError: the stored state cannot be read.
        """
        mark = self.store.position_mark(s.table, s.journal)
        held = (s.position.seq, s.position.epoch) if s.position is not None else None
        if not s.loaded or mark != held:
            s.position, s.loaded = self.store.position(s.table, s.journal), True
            if s.position is not None:
                s.contiguous = s.position.round_id
        return s.position

    def _locked(self, table: str) -> contextlib.AbstractContextManager[Any]:
        """A transaction in which no other recorder handles ``table``'s messages."""
        return self.store.db.locked(f"floor table {table}")

    # ------------------------------------------------------------------ messages
    def on_message(self, table: str, name: str, payload: bytes, retained: bool = False
                   ) -> None:
        """Take one payload from ``<prefix>/<table>/<name>`` (``retained``: the broker's copy).

        A payload that fails its declaration or names another table is refused and nothing of
        it stored; a part waits for its whole.
        """
        if is_part(payload):
            try:
                p = decode_part(payload)
                if p.table != table:
                    raise ValueError(f"a part names table {p.table!r}")
                payload = self.joiner.take(table, name, p)
            except ValueError as exc:
                self.refuse(table, f"{name}: {exc}")
                return
            if payload is None:
                return  # parts still to come (a whole made of parts fails its declaration)
            self.counts["joined"] += 1
        try:
            m = decode(name, payload)
        except ValueError as exc:
            self.refuse(table, str(exc))
            return
        if getattr(m, "table", None) != table or not hasattr(m, "journal"):
            self.refuse(table, f"a {name} message names table {getattr(m, 'table', '?')!r}")
            return
        now_us = self._received_us = max(time.time_ns() // 1000, self._received_us + 1)
        if isinstance(m, RoundMessage):
            self._round(m, now_us)
            return
        self.current[table] = m.journal  # the newest message received names the journal
        if isinstance(m, EventMessage):
            self._event(m, now_us)
        elif isinstance(m, StateMessage):
            self._state(m, now_us, retained)
        elif isinstance(m, (MetersMessage, StatusMessage)):
            self.store.put_latest(m, now_us, retained)
            if isinstance(m, StatusMessage):
                self._series(table, m.journal).status = status_of(m)

    def refuse(self, table: str, why: str) -> None:
        """Count a message refused on ``table``'s topic and log why, at warning."""
        self.counts["refused"] += 1
        self.throttle.log(f"refused {table} {why[:40]}", logging.WARNING,
                          "floor: refused a message on table %s's topic: %s", table, why[:300])

    def forged(self, table: str, why: str, n: int = 1) -> None:
        """Count ``n`` messages on ``table``'s topics refused as forged; log and store why."""
        self.counts["forged"] += n
        self.store.add_forged(table, why, time.time_ns() // 1000, n)
        self.throttle.log(f"forged {table} {why[:40]}", logging.WARNING,
                          "floor: FORGED on table %s's topic (%d): %s", table, n, why[:300])

    def _count(self, stored: bool) -> None:
        self.counts["stored" if stored else "duplicate"] += 1

    def _round(self, m: RoundMessage, now_us: int) -> None:
        """Verify a round message and store what its rows make, in one locked transaction."""
        s = self._series(m.table, m.journal)
        try:
            with self._locked(m.table):
                stored = self._verify_round(s, m, now_us)
        except BaseException:
            s.loaded = False  # the game replayed in memory is not the store's
            raise
        if stored:
            self.witness(m.table)

    def _verify_round(self, s: _Series, m: RoundMessage, now_us: int) -> bool:
        what = f"round {m.round_id} of journal {m.journal[:16]}"
        try:
            pos = self._position(s)
        except ValueError as exc:
            log.error("floor: table %s journal %s: %s; its messages are refused", m.table,
                      m.journal[:16], exc)
            self.refuse(m.table, f"{what}: {exc}")
            return False
        keys = [bytes.fromhex(k.key) for k in self.store.keys(m.table)]
        if pos is not None and keys and pos.chain_key not in keys:
            log.warning("floor: table %s journal %s was verified under the key %s..., no "
                        "longer pinned for the table: it is verified again from its start",
                        m.table, m.journal[:16], pos.chain_key.hex()[:16])
            pos = s.position = None
            s.contiguous = 0
        try:
            out = verify(m, pos, keys, lambda e: self.store.seal(m.table, m.journal, e),
                         m.table)
        except Refused as r:
            self.forged(m.table, f"{what}: {r.why}")
            if r.conflict and s.broken is None:
                s.broken = f"the journal at the table is not the one the floor recorded: {r.why}"
                self.store.set_broken(m.table, m.journal, s.broken)
                log.error("floor: table %s journal %s: %s", m.table, m.journal[:16], s.broken)
            return False
        except ReplayError as exc:  # sealed rows the game cannot apply: read it again
            s.loaded = False
            self.refuse(m.table, f"{what}: {exc}")
            return False
        self.current[m.table] = m.journal
        if out == AHEAD:  # rounds were lost on the way: asked for; this one checked then
            self.counts["ahead"] += 1
            s.held = [*s.held, (m, now_us)][-HELD_LIMIT:]
            if m.round_id > s.announced:
                s.announced = m.round_id
                self.store.announce(m.table, m.journal, m.round_id, now_us)
            return False
        if out == DUPLICATE:
            self._count(False)
            return False
        dropped = self.store.put_verified(m.table, out, m, now_us)
        s.position, s.contiguous = out.position, out.position.round_id
        self._count(True)
        if out.pinned is not None:
            log.warning("floor: table %s: verification key %s pinned on first use (no key "
                        "was enrolled: `threecard floor enrol` gives it)", m.table,
                        out.pinned.hex())
        if dropped:
            self.forged(m.table, f"{len(dropped)} event(s) its sealed rows do not make (the "
                        f"first at event {dropped[0].seq}, {dropped[0].kind}): dropped",
                        len(dropped))
        self._held_again(s)
        return True

    def _held_again(self, s: _Series, seq: int | None = None) -> None:
        """Check the held messages the store's position ``seq`` (default: the held one) reaches."""
        if seq is None:
            seq = s.position.seq if s.position is not None else None
        due = [(m, t) for m, t in s.held if seq is not None and m.after <= seq]
        if due:
            s.held = [h for h in s.held if h not in due]
            for m, t in sorted(due, key=lambda h: h[0].after):
                self._round(m, t)

    def witness(self, table: str) -> None:
        """Publish the newest seal verified of each of the table's journals (retained)."""
        if self.publish_witness is not None:
            self.publish_witness(table, WitnessMessage(table=table,
                                                       journals=self.store.witness(table)))

    def _event(self, m: EventMessage, now_us: int) -> None:
        with self._locked(m.table):
            self._take_event(m, now_us)

    def _take_event(self, m: EventMessage, now_us: int) -> None:
        mark = self.store.position_mark(m.table, m.journal)
        if mark is not None and m.seq <= mark[0]:
            held = self.store.sealed_event(m.table, m.journal, m.seq, m.kind)
            same = msgspec.structs.replace(m, sent_us=0)
            if held is not None and msgspec.structs.replace(
                    decode("event", held.encode()), sent_us=0) == same:
                self._count(False)
            else:
                self.forged(m.table, f"an event {m.kind} at event {m.seq}, which the "
                            "journal's sealed rows do not make")
            return
        kept = self.store.put_event(m, now_us, PENDING_LIMIT)
        if kept is None:
            self.forged(m.table, f"more than {PENDING_LIMIT} events held before their "
                        "round's seal")
        else:
            self._count(kept)

    def _state(self, m: StateMessage, now_us: int, retained: bool) -> None:
        if not self.store.put_latest(m, now_us, retained):
            return  # an older state than the one held: it announces nothing new
        s = self._series(m.table, m.journal)
        s.announced = m.last_round  # the newest state says it: an older claim is gone

    # ------------------------------------------------------------------ continuity
    def refresh(self) -> None:
        """Each series and table as the store holds them (another recorder took its share)."""
        for table, journal, contiguous, announced, broken, status in self.store.series_now():
            s = self._series(table, journal)
            s.contiguous, s.announced, s.broken, s.status = (contiguous, announced, broken,
                                                             status)
            if s.held:
                mark = self.store.position_mark(table, journal)
                self._held_again(s, mark[0] if mark is not None else None)
        self.current.update(self.store.current_journals())

    def check(self) -> None:
        """Ask each online table for the rounds its newest journal lacks."""
        if self.shared:
            self.refresh()
        now = self.clock()
        for s in self.series.values():
            if s.gap() != s.gap_seen:  # floor status: a gap younger than GRACE_S may close
                s.gap_seen = s.gap()
                self.store.set_gap(s.table, s.journal, time.time_ns() // 1000 if s.gap_seen
                                   else None)
            want = s.lacking()
            if want is None or s.broken:
                s.gap_since = None
                continue
            if self.current.get(s.table) != s.journal or s.status != "online":
                continue  # only a running table answers, from its newest journal
            if s.gap_since is None:
                s.gap_since = now
            if now - s.gap_since < GRACE_S:
                continue
            if s.asked is not None and s.asked[0] == want and now - s.asked[1] < RETRY_S:
                continue
            log.info("floor: asking table %s for rounds from %d again (journal %s: %d "
                     "verified, announced %d)", s.table, want, s.journal[:16], s.contiguous,
                     s.announced)
            self.counts["asked"] += 1
            s.asked = (want, now)
            self.ask(s.table, ResendRequest(journal=s.journal, from_round=want))
