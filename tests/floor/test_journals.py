"""The floor reads a journal of either format, and a journal whose history was archived.

The feed and the recorder's anchors read the journal through the journal's own reading
API, never its SQLite tables: a journal kept by an earlier version (format 1) makes the
same floor messages as the same journal written compact (format 2): the same rows and
seal heads, each journal signing with keys of its own; a journal written before seals
sends no round the floor would refuse, and says why. A journal whose
settled history ``threecard journal archive`` moved out still answers the floor's resend
requests for those rounds, from the archive beside it. With a real Mosquitto: a table's
journal delivered to one floor and archived, then dealt on by a table feeding a floor
that holds nothing of it (a new recorder's store): the floor asks from round 1, the table
answers from its archive, and the store ends equal to the journal (``verify-journal
--floor-store`` compares the archived rounds too). Without its archive, a journal sends
the rounds it holds and never makes up a previous round for the first of them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import msgspec
from floor_feed import feed_messages, finished
from step_clock import StepClock

from controller.autoplay import AutoPlayer
from controller.floor_link import open_floor
from controller.game import archive as arc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.inputs import Reveal
from controller.game.table import Table
from controller.journal import Journal
from controller.simulate_cli import simulate
from floor.anchors import compare
from floor.follower import UNSEALED, Follower
from floor.messages import encode
from floor.recorder import Recorder
from floor.store import Store
from simulators.event_shoe import EventShoe, parse_faults

TABLE = "TCP-J"
DATA = Path(__file__).resolve().parents[1] / "controller" / "data"


def _config(**kw) -> TableConfig:
    return TableConfig(seats=2, pin_hashes=demo_pin_hashes(), snapshot_every=3,
                       table_id=TABLE, **kw)


def _play(table: Table, rounds: int, seed: int = 5) -> None:
    simulate(table, AutoPlayer(bets={"ante": 100, "pair_plus": 100},
                               pin=DEMO_PINS["supervisor"]),
             EventShoe(seed, parse_faults("misread=0.2,duplicate=0.1")), rounds)


def _messages(journal: Path, table: str = TABLE, **kw) -> list:
    return feed_messages(journal, table, **kw)


def _recorded(journal: Path, store_path: Path) -> None:
    """A recorder fed every message of the journal's feed (as the broker delivers them)."""
    store = Store(store_path)
    rec = Recorder(store, lambda *_: None)
    try:
        for m in _messages(journal):
            rec.on_message(m.body.table, m.name, encode(m.body))
    finally:
        store.close()


def test_the_floor_hears_a_format_1_journal_as_it_hears_a_format_2_one(tmp_path):
    one, two = tmp_path / "one.sqlite3", tmp_path / "two.sqlite3"
    for path, fmt in ((one, 1), (two, 2)):
        t = Table(Journal(path, fmt=fmt), _config(), clock=StepClock(timedelta(seconds=2)))
        t.process([Reveal()])  # a rejection
        _play(t, 10)
        t.close()
        j = Journal(path, readonly=True)
        assert j.format == fmt
        j.close()
    whole = _messages(one)
    assert _unsigned(whole) == _unsigned(_messages(two))
    assert len([m for m in whole if m.name == "round"]) >= 10
    head = whole[-1].seq
    for kw in ({"after": head // 2}, {"rounds_from": 4, "until": head}):
        assert _unsigned(_messages(one, **kw)) == _unsigned(_messages(two, **kw)), kw
    # the floor's anchor: a store of each journal's feed verifies it
    for path in (one, two):
        store = tmp_path / f"floor-{path.stem}.sqlite3"
        _recorded(path, store)
        verdict = compare(path, store)
        assert verdict.ok and verdict.rounds_checked == len(finished(path)), verdict
    # a journal written by the last version that wrote format 1, before seals: its rounds
    # are withheld (the floor would refuse them), its events and state go
    old = tmp_path / "old.sqlite3"
    shutil.copyfile(DATA / "format1.journal", old)
    shutil.copyfile(DATA / "format1.journal.anchor", f"{old}.anchor")
    f = Follower(old, "TABLE-1")
    try:
        sent = [m for page in iter(f.poll, None) for m in page]
        assert not [m for m in sent if m.name == "round"] and sent[-1].name == "state"
        assert f.withheld == len(finished(old)) and UNSEALED in f.withheld_note()
    finally:
        f.close()


def _unsigned(msgs: list) -> list:
    """The messages with what each journal's own keys make blanked (its id, the seals'
    keys and signatures): two journals of the same events make the same rows and heads."""
    out = []
    for m in msgs:
        b = m.body
        if m.name == "round":
            b = msgspec.structs.replace(b, journal_id="", chains=[
                (c.epoch, c.seq, c.head) for c in b.chains],
                seals=[(s.epoch, s.seq, s.head) for s in b.seals])
        out.append((m.seq, b))
    return out


def _threecard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_an_archived_journal_answers_the_floor_from_its_archive(floor, tmp_path):
    broker = floor.broker().start()
    first_store, store = tmp_path / "first.sqlite3", tmp_path / "floor.sqlite3"
    recorder = floor.recorder(broker, first_store, name="first-recorder")
    journal = tmp_path / "journal.sqlite3"
    config = _config(floor_broker=broker.url)
    table = Table(journal, config)
    feed = open_floor(config, table, drain_s=30)
    _play(table, 12)
    floor.wait_until(lambda: floor.stored(first_store, TABLE) == finished(journal), 30,
                     "the rounds on the first floor")
    feed.stop()
    table.close()
    assert recorder.stop() == 0
    archived = _threecard("journal", "archive", "--journal", journal, "--older-than", "0",
                          "--json")
    assert archived.returncode == 0, archived.stderr
    moved = json.loads(archived.stdout)
    assert moved["rounds"] >= 6 and Path(moved["archive"]).exists(), moved
    cut = Journal(journal, readonly=True)
    assert cut.base_seq == moved["cut"] > 0
    cut.close()
    # a floor that holds nothing of this table: it asks from round 1, and the table's
    # answer reads the archive
    floor.recorder(broker, store)
    dealer = floor.table(broker, TABLE, journal, 50)
    dealer.wait_for(r"floor: the floor asks for rounds from 1 again", 60)
    dealer.wait_for(r"floor: rounds from 1 up to event \d+ sent again", 60)
    floor.wait_until(lambda: len(floor.stored(store, TABLE)) > moved["rounds"] + 2, 60,
                     "the archived rounds and new ones on the floor")
    assert dealer.stop() == 0
    floor.wait_until(lambda: floor.stored(store, TABLE) == finished(journal), 30,
                     "the store equal to the journal with its archive")
    assert [r["round_id"] for r in finished(journal)][-1] == 1
    checked = _threecard("verify-journal", "--journal", journal, "--floor-store", store,
                         "--json")
    out = json.loads(checked.stdout)
    assert checked.returncode == 0 and out["floor"]["ok"], out
    assert out["floor"]["rounds_checked"] == len(finished(journal))
    assert out["floor"]["notes"] == [], out["floor"]


def test_without_its_archive_a_journal_sends_what_it_holds_and_makes_up_no_link(tmp_path):
    journal = tmp_path / "journal.sqlite3"
    t = Table(journal, _config())
    _play(t, 12)
    t.close()
    done = arc.archive(journal, timedelta(0))      # no floor feed yet: nothing holds it back
    t = Table(journal, _config())
    _play(t, 18)                                    # six more rounds after the cut
    t.close()
    whole = [m.body for m in _messages(journal, rounds_from=1, until=10**9)
             if m.name == "round"]
    assert [m.round_id for m in whole][:1] == [1]   # the archive beside it: every round
    Path(done.archive).rename(tmp_path / "elsewhere.archive")
    cut = Journal(journal, readonly=True)
    in_play = json.loads(cut.snapshot(cut.base_seq)[2])["round_id"]  # the round at the cut
    cut.close()
    # a resend from round 1, and a feed with nothing delivered: the rounds after the cut,
    # each with its true previous round; the round in play at the cut (whose previous round
    # ended in the archive) is withheld, not sent with a previous round made up
    kept = [m for m in whole if m.round_id > in_play]
    for kw in ({"rounds_from": 1, "until": 10**9}, {}):
        f = Follower(journal, TABLE, **kw)
        try:
            sent = [m.body for page in iter(f.poll, None) for m in page if m.name == "round"]
            assert sent == kept and len(kept) >= 5, kw
            assert f.withheld == in_play
            note = f.withheld_note()
            assert f"round {in_play} and those before it cannot be sent" in note
            assert "not found beside the journal" in note and f.withheld_note() is None
        finally:
            f.close()
