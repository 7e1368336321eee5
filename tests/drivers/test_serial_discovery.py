"""Finding a serial shoe: VID:PID matches that must name one port, natural port order."""

from __future__ import annotations

import os
import queue
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from serial.tools.list_ports_common import ListPortInfo
from shoe_rig import card_arrives, running_link, shoe_on_pty, state_is, wait_for

import drivers
from controller.game.events import LinkState
from drivers.transports import TransportError, serial_port
from drivers.transports.serial_port import SerialConnector

ROOT = Path(__file__).resolve().parents[2]


def adapter(device: str, vid: int = 0x1A86, pid: int = 0x7523, serial: str | None = None,
            location: str | None = None) -> ListPortInfo:
    """A port as pyserial's comports() lists a USB-serial adapter."""
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number, info.location = vid, pid, serial, location
    info.apply_usb_info()
    return info


@pytest.fixture
def no_open(mocker):
    """Fail the test if any port is opened."""
    return mocker.patch("serial.serial_for_url",
                        side_effect=AssertionError("a port was opened on a guess"))


def test_two_serial_less_adapters_are_refused_and_both_named(mocker, no_open):
    mocker.patch.object(serial_port, "by_path_names", return_value={})  # no udev here
    mocker.patch("serial.tools.list_ports.comports", return_value=[
        adapter("/dev/ttyUSB10", location="1-1.3:1.0"),
        adapter("/dev/ttyS0", vid=None, pid=None),
        adapter("/dev/ttyUSB2", location="1-1.2:1.0"),
    ])
    with pytest.raises(TransportError) as err:
        SerialConnector("1a86:7523").open()
    message = err.value.message
    assert err.value.kind == "config"
    assert "2 USB serial ports match 1a86:7523" in message
    # both candidates, by number (2 before 10), each with the USB port it is plugged into
    assert re.search(r"/dev/ttyUSB2 \(USB port 1-1\.2\), /dev/ttyUSB10 \(USB port 1-1\.3\)",
                     message), message
    assert "/dev/serial/by-path" in message and "KERNELS" in message
    assert "no serial number" in message
    assert "ttyS0" not in message
    no_open.assert_not_called()


def test_ambiguity_reaches_the_operator_through_the_link(mocker, no_open):
    mocker.patch("serial.tools.list_ports.comports", return_value=[
        adapter("/dev/ttyUSB0", location="3-1:1.0"), adapter("/dev/ttyUSB1", location="3-2:1.0")])
    with running_link("serial://1a86:7523?dialect=beetek") as (_link, q):
        status = wait_for(q, state_is(LinkState.DISCONNECTED))
    assert "refusing to guess" in status.detail and "/dev/ttyUSB0" in status.detail
    assert "/dev/ttyUSB1" in status.detail and "/dev/serial/by-path" in status.detail
    no_open.assert_not_called()


def test_adapters_with_serial_numbers_suggest_the_serial(mocker, no_open):
    mocker.patch("serial.tools.list_ports.comports", return_value=[
        adapter("/dev/ttyUSB3", 0x0403, 0x6001, "A50285BI", "1-1.4:1.0"),
        adapter("/dev/ttyUSB1", 0x0403, 0x6001, "FT9XK2QL", "1-1.1:1.0")])
    with pytest.raises(TransportError) as err:
        SerialConnector("0403:6001").open()
    message = err.value.message
    assert message.index("/dev/ttyUSB1") < message.index("/dev/ttyUSB3")
    assert "serial FT9XK2QL" in message and "serial A50285BI" in message
    assert "serial://0403:6001:SERIAL" in message
    no_open.assert_not_called()


def test_two_adapters_with_one_serial_number_are_still_refused(mocker, no_open):
    """Cheap clones share one fake serial: the serial in the URL does not tell them apart."""
    mocker.patch("serial.tools.list_ports.comports", return_value=[
        adapter("/dev/ttyUSB0", serial="0001"), adapter("/dev/ttyUSB1", serial="0001")])
    with pytest.raises(TransportError, match="2 USB serial ports match 1a86:7523:0001") as err:
        SerialConnector("1a86:7523:0001").open()
    assert err.value.kind == "config" and "no serial number that tells them apart" in str(
        err.value)
    no_open.assert_not_called()


def test_the_serial_number_picks_one_of_two_adapters_on_a_real_pty(mocker):
    shoe, port = shoe_on_pty("beetek", seed=5)
    mocker.patch("serial.tools.list_ports.comports", return_value=[
        adapter("/dev/ttyUSB0", 0x0403, 0x6001, "OTHER"),
        adapter(port.path, 0x0403, 0x6001, "SHOE")])
    try:
        assert port.path in card_arrives("serial://0403:6001:SHOE?dialect=beetek", shoe).detail
    finally:
        port.close()


def test_the_by_path_name_the_message_gives_opens_the_shoe(mocker, tmp_path):
    """The refusal names each candidate's by-path link; that link opens the right port."""
    shoe, port = shoe_on_pty("beetek", seed=6)
    by_path = tmp_path / "by-path"
    by_path.mkdir()
    shoe_link = by_path / "platform-xhci-hcd.0-usb-0:1.2:1.0-port0"
    shoe_link.symlink_to(port.path)
    mocker.patch.object(serial_port, "BY_PATH", str(by_path))
    mocker.patch("serial.tools.list_ports.comports", return_value=[
        adapter(port.path, location="1-1.2:1.0"), adapter("/dev/ttyUSB9", location="1-1.3:1.0")])
    try:
        with pytest.raises(TransportError) as err:
            SerialConnector("1a86:7523").open()
        assert f"{port.path} ({shoe_link})" in err.value.message
        assert "/dev/ttyUSB9 (USB port 1-1.3)" in err.value.message
        card_arrives(f"serial://{shoe_link}?dialect=beetek", shoe)
    finally:
        port.close()


def test_one_matching_adapter_among_others_is_opened(mocker):
    _shoe, port = shoe_on_pty("beetek", seed=8)
    mocker.patch("serial.tools.list_ports.comports", return_value=[
        adapter("/dev/ttyUSB0", 0x0403, 0x6001), adapter(port.path)])
    try:
        assert SerialConnector("1a86:7523").candidates() == [port.path]
    finally:
        port.close()


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(min_value=0, max_value=300), min_size=2, max_size=12))
def test_globbed_ports_come_in_number_order(tmp_path_factory, numbers):
    where = tmp_path_factory.mktemp("dev")
    for n in numbers:
        (where / f"ttyUSB{n}").touch()
    found = SerialConnector(str(where / "ttyUSB*")).candidates()
    assert found == [os.path.join(where, f"ttyUSB{n}") for n in sorted(numbers)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=300), min_size=2, max_size=8, unique=True))
def test_ambiguous_candidates_are_listed_in_number_order(numbers):
    ports = [adapter(f"/dev/ttyUSB{n}", location=f"1-1.{n}:1.0") for n in numbers]
    ports.sort(key=lambda p: serial_port.numsplit(p.device))
    message = serial_port.ambiguous_message("1a86:7523", ports, None)
    listed = [int(n) for n in re.findall(r"/dev/ttyUSB(\d+) ", message)]
    assert listed == sorted(numbers)


def test_the_udev_example_matches_serial_less_adapters_by_usb_port():
    rules = (ROOT / "systemd" / "99-card-shoe.rules").read_text()
    active = [line for line in rules.splitlines() if line and not line.startswith("#")]
    tty = [line for line in active if 'SUBSYSTEM=="tty"' in line]
    assert len(tty) == 1, "one active rule names the shoe's tty"
    rule = tty[0]
    assert re.search(r'KERNELS=="\d+-\d+(\.\d+)*"', rule), rule  # the USB device, no ":1.0"
    assert 'ATTRS{idVendor}=="1a86"' in rule and 'SYMLINK+="card-shoe"' in rule
    assert "ATTRS{serial}" not in rule
    assert "by-path" in rules and "without a serial number" in rules


@pytest.mark.parametrize("target", ["zzzz:7523", "1a86:75", "1a8:7523", "usb:1a86"])
def test_a_malformed_vid_pid_is_refused_not_opened_as_a_relative_path(target, no_open):
    """serial://zzzz:7523 was opened as the file zzzz:7523 in the working folder."""
    with pytest.raises(ValueError, match=r"neither a device path \(which starts with /\) nor a "
                       r"USB adapter's VID:PID\[:SERIAL\], where VID and PID are four hex "
                       r"digits each"):
        drivers.open_link(f"serial://{target}", queue.Queue())
    no_open.assert_not_called()


@pytest.mark.parametrize("target", ["/dev/ttyUSB0", "1a86:7523", "1A86:7523:A50285BI",
                                    "/dev/serial/by-path/pci-0000:00:14.0-usb-0:1.2:1.0",
                                    "card-shoe"])
def test_device_paths_and_vid_pids_are_still_taken(target):
    drivers.open_link(f"serial://{target}", queue.Queue())


def test_no_matching_adapter_names_the_python_that_lists_the_ports(mocker, no_open):
    """The hint runs where pyserial is installed: the table's own Python (its venv)."""
    import sys

    mocker.patch("serial.tools.list_ports.comports", return_value=[])
    with pytest.raises(TransportError) as err:
        SerialConnector("1a86:7523").open()
    assert f"(see '{sys.executable} -m serial.tools.list_ports -v')" in err.value.message
