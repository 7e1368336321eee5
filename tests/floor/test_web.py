"""``threecard floor web``: ``/metrics`` holds the floor's figures, and only for its token;
the pit PIN is checked and locked out as the table's roles are; TLS with a certificate.

The store is one a real table's journal made through the real recorder (12 rounds, then
a shoe alarm); the figures expected come from the journal itself (its recall and its
meters), never from the store the server reads.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from floor_feed import feed_messages, finished
from prometheus_client.parser import text_string_to_metric_families

from controller.autoplay import AutoPlayer
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes, hash_pin
from controller.game.engine import TableConfig
from controller.game.events import Alarm
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.messages import StatusMessage, encode
from floor.recorder import Recorder
from floor.store import Store
from floor.web import Gate, WebError, read_roles, tls_context
from simulators.event_shoe import EventShoe

TABLE = "PIT-07"
PIN = "4321"
TOKEN = "metrics-token-0123456789"


@pytest.fixture(scope="module")
def served(module_floor):
    """The journal, and ``floor web`` on the store the recorder made of it: /metrics with
    a token on its server and without one on a loopback listener of its own."""
    folder = module_floor.folder
    journal, store_path = folder / "journal.sqlite3", folder / "floor.sqlite3"
    t = Table(journal, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(7), 12)
    t.process([Alarm(code="JAM", text="feed jam")])
    t.close()
    store = Store(store_path)
    rec = Recorder(store, lambda *_: None)
    msgs = [m.body for m in feed_messages(journal, TABLE)]
    msgs.append(StatusMessage(table=TABLE, journal=msgs[0].journal, status="online"))
    for m in msgs:
        rec.on_message(TABLE, m.name, encode(m))
    store.close()
    config = folder / "floor.toml"
    config.write_text(f'[roles]\npit = "{hash_pin(PIN)}"\nlockout_after = 3\n')
    token = module_floor.secret("metrics.token", TOKEN + "\n")
    port, metrics_port = module_floor.free_port(), module_floor.free_port()
    web = module_floor.run("web", "floor", "web", "--store", str(store_path), "--config",
                           str(config), "--listen", f"127.0.0.1:{port}",
                           "--metrics-token-file", str(token), "--metrics-listen",
                           f"127.0.0.1:{metrics_port}")
    web.wait_for(r"metrics on http://127\.0\.0\.1", 30)
    return journal, store_path, config, port, metrics_port


def _get(url: str, headers: dict | None = None, context=None) -> tuple[int, str]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def test_metrics_parse_and_hold_the_journal_s_figures(served):
    journal, _store, _config, port, metrics_port = served
    status, text = _get(f"http://127.0.0.1:{port}/metrics",
                        {"Authorization": f"Bearer {TOKEN}"})
    assert status == 200
    _, own = _get(f"http://127.0.0.1:{metrics_port}/metrics")
    got, also = _samples(text), _samples(own)
    assert got.keys() == also.keys()
    rounds = finished(journal)
    total = rc.meters(journal).rows["total"]  # [wagered, paid, won, ...] of the journal
    t = (("table", TABLE),)
    cur = (("currency", "EUR"), ("table", TABLE))
    assert got[("threecard_floor_rounds_total", t)] == len(rounds) == 12
    assert got[("threecard_floor_drop_minor_units", cur)] == total[0] == sum(
        v for r in rounds for s in r["seats"] for v in s["bets"].values())
    assert got[("threecard_floor_paid_minor_units", cur)] == total[1]
    assert got[("threecard_floor_won_minor_units", cur)] == total[2]
    assert got[("threecard_floor_hold_ratio", t)] == pytest.approx(
        (total[2] - total[1]) / total[0], abs=1e-6)
    assert got[("threecard_floor_alarms_open", t)] == 1  # the shoe's jam
    assert got[("threecard_floor_rounds_lacking", t)] == 0
    assert got[("threecard_floor_records_refused_total", t)] == 0
    assert got[("threecard_floor_table_status", (("status", "online"), ("table", TABLE)))] == 1
    assert got[("threecard_floor_table_heard_age_seconds", t)] >= 0
    par = [v for (name, _), v in got.items() if name == "threecard_floor_par_hold_ratio"]
    assert len(par) == 1 and 0.02 < par[0] < 0.06  # ante and pair plus, classic-like edges
    assert ("threecard_floor_recorder_up", (("client_id", ""),)) in got


def test_metrics_refuse_a_wrong_or_missing_token(served):
    port = served[3]
    for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"},
                    {"Authorization": TOKEN}):
        status, _ = _get(f"http://127.0.0.1:{port}/metrics", headers)
        assert status == 401, headers


def test_the_pit_page_wants_the_pin_and_locks_out_after_wrong_ones(served):
    port = served[3]
    status, _ = _get(f"http://127.0.0.1:{port}/")
    assert status == 200  # the login page, after the redirect
    roles = read_roles(served[2])
    assert roles.lockout_after == 3
    now = [0]
    gate = Gate(roles, clock=lambda: now[0])
    assert gate.login("0000") is None and gate.login("1111") is None
    assert gate.locked_s() == 0
    assert gate.login("2222") is None  # the third wrong PIN in a row locks
    assert gate.locked_s() == 300
    assert gate.login(PIN) is None  # even the right PIN, while locked
    now[0] += 299 * 10**9
    assert gate.login(PIN) is None and gate.locked_s() == 1
    now[0] += 10**9
    token = gate.login(PIN)
    assert token is not None and gate.valid(token) and not gate.valid("forged")


@pytest.mark.parametrize(("text", "problem"), [
    ("[roles]\n", "[roles] pit: the pit role's PIN hash is missing"),
    ('[roles]\npit = "1234"\n', "[roles] pit: must be a PIN hash"),
    ('[roles]\npit = "HASH"\nlockout_after = 0\n', "[roles] lockout_after: must be"),
    ('[roles]\npit = "HASH"\ndealer = "HASH"\n', "[roles] dealer: unknown"),
])
def test_a_bad_roles_section_is_refused_in_one_line(tmp_path, text, problem):
    path = tmp_path / "floor.toml"
    path.write_text(text.replace("HASH", demo_pin_hashes()["supervisor"]))
    with pytest.raises(WebError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        read_roles(path)


def _certificate(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "pit.pem", folder / "pit.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_tls_with_a_certificate(served, module_floor, tmp_path):
    _journal, store, config, _port, _mport = served
    cert, key = _certificate(tmp_path)
    port = module_floor.free_port()
    web = module_floor.run("web-tls", "floor", "web", "--store", str(store), "--config",
                           str(config), "--listen", f"127.0.0.1:{port}", "--cert", str(cert),
                           "--key", str(key))
    web.wait_for(r"pit page on https://127\.0\.0\.1", 30)
    trusted = ssl.create_default_context(cafile=str(cert))
    status, page = _get(f"https://127.0.0.1:{port}/login", context=trusted)
    assert status == 200 and 'name="pin"' in page
    with pytest.raises(urllib.error.URLError) as untrusted:
        _get(f"https://127.0.0.1:{port}/login", context=ssl.create_default_context())
    assert isinstance(untrusted.value.reason, ssl.SSLCertVerificationError)
    try:  # no page in clear text
        assert _get(f"http://127.0.0.1:{port}/login")[0] != 200
    except (urllib.error.URLError, ConnectionError):
        pass
    web.stop()


def test_the_grafana_dashboard_shows_every_metric_served(served):
    import json

    port = served[3]
    _, text = _get(f"http://127.0.0.1:{port}/metrics", {"Authorization": f"Bearer {TOKEN}"})
    names = {s.name for fam in text_string_to_metric_families(text) for s in fam.samples}
    board = json.loads((Path(__file__).parents[2] / "floor" / "grafana-dashboard.json")
                       .read_text())
    exprs = " ".join(t["expr"] for p in board["panels"] for t in p["targets"])
    assert {n for n in names if n not in exprs} == set()


def test_a_certificate_or_key_that_cannot_be_read_is_named(tmp_path):
    cert, key = _certificate(tmp_path)
    missing = tmp_path / "missing.pem"
    with pytest.raises(WebError, match=rf"^--cert {missing}: No such file or directory$"):
        tls_context(str(missing), str(key))
    with pytest.raises(WebError, match=rf"^--key {missing}: No such file or directory$"):
        tls_context(str(cert), str(missing))
    with pytest.raises(WebError, match=rf"^--cert {cert} --key {cert}: "):  # not its key
        tls_context(str(cert), str(cert))
