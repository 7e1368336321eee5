"""A backlog and resend requests never slow the table down.

The feed reads and replays the journal in the table's own process. A real table
(``threecard run --demo --headless --pace-ms 20``) deals on a journal of 2,000 rounds the
floor has never seen, while a client asks it every 2 seconds to send everything again from
round 1: the feed works through both in paced chunks, and the table deals at least 0.85
times the pace of a table beside it on a fresh journal in the best of three windows
(without the pacing it fell to about 0.7 in every window).
"""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.table import Table
from controller.journal import Journal
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe, parse_faults

TABLE = "TCP-P"
WINDOW_S = 8.0


def _rounds_per_s(floor, *procs, windows: int = 3) -> list[list[float]]:
    """Rounds each table deals in the same :data:`WINDOW_S` (once each dealt three), per
    second, over ``windows`` windows one after the other: tables side by side see the same
    load of the machine. Returns one list of rates per window."""
    rx = re.compile(r"round \d+: dealer")
    for p in procs:
        floor.wait_until(lambda p=p: len(rx.findall(p.text())) >= 3, 120, "three rounds")
    measured = []
    for _ in range(windows):
        start = [len(rx.findall(p.text())) for p in procs]
        t0 = time.monotonic()
        time.sleep(WINDOW_S)
        measured.append([(len(rx.findall(p.text())) - n) / (time.monotonic() - t0)
                         for p, n in zip(procs, start, strict=True)])
    for p in procs:
        assert p.stop() == 0
    return measured


@pytest.mark.slow
def test_a_backlog_and_resends_from_round_1_leave_the_table_its_pace(floor, tmp_path):
    backlog = tmp_path / "backlog.sqlite3"
    t = Table(backlog, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(7, parse_faults("")), 2000)
    t.close()
    j = Journal(backlog, readonly=True)
    genesis = j.genesis()[0]
    j.close()
    broker = floor.broker().start()  # no recorder: it runs on a machine of its own

    def table(name: str, table_id: str, journal) -> object:
        return floor.run(name, "run", "--demo", "--headless", "--seats", "2", "--pace-ms",
                         "20", "--journal", str(journal), "--floor", broker.url,
                         "--table-id", table_id)

    asker = floor.client(broker)
    stop = threading.Event()

    def ask() -> None:
        while not stop.wait(2.0):
            asker.c.publish(f"threecard/{TABLE}/resend",
                            json.dumps({"journal": genesis, "from_round": 1}), qos=1)

    threading.Thread(target=ask, daemon=True).start()
    try:
        busy = table("backlog", TABLE, backlog)
        fresh_table = table("fresh", "TCP-F", tmp_path / "fresh.sqlite3")
        windows = _rounds_per_s(floor, busy, fresh_table)
    finally:
        stop.set()
    for loaded, fresh in windows:
        print(f"pace: fresh {fresh:.2f} rounds/s, with the backlog and resends {loaded:.2f}")
    assert "the floor asks for rounds from 1 again" in busy.text()
    # the best of three windows: another process on the machine may take a window from
    # one table more than from the other; without the pacing every window fell to 0.7
    assert max(loaded / fresh for loaded, fresh in windows) >= 0.85, windows
