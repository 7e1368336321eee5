"""Serial shoes through pyserial: device paths, discovery, and every pyserial URL.

The port is opened with :func:`serial.serial_for_url`, so a device path
(``/dev/serial/by-id/...``, a udev symlink such as ``/dev/card-shoe``), ``socket://``,
``rfc2217://``, ``loop://`` and ``spy://`` all work. Device paths are opened exclusively
(a second program gets "busy"). The port is found anew at every open:

* a path is opened as it is (a by-id path or udev symlink follows the adapter);
* a path with glob characters (``/dev/serial/by-id/usb-1a86_*``) opens the first match;
* ``VID:PID[:SERIAL]`` is matched against :func:`serial.tools.list_ports.comports`.
"""

from __future__ import annotations

import glob
import os
import re
import socket

import serial
import serial.tools.list_ports

from drivers.transports import Connector, Transport, TransportError, open_error

_VIDPID = re.compile(r"^([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})(?::(.+))?$")


def parse_vid_pid(text: str) -> tuple[int, int, str | None] | None:
    """``(vid, pid, serial)`` from ``1a86:7523`` or ``1a86:7523:A50285BI``, else None."""
    m = _VIDPID.match(text)
    if not m:
        return None
    return int(m.group(1), 16), int(m.group(2), 16), m.group(3)


class SerialTransport(Transport):
    """An open pyserial port.

    Args:
        port: the open pyserial object.
        name: what was opened, for operators.
    """

    def __init__(self, port: serial.SerialBase, name: str) -> None:
        self._port = port
        self.name = name
        self._closed = False

    def read(self, timeout: float) -> bytes:
        """Wait up to ``timeout`` s for bytes; raises TransportError when the port is lost."""
        port = self._port
        try:
            if port.timeout != timeout:
                port.timeout = timeout
            waiting = port.in_waiting
            data = port.read(waiting or 1)
            if data and not waiting:
                more = port.in_waiting
                if more:
                    data += port.read(more)
            return data
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            if self._closed:
                return b""
            raise TransportError(f"lost the shoe on {self.name}: {exc}") from exc

    def write(self, data: bytes) -> None:
        """Send bytes; raises TransportError when the port is lost."""
        try:
            self._port.write(data)
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            raise TransportError(f"cannot write to {self.name}: {exc}") from exc

    def cancel(self) -> None:
        """Make a blocked read return (pyserial's cancel_read, or a socket shutdown)."""
        port = self._port
        cancel_read = getattr(port, "cancel_read", None)
        if cancel_read is not None:
            try:
                cancel_read()
            except Exception:  # noqa: BLE001 - cancel must never raise
                pass
        sock = getattr(port, "_socket", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        """Close the port; never raises."""
        self._closed = True
        port = self._port
        sock = getattr(port, "_socket", None)
        if sock is not None:  # pyserial's socket close() sleeps 0.3 s; stop() must be prompt
            for step in (lambda: sock.shutdown(socket.SHUT_RDWR), sock.close):
                try:
                    step()
                except OSError:
                    pass
            port._socket = None
            port.is_open = False
        try:
            port.close()
        except Exception:  # noqa: BLE001 - close must never raise
            pass


class SerialConnector(Connector):
    """Finds and opens a serial shoe.

    Args:
        target: a device path (glob allowed), ``VID:PID[:SERIAL]``, or a pyserial URL
            (``socket://host:port``, ``rfc2217://...``, ``loop://``).
        baudrate: line speed (ignored by network and loop URLs).
        exclusive: lock device paths so no other program can open them.
    """

    def __init__(self, target: str, *, baudrate: int = 9600, exclusive: bool = True) -> None:
        self.target = target
        self.baudrate = baudrate
        self.exclusive = exclusive
        self.description = target

    def candidates(self) -> list[str]:
        """The ports to try, found now (rediscovery happens at every call).

        Returns:
            Device paths or pyserial URLs, best first.

        Raises:
            TransportError: nothing matches (absent).
        """
        target = self.target
        if "://" in target:
            return [target]
        vid_pid = parse_vid_pid(target)
        if vid_pid is not None:
            vid, pid, serial_number = vid_pid
            ports = [p for p in serial.tools.list_ports.comports()
                     if p.vid == vid and p.pid == pid
                     and (serial_number is None or p.serial_number == serial_number)]
            if not ports:
                raise TransportError(
                    f"no USB serial adapter {target} found: check the cable and the adapter "
                    f"(see 'python -m serial.tools.list_ports -v')", kind="absent")
            return [p.device for p in sorted(ports, key=lambda p: p.device)]
        if glob.has_magic(target):
            found = sorted(glob.glob(target))
            if not found:
                raise TransportError(f"shoe not found: no port matches {target}: check the "
                                     f"cable, the USB adapter and the udev rule", kind="absent")
            return found
        return [target]

    def open(self) -> Transport:
        """Discover and open the port.

        Returns:
            The open transport.

        Raises:
            TransportError: absent, busy, permission denied, or another failure.
        """
        error: TransportError | None = None
        for where in self.candidates():
            is_url = "://" in where
            kwargs = {} if is_url else {"exclusive": self.exclusive}
            try:
                port = serial.serial_for_url(where, baudrate=self.baudrate, timeout=0.5,
                                             **kwargs)
            except (serial.SerialException, OSError, ValueError) as exc:
                err_no = getattr(exc, "errno", None)
                error = open_error(self._shown(where), err_no, str(exc))
                continue
            return SerialTransport(port, self._shown(where))
        assert error is not None
        raise error

    @staticmethod
    def _shown(where: str) -> str:
        if "://" in where:
            return where
        real = os.path.realpath(where)
        return where if real == where else f"{where} ({real})"
