"""The broker connection both ends share: URL, TLS, credentials, topics and payloads.

paho-mqtt 2.x speaks MQTT 5 to the broker (Eclipse Mosquitto in the shipped
configuration, ``systemd/mosquitto-threecard.conf``): the broker's reason codes tell a
publish it refused (an ACL) from one it took.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.game.config import TABLE_ID_PATTERN, parse_broker_url

NAMES = ("round", "event", "meters", "state", "status", "resend")
"""The topic names under ``<prefix>/<table id>/`` (:mod:`floor` describes each)."""
KEEPALIVE_S = 5
"""Seconds between keep-alive pings: the broker notices a connection gone silent (a hung
table, a power cut, a pulled cable) after 1.5 times this, and publishes the table's last
will (``offline``). Mosquitto counts in whole seconds and looks every 5 or 6 seconds: the
floor hears it within 14 seconds."""
MAX_PASSWORD_BYTES = 4096


class FloorError(ValueError):
    """A floor setting that cannot be used (the message names the setting)."""


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """How to reach the floor's broker (``[floor]`` of the table's configuration).

    Attributes:
        broker: ``mqtt://host[:1883]`` or ``mqtts://host[:8883]`` (TLS).
        ca_file: PEM file of the CA that signed the broker's certificate (empty: the
            system's CAs).
        client_cert, client_key: PEM files of a client certificate, when the broker asks.
        username: the user on the broker (empty: none, or the table id for a table with a
            password file).
        password_file: a file whose first line is the password (empty: none).
        topic_prefix: the topics' first levels.
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

    def wildcard(self, name: str) -> str:
        """``<prefix>/+/<name>``: the topic of every table."""
        return f"{self.topic_prefix}/+/{name}"

    def split(self, topic: str) -> tuple[str, str] | None:
        """(table id, name) of one of our topics, or None for any other topic."""
        head, _, rest = topic.rpartition("/")
        prefix, _, table = head.rpartition("/")
        if prefix != self.topic_prefix or rest not in NAMES \
                or not TABLE_ID_PATTERN.fullmatch(table):
            return None
        return table, rest

    def password(self) -> str | None:
        """The password (first line of :attr:`password_file`), or None without one.

        Raises:
            FloorError: the file cannot be read, is empty or too long.
        """
        if not self.password_file:
            return None
        try:
            data = Path(self.password_file).read_bytes()[:MAX_PASSWORD_BYTES + 1]
        except OSError as exc:
            raise FloorError(f"floor password_file {self.password_file}: cannot read: "
                             f"{exc.strerror or exc}") from None
        lines = data.decode("utf-8", "replace").splitlines()
        if not lines or not lines[0] or len(data) > MAX_PASSWORD_BYTES:
            raise FloorError(f"floor password_file {self.password_file}: the first line must "
                             "hold the password")
        return lines[0]

    def check(self) -> None:
        """Check the URL and that every file named can be read, before anything starts.

        Raises:
            FloorError: naming the setting.
        """
        try:
            parse_broker_url(self.broker)
        except ValueError as exc:
            raise FloorError(f"floor broker: {exc}") from None
        for name in ("ca_file", "client_cert", "client_key"):
            path = getattr(self, name)
            if path and not Path(path).is_file():
                raise FloorError(f"floor {name} {path}: no such file")
        if bool(self.client_cert) != bool(self.client_key):
            raise FloorError("floor client_cert and client_key go together")
        self.password()

    def client(self, client_id: str, *, table_id: str = "", reconnect_on_failure: bool = True,
               manual_ack: bool = False) -> mqtt.Client:
        """A paho client (MQTT 5) with TLS and credentials set, not connected.

        Args:
            client_id: the client identifier (one per table, one per recorder).
            table_id: the table's id: the user when none is set and a password is.
            reconnect_on_failure: let paho's network loop reconnect by itself.
            manual_ack: acknowledge a message received only when ``client.ack`` is called.

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
                raise FloorError(f"floor TLS files: {exc}") from None
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


def settings_from(config: Any) -> FloorSettings:
    """The :class:`FloorSettings` of a table's configuration (its ``floor_*`` fields)."""
    return FloorSettings(config.floor_broker, config.floor_ca_file, config.floor_client_cert,
                         config.floor_client_key, config.floor_username,
                         config.floor_password_file, config.floor_topic_prefix)
