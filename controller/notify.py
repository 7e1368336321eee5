"""systemd service notification (``sd_notify``) and the watchdog, with the standard library.

Datagrams go to ``NOTIFY_SOCKET`` (``@``: abstract); without it every call does nothing, so
the daemon runs the same under systemd, in a terminal, in tests.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)


class Notifier:
    """Sends ``sd_notify`` messages to systemd, or to ``address`` (a test's socket)."""

    def __init__(self, address: str | None = None) -> None:
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.setblocking(False)  # a reader that stops reading never stalls us
        self._lock = threading.Lock()
        self._warned = False

    @property
    def enabled(self) -> bool:
        """True when a notification socket is configured."""
        return self._sock is not None

    def notify(self, *fields: str) -> bool:
        """Send one message of ``KEY=value`` fields; False when disabled, refused or full."""
        if self._sock is None:
            return False
        addr = self.address
        if addr.startswith("@"):
            addr = "\0" + addr[1:]
        try:
            with self._lock:
                self._sock.sendto("\n".join(fields).encode(), addr)
            return True
        except OSError as exc:
            if not self._warned:
                log.warning("sd_notify to %s failed: %s", self.address, exc)
                self._warned = True
            return False

    def ready(self, status: str = "") -> bool:
        """Tell systemd start-up is complete (``READY=1``)."""
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def extend_timeout(self, seconds: float, status: str = "") -> bool:
        """Ask for ``seconds`` more to start (``EXTEND_TIMEOUT_USEC``), resent while progressing."""
        return self.notify(f"EXTEND_TIMEOUT_USEC={max(1, round(seconds * 1_000_000))}",
                           *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        """Set the one-line status shown by ``systemctl status``."""
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        """Tell systemd a clean stop has begun (``STOPPING=1``)."""
        return self.notify("STOPPING=1")

    def watchdog(self) -> bool:
        """Feed the watchdog (``WATCHDOG=1``)."""
        return self.notify("WATCHDOG=1")

    def close(self) -> None:
        """Close the socket."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_interval_ms(environ: dict[str, str] | None = None) -> int | None:
    """The watchdog interval in ms from ``WATCHDOG_USEC`` (None: unset, or for another PID)."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC")
    if not usec:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return max(1, value // 1000) if value > 0 else None


@dataclass(frozen=True, slots=True)
class WatchdogTiming:
    """When the daemon feeds the watchdog, and when a silent thread counts as hung.

    ``WATCHDOG=1`` goes at half the interval; a heartbeat older than ``stale_after_ms`` (half the
    interval less one check) withholds it, so systemd acts at most 1.5 x WatchdogSec after a
    hang. Loops beat at least every ``check_every_ms`` (an eighth of the interval, at most 250),
    so a busy thread is not taken for a hung one. ``interval_ms`` None: no watchdog, checks only.
    """

    interval_ms: int | None
    feed_every_ms: int
    check_every_ms: int
    stale_after_ms: int

    @classmethod
    def for_interval(cls, interval_ms: int | None) -> WatchdogTiming:
        """The timing for an interval in ms (None: checks every 250 ms, 5 s silence reported)."""
        if interval_ms is None:
            return cls(None, 1000, 250, 5000)
        feed = max(1, interval_ms // 2)
        check = max(1, min(250, interval_ms // 8))
        return cls(interval_ms, feed, check, max(1, feed - check))

    @classmethod
    def from_environ(cls, environ: dict[str, str] | None = None) -> WatchdogTiming:
        """The timing for ``WATCHDOG_USEC`` (see :func:`watchdog_interval_ms`)."""
        return cls.for_interval(watchdog_interval_ms(environ))


class Heartbeats:
    """Liveness of the daemon's threads: the watchdog is fed only while every heartbeat is fresh."""

    def __init__(self, max_age_ms: int = 5000, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.max_age_ms = max_age_ms
        self._clock = clock
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def beat(self, name: str) -> None:
        """Record that thread ``name`` is alive now."""
        with self._lock:
            self._last[name] = self._clock()

    def forget(self, name: str) -> None:
        """Stop supervising ``name`` (a thread that ended on purpose)."""
        with self._lock:
            self._last.pop(name, None)

    def stale(self) -> list[str]:
        """Names of supervised threads whose last heartbeat is too old."""
        now = self._clock()
        with self._lock:
            return [n for n, t in self._last.items() if (now - t) * 1000 > self.max_age_ms]
