"""A pyusb backend with simulated vendor-class shoes, so ``usb://`` runs without hardware."""

from __future__ import annotations

import array
import errno
import itertools
import threading
from types import SimpleNamespace
from typing import Any

import usb.backend
import usb.core

from simulators.ports import DevicePort, PortGone

EP_IN = 0x81
EP_OUT = 0x01
_PACKET = 64


class _Device:
    def __init__(self, vid: int, pid: int, serial: str, bus: int, address: int) -> None:
        self.vid, self.pid, self.serial = vid, pid, serial
        self.bus, self.address = bus, address
        self.plugged = True
        self.busy = False
        self.denied = False
        self.config = 0
        self.claimed = False
        self.buf = bytearray()
        self.cond = threading.Condition()
        self.port: UsbPort | None = None
        self.strings = {1: "threecard-sim", 2: "Simulated card shoe", 3: serial}


class _Handle:
    def __init__(self, device: _Device) -> None:
        self.device = device


def _gone() -> usb.core.USBError:
    return usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)


class SimUsbBackend(usb.backend.IBackend):
    """A pyusb backend whose devices are simulated shoes (bulk IN 0x81, OUT 0x01)."""

    def __init__(self) -> None:
        super().__init__()
        self._devices: list[_Device] = []
        self._lock = threading.Lock()
        self._addresses = itertools.count(2)

    def plug(self, vid: int, pid: int, serial: str = "SIM0001") -> _Device:
        """Add a device at a new bus address (used by :class:`UsbPort`)."""
        with self._lock:
            dev = _Device(vid, pid, serial, bus=1, address=next(self._addresses))
            self._devices.append(dev)
            return dev

    def unplug(self, dev: _Device) -> None:
        """Remove a device: pending and future transfers fail with ENODEV."""
        with self._lock:
            if dev in self._devices:
                self._devices.remove(dev)
        with dev.cond:
            dev.plugged = False
            dev.cond.notify_all()

    # -- IBackend: enumeration and descriptors -----------------------------------------

    def enumerate_devices(self) -> Any:
        """The plugged devices."""
        with self._lock:
            return list(self._devices)

    def get_parent(self, dev: _Device) -> None:
        """Simulated devices sit on a root hub: no parent."""
        return None

    def get_device_descriptor(self, dev: _Device) -> Any:
        """The device descriptor."""
        return SimpleNamespace(
            bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0,
            bDeviceSubClass=0, bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=dev.vid,
            idProduct=dev.pid, bcdDevice=0x0100, iManufacturer=1, iProduct=2,
            iSerialNumber=3, bNumConfigurations=1, address=dev.address, bus=dev.bus,
            port_number=1, port_numbers=(1,), speed=2)

    def get_configuration_descriptor(self, dev: _Device, config: int) -> Any:
        """The one configuration (value 1)."""
        if config != 0:
            raise IndexError(config)
        return SimpleNamespace(
            bLength=9, bDescriptorType=2, wTotalLength=32, bNumInterfaces=1,
            bConfigurationValue=1, iConfiguration=0, bmAttributes=0x80, bMaxPower=50,
            extra_descriptors=[])

    def get_interface_descriptor(self, dev: _Device, intf: int, alt: int, config: int) -> Any:
        """The one vendor-class interface, two bulk endpoints."""
        if intf != 0 or alt != 0 or config != 0:
            raise IndexError((intf, alt, config))
        return SimpleNamespace(
            bLength=9, bDescriptorType=4, bInterfaceNumber=0, bAlternateSetting=0,
            bNumEndpoints=2, bInterfaceClass=0xFF, bInterfaceSubClass=0,
            bInterfaceProtocol=0, iInterface=0, extra_descriptors=[])

    def get_endpoint_descriptor(self, dev: _Device, ep: int, intf: int, alt: int,
                                config: int) -> Any:
        """Bulk IN 0x81 and bulk OUT 0x01."""
        if ep not in (0, 1) or intf != 0 or alt != 0 or config != 0:
            raise IndexError((ep, intf, alt, config))
        return SimpleNamespace(
            bLength=7, bDescriptorType=5, bEndpointAddress=EP_IN if ep == 0 else EP_OUT,
            bmAttributes=2, wMaxPacketSize=_PACKET, bInterval=0, bRefresh=0,
            bSynchAddress=0, extra_descriptors=[])

    # -- IBackend: handles and configuration -------------------------------------------

    def open_device(self, dev: _Device) -> _Handle:
        """Open: fails if unplugged (ENODEV) or denied (EACCES)."""
        if not dev.plugged:
            raise _gone()
        if dev.denied:
            raise usb.core.USBError("Access denied (insufficient permissions)", -3,
                                    errno.EACCES)
        return _Handle(dev)

    def close_device(self, dev_handle: _Handle) -> None:
        """Close a handle (releases the interface)."""
        dev_handle.device.claimed = False

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        """Select the configuration."""
        if not dev_handle.device.plugged:
            raise _gone()
        dev_handle.device.config = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        """The selected configuration (0 until set)."""
        if not dev_handle.device.plugged:
            raise _gone()
        return dev_handle.device.config

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        """Only alt setting 0 exists."""

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        """Claim: fails if unplugged or busy (EBUSY); the shoe then knows a host listens."""
        dev = dev_handle.device
        if not dev.plugged:
            raise _gone()
        if dev.busy or dev.claimed:
            raise usb.core.USBError("Resource busy", -6, errno.EBUSY)
        with dev.cond:
            dev.claimed = True
            dev.buf.clear()
        port = dev.port
        if port is not None and port.on_host_open is not None:
            port.on_host_open()

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        """Release the interface."""
        dev_handle.device.claimed = False

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        """No kernel driver binds a vendor-class interface."""
        return False

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        """Nothing to detach."""

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        """Nothing to attach."""

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        """No endpoint ever halts."""

    def reset_device(self, dev_handle: _Handle) -> None:
        """Reset: drop buffered bytes."""
        with dev_handle.device.cond:
            dev_handle.device.buf.clear()

    # -- IBackend: transfers ---------------------------------------------------------

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array,
                  timeout: int) -> int:
        """Wait up to ``timeout`` ms for shoe bytes (0 waits for ever, as libusb does)."""
        dev = dev_handle.device
        if ep != EP_IN:
            raise usb.core.USBError("Invalid parameter", -2, errno.EINVAL)
        with dev.cond:
            dev.cond.wait_for(lambda: dev.buf or not dev.plugged,
                              timeout / 1000 if timeout else None)
            if not dev.plugged:
                raise _gone()
            if not dev.buf:
                raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
            n = min(len(buff), len(dev.buf))
            buff[0:n] = array.array("B", bytes(dev.buf[:n]))
            del dev.buf[:n]
            return n

    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array,
                   timeout: int) -> int:
        """Host bytes to the shoe (``PING``)."""
        dev = dev_handle.device
        if not dev.plugged:
            raise _gone()
        if ep != EP_OUT:
            raise usb.core.USBError("Invalid parameter", -2, errno.EINVAL)
        payload = bytes(data)
        port = dev.port
        if port is not None and port.on_host_data is not None:
            port.on_host_data(payload)
        return len(payload)

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int, bRequest: int,  # noqa: N803
                      wValue: int, wIndex: int, data: array.array, timeout: int) -> int:  # noqa: N803
        """String descriptors only (language table and the three strings)."""
        dev = dev_handle.device
        if not dev.plugged:
            raise _gone()
        if bRequest != 0x06 or (wValue >> 8) != 3:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        index = wValue & 0xFF
        if index == 0:
            desc = bytes([4, 3, 0x09, 0x04])
        elif index in dev.strings:
            text = dev.strings[index].encode("utf-16-le")
            desc = bytes([2 + len(text), 3]) + text
        else:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        n = min(len(data), len(desc))
        data[0:n] = array.array("B", desc[:n])
        return n


class UsbPort(DevicePort):
    """A simulated USB shoe plugged into a :class:`SimUsbBackend`.

    ``dialect`` goes into :attr:`url`: the lines on the bulk endpoints are in it.
    """

    def __init__(self, backend: SimUsbBackend, *, vid: int = 0x1209, pid: int = 0x7A01,
                 serial: str = "SIM0001", dialect: str) -> None:
        self.backend = backend
        self.vid, self.pid, self.serial, self.dialect = vid, pid, serial, dialect
        self.device = backend.plug(vid, pid, serial)
        self.device.port = self
        self.name = f"usb {vid:04x}:{pid:04x} bus {self.device.bus} dev {self.device.address}"
        self.url = f"usb://{vid:04x}:{pid:04x}?dialect={dialect}"

    @property
    def host_connected(self) -> bool:
        """True while a host has the interface claimed."""
        return self.device.plugged and self.device.claimed

    def write(self, data: bytes) -> None:
        """Queue bytes on the bulk IN endpoint (dropped while no host has claimed it)."""
        dev = self.device
        with dev.cond:
            if not dev.plugged:
                raise PortGone(f"{self.name} is unplugged")
            if dev.claimed:
                dev.buf += data
                dev.cond.notify_all()

    def unplug(self) -> None:
        """Remove the device from the bus."""
        self.backend.unplug(self.device)

    def replug(self) -> UsbPort:
        """Unplug, then plug in again at a new address."""
        self.unplug()
        return self._hand_over(UsbPort(self.backend, vid=self.vid, pid=self.pid,
                                       serial=self.serial, dialect=self.dialect))
