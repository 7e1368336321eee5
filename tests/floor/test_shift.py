"""A floor's shift: three tables, one broker that dies for 20 s, a recorder that crashes.

Three real tables (``threecard run --demo``, each paced like a dealer) feed one real
Mosquitto (no persistence). The recorder starts only after every table has dealt a few
rounds, so it never heard them: it learns the last round from the retained ``state`` and
asks each table to send its rounds again from round 1. Mid-shift the broker is killed
(everything it held is lost) for 20 seconds, then started again; later the recorder is
killed and started again. Throughout, the tables deal at their pace: the measured one keeps
at least 0.9 of its rate from before the outage while the broker is down (the rate from
the journal's round end times). At the end the
floor's store holds exactly each journal's rounds (ids, status, cards, bets, nets: the
whole record game recall shows), and ``verify-journal --floor-store`` agrees. Each journal
holds the broker lost and back, once each and in order (a ``device`` record, R20), and the
floor stored the notices they made.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from datetime import datetime

from floor_feed import wait_caught_up
from journal_edit import events

OUTAGE_S = 20.0
BEFORE_S = 8.0  # the pace before the outage: from round 2 on, the recorder joining
PACE_MS = 80  # a round about every second with two seats: the pace, not the CPU, sets it


def _rate(rounds: list[dict], t0: float, t1: float) -> float:
    """Rounds per second between ``t0`` and ``t1``: the median time from one round's end to
    the next (a machine busy with other work stalls a round now and then: the median is
    the table's pace)."""
    ends = sorted(t for r in rounds
                  if t0 <= (t := datetime.fromisoformat(r["ended_utc"]).timestamp()) < t1)
    assert len(ends) >= 5, (t0, t1, ends)
    return 1 / statistics.median(b - a for a, b in zip(ends, ends[1:], strict=False))


def test_three_tables_through_a_broker_outage_and_a_recorder_crash(floor, tmp_path):
    broker = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    ids = ("TCP-01", "TCP-02", "TCP-03")
    journals = {t: tmp_path / f"{t}.sqlite3" for t in ids}
    tables = {t: floor.table(broker, t, journals[t], PACE_MS) for t in ids}
    for t in ids:
        tables[t].wait_for(r"round 2: dealer", 60)
    before = time.time()  # the pace is measured from here to the outage

    # the recorder never heard rounds 1-2: the retained state names them, it asks
    recorder = floor.recorder(broker, store)
    for t in ids:
        tables[t].wait_for(r"the floor asks for rounds from 1 again", 15)
    wait_caught_up(floor, store, journals, 20)

    # the broker dies, and everything it held with it, for OUTAGE_S seconds
    time.sleep(max(0.0, before + BEFORE_S - time.time()))
    killed = time.time()
    broker.kill()
    time.sleep(OUTAGE_S)
    back = time.time()
    broker.start()
    wait_caught_up(floor, store, journals, 30)

    # the recorder crashes and comes back; the broker kept its session meanwhile
    recorder.kill()
    dealt = {t: len(floor.finished(journals[t])) for t in ids}
    floor.recorder(broker, store, name="recorder2")
    deadline = time.monotonic() + 20
    while any(len(floor.stored(store, t)) <= dealt[t] for t in ids):  # rounds after it
        assert time.monotonic() < deadline, "no round stored after the recorder's restart"
        time.sleep(0.2)
    for t in ids:
        assert tables[t].stop() == 0, tables[t].text()[-3000:]
    wait_caught_up(floor, store, journals, 30, exact=True)

    wants = {t: floor.finished(journals[t]) for t in ids}
    outputs = floor.cli_json(*([["floor", "rounds", "--store", str(store), "--table", t,
                                 "--json"] for t in ids]
                               + [["verify-journal", "--journal", str(journals[t]),
                                   "--floor-store", str(store), "--json"] for t in ids]))
    for t, got, verdict in zip(ids, outputs[:3], outputs[3:], strict=True):
        want = wants[t]
        assert got == want
        assert [r["round_id"] for r in want] == list(range(len(want), 0, -1))
        assert verdict["ok"] and verdict["floor"]["ok"], verdict
        assert verdict["floor"]["rounds_checked"] == len(want)

    # the broker away for longer than the grace, and back: journaled once each, in order,
    # and what they made reached the floor
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        for t in ids:
            device = [(e[0], json.loads(e[5])) for e in events(journals[t]) if e[3] == "device"]
            assert [(b["device"], b["state"]) for _, b in device] == [
                ("floor broker", "lost"), ("floor broker", "back")], device
            (lost_seq, gone), (back_seq, came) = device
            assert gone["detail"] and (OUTAGE_S - 1) * 1000 <= came["away_ms"] < 60_000
            stored = set(db.execute("SELECT seq, kind FROM events WHERE table_id = ?", (t,)))
            assert {(lost_seq, "device_lost"), (back_seq, "device_back")} <= stored, t
    finally:
        db.close()

    # the table never waited for the floor: its pace held while the broker was down
    rounds = floor.finished(journals["TCP-03"])
    rate_before, rate_during = _rate(rounds, before, killed), _rate(rounds, killed, back)
    print(f"pace before the outage {rate_before:.3f} rounds/s, during it {rate_during:.3f}")
    assert rate_during >= 0.9 * rate_before, (rate_before, rate_during)
    assert rate_before > 0.5  # the table was dealing at all

