"""Per-table credentials, the shipped ACL, and TLS with a CA made for the test.

The broker runs with the security settings of systemd/mosquitto-threecard.conf, the ACL
shipped in systemd/mosquitto-threecard.acl and users made as README.md says (the dynamic
security plugin, each user bound to its client id): a table logged in as itself cannot
publish as another table (the broker refuses it: PUBACK "Not authorized"), nor ask another
table to resend; a wrong password and no password are refused; the recorder reads every
table. Then a whole feed runs over TLS (``mqtts://``), the broker on the whole shipped
configuration (its files made here) installed as it says, in the conf.d of Debian's own
mosquitto.conf, with those users: a table whose ``[floor]`` names the CA that signed the
broker's certificate (and its password file, its user being its table id) reaches the
recorder; a recorder trusting another CA refuses the broker and says why.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import time
from pathlib import Path
from types import SimpleNamespace

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

RECORDER = "floor.recorder"


def _tables(store: Path) -> list[tuple[str, str | None]]:
    from floor.store import Store

    s = Store(store, readonly=True)
    try:
        return [(t.table_id, t.status) for t in s.tables()]
    finally:
        s.close()


NOT_AUTHORIZED = 135


def test_the_broker_refuses_a_table_publishing_as_another(floor):
    broker = floor.secured().start()
    recorder = floor.client(broker, RECORDER, floor.users[RECORDER])
    recorder.c.subscribe("threecard/#", qos=1)
    assert recorder.connack == 0 and recorder.ready.wait(5)
    a = floor.client(broker, "TCP-A", floor.users["TCP-A"])
    # it reads only its own resend requests and status
    a.c.subscribe([("threecard/+/resend", 1), ("threecard/+/status", 1)])
    b = floor.client(broker, "TCP-B", floor.users["TCP-B"])
    named_floor = floor.client(broker, "floor", floor.users["floor"])
    named_floor.c.subscribe("threecard/#", qos=1)
    try:
        assert a.connack == 0 and a.ready.wait(5)
        assert named_floor.connack == 0 and named_floor.ready.wait(5)
        assert b.publish("threecard/TCP-B/status") == 0
        assert a.publish("threecard/TCP-A/status") == 0
        assert a.publish("threecard/TCP-B/round") == NOT_AUTHORIZED
        assert a.publish("threecard/TCP-B/status") == NOT_AUTHORIZED
        assert a.publish("threecard/TCP-B/resend") == NOT_AUTHORIZED  # only the floor asks
        assert a.publish("threecard/TCP-A/resend") == NOT_AUTHORIZED
        assert a.publish("threecard/TCP-A/round") == 0
        assert recorder.publish("threecard/TCP-B/resend") == 0
        assert recorder.publish("threecard/TCP-A/resend") == 0
        # the recorder publishes nothing but resend requests: the pattern lines give its
        # user only topics no table id can name (it holds a dot)
        for topic in ("threecard/TCP-A/round", "threecard/floor/round",
                      "threecard/floor/status"):
            assert recorder.publish(topic) == NOT_AUTHORIZED, topic
        # a table named "floor" is a table like any other: none of the recorder's rights
        assert named_floor.publish("threecard/floor/round") == 0
        for topic in ("threecard/TCP-A/resend", "threecard/TCP-A/round",
                      "threecard/floor/resend"):
            assert named_floor.publish(topic) == NOT_AUTHORIZED, topic
        time.sleep(0.3)
        assert recorder.got == ["threecard/TCP-B/status", "threecard/TCP-A/status",
                                "threecard/TCP-A/round", "threecard/TCP-B/resend",
                                "threecard/TCP-A/resend", "threecard/floor/round"]
        assert a.got == ["threecard/TCP-A/status", "threecard/TCP-A/resend"]
        assert named_floor.got == []  # it reads no other table
    finally:
        a.close()
        b.close()
        named_floor.close()
        recorder.close()
    for user, password in (("TCP-B", "a-secret"), ("TCP-B", None), (None, None)):
        c = floor.client(broker, user, password)
        assert c.connack is not None and c.connack >= 128, (user, password, c.connack)
        c.close()


def _ca(name: str):
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def _server(ca_key, ca_cert):
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return key, cert


def _pem(path: Path, cert=None, key=None) -> Path:
    if cert is not None:
        path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    else:
        path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return path


DEBIAN_MOSQUITTO_CONF = """\
# Place your local configuration in /etc/mosquitto/conf.d/
#
# A full description of the configuration file is at
# /usr/share/doc/mosquitto/examples/mosquitto.conf.example

pid_file /run/mosquitto/mosquitto.pid

persistence true
persistence_location /var/lib/mosquitto/

log_dest file /var/log/mosquitto/mosquitto.log

include_dir /etc/mosquitto/conf.d
"""
"""/etc/mosquitto/mosquitto.conf as Debian's package ``mosquitto`` installs it."""


def _replaced(text: str, pairs) -> str:
    for shipped, here in pairs:
        assert shipped in text, shipped
        text = text.replace(shipped, str(here))
    return text


def _shipped_conf(floor, folder: Path, port: int, plain: int) -> str:
    """Debian's mosquitto.conf with systemd/mosquitto-threecard.conf in its conf.d, as the
    example says to install it: its files in ``folder``, on loopback ports."""
    conf_d = folder / "conf.d"
    conf_d.mkdir()
    (conf_d / "threecard.conf").write_text(_replaced(
        floor.conf.read_text(),
        ((floor.users_file, floor.shipped_users(folder)),
         ("/etc/mosquitto/threecard.acl", floor.acl),
         ("/etc/mosquitto/certs/floor-ca.pem", folder / "ca.pem"),
         ("/etc/mosquitto/certs/broker.pem", folder / "broker.pem"),
         ("/etc/mosquitto/certs/broker.key", folder / "broker.key"),
         ("listener 8883", f"listener {port} 127.0.0.1"),
         ("listener 1883 127.0.0.1", f"listener {plain} 127.0.0.1"))))
    return _replaced(DEBIAN_MOSQUITTO_CONF, (
        ("/run/mosquitto/mosquitto.pid", folder / "mosquitto.pid"),
        ("/var/lib/mosquitto/", f"{folder}/"),
        ("/var/log/mosquitto/mosquitto.log", folder / "mosquitto.log"),
        ("/etc/mosquitto/conf.d", conf_d)))


def test_a_feed_over_tls_with_per_table_credentials(floor, tmp_path):
    # the broker runs the shipped configuration in Debian's: TLS, the users bound to their
    # client ids, ACL, persistence
    port, plain = floor.free_port(), floor.free_port()
    folder = tmp_path / "certs"
    folder.mkdir()
    broker = floor.broker(tls=True, port=port, main=_shipped_conf(floor, folder, port, plain),
                          users=floor.users, plain=plain)
    ca_key, ca = _ca("floor test CA")
    _, other = _ca("another CA")
    key, cert = _server(ca_key, ca)
    ca_file = _pem(folder / "ca.pem", cert=ca)
    _pem(folder / "broker.pem", cert=cert)
    _pem(folder / "broker.key", key=key)
    wrong_ca = _pem(tmp_path / "other-ca.pem", cert=other)
    broker.start()
    assert broker.url.startswith("mqtts://localhost:")

    store = tmp_path / "floor.sqlite3"
    floor_pw = floor.secret("floor.pw", floor.users[RECORDER])
    floor.recorder(broker, store, "--ca-file", str(ca_file), "--username", RECORDER,
                   "--password-file", str(floor_pw))
    # a recorder trusting another CA refuses the broker, and says why
    wrong = floor.recorder(broker, tmp_path / "other.sqlite3", "--ca-file", str(wrong_ca),
                           "--username", RECORDER, "--password-file", str(floor_pw),
                           "--client-id", "other-recorder", name="wrong-ca", wait=False)
    journal = tmp_path / "TCP-A.sqlite3"
    table = floor.secured_table(broker, "TCP-A", journal, 20, ca_file=str(ca_file))
    wrong.wait_for(r"broker mqtts://localhost:\d+ unreachable \(.*certificate verify failed",
                   30)
    # the shipped configuration's packet limit, read from the broker's CONNACK
    table.wait_for(r"floor: connected to mqtts://localhost:\d+ as TCP-A \(packets of at most "
                   r"262144 bytes\)$", 60)
    table.wait_for(r"round 3: dealer", 30)
    assert table.stop() == 0

    deadline = time.monotonic() + 15
    while floor.stored(store, "TCP-A") != floor.finished(journal):
        assert time.monotonic() < deadline, "the TLS feed did not reach the store"
        time.sleep(0.2)
    assert floor.stored(tmp_path / "other.sqlite3", "TCP-A") == []
    assert floor.users["TCP-A"] not in table.text()  # the password is never logged

    # a packet over 256 KiB never reaches the recorder: the broker closes the connection
    b = floor.client(SimpleNamespace(port=plain), "TCP-B", floor.users["TCP-B"])
    assert b.connack == 0
    status = {"table": "TCP-B", "journal": "b" * 64, "status": "online", "pad": "x" * 300_000}
    b.c.publish("threecard/TCP-B/status", json.dumps(status).encode(), qos=1)
    assert b.gone.wait(10)
    time.sleep(0.5)
    assert "TCP-B" not in {t for t, _ in _tables(store)}


def test_a_plain_connection_to_a_tls_port_or_a_wrong_password_is_said_once_a_minute(
        floor, tmp_path):
    tls = floor.broker(tls=True)
    ca_key, ca = _ca("floor test CA")
    key, cert = _server(ca_key, ca)
    _pem(tls.folder / "ca.pem", cert=ca)
    _pem(tls.folder / "broker.pem", cert=cert)
    _pem(tls.folder / "broker.key", key=key)
    tls.start()
    plain = f"mqtt://127.0.0.1:{tls.port}"
    secured = floor.secured().start()
    wrong = floor.secret("wrong.pw", "not the password")
    procs = [
        floor.run("TCP-T", "run", "--demo", "--headless", "--seats", "2", "--pace-ms", "50",
                  "--journal", str(tmp_path / "journal.sqlite3"), "--floor", plain,
                  "--table-id", "TCP-T"),
        floor.run("recorder-tls", "floor", "serve", "--broker", plain, "--store",
                  str(tmp_path / "a.sqlite3")),
        floor.run("recorder-pw", "floor", "serve", "--broker", secured.url, "--store",
                  str(tmp_path / "b.sqlite3"), "--username", RECORDER, "--password-file",
                  str(wrong)),
    ]
    procs[0].wait_for(r"round 3: dealer", 60)
    for p in procs[:2]:
        p.wait_for(r"WARNING +floor: broker mqtt://\S+ closed the connection before "
                   r"accepting it .*is the port a TLS one \(mqtts://\)", 15)
    procs[2].wait_for(r"ERROR +floor: broker mqtt://\S+ refused the recorder: Not "
                      r"authorized \(check --username and --password-file, and that the "
                      r"broker binds the user to the client id floor\.recorder\)", 15)
    time.sleep(8.0)  # paho tries again every second or two: said once, not each time
    for p in procs:
        warned = [line for line in p.text().splitlines() if "WARNING" in line or "ERROR" in line]
        alarm = [line for line in warned if "ALARM: floor witness not checked" in line]
        assert len(warned) == 1 + len(alarm), "\n".join(warned)
        assert len(alarm) == (p is procs[0]), "\n".join(warned)  # the table's, at its start
