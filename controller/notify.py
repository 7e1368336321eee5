"""systemd service notification (``sd_notify``) and the watchdog, with the standard library.

The protocol: send a datagram such as ``READY=1`` to the AF_UNIX socket named in the
``NOTIFY_SOCKET`` environment variable (a leading ``@`` means the abstract namespace).
``WATCHDOG_USEC`` gives the watchdog interval in microseconds; the service must send
``WATCHDOG=1`` more often than that. Without ``NOTIFY_SOCKET`` every call does nothing,
so the daemon runs the same under systemd, in a terminal, and in tests.
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
    """Sends ``sd_notify`` messages to systemd (or to a test's socket).

    Args:
        address: the socket path; ``NOTIFY_SOCKET`` from the environment when None.
    """

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
        """Send one message made of ``KEY=value`` fields joined by newlines.

        Returns:
            True when sent; False when disabled, or the socket refused or was full (never
            blocks; the first failure is logged).
        """
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
        """Ask for ``seconds`` more before systemd gives up on the current phase.

        ``EXTEND_TIMEOUT_USEC`` (``sd_notify(3)``): while starting, it pushes the start
        timeout (``TimeoutStartSec=``) out to ``seconds`` from now; it must be sent again
        within that time to keep it from running out. The daemon sends it while start-up
        verifies the journal, as long as the check makes progress.

        Args:
            seconds: the time wanted from now.
            status: a ``STATUS=`` line sent along (nothing when empty).
        """
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
    """The watchdog interval in milliseconds from ``WATCHDOG_USEC``, or None when unset.

    ``WATCHDOG_PID``, when set, must be this process for the watchdog to apply.
    """
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

    systemd (``sd_watchdog_enabled(3)``) asks for ``WATCHDOG=1`` at half the interval
    ``WATCHDOG_USEC`` (``WatchdogSec=``). A thread's heartbeat older than
    ``stale_after_ms`` withholds the feeding (tried again every ``check_every_ms``); so
    the last ``WATCHDOG=1`` leaves at most ``stale_after_ms`` after the last heartbeat of
    a hung thread, that is before WatchdogSec/2, and systemd acts at most
    1.5 x WatchdogSec after the hang. The supervised loops beat at least
    every ``check_every_ms`` (a third of ``stale_after_ms`` or less), so a busy but
    healthy thread is not taken for a hung one.

    Attributes:
        interval_ms: the watchdog interval (``WATCHDOG_USEC`` in milliseconds), or None
            when systemd runs no watchdog (the checks still run and log a hung thread).
        feed_every_ms: milliseconds between two ``WATCHDOG=1``: half the interval.
        check_every_ms: milliseconds between two checks: an eighth of the interval, at
            most 250.
        stale_after_ms: a heartbeat older than this many milliseconds means its thread
            is hung: half the interval less one check.
    """

    interval_ms: int | None
    feed_every_ms: int
    check_every_ms: int
    stale_after_ms: int

    @classmethod
    def for_interval(cls, interval_ms: int | None) -> WatchdogTiming:
        """The timing for a watchdog interval in milliseconds (None: no watchdog).

        Without a watchdog, the checks run every 250 ms and a thread silent for 5 s is
        reported (nothing is sent).
        """
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
    """Liveness of the daemon's threads: each beats; the watchdog is fed only if all are fresh.

    Args:
        max_age_ms: a heartbeat older than this means its thread is stuck or dead.
        clock: monotonic clock in seconds (injectable for tests).
    """

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
