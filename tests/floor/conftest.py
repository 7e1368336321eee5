"""A real Eclipse Mosquitto, the real recorder and real tables, as processes.

``floor`` starts Mosquitto on a free loopback port with a configuration generated in the
test's folder (no persistence: a broker killed loses what it held), ``threecard floor
serve``, ``threecard run --demo`` tables and ``threecard simulate`` runs, and stops every
one of them at the end. A secured broker takes its security settings from the shipped
systemd/mosquitto-threecard.conf and .acl, and its users are made as README.md says
(``mosquitto_ctrl``: each bound to its client id). Without mosquitto installed the tests
are skipped, with the reason, except in CI, where they fail: CI installs it (.ci/run).
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from floor_feed import finished
from paho.mqtt.enums import CallbackAPIVersion
from pg_server import STORES, new_store

REPO = Path(__file__).resolve().parents[2]
ACL = REPO / "systemd" / "mosquitto-threecard.acl"
CONF = REPO / "systemd" / "mosquitto-threecard.conf"
USERS_FILE = "/var/lib/mosquitto/dynamic-security.json"
"""Where the shipped configuration keeps the users (the dynamic security plugin's file)."""
ADMIN = ("floor.admin", "admin-secret")
"""The broker's administrator, as README.md names it, and its password here."""


def _find(name: str, *dirs: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in dirs:
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


MOSQUITTO = _find("mosquitto", "/usr/sbin", "/usr/local/sbin")
MOSQUITTO_CTRL = _find("mosquitto_ctrl", "/usr/bin", "/usr/local/bin")


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def need_mosquitto() -> None:
    """Skip without mosquitto (fail in CI, which must have it)."""
    if MOSQUITTO is None or MOSQUITTO_CTRL is None:
        why = "mosquitto is not installed (Debian package mosquitto)"
        if _in_ci():
            pytest.fail(f"{why}: CI installs it (.ci/run)")
        pytest.skip(why)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(cond: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


def readme_command(start: str) -> str:
    """The one line of README.md's commands that starts with ``start``."""
    lines = [line.strip() for line in (REPO / "README.md").read_text().splitlines()
             if line.strip().startswith(start)]
    assert len(lines) == 1, (start, lines)
    return lines[0]


def shipped_users(folder: Path) -> Path:
    """The plugin's users file as README.md makes it: ``mosquitto_ctrl dynsec init`` with
    the administrator, then its command that leaves reading to the ACL."""
    path = folder / "dynamic-security.json"
    subprocess.run([MOSQUITTO_CTRL, "dynsec", "init", str(path), *ADMIN], check=True,
                   capture_output=True, timeout=30)
    deny = readme_command("sed -i ").replace(USERS_FILE, shlex.quote(str(path)))
    subprocess.run(deny, shell=True, check=True, timeout=30)  # noqa: S602 - README's line
    return path


def shipped_security(users: Path) -> list[str]:
    """The security lines of systemd/mosquitto-threecard.conf (the users, the ACL), their
    files here."""
    keys = ("per_listener_settings", "allow_anonymous", "plugin", "plugin_opt_config_file",
            "acl_file")
    lines = [line.replace(USERS_FILE, str(users)).replace("/etc/mosquitto/threecard.acl",
                                                          str(ACL))
             for line in CONF.read_text().splitlines() if line.split(" ")[0] in keys]
    assert [line.split(" ")[0] for line in lines] == list(keys), lines
    return lines


class Broker:
    """Mosquitto with a generated configuration on a loopback port.

    ``users`` (name: password) are made once it first starts, as README.md says: with
    ``mosquitto_ctrl`` over the plain listener (``plain``, else the broker's port), each
    bound to the client id of its name.
    """

    def __init__(self, folder: Path, lines: list[str], tls: bool, port: int | None = None,
                 main: str | None = None, users: dict[str, str] | None = None,
                 plain: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.plain = plain or self.port
        self.tls = tls
        self.users = dict(users or {})
        self.conf = folder / "mosquitto.conf"
        tls_files = [f"cafile {folder / 'ca.pem'}", f"certfile {folder / 'broker.pem'}",
                     f"keyfile {folder / 'broker.key'}"] if tls else []
        listener = [] if port else [f"listener {self.port} 127.0.0.1", *tls_files]
        # as root mosquitto drops to a user of its own, which cannot read the test's files
        user = pwd.getpwuid(os.getuid()).pw_name
        if main is not None:  # a whole configuration of its own (the user aside)
            self.conf.write_text(f"user {user}\n{main}")
        else:
            self.conf.write_text("\n".join([
                f"user {user}", "per_listener_settings false", "persistence false",
                "max_queued_messages 100000", *lines, *listener]) + "\n")
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mqtts://localhost:{self.port}" if self.tls else f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Broker:
        log = open(self.folder / "mosquitto.log", "ab")  # noqa: SIM115 - the child keeps it
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log,
                                     stderr=subprocess.STDOUT)
        log.close()

        def up() -> bool:
            assert self.proc.poll() is None, (self.folder / "mosquitto.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return True
            except OSError:
                return False
        wait_until(up, 10, "mosquitto to listen", every=0.05)
        for user, password in self.users.items():
            self.ctrl("createClient", user, "-c", user, "-p", password)
        self.users.clear()  # kept in the plugin's file through a restart
        return self

    def ctrl(self, *command: str) -> str:
        """``mosquitto_ctrl dynsec COMMAND`` as the administrator; its output."""
        p = subprocess.run([MOSQUITTO_CTRL, "-h", "127.0.0.1", "-p", str(self.plain), "-u",
                            ADMIN[0], "-P", ADMIN[1], "dynsec", *command],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and "Error" not in p.stdout + p.stderr, p.stdout + p.stderr
        return p.stdout

    def kill(self) -> None:
        """SIGKILL: everything the broker held (sessions, queues, retained) is lost."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class Proc:
    """A ``threecard`` sub-command as a child process, its output in a file."""

    def __init__(self, args: list[str], log: Path) -> None:
        self.log = log
        self.args = args
        env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
               "PYTHONUNBUFFERED": "1"}
        with open(log, "ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "controller.cli", *args],
                                         stdout=out, stderr=subprocess.STDOUT, env=env)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match:
        rx = re.compile(pattern, re.MULTILINE)  # "$": the end of a log line

        def seen() -> re.Match | None:
            m = rx.search(self.text())
            if m is None and self.proc.poll() is not None:
                raise AssertionError(f"exited ({self.proc.returncode}) before {pattern!r}:\n"
                                     + self.text()[-4000:])
            return m
        return wait_until(seen, timeout, f"{pattern!r} in {self.log.name}")

    def stop(self, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


class BareClient:
    """A bare MQTT 5 client: what a table or a recorder could send, nothing filtered."""

    def __init__(self, broker: Any, user: str | None, password: str | None,
                 client_id: str | None = None) -> None:
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                             client_id=(user or "") if client_id is None else client_id)
        if user:
            self.c.username_pw_set(user, password)
        self.connack = None
        self.acks: dict[int, int] = {}
        self.got: list[str] = []
        self.payloads: list[tuple[str, bytes]] = []
        self.ready = threading.Event()
        self.c.on_connect = self._on_connect
        self.c.on_publish = lambda _c, _u, mid, rc, _p: self.acks.__setitem__(mid, rc.value)
        self.c.on_message = self._on_message
        self.c.on_subscribe = lambda *_a: self.ready.set()
        self.gone = threading.Event()  # the broker closed the connection
        self.c.on_disconnect = lambda *_a: self.gone.set()
        self.c.connect("127.0.0.1", broker.port)
        self.c.loop_start()
        wait_until(lambda: self.connack is not None, 10, "the broker's CONNACK", every=0.02)

    def _on_connect(self, _c, _u, _f, rc, _p) -> None:
        self.connack = rc.value

    def _on_message(self, _c, _u, m) -> None:
        self.got.append(m.topic)
        self.payloads.append((m.topic, m.payload))

    def publish(self, topic: str, payload: bytes = b"{}", retain: bool = False) -> int:
        """Publish at QoS 1; the broker's reason code (0: taken)."""
        info = self.c.publish(topic, payload, qos=1, retain=retain)
        wait_until(lambda: info.mid in self.acks, 10, f"PUBACK of {topic}", every=0.02)
        return self.acks[info.mid]

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


PASSWORDS = {"floor.recorder": "floor-secret", "TCP-A": "a-secret", "TCP-B": "b-secret",
             "floor": "f-secret"}
"""The broker's users in the secured tests: the recorder and three tables (one named
``floor``)."""


class Floor:
    """Brokers, recorders, tables and simulations for one test; all stopped at the end."""

    users = PASSWORDS
    conf, acl, users_file = CONF, ACL, USERS_FILE
    shipped_users = staticmethod(shipped_users)
    shipped_security = staticmethod(shipped_security)

    def __init__(self, folder: Path) -> None:
        need_mosquitto()
        self.folder = folder
        self.brokers: list[Broker] = []
        self.procs: list[Proc] = []
        self.clients: list[BareClient] = []

    def broker(self, lines: list[str] | None = None, tls: bool = False,
               port: int | None = None, main: str | None = None,
               users: dict[str, str] | None = None, plain: int | None = None) -> Broker:
        """A broker (not started); ``port``: its ``lines`` (or ``main``, a whole
        configuration) open their own listeners (``plain``: the one without TLS on the
        loopback, where ``users`` are made)."""
        folder = self.folder / f"broker{len(self.brokers)}"
        folder.mkdir()
        b = Broker(folder, lines if lines is not None else ["allow_anonymous true"], tls,
                   port, main, users, plain)
        self.brokers.append(b)
        return b

    def secured(self, tls: bool = False) -> Broker:
        """A broker (not started) with the shipped configuration's security settings: the
        users of :data:`PASSWORDS`, each bound to its client id, and the shipped ACL."""
        folder = self.folder / f"users{len(self.brokers)}"
        folder.mkdir()
        return self.broker(shipped_security(shipped_users(folder)), tls=tls, users=PASSWORDS)

    def client(self, broker: Broker, user: str | None = None, password: str | None = None,
               client_id: str | None = None) -> BareClient:
        """A bare client connected to ``broker`` (closed at the end); its client id is its
        user's name unless ``client_id`` says otherwise."""
        c = BareClient(broker, user, password, client_id)
        self.clients.append(c)
        return c

    def secret(self, name: str, text: str) -> Path:
        """A password file (mode 0600) holding ``text``."""
        path = self.folder / name
        path.write_text(text + "\n")
        os.chmod(path, 0o600)
        return path

    def run(self, name: str, *args: str) -> Proc:
        p = Proc(list(args), self.folder / f"{name}.log")
        self.procs.append(p)
        return p

    def recorder(self, broker: Broker, store: Path, *extra: str, name: str = "recorder",
                 wait: bool = True) -> Proc:
        p = self.run(name, "floor", "serve", "--broker", broker.url, "--store", str(store),
                     *extra)
        if wait:
            p.wait_for("recorder connected")
        return p

    def table(self, broker: Broker, table_id: str, journal: Path, pace_ms: int,
              *extra: str) -> Proc:
        """``threecard run --demo`` (simulated shoe, autoplay) feeding the floor."""
        return self.run(table_id, "run", "--demo", "--headless", "--seats", "2",
                        "--pace-ms", str(pace_ms), "--journal", str(journal),
                        "--floor", broker.url, "--table-id", table_id, *extra)

    def secured_table(self, broker: Broker, table_id: str, journal: Path, pace_ms: int,
                      **settings: str) -> Proc:
        """``threecard run --demo --config``: its ``[floor]`` names ``broker``, ``settings``
        and the table's password file (its user being its table id)."""
        config = self.folder / f"{table_id}.toml"
        password = self.secret(f"{table_id}.pw", self.users[table_id])
        lines = "".join(f'{k} = "{v}"\n' for k, v in
                        {"broker": broker.url, **settings, "password_file": password}.items())
        config.write_text(f'[table]\nid = "{table_id}"\n[journal]\npath = "{journal}"\n'
                          f'[floor]\n{lines}')
        return self.run(table_id, "run", "--demo", "--config", str(config), "--headless",
                        "--seats", "2", "--pace-ms", str(pace_ms))

    free_port = staticmethod(free_port)
    wait_until = staticmethod(wait_until)

    finished = staticmethod(finished)

    @staticmethod
    def stored(store: Path, table: str) -> list[dict]:
        """The table's rounds in the store (its newest journal), newest first."""
        from floor.store import Store, StoreError

        try:
            s = Store(store, readonly=True)
        except StoreError:
            return []
        try:
            journals = s.journals(table)
            return s.rounds(table, journals[-1]) if journals else []
        finally:
            s.close()

    @staticmethod
    def cli_json(*commands: list[str]) -> list[Any]:
        """The JSON output of ``threecard`` commands run side by side (each must succeed)."""
        procs = [subprocess.Popen([sys.executable, "-m", "controller.cli", *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for args in commands]
        out = []
        for p in procs:
            stdout, stderr = p.communicate(timeout=120)
            assert p.returncode == 0, stderr
            out.append(json.loads(stdout))
        return out

    def close(self) -> None:
        for c in self.clients:
            c.close()
        for p in self.procs:
            p.kill()
        for b in self.brokers:
            b.kill()


@pytest.fixture
def floor(tmp_path):
    f = Floor(tmp_path)
    yield f
    f.close()


@pytest.fixture(scope="module")
def module_floor(tmp_path_factory):
    """A :class:`Floor` the tests of a module share (a broker started once for all)."""
    f = Floor(tmp_path_factory.mktemp("floor"))
    yield f
    f.close()


def need_postgresql() -> Path:
    """The PostgreSQL server's programs; skip without them or psycopg (fail in CI)."""
    from pg_server import pg_bin

    found = pg_bin()
    why = None
    if found is None:
        why = "PostgreSQL is not installed (Debian package postgresql)"
    else:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            why = "psycopg is not installed (pip install 'threecard-table[floor]')"
    if why is not None:
        if _in_ci():
            pytest.fail(f"{why}: CI installs it (.ci/run, the test extra)")
        pytest.skip(why)
    return found


@pytest.fixture(scope="session")
def pg_server():
    """One PostgreSQL server for the whole run (one per test process)."""
    from pg_server import PgServer

    server = PgServer(need_postgresql(), os.environ.get("PYTEST_XDIST_WORKER", ""))
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(params=STORES)
def store_kind(request) -> str:
    """Each kind of store in turn (:data:`pg_server.STORES`)."""
    return request.param


@pytest.fixture
def store_at(request, store_kind, tmp_path) -> str:
    """A new, empty store of each kind (a path or a URL) for the test."""
    return new_store(request, store_kind, tmp_path)
