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

    recorder = Recorder(store, ask, witness=witness, shared=bool(share))

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
        c.subscribe([(f"$share/{share}/{t}" if share else t, q)
                     for t, q in routes.subscriptions(SUBSCRIBED)])
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
    log.info("floor: recorder storing to %s from %s%s", store_path, settings.broker,
             f" (shared subscription group {share})" if share else "")
    wait_s = 0.5
    while True:  # the first connection here, so that why it fails is said
        try:
            settings.connect(client, clean_start=False,
                             session_expiry_s=0 if share else SESSION_EXPIRY_S)
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
        stop.set()  # stopping: the disconnection is no loss to reconnect from
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
