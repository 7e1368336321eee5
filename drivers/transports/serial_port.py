"""Serial shoes through pyserial: device paths, discovery, and every pyserial URL.

The port is found anew at every open, by path, glob or ``VID:PID[:SERIAL]``; a
``VID:PID`` matching two adapters is refused, never guessed (docs/shoe-frames.md).
"""

from __future__ import annotations

import glob
import os
import socket
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import serial
import serial.tools.list_ports
from serial.tools.list_ports_common import numsplit

from drivers.transports import Connector, Transport, TransportError, open_error, parse_vid_pid
from drivers.url import NETWORK_SCHEMES

if TYPE_CHECKING:
    from drivers.dialects import Dialect
    from drivers.url import ShoeUrl

BY_PATH = "/dev/serial/by-path"
_OPTIONS = ("baud", "exclusive")


def open_serial(url: ShoeUrl, dialect: Dialect, *, baudrate: int | None = None,
                exclusive: bool | None = None, **_: object) -> SerialConnector:
    """The opener of ``serial://`` and bare device paths.

    Args:
        url: a path (glob allowed) or ``VID:PID[:SERIAL]``; options ``baud`` (default:
            the dialect's) and ``exclusive`` (0|1, default 1).
        dialect: the shoe's dialect.
        baudrate: overrides the URL's ``baud``.
        exclusive: overrides the URL's ``exclusive``.

    Raises:
        ValueError: no device, a target neither a path nor ``VID:PID`` yet with a colon,
            an unknown option or a bad number.
    """
    url.check(*_OPTIONS)
    target = url.target
    if ":" in target and not os.path.isabs(target) and parse_vid_pid(target) is None:
        raise ValueError(f"shoe URL {url.text!r}: {target!r} is neither a device path (which "
                         "starts with /) nor a USB adapter's VID:PID[:SERIAL], where VID and "
                         "PID are four hex digits each (serial://1a86:7523)")
    return _connector(target, url, dialect, baudrate, exclusive)


def open_pyserial_url(url: ShoeUrl, dialect: Dialect, *, baudrate: int | None = None,
                      exclusive: bool | None = None, **_: object) -> SerialConnector:
    """The opener of pyserial's own schemes (``socket://``...): pyserial gets their options.

    Raises:
        ValueError: a network URL without a host, or a port not in 1-65535.
    """
    if url.scheme in NETWORK_SCHEMES:
        check_host_port(url)
    theirs = url.others(*_OPTIONS)
    target = f"{url.scheme}://{url.target}" + (f"?{urlencode(theirs)}" if theirs else "")
    return _connector(target, url, dialect, baudrate, exclusive)


def check_host_port(url: ShoeUrl) -> None:
    """Refuse a network shoe URL whose target is not ``HOST:PORT`` (ValueError saying so)."""
    form = f"({url.scheme}://HOST:PORT)"
    parts = urlsplit(f"//{url.target}")
    try:
        port = parts.port
    except ValueError:
        port_text = parts.netloc.rpartition(":")[2]
        raise ValueError(f"{url.text}: bad port {port_text!r}: a number from 1 to 65535 "
                         f"{form}") from None
    if not parts.hostname:
        raise ValueError(f"{url.text}: no host {form}")
    if port is None:
        raise ValueError(f"{url.text}: no port {form}")
    if port == 0:
        raise ValueError(f"{url.text}: bad port '0': a number from 1 to 65535 {form}")


def _connector(target: str, url: ShoeUrl, dialect: Dialect, baudrate: int | None,
               exclusive: bool | None) -> SerialConnector:
    baud = baudrate or url.number("baud", int, dialect.baud)
    if exclusive is None:
        exclusive = url.number("exclusive", int, 1) != 0
    return SerialConnector(target, baudrate=baud, exclusive=exclusive)


def by_path_names(directory: str | None = None) -> dict[str, str]:
    """Device -> its ``/dev/serial/by-path`` name, for those udev named (none in a container)."""
    names: dict[str, str] = {}
    for link in sorted(glob.glob(os.path.join(directory or BY_PATH, "*")), key=numsplit):
        names.setdefault(os.path.realpath(link), link)
    return names


def ambiguous_message(target: str, ports: list[Any], serial_number: str | None) -> str:
    """One line naming every port a ``VID:PID`` matches and how to name the shoe's own adapter."""
    by_path = by_path_names()
    shown = []
    for p in ports:
        usb_port = (p.location or "").split(":")[0]
        where = by_path.get(os.path.realpath(p.device)) or (
            f"USB port {usb_port}" if usb_port else "USB port unknown")
        serial_text = f"serial {p.serial_number}, " if p.serial_number else ""
        shown.append(f"{p.device} ({serial_text}{where})")
    numbers = [p.serial_number for p in ports]
    if serial_number is None and all(numbers) and len(set(numbers)) == len(numbers):
        how = (f"Add the serial number of the shoe's adapter (serial://{target}:SERIAL), "
               f"or name the adapter by the USB port it is plugged into")
    else:
        how = ("They have no serial number that tells them apart, so name the shoe's "
               "adapter by the USB port it is plugged into")
    return (f"{len(ports)} USB serial ports match {target}: {', '.join(shown)}; refusing to "
            f"guess which one is the shoe. {how}: serial://{BY_PATH}/... (see ls -l "
            f"{BY_PATH}) or a udev rule matching KERNELS (99-card-shoe.rules)")


class SerialTransport(Transport):
    """An open pyserial port (``name``: what was opened, for operators)."""

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
    """Finds and opens a serial shoe: a device path (glob allowed), ``VID:PID`` or pyserial URL.

    ``baudrate`` is ignored by network and loop URLs; ``exclusive`` locks device paths.
    """

    def __init__(self, target: str, *, baudrate: int = 9600, exclusive: bool = True) -> None:
        self.target = target
        self.baudrate = baudrate
        self.exclusive = exclusive
        self.description = target

    def candidates(self) -> list[str]:
        """The ports to try, found now, in natural order (``ttyUSB2`` before ``ttyUSB10``).

        Raises:
            TransportError: nothing matches (``absent``), or a ``VID:PID`` matches several
                (``config``).
        """
        target = self.target
        if "://" in target:
            return [target]
        vid_pid = parse_vid_pid(target)
        if vid_pid is not None:
            return [self._vid_pid_port(*vid_pid)]
        if glob.has_magic(target):
            found = sorted(glob.glob(target), key=numsplit)
            if not found:
                raise TransportError(f"shoe not found: no port matches {target}: check the "
                                     f"cable, the USB adapter and the udev rule", kind="absent")
            return found
        return [target]

    def _vid_pid_port(self, vid: int, pid: int, serial_number: str | None) -> str:
        """The one port of adapter ``vid:pid[:serial]``; TransportError if none or several."""
        target = self.target
        ports = sorted((p for p in serial.tools.list_ports.comports()
                        if p.vid == vid and p.pid == pid
                        and (serial_number is None or p.serial_number == serial_number)),
                       key=lambda p: numsplit(p.device))
        if not ports:
            raise TransportError(
                f"no USB serial adapter {target} found: check the cable and the adapter "
                f"(see '{sys.executable} -m serial.tools.list_ports -v')", kind="absent")
        if len(ports) > 1:
            raise TransportError(ambiguous_message(target, ports, serial_number), kind="config")
        return ports[0].device

    def open(self) -> Transport:
        """Discover and open the port; TransportError: absent, busy, permission, other."""
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
