"""The recorder connected to the broker: :func:`serve`.

A persistent session keeps the messages of a recorder that is down; each message is
committed to the store before its acknowledgement goes back (manual acknowledgement), so a
store that cannot be written stops the recorder with the rest still held by the broker.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec

from floor.messages import ResendRequest, WitnessMessage, encode
from floor.mqtt import KEEPALIVE_S, FloorSettings, Throttle, unreachable_why
from floor.netloop import NetLoop
from floor.parts import packet_size
from floor.pits import Routes
from floor.recorder import Recorder
from floor.store import Store

log = logging.getLogger("threecard.floor")

CHECK_EVERY_S = 0.25
# Seconds between the recorder's "I run" writes to the store (``floor status`` reads them).
HEARTBEAT_S = 5.0
# A shared-subscription recorder keeps no session: the broker would go on giving a recorder
# that is down its share; the others ask the tables for it instead.
SESSION_EXPIRY_S = 7 * 24 * 3600
SUBSCRIBED = ("round", "event", "meters", "state", "status")
# MQTT 5 "Session taken over": another client connected with our client id.
TAKEN_OVER = 0x8E
QUICK_S = 10.0
# Connections lost within QUICK_S this many times: a broker that does not say "taken over".
QUICK_LOSSES = 3


def share_group(name: str) -> str:
    """A shared subscription's group name as ``--share`` takes it.

    Raises:
        ValueError: empty, or holding ``/``, ``+`` or ``#`` (MQTT forbids them there).
    """
    if not name or any(c in name for c in "/+#") or len(name) > 64 or not name.isprintable():
        raise ValueError(f"{name!r} is not a shared subscription group (1 to 64 characters, "
                         "none of / + #)")
    return name


def serve(settings: FloorSettings, store_path: str, client_id: str,
          stop: threading.Event | None = None, share: str = "") -> int:
    """Run the recorder until ``stop`` is set (the command sets it on SIGTERM or SIGINT).

    Args:
        settings: the broker, TLS files, credentials and topic prefix.
        store_path: a SQLite file (created when missing) or a ``postgresql://`` URL.
        client_id: the recorder's client id: its persistent session on the broker.
        stop: set to stop.
        share: a shared subscription's group (``$share/<group>/...``): each message goes
            to one recorder of the group, all writing the same store; empty: every message.

    Returns:
        0 after a clean stop; 1 when the store cannot be written (the broker keeps what was
        not stored) or the recorder failed; 2 when its session was taken over by another
        client with its id. A message the store refuses for its content is acknowledged.

    Raises:
        StoreError: the store cannot be opened.
        FloorError: a setting cannot be used.
    """
    settings.check()
    if share:
        share_group(share)
    settings.warn_open_secrets(log, as_option=True)
    return _Session(settings, Store(store_path), client_id, stop or threading.Event(),
                    share).run()


class _Session:
    """The recorder on one client of the broker: paho's callbacks and the checking loop."""

    def __init__(self, settings: FloorSettings, store: Store, client_id: str,
                 stop: threading.Event, share: str) -> None:
        self.settings, self.store, self.client_id = settings, store, client_id
        self.stop, self.share = stop, share
        self.store_path, self.db_errors = store.path, store.db.errors  # the URL, no password
        self.lock = threading.Lock()
        self.failed: list[str] = []
        self.taken: list[str] = []
        self.client = settings.client(client_id, manual_ack=True)
        self.routes = Routes(settings)  # every pit's tables; each answered under its prefix
        self.recorder = Recorder(store, self.ask, witness=self.witness, shared=bool(share))
        self.throttle = Throttle(log)  # a broker refusing or away: said once a minute
        # the broker as floor status shows it: since when it cannot be reached (None: it can)
        self.state: dict[str, Any] = {"connected": False, "refused": False, "limit": None,
                                      "lost_us": time.time_ns() // 1000,
                                      "why": "not yet connected", "heard": False}
        self.losses: deque[float] = deque(maxlen=QUICK_LOSSES)  # when connections were lost

    def ask(self, table: str, req: ResendRequest) -> None:
        self.client.publish(self.routes.topic(table, "resend"), encode(req), qos=1)

    def witness(self, table: str, w: WitnessMessage) -> None:
        topic = self.routes.topic(table, "witness")
        payload = encode(msgspec.structs.replace(w, sent_us=time.time_ns() // 1000))
        limit = self.state["limit"]
        if limit and packet_size(topic, payload) > limit:  # the broker would close on it
            self.throttle.log(f"witness {table}", logging.ERROR, "floor: the witness of table "
                              "%s (%d journals) is larger than broker %s takes (%d bytes): "
                              "not published; raise its max_packet_size", table,
                              len(w.journals), self.settings.broker, limit)
            return
        self.client.publish(topic, payload, qos=1, retain=True)

    def guarded(self, fn: Callable[..., None]) -> Callable[..., None]:
        """A paho callback that never dies quietly: an error stops the recorder (exit 1)."""
        def call(*args: Any) -> None:
            try:
                fn(*args)
            except Exception as exc:  # noqa: BLE001 - paho's thread must not die deaf
                log.error("floor: the recorder failed", exc_info=exc)
                self.failed.append(f"an error in the recorder: {exc!r}")
                self.stop.set()
        return call

    def beat(self, stopped: bool = False) -> None:
        self.store.beat(self.client_id, time.time_ns() // 1000, stopped, self.settings.broker,
                        self.state["lost_us"], self.state["why"])

    def lost(self, why: str) -> None:
        if self.state["lost_us"] is None:
            self.state["lost_us"] = time.time_ns() // 1000
        self.state["why"] = why

    def on_connect(self, c, _u, flags, rc, props) -> None:  # noqa: ANN001 - paho's callback
        state = self.state
        if rc.is_failure:
            self.throttle.log("refused", logging.ERROR, "floor: broker %s refused the "
                              "recorder: %s (check --username and --password-file, and that "
                              "the broker binds the user to the client id %s); trying again",
                              self.settings.broker, rc, self.client_id)
            state["refused"] = True
            self.lost(f"it refused the recorder: {rc}")
            return
        state["connected"] = True
        state["limit"] = getattr(props, "MaximumPacketSize", None)
        state["lost_us"], state["why"] = None, ""
        if state["heard"]:  # the last connection carried messages: its problems are over
            self.throttle.clear("refused", "lost", "closed", "unreachable")
        state["heard"] = False
        log.info("floor: recorder connected to %s as %s (session %s)", self.settings.broker,
                 self.client_id, "resumed" if flags.session_present else "new")
        c.subscribe([(f"$share/{self.share}/{t}" if self.share else t, q)
                     for t, q in self.routes.subscriptions(SUBSCRIBED)])
        with self.lock:  # a broker started again without persistence lost the retained ones
            for table in self.store.witnessed():
                self.recorder.witness(table)

    def on_message(self, c, _u, m) -> None:  # noqa: ANN001
        self.state["heard"] = True
        where = self.routes.heard(m.topic)
        if where is not None and where[1] in SUBSCRIBED:
            try:
                with self.lock:
                    self.recorder.on_message(where[0], where[1], m.payload, bool(m.retain))
            except self.db_errors as exc:
                if not self.store.db.message_fault(exc):  # not acknowledged: the broker keeps it
                    self.failed.append(f"the store {self.store_path} cannot be written: {exc}")
                    self.stop.set()
                    return
                self.recorder.refuse(where[0], f"the store cannot hold it: {exc}")
            except Exception as exc:  # noqa: BLE001 - one message never stops the recorder
                log.error("floor: a message on %s could not be stored; refused", m.topic,
                          exc_info=exc)
                self.recorder.counts["refused"] += 1
        c.ack(m.mid, m.qos)  # stored (or refused for good): the broker may drop it

    def on_disconnect(self, _c, _u, _f, rc, _p) -> None:  # noqa: ANN001
        state = self.state
        if self.stop.is_set():
            return
        if not state["refused"]:
            self.lost(f"connection lost: {rc}" if state["connected"] else f"closed: {rc}")
        if state["connected"]:
            if self._taken_over(rc):
                self.stop.set()
                return
            self.throttle.log("lost", logging.WARNING, "floor: recorder lost the broker (%s); "
                              "reconnecting", rc)
        elif not state["refused"]:
            self.throttle.log("closed", logging.WARNING, "floor: broker %s closed the "
                              "connection before accepting it (%s): is the port a TLS one "
                              "(mqtts://), or no MQTT broker's? Trying again",
                              self.settings.broker, rc)
        state["connected"] = state["refused"] = False

    def _taken_over(self, rc: Any) -> bool:  # noqa: ANN401 - paho's reason code
        self.losses.append(time.monotonic())
        losses = self.losses
        quick = len(losses) == QUICK_LOSSES and losses[-1] - losses[0] < QUICK_S
        if taken := rc == TAKEN_OVER or quick:
            self.taken.append(f"its session on {self.settings.broker} was taken over by "
                              f"another client with the client id {self.client_id} ("
                              + ("the broker said so" if rc == TAKEN_OVER else
                                 f"{QUICK_LOSSES} connections lost within {QUICK_S:.0f} s")
                              + "): is another `threecard floor serve` running with it? Give "
                              "each recorder a user of its own (a --client-id of its own on "
                              "a broker without users)")
        return taken

    def on_connect_fail(self, _c, _u) -> None:  # noqa: ANN001
        self.lost("unreachable")
        self.throttle.log("unreachable", logging.WARNING, "floor: broker %s unreachable; "
                          "trying again", self.settings.broker)

    def run(self) -> int:  # the exit status of serve()
        client = self.client
        client.on_connect, client.on_message = (self.guarded(self.on_connect),
                                                self.guarded(self.on_message))
        client.on_disconnect = self.guarded(self.on_disconnect)
        client.on_connect_fail = self.guarded(self.on_connect_fail)
        log.info("floor: recorder storing to %s from %s%s", self.store_path,
                 self.settings.broker,
                 f" (shared subscription group {self.share})" if self.share else "")
        if not self._first_connect():
            return 0
        self._check_until_stopped()
        for why in (self.taken or self.failed)[:1]:
            log.error("floor: recorder stopped: %s", why)
        return 2 if self.taken else 1 if self.failed else 0

    def _first_connect(self) -> bool:
        """Connect here, so that why it fails is said; False: stopped before it could."""
        wait_s = 0.5
        while True:
            try:
                self.settings.connect(self.client, clean_start=False,
                                      session_expiry_s=0 if self.share else SESSION_EXPIRY_S)
                return True
            except OSError as exc:
                self.lost(f"unreachable: {getattr(exc, 'strerror', None) or exc}")
                self.throttle.log("unreachable", logging.WARNING, "floor: broker %s "
                                  "unreachable (%s); trying again", self.settings.broker,
                                  unreachable_why(self.settings, exc))
            with contextlib.suppress(self.db_errors):  # a store that cannot be written:
                self.beat()                            # said later
            if self.stop.wait(wait_s):
                with contextlib.suppress(self.db_errors):
                    self.beat(stopped=True)
                self.store.close()
                return False
            wait_s = min(wait_s * 2, 5.0)

    def _check_until_stopped(self) -> None:  # the network loop reconnects
        net = NetLoop(self.client, KEEPALIVE_S, reconnect=True).start()
        beaten, said = 0.0, self.state["lost_us"]
        try:
            while not self.stop.wait(CHECK_EVERY_S):
                if not net.alive:  # its thread died: a new one takes the connection on
                    log.error("floor: the recorder's network thread ended; started again")
                    net = NetLoop(self.client, KEEPALIVE_S, reconnect=True).start()
                with self.lock:
                    self.recorder.check()
                    if (time.monotonic() - beaten >= HEARTBEAT_S
                            or self.state["lost_us"] != said):
                        beaten, said = time.monotonic(), self.state["lost_us"]
                        self.beat()
        except self.db_errors as exc:
            self.failed.append(f"the store {self.store_path} cannot be read: {exc}")
        except Exception as exc:  # noqa: BLE001 - stop with a reason, never linger
            log.error("floor: the recorder failed", exc_info=exc)
            self.failed.append(f"an error in the recorder: {exc!r}")
        finally:
            self.stop.set()  # stopping: the disconnection is no loss to reconnect from
            net.stop(disconnect=True)
            with self.lock, contextlib.suppress(self.db_errors):
                self.beat(stopped=True)
            with self.lock:
                self.store.close()
            log.info("floor: recorder stopped: %s", ", ".join(
                f"{v} {k}" for k, v in self.recorder.counts.items()))
