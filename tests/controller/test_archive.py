"""``threecard journal archive``: settled history moved out, verified, and still read.

A journal of fifteen rounds (misreads, duplicate cards: voids and manual cards, snapshots
every 3 rounds) is archived behind the table's back, as an operator would with the table
stopped. Then: the archive and the journal both verify, alone and together; recall,
meters, the shift report, a dispute and the floor's resend read the archive as they read
the journal before; the table starts on the cut journal and plays on; the cut never passes
what the floor feed has not delivered, nor the snapshot start-up replays from; an archive
or a cut tampered with is caught; an archive run that stopped half way is finished by the
next.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from in_process import threecard
from journal_edit import copy_keys, edit_body, events, first_of, found_at, rewrite_chain_from, sql
from step_clock import START, StepClock

from controller.autoplay import AutoPlayer
from controller.game import archive as arc
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.dispute import evidence
from controller.game.engine import TableConfig
from controller.game.inputs import NextRound, PlaceBet, Reveal
from controller.game.shift import journal_span, shift
from controller.game.table import Table
from controller.journal import Journal, JournalError
from controller.simulate_cli import simulate
from floor.follower import Follower
from floor.outbox import Outbox
from simulators.event_shoe import EventShoe, parse_faults

STEP = timedelta(minutes=1)
CONFIG = TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=3)
DATA = Path(__file__).resolve().parent / "data"


def play(path: Path, rounds: int, fmt: int = 2, start: int = 0) -> None:
    t = Table(Journal(path, fmt=fmt), CONFIG, clock=StepClock(STEP, start))
    t.process([Reveal()])                                   # a rejection
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(rounds, parse_faults("misread=0.2,duplicate=0.1")), rounds)
    t.process([Reveal(), PlaceBet(seat=2, bet="ante", amount=500)])  # the next round's bets
    t.close()


def verify(journal: Path, *more: str) -> dict:
    p = threecard("verify-journal", "--journal", journal, "--json", *more)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("played") / "j.sqlite3"
    play(path, 15)
    return path


@pytest.fixture
def journal(played, tmp_path) -> Path:
    path = tmp_path / "j.sqlite3"
    shutil.copyfile(played, path)
    shutil.copyfile(f"{played}.anchor", f"{path}.anchor")
    copy_keys(played, path)
    return path


def opened_rounds(path: Path) -> list[int]:
    """The events that opened a round (``next_round`` accepted), oldest first."""
    j = Journal(path, readonly=True)
    try:
        rejected = j.rejections()
        return [r.seq for r in j.records() if r.kind == NextRound.name and r.seq not in rejected]
    finally:
        j.close()


def test_archived_history_verifies_and_reads_as_before(journal, tmp_path):
    recall, meters = rc.recall(journal, 50), rc.meters(journal)
    p = threecard("journal", "archive", "--journal", journal, "--older-than", 0, "--json")
    assert p.returncode == 0, p.stderr
    done = json.loads(p.stdout)
    archive = Path(done["archive"])
    assert archive == Path(f"{journal}.archive") and done["cut"] > 0 and done["rounds"] >= 9
    assert done["bytes_after"] < done["bytes_before"]           # pages given back
    assert Journal(journal, readonly=True).first_seq == 1        # found beside, by its name
    whole = verify(journal)
    assert whole["ok"] and whole["notes"] == [] and whole["checked_from"] == 1, whole
    alone = verify(archive)
    assert alone["ok"] and alone["events"] == done["cut"], alone
    assert rc.recall(journal, 50) == recall
    again = rc.meters(journal)
    assert again.reconciled and (again.rows, again.counters) == (meters.rows, meters.counters)
    # the archive elsewhere: the journal verifies alone from its cut, and reads it when told
    elsewhere = tmp_path / "vault" / "old.archive"
    elsewhere.parent.mkdir()
    shutil.move(archive, elsewhere)
    cut = verify(journal)
    assert cut["ok"] and cut["checked_from"] == done["cut"] + 1
    assert cut["notes"] == [f"events 1 to {done['cut']} were moved to an archive "
                            f"({archive.name}) not found beside the journal: not checked"]
    kept = rc.recall(journal, 50)
    assert kept == recall[:len(kept)] and len(kept) < len(recall)
    assert rc.meters(journal).reconciled
    p = threecard("recall", "--journal", journal, "--archive", elsewhere, "--last", 50, "--json")
    assert p.returncode == 0 and json.loads(p.stdout) == recall
    assert verify(journal, "--archive", str(elsewhere))["checked_from"] == 1
    # the table starts on the cut journal and plays on
    t = Table(journal, CONFIG, clock=StepClock(STEP, start=10_000))
    assert t.locked is None
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]), EventShoe(9), 18)
    t.close()
    assert verify(journal, "--archive", str(elsewhere))["ok"]
    assert rc.recall(journal, 50, elsewhere)[-len(recall) + 1:] == recall[1:]  # (then in play)


def test_a_second_run_extends_the_archive_and_a_new_file_chains_to_it(journal, tmp_path):
    first = arc.archive(journal, timedelta(0))
    assert first.cut and arc.archive(journal, timedelta(0)).cut == 0   # nothing more yet
    play(journal, 24, start=10_000)
    second = arc.archive(journal, timedelta(0))
    assert second.archive == first.archive and second.cut > first.cut
    assert Journal(second.archive, readonly=True).last_seq == second.cut
    play(journal, 32, start=20_000)
    third = arc.archive(journal, timedelta(0), out=tmp_path / "newer.archive")
    assert third.cut > second.cut
    out = verify(journal)
    assert out["ok"] and out["checked_from"] == 1 and out["notes"] == [], out
    alone = verify(tmp_path / "newer.archive")             # chained to the first archive
    assert alone["ok"] and alone["checked_from"] == 1, alone
    ids = [r["round_id"] for r in rc.recall(journal, 100)]
    assert ids == list(range(ids[0], 0, -1)) and ids[0] > 32
    card = first_of(first.archive, "card")                 # the oldest archive, edited
    edit_body(first.archive, card, lambda body: body.replace('"card":"', '"card":"9'))
    out = verify(journal)
    assert not out["ok"] and out["problems"][0]["seq"] == found_at(first.archive, card), out


def test_the_cut_stops_short_of_what_the_floor_feed_has_not_delivered(journal):
    opened = opened_rounds(journal)
    j = Journal(journal, readonly=True)
    head, genesis = j.last_seq, j.genesis()[0]
    j.close()
    cursor = opened[5] + 3                                  # delivered into the 7th round
    feed_before = Follower(journal, "TABLE-1", after=cursor)
    made = [m for page in iter(feed_before.poll, None) for m in page]
    feed_before.close()
    outbox = Outbox(str(journal))
    outbox.write(cursor, genesis)
    outbox.close()
    done = arc.archive(journal, timedelta(0))
    assert done.cut == opened[4] and "floor feed" in done.limited_by
    Path(done.archive).unlink()                             # the feed needs only the journal
    feed = Follower(journal, "TABLE-1", after=cursor)
    assert [m for page in iter(feed.poll, None) for m in page] == made and feed.position == head
    feed.close()
    for other in ((0, genesis), (head, "f" * 64)):          # nothing delivered of this one
        path = journal.with_name(f"other{other[0]}.sqlite3")
        shutil.copyfile(DATA / "format1.journal", path)
        shutil.copyfile(DATA / "format1.journal.anchor", f"{path}.anchor")
        box = Outbox(str(path))
        box.write(*other)
        box.close()
        assert arc.archive(path, timedelta(0)).cut == 0


def test_the_cut_stops_at_the_snapshot_start_up_replays_from_and_at_the_age(journal):
    j = Journal(journal, readonly=True)
    times = dict(j.times())
    j.close()
    opened = opened_rounds(journal)
    # by age: a round opened at t; an hour after t (and a second), history an hour old
    # ends with that round's opening
    t = datetime.fromisoformat(times[opened[4]])
    done = arc.archive(journal, timedelta(hours=1), now=t + timedelta(hours=1, seconds=1))
    assert done.cut == opened[4] and "older than" in done.limited_by
    assert times[opened[5]] > (t + timedelta(seconds=1)).isoformat()
    # rounds played since the snapshot the anchor names: they stay
    settled = rc.meters(journal).rows["total"][3]
    play(journal, settled + 1, start=10_000)
    verified = Journal(journal, readonly=True).anchor.verified_seq
    opened = opened_rounds(journal)
    assert opened[-1] > verified
    done = arc.archive(journal, timedelta(0))
    assert done.cut == verified and "start-up replays from" in done.limited_by


def test_the_floor_resend_the_shift_report_and_a_dispute_read_the_archive(journal):
    head = Journal(journal, readonly=True).last_seq
    resend = Follower(journal, "TABLE-1", rounds_from=2, until=head)
    before = [m for page in iter(resend.poll, None) for m in page]
    resend.close()
    report, bundle = shift(journal), evidence(Journal(journal, readonly=True), 3)
    done = arc.archive(journal, timedelta(0))
    assert done.cut > first_of(journal, "settle", 0)
    resend = Follower(journal, "TABLE-1", rounds_from=2, until=head)
    assert [m for page in iter(resend.poll, None) for m in page] == before
    resend.close()
    after = shift(journal)
    assert (after.rows, after.counters, after.voids, after.house, after.returns) == \
        (report.rows, report.counters, report.voids, report.house, report.returns)
    assert after.trusted and after.verdict.events == report.verdict.events
    assert evidence(Journal(journal, readonly=True), 3) == bundle


def test_a_period_that_starts_in_the_archived_history_is_reported_as_before(journal):
    first, newest = journal_span(journal)
    periods = [(first + (newest - first) * k / 10, end) for k in (1, 2, 4)
               for end in (None, newest - (newest - first) / 10)]
    before = [shift(journal, start, end) for start, end in periods]
    done = arc.archive(journal, timedelta(minutes=25), now=newest)  # a cut mid-journal
    assert all(report.start.seq < done.cut for report in before)  # each starts archived
    for (start, end), report in zip(periods, before, strict=True):
        after = shift(journal, start, end)
        assert after.trusted, (start, after.verdict.message)
        assert (after.rows, after.counters, after.voids, after.house, after.returns) == \
            (report.rows, report.counters, report.voids, report.house, report.returns)


def test_an_archive_edited_or_replaced_is_caught(journal, tmp_path):
    done = arc.archive(journal, timedelta(0))
    archive = Path(done.archive)
    card = first_of(archive, "card")
    clean = tmp_path / "clean.archive"
    shutil.copyfile(archive, clean)

    def edited(edit, *expect) -> None:
        shutil.copyfile(clean, archive)
        edit()
        out = verify(journal)
        assert not out["ok"] and (out["problems"][0]["kind"], out["problems"][0]["seq"]) == \
            expect, out

    def card_edit(body: str) -> str:
        return body.replace('"card":"', '"card":"9')

    edited(lambda: edit_body(archive, card, card_edit), "event_altered",
           found_at(archive, card))
    edited(lambda: rewrite_chain_from(archive, card, card_edit), "event_altered", done.cut)
    assert Journal(journal, readonly=True).store.head()[0] > done.cut  # (the head not moved)
    edited(lambda: sql(archive, "DELETE FROM events WHERE seq > ?", done.cut - 4),
           "event_missing", done.cut - 3)
    edited(lambda: sql(archive, "UPDATE rounds SET status = 'void' WHERE round_id = 2"),
           "round", None)
    edited(lambda: sql(archive, "UPDATE counters SET value = 9 WHERE name = 'power_ups'"),
           "counters", None)                                # its meters at the cut too
    other = tmp_path / "other.sqlite3"                      # another journal's archive
    play(other, 15, start=50)
    arc.archive(other, timedelta(0))
    shutil.copyfile(f"{other}.archive", archive)
    out = verify(journal)
    assert not out["ok"] and out["problems"][0]["kind"] in ("event_altered", "event_missing")
    shutil.copyfile(clean, archive)
    single = verify(archive)                                # and alone: its own chain
    assert single["ok"]
    edit_body(archive, card, card_edit)
    assert verify(archive)["problems"][0]["seq"] == found_at(archive, card)


def test_the_cut_kept_in_the_journal_is_checked(journal):
    done = arc.archive(journal, timedelta(0))
    Path(done.archive).unlink()
    for statement, kind in (("UPDATE meta SET value = zeroblob(32) WHERE key = 'base_hash'",
                             "snapshot"),                   # no longer sealed to the cut
                            ("DELETE FROM snapshots WHERE seq = (SELECT MIN(seq) FROM "
                             "snapshots)", "snapshot"),
                            ("DELETE FROM meta WHERE key = 'base_seq'", "event_missing")):
        path = journal.with_name("cut.sqlite3")
        shutil.copyfile(journal, path)
        sql(path, statement)
        out = verify(path)
        assert not out["ok"] and out["problems"][0]["kind"] == kind, (statement, out)


def test_start_up_checks_the_history_between_the_cut_and_its_snapshot(journal, tmp_path):
    """Start-up replays from its anchored snapshot; the rounds and rejections between the
    cut and that snapshot are counted from the state at the cut, which the journal keeps."""
    done = arc.archive(journal, timedelta(0))
    settled = rc.meters(journal).rows["total"][3]
    play(journal, settled + 15, start=10_000)               # a rejection, then 15 rounds
    j = Journal(journal, readonly=True)
    start = j.anchor.verified_seq
    cut_round = json.loads(j.snapshot(done.cut)[2])["round_id"]
    rejection = min(s for s in j.rejections() if s > done.cut)
    first = json.loads(j.snapshot(start)[2])["round_id"]
    j.close()
    assert done.cut < rejection < start
    assert cut_round + 1 < first - CONFIG.recall_depth      # not held whole by the snapshot
    t = Table(journal, CONFIG)
    assert t.locked is None, t.locked
    assert (f"events {done.cut + 1} to {start} were not rehashed or replayed at start-up "
            "(counted, their records checked for form): `threecard verify-journal` checks "
            "them") in t.verdict.notes
    t.close()
    edits = {
        "round deleted": ("DELETE FROM rounds WHERE round_id = ?", (cut_round + 1,), "round",
                          f"the record of round {cut_round + 1} is missing"),
        "status turned": ("UPDATE rounds SET status = CASE status WHEN 'void' THEN 'settled' "
                          "ELSE 'void' END WHERE round_id = ?", (cut_round + 1,), "round",
                          "the status of one was changed"),
        "rejection deleted": ("DELETE FROM rejections WHERE seq = ?", (rejection,),
                              "rejection", "one was deleted or added"),
        "round before the cut added": ("INSERT INTO rounds SELECT round_id - 1, status, seq "
                                       "FROM rounds WHERE round_id = ?", (cut_round,),
                                       "round", f"a record of round {cut_round - 1} was added"),
    }
    for name, (statement, args, kind, said) in edits.items():
        path = tmp_path / f"{name}.sqlite3"
        shutil.copyfile(journal, path)
        shutil.copyfile(f"{journal}.anchor", f"{path}.anchor")
        copy_keys(journal, path)
        sql(path, statement, *args)
        t = Table(path, CONFIG)
        verdict = t.verdict
        t.close()
        assert t.locked and verdict.problem.kind.value == kind, (name, verdict.summary())
        assert said in verdict.message, (name, verdict.message)
        out = verify(path, "--archive", done.archive)       # the full check finds it too
        assert not out["ok"] and out["problems"][0]["kind"] == kind, (name, out)


def test_an_archive_is_never_written_by_a_table_nor_archived_while_one_runs(journal):
    done = arc.archive(journal, timedelta(0))
    with pytest.raises(JournalError, match="archive of a journal"):
        Table(done.archive, CONFIG)
    t = Table(journal, CONFIG)
    try:
        p = threecard("journal", "archive", "--journal", journal, "--older-than", 0)
        assert p.returncode == 1 and "in use by another table process" in p.stderr
        assert p.stdout == "" and "Traceback" not in p.stderr
    finally:
        t.close()


def test_a_journal_that_does_not_verify_is_not_archived(journal, tmp_path):
    rows = events(journal)
    copy = tmp_path / "copy.sqlite3"
    shutil.copyfile(journal, copy)
    shutil.copyfile(f"{journal}.anchor", f"{copy}.anchor")
    copy_keys(journal, copy)
    # after the snapshot start-up replays from: the journal's own check refuses
    edit_body(journal, rows[-1][0], lambda body: body.replace('"amount":500', '"amount":900'))
    p = threecard("journal", "archive", "--journal", journal, "--older-than", 0)
    assert p.returncode == 1 and "the journal does not verify, nothing moved" in p.stderr
    assert f"event {rows[-1][0]}" in p.stderr and not Path(f"{journal}.archive").exists()
    # before it: the archive's check refuses, and nothing leaves the journal
    card = first_of(copy, "card")
    edit_body(copy, card, lambda body: body.replace('"card":"', '"card":"9'))
    p = threecard("journal", "archive", "--journal", copy, "--older-than", 0)
    assert p.returncode == 1 and "the archive did not verify, nothing deleted" in p.stderr
    assert f"event {found_at(copy, card)}" in p.stderr and len(events(copy)) == len(rows)
    assert Journal(f"{copy}.archive", readonly=True).last_seq == 0


def test_a_run_stopped_after_writing_the_archive_is_finished_by_the_next(journal):
    """The archive written, the journal not yet cut (a power cut): both stay sound."""
    live = Journal(journal)
    try:
        cut, _ = arc.choose_cut(live, START + timedelta(days=1))
        out = arc._open_archive(live, arc.default_archive(journal), live.genesis()[0])
        arc._copy(live, out, cut)
        out.close()
    finally:
        live.close()
    assert verify(journal)["ok"]                           # the journal whole, untouched
    assert Journal(arc.default_archive(journal), readonly=True).last_seq == cut
    done = arc.archive(journal, timedelta(0))
    assert done.cut == cut and done.events == cut
    assert verify(journal)["ok"] and verify(Path(done.archive))["ok"]


def test_a_journal_of_format_1_is_archived_into_the_compact_format(tmp_path):
    saved = json.loads((DATA / "format1.json").read_text())
    path = tmp_path / "old.sqlite3"
    shutil.copyfile(DATA / "format1.journal", path)
    shutil.copyfile(DATA / "format1.journal.anchor", f"{path}.anchor")
    rows = events(path)
    done = arc.archive(path, timedelta(0))
    assert done.cut > 0
    assert Journal(done.archive, readonly=True).format == 2
    assert Journal(path, readonly=True).format == 1
    assert events(path) == rows                             # the same events, hashes and all
    assert rc.recall(path, 50) == saved["recall"] and verify(path)["ok"]
    t = Table(path, CONFIG)
    assert t.locked is None
    t.close()
