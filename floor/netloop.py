"""A paho client's network loop on ``poll()``, that notices a connection gone silent.

paho's own thread waits in ``select()``, which fails silently past descriptor 1023 (many
tables in one process); a connection silent for 1.5 keep-alives is closed.
"""

from __future__ import annotations

import logging
import select
import socket
import threading
import time
from typing import Any

from floor.mqtt import Throttle

log = logging.getLogger("threecard.floor")

# Seconds a turn waits at most (paho's keep-alive is checked each turn).
POLL_S = 1.0
SILENT_FACTOR = 1.5
# Seconds before connecting again: the first wait, the longest.
RECONNECT_S = (1.0, 2.0)


class NetLoop:
    """Runs one paho client's network traffic in a thread of its own (keep-alive in seconds)."""

    def __init__(self, client: Any, keepalive_s: float, reconnect: bool = False,
                 name: str = "floor-net") -> None:
        self.client = client
        self.silent_s = keepalive_s * SILENT_FACTOR
        self.reconnect = reconnect
        self.silent = 0
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stop = threading.Event()
        self._closing = False
        self._throttle = Throttle(log)
        client.on_socket_register_write = self.poke
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> NetLoop:
        """Start the thread. Returns self."""
        self._thread.start()
        return self

    @property
    def alive(self) -> bool:
        """The thread runs."""
        return self._thread.is_alive()

    def poke(self, *_args: Any) -> None:
        """Wake the thread (something to send): paho calls it as it queues a packet."""
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass  # the pipe is full (the thread wakes anyway) or closed (stopped)

    def stop(self, disconnect: bool = False, timeout_s: float = 5.0) -> None:
        """Stop the thread; ``disconnect`` sends DISCONNECT first (the broker drops the will)."""
        self._closing = True
        if disconnect:
            self.client.disconnect()
            deadline = time.monotonic() + min(timeout_s, 2.0)
            while self.alive and self.client.socket() is not None \
                    and time.monotonic() < deadline:
                time.sleep(0.01)
        self._stop.set()
        self.poke()
        if self.alive and threading.current_thread() is not self._thread:
            self._thread.join(timeout_s)
        if not self.alive:
            self._wake_r.close()
            self._wake_w.close()

    def _run(self) -> None:
        wait_s, heard, seen = RECONNECT_S[0], time.monotonic(), None
        while not self._stop.is_set():
            sock = self.client.socket()
            if sock is None:  # the connection is gone (paho said so: on_disconnect)
                if not self.reconnect or self._closing or self._stop.wait(wait_s):
                    return
                wait_s = min(wait_s * 2, RECONNECT_S[1])
                self._connect()
                continue
            if sock is not seen:
                seen, heard, wait_s = sock, time.monotonic(), RECONNECT_S[0]
            try:
                if self._turn(sock):
                    heard = time.monotonic()
                elif time.monotonic() - heard > self.silent_s \
                        and self.client.socket() is sock:
                    self.silent += 1
                    self._throttle.log("silent", logging.WARNING, "floor: nothing heard "
                                       "from the broker for %.1f s: the connection is taken "
                                       "as dead and opened again", self.silent_s)
                    _shut(sock)  # paho reads the end of it: on_disconnect, then reconnect
            except Exception as exc:  # noqa: BLE001 - a callback failed: never the thread
                self._throttle.log("error", logging.ERROR, "floor: error in the network "
                                   "loop (%r); the connection is opened again", exc,
                                   exc_info=exc)
                _shut(sock)

    def _turn(self, sock: Any) -> bool:
        poller = select.poll()
        poller.register(self._wake_r, select.POLLIN)
        want = select.POLLIN | (select.POLLOUT if self.client.want_write() else 0)
        poller.register(sock, want)
        pending = sock.pending() if hasattr(sock, "pending") else 0  # TLS: decrypted
        events = dict(poller.poll(0 if pending else POLL_S * 1000))
        if events.pop(self._wake_r.fileno(), 0):
            try:
                while self._wake_r.recv(4096):
                    pass
            except OSError:
                pass
        got = events.get(sock.fileno(), 0)
        read = bool(got & (select.POLLIN | select.POLLHUP | select.POLLERR)) or pending > 0
        if read:
            self.client.loop_read()
        if self.client.socket() is sock and self.client.want_write():
            self.client.loop_write()
        if self.client.socket() is sock:
            self.client.loop_misc()  # paho's keep-alive: PINGREQ, no PINGRESP
        return read

    def _connect(self) -> None:
        try:
            self.client.reconnect()
        except OSError:
            if self.client.on_connect_fail is not None:
                self.client.on_connect_fail(self.client, None)


def _shut(sock: Any) -> None:
    """End both directions of ``sock``: the next read sees the end of the connection."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already
