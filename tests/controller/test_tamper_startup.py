"""The tamper table: every kind of edit, found alike by start-up and by ``verify-journal``.

A journal is written by the real table (autoplay, misreads and duplicate cards, a
rejected input), closed, and then edited behind the table's back, one kind of edit per
case. For each: a table opened on it (start-up) locks itself, and again at the next
start (it never clears itself, R4); ``threecard verify-journal --json`` (a subprocess)
says the journal is broken; and both name the same problems (kind and place).

Two journals: one without a snapshot, where start-up checks everything from the first
event (so "an old round" is one older than game recall keeps, round 2 of 15), and one
with snapshots every 5 rounds, where start-up replays from the verified snapshot its
anchor names and the edits fall after it. Edits before that snapshot that leave every
record well formed are verify-journal's: start-up's check is bounded by the snapshot
interval, not by the journal's age; ``simulate`` (the last tests) and ``run``
(``tests/daemon/test_startup_history.py``) make that full check before dealing on, or
once READY, and stop or lock on what it finds. Each is written in the compact format a
new journal has (2) and in the format of earlier versions (1), which a table goes on
writing in: every edit is caught in both. Format 2 stores the chain hash at its
checkpoints only (every 32nd event, and the event a snapshot follows) and derives the
others: an edit between two checkpoints is named at the next (with the events it may be),
one after the newest by the anchor, and a checkpoint's hash edited, removed or made no
hash is caught as well.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from in_process import threecard
from journal_edit import (
    BEYOND_START_UP,
    as_before_seals,
    checkpoint_after,
    copy_keys,
    edit_body,
    file_format,
    rewrite_chain_from,
    set_snapshot_state,
    snapshot_state,
    sql,
)

from controller.autoplay import AutoPlayer
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.inputs import Reveal
from controller.game.replay import round_records
from controller.game.table import Table
from controller.game.verifier import ProblemKind
from controller.journal import Journal, JournalError, codec
from controller.journal.anchor import AnchorFile
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe, parse_faults

K = ProblemKind


def config(snapshot_every: int) -> TableConfig:
    return TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=snapshot_every)


def write_journal(path: Path, snapshot_every: int, rounds: int, fmt: int = 2) -> None:
    t = Table(Journal(path, fmt=fmt), config(snapshot_every))
    player = AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"])
    t.process([Reveal()])                                 # a rejection near the start
    simulate(t, player, EventShoe(3, parse_faults("misread=0.2,duplicate=0.1")), rounds)
    t.process([Reveal()])                                 # and one at the end
    t.close()


@pytest.fixture(scope="module")
def journals(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("tamper")
    out = {}
    for fmt, suffix in ((2, ""), (1, ", format 1")):
        out["no snapshot" + suffix] = base / f"plain{fmt}.sqlite3"
        out["snapshots" + suffix] = base / f"snap{fmt}.sqlite3"
        write_journal(out["no snapshot" + suffix], 200, 15, fmt)
        write_journal(out["snapshots" + suffix], 5, 13, fmt)
    return out


def every(which: str) -> int:
    return 200 if which.startswith("no snapshot") else 5


class Facts:
    """What a tamper case needs to know of its journal (read before the edit)."""

    def __init__(self, path: Path) -> None:
        j = Journal(path, readonly=True)
        try:
            a = j.anchor
            self.format = j.format
            self.last = j.last_seq
            self.start = a.verified_seq if a else 0          # start-up replays after it
            snap = j.snapshot(self.start)
            self.first_round = json.loads(snap[2])["round_id"] if snap else 1
            rows = list(j.records(self.start))
            self.card_seq = next(r.seq for r in rows if r.kind == "card")
            self.middle_seq = rows[len(rows) // 2].seq
            self.rounds = [r for r, _, _ in j.round_ends(self.first_round)]
            self.lost_round = max(r["round_id"] for r in round_records(j, first=self.first_round)
                                  if '"outcome": "lose"' in json.dumps(r))
            self.rejection = max(j.rejections(after=self.start))
            # format 2: the checkpoints after the start point (each stores its hash)
            self.checkpoints = [s for s in range(self.start + 1, self.last + 1)
                                if not s % codec.CHECKPOINT]
            newest = self.checkpoints[-1] if self.checkpoints else 0
            self.tail_card = max((r.seq for r in rows if r.kind == "card" and r.seq > newest),
                                 default=None)
        finally:
            j.close()


def empty(path: Path) -> None:
    path.write_bytes(b"")


def edited_snapshot(path: Path, seq: int, power_ups: int, reseal: bool = False) -> None:
    """A snapshot's state changed (``reseal``: a forger's, sealed again to the chain)."""
    state = snapshot_state(path, seq)
    set_snapshot_state(path, seq, state.replace('"power_ups":1', f'"power_ups":{power_ups}'),
                       reseal)


def retyped(path: Path, create: str, name: str, typ: str,
            also: tuple[str, str] | None = None) -> None:
    """``create`` run (if any), then its schema row's type spelled ``typ`` (and ``also``:
    (column, SQL expression) set too), through ``PRAGMA writable_schema``."""
    db = sqlite3.connect(path)
    if create:
        db.execute(create)
    db.execute("PRAGMA writable_schema = ON")
    db.execute("UPDATE sqlite_master SET type = ? WHERE name = ?", (typ, name))
    if also:
        db.execute(f"UPDATE sqlite_master SET {also[0]} = {also[1]} WHERE name = ?", (name,))
    db.commit()
    db.close()


def rebuilt_rounds(path: Path, f: Facts, constraint: str) -> None:
    """The rounds table made again with the same rows and one constraint more."""
    db = sqlite3.connect(path)
    sql_text = db.execute("SELECT sql FROM sqlite_master WHERE name = 'rounds'").fetchone()[0]
    db.executescript(f"""ALTER TABLE rounds RENAME TO old_rounds;
        {sql_text.rstrip().rstrip(')')}, {constraint});
        INSERT INTO rounds SELECT * FROM old_rounds WHERE round_id <= 3;
        DROP TABLE old_rounds;""")
    db.close()


def round_edited(path: Path, f: Facts) -> None:
    """A round's stored row changed: format 1 its record, format 2 the event it names."""
    if f.format == 1:
        sql(path, "UPDATE rounds SET record = replace(record, '\"outcome\":\"lose\"', "
            "'\"outcome\":\"win\"') WHERE round_id = ?", f.lost_round)
    else:
        sql(path, "UPDATE rounds SET seq = seq - 1 WHERE round_id = ?", f.lost_round)


def round_added(path: Path, f: Facts) -> None:
    cols = ("status, void_reason, started_utc, ended_utc, record" if f.format == 1
            else "status, seq")
    sql(path, f"INSERT INTO rounds SELECT round_id + 1000, {cols} FROM rounds "
        "WHERE round_id = ?", f.rounds[-1])


def round_unreadable(path: Path, f: Facts) -> None:
    column = "record" if f.format == 1 else "seq"
    sql(path, f"UPDATE rounds SET {column} = 'not json' WHERE round_id = ?", f.rounds[-1])


def card_edited(body: str) -> str:
    return body.replace('"card":"', '"card":"9')


def any_edited(body: str) -> str:
    """Any event's body with a field added."""
    return json.dumps({**json.loads(body), "forged": 1}, sort_keys=True, separators=(",", ":"))


def stored_hash(path: Path, seq: int, value: object) -> None:
    """Format 2: what event ``seq`` stores as its hash set to ``value`` (bytes, text, None)."""
    sql(path, "UPDATE events SET h = ? WHERE seq = ?", value, seq)


def edited_before_the_snapshot(path: Path, f: Facts) -> None:
    """An event between the checkpoint before the verified snapshot and the snapshot
    edited: start-up's chain begins at the snapshot's event, whose hash is stored."""
    assert (f.start - 1) % codec.CHECKPOINT and f.start > codec.CHECKPOINT
    edit_body(path, f.start - 1, any_edited)


def edited_after_the_newest_checkpoint(path: Path, f: Facts) -> None:
    """A card after the newest checkpoint edited: only the anchor pins it."""
    assert f.tail_card is not None
    edit_body(path, f.tail_card, card_edited)


# kind of edit -> (the edit, the problem kind both must name first, journals it applies to)
BOTH = ("no snapshot", "snapshots", "no snapshot, format 1", "snapshots, format 1")
SNAPSHOTS = ("snapshots", "snapshots, format 1")
PLAIN = ("no snapshot", "no snapshot, format 1")
DROPPED = {"rejections": K.REJECTION, "counters": K.COUNTERS, "meters": K.METERS,
           "rounds": K.ROUND, "snapshots": K.SNAPSHOT}
"""The journal's tables a forger may drop, and the problem that names it."""
FORMAT2 = ("no snapshot", "snapshots")
TAMPERS: dict[str, tuple[Callable[[Path, Facts], None], ProblemKind, tuple[str, ...]]] = {
    "event edited": (lambda p, f: edit_body(p, f.card_seq, card_edited), K.EVENT_ALTERED,
                     BOTH),
    "event deleted in the middle": (lambda p, f: sql(
        p, "DELETE FROM events WHERE seq = ?", f.middle_seq), K.EVENT_MISSING, BOTH),
    "events deleted at the tail": (lambda p, f: sql(
        p, "DELETE FROM events WHERE seq > ?", f.last - 3), K.TAIL_DELETED, BOTH),
    "every event deleted": (lambda p, f: sql(p, "DELETE FROM events"), K.EMPTIED, BOTH),
    "file emptied": (lambda p, f: empty(p), K.EMPTIED, BOTH),
    "chain rewritten with recomputed hashes": (lambda p, f: rewrite_chain_from(
        p, f.card_seq, card_edited), K.REWRITTEN, BOTH),
    "counters edited": (lambda p, f: sql(
        p, "UPDATE counters SET value = value + 1 WHERE name = 'power_ups'"), K.COUNTERS,
        BOTH),
    "meter row deleted": (lambda p, f: sql(
        p, "DELETE FROM meters WHERE name = 'seat 1'"), K.METERS, BOTH),
    "meter row edited": (lambda p, f: sql(
        p, "UPDATE meters SET paid = paid + 1000 WHERE name = 'total'"), K.METERS, BOTH),
    "round record edited": (round_edited, K.ROUND, BOTH),
    "old round's status edited": (lambda p, f: sql(
        p, "UPDATE rounds SET status = 'void' WHERE round_id = ?", f.rounds[0]), K.ROUND,
        BOTH),
    "round record deleted": (lambda p, f: sql(
        p, "DELETE FROM rounds WHERE round_id = ?", f.rounds[-1]), K.ROUND, BOTH),
    "round record added": (round_added, K.ROUND, BOTH),
    "unreadable round record": (round_unreadable, K.ROUND_UNREADABLE, BOTH),
    "rejection edited": (lambda p, f: sql(
        p, "UPDATE rejections SET reason = 'never mind' WHERE seq = ?", f.rejection),
        K.REJECTION, BOTH),
    "rejection deleted": (lambda p, f: sql(
        p, "DELETE FROM rejections WHERE seq = ?", f.rejection), K.REJECTION, BOTH),
    "derived mark edited": (lambda p, f: sql(
        p, "UPDATE derived_at SET seq = ?", f.last + 50), K.DERIVED_MARK, BOTH),
    "snapshot edited": (lambda p, f: edited_snapshot(p, f.start, 2), K.SNAPSHOT, SNAPSHOTS),
    "snapshot edited and sealed again": (lambda p, f: edited_snapshot(p, f.start, 5, True),
                                         K.SNAPSHOT, SNAPSHOTS),
    "snapshot deleted": (lambda p, f: sql(
        p, "DELETE FROM snapshots WHERE seq = ?", f.start), K.SNAPSHOT, SNAPSHOTS),
    "anchor unreadable": (lambda p, f: Path(str(p) + ".anchor").write_text("x"),
                          K.ANCHOR, BOTH),
    # a seal changed: its signature no longer verifies (the first seal, before any snapshot)
    "seal's signature edited": (lambda p, f: sql(
        p, "UPDATE seals SET signature = zeroblob(64) WHERE epoch = 0"), K.SEAL, PLAIN),
    # a table dropped: the table's start creates it empty, a reader reads an empty one
    # (with snapshots, what it held before the snapshot is start-up's cheap checks': OLD)
    **{f"{name} table dropped": (lambda p, f, name=name: sql(p, f"DROP TABLE {name}"), kind,
                                 PLAIN) for name, kind in DROPPED.items()
       if name != "snapshots"},  # a journal without a snapshot loses nothing by it
    "trigger added": (lambda p, f: sql(
        p, "CREATE TRIGGER gone AFTER INSERT ON events BEGIN DELETE FROM events WHERE seq = "
        "new.seq; END"), K.SCHEMA_OBJECT, BOTH),
    "unique index on round status": (lambda p, f: sql(  # the next rounds would replace rows
        p, f"CREATE UNIQUE INDEX u ON rounds(status) WHERE round_id > {max(f.rounds)}"),
        K.SCHEMA_OBJECT, BOTH),
    "a column added to the rounds table": (lambda p, f: sql(
        p, "ALTER TABLE rounds ADD COLUMN extra DEFAULT 1"), K.SCHEMA_OBJECT, BOTH),
    "a constraint added to the rounds table": (lambda p, f: rebuilt_rounds(
        p, f, "CHECK (round_id <= 3)"), K.SCHEMA_OBJECT, BOTH),
    # the schema's type column spelled in another case: SQLite reads the definition
    "trigger typed 'Trigger'": (lambda p, f: retyped(p, "CREATE TRIGGER gone AFTER INSERT ON "
                                "rounds BEGIN DELETE FROM rounds WHERE round_id = "
                                "new.round_id; END", "gone", "Trigger"), K.SCHEMA_OBJECT, BOTH),
    "unique index typed 'INDEX'": (lambda p, f: retyped(
        p, f"CREATE UNIQUE INDEX u ON rounds(status) WHERE round_id > {max(f.rounds)}", "u",
        "INDEX"), K.SCHEMA_OBJECT, BOTH),
    "rounds typed 'Table' with a CHECK": (lambda p, f: retyped(
        p, "", "rounds", "Table", ("sql", "replace(sql, 'seq INTEGER NOT NULL', 'seq "
                                   "INTEGER NOT NULL CHECK (seq > 0)')")),
        K.SCHEMA_OBJECT, FORMAT2),
    "rejections table made a view": (lambda p, f: (sql(p, "DROP TABLE rejections"), sql(
        p, "CREATE VIEW rejections AS SELECT seq, 'made up' AS reason FROM events WHERE "
        f"seq = {f.rejection}")), K.SCHEMA_OBJECT, PLAIN),
    # format 2 stores the chain hash at the checkpoints only (every 32nd event)
    "event edited after the newest checkpoint": (edited_after_the_newest_checkpoint,
                                                 K.REWRITTEN, FORMAT2),
    "event edited between the checkpoint and the snapshot": (edited_before_the_snapshot,
                                                             K.EVENT_ALTERED, ("snapshots",)),
    "checkpoint's hash edited": (lambda p, f: stored_hash(
        p, f.checkpoints[0], bytes(32)), K.EVENT_ALTERED, FORMAT2),
    "newest checkpoint's hash edited": (lambda p, f: stored_hash(
        p, f.checkpoints[-1], bytes(32)), K.REWRITTEN, FORMAT2),
    "checkpoint's hash removed": (lambda p, f: stored_hash(
        p, f.checkpoints[-1], None), K.EVENT_ALTERED, FORMAT2),
    "checkpoint's hash made no hash": (lambda p, f: stored_hash(
        p, f.checkpoints[0], "not a hash"), K.EVENT_ALTERED, FORMAT2),
    "hash stored where none is kept": (lambda p, f: stored_hash(
        p, f.card_seq, bytes(32)), K.EVENT_ALTERED, FORMAT2),
}
CASES = [(kind, which) for kind, (_, _, whichs) in TAMPERS.items() for which in whichs]


def copy_journal(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    shutil.copyfile(str(src) + ".anchor", str(dst) + ".anchor")
    copy_keys(src, dst)
    return dst


def start_up(path: Path, snapshot_every: int):
    t = Table(path, config(snapshot_every))
    try:
        return t.locked, t.verdict
    finally:
        t.close()


def verify_journal(path: Path) -> dict:
    p = threecard("verify-journal", "--journal", path, "--json")
    assert p.returncode in (0, 1), p.stderr
    out = json.loads(p.stdout)
    assert out["ok"] is (p.returncode == 0)
    return out


def problems_of(out: dict) -> tuple:
    return tuple((p["kind"], p["seq"], p["key"]) for p in out["problems"])


def test_an_untouched_journal_opens_again_and_again_and_verifies(journals, tmp_path):
    for which, src in journals.items():
        path = copy_journal(src, tmp_path / f"{which}.sqlite3")
        assert file_format(path) == (1 if "format 1" in which else 2)
        assert start_up(path, every(which))[0] is None
        assert start_up(path, every(which))[0] is None
        out = verify_journal(path)
        assert out["ok"] and out["notes"] == [] and out["anchor_seq"] > 0, out


@pytest.mark.parametrize("kind, which", CASES)
def test_start_up_and_verify_journal_give_the_same_verdict(journals, tmp_path, kind, which):
    edit, first, _ = TAMPERS[kind]
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    facts = Facts(path)
    edit(path, facts)
    locked, verdict = start_up(path, every(which))
    assert locked is not None and not verdict.ok
    assert locked == f"Journal integrity check failed: {verdict.message}"
    assert verdict.problem.kind is first, verdict.summary()
    assert start_up(path, every(which))[1].key() == verdict.key()  # it never clears itself
    out = verify_journal(path)
    assert not out["ok"] and out["verdict"].startswith("JOURNAL BROKEN")
    assert problems_of(out) == verdict.key(), (out["verdict"], verdict.summary())
    assert [p["message"] for p in out["problems"]] == [p.message for p in verdict.problems]
    if which in SNAPSHOTS:                                  # start-up began after a snapshot
        assert facts.start > 0
        if first not in (K.ANCHOR, K.EMPTIED, K.TAIL_DELETED, K.REWRITTEN, K.SNAPSHOT,
                         K.SCHEMA_OBJECT):  # these end the check before its start point
            assert verdict.checked_from == facts.start + 1


def test_the_tamper_table_names_every_kind_of_problem_a_journal_can_have():
    named = {first for _, first, _ in TAMPERS.values()}
    untampered = {K.UNREADABLE, K.EVENT_UNREADABLE, K.REPLAY}  # no edit reaches these
    assert named | untampered == set(ProblemKind)           # (a chain that holds, below)


def test_a_journal_without_its_anchor_verifies_with_its_tail_unchecked(journals, tmp_path):
    path = tmp_path / "copy.sqlite3"
    shutil.copyfile(journals["no snapshot"], path)          # an inspector's copy
    out = verify_journal(path)
    assert out["ok"] and out["notes"] == ["tail unchecked: no anchor"]
    assert "tail unchecked: no anchor" in out["verdict"]
    f = Facts(path)
    sql(path, "DELETE FROM events WHERE seq > ?", f.last - 3)  # undetectable without it...
    out = verify_journal(path)                              # ...but the last seal is later
    assert problems_of(out) == (("seal", f.last - 2, None),)
    as_before_seals(path)                                   # and without seals, the derived
    out = verify_journal(path)                              # mark is
    assert problems_of(out) == (("derived_mark", f.last - 2, None),)


def test_a_chain_rewritten_is_caught_by_a_head_from_the_log(journals, tmp_path):
    path = tmp_path / "copy.sqlite3"
    shutil.copyfile(journals["no snapshot"], path)          # no anchor beside it
    f = Facts(path)
    j = Journal(path, readonly=True)
    logged = j.event_hash(f.last)
    j.close()
    rewrite_chain_from(path, f.card_seq, card_edited)
    p = subprocess.run([sys.executable, "-m", "controller.cli", "verify-journal", "--journal",
                        str(path), "--anchor", f"{f.last}:{logged[:32]}"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "the journal was rewritten" in p.stdout
    assert f"event {f.last} does not carry the hash the logged head holds" in p.stdout


@pytest.mark.parametrize("which", ["no snapshot", "no snapshot, format 1"])
def test_event_bodies_that_cannot_be_replayed_are_a_verdict_not_a_traceback(journals, tmp_path,
                                                                             which):
    for body, kind in (("not json", "event_unreadable"), ("[1, 2]", "event_unreadable")):
        path = tmp_path / f"{len(body)}.sqlite3"
        shutil.copyfile(journals[which], path)
        as_before_seals(path)                               # bodies of another version
        f = Facts(path)
        rewrite_chain_from(path, f.card_seq, lambda b, body=body: body)
        out = verify_journal(path)                          # no anchor: the chain holds
        assert problems_of(out) == ((kind, f.card_seq, None),), out
        locked, verdict = start_up(path, 200)
        assert locked and verdict.key() == problems_of(out)


def test_a_journal_from_before_the_derived_record_still_verifies_and_opens(journals, tmp_path):
    path = tmp_path / "old.sqlite3"
    shutil.copyfile(journals["no snapshot"], path)          # written before: no anchor...
    sql(path, "DROP TABLE derived_at")                      # ...and no derived record
    as_before_seals(path)                                   # ...and no seals
    out = verify_journal(path)
    assert out["ok"], out
    assert start_up(path, 200)[0] is None
    assert verify_journal(path)["notes"] == []              # anchored from then on


class Old:
    """What lies before the verified snapshot of a "snapshots" journal (read before an edit)."""

    def __init__(self, path: Path) -> None:
        f = Facts(path)
        j = Journal(path, readonly=True)
        try:
            self.format = f.format
            self.start = f.start
            self.card = next(r.seq for r in j.records() if r.kind == "card")
            self.middle = f.start // 2
            self.snapshot = j.snapshot_seqs()[0]
            self.rejection = min(j.rejections())
            self.recalled = f.first_round - 1                   # held whole by the snapshot
            self.lost = max(r["round_id"] for r in round_records(j, upto=f.start)
                            if r["round_id"] < f.first_round
                            and '"outcome": "lose"' in json.dumps(r))
        finally:
            j.close()
        assert 0 < self.card < self.middle < self.start and self.snapshot < self.start
        assert 0 < self.rejection < self.start and 2 < self.recalled


def event_copied(path: Path, seq: int, to: int) -> None:
    """Event ``seq``'s row inserted again as event ``to``, as it is stored."""
    db = sqlite3.connect(path)
    cols = ", ".join(r[1] for r in db.execute("PRAGMA table_info(events)") if r[1] != "seq")
    db.close()
    sql(path, f"INSERT INTO events SELECT ?, {cols} FROM events WHERE seq = ?", to, seq)


def status_flipped(path: Path, rid: int) -> None:
    """A round's stored status turned: settled to void, void to settled."""
    sql(path, "UPDATE rounds SET status = CASE status WHEN 'void' THEN 'settled' ELSE 'void' "
        "END WHERE round_id = ?", rid)


def old_round_unreadable(path: Path, o: Old) -> None:
    sql(path, f"UPDATE rounds SET {'record' if o.format == 1 else 'seq'} = 'not json' "
        "WHERE round_id = 2")


# edits before the verified snapshot, where start-up neither rehashes nor replays: the
# edit, the problem kind both name, the formats it applies to, and those in which both
# name the same problems (a count cannot say which rejection was deleted, nor, in format
# 2, which round's status was turned)
F1, F12 = (1,), (1, 2)
OLD: dict[str, tuple[Callable[[Path, Old], None], ProblemKind, tuple[int, ...],
                     tuple[int, ...]]] = {
    "old event deleted": (lambda p, o: sql(p, "DELETE FROM events WHERE seq = ?", o.middle),
                          K.EVENT_MISSING, F12, F12),
    "first event deleted": (lambda p, o: sql(p, "DELETE FROM events WHERE seq = 1"),
                            K.EVENT_MISSING, F12, F12),
    "event 0 added": (lambda p, o: event_copied(p, 1, 0), K.EVENT_ALTERED, F12, F12),
    "old snapshot forged where none was taken": (lambda p, o: sql(
        p, f"INSERT INTO snapshots SELECT ?, {'hash' if o.format == 1 else 'seal'}, state "
        "FROM snapshots WHERE seq = ?", o.middle, o.snapshot), K.SNAPSHOT, F12, F12),
    **{f"{name} table dropped": (lambda p, o, name=name: sql(p, f"DROP TABLE {name}"), kind,
                                 F12, ()) for name, kind in DROPPED.items()},
    "old round's status edited": (lambda p, o: status_flipped(p, 2), K.ROUND, F12, F1),
    "old round record unreadable": (old_round_unreadable, K.ROUND_UNREADABLE, F12, F12),
    "old round record deleted": (lambda p, o: sql(
        p, "DELETE FROM rounds WHERE round_id = 2"), K.ROUND, F12, F12),
    "old round record that is no object": (lambda p, o: sql(
        p, "UPDATE rounds SET record = '[1]' WHERE round_id = 2"), K.ROUND, F1, F1),
    "old round's status no finished round's": (lambda p, o: sql(
        p, "UPDATE rounds SET status = 'in_progress' WHERE round_id = 2"), K.ROUND, (2,),
        (2,)),
    "old round's event moved before the round before's": (lambda p, o: sql(
        p, "UPDATE rounds SET seq = (SELECT seq FROM rounds WHERE round_id = 2) WHERE "
        "round_id = 3"), K.ROUND, (2,), (2,)),
    "recalled round's result edited": (lambda p, o: sql(
        p, "UPDATE rounds SET record = replace(record, '\"outcome\":\"lose\"', "
        "'\"outcome\":\"win\"') WHERE round_id = ?", o.lost), K.ROUND, F1, F1),
    "recalled round's status edited": (lambda p, o: status_flipped(p, o.recalled), K.ROUND,
                                       F12, F12),
    "old rejection deleted": (lambda p, o: sql(
        p, "DELETE FROM rejections WHERE seq = ?", o.rejection), K.REJECTION, F12, ()),
    "old rejection added": (lambda p, o: sql(
        p, "INSERT INTO rejections VALUES (?, 'forged')", o.card), K.REJECTION, F12, ()),
    "old snapshot edited": (lambda p, o: edited_snapshot(p, o.snapshot, 2), K.SNAPSHOT, F12,
                            F12),
}
OLD_CASES = [(kind, which) for kind, (_, _, formats, _) in OLD.items() for which in SNAPSHOTS
             if (1 if "format 1" in which else 2) in formats]


@pytest.mark.parametrize("kind, which", OLD_CASES)
def test_edits_before_the_verified_snapshot_are_caught_by_start_up_too(journals, tmp_path,
                                                                       kind, which):
    """Start-up starts after the anchored snapshot, and checks cheaply what lies before."""
    edit, first, _, same = OLD[kind]
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    old = Old(path)
    edit(path, old)
    locked, verdict = start_up(path, 5)
    assert locked == f"Journal integrity check failed: {verdict.message}"
    assert verdict.problem.kind is first, verdict.summary()
    assert start_up(path, 5)[1].key() == verdict.key()      # it never clears itself
    out = verify_journal(path)
    assert not out["ok"] and out["problems"][0]["kind"] == first.value, out["verdict"]
    if old.format in same:                                  # the same problems, in words too
        assert problems_of(out) == verdict.key(), (out["verdict"], verdict.summary())
        assert [p["message"] for p in out["problems"]] == [p.message for p in verdict.problems]


@pytest.mark.parametrize("which", SNAPSHOTS)
def test_an_old_event_edited_in_place_is_verify_journals_and_start_up_says_so(journals,
                                                                             tmp_path, which):
    """Only a rehash finds it: start-up's verdict names what it did not rehash."""
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    old = Old(path)
    edit_body(path, old.card, card_edited)
    found = old.card if old.format == 1 else checkpoint_after(old.card)  # where a hash is
    assert problems_of(verify_journal(path)) == (("event_altered", found, None),)
    locked, verdict = start_up(path, 5)
    assert locked is None and verdict.checked_from == old.start + 1
    assert (f"events 1 to {old.start} were not rehashed or replayed at start-up (counted, "
            "their records checked for form): `threecard verify-journal` checks them"
            ) in verdict.notes


@pytest.mark.parametrize("which", SNAPSHOTS)
def test_start_up_bounds_its_cheap_checks_in_time_and_says_what_it_did_not_finish(
        journals, tmp_path, monkeypatch, which):
    from controller.game import verifier

    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    monkeypatch.setattr(verifier, "HISTORY_SECONDS", -1.0)  # spent before it starts
    sql(path, "UPDATE rounds SET status = 'in_progress' WHERE round_id = 2")  # so not seen
    locked, verdict = start_up(path, 5)
    assert locked is None
    assert [n for n in verdict.notes if n.startswith("start-up did not finish")] == [
        "start-up did not finish the count of the events, the records before the start "
        "point and the file's pages in -1 s: `threecard verify-journal` checks them"]
    assert problems_of(verify_journal(path)) == (("round", None, "2"),)  # no such bound


def test_a_quick_check_that_outlasts_the_budget_is_interrupted_not_waited_for(tmp_path):
    """SQLite's interrupt stops ``PRAGMA quick_check`` mid-way (a journal of some size)."""
    import time

    from controller.game.verifier_support import interrupted_at

    db = sqlite3.connect(tmp_path / "big.sqlite3")
    db.execute("CREATE TABLE t (x TEXT)")
    db.executemany("INSERT INTO t VALUES (?)", ((str(i) * 50,) for i in range(500_000)))
    db.commit()
    t0 = time.monotonic()
    db.execute("PRAGMA quick_check").fetchall()
    whole = time.monotonic() - t0
    with pytest.raises(sqlite3.OperationalError, match="interrupt"):
        with interrupted_at(db, time.monotonic() + whole / 4):
            db.execute("PRAGMA quick_check").fetchall()
    assert db.execute("SELECT COUNT(*) FROM t").fetchone() == (500_000,)  # nothing after
    db.close()


@pytest.mark.parametrize("which", SNAPSHOTS)
def test_a_damaged_page_before_the_snapshot_is_caught_by_both(journals, tmp_path, which):
    """A page of old events start-up never reads (it replays after the snapshot)."""
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    old = Old(path)
    j = Journal(path, readonly=True)
    h = j.event_hash(old.middle if old.format == 1 else checkpoint_after(old.middle))
    j.close()
    db = sqlite3.connect(path)
    (size,) = db.execute("PRAGMA page_size").fetchone()
    leaves = {p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'events' AND "
                                       "pagetype = 'leaf'")}
    db.close()
    data = path.read_bytes()
    stored = h.encode() if old.format == 1 else bytes.fromhex(h)   # hex text, or 32 bytes
    at = data.find(stored)                                 # the page that holds the event
    while at >= 0 and at // size + 1 not in leaves:        # (not stale bytes elsewhere)
        at = data.find(stored, at + 1)
    page = at // size
    assert at > 0 and page > 0
    with open(path, "r+b") as fh:                           # its header overwritten
        fh.seek(page * size)
        fh.write(b"\xff" * 16)
    locked, verdict = start_up(path, 5)
    assert locked and verdict.problem.kind is K.UNREADABLE, verdict.summary()
    out = verify_journal(path)
    assert problems_of(out) == verdict.key() == (("unreadable", None, None),)


def roll_back_derived_tables(path: Path) -> None:
    """A forger's edit: the derived tables put back to the verified snapshot, and the
    rounds, rejections and snapshots written after it deleted (as a crash right after the
    snapshot would have left them, but the events go on for rounds)."""
    f = Facts(path)
    meters = json.loads(snapshot_state(path, f.start))["meters"]
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meters")
    db.executemany("INSERT INTO meters VALUES (?,?,?,?,?,?,?)",
                   [(k, *v) for k, v in meters["rows"].items()])
    db.execute("DELETE FROM counters")
    db.executemany("INSERT INTO counters VALUES (?,?)", meters["counters"].items())
    db.execute("DELETE FROM rounds WHERE round_id >= ?", (f.first_round,))
    db.execute("DELETE FROM rejections WHERE seq > ?", (f.start,))
    db.execute("DELETE FROM snapshots WHERE seq > ?", (f.start,))
    db.execute("UPDATE derived_at SET seq = ?", (f.start,))
    db.commit()
    db.close()


@pytest.mark.parametrize("which", SNAPSHOTS)
def test_derived_tables_rolled_back_to_the_snapshot_are_caught_by_both(journals, tmp_path,
                                                                       which):
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    roll_back_derived_tables(path)
    locked, verdict = start_up(path, 5)
    assert locked and verdict.problem.kind is K.DERIVED_MARK, verdict.summary()
    assert "they were rolled back" in verdict.message
    out = verify_journal(path)
    assert problems_of(out) == verdict.key(), (out["verdict"], verdict.summary())


def append_behind_the_table(path: Path, n: int, one_commit: bool) -> int:
    """A forger's edit: ``n`` events appended after the anchor, their chain recomputed (by
    a journal opened without the table, which keeps no anchor, and without its seal key)."""
    j = Journal(path, keys=False)
    try:
        last = j.last_seq
        newest = next(j.records(last - 1))
        reveal = ("reveal", "dealer", "{}")
        if one_commit:
            j.append(newest.utc, newest.mono_ns + 10**9, [reveal] * n)
        for i in range(1, n + 1 if not one_commit else 1):
            j.append(newest.utc, newest.mono_ns + i * 10**9, [reveal])
    finally:
        j.close()
    return last


@pytest.mark.parametrize("which", BOTH)
def test_events_appended_after_the_anchor_are_named_as_not_covered_by_it(journals, tmp_path,
                                                                         which):
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    last = append_behind_the_table(path, 7, one_commit=True)
    note = (f"events {last + 1} to {last + 7} (7) are after the anchor (event {last}): the "
            "anchor does not cover them")
    out = verify_journal(path)
    assert out["ok"] and note in out["notes"] and note in out["verdict"], out
    locked, verdict = start_up(path, every(which))
    assert locked is None and note in verdict.notes and verdict.after_anchor == 7


@pytest.mark.parametrize("which", SNAPSHOTS)
def test_events_appended_after_the_anchor_in_several_commits_are_caught(journals, tmp_path,
                                                                        which):
    """Rows derived from them would have been written by the commits after them."""
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    last = append_behind_the_table(path, 3, one_commit=False)
    locked, verdict = start_up(path, 5)
    assert locked and verdict.key() == (("derived_mark", last + 1, None),), verdict.summary()
    assert problems_of(verify_journal(path)) == verdict.key()


def test_the_anchor_lags_a_crash_never_leads_and_a_torn_slot_is_ignored(tmp_path):
    from controller.journal.anchor import Anchor

    anchor = AnchorFile(str(tmp_path / "j.anchor"))
    anchor.write(Anchor(5, "a" * 64))
    anchor.write(Anchor(6, "b" * 64, 4, "c" * 64))
    assert AnchorFile(anchor.path).read() == Anchor(6, "b" * 64, 4, "c" * 64)
    anchor.close()
    with open(anchor.path, "r+b") as fh:                    # the newer slot torn
        fh.seek(AnchorFile.SLOT + 10)
        fh.write(b"#")
    assert AnchorFile(anchor.path).read() == Anchor(5, "a" * 64)
    os.truncate(anchor.path, 3)
    with pytest.raises(Exception, match="not readable"):
        AnchorFile(anchor.path).read()


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.floats(0.0, 1.0), junk=st.binary(min_size=1, max_size=256))
def test_a_damaged_file_gets_the_same_verdict_from_both_never_a_traceback(
        journals, tmp_path_factory, offset, junk):
    """Bytes overwritten anywhere in the file (a failing card): both checks answer alike."""
    src = journals["no snapshot"]
    path = copy_journal(src, tmp_path_factory.mktemp("damaged") / "j.sqlite3")
    with open(path, "r+b") as fh:
        fh.seek(int(offset * (path.stat().st_size - len(junk))))
        fh.write(junk)
    answers = []
    for check in (lambda: start_up(path, 200)[1], lambda: rc.verify(path)):
        try:
            answers.append(check().key())
        except JournalError as exc:                        # not even a journal any more
            answers.append(("not a journal", "not a usable journal" in str(exc)))
    assert answers[0] == answers[1]


def test_a_table_name_damaged_in_the_schema_is_not_a_usable_journal(journals, tmp_path):
    """A byte that is not UTF-8 in the schema's table names is a clear refusal
    from both checks, never a decoding traceback."""
    path = copy_journal(journals["no snapshot"], tmp_path / "j.sqlite3")
    data = bytearray(path.read_bytes())
    at = data.index(b"rejections")                        # a name in the schema's pages
    data[at] = 0x80
    path.write_bytes(bytes(data))
    for check in (lambda: start_up(path, 200), lambda: rc.verify(path)):
        with pytest.raises(JournalError, match="not a usable journal"):
            check()


def test_a_derived_mark_that_is_not_a_number_is_a_verdict_not_a_traceback(journals, tmp_path):
    path = copy_journal(journals["no snapshot"], tmp_path / "j.sqlite3")
    sql(path, "UPDATE derived_at SET seq = 'abc'")
    locked, verdict = start_up(path, 200)
    assert locked and verdict.problem.kind is K.DERIVED_MARK, verdict.summary()
    out = verify_journal(path)
    assert not out["ok"] and problems_of(out) == verdict.key()


@pytest.mark.parametrize("forge, which", [
    ("INSERT INTO rounds SELECT 0, 'void', 'supervisor: marked cards', started_utc, "
     "ended_utc, record FROM rounds WHERE round_id = 1", "no snapshot, format 1"),
    ("INSERT INTO rounds SELECT -5, status, void_reason, started_utc, ended_utc, record "
     "FROM rounds WHERE round_id = 1", "no snapshot, format 1"),
    ("INSERT INTO rounds SELECT 0, 'void', seq FROM rounds WHERE round_id = 1", "no snapshot"),
    ("INSERT INTO rounds SELECT -5, status, seq FROM rounds WHERE round_id = 1", "no snapshot"),
    ("INSERT INTO rejections VALUES (0, 'forged')", "no snapshot"),
], ids=["round 0, format 1", "round -5, format 1", "round 0", "round -5",
        "rejection at event 0"])
def test_a_record_no_event_could_have_made_is_caught_by_both(journals, tmp_path, forge, which):
    path = copy_journal(journals[which], tmp_path / "j.sqlite3")
    sql(path, forge)
    locked, verdict = start_up(path, 200)
    assert locked and not verdict.ok, verdict.summary()
    out = verify_journal(path)
    assert not out["ok"] and problems_of(out) == verdict.key()


def simulate_cli(path: Path, rounds: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", "simulate", "--journal",
                           str(path), "--rounds", str(rounds), "--seats", "3", "--seed", "9"],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("simulated") / "T.sqlite3"
    assert simulate_cli(path, 60).returncode == 0
    return path


@pytest.mark.parametrize("kind", BEYOND_START_UP)
def test_simulate_checks_the_whole_journal_before_dealing_on(simulated, tmp_path, kind):
    path = copy_journal(simulated, tmp_path / "j.sqlite3")
    j = Journal(path, readonly=True)
    head, start = j.last_seq, j.anchor.verified_seq         # start-up replays after it
    j.close()
    assert start > 800                                      # every edit is before it
    sql(path, BEYOND_START_UP[kind])
    out = verify_journal(path)
    assert not out["ok"], out
    p = simulate_cli(path, 61)
    assert p.returncode == 1 and p.stdout == "", (p.stdout, p.stderr)
    assert p.stderr.startswith("threecard simulate: JOURNAL BROKEN: "), p.stderr
    for problem in out["problems"]:                         # the verifier's words, each
        assert problem["message"] in p.stderr, (problem, p.stderr)
    j = Journal(path, readonly=True)
    try:                                                    # only the start-up record
        assert j.last_seq == head + 1
    finally:
        j.close()
    again = verify_journal(path)                            # the same problems as before
    assert [q["kind"] for q in again["problems"]] == [q["kind"] for q in out["problems"]]


def test_simulate_on_an_untouched_journal_deals_on_as_before(simulated, tmp_path):
    path = copy_journal(simulated, tmp_path / "j.sqlite3")
    p = simulate_cli(path, 61)
    assert p.returncode == 0 and "61 rounds settled" in p.stdout, p.stderr
    assert verify_journal(path)["ok"]
