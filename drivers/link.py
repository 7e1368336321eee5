"""ShoeLink: one reader thread per shoe that keeps the link up and posts events.

Reconnects, silence and the wrong-dialect hint: docs/shoe-frames.md, "The link".
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from controller.game.events import (
    LINK_STOPPED,
    LinkState,
    LinkStatus,
    NoFrameDecoded,
    ShoeEvent,
)
from drivers.dialects import (
    DIALECTS,
    Decoder,
    DecoderStats,
    dialect_named,
    make_decoder,
    make_encoder,
)
from drivers.transports import Connector, Transport, TransportError

log = logging.getLogger(__name__)

# Milliseconds of undecodable bytes (at least NO_FRAME_MIN_BYTES: fewer are line noise,
# shorter than any card frame) before the link asks whether the dialect is right.
NO_FRAME_AFTER_MS = 5000
NO_FRAME_MIN_BYTES = 16
# Seconds without a byte after connecting before a link that never writes asks about its
# dialect (a native shoe on TCP waits for the host's PING).
UNHEARD_AFTER_S = 5.0


@dataclass(slots=True)
class LinkCounters:
    """What a link has done since it started (mutable; read from any thread)."""

    connects: int = 0
    disconnects: int = 0
    open_failures: int = 0
    silences: int = 0
    crashes: int = 0
    bytes_read: int = 0
    undecoded_bytes: int = 0
    unheard_hints: int = 0
    no_frame_hints: int = 0
    events: int = 0
    decoder: DecoderStats = field(default_factory=DecoderStats)

    @property
    def frame_errors(self) -> dict[str, int]:
        """Dropped frames by reason: ``{"crc": n, "malformed": n, "oversize": n}``."""
        return self.decoder.frame_errors


class ShoeLink:
    """The reader thread of one shoe; times in seconds.

    Args:
        connector: finds and opens the port (anew at every connect).
        dialect: a name of :data:`drivers.dialects.DIALECTS`.
        events: the queue that receives shoe events and :class:`LinkStatus` events.
        silence_timeout: without a line, ``SILENT`` (heartbeat dialects); 0: never.
        backoff_initial: first wait after a failure.
        backoff_max: longest wait between attempts.
        ping_on_connect: send ``PING`` right after connecting (heartbeat dialects only).
        unheard_after: without a byte after connecting, ask about the dialect; 0: never.
        name: thread name.
    """

    def __init__(self, connector: Connector, dialect: str, events: queue.Queue[Any], *,
                 silence_timeout: float = 3.0, backoff_initial: float = 0.1,
                 backoff_max: float = 5.0, ping_on_connect: bool = True,
                 unheard_after: float = 0.0, name: str | None = None) -> None:
        self.connector = connector
        self.dialect = dialect
        self.events = events
        self.decoder: Decoder = make_decoder(dialect)
        heartbeat = dialect_named(dialect).heartbeat
        self._pinger: Any = make_encoder(dialect) if heartbeat else None
        self.silence_timeout = silence_timeout if heartbeat else 0.0
        self.backoff_initial = max(0.01, backoff_initial)
        self.backoff_max = max(self.backoff_initial, backoff_max)
        self.ping_on_connect = ping_on_connect and heartbeat
        self.unheard_after = 0.0 if heartbeat else max(0.0, unheard_after)
        self.counters = LinkCounters(decoder=self.decoder.stats)
        self.simulator: Any = None
        self._name = name or f"shoe-link {connector.description}"
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._transport: Transport | None = None
        self._state = LinkState.DISCONNECTED
        self._detail = "not started"
        self._ping_seq = 0
        self._undecoded_since: float | None = None
        self._no_frame_raised = False
        self._probes: dict[str, Decoder] = {}
        self._heard_as: str | None = None
        self._unheard_since: float | None = None
        self._unheard_raised = False

    # -- public ------------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        """The current link state."""
        return self._state

    @property
    def detail(self) -> str:
        """The operator message of the current state."""
        return self._detail

    @property
    def alive(self) -> bool:
        """True while the reader thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the reader thread (once; RuntimeError if already started)."""
        if self._thread is not None:
            raise RuntimeError("a ShoeLink can be started once")
        self._thread = threading.Thread(target=self._main, name=self._name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop the thread and close the port, even during a blocked read; True once it ended."""
        self._stop.set()
        transport = self._transport
        if transport is not None:
            transport.cancel()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        ended = thread is None or not thread.is_alive()
        if ended:
            self.connector.close()
        return ended

    def ping(self) -> bool:
        """Send ``PING`` (heartbeat dialects); True if it was written."""
        transport = self._transport
        if transport is None or self._pinger is None:
            return False
        with self._lock:
            seq = self._ping_seq
            self._ping_seq = (seq + 1) % 65536
        try:
            transport.write(self._pinger.ping(seq))
        except TransportError as exc:
            log.info("PING not sent: %s", exc.message)
            return False
        return True

    # -- thread ------------------------------------------------------------------------

    def _put(self, event: ShoeEvent) -> None:
        while True:
            try:
                self.events.put(event, timeout=0.5)
                return
            except queue.Full:
                if self._stop.is_set():
                    log.error("queue full at stop: event not delivered: %r", event)
                    return

    def _set_state(self, state: LinkState, detail: str) -> None:
        if state == self._state and detail == self._detail:
            return
        self._state = state
        self._detail = detail
        # a link going down because it was told to stop is no alarm
        level = logging.INFO if state in (LinkState.ONLINE, LinkState.CONNECTING) or (
            self._stop.is_set()) else logging.WARNING
        log.log(level, "shoe %s: %s: %s", self.connector.description, state.value, detail)
        self._put(LinkStatus(state=state, detail=detail))

    def _main(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # the thread must never die silently
            self.counters.crashes += 1
            log.exception("shoe link thread crashed")
            self._set_state(LinkState.DISCONNECTED, f"shoe link stopped by an internal "
                                                    f"error: {exc!r}")
            return
        self._set_state(LinkState.DISCONNECTED, LINK_STOPPED)

    def _run(self) -> None:
        delay = self.backoff_initial
        self._set_state(LinkState.CONNECTING, f"connecting to {self.connector.description}")
        while not self._stop.is_set():
            try:
                transport = self.connector.open()
            except Exception as exc:  # noqa: BLE001 - reported, then the link tries again
                self.counters.open_failures += 1
                if isinstance(exc, TransportError):
                    message = exc.message
                else:
                    self.counters.crashes += 1
                    log.exception("shoe link: opening %s failed", self.connector.description)
                    message = (f"internal error opening {self.connector.description}: "
                               f"{exc!r}; retrying")
                self._set_state(LinkState.DISCONNECTED, message)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            self._transport = transport
            try:
                if self._stop.is_set():
                    break
                self.counters.connects += 1
                self.decoder.reset()
                self._set_state(LinkState.ONLINE, f"connected to {transport.name}")
                delay = self.backoff_initial
                self._pump(transport)
            except TransportError as exc:
                if self._stop.is_set():
                    break
                self.counters.disconnects += 1
                self._set_state(LinkState.DISCONNECTED, exc.message)
            except Exception as exc:  # noqa: BLE001 - reported, then the link tries again
                self.counters.crashes += 1
                log.exception("shoe link error on %s", transport.name)
                self._set_state(LinkState.DISCONNECTED,
                                f"internal error on {transport.name}: {exc!r}; reconnecting")
            finally:
                self._transport = None
                transport.close()
            self._stop.wait(delay)
            delay = min(delay * 2, self.backoff_max)

    def _count_undecoded(self, nbytes: int, decoded: bool, now: float) -> None:
        """Count bytes that decoded to no frame; a decoded frame ends the episode."""
        c = self.counters
        if decoded:
            c.undecoded_bytes = 0
            self._undecoded_since = None
            if self._heard_as is not None:
                self._heard_as = None
                for probe in self._probes.values():
                    probe.reset()
            if self._no_frame_raised:
                self._no_frame_raised = False
                log.info("shoe %s: frames decode again (%s dialect)",
                         self.connector.description, self.dialect)
                self._put(NoFrameDecoded(dialect=self.dialect, cleared=True))
            return
        if self._undecoded_since is None:
            self._undecoded_since = now
        c.undecoded_bytes += nbytes

    def _hear_other(self, data: bytes) -> str | None:
        """The other dialect the undecoded bytes make frames in (None until one does)."""
        if self._heard_as is None:
            for name, probe in self._probes.items():
                frames = probe.stats.frames
                probe.feed(data)
                if probe.stats.frames > frames:
                    self._heard_as = name
                    break
        return self._heard_as

    def _check_no_frame(self, now: float) -> None:
        """Say once per episode that bytes arrive but no frame decodes."""
        since = self._undecoded_since
        nbytes = self.counters.undecoded_bytes
        heard = self._heard_as
        if self._no_frame_raised or since is None or heard is None and (
                nbytes < NO_FRAME_MIN_BYTES or (now - since) * 1000 < NO_FRAME_AFTER_MS):
            return
        self._no_frame_raised = True
        self.counters.no_frame_hints += 1
        hint = NoFrameDecoded(nbytes=nbytes, dialect=self.dialect)
        also = "" if heard is None else f"; the bytes decode as the {heard} dialect"
        log.warning("shoe %s: %s (this link decodes the %s dialect%s)",
                    self.connector.description, hint.message, self.dialect, also)
        self._put(hint)

    def _check_unheard(self, now: float, heard: bool) -> None:
        """Say once that no byte came since the connection opened (reconnections included)."""
        since = self._unheard_since
        if since is None:
            return
        if heard:
            self._unheard_since = None
            if self._unheard_raised:
                self._unheard_raised = False
                log.info("shoe %s: heard from the shoe", self.connector.description)
                self._put(NoFrameDecoded(dialect=self.dialect, cleared=True))
        elif not self._unheard_raised and now - since >= self.unheard_after:
            self._unheard_raised = True
            self.counters.unheard_hints += 1
            hint = NoFrameDecoded(nbytes=0, dialect=self.dialect)
            log.warning("shoe %s: %s", self.connector.description, hint.message)
            self._put(hint)

    def _pump(self, transport: Transport) -> None:
        silence = self.silence_timeout
        tick = min(0.5, silence / 4) if silence > 0 else 0.5
        if self.ping_on_connect:
            self.ping()
        last_line = time.monotonic()
        silent_since: float | None = None
        last_ping = last_line
        self.counters.undecoded_bytes = 0  # a new connection: count afresh
        self._undecoded_since = None
        self._probes = {name: make_decoder(name) for name in DIALECTS if name != self.dialect}
        self._heard_as = None
        self._unheard_since = last_line if self.unheard_after > 0 else None
        while not self._stop.is_set():
            data = transport.read(tick)
            now = time.monotonic()
            events: list[ShoeEvent] = []
            talking = False
            if data:
                self.counters.bytes_read += len(data)
                frames = self.decoder.stats.frames
                events = self.decoder.feed(data)
                decoded = self.decoder.stats.frames > frames
                self._count_undecoded(len(data), decoded, now)
                # another dialect heard: the shoe talks, if not in this link's dialect
                talking = bool(events) or not decoded and self._hear_other(data) is not None
            self._check_unheard(now, bool(data))
            self._check_no_frame(now)  # a dialect heard: named before anything else
            if talking:
                last_line = now
                if silent_since is not None:
                    silent_since = None
                    self._set_state(LinkState.ONLINE, f"shoe on {transport.name} "
                                                      f"talking again")
                for event in events:
                    self.counters.events += 1
                    self._put(event)
            if silence > 0 and self._heard_as is None and now - last_line >= silence:
                if silent_since is None:
                    silent_since = now
                    self.counters.silences += 1
                    self._set_state(LinkState.SILENT, f"no heartbeat from the shoe on "
                                                      f"{transport.name} for {silence:g} s "
                                                      f"(port open): shoe hung or unpowered?")
                if now - last_ping >= silence:
                    last_ping = now
                    self.ping()
