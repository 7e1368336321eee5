"""A real daemon process and a simulated shoe, driven like a dealer's shift."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.game.auth import DEMO_PINS, hash_pin

SUP = DEMO_PINS["supervisor"]


class DaemonProcess:
    """``threecard run`` as a child process; its log lines are collected as they come."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        full_env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                    "PYTHONUNBUFFERED": "1", **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1, env=full_env)
        self.lines: list[str] = []
        self.cursor = 0
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match:
        """Wait for a log line (after the previous match) matching ``pattern``."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i in range(self.cursor, len(self.lines)):
                    m = rx.search(self.lines[i])
                    if m:
                        self.cursor = i + 1
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"no line matching {pattern!r}; log:\n"
                                         + "\n".join(self.lines[-60:]))
                self._cond.wait(min(left, 0.5))

    def wait_for_each(self, *patterns: str, timeout: float = 30.0) -> None:
        """Wait for a line (after the previous match) for each pattern, in any order: lines
        two threads log."""
        start, ends = self.cursor, []
        for pattern in patterns:
            self.cursor = start
            self.wait_for(pattern, timeout)
            ends.append(self.cursor)
        self.cursor = max(ends)

    def send(self, command: str, **fields) -> None:
        """A dealer command on the control channel (stdin, JSON lines)."""
        self.proc.stdin.write(json.dumps({"command": command, **fields}) + "\n")
        self.proc.stdin.flush()

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM and wait; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        finally:
            self._close()

    def kill(self) -> None:
        """SIGKILL: a power cut."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._close()

    def _close(self) -> None:
        self._reader.join(5)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


@pytest.fixture
def table_config(tmp_path: Path):
    """A two-seat live table whose supervisor PIN is the demo's, journal in tmp_path."""
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nid = "E2E-1"\nseats = 2\nrules = "live"\n'
        f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
        f'[roles]\nsupervisor = "{hash_pin(SUP)}"\n'
        '[log]\nlevel = "debug"\n')
    return path


@pytest.fixture
def daemons():
    """Start daemons; every one still running at the end is stopped."""
    started: list[DaemonProcess] = []

    def start(args: list[str], env: dict[str, str] | None = None) -> DaemonProcess:
        d = DaemonProcess(args, env)
        started.append(d)
        return d

    yield start
    for d in started:
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait(10)
            d._close()


class NotifySocket:
    """A systemd notify socket the test reads: ``addr`` for ``NOTIFY_SOCKET``."""

    def __init__(self, addr: str) -> None:
        self.addr = addr
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(addr)
        self.sock.settimeout(20)

    def statuses(self, timeout: float = 20.0):
        """Each STATUS sent, as it comes, for ``timeout`` seconds (then an AssertionError)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for field in self.sock.recv(4096).decode().split("\n"):
                if field.startswith("STATUS="):
                    yield field[7:]
        raise AssertionError(f"no such STATUS within {timeout:g} s")

    def status_until(self, pred, timeout: float = 20.0) -> str:
        """The first STATUS that passes ``pred``."""
        return next(s for s in self.statuses(timeout) if pred(s))


@pytest.fixture
def notify(tmp_path):
    """A notify socket in ``tmp_path``, closed at the end."""
    n = NotifySocket(str(tmp_path / "notify.sock"))
    yield n
    n.sock.close()


class ScriptedShoe:
    """A simulated native shoe on TCP dealing the cards given, in order, when asked."""

    def __init__(self, cards: str) -> None:
        from simulators.runner import ShoeRunner
        from simulators.shoe import SimulatedShoe
        from simulators.tcp_shoe import TcpPort

        self.shoe = SimulatedShoe("native", cards=cards.split())
        self.port = TcpPort(dialect="native")
        self.url = self.port.url
        self.shoe.attach(self.port)
        self.runner = ShoeRunner(self.shoe, heartbeat_ms=500)  # heartbeats only
        self.runner.start()

    def deal(self, n: int) -> None:
        for _ in range(n):
            assert self.shoe.deal() is not None

    def close(self) -> None:
        self.runner.stop()
        self.port.close()


@pytest.fixture
def scripted_shoe():
    """Make shoes on TCP that deal a given order of cards; each is closed at the end."""
    made: list[ScriptedShoe] = []

    def make(cards: str) -> ScriptedShoe:
        made.append(ScriptedShoe(cards))
        return made[-1]

    yield make
    for s in made:
        s.close()


@pytest.fixture
def journal_events():
    """The journal's events as (kind, actor, body), in order."""
    from journal_edit import events

    def read(path) -> list[tuple[str, str, dict]]:
        return [(e[3], e[4], json.loads(e[5])) for e in events(path)]

    return read
