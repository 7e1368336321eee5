"""README's certificates: its OpenSSL commands, run as written, make what the floor runs on.

The commands of README.md "Certificates" make the floor's CA, the broker's certificate
(its host name as subjectAltName) and each table's client certificate, under the file
names systemd/mosquitto-threecard.conf and the table's ``[floor]`` keys
(systemd/table.toml.example) give them. A Mosquitto on the shipped configuration's TLS
and client-certificate lines, its security settings and ACL, takes a table connecting
with them as its configuration names them (the table's own client,
:class:`floor.mqtt.FloorSettings`): its certificate is its user, so it may publish under
its own id only; a connection without a certificate is refused.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from controller.floor_link import check_floor
from controller.game.config import load_config
from floor.mqtt import settings_from

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "systemd" / "mosquitto-threecard.conf"
EXAMPLE = REPO / "systemd" / "table.toml.example"
TABLE, OTHER = "TCP-A", "TCP-B"


def _readme_blocks() -> list[str]:
    """The shell blocks of README.md's "Certificates": the one making them, the one
    installing them."""
    text = (REPO / "README.md").read_text()
    section = text[text.index("\n### Certificates\n"):]
    section = section[:re.search(r"\n##+ ", section[1:]).start() + 1]
    return re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)


def _set(script: str, name: str, value: str) -> str:
    """The script with its one ``name=...`` line setting ``value`` instead."""
    line = re.compile(rf"^{name}=.*$", re.M)
    assert len(line.findall(script)) == 1, name
    return line.sub(f"{name}={value}", script)


def _shipped_names(path: Path, keys: tuple[str, ...], pattern: str) -> dict[str, str]:
    """key -> file name of the lines of ``path`` setting ``keys`` (commented or not)."""
    found = {m.group(1): m.group(2) for m in re.finditer(pattern, path.read_text(), re.M)}
    assert set(keys) <= set(found), found
    return {k: Path(found[k]).name for k in keys}


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """The folder README's commands made the certificates in, for the broker on
    ``localhost`` and tables TCP-A and TCP-B."""
    assert shutil.which("openssl"), "openssl is installed"
    make, _ = _readme_blocks()
    script = _set(_set(make, "broker", "localhost"), "tables", f'"{TABLE} {OTHER}"')
    folder = tmp_path_factory.mktemp("certificates")
    subprocess.run(["sh", "-e", "-c", script], cwd=folder, check=True, capture_output=True,
                   timeout=60)
    return folder


def test_the_files_made_are_named_as_the_shipped_configurations_name_them(made):
    _, install = _readme_blocks()
    broker = _shipped_names(CONF, ("cafile", "certfile", "keyfile"),
                            r"^#?\s*(\w+) /etc/mosquitto/certs/(\S+)$")
    table = _shipped_names(EXAMPLE, ("ca_file", "client_cert", "client_key"),
                           r'^#?\s*(\w+) = "(/etc/threecard-table/\S+)"')
    for name in broker.values():
        assert (made / name).is_file() and name in install, name
    assert (made / table["ca_file"]).is_file()
    for key in ("client_cert", "client_key"):
        assert (made / TABLE / table[key]).is_file(), key
        assert f"TCP-01/{table[key]}" in install, key
    assert "/etc/mosquitto/certs" in install and "/etc/threecard-table" in install


def _broker_lines(made: Path, floor, port: int) -> list[str]:
    """The shipped configuration's security settings, its TLS listener on ``port`` with
    the files ``made``, and its client-certificate lines uncommented."""
    lines = [f"listener {port} 127.0.0.1"]
    for line in CONF.read_text().splitlines():
        words = line.lstrip("# ").split()
        if words[:1] in (["cafile"], ["certfile"], ["keyfile"]):
            lines.append(line.replace("/etc/mosquitto/certs/", f"{made}/"))
        elif words[:2] in (["require_certificate", "true"], ["use_identity_as_username", "true"],
                           ["use_username_as_clientid", "true"]):
            lines.append(" ".join(words[:2]))  # commented out in the shipped file
    assert len(lines) == 7, lines
    users = floor.folder / "users"
    users.mkdir()
    return [*floor.shipped_security(floor.shipped_users(users)), *lines]


def _table_config(made: Path, folder: Path, broker_url: str, certificate: bool = True):
    """TCP-A's configuration: its files installed as README says, its ``[floor]`` the
    example's lines."""
    etc = folder / "etc"
    etc.mkdir(exist_ok=True)
    shutil.copy(made / "floor-ca.pem", etc)
    for name in ("floor-client.pem", "floor-client.key"):
        shutil.copy(made / TABLE / name, etc)
    keys = ("ca_file", "client_cert", "client_key") if certificate else ("ca_file",)
    floor_lines = [line.lstrip("# ").split("  #")[0].replace("/etc/threecard-table/", f"{etc}/")
                   for line in EXAMPLE.read_text().splitlines()
                   if line.lstrip("# ").split(" ")[0] in keys]
    path = folder / ("table.toml" if certificate else "no-certificate.toml")
    path.write_text(f'[table]\nid = "{TABLE}"\n[journal]\npath = "{folder / "j.sqlite3"}"\n'
                    f'[floor]\nbroker = "{broker_url}"\n' + "\n".join(floor_lines) + "\n")
    return load_config(path)


class _Table:
    """The table's client to the broker, made and connected as its feed does."""

    def __init__(self, config, floor) -> None:
        self.settings = settings_from(config)
        self.client = self.settings.client(TABLE, table_id=TABLE, reconnect_on_failure=False)
        self.connack: int | None = None
        self.acks: dict[int, int] = {}
        self.gone = threading.Event()
        self.client.on_connect = lambda _c, _u, _f, rc, _p: setattr(self, "connack", rc.value)
        self.client.on_publish = lambda _c, _u, mid, rc, _p: self.acks.__setitem__(mid, rc.value)
        self.client.on_disconnect = lambda *_a: self.gone.set()
        self.floor = floor
        try:
            self.settings.connect(self.client, clean_start=True)
        except OSError:  # the TLS handshake refused
            self.gone.set()
            return
        self.client.loop_start()

    def connected(self) -> bool:
        """Whether the broker accepted the connection (False: refused or closed)."""
        self.floor.wait_until(lambda: self.connack is not None or self.gone.is_set(), 10,
                              "CONNACK or the connection closed", every=0.02)
        return self.connack == 0 and not self.gone.is_set()

    def publish(self, table: str) -> int:
        """Publish a status under ``table``'s id at QoS 1; the broker's reason code."""
        info = self.client.publish(f"threecard/{table}/status", b"{}", qos=1)
        self.floor.wait_until(lambda: info.mid in self.acks, 10, "PUBACK", every=0.02)
        return self.acks[info.mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_table_connects_with_them_and_publishes_only_as_itself(made, floor, tmp_path):
    port = floor.free_port()
    broker = floor.broker(_broker_lines(made, floor, port), tls=True, port=port).start()
    config = _table_config(made, tmp_path, broker.url)
    assert broker.url.startswith("mqtts://localhost:")  # the name in broker.pem
    assert config.floor_client_cert.endswith("/floor-client.pem")
    check_floor(config)  # the table's own check of its files, as it starts
    table = _Table(config, floor)
    try:
        assert table.connected(), (broker.folder / "mosquitto.log").read_text()
        assert table.publish(TABLE) in (0, 16)  # taken (16: no one subscribes)
        assert table.publish(OTHER) == 135  # its certificate names it TCP-A: not authorized
    finally:
        table.close()
    bare = _Table(_table_config(made, tmp_path, broker.url, certificate=False), floor)
    try:
        assert not bare.connected()  # no client certificate: refused
    finally:
        bare.close()
    assert f"acl_file {floor.acl}" in broker.conf.read_text()
