"""The floor verifies what a table's credentials send, and witnesses the table's journal.

With a real Mosquitto, the real recorder (``threecard floor serve``) and real tables:

- a journal put back to a copy 30 rounds older, with its anchor and its seal key (a
  journal consistent in itself: neither start-up nor ``verify-journal`` can tell), is
  locked before any bet by the floor's witness when the table starts with the floor, the
  log naming the floor's round and the journal's, and ``verify-journal --floor-store``
  says the journal changed; started while the floor cannot be reached, the table raises
  an alarm and deals, and is locked once the floor is back;
- with one table's MQTT credentials, a made-up series of rounds (every link right, no
  valid seal) and made-up voids are refused and counted as forged (``FORGED n`` in
  ``floor status``), and never displace the table's own rounds and its real void.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
from floor_feed import feed_messages, finished, forge, head_at, verification_key
from journal_edit import copy_journal, events

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.inputs import NextRound, NoMoreBets, PlaceBet, VoidRound
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.messages import encode
from simulators.event_shoe import EventShoe, parse_faults

RECORDER = "floor.recorder"
BETS = ("place_bet", "rebet", "mark_bet", "no_more_bets", "card")
"""Journal kinds a table dealing writes: none may follow a lock at start-up."""


def _threecard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def _status(store: Path, table: str) -> dict:
    out = _threecard("floor", "status", "--store", store, "--json")
    assert out.returncode == 0, out.stderr
    return next(t for t in json.loads(out.stdout)["tables"] if t["table_id"] == table)


def _kinds_after(journal: Path, seq: int) -> set[str]:
    return {e[3] for e in events(journal, seq + 1)}


def test_a_journal_put_back_to_an_older_copy_is_locked_by_the_floors_witness(floor, tmp_path):
    table = "TCP-R"
    broker = floor.broker().start()
    store, journal, older = (tmp_path / "floor.sqlite3", tmp_path / "journal.sqlite3",
                             tmp_path / "older.sqlite3")
    recorder = floor.recorder(broker, store)
    feed = ("--journal", journal, "--floor", broker.url, "--table-id", table)
    for rounds in (30, 60):
        if rounds == 60:  # the copy a forger keeps: the journal, its anchor, its key
            copy_journal(journal, older)
            shutil.copyfile(f"{journal}.anchor", f"{older}.anchor")
        done = _threecard("simulate", "--rounds", rounds, "--seats", 2, *feed)
        assert done.returncode == 0, done.stderr
    floor.wait_until(lambda: len(floor.stored(store, table)) == len(finished(journal)), 30,
                     "every round on the floor")
    on_floor = len(finished(journal))
    copy_journal(older, journal)  # put back in place, as cp would: the same file, older
    shutil.copyfile(f"{older}.anchor", f"{journal}.anchor")
    kept = len(finished(journal))
    head = events(journal)[-1][0]
    assert on_floor - kept == 30

    # the journal verifies on its own: only the floor can tell
    alone = _threecard("verify-journal", "--journal", journal)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    said = (f"journal rolled back: the floor holds round {on_floor}, the journal ends at "
            f"round {kept}")
    dealer = floor.table(broker, table, journal, 0)
    dealer.wait_for(r"TABLE LOCKED: Journal integrity check failed: " + said, 30)
    dealer.wait_for(r"READY", 30)
    assert dealer.stop() == 0
    assert said in dealer.text()
    assert _kinds_after(journal, head).isdisjoint(BETS), "a bet after the lock"
    checked = _threecard("verify-journal", "--journal", journal, "--floor-store", store,
                         "--json")
    out = json.loads(checked.stdout)
    assert checked.returncode == 1 and out["ok"] and not out["floor"]["ok"]
    assert "the journal changed: the floor holds round" in out["floor"]["problems"][0]
    assert "it was cut, or put back to an older copy" in out["floor"]["problems"][0]

    # started while the floor cannot be reached: an alarm, and the table deals; once the
    # floor is back (the recorder publishes its witness again), the table is locked
    broker.kill()
    dealer = floor.run("dealer-away", "run", "--demo", "--headless", "--seats", "2",
                       "--pace-ms", "100", "--journal", str(journal), "--floor", broker.url,
                       "--table-id", table)
    dealer.wait_for(r"ALARM: floor witness not checked: broker \S+ unreachable", 30)
    floor.wait_until(lambda: len(finished(journal)) > kept, 30, "the table to deal a round")
    broker.start()
    recorder.wait_for(r"recorder connected .*\n(.|\n)*recorder connected", 30)
    dealer.wait_for(r"TABLE LOCKED: Journal integrity check failed: journal rolled back: "
                    rf"the floor holds round {on_floor}, the journal ends at round \d+", 30)
    assert dealer.stop() == 0
    assert floor.stored(store, table)[0]["round_id"] == on_floor  # the floor's record stands


def _voided_journal(path: Path, table: str) -> Path:
    """A sealed journal of a few rounds, one voided by a supervisor."""
    t = Table(path, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=table))
    player = AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"])
    simulate(t, player, EventShoe(8, parse_faults("")), 3)
    t.process([PlaceBet(seat=1, bet="ante", amount=100), NoMoreBets(),
               VoidRound(reason="dealer error", pin=DEMO_PINS["supervisor"]), NextRound()])
    simulate(t, player, EventShoe(9, parse_faults("")), 5)
    t.close()
    return path


def test_rounds_and_voids_made_up_with_a_tables_credentials_are_refused_and_counted(
        floor, tmp_path):
    table = "TCP-A"
    broker = floor.secured().start()
    store = tmp_path / "floor.sqlite3"
    pw = floor.secret("recorder.pw", floor.users[RECORDER])
    recorder = floor.recorder(broker, store, "--username", RECORDER, "--password-file",
                              str(pw))
    journal = _voided_journal(tmp_path / "journal.sqlite3", table)
    # the technician enrols the table's verification key, as the table printed it
    enrol = _threecard("floor", "enrol", "--store", store, "--table", table, "--verify-key",
                       verification_key(journal).upper())
    assert enrol.returncode == 0, enrol.stderr
    assert f"table {table}: verification key {verification_key(journal)} enrolled" in \
        enrol.stdout
    msgs = [m.body for m in feed_messages(journal, table)]
    rounds = [m for m in msgs if m.name == "round"]
    void = next(m for m in msgs if m.name == "event" and m.kind == "void")

    def rich(row):  # every bet of 100 made one of 50,000
        return msgspec.structs.replace(row, body=row.body.replace('"amount":100',
                                                                  '"amount":50000'))

    # someone with table A's password, before the table's own messages: a made-up series
    # (each round's rows linked to the one before, sealed with a key of their own), and
    # made-up voids over every event of the round the table voided
    made_up = [forge(m, head_at(rounds, m.after), rich) for m in rounds[:3]]
    closing = next(m for m in rounds if m.after < void.seq <= m.rows[-1].seq)
    fakes = [msgspec.structs.replace(void, seq=seq, message="Round 4 is void: made up")
             for seq in range(closing.after + 1, closing.rows[-1].seq + 1)]
    forger = floor.client(broker, table, floor.users[table])
    for m in made_up + fakes:
        assert forger.publish(f"threecard/{table}/{m.name}", encode(m)) == 0
    # the table's own messages (as its feed sends them)
    sender = floor.client(broker, table, floor.users[table])
    for m in msgs:
        assert sender.publish(f"threecard/{table}/{m.name}", encode(m),
                              retain=m.name in ("state", "meters")) == 0
    want = finished(journal)
    floor.wait_until(lambda: floor.stored(store, table) == want, 30, "the table's rounds")
    row = floor.wait_until(lambda: (r := _status(store, table))["forged"] == 3 + len(fakes)
                           and r, 30, "every forgery counted")
    assert row["verify_key"] == verification_key(journal) and row["key_pinned"] == "enrolled"
    status = _threecard("floor", "status", "--store", store).stdout
    assert f"FORGED {3 + len(fakes)}: " in status and "(enrolled)" in status
    assert recorder.stop() == 0
    assert "FORGED on table TCP-A's topic (1): round 1 of journal" in recorder.text()
    assert f"({len(fakes)}): {len(fakes)} event(s) its sealed rows do not make" in \
        recorder.text()
    # the real void stands, alone, with its own words
    import sqlite3

    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        voids = db.execute("SELECT seq, body FROM events WHERE kind = 'void'").fetchall()
        pending = db.execute("SELECT COUNT(*) FROM pending_events").fetchone()[0]
    finally:
        db.close()
    assert [(seq, json.loads(body)["message"]) for seq, body in voids] == [
        (void.seq, void.message)] and pending == 0
    assert [r["status"] for r in want].count("void") == 1
