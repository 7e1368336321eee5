"""What a table's credentials can send the recorder does not stop it, nor lie to the floor.

A real Mosquitto with the shipped ACL and password file, the real recorder
(``threecard floor serve``), and a bare MQTT client logged in as table TCP-A publishing on
its own topics, as the ACL allows: payloads a correct table never sends are refused with a
warning and acknowledged (they never come back at the next start), and the recorder goes
on storing every table.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import msgspec
from floor_feed import finished

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.follower import Follower
from floor.messages import encode
from floor.store import Store
from simulators.event_shoe import EventShoe, parse_faults

JOURNAL = "a" * 64
RECORDER = "floor.recorder"


def _status(store_path, table: str) -> str | None:
    s = Store(store_path, readonly=True)
    try:
        return next((t.status for t in s.tables() if t.table_id == table), None)
    finally:
        s.close()


def test_numbers_sqlite_cannot_hold_are_refused_and_never_come_back(floor, tmp_path):
    broker = floor.secured().start()
    store = tmp_path / "floor.sqlite3"
    pw = floor.secret("recorder.pw", floor.users[RECORDER])
    creds = ("--username", RECORDER, "--password-file", str(pw))
    recorder = floor.recorder(broker, store, *creds)
    table = floor.client(broker, "TCP-A", floor.users["TCP-A"])
    hostile = [
        ("status", {"journal": JOURNAL, "status": "online", "sent_us": 2**63}),
        ("state", {"journal": JOURNAL, "seq": 2**63, "last_round": 0, "last_round_seq": 0,
                   "last_round_hash": JOURNAL, "round_in_play": 1, "round_state": "betting"}),
        ("meters", {"journal": JOURNAL, "seq": 2**64, "meters": {}}),
        ("event", {"journal": JOURNAL, "seq": 1, "hash": JOURNAL, "round_id": 2**63,
                   "kind": "alarm", "severity": "error"}),
    ]
    for name, body in hostile:
        assert table.publish(f"threecard/TCP-A/{name}",
                             json.dumps({"table": "TCP-A", **body}).encode()) == 0
    recorder.wait_for(r"(?s)(refused a message on table TCP-A's topic.*){4}", 15)
    # the recorder still stores: a good status after them is on the floor
    good = {"table": "TCP-A", "journal": JOURNAL, "status": "online", "sent_us": 1}
    assert table.publish("threecard/TCP-A/status", json.dumps(good).encode()) == 0
    floor.wait_until(lambda: _status(store, "TCP-A") == "online", 15, "the good status stored")
    assert recorder.stop() == 0
    assert re.search(r"recorder stopped: \d+ stored, \d+ duplicate, 4 refused", recorder.text())

    # every one was acknowledged: the next start receives none of them again
    again = floor.recorder(broker, store, *creds, name="recorder-again")
    time.sleep(2.0)
    assert again.stop() == 0
    assert "refused" not in again.text().replace("0 refused", "")


def _journal_messages(path, table: str, rounds: int) -> list:
    """The messages a real journal of ``rounds`` rounds makes."""
    t = Table(path, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=table))
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(5, parse_faults("")), rounds)
    t.close()
    f = Follower(path, table)
    out = []
    while (batch := f.poll()) is not None:
        out += [m.body for m in batch]
    f.close()
    return out


def test_rows_and_seals_no_journal_makes_are_refused_and_floor_reads_the_rest(floor, tmp_path):
    broker = floor.secured().start()
    store = tmp_path / "floor.sqlite3"
    pw = floor.secret("recorder.pw", floor.users[RECORDER])
    recorder = floor.recorder(broker, store, "--username", RECORDER, "--password-file", str(pw))
    table = floor.client(broker, "TCP-A", floor.users["TCP-A"])
    journal = tmp_path / "journal.sqlite3"
    msgs = _journal_messages(journal, "TCP-A", 3)
    rounds = [m for m in msgs if m.name == "round"]
    r1, r2 = rounds[0], rounds[1]
    raw = msgspec.to_builtins(r2)
    bad = [
        {**raw, "rows": raw["rows"][1:]},  # an event left out
        {**raw, "chains": [{"epoch": 99, "seq": 0, "head": "0" * 64, "key": "a" * 64}]},
        {**raw, "seals": [{**raw["seals"][0], "seq": raw["seals"][0]["seq"] + 5}]},
        {**raw, "seals": [{**raw["seals"][0], "signature": "zz" * 64}]},
    ]
    assert table.publish("threecard/TCP-A/round", encode(r1)) == 0
    for m in bad:
        assert table.publish("threecard/TCP-A/round", json.dumps(m).encode()) == 0
    recorder.wait_for(r"(?s)(refused a message on table TCP-A's topic.*){4}", 15)
    (got, status) = floor.cli_json(
        ["floor", "rounds", "--store", str(store), "--table", "TCP-A", "--json"],
        ["floor", "status", "--store", str(store), "--json"])
    assert got == finished(journal)[-1:]
    row = status["tables"][0]
    assert row["last_round"] == 1 and row["last_round_utc"] == got[0]["ended_utc"]
    text = subprocess.run([sys.executable, "-m", "controller.cli", "floor", "rounds",
                           "--store", str(store), "--table", "TCP-A"], capture_output=True,
                          text=True, timeout=60)
    assert text.returncode == 0 and "Traceback" not in text.stderr, text.stderr
    assert "round 1" in text.stdout.lower()
