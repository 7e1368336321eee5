"""An in-memory pair: a device end for a simulated shoe and a host end for the link."""

from __future__ import annotations

import errno
import fnmatch
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from drivers.transports import Connector, Transport, TransportError, open_error

if TYPE_CHECKING:
    from drivers.dialects import Dialect
    from drivers.url import ShoeUrl

_REGISTRY: dict[str, MemoryDevice] = {}
_REGISTRY_LOCK = threading.Lock()


class PortGone(OSError):
    """The port a simulated shoe writes to was unplugged or closed by the host."""


class MemoryDevice:
    """The device end of an in-memory serial pair (``memory://NAME``; one host end at a time).

    ``on_host_open()`` is called once a host opened it, ``on_host_data(bytes)`` with what
    the host wrote.
    """

    def __init__(self, name: str, *, on_host_open: Callable[[], None] | None = None,
                 on_host_data: Callable[[bytes], None] | None = None) -> None:
        self.name = name
        self.on_host_open = on_host_open
        self.on_host_data = on_host_data
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._unplugged = False
        self._host: MemoryTransport | None = None
        self.busy = False
        self.denied = False
        with _REGISTRY_LOCK:
            _REGISTRY[name] = self

    @property
    def host_connected(self) -> bool:
        """True while a host end is open."""
        return self._host is not None and not self._unplugged

    def write(self, data: bytes) -> None:
        """Send bytes towards the host; PortGone once unplugged."""
        with self._cond:
            if self._unplugged:
                raise PortGone(f"memory port {self.name} is unplugged")
            if self._host is None:
                return  # nobody listening: bytes on a wire with no receiver are lost
            self._buf += data
            self._cond.notify_all()

    def unplug(self) -> None:
        """Pull the cable: the host's read raises, the name disappears."""
        with self._cond:
            self._unplugged = True
            self._cond.notify_all()
        with _REGISTRY_LOCK:
            if _REGISTRY.get(self.name) is self:
                del _REGISTRY[self.name]

    def open_host(self) -> MemoryTransport:
        """Open the host end; TransportError ``absent`` once unplugged, ``busy`` when open."""
        with self._cond:
            where = f"memory://{self.name}"
            if self._unplugged:
                raise open_error(where, errno.ENOENT)
            if self.denied:
                raise open_error(where, errno.EACCES)
            if self.busy or self._host is not None:
                raise open_error(where, errno.EBUSY)
            self._buf.clear()
            host = MemoryTransport(self)
            self._host = host
        if self.on_host_open is not None:
            self.on_host_open()
        return host

    # -- used by the host end --

    def _read(self, host: MemoryTransport, timeout: float) -> bytes:
        with self._cond:
            self._cond.wait_for(
                lambda: self._buf or self._unplugged or host._cancelled or host._closed,
                timeout)
            if self._buf and not host._closed:
                data = bytes(self._buf)
                self._buf.clear()
                return data
            if host._cancelled or host._closed:
                host._cancelled = False
                return b""
            if self._unplugged:
                raise TransportError(f"lost the shoe on memory://{self.name}: unplugged")
            return b""

    def _host_write(self, data: bytes) -> None:
        if self._unplugged:
            raise TransportError(f"lost the shoe on memory://{self.name}: unplugged")
        if self.on_host_data is not None:
            self.on_host_data(data)

    def _cancel(self, host: MemoryTransport) -> None:
        with self._cond:
            host._cancelled = True
            self._cond.notify_all()

    def _release(self, host: MemoryTransport) -> None:
        with self._cond:
            host._closed = True
            if self._host is host:
                self._host = None
            self._cond.notify_all()


class MemoryTransport(Transport):
    """The host end of an in-memory pair (see :class:`MemoryDevice`)."""

    def __init__(self, device: MemoryDevice) -> None:
        self._device = device
        self._cancelled = False
        self._closed = False
        self.name = f"memory://{device.name}"

    def read(self, timeout: float) -> bytes:
        """Wait up to ``timeout`` seconds for bytes; raises TransportError once unplugged."""
        return self._device._read(self, timeout)

    def write(self, data: bytes) -> None:
        """Send bytes to the simulated shoe."""
        self._device._host_write(bytes(data))

    def cancel(self) -> None:
        """Wake a blocked read."""
        self._device._cancel(self)

    def close(self) -> None:
        """Release the port (the device end stays plugged in)."""
        self._device._release(self)


def find_devices(pattern: str) -> list[MemoryDevice]:
    """Registered device ends whose name matches a glob pattern, sorted by name."""
    with _REGISTRY_LOCK:
        return [d for n, d in sorted(_REGISTRY.items()) if fnmatch.fnmatchcase(n, pattern)]


class MemoryConnector(Connector):
    """Opens the first registered :class:`MemoryDevice` matching ``pattern`` (a name or glob)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.description = f"memory://{pattern}"

    def open(self) -> Transport:
        """Find and open a matching device (rediscovered at every call)."""
        devices = find_devices(self.pattern)
        if not devices:
            raise open_error(f"memory://{self.pattern}", errno.ENOENT)
        error: TransportError | None = None
        for device in devices:
            try:
                return device.open_host()
            except TransportError as exc:
                error = exc
        assert error is not None
        raise error


def open_memory(url: ShoeUrl, dialect: Dialect, **_: object) -> MemoryConnector:
    """The opener of ``memory://NAME`` (glob allowed); ValueError: no name, or any option."""
    url.check()
    return MemoryConnector(url.target)
