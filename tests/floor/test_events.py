"""Alarms, voids and role actions reach the floor from the journal's sealed rows.

A table publishes each event as it happens: the floor holds it as provisional. Once the
seal of its round comes, the floor derives the events from the round's rows itself, so an
event a broker lost (killed without persistence while holding it for a recorder that was
down) reaches the floor all the same, with the next round.

Rounds missing on the floor for less than the recorder's grace period may still be on
their way: ``floor status`` calls them UNCONFIRMED, and LACKING only once the grace period
is over. A store an earlier recorder wrote (rounds taken on their word, no seals) still
reads; a recorder opening it asks the table for every round again, and verifies them.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from floor_feed import Clock, feed_messages, finished
from floor_feed import deliver as _deliver

from controller.autoplay import AutoPlayer
from controller.floor_link import open_floor
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import Alarm
from controller.game.inputs import ConfigChange
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.anchors import compare
from floor.messages import StatusMessage, encode
from floor.recorder import GRACE_S, RETRY_S, Recorder
from floor.report import floor_status
from floor.store import Store
from simulators.event_shoe import EventShoe, parse_faults

TABLE = "TCP-05"


def _journal_events(journal: Path) -> set[tuple[int, str]]:
    """(seq, kind) of every ``event`` message the journal makes."""
    return {(m.seq, m.body.kind) for m in feed_messages(journal, TABLE) if m.name == "event"}


def _stored_events(store: Path, table: str = "events") -> set[tuple[int, str]]:
    if not store.exists():
        return set()
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return set(db.execute(f"SELECT seq, kind FROM {table} WHERE table_id = ?", (TABLE,)))
    except sqlite3.OperationalError:
        return set()
    finally:
        db.close()


def _between_rounds(table: Table) -> None:
    """A supervisor changes a setting and the shoe jams: three event messages."""
    table.process([ConfigChange(key="lockout_after", value=5, pin=DEMO_PINS["supervisor"]),
                   Alarm(code="JAM", text="card jam")])


def test_events_a_broker_lost_reach_the_floor_with_the_next_rounds_seal(floor, tmp_path):
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

        # the broker dies without persistence: the events it held are gone; the next
        # round's rows carry the events before it, and the floor derives them
        broker.kill()
        broker.start()
        floor.recorder(broker, store, name="recorder2")
        simulate(table, player, shoe, 5)
        floor.wait_until(lambda: len(floor.stored(store, TABLE)) == 5
                         and lost <= _stored_events(store), 30,
                         "the next rounds, and the lost events with them")
    finally:
        feed.stop()
        table.close()
    assert floor.stored(store, TABLE) == floor.finished(journal)
    assert _stored_events(store) | _stored_events(store, "pending_events") == \
        _journal_events(journal)


def _short_journal(tmp_path: Path, rounds: int = 3) -> Path:
    journal = tmp_path / "journal.sqlite3"
    table = Table(journal, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(table, AutoPlayer(bets={"ante": 100}), EventShoe(4, parse_faults("")), rounds)
    table.close()
    return journal


def test_a_gap_younger_than_the_grace_period_is_unconfirmed(floor, tmp_path):
    journal, store_path = _short_journal(tmp_path), tmp_path / "floor.sqlite3"
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


def test_a_store_an_earlier_recorder_wrote_reads_and_is_verified_again(tmp_path):
    journal, store_path = _short_journal(tmp_path, 4), tmp_path / "floor.sqlite3"
    msgs = [m.body for m in feed_messages(journal, TABLE)]
    store = Store(store_path)
    _deliver(Recorder(store, lambda *_: None), msgs)
    store.close()
    db = sqlite3.connect(store_path)  # as an earlier recorder left it: no seal anywhere
    for t in ("positions", "seals", "keys", "pending_events", "forged"):
        db.execute(f"DROP TABLE {t}")
    db.execute("ALTER TABLE rounds DROP COLUMN epoch")
    db.execute("ALTER TABLE series DROP COLUMN gap_us")
    db.commit()
    db.close()
    store = Store(store_path, readonly=True)
    (row,) = floor_status(store, datetime.now(UTC))
    assert row.lacking is None and row.last_round == 4 and row.forged == 0
    assert row.verify_key is None
    store.close()
    verdict = compare(journal, store_path)
    assert verdict.ok and verdict.rounds_checked == 0
    assert verdict.notes == ("4 round(s) recorded without a seal (a recorder of an earlier "
                             "version)",)
    # a recorder opens it: its tables added, and every round asked for again
    store = Store(store_path)
    asked: list[int] = []
    answered = 0
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    state = [m for m in msgs if m.name == "state"][-1]
    _deliver(rec, [StatusMessage(table=TABLE, journal=state.journal, status="online"),
                   state])
    for _ in range(3):
        clock.now += RETRY_S + GRACE_S
        rec.check()
        for from_round in asked[answered:]:
            _deliver(rec, [m.body for m in feed_messages(journal, TABLE,
                                                         rounds_from=from_round,
                                                         until=state.seq)])
        answered = len(asked)
    assert asked == [1] and rec.series[TABLE, state.journal].contiguous == 4
    assert store.rounds(TABLE, state.journal) == finished(journal)
    store.close()
    verdict = compare(journal, store_path)
    assert verdict.ok and verdict.rounds_checked == 4 and verdict.notes == ()
