"""The device side of a transport, as a simulated shoe sees it.

A port knows when a host opened it (the shoe resends what a cable pull cut), can be
unplugged, and comes back under another name.
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
        url: a shoe URL that finds this port and its replugged successors.
        on_host_open: called when a host has opened the port and listens (set by the shoe).
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
    """The shoe's end of a simulated device with ``busy`` and ``denied`` switches."""

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
    """An in-memory port, ``memory://BASE-*``: ``BASE-0``, then ``BASE-1`` after a replug..."""

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
