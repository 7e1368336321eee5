"""The table's side of the floor feed: at least once, from the journal, never in the way.

A :class:`FloorPublisher` thread reads the journal through a follower, publishes at QoS 1
and moves the cursor only once the broker acknowledged every message of an event; the
table only wakes it. Connections, resends, the witness and two tables with one id:
docs/floor-format.md, "The table's feed".
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from controller.game.replay import ReplayError
from controller.journal import JournalError
from floor.follower import Follower
from floor.messages import ResendRequest, StatusMessage, decode
from floor.mqtt import KEEPALIVE_S, FloorError, FloorSettings, Throttle, unreachable_why
from floor.netloop import NetLoop
from floor.outage import Outage
from floor.outbox import Outbox
from floor.resend import Resends
from floor.same_id import YIELD_S, SameId
from floor.sending import PACKET_TOO_LARGE, WINDOW, Entry, InFlight, stamped
from floor.witness import WitnessReading, WitnessState

log = logging.getLogger("threecard.floor")

# Messages made and not yet acknowledged, at most, per follower (memory stays flat).
AHEAD = 2000
SAVE_EVERY_S = 0.5
# Seconds before connecting again: the first, the longest while unreachable (doubling),
# the longest once accepted connections were lost before any PUBACK. Only a PUBACK resets
# the wait, so a broker that accepts and closes is never a loop.
RETRY_S = (0.25, 2.0, 30.0)
CHUNK = 200
# Catching up, the feed works at most this share of the time: the table keeps its pace.
FEED_SHARE = 0.25
IDLE_POLL_S = 0.5
QUICK_S = 3.0
# Connections closed this many times in a row within QUICK_S of being accepted: another
# table has our id; wait YIELD_S.
QUICK_LOSSES = 3
RESTART_S = 5.0
# The heartbeat: a table silent past floor.report.TABLE_SILENT_S is offline on the floor.
STATUS_EVERY_S = 10.0


class FloorPublisher(WitnessReading, SameId):
    """Publishes one table's journal to the floor's broker.

    Args:
        settings: the broker, TLS files, credentials and topic prefix.
        journal_path: the table's journal (the table has it open).
        table_id: the table's id: its topics and its client id.
        drain_s: how long :meth:`stop` goes on sending what is left, by default.
        resume: the command that restarts the table, logged when the feed stops with
            events unacknowledged ("": not logged).

    Attributes:
        cursor: the newest event whose messages were all acknowledged.
        left: once stopped, the journal's events past the cursor (0: the floor has all).
        on_witness_problem: called once, from the feed's thread, with why the journal
            disagrees with the floor's witness.
        on_device: called from the feed's thread with ``(state, detail, away_ms)``
            (:mod:`floor.outage`).

    Raises:
        FloorError: a setting cannot be used (checked before the thread starts).
    """

    def __init__(self, settings: FloorSettings, journal_path: str, table_id: str,
                 drain_s: float = 2.0, resume: str = "") -> None:
        settings.check()
        settings.warn_open_secrets(log)
        self.drain_s = drain_s
        self.resume = resume
        self.settings = settings
        self.path = journal_path
        self.table_id = table_id
        self.client_id = table_id
        self._connection = 0  # when the current connection was opened (its status says)
        self._before = 0  # when the connection before it was opened (0: none accepted yet)
        self._accepted_at = 0.0  # monotonic: when the broker accepted the current one
        self._quick = 0  # connections in a row closed soon after the broker accepted them
        self.cursor = 0
        self._started_at = 0  # the cursor this run started from
        self.connected = False
        self.acknowledged = self.refused = 0
        self.left = 0
        self.follower: Follower | None = None
        self._resends = Resends(journal_path, table_id)
        self._flight = InFlight(settings, table_id)
        self._live, self._resent = self._flight.live, self._flight.resent
        self._acked_here = False  # a message was acknowledged on this connection
        self._lost_unacked = False  # connections were lost before anything was acknowledged
        self._inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._drain_until = 0.0
        self._client: Any = None
        self._net: NetLoop | None = None  # the current client's network loop
        self._unreachable = False  # the last attempt to connect failed
        self._refused = False  # the broker refused this connection (said already)
        self._yielded = False  # this connection was closed for another table with our id
        self._retry_at = 0.0
        self._retry_s = RETRY_S[0]
        self._saved_at = 0.0
        self._status_at = 0.0  # when ``online`` was last sent
        self._throttle = Throttle(log)  # problems that recur: once a minute
        self.witness = WitnessState()
        self.on_witness_problem: Any = None
        self.on_device: Any = None
        self._outage = Outage()
        self._witness_read = False  # a witness came on this connection
        self._thread = threading.Thread(target=self._guarded, name="floor", daemon=True)

    # ------------------------------------------------------------------ the table's side
    def start(self) -> FloorPublisher:
        """Start the feed's thread. Returns self."""
        self._thread.start()
        return self

    def wake(self, *_args: Any) -> None:
        """Read the journal now (the table calls it after a commit; it only sets an event)."""
        self._wake.set()

    def stop(self, drain_s: float | None = None) -> None:
        """Stop: send what is left for up to ``drain_s`` s, set ``status`` offline, keep the cursor.

        An unreachable broker stops it at once: the journal keeps the rest for the next start.
        """
        drain_s = self.drain_s if drain_s is None else drain_s
        self._drain_until = time.monotonic() + drain_s
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(drain_s + 10.0)

    @property
    def published(self) -> int:
        """Messages published since the start (again after a refusal or a reconnection)."""
        return self._flight.published

    @property
    def alive(self) -> bool:
        """The feed's thread runs."""
        return self._thread.is_alive()

    @property
    def genesis(self) -> str:
        """The hash of the journal's first event: the journal's name on the floor."""
        return self.follower.genesis if self.follower is not None else ""

    # ------------------------------------------------------------------ the thread
    def _guarded(self) -> None:
        while True:
            try:
                self._run()
                return
            except Exception as exc:  # noqa: BLE001 - the feed starts again; the table goes on
                self._throttle.log("error", logging.ERROR, "floor: the feed stopped on an "
                                   "error (%r); it starts again from the journal in %.0f s",
                                   exc, RESTART_S, exc_info=exc)
            if self._stop.wait(RESTART_S):
                return

    def _run(self) -> None:
        try:
            outbox = Outbox(self.path)
            cursor, journal = outbox.read()
            follower = Follower(self.path, self.table_id, after=cursor, pause=self._pace)
            if journal and journal != follower.genesis:  # another journal's cursor
                follower.close()
                cursor, follower = 0, Follower(self.path, self.table_id)
        except (JournalError, ReplayError, OSError) as exc:
            log.error("floor: cannot read the journal %s: %s; no floor feed", self.path, exc)
            return
        except Exception as exc:  # noqa: BLE001 - sqlite3.Error: the cursor cannot be kept
            log.error("floor: cannot keep the feed's cursor in %s: %s; no floor feed",
                      self.path, exc)
            return
        self.follower, self.cursor, self._started_at = follower, cursor, cursor
        log.info("floor: table %s feeds %s from journal event %d", self.table_id,
                 self.settings.broker, cursor)
        try:
            while True:
                t = time.perf_counter()
                busy = self._step(outbox)
                if self._stop.is_set() and (self._drained() or self._unreachable
                                            or time.monotonic() >= self._drain_until):
                    break
                if not busy:
                    self._wake.wait(IDLE_POLL_S)
                else:
                    self._pace(time.perf_counter() - t)
                self._wake.clear()
        finally:
            self._close(outbox)

    def _pace(self, work_s: float) -> None:
        """Rest after ``work_s`` seconds of work: the feed takes :data:`FEED_SHARE` at most."""
        if not self._stop.is_set():
            self._stop.wait(work_s * (1.0 / FEED_SHARE - 1.0))

    def _step(self, outbox: Outbox) -> bool:
        dead = self._client is not None and not self._net.alive  # before its last words
        busy = self._take_callbacks()
        if dead and self._client is not None:  # it died without saying the connection went
            self._net_died()
        self._outage.due(self.on_device)
        self._keep_connected()
        if self.connected and time.monotonic() - self._status_at >= STATUS_EVERY_S:
            self._online()
        busy |= self._fill()
        busy |= self._send()
        if time.monotonic() - self._saved_at >= SAVE_EVERY_S or self._stop.is_set():
            self._save(outbox)
        return busy

    def _drained(self) -> bool:
        return not self._live and not self._resent and self.follower is not None \
            and self.follower.head() <= self.follower.position

    # ------------------------------------------------------------------ the journal
    def _fill(self) -> bool:
        made = False
        f = self.follower
        if f is not None and len(self._live) < AHEAD:
            msgs = f.poll(CHUNK)
            if msgs is not None:
                self._live.extend(Entry(m) for m in msgs)
                made = True
            if (note := f.withheld_note()) is not None:
                self._warn("withheld", "%s", note)
        if len(self._resent) < AHEAD:
            msgs = self._resends.poll(CHUNK, self._pace)
            if msgs is not None:
                self._resent.extend(Entry(m) for m in msgs)
                made = True
        return made

    def _moved_cursor(self) -> None:
        for q in (self._live, self._resent):
            while q and q[0].acked:
                q.popleft()
        if self._live:
            self.cursor = max(self.cursor, self._live[0].msg.seq - 1)
        elif self.follower is not None:
            self.cursor = max(self.cursor, self.follower.position)

    def _save(self, outbox: Outbox) -> None:
        self._saved_at = time.monotonic()
        try:
            outbox.write(self.cursor, self.genesis)
        except Exception as exc:  # noqa: BLE001 - sqlite3.Error: kept in memory, tried again
            self._warn("cursor", "floor: the feed's cursor could not be written (%s); tried "
                       "again shortly", exc)

    # ------------------------------------------------------------------ the broker
    def _post(self, *item: Any) -> None:
        self._inbox.put(item)
        self._wake.set()

    def _keep_connected(self) -> None:
        if self._client is not None or time.monotonic() < self._retry_at:
            return
        s = self.settings
        try:  # the password file and TLS files are read again at each connection
            c = s.client(self.client_id, table_id=self.table_id, reconnect_on_failure=False)
        except FloorError as exc:  # a file replaced or unreadable for a moment: try again
            self._warn("settings", "floor: %s; the journal keeps the feed, trying again", exc)
            self._unreachable = True
            self._retry_s = RETRY_S[1]
            self._later()
            return
        self._connection = time.time_ns() // 1000
        c.will_set(s.topic(self.table_id, "status"), self._status("offline"), qos=1,
                   retain=True)
        c.max_inflight_messages_set(WINDOW)
        c.on_connect = lambda cl, _u, _f, rc, props: self._post("connect", cl, rc, props)
        c.on_disconnect = lambda cl, _u, _f, rc, _p: self._post("lost", cl, rc)
        c.on_publish = lambda cl, _u, mid, rc, _p: self._post("ack", cl, mid, rc)
        c.on_message = lambda cl, _u, m: self._post("message", cl, m)
        net = NetLoop(c, KEEPALIVE_S, name=f"floor-net {self.table_id}")
        try:
            s.connect(c, clean_start=True)
        except (OSError, ValueError) as exc:
            net.stop()
            why = unreachable_why(s, exc) if isinstance(exc, OSError) else str(exc)
            self._warn("connect", "floor: broker %s unreachable (%s); the journal keeps the "
                       "feed, trying again", s.broker, why)
            self._unreachable = True
            self._witness_unread(f"broker {s.broker} unreachable ({why})")
            self._later()
            return
        self._client, self._net = c, net.start()

    def _later(self) -> None:
        self._retry_at = time.monotonic() + self._retry_s
        self._retry_s = min(self._retry_s * 2, RETRY_S[2 if self._lost_unacked else 1])

    def _warn(self, kind: str, msg: str, *args: Any) -> None:
        self._throttle.log(kind, logging.WARNING, msg, *args)

    def _take_callbacks(self) -> bool:
        busy = False
        while True:
            try:
                kind, client, *rest = self._inbox.get_nowait()
            except queue.Empty:
                return busy
            busy = True
            if client is not self._client:
                continue  # from a connection already dropped
            getattr(self, f"_on_{kind}")(*rest)

    def _on_connect(self, rc: Any, props: Any = None) -> None:
        if rc.is_failure:
            self._throttle.log("refused", logging.ERROR, "floor: broker %s refused the "
                               "connection of table %s: %s (check its user and password, "
                               "and that the broker binds its user to the client id %s)",
                               self.settings.broker, self.table_id, rc, self.client_id)
            self._refused = True
            self._retry_s = RETRY_S[1]
            self._witness_unread(f"broker {self.settings.broker} refused the connection "
                                 f"({rc})")
            return  # the broker closes it: "lost" follows
        self.connected = True
        self._unreachable = False
        self._acked_here = False  # the waits start again once a message is acknowledged
        self._accepted_at = time.monotonic()
        self._flight.limit = getattr(props, "MaximumPacketSize", None)
        limit = self._flight.packet_limit
        log.info("floor: connected to %s as %s%s", self.settings.broker, self.client_id,
                 f" (packets of at most {limit} bytes)" if limit else "")
        s, c = self.settings, self._client
        self._witness_read = False
        # the witness first (its retained copy comes before our own online comes back),
        # and the status the broker holds (the last will of a table that connected with
        # our client id in between says so: _on_status), then ours
        c.subscribe([(s.topic(self.table_id, "witness"), 1),
                     (s.topic(self.table_id, "resend"), 1),
                     (s.topic(self.table_id, "status"), 1)])
        self._online()
        self._flight.reset()  # everything not acknowledged goes again, in order
        if self.follower is not None and self.follower.position:
            self._live.extend(Entry(m) for m in self.follower.latest())

    def _net_died(self) -> None:
        self._throttle.log("net", logging.ERROR, "floor: the network thread of table %s's "
                           "connection to %s ended without a word; connecting again",
                           self.table_id, self.settings.broker)
        sock = self._client.socket()
        if sock is not None:  # the broker sees the connection end (the last will)
            sock.close()
        self._on_lost(ReasonCode(PacketTypes.DISCONNECT, "Unspecified error"))

    def _on_lost(self, rc: Any) -> None:
        self._client = None
        s = self.settings
        if self.connected:
            self._before = self._connection
            self._outage.lost(str(rc))
        if self.connected and rc.is_failure and rc != PACKET_TOO_LARGE:  # by the broker
            quick = time.monotonic() - self._accepted_at < QUICK_S
            self._quick = self._quick + 1 if quick else 0
        if self._yielded:
            self._retry_s = YIELD_S
        elif self._quick >= QUICK_LOSSES:
            self._quick = 0
            self._retry_s = YIELD_S
            self._throttle.log("taken", logging.ERROR, "floor: broker %s closed the "
                               "connection of table %s %d times in a row within %.0f s of "
                               "accepting it: another client connects with its client id %s "
                               "(another table with its id? Each table needs an id of its "
                               "own); this table's feed waits and tries again in %.0f s",
                               s.broker, self.table_id, QUICK_LOSSES, QUICK_S,
                               self.client_id, YIELD_S)
        elif self.connected and rc == PACKET_TOO_LARGE \
                and (learned := self._flight.too_large()) is not None:
            self._warn("lost", "floor: broker %s closed the connection on a packet too large "
                       "for it without saying its limit: messages over %d bytes go in parts",
                       s.broker, learned)
        elif self.connected:
            self._warn("lost", "floor: connection to %s lost (%s); the journal keeps the feed",
                       s.broker, rc)
        elif not self._refused:
            self._warn("closed", "floor: broker %s closed the connection before accepting it "
                       "(%s): is the port a TLS one (mqtts://), or no MQTT broker's? The "
                       "journal keeps the feed, trying again", s.broker, rc)
            self._witness_unread(f"broker {s.broker} closed the connection ({rc})")
        if self.connected and not self._acked_here and not self._yielded:
            self._lost_unacked = True  # the waits double on, up to RETRY_S[2]
        self._refused = self._yielded = False
        self.connected = False
        self._unreachable = True
        self._flight.reset()
        self._net.stop()
        self._later()

    def _on_ack(self, mid: int, rc: Any) -> None:
        e, outcome = self._flight.ack(mid, rc)
        if outcome == "refused":  # not acknowledged: sent again after a pause, connected
            self.refused += 1
            self._warn(f"refused {e.msg.name}", "floor: broker refused a %s message (%s): "
                       "check the ACL lets table %s publish under %s; the journal keeps the "
                       "feed, sent again in %.0f s", e.msg.name, rc, self.table_id,
                       self.settings.topic(self.table_id, "#"), self._flight.refused_wait_s)
        elif outcome == "acked":
            self.acknowledged += 1
            self._acked_here = True
            self._lost_unacked = False
            self._retry_s = RETRY_S[0]
            self._outage.back(self.on_device, "a message acknowledged")
            self._throttle.clear("connect", "closed", "settings", "lost", "too small",
                                 f"refused {e.msg.name}")
            self._moved_cursor()

    def _on_message(self, m: Any) -> None:
        if m.topic.endswith("/status"):
            self._on_status(m.payload)
            return
        if m.topic.endswith("/witness"):
            self._on_witness(m.payload)
            return
        try:
            ask = decode(ResendRequest.name, m.payload)
        except ValueError as exc:
            log.warning("floor: resend request refused: %s", exc)
            return
        if self.follower is not None:
            self._resends.ask(ask, self.genesis, self.follower.position)

    def _online(self) -> None:
        self._status_at = time.monotonic()
        self._client.publish(self.settings.topic(self.table_id, "status"),
                             self._status("online"), qos=1, retain=True)

    def _status(self, status: str, stopped: bool = False) -> bytes:
        return stamped(StatusMessage(table=self.table_id, journal=self.genesis,
                                     status=status, connection=self._connection,
                                     stopped=stopped))[0]

    def _send(self) -> bool:
        if self._client is None or not self.connected:
            return False
        sent = self._flight.send(self._client)
        if self._flight.problem is not None:
            self._throttle.log("too small", logging.ERROR, "floor: broker %s: %s; raise its "
                               "max_packet_size (the journal keeps the feed, which waits)",
                               self.settings.broker, self._flight.problem)
            self._flight.problem = None
        return sent

    def _close(self, outbox: Outbox) -> None:
        c = self._client
        if c is not None:
            if self.connected:
                info = c.publish(self.settings.topic(self.table_id, "status"),
                                 self._status("offline", stopped=True), qos=1, retain=True)
                try:
                    info.wait_for_publish(1.0)
                except (RuntimeError, ValueError):
                    pass  # the connection went: the last will says it
            self._net.stop(disconnect=True)
        self.connected = False
        self._moved_cursor()
        self._save(outbox)
        outbox.close()
        head = self.cursor
        if self.follower is not None:
            head = max(self.cursor, self.follower.head())
            self.left = head - self.cursor
            self.follower.close()
        self._resends.close()
        self._client = None  # a start again begins afresh, from the cursor
        self._flight.clear()
        # one count, in journal events: done (acknowledged, or nothing to send) + left = all
        log.info("floor: feed stopped: %d of the journal's %d event(s) done (acknowledged by "
                 "the broker, or nothing to send), %d left; this run started after event %d "
                 "and had %d message(s) acknowledged", self.cursor, head, self.left,
                 self._started_at, self.acknowledged)
        if self.left and self.resume:
            log.warning("floor: the broker did not acknowledge the last %d journal event(s) "
                        "(%d to %d); the journal keeps them: `%s` sends them", self.left,
                        self.cursor + 1, head, self.resume)
