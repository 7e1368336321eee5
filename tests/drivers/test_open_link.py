"""Shoe URLs, discovery, operator messages and crash reporting of the link."""

from __future__ import annotations

import errno
import logging
import os
import queue
from types import SimpleNamespace

import pytest
from fresh_python import packages_after
from shoe_rig import FAST, card_arrives, running_link, shoe_on_pty, state_is, wait_for

import drivers
import drivers.link
import simulators.sim_link  # noqa: F401  (registers sim://)
from controller.game.events import CardRead, Hello, LinkState
from drivers.link import ShoeLink
from drivers.transports import Connector, TransportError, open_error
from drivers.transports.memory import MemoryConnector
from drivers.url import parse_shoe_url
from simulators.ports import MemoryPort
from simulators.pty_shoe import PtyPort
from simulators.shoe import SimulatedShoe


@pytest.mark.parametrize(("url", "scheme", "target", "dialect", "options"), [
    ("serial:///dev/card-shoe?dialect=beetek&baud=9600", "serial", "/dev/card-shoe", "beetek",
     {"baud": "9600"}),
    ("/dev/ttyUSB0", "serial", "/dev/ttyUSB0", None, {}),
    ("serial://1a86:7523?dialect=beetek", "serial", "1a86:7523", "beetek", {}),
    ("usb://1209:7a01?dialect=native", "usb", "1209:7a01", "native", {}),
    ("socket://127.0.0.1:7100?dialect=native", "socket", "127.0.0.1:7100", "native", {}),
    ("rfc2217://10.0.0.9:4001?ign_set_control&dialect=beetek", "rfc2217", "10.0.0.9:4001",
     "beetek", {"ign_set_control": ""}),
    ("loop://", "loop", "", None, {}),
    ("sim://?seed=7&dialect=native&interval=500", "sim", "", "native",
     {"seed": "7", "interval": "500"}),
    ("memory://shoe-*?silence=1.5", "memory", "shoe-*", None, {"silence": "1.5"}),
])
def test_parse_shoe_url(url, scheme, target, dialect, options):
    parsed = parse_shoe_url(url)
    assert (parsed.scheme, parsed.target, parsed.dialect, parsed.options) == (
        scheme, target, dialect, options)


@pytest.mark.parametrize(("url", "dialect", "target", "baud"), [
    # no dialect named: beetek, the tables' shoes, at their 9600 baud
    ("/dev/ttyUSB0", "beetek", "/dev/ttyUSB0", 9600),
    ("serial:///dev/card-shoe?dialect=native", "native", "/dev/card-shoe", 115200),
    ("serial:///dev/card-shoe?dialect=native&baud=19200", "native", "/dev/card-shoe", 19200),
    ("socket://127.0.0.1:7100?dialect=native&silence=2", "native", "socket://127.0.0.1:7100",
     115200),
    ("rfc2217://10.0.0.9:4001?ign_set_control&dialect=beetek&baud=4800", "beetek",
     "rfc2217://10.0.0.9:4001?ign_set_control=", 4800),
])
def test_serial_urls_become_serial_connectors(url, dialect, target, baud):
    link = drivers.open_link(url, queue.Queue())
    assert (link.dialect, link.connector.target, link.connector.baudrate) == (
        dialect, target, baud)


def test_the_dialect_given_to_open_link_is_used_only_when_the_url_names_none():
    assert drivers.open_link("/dev/x", queue.Queue(), dialect="native").dialect == "native"
    assert drivers.open_link("/dev/x?dialect=beetek", queue.Queue(),
                             dialect="native").dialect == "beetek"


@pytest.mark.parametrize("url", ["", "ftp://x", "serial:///dev/x?dialect=klingon",
                                 "serial:///dev/x?colour=red", "serial:///dev/x?seed=3",
                                 "usb://", "usb://12:34", "memory://", "sim://?colour=red",
                                 "sim://?seed=seven", "serial:///dev/x?baud=fast"])
def test_bad_urls_are_refused(url):
    with pytest.raises(ValueError):
        drivers.open_link(url, queue.Queue())


@pytest.mark.parametrize(("url", "why"), [
    ("socket://127.0.0.1", "socket://127.0.0.1: no port (socket://HOST:PORT)"),
    ("socket://[::1]?dialect=native", "socket://[::1]?dialect=native: no port"),
    ("rfc2217://10.0.0.9", "rfc2217://10.0.0.9: no port (rfc2217://HOST:PORT)"),
    ("socket://:7100", "socket://:7100: no host (socket://HOST:PORT)"),
    ("socket://shoe:abc", "socket://shoe:abc: bad port 'abc': a number from 1 to 65535"),
    ("socket://shoe:70000", "socket://shoe:70000: bad port '70000'"),
    ("rfc2217://shoe:0", "rfc2217://shoe:0: bad port '0'"),
])
def test_a_network_url_without_host_and_port_is_refused_in_words(url, why):
    # not left to pyserial, whose open failed with a leaked type error naming no port
    with pytest.raises(ValueError) as refused:
        drivers.open_link(url, queue.Queue())
    assert str(refused.value).startswith(why)


@pytest.mark.parametrize(("url", "after"), [
    ("socket://127.0.0.1:7100?dialect=beetek", drivers.link.UNHEARD_AFTER_S),
    ("rfc2217://10.0.0.9:4001", drivers.link.UNHEARD_AFTER_S),
    ("socket://127.0.0.1:7100?dialect=native", 0.0),  # pings, and hears the shoe's answer
    ("serial:///dev/card-shoe?dialect=beetek", 0.0),  # over a serial line the shoe speaks first
])
def test_only_a_network_link_that_never_writes_asks_when_it_hears_nothing(url, after):
    assert drivers.open_link(url, queue.Queue()).unheard_after == after


def test_drivers_package_imports_no_hardware_library():
    code = ("import drivers, controller.game.events, drivers.dialects.native, "
            "drivers.dialects.beetek, drivers.link")
    assert packages_after(code, among=("serial", "usb")) == []


@pytest.mark.parametrize(("err", "kind", "words"), [
    (errno.EACCES, "permission", "dialout"),
    (errno.EBUSY, "busy", "busy"),
    (errno.EAGAIN, "busy", "fuser"),
    (errno.ENOENT, "absent", "not found"),
    (errno.ECONNREFUSED, "absent", "refused"),
    (errno.EIO, "io", "cannot open"),
])
def test_operator_messages(err, kind, words):
    e = open_error("/dev/card-shoe", err)
    assert e.kind == kind and words in e.message and "/dev/card-shoe" in e.message


def test_sim_url_deals_by_itself():
    with running_link("sim://?seed=7&dialect=native&interval=5") as (link, q):
        assert link.simulator is not None
        assert isinstance(wait_for(q, lambda ev: isinstance(ev, Hello)), Hello)
        cards = [wait_for(q, lambda ev: isinstance(ev, CardRead)).card for _ in range(3)]
        assert cards == SimulatedShoe("native", seed=7)._deck[:3]


def test_loop_url_connects_and_ignores_its_own_ping():
    with running_link("loop://?dialect=native", silence_timeout=0) as (link, q):
        wait_for(q, state_is(LinkState.ONLINE))
        assert link.ping()
    assert link.counters.frame_errors == {"crc": 0, "malformed": 0, "oversize": 0}


def test_stable_symlink_follows_the_replug(tmp_path):
    shoe, port = shoe_on_pty("native", tmp_path, seed=3)
    try:
        with running_link(port.stable_url) as (_link, q):
            wait_for(q, state_is(LinkState.ONLINE))
            shoe.inject("unplug", now=True)
            wait_for(q, state_is(LinkState.DISCONNECTED))
            new = shoe.inject("replug")
            back = wait_for(q, state_is(LinkState.ONLINE))
            assert "card-shoe" in back.detail and new.path in back.detail
            card = shoe.deal()
            assert wait_for(q, lambda ev: isinstance(ev, CardRead)).card == card
    finally:
        shoe.port.close()


def test_vid_pid_discovery_opens_the_matching_adapter(tmp_path, mocker):
    shoe, port = shoe_on_pty("beetek", seed=3)
    fake = [SimpleNamespace(device="/dev/ttyS99", vid=0x0403, pid=0x6001, serial_number="X"),
            SimpleNamespace(device=port.path, vid=0x1A86, pid=0x7523, serial_number="A5")]
    mocker.patch("serial.tools.list_ports.comports", return_value=fake)
    try:
        assert port.path in card_arrives("serial://1a86:7523:A5?dialect=beetek", shoe).detail
    finally:
        port.close()
    missing = drivers.open_link("serial://1a86:9999?dialect=beetek", queue.Queue()).connector
    with pytest.raises(TransportError, match="no USB serial adapter 1a86:9999"):
        missing.open()


def test_permission_denied_on_a_real_pty_tells_about_dialout(mocker):
    port = PtyPort(None, dialect="beetek")
    if os.geteuid() != 0:
        port.set_denied(True)
    else:  # root opens anything: make the OS answer EACCES for this one path
        real_open = os.open

        def deny(path, *a, **kw):
            if path == port.path:
                raise PermissionError(errno.EACCES, "Permission denied", path)
            return real_open(path, *a, **kw)

        mocker.patch("serial.serialposix.os.open", side_effect=deny)
    try:
        with running_link(f"serial://{port.path}?dialect=beetek") as (_link, q):
            down = wait_for(q, state_is(LinkState.DISCONNECTED))
            assert down.detail.startswith(f"permission denied on {port.path}")
            assert "dialout" in down.detail
    finally:
        port.close()


class FlakyConnector(Connector):
    """Raises an unexpected error once, then opens a memory port."""

    def __init__(self, pattern: str) -> None:
        self.inner = MemoryConnector(pattern)
        self.description = "flaky"
        self.calls = 0

    def open(self):
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("bug in discovery")
        return self.inner.open()


def test_a_crash_inside_the_link_is_reported_and_the_link_recovers(caplog):
    shoe = SimulatedShoe("native", seed=1)
    port = MemoryPort(dialect="native")
    shoe.attach(port)
    q: queue.Queue = queue.Queue()
    link = ShoeLink(FlakyConnector(f"{port.base}-*"), "native", q, **FAST)
    real_feed = link.decoder.feed
    calls = {"n": 0}

    def feed(data):
        calls["n"] += 1
        if calls["n"] == 2:
            raise ValueError("bug in feed")
        return real_feed(data)

    link.decoder.feed = feed  # type: ignore[method-assign]
    seen: list = []
    with caplog.at_level(logging.ERROR, logger="drivers.link"):
        link.start()
        try:
            crash = wait_for(q, state_is(LinkState.DISCONNECTED), seen=seen)
            assert "internal error" in crash.detail and "bug in discovery" in crash.detail
            wait_for(q, state_is(LinkState.ONLINE), seen=seen)
            wait_for(q, lambda ev: isinstance(ev, Hello), seen=seen)
            shoe.deal()
            crash2 = wait_for(q, state_is(LinkState.DISCONNECTED), seen=seen)
            assert "bug in feed" in crash2.detail
            wait_for(q, state_is(LinkState.ONLINE), seen=seen)
        finally:
            link.stop()
            port.close()
    assert link.counters.crashes == 2
    assert any("bug in" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)


@pytest.mark.parametrize("url, named", [
    ("sim://?dialect=native", "sim://?dialect=native"),
    ("sim://", "sim://?dialect=beetek"),
    ("sim://?seed=7&dialect=native", "sim://?dialect=native&seed=7"),
    ("sim://?interval=500", "sim://?dialect=beetek&interval=500")])
def test_a_simulated_shoe_is_named_by_the_options_set_only(url, named):
    """The log names the shoe: never ``seed=None``."""
    link = drivers.open_link(url, queue.Queue())
    try:
        assert link.connector.description == named
    finally:
        link.connector.close()
