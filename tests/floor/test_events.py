"""Alarms, voids and role actions reach the floor at least once, as rounds do.

Each round counts the ``event`` messages its journal made after the previous round's end,
and the table's ``state`` those made after the last round's end. The recorder holds the
events it stored against these counts: a broker killed without persistence, holding
events for a recorder that was down, loses them, and the recorder asks the table for them
again (a resend sends the events after the end of the round before the one asked for).

Rounds missing on the floor for less than the recorder's grace period may still be on
their way: ``floor status`` calls them UNCONFIRMED, and LACKING only once the grace period
is over.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from floor_feed import Clock, feed_messages
from floor_feed import deliver as _deliver

from controller.autoplay import AutoPlayer
from controller.floor_link import open_floor
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import Alarm
from controller.game.inputs import ConfigChange
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.messages import StatusMessage, encode
from floor.recorder import GRACE_S, MAX_ASKS, RETRY_S, Recorder
from floor.report import floor_status
from floor.store import Store
from simulators.event_shoe import EventShoe, parse_faults

TABLE = "TCP-05"


def _journal_events(journal: Path) -> set[tuple[int, str]]:
    """(seq, kind) of every ``event`` message the journal makes."""
    return {(m.seq, m.body.kind) for m in feed_messages(journal, TABLE) if m.name == "event"}


def _stored_events(store: Path) -> set[tuple[int, str]]:
    if not store.exists():
        return set()
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return set(db.execute("SELECT seq, kind FROM events WHERE table_id = ?", (TABLE,)))
    except sqlite3.OperationalError:
        return set()
    finally:
        db.close()


def _between_rounds(table: Table) -> None:
    """A supervisor changes a setting and the shoe jams: three event messages."""
    table.process([ConfigChange(key="lockout_after", value=5, pin=DEMO_PINS["supervisor"]),
                   Alarm(code="JAM", text="card jam")])


def test_events_a_broker_lost_are_asked_for_and_sent_again(floor, tmp_path):
    journal, store = tmp_path / "journal.sqlite3", tmp_path / "floor.sqlite3"
    broker = floor.broker().start()
    recorder = floor.recorder(broker, store)
    config = TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE,
                         floor_broker=broker.url)
    table = Table(journal, config)
    player = AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"])
    shoe = EventShoe(5, parse_faults("misread=0.2"))
    feed = open_floor(config, table, drain_s=10)
    try:
        simulate(table, player, shoe, 3)
        floor.wait_until(lambda: _stored_events(store) == _journal_events(journal)
                         and len(floor.stored(store, TABLE)) == 3, 30, "the first rounds")

        # the recorder is down: the broker holds the new events for its session, and
        # acknowledges them to the table, whose cursor moves past them
        recorder.kill()
        _between_rounds(table)
        feed.wake()
        head = table.journal.last_seq
        floor.wait_until(lambda: feed.cursor >= head, 30, "the broker to take the events")
        lost = _journal_events(journal) - _stored_events(store)
        assert len(lost) == 3

        # the broker dies without persistence: the events it held are gone
        broker.kill()
        broker.start()
        floor.recorder(broker, store, name="recorder2")
        # the table's state counts the events after round 3's end: the recorder asks
        floor.wait_until(lambda: _stored_events(store) == _journal_events(journal), 30,
                         "the lost events to be asked for and sent again")

        # a round that ends later counts them too; its own events come as they happen
        simulate(table, player, shoe, 5)
        floor.wait_until(lambda: len(floor.stored(store, TABLE)) == 5
                         and _stored_events(store) == _journal_events(journal), 30,
                         "the next rounds and their events")
    finally:
        feed.stop()
        table.close()
    assert floor.stored(store, TABLE) == floor.finished(journal)


def test_a_round_short_of_its_events_is_asked_for_also_after_a_restart(tmp_path):
    journal = tmp_path / "journal.sqlite3"
    table = Table(journal, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    player = AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"])
    shoe = EventShoe(7, parse_faults("misread=0.2"))
    simulate(table, player, shoe, 2)
    _between_rounds(table)  # events counted by round 3
    simulate(table, player, shoe, 5)
    table.close()
    msgs = feed_messages(journal, TABLE)
    rounds = {m.body.round_id: m.body for m in msgs if m.name == "round"}
    lost = [m.body for m in msgs if m.name == "event" and rounds[2].seq < m.seq
            <= rounds[3].seq]
    assert len(lost) >= 3
    state = [m.body for m in msgs if m.name == "state"][-1]
    store_path = tmp_path / "floor.sqlite3"
    store = Store(store_path)
    asked: list[int] = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _deliver(rec, [StatusMessage(table=TABLE, journal=state.journal, status="online")])
    _deliver(rec, [m.body for m in msgs if m.name in ("round", "event", "state")
                   and m.body not in lost])  # every round came, round 3's events did not
    rec.check()
    assert asked == []  # the grace period first: the events may be on their way
    clock.now += GRACE_S
    rec.check()
    assert asked == [3]

    # a recorder started again finds the round short in the store
    store.close()
    store = Store(store_path)
    asked.clear()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _deliver(rec, [StatusMessage(table=TABLE, journal=state.journal, status="online")])
    rec.check()
    clock.now += GRACE_S
    rec.check()
    assert asked == [3]
    # the table's answer: round 3 on, and the events after round 2's end
    _deliver(rec, [m.body for m in feed_messages(journal, TABLE, rounds_from=3,
                                                 until=state.seq)])
    for _ in range(3):
        clock.now += RETRY_S + GRACE_S
        rec.check()
    assert asked == [3]
    assert {(m.seq, m.kind) for m in lost} <= {
        (seq, kind) for seq, kind in store.db.execute("SELECT seq, kind FROM events")}
    store.close()


def test_events_still_short_are_asked_for_a_few_times_only(tmp_path):
    journal = tmp_path / "journal.sqlite3"
    table = Table(journal, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(table, AutoPlayer(bets={"ante": 100}), EventShoe(3, parse_faults("")), 1)
    _between_rounds(table)
    table.close()
    msgs = feed_messages(journal, TABLE)
    state = [m.body for m in msgs if m.name == "state"][-1]
    store = Store(tmp_path / "floor.sqlite3")
    asked: list[int] = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _deliver(rec, [StatusMessage(table=TABLE, journal=state.journal, status="online")])
    _deliver(rec, [m.body for m in msgs if m.name != "event"])  # the tail's events never come
    for _ in range(MAX_ASKS + 3):
        clock.now += RETRY_S + GRACE_S
        rec.check()
    assert asked == [2] * MAX_ASKS  # the events after round 1's end: asked from round 2
    store.close()


def test_a_gap_younger_than_the_grace_period_is_unconfirmed(floor, tmp_path):
    journal, store_path = tmp_path / "journal.sqlite3", tmp_path / "floor.sqlite3"
    table = Table(journal, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(table, AutoPlayer(bets={"ante": 100}), EventShoe(4, parse_faults("")), 3)
    table.close()
    msgs = [m.body for m in feed_messages(journal, TABLE) if m.name in ("round", "event")]

    # a recorder that has not yet looked at what it stored: the gap is not confirmed
    store = Store(tmp_path / "unseen.sqlite3")
    _deliver(Recorder(store, lambda *_: None), [m for m in msgs if m.name == "event"
                                                 or m.round_id != 2])
    (row,) = floor_status(store, datetime.now(UTC) + timedelta(hours=1))
    assert row.lacking is None
    assert row.unconfirmed == "rounds 2 to 3 (or part of them), may be on their way"
    store.close()

    # the recorder serving a broker sees round 2 missing; LACKING once its grace is over
    broker = floor.broker().start()
    floor.recorder(broker, store_path)
    sender = floor.client(broker)
    for m in msgs:
        if m.name == "event" or m.round_id != 2:
            assert sender.publish(f"threecard/{TABLE}/{m.name}", encode(m)) == 0

    def seen() -> int | None:
        s = Store(store_path, readonly=True)
        try:
            return next((r.gap_us for r in s.series() if r.table == TABLE), None)
        finally:
            s.close()
    gap_us = floor.wait_until(seen, 15, "the recorder to see the gap")
    seen_at = datetime.fromtimestamp(gap_us / 1e6, UTC)
    store = Store(store_path, readonly=True)
    try:
        (young,) = floor_status(store, seen_at + timedelta(seconds=GRACE_S / 2))
        (old,) = floor_status(store, seen_at + timedelta(seconds=GRACE_S + 0.5))
    finally:
        store.close()
    assert young.lacking is None and "UNCONFIRMED: rounds 2 to 3" in young.line()
    assert "LACKING" not in young.line()
    assert old.lacking == "rounds 2 to 3 (or part of them)" and old.unconfirmed is None
    assert "LACKING: rounds 2 to 3" in old.line() and "UNCONFIRMED" not in old.line()


def test_a_store_and_a_feed_from_before_the_counts_still_read(tmp_path):
    import msgspec

    journal, store_path = tmp_path / "journal.sqlite3", tmp_path / "floor.sqlite3"
    table = Table(journal, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(table, AutoPlayer(bets={"ante": 100}), EventShoe(6, parse_faults("")), 3)
    _between_rounds(table)
    table.close()
    # a table of an earlier version counts no events; none of its events came
    old = [msgspec.structs.replace(m.body, events=None) for m in feed_messages(journal, TABLE)
           if m.name == "state" or m.name == "round" and m.body.round_id != 2]
    store = Store(store_path)
    _deliver(Recorder(store, lambda *_: None), old)
    store.close()
    db = sqlite3.connect(store_path)  # as an earlier recorder left it
    db.execute("ALTER TABLE rounds DROP COLUMN events")
    db.execute("ALTER TABLE series DROP COLUMN gap_us")
    db.commit()
    db.close()
    store = Store(store_path, readonly=True)
    (row,) = floor_status(store, datetime.now(UTC))
    assert row.lacking == "rounds 2 to 3 (or part of them)" and row.unconfirmed is None
    assert store.short_of_events(TABLE, row.journal) == []
    store.close()
    # a recorder opens it: the columns are added, nothing counted is asked for
    store = Store(store_path)
    asked: list[int] = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _deliver(rec, [StatusMessage(table=TABLE, journal=row.journal, status="online")])
    for _ in range(3):
        clock.now += RETRY_S + GRACE_S
        rec.check()
    assert set(asked) == {2}  # the round missing, not the events
    (row,) = floor_status(store, datetime.now(UTC) + timedelta(seconds=GRACE_S + 1))
    assert row.lacking == "rounds 2 to 3 (or part of them)"
    store.close()
