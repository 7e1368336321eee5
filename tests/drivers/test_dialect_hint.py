"""A wrong dialect is not silent: the link, the table's screens and ``decode`` all say so.

A shoe speaking one dialect on a link set for the other sends bytes that no decoder
turns into a frame. The link counts them; after ``NO_FRAME_AFTER_MS`` it logs "no frame
decoded from N bytes: is the dialect right?" once, posts ``NoFrameDecoded``, the table
turns it into a dealer banner, and the first frame that decodes clears it. A network
link that never writes and hears no byte at all after connecting asks too (a native shoe
on TCP waits for the table's first message).
"""

from __future__ import annotations

import logging
import queue
import subprocess
import sys
import threading
import time

import pygame
import pytest
from shoe_rig import running_link, shoe_on_pty, state_is, wait_for

import drivers
import drivers.link
from controller.game.engine import TableConfig
from controller.game.events import CardRead, Heartbeat, LinkState, LinkStatus, NoFrameDecoded
from controller.game.table import Table
from display.dealer import DealerScreen
from display.theme import FontBook
from drivers.dialects.native import encode_line
from simulators.pty_shoe import PtyPort
from simulators.runner import ShoeRunner
from simulators.shoe import SimulatedShoe
from simulators.tcp_shoe import TcpPort

CMD = [sys.executable, "-m", "controller.cli"]
HINT = "is the dialect right?"
online = state_is(LinkState.ONLINE)


@pytest.fixture
def quick_hint(monkeypatch):
    """The hint after 1 s instead of 5 s (one test below keeps the shipped 5 s)."""
    monkeypatch.setattr(drivers.link, "NO_FRAME_AFTER_MS", 1000)
    return 1.0


@pytest.fixture
def native_shoe_on_pty():
    """A native shoe on a real pty, sending HELLO and a heartbeat every 100 ms."""
    shoe, port = shoe_on_pty("native", seed=11)
    runner = ShoeRunner(shoe, heartbeat_ms=100)
    runner.start()
    yield shoe, port, runner
    runner.stop()
    port.close()


@pytest.fixture
def noise_on_pty():
    """A port sending 16 bytes every 100 ms that no dialect decodes (a wrong baud rate)."""
    port = PtyPort(None, dialect="beetek")
    stop = threading.Event()

    def send() -> None:
        while not stop.wait(0.1):
            if port.host_connected:
                port.write(NOISE)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    yield port
    stop.set()
    sender.join()
    port.close()


NOISE = bytes(range(0x80, 0x90))


def test_bytes_no_dialect_decodes_after_the_stated_five_seconds(noise_on_pty, caplog):
    port = noise_on_pty
    assert drivers.link.NO_FRAME_AFTER_MS == 5000
    caplog.set_level(logging.INFO, logger="drivers.link")
    with running_link(f"serial://{port.path}?dialect=beetek") as (link, q):
        wait_for(q, online)
        connected = time.monotonic()
        hint = wait_for(q, lambda ev: isinstance(ev, NoFrameDecoded), timeout=10)
        waited = time.monotonic() - connected
    assert 5.0 <= waited < 7.0, waited
    assert hint.dialect == "beetek" and not hint.cleared
    # seconds of noise, every byte of it undecoded
    assert 20 * len(NOISE) <= hint.nbytes <= link.counters.bytes_read
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING
                and HINT in r.getMessage()]
    assert warnings == [f"shoe {port.path}: no frame decoded from {hint.nbytes} bytes: "
                        f"is the dialect right? (this link decodes the beetek dialect)"]


def test_native_bytes_on_a_beetek_link_are_named_at_once(native_shoe_on_pty, caplog):
    """The shipped 5 s are for bytes no dialect decodes: a native heartbeat is named at once."""
    _shoe, port, _runner = native_shoe_on_pty
    caplog.set_level(logging.WARNING, logger="drivers.link")
    with running_link(f"serial://{port.path}?dialect=beetek") as (_link, q):
        wait_for(q, online)
        hint = wait_for(q, lambda ev: isinstance(ev, NoFrameDecoded), timeout=2)
    assert hint.dialect == "beetek" and not hint.cleared and hint.nbytes > 0
    assert [r.getMessage() for r in caplog.records] == [
        f"shoe {port.path}: no frame decoded from {hint.nbytes} bytes: is the dialect right? "
        f"(this link decodes the beetek dialect; the bytes decode as the native dialect)"]


def test_hint_once_per_episode_then_cleared_by_a_right_frame(native_shoe_on_pty, quick_hint,
                                                             caplog):
    _shoe, port, runner = native_shoe_on_pty
    caplog.set_level(logging.INFO, logger="drivers.link")
    seen: list = []
    with running_link(f"serial://{port.path}?dialect=beetek") as (link, q):
        wait_for(q, online, seen=seen)
        hint = wait_for(q, lambda ev: isinstance(ev, NoFrameDecoded), seen=seen)
        assert hint.nbytes >= drivers.link.NO_FRAME_MIN_BYTES
        time.sleep(3 * quick_hint)  # heartbeats keep coming: no second hint
        runner.stop()
        port.write(b"[Game]<Card:4S>\r\n")  # a beetek frame: the right dialect at last
        card = wait_for(q, lambda ev: isinstance(ev, CardRead), seen=seen)
    assert card.card == "4s"
    hints = [ev for ev in seen if isinstance(ev, NoFrameDecoded)]
    assert [h.cleared for h in hints] == [False, True]
    assert seen.index(hints[1]) < seen.index(card)  # cleared as the frame decodes
    messages = [r.getMessage() for r in caplog.records]
    assert sum(HINT in m for m in messages) == 1
    assert any("frames decode again" in m for m in messages)
    assert link.counters.no_frame_hints == 1 and link.counters.undecoded_bytes == 0


SILENCE = 0.25
"""The native link's heartbeat timeout in the tests of a beetek shoe (3 s shipped)."""


def take_events(q, seconds: float, seen: list) -> None:
    """Append to ``seen`` every event ``q`` gives for ``seconds``."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            seen.append(q.get(timeout=left))
        except queue.Empty:
            return


def test_a_beetek_shoe_on_a_native_link_is_named_at_once_and_not_called_silent(caplog):
    """A beetek shoe has no heartbeat: the link names the dialect, never "no heartbeat"."""
    caplog.set_level(logging.WARNING, logger="drivers.link")
    shoe, port = shoe_on_pty("beetek", seed=12)
    seen: list = []
    try:
        with running_link(f"serial://{port.path}?dialect=native",
                          silence_timeout=SILENCE) as (link, q):
            wait_for(q, online, seen=seen)
            dealt = shoe.deal()  # one beetek card token, before the heartbeat is missed
            hint = wait_for(q, lambda ev: isinstance(ev, NoFrameDecoded), seen=seen,
                            timeout=SILENCE / 2)
            take_events(q, 2 * SILENCE, seen)  # a quiet beetek shoe: still no alarm
            shoe.deal()
            take_events(q, 2 * SILENCE, seen)
            assert link.state == LinkState.ONLINE and link.counters.silences == 0
            port.write(encode_line(0, "HB", "10"))  # a native line at last
            wait_for(q, lambda ev: isinstance(ev, Heartbeat), seen=seen)
            take_events(q, 2 * SILENCE, seen)  # a native shoe must keep up its heartbeat
    finally:
        port.close()
    sent = len(f"[Game]<Card:{shoe._encoder.card_code(dealt)}>\r\n")
    assert hint.nbytes == sent and hint.dialect == "native"
    assert not any(isinstance(ev, CardRead) for ev in seen)  # never a guessed card
    states = [ev.state for ev in seen if isinstance(ev, LinkStatus)]
    assert states == [LinkState.CONNECTING, LinkState.ONLINE, LinkState.SILENT]
    assert seen.index(hint) < [getattr(ev, "state", None) for ev in seen].index(
        LinkState.SILENT)
    assert [h.cleared for h in seen if isinstance(h, NoFrameDecoded)] == [False, True]
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings[0] == (f"shoe {port.path}: no frame decoded from {sent} bytes: {HINT} "
                           f"(this link decodes the native dialect; the bytes decode as the "
                           f"beetek dialect)")
    assert not any("no heartbeat" in m for m in warnings[:1])


def test_a_silent_native_link_is_online_again_when_a_beetek_shoe_talks():
    """Quiet since the connect, the shoe is called silent; its first card says why."""
    shoe, port = shoe_on_pty("beetek", seed=13)
    seen: list = []
    try:
        with running_link(f"serial://{port.path}?dialect=native",
                          silence_timeout=SILENCE) as (_link, q):
            wait_for(q, state_is(LinkState.SILENT), seen=seen)
            shoe.deal()
            back = wait_for(q, online, seen=seen)
    finally:
        port.close()
    (hint,) = [ev for ev in seen if isinstance(ev, NoFrameDecoded)]
    assert seen.index(hint) < seen.index(back)  # the dialect is named first
    assert back.detail == f"shoe on {port.path} talking again"


def test_a_few_noise_bytes_are_no_wrong_dialect(quick_hint):
    """A power-up glitch of an adapter (a few bytes, then quiet) raises no hint."""
    port = PtyPort(None, dialect="beetek")
    seen: list = []
    try:
        with running_link(f"serial://{port.path}?dialect=beetek") as (link, q):
            wait_for(q, online, seen=seen)
            port.write(b"\x00\xff\x00")
            time.sleep(2.5 * quick_hint)
            while not q.empty():
                seen.append(q.get_nowait())
    finally:
        port.close()
    assert not any(isinstance(ev, NoFrameDecoded) for ev in seen)
    assert link.counters.undecoded_bytes == 3


@pytest.fixture(scope="module")
def dealer_screen():
    pygame.display.init()
    pygame.font.init()
    return DealerScreen(FontBook(), "en")


def banner_texts(screen, view, size=(1920, 1080)):
    frame = screen.draw(pygame.Surface(size), view)
    return frame, [t for t in frame.texts if t.role.startswith("banner.")]


def test_the_dealer_screen_shows_the_hint_until_a_frame_decodes(native_shoe_on_pty, quick_hint,
                                                                tmp_path, dealer_screen):
    """Native shoe, beetek link, a real table: the banner comes, then goes."""
    _shoe, port, runner = native_shoe_on_pty
    table = Table(tmp_path / "journal.sqlite3", TableConfig(seats=2)).start()
    try:
        with running_link(f"serial://{port.path}?dialect=beetek", table.inbox):
            deadline = time.monotonic() + 10
            while not any(b.kind == "no_frame" for b in table.views()[0].banners):
                assert time.monotonic() < deadline, table.views()[0].banners
                table.wait_for_version(table.version, 0.2)
            dealer, player = table.views()
            (banner,) = [b for b in dealer.banners if b.kind == "no_frame"]
            nbytes = int(banner.params["bytes"])
            assert nbytes >= drivers.link.NO_FRAME_MIN_BYTES
            assert banner.message == f"no frame decoded from {nbytes} bytes: {HINT}"
            assert banner.severity == "warning" and "dialect" in banner.action
            assert dealer.state == "betting"  # no card was read: the round is untouched
            assert not any(b.kind == "no_frame" for b in player.banners)  # a technician's matter
            for size in ((1920, 1080), (800, 480)):
                frame, texts = banner_texts(dealer_screen, dealer, size)
                shown = [t for t in texts if HINT in t.text]
                assert shown and not any(t.truncated for t in shown), size
                assert shown[0].text == f"no frame decoded from {nbytes} bytes: {HINT}"
            runner.stop()
            port.write(b"[Game]<Game>\r\n")  # a beetek misread token: a frame decodes
            deadline = time.monotonic() + 10
            while any(b.kind == "no_frame" for b in table.views()[0].banners):
                assert time.monotonic() < deadline
                table.wait_for_version(table.version, 0.2)
            _frame, texts = banner_texts(dealer_screen, table.views()[0])
            assert not any(HINT in t.text for t in texts)
    finally:
        table.stop()


def test_the_hint_survives_a_restart_of_the_table(tmp_path):
    """The note is rebuilt from the journal like every other: replay shows the same."""
    path = tmp_path / "journal.sqlite3"
    table = Table(path, TableConfig(seats=2))
    table.process([LinkStatus(state=LinkState.ONLINE),
                   NoFrameDecoded(nbytes=140, dialect="beetek")])
    table.close()
    again = Table(path, TableConfig(seats=2))
    try:
        (banner,) = [b for b in again.views()[0].banners if b.kind == "no_frame"]
        assert banner.message == f"no frame decoded from 140 bytes: {HINT}"
        again.process([NoFrameDecoded(dialect="beetek", cleared=True)])
        assert not any(b.kind == "no_frame" for b in again.views()[0].banners)
    finally:
        again.close()


@pytest.mark.parametrize(("dialect", "data"), [
    ("beetek", encode_line(5, "CARD", "Qh") + encode_line(6, "HB", "1000")),
    ("native", b"[Game]<Card:4S>\r\n[Game]<Card:10H>\r\n"),
])
def test_decode_exits_1_with_the_hint_when_no_frame_decodes(dialect, data):
    out = subprocess.run([*CMD, "decode", "--dialect", dialect], input=data,
                         capture_output=True, timeout=60, check=False)
    assert out.returncode == 1
    assert out.stdout == b""
    assert out.stderr.decode().strip() == (
        f"threecard decode: no frame decoded from {len(data)} bytes: {HINT} "
        f"(decoded as {dialect})")


def test_decode_of_the_right_dialect_or_of_nothing_gives_no_hint(tmp_path):
    capture = tmp_path / "capture.bin"
    capture.write_bytes(b"noise " + encode_line(5, "CARD", "Qh"))
    right = subprocess.run([*CMD, "decode", "--dialect", "native", str(capture)],
                           capture_output=True, timeout=60, check=False)
    assert right.returncode == 0 and HINT not in right.stderr.decode()
    empty = subprocess.run([*CMD, "decode", "--dialect", "native"], input=b"",
                           capture_output=True, timeout=60, check=False)
    assert empty.returncode == 0 and empty.stderr == b""


UNHEARD = ("nothing heard from the shoe since it connected: a native shoe waits for the "
           "table's first message — is the dialect right? (this link speaks beetek)")


@pytest.fixture
def shoe_on_tcp():
    """A simulated shoe of the dialect given on a TCP port; closed at the end."""
    ports = []

    def make(dialect: str) -> tuple[SimulatedShoe, TcpPort]:
        shoe, port = SimulatedShoe(dialect, seed=5), TcpPort(dialect=dialect)
        shoe.attach(port)
        ports.append(port)
        return shoe, port

    yield make
    for port in ports:
        port.close()


def test_a_native_shoe_on_tcp_read_as_beetek_is_named_to_the_log_and_the_dealer(
        shoe_on_tcp, tmp_path, dealer_screen, caplog):
    """The native shoe waits for the PING a beetek link never sends: nothing would come."""
    _shoe, port = shoe_on_tcp("native")
    table = Table(tmp_path / "journal.sqlite3", TableConfig(seats=2)).start()
    try:
        with running_link(f"socket://{port.name}?dialect=beetek", table.inbox,
                          unheard_after=0.3) as (link, _q):
            deadline = time.monotonic() + 10
            while not any(b.kind == "no_frame" for b in table.views()[0].banners):
                assert time.monotonic() < deadline, table.views()[0].banners
                table.wait_for_version(table.version, 0.2)
            (banner,) = [b for b in table.views()[0].banners if b.kind == "no_frame"]
            assert banner.message == UNHEARD and "dialect" in banner.action
            assert link.counters.bytes_read == 0
            _frame, texts = banner_texts(dealer_screen, table.views()[0])
            shown = [t for t in texts if HINT in t.text]  # its words, or the kind's label
            assert shown and not any(t.truncated for t in shown)
    finally:
        table.stop()
    said = [r for r in caplog.records if "nothing heard" in r.getMessage()]
    assert [(r.levelname, r.getMessage()) for r in said] == [
        ("WARNING", f"shoe socket://{port.name}: {UNHEARD}")]


def test_a_beetek_shoe_quiet_after_its_first_card_is_no_alarm(shoe_on_tcp):
    """Only a connection that never heard a byte asks: a shoe quiet between deals does not."""
    shoe, port = shoe_on_tcp("beetek")
    with running_link(port.url, unheard_after=0.2) as (link, q):
        seen: list = []
        hint = wait_for(q, lambda ev: isinstance(ev, NoFrameDecoded), seen=seen)
        assert (hint.nbytes, hint.cleared) == (0, False)  # quiet since connecting: asks
        card = shoe.deal()
        assert wait_for(q, lambda ev: isinstance(ev, CardRead), seen=seen).card == card
        assert NoFrameDecoded(dialect="beetek", cleared=True) in seen  # the first byte
        take_events(q, 0.6, seen)  # three times as quiet as it took to ask the first time
        assert [ev for ev in seen if isinstance(ev, NoFrameDecoded)] == [
            hint, NoFrameDecoded(dialect="beetek", cleared=True)]
        assert link.counters.unheard_hints == 1


def test_the_table_logs_the_wrong_dialect_once_the_link_having_said_it(tmp_path, caplog):
    """The link's warning names the port and the dialect; the banner's line is debug only."""
    from controller.round_log import RoundLog

    table = Table(tmp_path / "journal.sqlite3", TableConfig(seats=2))
    try:
        table.process([LinkStatus(state=LinkState.ONLINE),
                       NoFrameDecoded(nbytes=140, dialect="beetek")])
        with caplog.at_level(logging.DEBUG, logger="threecard"):
            RoundLog().update(*table.views())
    finally:
        table.close()
    said = [(r.levelname, r.getMessage()) for r in caplog.records if HINT in r.getMessage()]
    assert said == [("DEBUG", f"no_frame: no frame decoded from 140 bytes: {HINT}")]
