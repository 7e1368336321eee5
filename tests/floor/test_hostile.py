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
import time

from floor.store import Store

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
