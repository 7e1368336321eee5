"""A simulated shoe's serial port on a pseudo-terminal: the real pyserial path.

Packet mode on the master tells when a host opens the port, ``POLLHUP`` when none has
it open; names and symlinks that follow a replug: docs/shoe-simulator.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import termios
import threading
import tty

from simulators.ports import PortGone, ShoePort

_TIOCPKT = getattr(termios, "TIOCPKT", 0x5420)
_TIOCPKT_FLUSHREAD = getattr(termios, "TIOCPKT_FLUSHREAD", 1)
# POLLHUP lasts while the slave is closed, so it is looked at this often, not waited on.
HUNG_UP_POLL_MS = 50


def _symlink_atomic(target: str, path: str) -> None:
    tmp = f"{path}.new-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    os.symlink(target, tmp)
    os.replace(tmp, path)


class PtyPort(ShoePort):
    """One pseudo-terminal standing in for a shoe's USB-serial adapter.

    Args:
        directory: where the ``ttySHOE<n>`` and ``card-shoe`` symlinks go; None: none
            (the URL is then the pty path itself).
        dialect: put into the URLs.
        index: the ``n`` of ``ttySHOE<n>``.
        prefix: the name stem of the numbered symlink.
        stable_name: the stable symlink's name.
    """

    def __init__(self, directory: str | None = None, *, dialect: str, index: int = 0,
                 prefix: str = "ttySHOE", stable_name: str = "card-shoe") -> None:
        self.directory = directory
        self.dialect = dialect
        self.index = index
        self.prefix = prefix
        self.stable_name = stable_name
        self._lock = threading.Lock()
        self._closed = False
        self._connected = False
        self._busy_fd: int | None = None
        self._mode: int | None = None
        self._master, slave = os.openpty()
        try:
            tty.setraw(slave)
            self.path = os.ttyname(slave)
        finally:
            os.close(slave)  # held open, it would hide a host's close (no POLLHUP)
        os.set_blocking(self._master, False)
        fcntl.ioctl(self._master, _TIOCPKT, struct.pack("i", 1))
        self._wake_r, self._wake_w = os.pipe()
        self.numbered_path: str | None = None
        self.stable_path: str | None = None
        q = f"?dialect={dialect}"
        if directory is not None:
            self.numbered_path = os.path.join(directory, f"{prefix}{index}")
            self.stable_path = os.path.join(directory, stable_name)
            os.symlink(self.path, self.numbered_path)
            _symlink_atomic(self.path, self.stable_path)
            self.name = self.numbered_path
            self.url = f"serial://{os.path.join(directory, prefix)}*{q}"
            self.stable_url = f"serial://{self.stable_path}{q}"
        else:
            self.name = self.path
            self.url = self.stable_url = f"serial://{self.path}{q}"
        self._thread = threading.Thread(target=self._reader, name=f"pty-shoe {self.path}",
                                        daemon=True)
        self._thread.start()

    @property
    def host_connected(self) -> bool:
        """True while a host has the port open (from its open until its close or the unplug)."""
        return self._connected and not self._closed

    def write(self, data: bytes) -> None:
        """Write to the master; bytes the host's full buffer cannot take are lost."""
        with self._lock:
            if self._closed:
                raise PortGone(f"pty {self.path} is unplugged")
            view = memoryview(data)
            while view:
                try:
                    n = os.write(self._master, view)
                except BlockingIOError:
                    return  # nobody reads: like a UART into a dead line
                except OSError as exc:
                    raise PortGone(f"pty {self.path}: {exc}") from exc
                view = view[n:]

    def _reader(self) -> None:
        master = select.poll()
        master.register(self._master, select.POLLIN | select.POLLPRI)
        both = select.poll()
        both.register(self._master, select.POLLIN | select.POLLPRI)
        both.register(self._wake_r, select.POLLIN)
        wake = select.poll()
        wake.register(self._wake_r, select.POLLIN)
        hung_up = False
        try:
            while True:
                if hung_up:  # POLLHUP stays set until a host opens the slave: look now and then
                    wake.poll(HUNG_UP_POLL_MS)
                    events = dict(master.poll(0))
                else:
                    events = dict(both.poll())
                with self._lock:
                    if self._closed:
                        return
                    flags = events.get(self._master, 0)
                    hung_up = bool(flags & select.POLLHUP)
                    if hung_up:
                        self._connected = False
                    if not flags & (select.POLLIN | select.POLLPRI):
                        continue
                    try:
                        packet = os.read(self._master, 4096)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:  # EIO: no process has the slave open
                        hung_up, self._connected = True, False
                        continue
                if hung_up:
                    continue  # what a host wrote before it closed the port
                if not packet:
                    continue
                if packet[0] == 0:
                    self._connected = True
                    if self.on_host_data is not None and len(packet) > 1:
                        self.on_host_data(packet[1:])
                elif packet[0] & _TIOCPKT_FLUSHREAD:
                    self._connected = True
                    if self.on_host_open is not None:
                        self.on_host_open()
        finally:
            os.close(self._wake_r)
            os.close(self._wake_w)

    def unplug(self) -> None:
        """Close the master: the host's next read fails; the names disappear."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            os.write(self._wake_w, b"x")
            if self._mode is not None:
                with contextlib.suppress(OSError):
                    os.chmod(self.path, self._mode)
            for fd in (self._busy_fd, self._master):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._busy_fd = None
            for path in (self.numbered_path, self.stable_path):
                if path is not None:
                    with contextlib.suppress(FileNotFoundError):
                        if os.path.realpath(path) == self.path or path == self.numbered_path:
                            os.unlink(path)

    def replug(self) -> PtyPort:
        """Unplug, then a new pty under the next name (``ttySHOE<n+1>``)."""
        self.unplug()
        return self._hand_over(PtyPort(self.directory, dialect=self.dialect,
                                       index=self.index + 1, prefix=self.prefix,
                                       stable_name=self.stable_name))

    def set_busy(self, busy: bool) -> None:
        """Hold (or release) an exclusive lock on the pty, as another program would."""
        with self._lock:
            if busy and self._busy_fd is None and not self._closed:
                fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._busy_fd = fd
            elif not busy and self._busy_fd is not None:
                os.close(self._busy_fd)
                self._busy_fd = None

    def set_denied(self, denied: bool) -> None:
        """Take all permissions off the pty (effective for a host not running as root)."""
        with self._lock:
            if denied and self._mode is None:
                self._mode = os.stat(self.path).st_mode & 0o7777
                os.chmod(self.path, 0)
            elif not denied and self._mode is not None:
                os.chmod(self.path, self._mode)
                self._mode = None

    def close(self) -> None:
        """Unplug and wait for the reader thread."""
        self.unplug()
        if self._thread is not threading.current_thread():
            self._thread.join(2.0)
