"""USB shoes on vendor-class bulk endpoints, through pyusb (found by VID:PID at every open)."""

from __future__ import annotations

import errno
import threading
import time
from typing import TYPE_CHECKING

import usb.core
import usb.util

from drivers.transports import Connector, Transport, TransportError, open_error, parse_vid_pid

if TYPE_CHECKING:
    from drivers.dialects import Dialect
    from drivers.url import ShoeUrl

_SLICE_MS = 100  # longest single bulk read, so cancel() is honoured promptly
_VENDOR_CLASS = 0xFF


def _is_timeout(exc: usb.core.USBError) -> bool:
    return isinstance(exc, usb.core.USBTimeoutError) or exc.errno == errno.ETIMEDOUT


class UsbTransport(Transport):
    """An open vendor-class USB shoe, its interface claimed."""

    def __init__(self, device: usb.core.Device, interface: int, ep_in: usb.core.Endpoint,
                 ep_out: usb.core.Endpoint | None, name: str) -> None:
        self._device = device
        self._interface = interface
        self._ep_in = ep_in
        self._ep_out = ep_out
        self._cancel = threading.Event()
        self._size = max(64, int(ep_in.wMaxPacketSize)) * 8
        self.name = name

    def read(self, timeout: float) -> bytes:
        """Wait up to ``timeout`` s for bytes; raises TransportError when the shoe is gone."""
        deadline = time.monotonic() + timeout
        while not self._cancel.is_set():
            left_ms = int((deadline - time.monotonic()) * 1000)
            if left_ms <= 0:
                return b""
            try:
                data = self._ep_in.read(self._size, timeout=min(left_ms, _SLICE_MS))
            except usb.core.USBError as exc:
                if _is_timeout(exc):
                    continue
                raise TransportError(f"lost the shoe on {self.name}: {exc}") from exc
            except (ValueError, AttributeError) as exc:  # pyusb on a disposed device
                raise TransportError(f"lost the shoe on {self.name}: {exc}") from exc
            if len(data):
                return bytes(data)
        self._cancel.clear()
        return b""

    def write(self, data: bytes) -> None:
        """Send bytes on the bulk OUT endpoint (ignored when the shoe has none)."""
        if self._ep_out is None:
            return
        try:
            self._ep_out.write(data, timeout=1000)
        except (usb.core.USBError, ValueError) as exc:
            raise TransportError(f"cannot write to {self.name}: {exc}") from exc

    def cancel(self) -> None:
        """Make a blocked read return within one read slice (0.1 s)."""
        self._cancel.set()

    def close(self) -> None:
        """Release the interface and the device; never raises."""
        try:
            usb.util.release_interface(self._device, self._interface)
        except Exception:  # noqa: BLE001 - close must never raise (device may be gone)
            pass
        try:
            usb.util.dispose_resources(self._device)
        except Exception:  # noqa: BLE001
            pass


class UsbConnector(Connector):
    """Finds and opens a vendor-class USB shoe by ``VID:PID[:SERIAL]``.

    Args:
        vid: USB vendor id.
        pid: USB product id.
        serial_number: match this serial number string too, or None for any.
        backend: a pyusb backend object, or None for pyusb's default (libusb).
    """

    def __init__(self, vid: int, pid: int, serial_number: str | None = None, *,
                 backend: object | None = None) -> None:
        self.vid = vid
        self.pid = pid
        self.serial_number = serial_number
        self.backend = backend
        ident = f"{vid:04x}:{pid:04x}" + (f":{serial_number}" if serial_number else "")
        self.description = f"usb://{ident}"

    def _find(self) -> list[usb.core.Device]:
        try:
            found = list(usb.core.find(find_all=True, idVendor=self.vid, idProduct=self.pid,
                                       backend=self.backend))
        except usb.core.NoBackendError as exc:
            raise TransportError("no USB library found: install libusb-1.0 "
                                 "(apt install libusb-1.0-0)", kind="config") from exc
        except usb.core.USBError as exc:
            raise open_error(self.description, exc.errno, str(exc)) from exc
        if self.serial_number is not None:
            matching = []
            for dev in found:
                try:
                    if dev.serial_number == self.serial_number:
                        matching.append(dev)
                except (usb.core.USBError, ValueError):
                    continue
            found = matching
        if not found:
            raise TransportError(f"shoe not found: no USB device {self.description[6:]}: "
                                 f"check the cable and the udev rule", kind="absent")
        return found

    def open(self) -> Transport:
        """Discover, configure and claim the shoe.

        Raises:
            TransportError: absent, busy, permission denied, or no bulk IN endpoint.
        """
        dev = self._find()[0]
        name = f"usb {self.vid:04x}:{self.pid:04x} bus {dev.bus} dev {dev.address}"
        try:
            try:
                cfg = dev.get_active_configuration()
            except usb.core.USBError:
                dev.set_configuration()
                cfg = dev.get_active_configuration()
            intf = usb.util.find_descriptor(cfg, bInterfaceClass=_VENDOR_CLASS)
            if intf is None:
                raise TransportError(f"{name} has no vendor-class interface: not a shoe?",
                                     kind="config")
            number = intf.bInterfaceNumber
            try:
                if dev.is_kernel_driver_active(number):
                    dev.detach_kernel_driver(number)
            except (NotImplementedError, usb.core.USBError):
                pass
            ep_in = usb.util.find_descriptor(intf, custom_match=lambda e: (
                usb.util.endpoint_direction(e.bEndpointAddress) == usb.util.ENDPOINT_IN
                and usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK))
            ep_out = usb.util.find_descriptor(intf, custom_match=lambda e: (
                usb.util.endpoint_direction(e.bEndpointAddress) == usb.util.ENDPOINT_OUT
                and usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK))
            if ep_in is None:
                raise TransportError(f"{name} has no bulk IN endpoint: not a shoe?",
                                     kind="config")
            usb.util.claim_interface(dev, number)
        except usb.core.USBError as exc:
            usb.util.dispose_resources(dev)
            raise open_error(name, exc.errno, str(exc)) from exc
        except TransportError:
            usb.util.dispose_resources(dev)
            raise
        return UsbTransport(dev, number, ep_in, ep_out, name)


def open_usb(url: ShoeUrl, dialect: Dialect, *, usb_backend: object | None = None,
             **_: object) -> UsbConnector:
    """The opener of ``usb://VID:PID[:SERIAL]`` (``usb_backend``: None for libusb).

    Raises:
        ValueError: no ``VID:PID``, or an unknown option.
    """
    url.check()
    ids = parse_vid_pid(url.target)
    if ids is None:
        raise ValueError(f"usb:// needs VID:PID[:SERIAL], got {url.target!r}")
    return UsbConnector(*ids, backend=usb_backend)
