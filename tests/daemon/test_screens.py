"""The shipped configuration opens both screens; READY comes once they are up.

The daemon runs as installed (``threecard run --config``) on a copy of
``systemd/table.toml.example`` with only the journal and the shoe moved (the journal to a
temporary folder, the shoe to the in-process simulator): fullscreen, dealer on output 0
and player on output 1, as shipped. SDL's dummy video driver has one display.
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import tomllib
from pathlib import Path

import pygame
import pytest

from controller.daemon import Daemon
from controller.game.config import load_config
from controller.notify import Notifier

EXAMPLE = Path(__file__).resolve().parents[2] / "systemd" / "table.toml.example"
SIZE = r"\d+x\d+ \(SDL video driver dummy\)"


@pytest.fixture
def shipped_config(tmp_path: Path) -> Path:
    """The example configuration, journal in tmp_path and shoe simulated; nothing else."""
    text = EXAMPLE.read_text()
    text, n_url = re.subn(r'(?m)^url = ".*?"', 'url = "sim://"', text)
    text, n_path = re.subn(r'(?m)^path = ".*?"',
                          f'path = "{tmp_path / "journal.sqlite3"}"', text)
    assert n_url == n_path == 1
    path = tmp_path / "table.toml"
    path.write_text(text)
    shipped, ours = tomllib.loads(EXAMPLE.read_text()), tomllib.loads(text)
    assert ours["display"] == shipped["display"]                 # screens as shipped
    assert ours["display"]["fullscreen"] is True
    assert (ours["display"]["dealer_output"], ours["display"]["player_output"]) == (0, 1)
    return path


@pytest.fixture
def notify_socket(tmp_path: Path):
    """A socket standing in for systemd's NOTIFY_SOCKET; yields (path, socket)."""
    addr = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(addr)
    sock.settimeout(30)
    yield addr, sock
    sock.close()


def wait_ready(sock: socket.socket) -> str:
    """Datagrams until READY=1; returns that one."""
    while True:
        msg = sock.recv(4096).decode()
        if "READY=1" in msg.split("\n"):
            return msg


def test_shipped_configuration_on_one_output_opens_the_dealer_screen_then_ready(
        shipped_config, notify_socket, daemons):
    """One output (the players' TV off): the dealer screen opens on it, alone; the player
    screen waits for output 1 and READY's STATUS says it is missing."""
    addr, sock = notify_socket
    d = daemons(["--config", str(shipped_config)], env={"NOTIFY_SOCKET": addr})
    dealer = d.wait_for(r"INFO +dealer screen on output 0, " + SIZE + "$")
    player = d.wait_for(r"WARNING +player screen waits for its output: output 1 not found "
                        r"\(1 found\)$")
    assert dealer and player
    ready_line = d.wait_for(r"READY: table TCP-01")
    ready = wait_ready(sock)
    assert "STATUS=table TCP-01 ready" in ready
    assert "; player screen missing (output 1 not found (1 found))" in ready
    log = "\n".join(d.lines)
    assert "did not open" not in log and "player screen on output" not in log
    assert log.index(player.group(0)) < log.index(ready_line.group(0))   # screens first
    assert d.stop() == 0


def run_until_ready(daemon: Daemon, sock: socket.socket) -> str:
    """Run the daemon in this thread (screens belong on the main thread) until READY."""
    got: list[str] = []

    def listen() -> None:
        try:
            got.append(wait_ready(sock))
        finally:
            daemon.stop_event.set()

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    assert daemon.run() == 0
    t.join(10)
    assert got, "no READY"
    return got[0]


def ready_with_a_second_output(size: tuple[int, int], shipped_config, notify_socket, caplog,
                               monkeypatch) -> tuple[Daemon, str]:
    """The shipped configuration run here, the machine's outputs and one more of ``size``
    reported by SDL, until READY; returns the daemon and READY's message."""
    addr, sock = notify_socket
    caplog.set_level(logging.INFO)
    pygame.display.init()
    real = pygame.display.get_desktop_sizes()
    monkeypatch.setattr(pygame.display, "get_desktop_sizes", lambda: [*real, size])
    # the outputs are followed in this process, where the second one is made up
    monkeypatch.setattr("display.outputs.HOTPLUG_DRIVERS", frozenset({"dummy"}))
    daemon = Daemon(load_config(str(shipped_config)), notifier=Notifier(addr))
    return daemon, run_until_ready(daemon, sock)


def screen_lines(caplog) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records
            if r.name == "display.app" and " screen " in r.getMessage()]


def test_two_outputs_put_the_player_screen_on_output_1(shipped_config, notify_socket,
                                                       caplog, monkeypatch):
    daemon, ready = ready_with_a_second_output((1920, 1080), shipped_config, notify_socket,
                                               caplog, monkeypatch)
    assert {n: p.output for n, p in daemon.app.placements.items()} == {"dealer": 0,
                                                                        "player": 1}
    lines = screen_lines(caplog)
    assert [lvl for lvl, _ in lines] == [logging.INFO, logging.INFO]
    assert re.fullmatch("dealer screen on output 0, " + SIZE, lines[0][1])
    assert re.fullmatch("player screen on output 1, " + SIZE, lines[1][1])
    assert "did not open" not in ready and daemon.screens_missing == []


def test_status_names_a_screen_that_did_not_open(shipped_config, notify_socket, caplog,
                                                 monkeypatch):
    """A second output that reports no size: pygame refuses a 0x0 fullscreen player
    window; the dealer screen opens all the same and READY's STATUS says what is missing."""
    daemon, ready = ready_with_a_second_output((0, 0), shipped_config, notify_socket, caplog,
                                               monkeypatch)
    status = next(f for f in ready.split("\n") if f.startswith("STATUS="))
    assert status.endswith("; screens shown nowhere (SDL video driver dummy)")
    assert "; player screen missing (did not open on output 1: " in status
    assert "dealer" not in status
    assert daemon.screens_missing == ["player"]
    lines = screen_lines(caplog)
    assert re.fullmatch("dealer screen on output 0, " + SIZE, lines[0][1])
    assert lines[1][0] == logging.ERROR
    assert lines[1][1].startswith("player screen did not open on output 1: ")


@pytest.mark.parametrize("driver", ["offscreen", "dummy"])
def test_a_video_driver_that_shows_nothing_is_named_and_warned(driver, tmp_path, notify_socket,
                                                              daemons):
    """Without a display SDL falls back to its offscreen driver: the windows "open" and no
    one sees them. The screen lines name the driver, a warning says so, and so does the
    STATUS that READY carries, so that a table missing its kmsdrm drop-in does not look
    healthy."""
    addr, sock = notify_socket
    d = daemons(["--shoe", "sim://", "--journal", str(tmp_path / "j.sqlite3")],
                env={"SDL_VIDEODRIVER": driver, "NOTIFY_SOCKET": addr, "DISPLAY": "",
                     "WAYLAND_DISPLAY": ""})
    d.wait_for(rf"WARNING +SDL video driver '{driver}': the screens are drawn but shown "
               r"nowhere \(no display found: set DISPLAY or WAYLAND_DISPLAY, or "
               r"SDL_VIDEODRIVER=kmsdrm on a console; --headless runs without screens\)")
    d.wait_for(rf"INFO +dealer screen on output 0, \d+x\d+ \(SDL video driver {driver}\)$")
    ready = wait_ready(sock)
    assert f"; screens shown nowhere (SDL video driver {driver})" in ready
    assert d.stop() == 0


def test_headless_asked_for_raises_no_warning_about_the_driver(tmp_path, daemons):
    d = daemons(["--shoe", "sim://", "--headless", "--journal", str(tmp_path / "j.sqlite3")],
                env={"SDL_VIDEODRIVER": "offscreen"})
    d.wait_for(r"READY: ")
    assert d.stop() == 0
    log = "\n".join(d.lines)
    assert "video driver" not in log and "shown nowhere" not in log
