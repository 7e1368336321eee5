"""The floor recorder: every table's feed into the store, its continuity checked and mended.

:class:`Recorder` takes each payload (checked against its declaration,
:mod:`floor.messages`), stores it (:class:`~floor.store.Store`) and follows each series
(a table's journal) as a chain: round N must name round N-1's last event as its previous
round, from round 1 (which names the chain's genesis). A series lacks rounds when

- a round id is missing below the newest stored or announced (the newest ``state``'s last
  round: a round lost at the end of a shift is noticed too);
- a round names another previous event than the one stored (the stored record is an older
  version: a burn joined its deal after it ended and the newer record was lost; or it was
  not sent from the table's journal);
- the newest ``state`` names another last event for its last round than the one stored.

It also holds each series' events against the counts its table sends (at least once,
like rounds): a round counts the ``event`` messages its journal made after the previous
round's end, the newest ``state`` those after the last round's end. A stored round that
counted more than the store holds in its range is short (the recorder remembers it, and
finds it again in the store at start-up), and so is the newest state's tail; the table
is asked for the rounds from the first short one (it sends the events after the end of
the round before it too). Events still short after :data:`MAX_ASKS` asks are logged at
error and no longer asked for (until the recorder starts again).

Which record of a round is kept: the one the chain names (the previous-round event of the
round after it, or the newest state's last-round event), else the one ending later. A
record sent under a table's name but not from its journal thus gives way to the journal's
when the table sends it again. What the recorder receives is ordered by its arrival (the
broker keeps a topic's order), never by the sender's clock: the newest ``state``,
``meters`` and ``status`` (per journal: the last will after the ``online``) are the ones
received last, and so is the table's current journal.

After :data:`GRACE_S` (messages may still be on their way) it asks the table, on
``<prefix>/<table>/resend``, for the rounds from the first one lacking; the table answers
from its journal. It asks again every :data:`RETRY_S` while the table is online and the
rounds still lack. A previous-round link a resend does not mend after :data:`MAX_ASKS`
asks means the journal at the table is not the one the floor recorded: the series is
marked broken, logged at error, and ``threecard floor status`` shows it.

:func:`serve` connects it to the broker with a persistent session (the broker keeps the
messages of a recorder that is down), subscribes to every table, and checks every series
four times a second. Each message is committed to the store before its acknowledgement
goes back to the broker (paho's manual acknowledgement): a store that cannot be written
stops the recorder with what it could not store still held by the broker.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.journal.anchor import GENESIS
from floor.messages import (
    EventMessage,
    MetersMessage,
    ResendRequest,
    RoundMessage,
    StateMessage,
    StatusMessage,
    decode,
    encode,
)
from floor.mqtt import FloorSettings, Throttle
from floor.store import Store, status_of

log = logging.getLogger("threecard.floor")

GRACE_S = 1.0
"""Seconds a lack must last before the table is asked (messages may be on their way)."""
RETRY_S = 3.0
"""Seconds before the same rounds are asked for again."""
MAX_ASKS = 5
"""Asks that leave a previous-round link unmended before a series is marked broken."""
CHECK_EVERY_S = 0.25
HEARTBEAT_S = 5.0
"""The recorder writes in the store that it runs this often (``floor status`` reads it)."""
SESSION_EXPIRY_S = 7 * 24 * 3600
"""How long the broker keeps the recorder's session (and its messages) while it is down."""
SUBSCRIBED = ("round", "event", "meters", "state", "status")
TAKEN_OVER = 0x8E
"""The MQTT 5 reason code of a disconnection because another client connected with the
same client id (Session taken over)."""
QUICK_S = 10.0
QUICK_LOSSES = 3
"""Connections lost within :data:`QUICK_S` (each after the broker accepted it): another
client with the same id takes the session over each time it reconnects (a broker that does
not say so), and the recorder taken over first stops."""


@dataclass
class _Series:
    """What the recorder follows of one table's journal."""

    table: str
    journal: str
    contiguous: int = 0  # rounds 1..contiguous are stored, each linked to the one before
    announced: int = 0  # the last finished round the newest state named
    newest: int = 0  # the newest round id stored
    broken: str | None = None
    status: str | None = None  # as the newest status of this journal said
    announced_end: tuple[int, str] | None = None  # (seq, hash) of the announced round
    mismatch: int | None = None  # a stored round its successor disowns
    stale: int | None = None  # a stored round that ends elsewhere than the state says
    gap_since: float | None = None
    asked: tuple[int, float] | None = None  # (from round, when)
    asks: int = 0
    gap_seen: bool = False  # the store says when the rounds lacking were first seen
    short: set[int] = field(default_factory=set)  # stored rounds short of their events
    tail: tuple[int, int, int, int] | None = None  # the newest state's (last round, its
    # end, the state's event, events counted between them)
    tail_short: bool = False
    event_asks: int = 0

    def gap(self) -> bool:
        """Rounds are missing (what ``floor status`` shows)."""
        return self.contiguous < max(self.newest, self.announced)

    def lacking(self) -> int | None:
        """The first round to ask for, or None."""
        wants = [r for r in (self.mismatch, self.stale) if r]
        if self.gap():
            wants.append(self.contiguous + 1)
        return min(wants, default=None)

    def lacking_events(self) -> int | None:
        """The first round to ask for for the events the store lacks, or None."""
        wants = set(self.short)
        if self.tail_short and self.tail is not None:
            wants.add(self.tail[0] + 1)  # the events after the last round's end
        return min(wants, default=None)


class Recorder:
    """Stores the feed and keeps each series whole (see the module docstring).

    Args:
        store: the open store.
        ask: publishes a resend request: ``ask(table_id, request)``.
        clock: seconds, monotonic.

    Attributes:
        counts: messages by outcome: ``stored``, ``duplicate``, ``refused``, ``asked``.
    """

    def __init__(self, store: Store, ask: Callable[[str, ResendRequest], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.ask = ask
        self.clock = clock
        self.counts = {"stored": 0, "duplicate": 0, "refused": 0, "asked": 0}
        self.throttle = Throttle(log)  # the same refusal again: once a minute
        self.current: dict[str, str] = {t.table_id: t.journal for t in store.tables()}
        self._received_us = store.newest_us()  # never backwards: the order of arrival
        self.series: dict[tuple[str, str], _Series] = {}
        for r in store.series():
            s = self.series[r.table, r.journal] = _Series(
                r.table, r.journal, r.contiguous, r.announced, r.newest, r.broken, r.status,
                (r.announced_seq, r.announced_hash) if r.announced_hash else None,
                gap_seen=r.gap_us is not None)
            self._advance(s)  # a link the store holds unmended is sought again
            s.short = set(store.short_of_events(r.table, r.journal))
        for t in store.tables():  # the newest state's tail, as it was left
            if t.state is not None and (t.table_id, t.state.journal) in self.series:
                self._tail(self.series[t.table_id, t.state.journal], t.state)

    def _series(self, table: str, journal: str) -> _Series:
        s = self.series.get((table, journal))
        if s is None:
            s = self.series[table, journal] = _Series(table, journal)
        return s

    # ------------------------------------------------------------------ messages
    def on_message(self, table: str, name: str, payload: bytes, retained: bool = False
                   ) -> None:
        """Take one payload from ``<prefix>/<table>/<name>``.

        A payload that fails its declaration, or names another table than its topic's,
        is refused (logged at warning) and nothing of it is stored. ``retained``: the
        broker's retained copy, sent as the recorder subscribes (an older ``state`` or
        ``meters`` than the store's is left aside: :meth:`Store.put_latest`).
        """
        try:
            m = decode(name, payload)
        except ValueError as exc:
            self.refuse(table, str(exc))
            return
        if m.table != table:
            self.refuse(table, f"a {name} message names table {m.table!r}")
            return
        now_us = self._received_us = max(time.time_ns() // 1000, self._received_us + 1)
        self.current[table] = m.journal  # the newest message received names the journal
        if isinstance(m, RoundMessage):
            self._round(m, now_us)
        elif isinstance(m, EventMessage):
            stored = self.store.put_event(m, now_us)
            self._count(stored)
            if stored:
                self._recount(self._series(table, m.journal), m.seq)
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

    def _count(self, stored: bool) -> None:
        self.counts["stored" if stored else "duplicate"] += 1

    def _round(self, m: RoundMessage, now_us: int) -> None:
        s = self._series(m.table, m.journal)
        outcome = self.store.put_round(m, now_us, self._named(s, m.round_id))
        self._count(outcome in ("new", "newer"))
        s.newest = max(s.newest, m.round_id)
        if outcome in ("new", "newer"):
            self._advance(s, m.round_id)
            s.short.discard(m.round_id)
            s.short.update(self.store.short_of_events(s.table, s.journal, m.round_id))

    def _recount(self, s: _Series, seq: int) -> None:
        """An event of journal event ``seq`` stored: the short rounds and tail again."""
        for rid in list(s.short):
            link = self.store.link(s.table, s.journal, rid)
            if link is None or link.prev_seq < seq <= link.seq:
                s.short.discard(rid)
                s.short.update(self.store.short_of_events(s.table, s.journal, rid))
        if s.tail_short and s.tail is not None and s.tail[1] < seq <= s.tail[2]:
            self._tail(s)

    def _tail(self, s: _Series, m: StateMessage | None = None) -> None:
        """Hold the events after the last round's end against the newest state's count."""
        if m is not None:
            s.tail = None if m.events is None else (m.last_round, m.last_round_seq, m.seq,
                                                    m.events)
        t = s.tail
        s.tail_short = t is not None and t[3] > self.store.events_between(
            s.table, s.journal, t[1], t[2])

    def _named(self, s: _Series, round_id: int) -> tuple[int, str] | None:
        """The (seq, hash) the chain names as a round's last event (None: nothing names it).

        The previous-round pair of the round after it, else the newest state's last-round
        pair when it names this round.
        """
        nxt = self.store.link(s.table, s.journal, round_id + 1)
        if nxt is not None:
            return nxt.prev_seq, nxt.prev_hash
        return s.announced_end if s.announced == round_id else None

    def _state(self, m: StateMessage, now_us: int, retained: bool) -> None:
        if not self.store.put_latest(m, now_us, retained):
            return  # an older state than the one held: it announces nothing new
        s = self._series(m.table, m.journal)
        s.announced = m.last_round  # the newest state says it: an older claim is gone
        s.announced_end = (m.last_round_seq, m.last_round_hash) if m.last_round else None
        self._advance(s)
        self._tail(s, m)

    def _advance(self, s: _Series, changed: int | None = None) -> None:
        """Move ``contiguous`` over every stored round that names the one before it.

        Args:
            s: the series.
            changed: a round just stored: the chain is checked again from it.
        """
        start = s.contiguous
        if changed is not None and changed <= s.contiguous:
            s.contiguous = changed - 1
        st = self.store
        s.mismatch = None
        while (nxt := st.link(s.table, s.journal, s.contiguous + 1)) is not None:
            cur = st.link(s.table, s.journal, s.contiguous) if s.contiguous else None
            want = (cur.seq, cur.hash) if cur is not None else (0, GENESIS)
            if (nxt.prev_seq, nxt.prev_hash) != want:
                s.mismatch = max(s.contiguous, 1)
                break
            s.contiguous += 1
        s.stale = None
        if s.announced_end is not None:
            link = st.link(s.table, s.journal, s.announced)
            if link is not None and (link.seq, link.hash) != s.announced_end:
                s.stale = s.announced
        if s.contiguous != start:
            st.set_contiguous(s.table, s.journal, s.contiguous)
            s.asks = 0
            if s.broken is not None:
                s.broken = None
                st.set_broken(s.table, s.journal, None)

    # ------------------------------------------------------------------ continuity
    def check(self) -> None:
        """Ask each online table for the rounds its newest journal lacks (module docstring)."""
        now = self.clock()
        for s in self.series.values():
            if s.gap() != s.gap_seen:  # floor status: a gap younger than GRACE_S may close
                s.gap_seen = s.gap()
                self.store.set_gap(s.table, s.journal, time.time_ns() // 1000 if s.gap_seen
                                   else None)
            if s.lacking_events() is None:
                s.event_asks = 0
            events = s.lacking_events() if s.event_asks < MAX_ASKS else None
            want = min((w for w in (s.lacking(), events) if w is not None), default=None)
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
            if want == s.mismatch:
                s.asks += 1
                if s.asks > MAX_ASKS:
                    s.broken = (f"round {want + 1} does not follow round {want} as recorded: "
                                "the journal at the table differs from the floor's record")
                    self.store.set_broken(s.table, s.journal, s.broken)
                    log.error("floor: table %s journal %s: %s", s.table, s.journal[:16],
                              s.broken)
                    continue
            if want == events:
                s.event_asks += 1
                if s.event_asks == MAX_ASKS:
                    log.error("floor: table %s journal %s: the events from round %d on are "
                              "still short after %d asks; not asked for again", s.table,
                              s.journal[:16], want, MAX_ASKS)
            log.info("floor: asking table %s for rounds from %d again (journal %s: %d in a "
                     "row stored, newest %d, announced %d, events short from round %s)",
                     s.table, want, s.journal[:16], s.contiguous, s.newest, s.announced,
                     events)
            self.counts["asked"] += 1
            s.asked = (want, now)
            self.ask(s.table, ResendRequest(journal=s.journal, from_round=want))


def _message_fault(exc: sqlite3.Error) -> bool:
    """True when the message, not the store, is at fault (a value SQLite cannot hold)."""
    return isinstance(exc, (sqlite3.IntegrityError, sqlite3.DataError,
                            sqlite3.InterfaceError, sqlite3.ProgrammingError))


def serve(settings: FloorSettings, store_path: str, client_id: str,
          stop: threading.Event | None = None) -> int:
    """Run the recorder until ``stop`` is set (the command sets it on SIGTERM or SIGINT).

    Args:
        settings: the broker, TLS files, credentials and topic prefix.
        store_path: the store file (created when missing).
        client_id: the recorder's client id: its persistent session on the broker (a
            secured broker binds it to the recorder's user, ``threecard floor serve``
            names it after the user).
        stop: set to stop.

    Returns:
        0 after a clean stop, 1 when the store cannot be written (what was not stored is
        not acknowledged: the broker keeps it for the next start) or the recorder failed,
        2 when its session was taken over by another client with the same client id
        (reason code 0x8E, or :data:`QUICK_LOSSES` connections lost in a moment): two
        recorders with one session would each lose what the other took.
        A message the store refuses for what it holds (a number too large...) is refused
        and acknowledged: it never stops the recorder nor comes back at the next start.

    Raises:
        StoreError: the store cannot be opened.
        FloorError: a setting cannot be used.
    """
    settings.check()
    stop = stop or threading.Event()
    store = Store(store_path)
    lock = threading.Lock()
    failed: list[str] = []
    client = settings.client(client_id, manual_ack=True)

    def ask(table: str, req: ResendRequest) -> None:
        client.publish(settings.topic(table, "resend"), encode(req), qos=1)

    recorder = Recorder(store, ask)

    def guarded(fn: Callable[..., None]) -> Callable[..., None]:
        """A paho callback that never dies quietly: an error stops the recorder (exit 1)."""
        def call(*args: Any) -> None:
            try:
                fn(*args)
            except Exception as exc:  # noqa: BLE001 - paho's thread must not die deaf
                log.error("floor: the recorder failed", exc_info=exc)
                failed.append(f"an error in the recorder: {exc!r}")
                stop.set()
        return call

    throttle = Throttle(log)  # a broker refusing or away: said once a minute, not each try
    state: dict[str, Any] = {"connected": False, "refused": False}
    losses: deque[float] = deque(maxlen=QUICK_LOSSES)  # when connections were lost
    taken: list[str] = []

    def on_connect(c, _u, flags, rc, _p) -> None:  # noqa: ANN001 - paho's callback
        if rc.is_failure:
            throttle.log("refused", logging.ERROR, "floor: broker %s refused the recorder: %s "
                         "(check --username and --password-file, and that the broker binds "
                         "the user to the client id %s); trying again", settings.broker, rc,
                         client_id)
            state["refused"] = True
            return
        state["connected"] = True
        throttle.clear("refused", "lost", "closed", "unreachable")
        log.info("floor: recorder connected to %s as %s (session %s)", settings.broker,
                 client_id, "resumed" if flags.session_present else "new")
        c.subscribe([(settings.wildcard(n), 1) for n in SUBSCRIBED])

    def on_message(c, _u, m) -> None:  # noqa: ANN001
        where = settings.split(m.topic)
        if where is not None and where[1] in SUBSCRIBED:
            try:
                with lock:
                    recorder.on_message(where[0], where[1], m.payload, bool(m.retain))
            except sqlite3.Error as exc:
                if not _message_fault(exc):  # not acknowledged: the broker keeps it for us
                    failed.append(f"the store {store_path} cannot be written: {exc}")
                    stop.set()
                    return
                recorder.refuse(where[0], f"the store cannot hold it: {exc}")
            except Exception as exc:  # noqa: BLE001 - one message never stops the recorder
                log.error("floor: a message on %s could not be stored; refused", m.topic,
                          exc_info=exc)
                recorder.counts["refused"] += 1
        c.ack(m.mid, m.qos)  # stored (or refused for good): the broker may drop it

    def on_disconnect(_c, _u, _f, rc, _p) -> None:  # noqa: ANN001
        if stop.is_set():
            return
        if state["connected"]:
            losses.append(time.monotonic())
            quick = len(losses) == QUICK_LOSSES and losses[-1] - losses[0] < QUICK_S
            if rc == TAKEN_OVER or quick:
                taken.append(f"its session on {settings.broker} was taken over by another "
                             f"client with the client id {client_id} ("
                             + ("the broker said so" if rc == TAKEN_OVER else
                                f"{QUICK_LOSSES} connections lost within {QUICK_S:.0f} s")
                             + "): is another `threecard floor serve` running with it? Give "
                             "each recorder a user of its own (a --client-id of its own on "
                             "a broker without users)")
                stop.set()
                return
            throttle.log("lost", logging.WARNING, "floor: recorder lost the broker (%s); "
                         "reconnecting", rc)
        elif not state["refused"]:
            throttle.log("closed", logging.WARNING, "floor: broker %s closed the connection "
                         "before accepting it (%s): is the port a TLS one (mqtts://), or no "
                         "MQTT broker's? Trying again", settings.broker, rc)
        state["connected"] = state["refused"] = False

    def on_connect_fail(_c, _u) -> None:  # noqa: ANN001
        throttle.log("unreachable", logging.WARNING, "floor: broker %s unreachable; trying "
                     "again", settings.broker)

    client.on_connect, client.on_message = guarded(on_connect), guarded(on_message)
    client.on_disconnect = guarded(on_disconnect)
    client.on_connect_fail = guarded(on_connect_fail)
    log.info("floor: recorder storing to %s from %s", store_path, settings.broker)
    wait_s = 0.5
    while True:  # the first connection here, so that why it fails is said
        try:
            settings.connect(client, clean_start=False, session_expiry_s=SESSION_EXPIRY_S)
            break
        except OSError as exc:
            throttle.log("unreachable", logging.WARNING, "floor: broker %s unreachable (%s); "
                         "trying again", settings.broker, exc)
        with contextlib.suppress(sqlite3.Error):  # a store that cannot be written: said later
            store.beat(client_id, time.time_ns() // 1000)
        if stop.wait(wait_s):
            with contextlib.suppress(sqlite3.Error):
                store.beat(client_id, time.time_ns() // 1000, stopped=True)
            store.close()
            return 0
        wait_s = min(wait_s * 2, 5.0)
    client.loop_start()  # from here paho's network loop reconnects by itself
    beaten = 0.0
    try:
        while not stop.wait(CHECK_EVERY_S):
            with lock:
                recorder.check()
                if time.monotonic() - beaten >= HEARTBEAT_S:
                    beaten = time.monotonic()
                    store.beat(client_id, time.time_ns() // 1000)
    except sqlite3.Error as exc:
        failed.append(f"the store {store_path} cannot be read: {exc}")
    except Exception as exc:  # noqa: BLE001 - stop with a reason, never linger
        log.error("floor: the recorder failed", exc_info=exc)
        failed.append(f"an error in the recorder: {exc!r}")
    finally:
        client.disconnect()
        client.loop_stop()
        with lock, contextlib.suppress(sqlite3.Error):
            store.beat(client_id, time.time_ns() // 1000, stopped=True)
        with lock:
            store.close()
        log.info("floor: recorder stopped: %s", ", ".join(f"{v} {k}" for k, v in
                                                          recorder.counts.items()))
    for why in (taken or failed)[:1]:
        log.error("floor: recorder stopped: %s", why)
    return 2 if taken else 1 if failed else 0
