"""A journal fault clears itself once a self-check proves it gone; an integrity lock never
does (docs/requirements.md R2, R4, R20).

The write fails through a seam of the test's own (:class:`FailingCommit`: SQLite's own
error, raised by the commit after the batch was applied to the game in its transaction),
or SQLite's write lock held by a connection of the test (another process's
``BEGIN EXCLUSIVE``). The daemon's end-to-end cases (a real full disk, a real foreign
lock): tests/daemon/test_journal_faults.py.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from journal_edit import edit_body, floor_replay
from polling import until
from step_clock import StepClock

from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.inputs import (
    JOURNAL_FAULT,
    Decide,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Resume,
    Reveal,
    Settle,
    VoidRound,
)
from controller.game.table import Table
from controller.game.verdict import integrity_lock
from controller.journal import Journal, JournalError
from controller.journal import journal as journal_module
from controller.journal import wal as wal_module

SUP = DEMO_PINS["supervisor"]
CONFIG = TableConfig(seats=2, pin_hashes=demo_pin_hashes())
FULL = "database or disk is full"


class FailingCommit(Journal):
    """A journal whose next ``fail`` commits fail as on a full disk (the batch applied)."""

    fail = 0

    def _commit(self) -> None:
        if self.fail:
            self.fail -= 1
            raise sqlite3.OperationalError(FULL)
        super()._commit()


def cards(text: str) -> list[CardRead]:
    return [CardRead(card=c, code=c) for c in text.split()]


def replayed(path) -> dict:
    j = Journal(path, readonly=True)
    try:
        return json.loads(rc.replay(j, full=True).dumps())
    finally:
        j.close()


def fault_record(t: Table) -> dict:
    rec = t.journal.newest(JOURNAL_FAULT)
    assert rec is not None and rec.actor == "system"
    return json.loads(rec.body)


def dealing_then_fault(tmp_path) -> tuple[Table, FailingCommit]:
    """Seat 1 bet, two cards dealt; the third card's commit fails; a fourth card, a bet
    and a settle come while the fault lasts."""
    path = tmp_path / "j.sqlite"
    j = FailingCommit(path, keys=tmp_path / "keys")
    t = Table(j, CONFIG, clock=StepClock())
    t.process([LinkStatus(state=LinkState.ONLINE), PlaceBet(seat=1, bet="ante", amount=100),
               NoMoreBets(), *cards("Ah Kh")])
    j.fail = 1
    with pytest.raises(JournalError, match=FULL):
        t.process(cards("2c"))                      # applied in memory, then not committed
    assert t.game.deal.index == 3                   # the game holds what the journal does not
    return t, j


def test_a_commit_that_failed_after_its_batch_was_applied_is_cleared_by_the_self_check(
        tmp_path):
    t, j = dealing_then_fault(tmp_path)
    head = j.last_seq
    assert t.locked == f"journal fault: {FULL}; retrying" and t.faults.shows(t.locked)
    refused = t.process([*cards("Qd"), PlaceBet(seat=2, bet="ante", amount=100), Settle()])
    assert [v.accepted for v in refused] == [False] * 3
    assert {v.reason for v in refused} == {t.locked}   # why, in words the screen shows
    dealer, player = t.views()
    assert dealer.state == "locked" and dealer.allowed == frozenset()
    assert dealer.banners[0].kind == "journal_fault" and "retrying" in dealer.banners[0].message
    assert dealer.next_action_key == "journal_fault"
    assert [b.kind for b in player.banners] == ["journal_fault"]
    assert player.banners[0].message != dealer.banners[0].message   # no details for players
    assert j.last_seq == head                                       # nothing was written

    assert t.faults.retry() and t.locked is None
    rec = fault_record(t)
    assert rec["reason"] == FULL and rec["cards"] == ["2c", "Qd"] and rec["tries"] == 1
    assert rec["lost"] == {"card": 2} and rec["refused"] == {"place_bet": 1, "settle": 1}
    assert t.journal.newest(JOURNAL_FAULT).seq == head + 1   # first in the journal again
    # the game is the journal's: what the failed commit applied is gone from it
    assert json.loads(t.game.dumps()) == replayed(t.journal.path)
    assert t.game.deal.index == 2 and t.game.counters["journal_faults"] == 1
    kinds = [b.kind for b in t.views()[0].banners]
    assert "journal_fault" not in kinds and "journal_fault_cleared" in kinds
    t.close()
    assert rc.verify(t.journal.path).ok


@pytest.mark.parametrize("decision", ["void", "present the cards again"])
def test_the_round_of_a_card_lost_in_a_fault_waits_for_a_supervisor(tmp_path, decision):
    t, _ = dealing_then_fault(tmp_path)
    t.process(cards("Qd"))                          # refused: on the layout, in no record
    assert t.faults.retry()
    v = t.views()[0]
    assert v.state == "paused" and v.pause_reason == "card_not_recorded"
    assert v.awaiting_supervisor == "resume" and "card_not_recorded" in [b.kind for b in
                                                                         v.banners]
    assert not any(x.accepted for x in t.process([*cards("5d"), Resume()]))  # no PIN: waits
    if decision == "void":
        assert t.process([VoidRound(pin=SUP, reason="cards not recorded")])[0].accepted
        assert t.process([NextRound()])[0].accepted
        (rec,) = [r for r in t.game.recall if r.round_id == 1]
        assert rec.status == "void"
    else:
        assert t.process([Resume(pin=SUP)])[0].accepted
        done = t.process([*cards("2c Qd 5d 9c"), Decide(seat=1, decision="play"), Reveal(),
                          Settle()])
        assert all(x.accepted for x in done)
        (rec,) = [r for r in t.game.recall if r.round_id == 1]
        assert rec.status == "settled" and rec.seats[0].cards == ["Ah", "2c", "5d"]
    assert "card_not_recorded" not in t.game.notes
    t.close()
    assert rc.verify(t.journal.path).ok


def test_an_integrity_lock_in_a_fault_never_clears(tmp_path):
    t, _ = dealing_then_fault(tmp_path)
    t.lock(integrity_lock("found by the full check"))
    assert not t.faults.shows(t.locked)
    assert t.views()[0].banners[0].kind == "journal_broken"
    assert not t.faults.retry() and not t.faults.retry()
    assert t.locked == integrity_lock("found by the full check")
    t.close()


def test_a_journal_edited_during_a_fault_locks_the_table_for_good(tmp_path):
    t, j = dealing_then_fault(tmp_path)
    edit_body(j.path, j.last_seq, lambda body: body.replace('"Kh"', '"Ks"'))
    assert not t.faults.retry()                      # start-up's self-check: broken
    assert t.locked and not t.faults.shows(t.locked) and t.faults.fault is None
    assert t.views()[0].banners[0].kind == "journal_broken"
    assert not t.faults.retry() and t.locked
    t.close()


def test_the_table_thread_retries_with_a_back_off_and_goes_on_by_itself(tmp_path,
                                                                          monkeypatch):
    """Another process's ``BEGIN EXCLUSIVE``: the write waits the busy timeout, fails; each
    try then asks for the lock without waiting; let go, the next try clears the fault,
    with the writer's lock kept for this table all along."""
    for module in (journal_module, wal_module):
        monkeypatch.setattr(module, "WRITE_BUSY_MS", 200)  # 2 s in service
    path = tmp_path / "j.sqlite"
    t = Table(path, CONFIG, keys=tmp_path / "keys").start()
    try:
        assert t.ask(PlaceBet(seat=1, bet="ante", amount=100))[0].accepted
        foreign = sqlite3.connect(path, isolation_level=None)
        foreign.execute("BEGIN EXCLUSIVE")
        (v,) = t.ask(PlaceBet(seat=2, bet="ante", amount=100))
        assert not v.accepted and v.reason == "journal fault: database is locked; retrying"
        assert until(lambda: t.faults.fault is not None and t.faults.fault.tries >= 2)
        with pytest.raises(JournalError, match="in use by another table process"):
            Journal(path)                              # the writer's lock stays this table's
        (v,) = t.ask(PlaceBet(seat=2, bet="ante", amount=100))
        assert not v.accepted and "retrying" in v.reason
        foreign.execute("ROLLBACK")
        foreign.close()
        assert until(lambda: t.locked is None, timeout=10)
        assert t.ask(PlaceBet(seat=2, bet="ante", amount=100))[0].accepted
        rec = fault_record(t)
        assert rec["tries"] >= 2 and rec["refused"] == {"place_bet": 2}
        assert rec["reason"] == "database is locked"
    finally:
        t.stop()
    assert rc.verify(path).ok


def test_the_floor_s_replay_hears_the_fault_from_the_journal_as_the_table_showed_it(
        tmp_path):
    t, _ = dealing_then_fault(tmp_path)
    assert t.faults.retry()
    live = {k: n.message for k, n in t.game.notes.items()}
    t.close()
    replay, events = floor_replay(t.journal.path, CONFIG)
    heard = {e.kind: e.message for e in events if e.input == JOURNAL_FAULT}
    assert heard == {k: live[k] for k in ("journal_fault_cleared", "card_not_recorded")}
    assert json.loads(replay.game.dumps()) == json.loads(t.game.dumps())
