"""The feed keeps the broker's limits, and the floor says when the broker is away.

A broker that takes packets of 3,000 bytes at most (Mosquitto's ``max_packet_size``, said
in its CONNACK) gets a seven-seat round, some 4.5 KB, in parts: the round reaches the
store whole, with one connection and no warning. Parts are joined and verified as a whole
before anything is stored, and a part lost is asked for again like any round lost. With
the broker gone, ``floor status`` says so and shows each table as unknown since then.
"""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

import pytest
from floor_feed import Clock, feed_messages, finished

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.messages import StatusMessage, decode_part, encode
from floor.parts import TooSmall, packet_size, split
from floor.recorder import GRACE_S, Recorder
from floor.store import Store
from simulators.event_shoe import EventShoe

TABLE = "TCP-77"
LIMIT = 3000


@pytest.fixture(scope="module")
def seven(tmp_path_factory) -> Path:
    """A journal of 4 rounds at seven seats, every bet down (a round's message: ~4.5 KB)."""
    path = tmp_path_factory.mktemp("limits") / "journal.sqlite3"
    t = Table(path, TableConfig(seats=7, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(t, AutoPlayer(bets={"ante": 500, "pair_plus": 100, "six_card_bonus": 100},
                           pin=DEMO_PINS["supervisor"]), EventShoe(7), 4)
    t.close()
    return path


def _parts(m, limit: int = LIMIT) -> list[bytes]:
    whole = encode(m)
    return split(whole, f"threecard/{TABLE}/{m.name}", limit, TABLE, m.journal, m.sent_us)


def test_parts_fit_the_limit_and_make_the_whole_byte_for_byte(seven):
    rounds = [m.body for m in feed_messages(seven, TABLE) if m.name == "round"]
    big = max(rounds, key=lambda m: len(encode(m)))
    whole = encode(big)
    assert len(whole) > LIMIT  # what a broker of 3,000 bytes would close the connection on
    parts = _parts(big)
    assert len(parts) >= 2
    assert all(packet_size(f"threecard/{TABLE}/round", p) <= LIMIT for p in parts)
    decoded = [decode_part(p) for p in parts]
    assert b"".join(p.data for p in decoded) == whole
    assert {p.whole for p in decoded} == {hashlib.sha256(whole).hexdigest()}
    assert [p.part for p in decoded] == list(range(1, len(parts) + 1))
    with pytest.raises(TooSmall):
        _parts(big, 400)


def test_a_round_in_parts_is_stored_whole_once_verified_and_a_part_lost_is_asked_again(
        seven, tmp_path, caplog):
    msgs = [m.body for m in feed_messages(seven, TABLE)]
    rounds = [m for m in msgs if m.name == "round"]
    clock = Clock()
    store = Store(tmp_path / "floor.sqlite3")
    asked: list[int] = []
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    rec.on_message(TABLE, "status", encode(StatusMessage(table=TABLE, journal=rounds[0].journal,
                                                         status="online")))
    # round 2's parts: one altered (its count and name kept) is refused whole, nothing stored
    first, second = _parts(rounds[0]), _parts(rounds[1])
    for p in first:
        rec.on_message(TABLE, "round", p)
    assert [r["round_id"] for r in store.rounds(TABLE, rounds[0].journal)] == [1]
    bad = decode_part(second[0])
    altered = encode(type(bad)(**{**{f: getattr(bad, f) for f in bad.__struct_fields__},
                                  "data": bad.data.replace(b'"', b"'", 1)}))
    for p in [altered, *second[1:]]:
        rec.on_message(TABLE, "round", p)
    assert rec.counts["refused"] == 1 and rec.counts["stored"] == 1
    # a part lost: the rounds after it wait, and the round is asked for again
    for m in rounds[2:]:
        for p in _parts(m):
            rec.on_message(TABLE, "round", p)
    assert [r["round_id"] for r in store.rounds(TABLE, rounds[0].journal)] == [1]
    rec.check()
    assert asked == []  # the grace period first: the round may be on its way
    clock.now += GRACE_S
    caplog.set_level(logging.INFO, "threecard.floor")
    rec.check()
    assert asked == [2]
    # the recorder says which rounds it asks for, and how far it stands, in numbers
    (line,) = [r.getMessage() for r in caplog.records if "asking" in r.getMessage()]
    assert line == (f"floor: asking table {TABLE} for rounds from 2 again (journal "
                    f"{rounds[0].journal[:16]}: 1 verified, announced {rounds[-1].round_id})")
    for p in second:  # the table sends it again; every part of it twice (QoS 1)
        rec.on_message(TABLE, "round", p)
        rec.on_message(TABLE, "round", p)
    assert store.rounds(TABLE, rounds[0].journal) == finished(seven)
    assert rec.counts["refused"] == 1
    store.close()


def test_a_seven_seat_round_through_a_broker_of_3000_bytes_and_the_broker_gone(
        floor, tmp_path):
    broker = floor.broker(["allow_anonymous true", f"max_packet_size {LIMIT}"]).start()
    store = tmp_path / "floor.sqlite3"
    journal = tmp_path / "journal.sqlite3"
    recorder = floor.recorder(broker, store)
    table = floor.run(TABLE, "run", "--demo", "--headless", "--seats", "7", "--pace-ms", "20",
                      "--journal", str(journal), "--floor", broker.url, "--table-id", TABLE)
    floor.wait_until(lambda: len(floor.stored(store, TABLE)) >= 2, 60, "two rounds stored")
    table.wait_for(rf"floor: connected to \S+ as {TABLE} \(packets of at most {LIMIT} bytes\)")
    assert table.stop() == 0
    rounds = floor.finished(journal)
    floor.wait_until(lambda: floor.stored(store, TABLE) == rounds, 30,
                     "the floor's record to equal the journal's")
    assert len(table.text().split("floor: connected to")) == 2  # one connection, kept
    for log in (table.text(), recorder.text()):
        assert len(re.findall(r" (WARNING|ERROR) ", log)) <= 2, log
        assert "None" not in log
    # the broker gone: the recorder says so in the store, and floor status shows it
    broker.kill()
    recorder.wait_for(r"floor: recorder lost the broker")
    floor.wait_until(lambda: "UNREACHABLE" in _status(store)[0], 15,
                     "floor status to say the broker is unreachable")
    head, line = _status(store)
    assert re.fullmatch(rf"recorder threecard-floor: running \(heard \d+ s ago\); broker "
                        rf"{re.escape(broker.url)} UNREACHABLE since \S+Z \(.+\): each table's "
                        r"status is unknown since then", head), head
    assert re.match(rf"{TABLE} +UNKNOWN since \S+Z +last round {rounds[0]['round_id']} ",
                    line), line
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert status["recorder"]["broker_lost_utc"] is not None
    assert status["tables"][0]["status"] == "unknown"
    assert recorder.stop() == 0
    stored = re.search(r"recorder stopped: (\d+) stored.* (\d+) joined", recorder.text())
    assert stored is not None and int(stored[2]) >= 2, recorder.text()[-2000:]


def _status(store: Path) -> tuple[str, str]:
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "controller.cli", "floor", "status", "--store",
                        str(store)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    head, line, *_ = p.stdout.splitlines() + [""]
    return head, line
