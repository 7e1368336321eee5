"""The device side of a transport, as a simulated shoe sees it.

A :class:`ShoePort` is where a :class:`~simulators.shoe.SimulatedShoe` writes its bytes.
Each transport has one: :class:`MemoryPort` (here), ``simulators.pty_shoe.PtyPort``,
``simulators.tcp_shoe.TcpPort`` and ``simulators.usb_backend.UsbPort``. A port knows when
a host has opened it (so the shoe can resend what a cable pull interrupted), can be
unplugged, and can come back under another name (:meth:`ShoePort.replug`).
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

from drivers.transports.memory import MemoryDevice, PortGone

__all__ = ["DevicePort", "MemoryPort", "PortGone", "ShoePort"]

_Port = TypeVar("_Port", bound="ShoePort")


class ShoePort(ABC):
    """The shoe's end of one transport.

    Attributes:
        name: the device's current name (a pty path, ``host:port``, a USB address...).
        url: a shoe URL that a link can open to find this port, and its replugged
            successors (``serial:///tmp/x/ttySHOE*?dialect=native``, ``memory://shoe-*``).
        on_host_open: called with no argument when a host has opened the port and is
            listening (set by the shoe).
        on_host_data: called with the bytes a host wrote (``PING``) (set by the shoe).
    """

    name: str = "?"
    url: str = "?"
    on_host_open: Callable[[], None] | None = None
    on_host_data: Callable[[bytes], None] | None = None

    @property
    @abstractmethod
    def host_connected(self) -> bool:
        """True while a host has the port open and is listening."""

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Send bytes to the host; raises :class:`PortGone` once unplugged."""

    @abstractmethod
    def unplug(self) -> None:
        """Pull the cable: the host's read fails and the name disappears."""

    @abstractmethod
    def replug(self) -> ShoePort:
        """Plug the shoe back in under a new name; returns the new port."""

    def _hand_over(self, new: _Port) -> _Port:
        """The port a replug made takes over this one's callbacks; returns it."""
        new.on_host_open, new.on_host_data = self.on_host_open, self.on_host_data
        return new

    def set_busy(self, busy: bool) -> None:  # noqa: B027 - optional fault
        """Make opening the port fail as "busy" (another program holds it)."""

    def set_denied(self, denied: bool) -> None:  # noqa: B027 - optional fault
        """Make opening the port fail with "permission denied"."""

    @abstractmethod
    def close(self) -> None:
        """Release everything the port holds; idempotent."""


class DevicePort(ShoePort):
    """The shoe's end of a simulated device that has ``busy`` and ``denied`` switches.

    Attributes:
        device: the device (:class:`~drivers.transports.memory.MemoryDevice`, or a
            simulated USB device); closing the port unplugs it.
    """

    device: Any

    def set_busy(self, busy: bool) -> None:
        """Opening the device fails as busy while set."""
        self.device.busy = busy

    def set_denied(self, denied: bool) -> None:
        """Opening the device fails with permission denied while set."""
        self.device.denied = denied

    def close(self) -> None:
        """Unplug (the device's name goes)."""
        self.unplug()


class MemoryPort(DevicePort):
    """An in-memory port, found by links as ``memory://BASE-*``.

    Args:
        base: the name stem; the first port is ``BASE-0``, a replug gives ``BASE-1``...
        dialect: put into :attr:`url` so a link speaks the right dialect.
    """

    _ids = itertools.count()

    def __init__(self, base: str | None = None, *, dialect: str,
                 index: int = 0) -> None:
        self.base = base or f"shoe{next(self._ids)}"
        self.dialect = dialect
        self.index = index
        self.name = f"{self.base}-{index}"
        self.url = f"memory://{self.base}-*?dialect={dialect}"
        self.device = MemoryDevice(self.name, on_host_open=self._opened,
                                   on_host_data=self._data)

    def _opened(self) -> None:
        if self.on_host_open is not None:
            self.on_host_open()

    def _data(self, data: bytes) -> None:
        if self.on_host_data is not None:
            self.on_host_data(data)

    @property
    def host_connected(self) -> bool:
        """True while a host end is open."""
        return self.device.host_connected

    def write(self, data: bytes) -> None:
        """Send bytes to the host end."""
        self.device.write(data)

    def unplug(self) -> None:
        """Unplug: the host's read raises and ``memory://`` no longer finds this name."""
        self.device.unplug()

    def replug(self) -> MemoryPort:
        """A new port ``BASE-<n+1>``, with this port's callbacks."""
        self.unplug()
        return self._hand_over(MemoryPort(self.base, dialect=self.dialect,
                                          index=self.index + 1))
