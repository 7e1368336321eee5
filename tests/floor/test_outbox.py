"""The feed's cursor: in the journal's file, outside what the verifier checks, moved by PUBACKs.

A journal with the feed's cursor in it verifies, opens and locks exactly as one without:
the verifier names the journal's tables and the cursor's apart, and a cursor edited
behind the table's back changes no verdict. The cursor moves only when the broker has
acknowledged: a table dealing with no broker to reach keeps its cursor where it was (and
deals all its rounds); run again with a broker, it sends its whole backlog from there,
and the store ends equal to the journal.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

import pytest
from journal_edit import edit_body, first_of

from controller.autoplay import AutoPlayer
from controller.floor_link import open_floor
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.table import Table
from controller.game.verifier import CHECKED_TABLES, UNCHECKED_TABLES, ProblemKind
from controller.journal import OUTBOX_TABLE, Journal
from controller.simulate_cli import simulate
from floor.follower import Follower
from floor.outbox import Outbox
from simulators.event_shoe import EventShoe, parse_faults


@pytest.fixture
def journal(tmp_path) -> Path:
    path = tmp_path / "journal.sqlite3"
    t = Table(path, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=3))
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(4, parse_faults("misread=0.2")), 8)
    t.close()
    return path


def _tables(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()


def _cursor(path: Path) -> tuple[int, str]:
    out = Outbox(str(path))
    try:
        return out.read()
    finally:
        out.close()


def test_the_verifier_checks_the_journal_and_leaves_the_cursor_out(journal):
    j = Journal(journal, readonly=True)
    head, genesis = j.last_seq, j.event_hash(1)
    j.close()
    out = Outbox(str(journal))
    out.write(head, genesis)
    out.close()
    # every table of the file is either the journal's or named as not part of it
    assert _tables(journal) == CHECKED_TABLES | UNCHECKED_TABLES
    assert UNCHECKED_TABLES == {OUTBOX_TABLE} and not CHECKED_TABLES & UNCHECKED_TABLES
    assert _cursor(journal) == (head, genesis)
    verdict = rc.verify(journal)
    assert verdict.ok and verdict.notes == ()  # left out without a word
    # a cursor edited behind the table's back is no edit of the journal: it only makes
    # the feed send again (or skip, which the recorder's chain check sees)
    db = sqlite3.connect(journal)
    db.execute(f"UPDATE {OUTBOX_TABLE} SET seq = 3, journal = 'x'")
    db.commit()
    db.close()
    assert rc.verify(journal).ok
    # any other table in the file is named as unchecked (it is no part of the journal)
    db = sqlite3.connect(journal)
    db.execute("CREATE TABLE notes_of_a_visitor (x)")
    db.commit()
    db.close()
    verdict = rc.verify(journal)
    assert verdict.ok
    assert verdict.notes == ("table 'notes_of_a_visitor' is no part of the journal: not "
                             "checked",)
    t = Table(journal, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=3))
    try:
        assert t.locked is None
    finally:
        t.close()
    # and the journal itself is still checked: an edited event is found
    edit_body(journal, first_of(journal, "place_bet"),
              lambda body: body.replace('"seat":1', '"seat":2'))
    assert rc.verify(journal).problem.kind is ProblemKind.EVENT_ALTERED


def test_the_cursor_moves_only_on_acknowledgement_and_the_backlog_drains(floor, tmp_path):
    journal = tmp_path / "journal.sqlite3"
    store = tmp_path / "floor.sqlite3"
    broker = floor.broker()  # made, not started: nothing listens on its port yet
    config = TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id="TCP-09",
                         floor_broker=broker.url)
    table = Table(journal, config)
    player = AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"])
    shoe = EventShoe(9, parse_faults("misread=0.1"))

    def deal(rounds: int) -> int:
        """Deal with a feed (as ``simulate --floor`` does); the cursor it left.

        The feed is stopped once it has read the whole journal (a feed resting between
        its chunks on a busy machine may not have: its cursor then stands even earlier).
        """
        feed = open_floor(config, table, drain_s=30)
        simulate(table, player, shoe, rounds)
        floor.wait_until(lambda: feed.follower is not None
                         and feed.follower.position >= table.journal.last_seq, 60,
                         "the feed to read the journal")
        feed.stop()
        return _cursor(journal)[0]

    # no broker: the rounds are dealt, nothing is acknowledged, the cursor stands before
    # the first event that makes a message (the events before it have nothing to send)
    cursor = deal(10)
    f = Follower(journal, "TCP-09")
    first = f.poll()[0].seq
    f.close()
    assert cursor == first - 1
    assert len(floor.finished(journal)) >= 10

    # with a broker, the backlog goes first, and the cursor reaches the head
    broker.start()
    recorder = floor.recorder(broker, store)
    assert deal(20) == table.journal.last_seq
    want = floor.finished(journal)
    deadline = time.monotonic() + 15
    while floor.stored(store, "TCP-09") != want:
        assert time.monotonic() < deadline, "the backlog did not reach the store"
        time.sleep(0.1)

    # a restart resumes at the cursor: nothing is sent twice
    assert deal(22) == table.journal.last_seq
    table.close()
    assert recorder.stop() == 0
    stored, duplicates = map(int, re.search(r"recorder stopped: (\d+) stored, (\d+) duplicate",
                                             recorder.text()).groups())
    assert duplicates == 0 and stored >= 22
    assert floor.stored(store, "TCP-09") == floor.finished(journal)
