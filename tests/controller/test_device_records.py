"""A device lost and back (the floor's broker, a screen) is journaled as a ``device`` record
(docs/requirements.md R20): checked before it is journaled, applied as info, replayed alike.

The daemon's end-to-end cases: tests/floor/test_shift.py (a real broker killed and
started again), tests/daemon/test_screen_outputs.py (the player screen's output gone).
"""

from __future__ import annotations

import json

import pytest
from journal_edit import floor_replay
from step_clock import StepClock

from controller.game import recall as rc
from controller.game.engine import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.fault_record import MAX_DETAIL, DeviceRecord, device_record
from controller.game.inputs import (
    DEVICE,
    Decide,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Reveal,
    Settle,
)
from controller.game.table import Table
from controller.journal import Journal
from controller.journal.codec import KINDS

CONFIG = TableConfig(seats=2)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A table that saw the floor's broker lost and back, and the player screen lost, during
    a round; the verdicts of those records; then closed."""
    path = tmp_path_factory.mktemp("devices") / "j.sqlite"
    t = Table(Journal(path), CONFIG, clock=StepClock())
    t.process([LinkStatus(state=LinkState.ONLINE), PlaceBet(seat=1, bet="ante", amount=100)])
    verdicts = t.process([
        device_record("floor broker", "lost", "Unspecified error"),
        NoMoreBets(),
        device_record("player screen", "lost", "output 1 not found\n(1 found)"),
        device_record("floor broker", "back", "a message acknowledged", 12_345)])
    views = t.views()
    t.close()
    return t, verdicts, views


def test_a_device_lost_and_back_is_journaled_by_the_system_and_never_stops_play(played):
    t, verdicts, (dealer, _) = played
    assert [v.accepted for v in verdicts] == [True] * 4
    j = Journal(t.journal.path, readonly=True)
    try:
        rows = [(r.kind, r.actor, json.loads(r.body)) for r in j.records() if r.kind == DEVICE]
    finally:
        j.close()
    assert rows == [
        (DEVICE, "system", {"device": "floor broker", "state": "lost",
                            "detail": "Unspecified error", "away_ms": 0}),
        (DEVICE, "system", {"device": "player screen", "state": "lost",
                            "detail": "output 1 not found\\n(1 found)", "away_ms": 0}),
        (DEVICE, "system", {"device": "floor broker", "state": "back",
                            "detail": "a message acknowledged", "away_ms": 12345})]
    assert dealer.state == "no_more_bets"                      # the round went on, no pause
    assert {k: t.game.counters[k] for k in ("floor_broker_lost", "floor_broker_back",
                                            "player_screen_lost")} == {
        "floor_broker_lost": 1, "floor_broker_back": 1, "player_screen_lost": 1}
    notes = {b.kind: b for b in dealer.banners}
    assert notes["device_back"].severity == "info"
    assert notes["device_back"].message == "Floor broker back after 12.3 s."
    # the broker's notice of its loss is down, the screen's (lost later) is up
    assert notes["device_lost"].message == "Player screen lost (output 1 not found\\n(1 found))."
    assert KINDS.index(DEVICE) > KINDS.index("journal_fault")  # its code after older kinds'


def test_a_journal_with_device_records_verifies_and_the_floor_replays_it_alike(played):
    t, _, _ = played
    assert rc.verify(t.journal.path).ok
    replay, events = floor_replay(t.journal.path, CONFIG)
    assert json.loads(replay.game.dumps()) == json.loads(t.game.dumps())
    assert [(e.kind, e.message) for e in events if e.input == DEVICE] == [
        ("device_lost", "Floor broker lost (Unspecified error)."),
        ("device_lost", "Player screen lost (output 1 not found\\n(1 found))."),
        ("device_back", "Floor broker back after 12.3 s.")]


@pytest.mark.parametrize("fields, why", [
    ({"device": "printer", "state": "lost"}, "device"),
    ({"device": "floor broker", "state": "gone"}, "state"),
    ({"device": "player screen", "state": "lost", "detail": "x" * (MAX_DETAIL + 1)}, "detail"),
    ({"device": "player screen", "state": "lost", "detail": "a\x1b[2Jb"}, "detail"),
    ({"device": "floor broker", "state": "back", "away_ms": -1}, "away_ms"),
    ({"device": "floor broker", "state": "back", "away_ms": True}, "away_ms"),
])
def test_a_device_record_that_fails_its_declaration_is_refused_and_nothing_journaled(
        tmp_path, fields, why):
    t = Table(Journal(tmp_path / "j.sqlite"), CONFIG, clock=StepClock())
    try:
        head = t.journal.last_seq
        (v,) = t.process([DeviceRecord(**fields)])
        assert not v.accepted and f"$.{why}" in v.reason and v.reason.startswith("device")
        assert t.journal.last_seq == head
    finally:
        t.close()


def test_device_record_makes_any_detail_fit():
    rec = device_record("dealer screen", "lost", "a\x1bb" + "y" * 300, 1.9)
    assert rec.detail == ("a\\x1bb" + "y" * 300)[:MAX_DETAIL] and rec.away_ms == 1


def test_the_notice_of_a_device_back_is_down_at_the_next_round(tmp_path):
    t = Table(Journal(tmp_path / "j.sqlite"), CONFIG, clock=StepClock())
    try:
        t.process([device_record("player screen", "lost", "gone"),
                   device_record("player screen", "back", "", 1000)])
        assert "device_back" in t.game.notes and "device_lost" not in t.game.notes
        t.process([LinkStatus(state=LinkState.ONLINE), PlaceBet(seat=1, bet="ante", amount=100),
                   NoMoreBets(), *[CardRead(card=c, code=c) for c in "Ah Kd Qh 9c 7d 2c".split()],
                   Decide(seat=1, decision="play"), Reveal(), Settle()])
        assert "device_back" in t.game.notes                  # up until the round's end
        (v,) = t.process([NextRound()])
        assert v.accepted and "device_back" not in t.game.notes
    finally:
        t.close()


def test_the_floor_feed_reports_an_outage_longer_than_the_grace_lost_once_then_back():
    from floor.outage import GRACE_S, Outage

    heard: list[tuple] = []
    o = Outage()
    o.lost("Unspecified error", now=100.0)
    o.lost("Connection refused", now=101.0)                   # the same outage goes on
    o.due(lambda *a: heard.append(a), now=100.0 + GRACE_S - 0.1)
    assert heard == []                                        # within the grace: nothing
    for now in (100.0 + GRACE_S, 110.0):
        o.due(lambda *a: heard.append(a), now=now)
    o.back(lambda *a: heard.append(a), "a message acknowledged", now=112.5)
    assert heard == [("lost", "Unspecified error", 0),
                     ("back", "a message acknowledged", 12_500)]
    o.lost("Unspecified error", now=200.0)                    # back within the grace
    o.due(lambda *a: heard.append(a), now=200.0 + GRACE_S - 0.1)
    o.back(lambda *a: heard.append(a), "a message acknowledged", now=201.0)
    o.due(lambda *a: heard.append(a), now=300.0)
    assert len(heard) == 2                                    # nothing more reported


def test_the_screens_are_journaled_only_when_they_go_or_come_back():
    from types import SimpleNamespace

    from controller.screens import ScreenWatch

    app = SimpleNamespace(outputs={"dealer": 1}, missing={"player": "output 1 not found"})
    watch = ScreenWatch(("dealer", "player"))

    def look(now: float) -> list[tuple]:
        return [(r.device, r.state, r.detail, r.away_ms) for r in watch.changes(app, now)]

    assert look(10.0) == [("player screen", "lost", "output 1 not found", 0)]   # at READY
    assert look(11.0) == []                                   # still missing: no record
    app.outputs["player"] = 2
    assert look(12.5) == [("player screen", "back", "open again", 2500)]
    assert look(13.0) == []
    del app.outputs["dealer"]
    app.missing = {"dealer": "SDL video: lost"}
    assert look(14.0) == [("dealer screen", "lost", "SDL video: lost", 0)]
    assert watch.changes(None, 15.0)[0].device == "player screen"   # no app: none open
