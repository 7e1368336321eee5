"""The floor recorder: every table's feed verified into the store, its continuity kept.

:class:`Recorder` takes each payload (checked against its declaration,
:mod:`floor.messages`) and believes none of it on its word:

- a ``round`` message carries the journal's rows since the seal that closed the previous
  round and the seals that close them; the recorder recomputes the hash chain over the
  rows from the head it verified last, checks every seal's signature with the key it
  expects for that epoch, and replays the rows with the game's own replay
  (:mod:`floor.sealed`, :mod:`floor.derive`). The rounds and events it stores are what
  the rows make; the journal's position, its seals and the replayed game are stored with
  them, in one transaction.
- The first key of each journal's chain must be the table's **verification key**: the
  one a technician enrolled (``threecard floor enrol``), or, when none was, the one the
  table's first sealed message came with (pinned on first use; ``floor status`` says
  which).
- A message unsealed, badly sealed, or in conflict with a seal stored (the table's key
  signed another seal for an epoch the floor verified: the journal at the table was put
  back or replaced) is refused, counted (``FORGED n`` in ``floor status``), logged, and
  never replaces a stored record; a conflict marks the journal's series broken.
- ``event`` messages are provisional until their round's seal comes: held apart, then
  replaced by the events the sealed rows make (those the rows do not make are counted as
  forged); an event for an event already sealed is compared with the sealed one and
  refused when it differs. So no number of made-up events displaces a real one.
- ``state``, ``meters`` and ``status`` are kept as the newest received (what the floor
  shows of the table now); the state's last round tells the recorder what it lacks.

After each verified round message the recorder publishes, retained on
``<prefix>/<table>/witness``, the newest seal it verified of each of the table's journals
(:class:`~floor.messages.WitnessMessage`): a table reads it as it starts, and locks when
its journal is behind it or disagrees with it.

Rounds lack when a message's rows follow events the floor has not verified (something
was lost on the way), or when the newest ``state`` names a round past the newest verified.
After :data:`GRACE_S` (messages may still be on their way) the recorder asks the table, on
``<prefix>/<table>/resend``, for the rounds from the first one lacking; the table answers
from its journal. It asks again every :data:`RETRY_S` while the table is online and the
rounds still lack. What the recorder receives is ordered by its arrival (the broker keeps
a topic's order), never by the sender's clock.

:func:`serve` connects it to the broker with a persistent session (the broker keeps the
messages of a recorder that is down), subscribes to every table, and checks every series
four times a second. Each message is committed to the store before its acknowledgement
goes back to the broker (paho's manual acknowledgement): a store that cannot be written
stops the recorder with what it could not store still held by the broker. With its
heartbeat it writes whether it reaches the broker, and since when it cannot (``floor
status`` shows each table's status unknown since then). A message that came in parts
(:mod:`floor.parts`) is joined and checked whole before it is taken.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
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
    encode,
    is_part,
)
from floor.mqtt import KEEPALIVE_S, FloorSettings, Throttle, unreachable_why
from floor.netloop import NetLoop
from floor.parts import Joiner, packet_size
from floor.pits import Routes
from floor.sealed import AHEAD, DUPLICATE, Position, Refused, verify
from floor.store import Store, status_of

log = logging.getLogger("threecard.floor")

GRACE_S = 1.0
"""Seconds a lack must last before the table is asked (messages may be on their way)."""
RETRY_S = 3.0
"""Seconds before the same rounds are asked for again."""
HELD_LIMIT = 200
"""Round messages ahead of what the floor verified held per journal at most, to be checked
once it has (the oldest are dropped first: a table sends them again when asked)."""
PENDING_LIMIT = 5000
"""Provisional events (their round's seal not yet come) the store holds per journal at
most; a table makes far fewer between two seals."""
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
    """Verifies and stores the feed, and keeps each series whole (see the module docstring).

    Args:
        store: the open store.
        ask: publishes a resend request: ``ask(table_id, request)``.
        clock: seconds, monotonic.
        witness: publishes a table's witness (retained): ``witness(table_id, message)``.

    Attributes:
        counts: messages by outcome: ``stored``, ``duplicate``, ``refused`` (failed its
            declaration), ``forged`` (unsealed, badly sealed or in conflict), ``ahead``
            (rows after events not yet verified), ``asked``, ``joined`` (messages
            that came in parts, joined again).
    """

    def __init__(self, store: Store, ask: Callable[[str, ResendRequest], None],
                 clock: Callable[[], float] = time.monotonic,
                 witness: Callable[[str, WitnessMessage], None] | None = None) -> None:
        self.store = store
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
        """Where the floor verified the series' journal up to (read once from the store).

        Raises:
            ValueError: the stored state cannot be read.
        """
        if not s.loaded:
            s.position, s.loaded = self.store.position(s.table, s.journal), True
        return s.position

    # ------------------------------------------------------------------ messages
    def on_message(self, table: str, name: str, payload: bytes, retained: bool = False
                   ) -> None:
        """Take one payload from ``<prefix>/<table>/<name>``.

        A payload that fails its declaration, or names another table than its topic's,
        is refused (logged at warning) and nothing of it is stored. ``retained``: the
        broker's retained copy, sent as the recorder subscribes (an older ``state`` or
        ``meters`` than the store's is left aside: :meth:`Store.put_latest`).
        A part of a message (:mod:`floor.parts`) is kept until its whole is there, which
        is then taken as if it had come in one.
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
        """Verify a round message; store what its rows make (see the module docstring)."""
        s = self._series(m.table, m.journal)
        what = f"round {m.round_id} of journal {m.journal[:16]}"
        try:
            pos = self._position(s)
        except ValueError as exc:
            log.error("floor: table %s journal %s: %s; its messages are refused", m.table,
                      m.journal[:16], exc)
            self.refuse(m.table, f"{what}: {exc}")
            return
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
            return
        except ReplayError as exc:  # sealed rows the game cannot apply: read it again
            s.loaded = False
            self.refuse(m.table, f"{what}: {exc}")
            return
        self.current[m.table] = m.journal
        if out == AHEAD:  # rounds were lost on the way: asked for; this one checked then
            self.counts["ahead"] += 1
            s.held = [*s.held, (m, now_us)][-HELD_LIMIT:]
            if m.round_id > s.announced:
                s.announced = m.round_id
                self.store.announce(m.table, m.journal, m.round_id, now_us)
            return
        if out == DUPLICATE:
            self._count(False)
            return
        try:
            dropped = self.store.put_verified(m.table, out, m, now_us)
        except BaseException:
            s.loaded = False  # the game replayed in memory is not the store's
            raise
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
        self.witness(m.table)
        self._held_again(s)

    def _held_again(self, s: _Series) -> None:
        """Check the messages held ahead whose rows the floor has now reached."""
        pos = s.position
        due = [(m, t) for m, t in s.held if pos is not None and m.after <= pos.seq]
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
        """An event: compared with the sealed one when sealed already, else provisional."""
        s = self._series(m.table, m.journal)
        try:
            pos = self._position(s)
        except ValueError:
            pos = None
        if pos is not None and m.seq <= pos.seq:
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
    def check(self) -> None:
        """Ask each online table for the rounds its newest journal lacks (module docstring)."""
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


def serve(settings: FloorSettings, store_path: str, client_id: str,
          stop: threading.Event | None = None) -> int:
    """Run the recorder until ``stop`` is set (the command sets it on SIGTERM or SIGINT).

    Args:
        settings: the broker, TLS files, credentials and topic prefix.
        store_path: the store: a SQLite file (created when missing) or a
            ``postgresql://`` URL (:class:`floor.store.Store`).
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
    settings.warn_open_secrets(log, as_option=True)
    stop = stop or threading.Event()
    store = Store(store_path)
    store_path, db_errors = store.path, store.db.errors  # the URL without its password
    lock = threading.Lock()
    failed: list[str] = []
    client = settings.client(client_id, manual_ack=True)
    routes = Routes(settings)  # every pit's tables; each answered under its own prefix

    def ask(table: str, req: ResendRequest) -> None:
        client.publish(routes.topic(table, "resend"), encode(req), qos=1)

    def witness(table: str, w: WitnessMessage) -> None:
        topic = routes.topic(table, "witness")
        payload = encode(msgspec.structs.replace(w, sent_us=time.time_ns() // 1000))
        limit = state["limit"]
        if limit and packet_size(topic, payload) > limit:  # the broker would close on it
            throttle.log(f"witness {table}", logging.ERROR, "floor: the witness of table %s "
                         "(%d journals) is larger than broker %s takes (%d bytes): not "
                         "published; raise its max_packet_size", table, len(w.journals),
                         settings.broker, limit)
            return
        client.publish(topic, payload, qos=1, retain=True)

    recorder = Recorder(store, ask, witness=witness)

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
    # the broker as floor status shows it: since when it cannot be reached (None: it can)
    state: dict[str, Any] = {"connected": False, "refused": False, "limit": None,
                             "lost_us": time.time_ns() // 1000, "why": "not yet connected",
                             "heard": False}

    def beat(stopped: bool = False) -> None:
        store.beat(client_id, time.time_ns() // 1000, stopped, settings.broker,
                   state["lost_us"], state["why"])

    def lost(why: str) -> None:
        if state["lost_us"] is None:
            state["lost_us"] = time.time_ns() // 1000
        state["why"] = why
    losses: deque[float] = deque(maxlen=QUICK_LOSSES)  # when connections were lost
    taken: list[str] = []

    def on_connect(c, _u, flags, rc, props) -> None:  # noqa: ANN001 - paho's callback
        if rc.is_failure:
            throttle.log("refused", logging.ERROR, "floor: broker %s refused the recorder: %s "
                         "(check --username and --password-file, and that the broker binds "
                         "the user to the client id %s); trying again", settings.broker, rc,
                         client_id)
            state["refused"] = True
            lost(f"it refused the recorder: {rc}")
            return
        state["connected"] = True
        state["limit"] = getattr(props, "MaximumPacketSize", None)
        state["lost_us"], state["why"] = None, ""
        if state["heard"]:  # the last connection carried messages: its problems are over
            throttle.clear("refused", "lost", "closed", "unreachable")
        state["heard"] = False
        log.info("floor: recorder connected to %s as %s (session %s)", settings.broker,
                 client_id, "resumed" if flags.session_present else "new")
        c.subscribe(routes.subscriptions(SUBSCRIBED))
        with lock:  # a broker started again without persistence lost the retained ones
            for table in store.witnessed():
                recorder.witness(table)

    def on_message(c, _u, m) -> None:  # noqa: ANN001
        state["heard"] = True
        where = routes.heard(m.topic)
        if where is not None and where[1] in SUBSCRIBED:
            try:
                with lock:
                    recorder.on_message(where[0], where[1], m.payload, bool(m.retain))
            except db_errors as exc:
                if not store.db.message_fault(exc):  # not acknowledged: the broker keeps it for us
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
        if not state["refused"]:
            lost(f"connection lost: {rc}" if state["connected"] else f"closed: {rc}")
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
        lost("unreachable")
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
            lost(f"unreachable: {getattr(exc, 'strerror', None) or exc}")
            throttle.log("unreachable", logging.WARNING, "floor: broker %s unreachable (%s); "
                         "trying again", settings.broker, unreachable_why(settings, exc))
        with contextlib.suppress(db_errors):  # a store that cannot be written: said later
            beat()
        if stop.wait(wait_s):
            with contextlib.suppress(db_errors):
                beat(stopped=True)
            store.close()
            return 0
        wait_s = min(wait_s * 2, 5.0)
    net = NetLoop(client, KEEPALIVE_S, reconnect=True).start()  # it reconnects from here
    beaten, said = 0.0, state["lost_us"]
    try:
        while not stop.wait(CHECK_EVERY_S):
            if not net.alive:  # its thread died: a new one takes the connection on
                log.error("floor: the recorder's network thread ended; started again")
                net = NetLoop(client, KEEPALIVE_S, reconnect=True).start()
            with lock:
                recorder.check()
                if time.monotonic() - beaten >= HEARTBEAT_S or state["lost_us"] != said:
                    beaten, said = time.monotonic(), state["lost_us"]
                    beat()
    except db_errors as exc:
        failed.append(f"the store {store_path} cannot be read: {exc}")
    except Exception as exc:  # noqa: BLE001 - stop with a reason, never linger
        log.error("floor: the recorder failed", exc_info=exc)
        failed.append(f"an error in the recorder: {exc!r}")
    finally:
        net.stop(disconnect=True)
        with lock, contextlib.suppress(db_errors):
            beat(stopped=True)
        with lock:
            store.close()
        log.info("floor: recorder stopped: %s", ", ".join(f"{v} {k}" for k, v in
                                                          recorder.counts.items()))
    for why in (taken or failed)[:1]:
        log.error("floor: recorder stopped: %s", why)
    return 2 if taken else 1 if failed else 0
