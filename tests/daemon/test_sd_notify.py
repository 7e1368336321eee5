"""The daemon speaks sd_notify: READY, regular WATCHDOG pings, STOPPING on SIGTERM."""

from __future__ import annotations

import re
import socket
import time

from shoe_rig import shoe_on_pty

from simulators.runner import ShoeRunner

# WatchdogSec as test_watchdog.py sets it: pings every second. With 1 s, a thread that the
# loaded two cores keep waiting 375 ms is taken for hung and a ping withheld
INTERVAL_S = 2.0


def test_ready_watchdog_and_stopping(tmp_path, table_config, daemons):
    addr = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(addr)
    sock.settimeout(20)
    shoe, port = shoe_on_pty("native", tmp_path, seed=1)
    runner = ShoeRunner(shoe, heartbeat_ms=500)
    runner.start()
    try:
        d = daemons(["--config", str(table_config), "--shoe", port.stable_url, "--headless"],
                    env={"NOTIFY_SOCKET": addr,
                         "WATCHDOG_USEC": str(int(INTERVAL_S * 1_000_000))})
        messages: list[tuple[float, str]] = []

        def receive_until(pred) -> None:
            while not pred():
                messages.append((time.monotonic(), sock.recv(4096).decode()))

        receive_until(lambda: any("READY=1" in m for _, m in messages))
        ready_at = next(t for t, m in messages if "READY=1" in m)
        receive_until(lambda: sum("WATCHDOG=1" in m for _, m in messages) >= 4)
        pings = [t for t, m in messages if "WATCHDOG=1" in m]
        gaps = [b - a for a, b in zip(pings, pings[1:], strict=False)]
        assert all(g < INTERVAL_S for g in gaps), gaps     # more often than WatchdogSec
        assert pings[0] >= ready_at - 1.0
        assert any(m.startswith("STATUS=") or "\nSTATUS=" in m for _, m in messages)
        d.proc.send_signal(15)
        receive_until(lambda: any("STOPPING=1" in m for _, m in messages))
        assert d.proc.wait(20) == 0
    finally:
        runner.stop()
        port.close()
        sock.close()


def test_ready_even_with_the_shoe_unplugged(tmp_path, table_config, daemons):
    addr = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(addr)
    sock.settimeout(20)
    try:
        d = daemons(["--config", str(table_config), "--headless",
                     "--shoe", f"serial://{tmp_path}/no-such-shoe?dialect=beetek"],
                    env={"NOTIFY_SOCKET": addr})
        got = ""
        while "READY=1" not in got:
            got = sock.recv(4096).decode()
        d.wait_for("no-such-shoe")                # the link says what is wrong
        assert d.stop() == 0
    finally:
        sock.close()


def test_a_reader_that_stops_reading_never_stalls_the_daemon(tmp_path):
    from controller.notify import Notifier

    addr = str(tmp_path / "full.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(addr)
    n = Notifier(addr)
    t0 = time.monotonic()
    results = [n.watchdog() for _ in range(2000)]
    assert time.monotonic() - t0 < 5
    assert results[0] is True and results[-1] is False     # the queue filled, we went on
    n.close()
    sock.close()


def test_start_up_extends_the_start_timeout_while_it_verifies_the_journal(
        tmp_path, table_config, daemons):
    """Each sign of progress of the journal check asks systemd for more time (before READY).

    The second start has events to verify (those after the anchored snapshot); a journal
    much larger than a test's (a hundred thousand rounds without an anchor) takes minutes
    on a small computer, past the unit's TimeoutStartSec.
    """
    from controller.daemon import JOURNAL_CHECK_EXTEND_S

    first = daemons(["--config", str(table_config), "--headless"])
    first.wait_for("READY")
    assert first.stop() == 0
    addr = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(addr)
    sock.settimeout(20)
    try:
        d = daemons(["--config", str(table_config), "--headless"], env={"NOTIFY_SOCKET": addr})
        messages: list[str] = []
        while not any("READY=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        ready = next(i for i, m in enumerate(messages) if "READY=1" in m)
        extend = [m for m in messages[:ready] if m.startswith("EXTEND_TIMEOUT_USEC=")]
        assert extend, messages
        usec = int(extend[0].splitlines()[0].partition("=")[2])
        assert usec == JOURNAL_CHECK_EXTEND_S * 1_000_000
        assert "STATUS=verifying the journal:" in extend[0]
        assert d.stop() == 0
    finally:
        sock.close()


def test_status_follows_the_shoe_between_rounds(tmp_path, table_config, daemons, notify):
    """STATUS says the shoe's state when it changes, not only when a round ends: a shoe
    unplugged while no round is dealt is never left reading "online"."""
    shoe, port = shoe_on_pty("native", tmp_path, seed=1)
    runner = ShoeRunner(shoe, heartbeat_ms=500)
    runner.start()
    try:
        d = daemons(["--config", str(table_config), "--shoe", port.stable_url, "--headless"],
                    env={"NOTIFY_SOCKET": notify.addr})
        notify.status_until(lambda s: "; shoe online" in s)
        runner.stop()
        port.close()                                    # the shoe unplugged, no round dealt
        gone = notify.status_until(lambda s: "; shoe " in s and "; shoe online" not in s)
        assert gone.startswith("table ") and " running; shoe " in gone, gone
        assert d.stop() == 0
    finally:
        runner.stop()
        port.close()


def test_status_names_the_round_that_ended(tmp_path, daemons, notify):
    """Rounds that come as quickly as autoplay deals them: each STATUS names the round
    that settled, not the one the table has opened since."""
    d = daemons(["--autoplay", "--headless", "--shoe", "sim://?dialect=native", "--seats",
                 "2", "--rounds", "4", "--supervisor-pin", "2468", "--journal",
                 str(tmp_path / "fast.sqlite3")], env={"NOTIFY_SOCKET": notify.addr})
    said = []
    for status in notify.statuses(60):
        m = re.match(r"round (\d+) settled; (\d+) settled", status)
        if m:
            said.append((int(m[1]), int(m[2])))
            if said[-1][1] == 4:
                break
    assert said == [(n, n) for n in range(1, 5)], said   # the simulated shoe voids none
    assert d.proc.wait(30) == 0
