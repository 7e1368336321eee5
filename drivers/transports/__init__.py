"""Transports move bytes between the host and a shoe; they know nothing of dialects."""

from __future__ import annotations

import errno
import re
from abc import ABC, abstractmethod
from types import TracebackType

_VIDPID = re.compile(r"^([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})(?::(.+))?$")


def parse_vid_pid(text: str) -> tuple[int, int, str | None] | None:
    """``(vid, pid, serial)`` from ``1a86:7523`` or ``1a86:7523:A50285BI``, else None."""
    m = _VIDPID.match(text)
    if not m:
        return None
    return int(m.group(1), 16), int(m.group(2), 16), m.group(3)


class TransportError(Exception):
    """The port could not be opened, or was lost.

    Attributes:
        kind: ``absent``, ``busy``, ``permission``, ``io`` (lost or failing) or ``config``
            (the URL or the machine's setup is wrong).
        message: one line for the operator, saying what to do.
    """

    def __init__(self, message: str, *, kind: str = "io") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def open_error(where: str, err_no: int | None, text: str = "") -> TransportError:
    """A :class:`TransportError` for a failure to open ``where`` (``text``: without ``err_no``)."""
    lowered = text.lower()
    if err_no in (errno.EACCES, errno.EPERM) or "permission denied" in lowered:
        return TransportError(
            f"permission denied on {where}: add the service user to the 'dialout' group "
            f"(usermod -aG dialout USER, then log in again) or install the shoe's udev rule",
            kind="permission")
    if err_no in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK) or "lock" in lowered:
        return TransportError(
            f"port {where} is busy: another program has it open (find it with 'fuser {where}')",
            kind="busy")
    if err_no in (errno.ENOENT, errno.ENODEV, errno.ENXIO) or "no such" in lowered:
        return TransportError(
            f"shoe not found at {where}: check the cable, the USB adapter and the udev rule",
            kind="absent")
    if err_no == errno.ECONNREFUSED or "refused" in lowered:
        return TransportError(f"shoe not reachable at {where}: connection refused",
                              kind="absent")
    detail = text or (errno.errorcode.get(err_no or 0, "unknown error"))
    return TransportError(f"cannot open {where}: {detail}", kind="io")


class Transport(ABC):
    """An open byte channel to one shoe (``name``: what was opened, for operators)."""

    name: str = "?"

    @abstractmethod
    def read(self, timeout: float) -> bytes:
        """Wait up to ``timeout`` seconds for bytes (``b""`` on timeout or after :meth:`cancel`).

        Raises:
            TransportError: the shoe is gone (unplugged, hung up, closed).
        """

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Send bytes to the shoe (``PING``); raises TransportError when the shoe is gone."""

    @abstractmethod
    def cancel(self) -> None:
        """Make a read blocked in another thread return promptly. Never raises."""

    @abstractmethod
    def close(self) -> None:
        """Release the port. Idempotent; never raises."""

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class Connector(ABC):
    """Finds and opens one shoe's port, anew at every call."""

    description: str = "?"

    @abstractmethod
    def open(self) -> Transport:
        """Discover the port and open it.

        Raises:
            TransportError: absent, busy, permission denied, or another failure.
        """

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to do by default
        """Release anything the connector itself holds (e.g. an in-process simulator)."""
