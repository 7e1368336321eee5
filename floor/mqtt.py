"""The broker connection both ends share: URL, TLS, credentials, topics and payloads."""

from __future__ import annotations

import logging
import os
import re
import ssl
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.game.broker import parse_broker_url, topic_prefix_problem

NAMES = ("round", "event", "meters", "state", "status", "resend", "witness")
# The broker publishes a silent table's last will after 1.5 times this; Mosquitto looks
# every 5-6 s, so the floor hears it within 14 s.
KEEPALIVE_S = 5
MAX_PASSWORD_BYTES = 4096


class Throttle:
    """Logs a problem that recurs (a broker refusing, unreachable) at most once a minute.

    Then with a count; at debug in between; :meth:`clear` when it is over.
    """

    def __init__(self, logger: logging.Logger, every_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.every_s = every_s
        self.clock = clock
        self._last: dict[str, tuple[float, int]] = {}  # kind -> (logged at, repeats since)

    def log(self, kind: str, level: int, msg: str, *args: Any) -> None:
        """Log ``msg % args`` at ``level``, unless ``kind`` was logged less than a minute ago."""
        now = self.clock()
        if len(self._last) > 1000:  # kinds made of what arrives: never more than this
            self._last = {k: v for k, v in self._last.items() if now - v[0] < self.every_s}
        last = self._last.get(kind)
        if last is not None and now - last[0] < self.every_s:
            self._last[kind] = (last[0], last[1] + 1)
            self.logger.debug(msg, *args)
            return
        if last is not None and last[1]:
            msg += f" ({last[1]} more time(s) in the last {now - last[0]:.0f} s)"
        self._last[kind] = (now, 0)
        self.logger.log(level, msg, *args)

    def clear(self, *kinds: str) -> None:
        """The problems are over: log each again at once when it recurs."""
        for kind in kinds:
            self._last.pop(kind, None)


class FloorError(ValueError):
    """A floor setting that cannot be used; its text names the setting as ``[floor]`` does."""

    def __init__(self, setting: str, detail: str) -> None:
        super().__init__(f"[floor] {setting}{detail}")
        self.setting = setting
        self.detail = detail

    def as_option(self) -> str:
        """The same text naming the command-line option (``--ca-file``) instead."""
        return f"--{self.setting.replace('_', '-')}{self.detail}"


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """How to reach the floor's broker (``[floor]`` of the table's configuration).

    ``broker`` is ``mqtt://host[:1883]`` or ``mqtts://host[:8883]``; an empty ``ca_file``
    means the system's CAs, an empty ``username`` the table id when a password is set.
    """

    broker: str
    ca_file: str = ""
    client_cert: str = ""
    client_key: str = ""
    username: str = ""
    password_file: str = ""
    topic_prefix: str = "threecard"

    @property
    def tls(self) -> bool:
        """True for ``mqtts://``."""
        return parse_broker_url(self.broker)[0] == "mqtts"

    def topic(self, table_id: str, name: str) -> str:
        """``<prefix>/<table id>/<name>``."""
        return f"{self.topic_prefix}/{table_id}/{name}"

    def password(self) -> str | None:
        """The password (first line of :attr:`password_file`), or None; FloorError if unusable."""
        if not self.password_file:
            return None
        try:
            data = Path(self.password_file).read_bytes()[:MAX_PASSWORD_BYTES + 1]
        except OSError as exc:
            raise FloorError("password_file", f" {self.password_file}: cannot read: "
                             f"{exc.strerror or exc}") from None
        lines = data.decode("utf-8", "replace").splitlines()
        if not lines or not lines[0] or len(data) > MAX_PASSWORD_BYTES:
            raise FloorError("password_file", f" {self.password_file}: the first line must "
                             "hold the password")
        return lines[0]

    def check(self) -> None:
        """Check the URL and every file TLS and the password read, up front (FloorError)."""
        try:
            parse_broker_url(self.broker)
        except ValueError as exc:
            raise FloorError("broker", f": {exc}") from None
        if (problem := topic_prefix_problem(self.topic_prefix)) is not None:
            raise FloorError("topic_prefix", f": {problem}")
        for name in ("ca_file", "client_cert", "client_key"):
            path = getattr(self, name)
            if path and not Path(path).is_file():
                raise FloorError(name, f" {path}: no such file")
        if bool(self.client_cert) != bool(self.client_key):
            raise FloorError("client_cert", ": goes with client_key (set both or neither)")
        if self.ca_file:
            try:
                ssl.create_default_context(cafile=self.ca_file)
            except (OSError, ssl.SSLError, ValueError) as exc:
                raise FloorError("ca_file", f" {self.ca_file}: not a PEM file of CA "
                                 f"certificates ({_reason(exc)})") from None
        if self.client_cert:
            try:
                ssl.create_default_context().load_cert_chain(self.client_cert,
                                                             self.client_key)
            except (OSError, ssl.SSLError, ValueError) as exc:
                raise FloorError("client_cert", f" {self.client_cert} with client_key "
                                 f"{self.client_key}: not a PEM certificate and its key "
                                 f"({_reason(exc)})") from None
        self.password()

    def warn_open_secrets(self, logger: logging.Logger, as_option: bool = False) -> None:
        """Warn once of a password file or client key group or others can read (README: 0600)."""
        for name in ("password_file", "client_key"):
            path = getattr(self, name)
            try:
                mode = stat.S_IMODE(os.stat(path).st_mode) if path else 0
            except OSError:
                continue  # unreadable: check() or the connection says so
            if mode & 0o044:
                where = f"--{name.replace('_', '-')}" if as_option else f"[floor] {name}"
                logger.warning("floor: %s %s is mode %04o: group or others can read it; "
                               "make it 0600 (chmod 600 %s)", where, path, mode, path)

    def client(self, client_id: str, *, table_id: str = "", reconnect_on_failure: bool = True,
               manual_ack: bool = False) -> mqtt.Client:
        """A paho client (MQTT 5) with TLS and credentials set, not connected.

        ``table_id`` is the user when none is set and a password is; ``manual_ack``: a message
        is acknowledged only by ``client.ack``.

        Raises:
            FloorError: a file cannot be read or TLS cannot be set up with it.
        """
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                        protocol=mqtt.MQTTv5, reconnect_on_failure=reconnect_on_failure,
                        manual_ack=manual_ack)
        password = self.password()
        user = self.username or (table_id if password is not None else "")
        if user:
            c.username_pw_set(user, password)
        if self.tls:
            try:
                c.tls_set(ca_certs=self.ca_file or None, certfile=self.client_cert or None,
                          keyfile=self.client_key or None, cert_reqs=ssl.CERT_REQUIRED)
            except (OSError, ssl.SSLError, ValueError) as exc:
                raise FloorError("ca_file", f" {self.ca_file or '(the system CAs)'}, "
                                 f"client_cert, client_key: TLS cannot use them "
                                 f"({_reason(exc)})") from None
        c.reconnect_delay_set(min_delay=1, max_delay=2)
        return c

    def connect(self, client: mqtt.Client, *, clean_start: bool, session_expiry_s: int = 0,
                wait: bool = True) -> None:
        """Open the connection (CONNACK comes later, to ``on_connect``).

        Args:
            client: a client from :meth:`client`.
            clean_start: start a new session (the table's), or resume one (the recorder's).
            session_expiry_s: how long the broker keeps the session while disconnected.
            wait: connect the socket now (else paho's network loop does, and retries).

        Raises:
            OSError: ``wait`` and the broker cannot be reached (refused, unreachable, TLS).
        """
        _, host, port = parse_broker_url(self.broker)
        props = Properties(PacketTypes.CONNECT)
        if session_expiry_s:
            props.SessionExpiryInterval = session_expiry_s
        (client.connect if wait else client.connect_async)(
            host, port, keepalive=KEEPALIVE_S, clean_start=clean_start, properties=props)


def unreachable_why(settings: FloorSettings, exc: OSError) -> str:
    """Why :meth:`FloorSettings.connect` failed, in a few words (a hint for TLS to a plain port)."""
    text = str(exc)
    plain_port = isinstance(exc, (ConnectionResetError, ConnectionAbortedError,
                                  BrokenPipeError, ssl.SSLEOFError, ssl.SSLZeroReturnError))
    if settings.tls and (plain_port or (isinstance(exc, ssl.SSLError) and
                                        "WRONG_VERSION_NUMBER" in text.upper())):
        _, _, port = parse_broker_url(settings.broker)
        text += (f": does port {port} speak TLS? A plain MQTT port (mqtt://, usually 1883) "
                 "closes a TLS connection so; the broker's TLS port is usually 8883")
    return text


def _reason(exc: Exception) -> str:
    if isinstance(exc, ssl.SSLError):
        text = str(exc.reason or "") or re.sub(r"^\[\w+\]\s*|\s*\(_ssl\.c:\d+\)$", "",
                                               exc.args[-1] if exc.args else str(exc))
        return text.replace("_", " ").lower()
    return getattr(exc, "strerror", None) or str(exc)


def settings_from(config: Any) -> FloorSettings:
    """The :class:`FloorSettings` of a table's configuration (its ``floor_*`` fields)."""
    return FloorSettings(config.floor_broker, config.floor_ca_file, config.floor_client_cert,
                         config.floor_client_key, config.floor_username,
                         config.floor_password_file, config.floor_topic_prefix)
