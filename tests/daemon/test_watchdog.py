"""The systemd watchdog: fed at half of WatchdogSec, and no longer than WatchdogSec/2 after a
hung screen loop or table thread.

systemd restarts a service whose last ``WATCHDOG=1`` is older than ``WatchdogSec``
(``WATCHDOG_USEC``); ``sd_watchdog_enabled(3)`` asks for one every half interval. The
tests use a 2 s interval to stay fast: pings about 1 s apart, none later than 1 s after
a hang began.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.daemon import Daemon
from controller.game.config import load_config
from controller.notify import Notifier, WatchdogTiming

INTERVAL_S = 2.0
HALF_S = INTERVAL_S / 2


@given(st.integers(min_value=1_000, max_value=3_600_000))
def test_timing_feeds_at_half_and_gives_up_before_half(interval_ms):
    t = WatchdogTiming.for_interval(interval_ms)
    assert abs(t.feed_every_ms - interval_ms / 2) <= 1            # sd_watchdog_enabled(3)
    # the last feeding after a hang leaves at most stale_after + one check after the last
    # heartbeat: within WatchdogSec/2
    assert t.stale_after_ms + t.check_every_ms <= interval_ms / 2
    # every supervised loop beats at least once per check: three beats fit in the limit
    assert 3 * t.check_every_ms <= t.stale_after_ms
    assert t.check_every_ms <= 250


def test_the_shipped_unit_gives_a_hang_five_seconds_at_most():
    unit = (Path(__file__).resolve().parents[2] / "systemd" / "threecard-table.service")
    sec = next(int(line.split("=", 1)[1]) for line in unit.read_text().splitlines()
               if line.startswith("WatchdogSec="))
    t = WatchdogTiming.for_interval(sec * 1000)
    assert t.feed_every_ms == sec * 500
    assert t.stale_after_ms + t.check_every_ms <= sec * 500


class _Pings:
    """Collects sd_notify datagrams with their arrival time (monotonic seconds)."""

    def __init__(self, tmp_path: Path) -> None:
        self.address = str(tmp_path / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.address)
        self.sock.settimeout(0.2)
        self.messages: list[tuple[float, str]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._done.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            self.messages.append((time.monotonic(), data.decode()))

    def times(self, field: str) -> list[float]:
        return [t for t, m in list(self.messages) if field in m.split("\n")]

    def wait_for(self, field: str, count: int, timeout: float = 30.0) -> list[float]:
        deadline = time.monotonic() + timeout
        while len(self.times(field)) < count:
            assert time.monotonic() < deadline, f"{count} x {field} not received"
            time.sleep(0.02)
        return self.times(field)

    def close(self) -> None:
        self._done.set()
        self._thread.join(2)
        self.sock.close()


def test_a_real_daemon_pings_every_half_interval_while_autoplay_deals(tmp_path, daemons):
    """The demo's autoplay waits 900 ms between steps: the pings go on regardless."""
    pings = _Pings(tmp_path)
    try:
        d = daemons(["--demo", "--headless", "--seats", "2", "--pace-ms", "900",
                     "--journal", str(tmp_path / "demo.sqlite3")],
                    env={"NOTIFY_SOCKET": pings.address,
                         "WATCHDOG_USEC": str(int(INTERVAL_S * 1_000_000))})
        pings.wait_for("READY=1", 1)
        got = pings.wait_for("WATCHDOG=1", 7)
        gaps = [b - a for a, b in zip(got, got[1:], strict=False)]
        assert all(0.85 * HALF_S <= g <= 1.2 * HALF_S for g in gaps), gaps
        d.wait_for(r"round 1: dealer")          # autoplay played a round meanwhile
        assert d.stop() == 0
        assert not [line for line in d.lines if "watchdog withheld" in line], d.lines
    finally:
        pings.close()


def _config_under_watchdog(tmp_path: Path, monkeypatch):
    """A headless two-seat table on the simulated shoe, with a 2 s watchdog interval."""
    monkeypatch.setenv("WATCHDOG_USEC", str(int(INTERVAL_S * 1_000_000)))
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    return load_config(None, shoe_url="sim://?dialect=native", seats=2, headless=True,
                       journal_path=str(tmp_path / "journal.sqlite3"))


class _Hang:
    """A supervised loop that blocks once told to: the test sets ``begin``; the loop calls
    ``block_if_begun()`` on every pass, which records when it blocked and waits for
    ``release``."""

    def __init__(self) -> None:
        self.begin = threading.Event()
        self.release = threading.Event()
        self.at: list[float] = []

    def block_if_begun(self) -> None:
        if self.begin.is_set() and not self.at:
            self.at.append(time.monotonic())
            self.release.wait(30)


def _observe_hang(pings: _Pings, daemon: Daemon, hang: _Hang, phase: float) -> None:
    """After three pings and ``phase`` seconds, hang; watch for an interval and more; stop."""
    try:
        pings.wait_for("READY=1", 1)
        first = len(pings.times("WATCHDOG=1"))
        pings.wait_for("WATCHDOG=1", first + 3)
        time.sleep(phase)
        hang.begin.set()
        deadline = time.monotonic() + 10
        while not hang.at and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(INTERVAL_S + 1.0)
    finally:
        daemon.stop_event.set()
        hang.release.set()


def _run_until_hung(daemon_class: type[Daemon], hang: _Hang, tmp_path: Path, monkeypatch,
                    phase: float) -> None:
    """Run ``daemon_class`` under a 2 s watchdog; hang it (``phase`` s after a ping) and
    check that no ping goes out more than half an interval after the hang began."""
    pings = _Pings(tmp_path)
    daemon = daemon_class(_config_under_watchdog(tmp_path, monkeypatch),
                          notifier=Notifier(pings.address))
    watcher = threading.Thread(target=_observe_hang, args=(pings, daemon, hang, phase),
                               daemon=True)
    watcher.start()
    try:
        assert daemon.run() == 0
        watcher.join(5)
        assert hang.at, "the hang never began"
        all_pings = pings.times("WATCHDOG=1")
        before = [t for t in all_pings if t <= hang.at[0]]
        after = [t - hang.at[0] for t in all_pings if t > hang.at[0]]
        assert len(before) >= 3
        assert all(dt <= HALF_S for dt in after), after
        # hung shortly before a feeding, that one may still go out (the loop beat just
        # before); never the next
        assert len(after) <= 1, after
    finally:
        hang.release.set()
        pings.close()


#: when the hang begins, seconds after a ping: at once, and shortly before the next feeding
PHASES = [0.0, 0.6 * HALF_S]


@pytest.mark.parametrize("phase", PHASES)
def test_a_hung_screen_loop_stops_the_pings_within_half_an_interval(tmp_path, monkeypatch,
                                                                     caplog, phase):
    hang = _Hang()

    class HangingScreens(Daemon):
        """The real daemon and screens; the screen loop blocks once told to."""

        screen_names = ("dealer", "player")  # drawn though headless, as for an input script

        def open(self) -> None:
            super().open()
            assert self.app is not None, "the screens did not open"
            real_step = self.app.step

            def step() -> None:
                hang.block_if_begun()
                real_step()

            self.app.step = step

    with caplog.at_level(logging.INFO):
        _run_until_hung(HangingScreens, hang, tmp_path, monkeypatch, phase)
    assert "watchdog withheld: main loop silent" in caplog.text


def test_a_hung_table_thread_stops_the_pings_within_half_an_interval(tmp_path, monkeypatch,
                                                                      caplog, phase=PHASES[1]):
    hang = _Hang()

    class HangingTable(Daemon):
        """The real daemon; the table thread blocks on its next input once told to."""

        def open(self) -> None:
            super().open()
            real_process = self.table.process

            def process(items, flush=True):
                if threading.current_thread().name == "table":
                    hang.block_if_begun()
                return real_process(items, flush)

            self.table.process = process

    with caplog.at_level(logging.INFO):
        _run_until_hung(HangingTable, hang, tmp_path, monkeypatch, phase)
    assert "watchdog withheld: table thread silent" in caplog.text


def test_threads_ended_by_a_stop_withhold_nothing(tmp_path, monkeypatch, caplog):
    """A stop that ends the shoe link while the watchdog looks at the threads is no fault:
    nothing is logged as withheld (a daemon stopped after its control input ended once
    logged an ERROR for the link its own stop had ended)."""
    looked = threading.Event()

    class StoppedWhileLooking(Daemon):
        """The real daemon; its stop begins while the watchdog checks the threads."""

        def _health(self) -> list[str]:
            self.stop_event.set()  # as close() does, between the check's wait and its look
            looked.set()
            return [*super()._health(), "shoe link thread ended"]

    daemon = StoppedWhileLooking(_config_under_watchdog(tmp_path, monkeypatch),
                                 notifier=Notifier(None))
    with caplog.at_level(logging.INFO):
        assert daemon.run() == 0
    assert looked.is_set()
    assert "watchdog withheld" not in caplog.text
