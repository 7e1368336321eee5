"""What ``threecard floor status`` says of a table is what happened to it, and when.

Real tables (``threecard run --demo --headless --floor``), a real Mosquitto and the real
recorder: a table killed (SIGKILL: a crash) or hung (SIGSTOP: a frozen machine, a pulled
cable, nothing more on the wire) is OFFLINE on the floor within the broker's keep-alive
limit (1.5 times the keep-alive interval, and Mosquitto's whole seconds): within 15 s, by
its last will, although the will was made when the table connected, before its
``online``.
"""

from __future__ import annotations

import signal
import time

from floor.mqtt import KEEPALIVE_S
from floor.store import Store


def _statuses(store_path) -> dict[str, str | None]:
    try:
        s = Store(store_path, readonly=True)
    except Exception:  # noqa: BLE001 - not written yet
        return {}
    try:
        return {t.table_id: t.status for t in s.tables()}
    finally:
        s.close()


def test_a_table_killed_or_hung_is_offline_within_the_keep_alive_limit(floor, tmp_path):
    broker = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    killed = floor.table(broker, "TCP-K", tmp_path / "k.sqlite3", 50)
    hung = floor.table(broker, "TCP-H", tmp_path / "h.sqlite3", 50)
    for t in (killed, hung):
        t.wait_for(r"round 2: dealer", 60)
    floor.wait_until(lambda: _statuses(store) == {"TCP-K": "online", "TCP-H": "online"}, 15,
                     "both tables online")
    killed.proc.send_signal(signal.SIGKILL)
    hung.proc.send_signal(signal.SIGSTOP)
    t0 = time.monotonic()
    limit = 1.5 * KEEPALIVE_S
    floor.wait_until(lambda: _statuses(store).get("TCP-K") == "offline", limit + 5,
                     "the killed table offline", every=0.05)
    floor.wait_until(lambda: _statuses(store).get("TCP-H") == "offline", limit + 5,
                     "the hung table offline", every=0.05)
    took = time.monotonic() - t0
    # Mosquitto counts the keep-alive in whole seconds and checks it now and then: a few
    # seconds beyond the limit, within 15 s
    assert took <= 15.0, f"the hung table went offline after {took:.1f} s"
    (rows,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert {r["table_id"]: r["status"] for r in rows} == {"TCP-H": "offline",
                                                          "TCP-K": "offline"}
