"""One table's password cannot take another's place on the shipped broker (R19).

One broker for the module, on the security settings of systemd/mosquitto-threecard.conf
and its ACL, its users made as README.md says (``mosquitto_ctrl dynsec createClient NAME
-c NAME``: each user bound to the client id of its name). A table's user connecting with
the recorder's client id, or another table's, is refused (CONNACK "Not authorized") and the
recorder keeps its session: it runs on, connected once, and stores what comes next; while
it is down the same is refused, and it resumes its session with what the broker kept. A
table's user cannot publish on another table's topics nor on any witness, its own
included: a client with the recorder's rights sees none of it arrive. The recorder's user
publishes the witness (retained), and each table reads its own only.
"""

from __future__ import annotations

import json
import logging
import re

import pytest

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.mqtt import FloorSettings
from floor.publisher import FloorPublisher
from floor.store import Store
from simulators.event_shoe import EventShoe

NOT_AUTHORIZED = 135
RECORDER = "floor.recorder"
NAMES = ("round", "event", "meters", "state", "status", "resend", "witness")


@pytest.fixture(scope="module")
def broker(module_floor):
    return module_floor.secured().start()


@pytest.fixture
def floor(module_floor):
    """The module's floor; the clients and processes a test starts end with it."""
    clients, procs = len(module_floor.clients), len(module_floor.procs)
    yield module_floor
    for c in module_floor.clients[clients:]:
        c.close()
    for p in module_floor.procs[procs:]:
        p.kill()
    del module_floor.clients[clients:], module_floor.procs[procs:]


def _status(store, table: str) -> str | None:
    try:
        s = Store(store, readonly=True)
    except Exception:  # noqa: BLE001 - not written yet
        return None
    try:
        return {t.table_id: t.status for t in s.tables()}.get(table)
    finally:
        s.close()


def _status_message(table: str, status: str = "online", sent_us: int = 1) -> bytes:
    return json.dumps({"table": table, "journal": "a" * 64, "status": status,
                       "stopped": status == "offline", "sent_us": sent_us}).encode()


def test_a_tables_password_cannot_take_the_recorders_session(floor, broker, tmp_path):
    store = tmp_path / "floor.sqlite3"
    pw = floor.secret("recorder.pw", floor.users[RECORDER])
    # the recorder's client id is its user's: the one the broker binds it to
    recorder = floor.recorder(broker, store, "--username", RECORDER, "--password-file",
                              str(pw))
    recorder.wait_for(r"recorder connected to \S+ as floor\.recorder ")
    # with one table's password: the recorder's client id, the recorder's default without
    # a user, and none (the broker would name it) are each refused before any session
    for client_id in (RECORDER, "threecard-floor", ""):
        thief = floor.client(broker, "TCP-A", floor.users["TCP-A"], client_id=client_id)
        assert thief.connack == NOT_AUTHORIZED, client_id
    # the recorder kept its session: it runs, connected once, and stores what comes next
    table = floor.client(broker, "TCP-A", floor.users["TCP-A"])
    assert table.connack == 0
    assert table.publish("threecard/TCP-A/status", _status_message("TCP-A")) == 0
    floor.wait_until(lambda: _status(store, "TCP-A") == "online", 15, "the status stored")
    assert recorder.proc.poll() is None
    assert recorder.text().count("recorder connected") == 1, recorder.text()
    assert "lost the broker" not in recorder.text()
    log = (broker.folder / "mosquitto.log").read_text()
    assert "already connected, closing old connection" not in log, log
    assert recorder.stop() == 0
    # nor while the recorder is down, when the broker keeps its messages in its session
    thief = floor.client(broker, "TCP-A", floor.users["TCP-A"], client_id=RECORDER)
    assert thief.connack == NOT_AUTHORIZED
    assert table.publish("threecard/TCP-A/status", _status_message("TCP-A", "offline", 2)) == 0
    again = floor.recorder(broker, store, "--username", RECORDER, "--password-file", str(pw),
                           name="recorder-again")
    again.wait_for(r"recorder connected to \S+ as floor\.recorder \(session resumed\)")
    floor.wait_until(lambda: _status(store, "TCP-A") not in (None, "online"), 15,
                     "the status sent while the recorder was down stored")
    assert again.stop() == 0


def test_a_tables_password_cannot_take_another_tables_client_id(floor, broker):
    b = floor.client(broker, "TCP-B", floor.users["TCP-B"])
    assert b.connack == 0
    for client_id in ("TCP-B", "floor"):  # another table's, a table named "floor"
        thief = floor.client(broker, "TCP-A", floor.users["TCP-A"], client_id=client_id)
        assert thief.connack == NOT_AUTHORIZED, client_id
    assert not b.gone.is_set()
    # taken: 0, or 16 (no matching subscribers) when no recorder has subscribed yet
    assert b.publish("threecard/TCP-B/status", _status_message("TCP-B")) in (0, 16)
    log = (broker.folder / "mosquitto.log").read_text()
    assert "already connected, closing old connection" not in log, log


def test_a_table_writes_neither_another_tables_topics_nor_a_witness(floor, broker):
    watcher = floor.client(broker, RECORDER, floor.users[RECORDER])  # the recorder's rights
    watcher.c.subscribe("threecard/#", qos=1)
    b = floor.client(broker, "TCP-B", floor.users["TCP-B"])  # reads its own topics
    b.c.subscribe([(f"threecard/TCP-B/{name}", 1) for name in NAMES])
    assert watcher.ready.wait(5) and b.ready.wait(5)
    a = floor.client(broker, "TCP-A", floor.users["TCP-A"])
    for name in NAMES:
        assert a.publish(f"threecard/TCP-B/{name}", retain=True) == NOT_AUTHORIZED, name
    for table in ("TCP-A", "floor"):  # no table writes a witness, not even its own
        assert a.publish(f"threecard/{table}/witness", retain=True) == NOT_AUTHORIZED
    # then one it may publish: once it arrives, nothing refused came before it
    assert a.publish("threecard/TCP-A/state") == 0
    floor.wait_until(lambda: watcher.got, 10, "the table's own state at the recorder")
    assert watcher.got == ["threecard/TCP-A/state"]
    assert b.got == []


def test_the_recorders_user_writes_the_witness_each_table_reads_its_own(floor, broker):
    recorder = floor.client(broker, RECORDER, floor.users[RECORDER])
    a = floor.client(broker, "TCP-A", floor.users["TCP-A"])
    a.c.subscribe("threecard/TCP-A/witness", qos=1)
    b = floor.client(broker, "TCP-B", floor.users["TCP-B"])
    b.c.subscribe("threecard/+/witness", qos=1)  # every table's: it gets only its own
    assert a.ready.wait(5) and b.ready.wait(5)
    try:
        assert recorder.publish("threecard/TCP-A/witness", b"of A", retain=True) == 0
        assert recorder.publish("threecard/TCP-B/witness", b"of B", retain=True) == 0
        floor.wait_until(lambda: a.got and b.got, 10, "each table's witness")
        assert a.payloads == [("threecard/TCP-A/witness", b"of A")]
        assert b.payloads == [("threecard/TCP-B/witness", b"of B")]
        # retained: a table that connects later reads it at once
        a.close()
        again = floor.client(broker, "TCP-A", floor.users["TCP-A"])
        again.c.subscribe("threecard/TCP-A/witness", qos=1)
        floor.wait_until(lambda: again.payloads, 10, "the retained witness")
        assert again.payloads == [("threecard/TCP-A/witness", b"of A")]
    finally:  # the broker is the module's: no witness stays behind
        for table in ("TCP-A", "TCP-B"):
            recorder.publish(f"threecard/{table}/witness", b"", retain=True)


def test_a_table_the_acl_refuses_says_so_once_then_counts_and_never_reconnects(
        floor, broker, tmp_path, caplog):
    # a topic prefix the ACL does not know: each message is refused (its PUBACK says so);
    # the table keeps its connection and sends them again after a pause that grows
    journal = tmp_path / "journal.sqlite3"
    t = Table(journal, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id="TCP-A"))
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]), EventShoe(3), 3)
    t.close()
    password = floor.secret("TCP-A.pw", floor.users["TCP-A"])
    settings = FloorSettings(broker.url, password_file=str(password), topic_prefix="casino")
    caplog.set_level(logging.DEBUG, "threecard.floor")
    feed = FloorPublisher(settings, str(journal), "TCP-A")
    feed._throttle.every_s = 1.5  # the minute between two lines of one problem, shortened

    def lines() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]

    feed.start()
    try:
        floor.wait_until(lambda: any("more time(s)" in w for w in lines()), 30,
                         "the refusals to be counted")
    finally:
        feed.stop(0)
    refused = [w for w in lines() if w.startswith("floor: broker refused a ")]
    assert lines() == refused  # nothing else: no connection lost, no other table
    first = refused[0]
    assert re.fullmatch(r"floor: broker refused a (\w+) message \(Not authorized\): check the "
                        r"ACL lets table TCP-A publish under casino/TCP-A/#; the journal "
                        r"keeps the feed, sent again in \d+ s", first), first
    for name in {re.match(r"floor: broker refused a (\w+)", w)[1] for w in refused}:
        mine = [w for w in refused if w.startswith(f"floor: broker refused a {name} ")]
        assert "more time(s)" not in mine[0] and len(mine) <= 2, mine  # once, then counted
    counted = [int(m[1]) for w in refused if (m := re.search(r"\((\d+) more time\(s\) in "
                                                               r"the last \d+ s\)$", w))]
    assert counted and min(counted) >= 1
    assert feed.refused > len(refused)
    connected = [r for r in caplog.records if "floor: connected to" in r.getMessage()]
    assert len(connected) == 1  # one connection, kept throughout
