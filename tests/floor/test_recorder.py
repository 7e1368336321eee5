"""The recorder keeps every series whole, whatever the broker does to the messages.

The messages are the ones a real journal makes (:class:`floor.follower.Follower` over a
table's journal: voids, misreads, a round whose record changed after it ended because a
burn card was read before the next round); they reach :class:`floor.recorder.Recorder`
lost, doubled and out of order, as a broker killed without persistence and a publisher
sending again after a reconnect can deliver them. Whatever arrives, the store holds each
round's newest record delivered; the recorder asks the table, after its grace period,
for the first round it lacks; and once the table's answer (a resend follower on the same
journal) arrives, the store equals the journal's game recall.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from floor_feed import Clock, feed_messages, finished
from floor_feed import deliver as _deliver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.autoplay import AutoPlayer
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import CardRead
from controller.game.inputs import Decide, NextRound, NoMoreBets, PlaceBet, Reveal, Settle
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.messages import RoundMessage, StateMessage, StatusMessage, encode
from floor.recorder import GRACE_S, MAX_ASKS, RETRY_S, Recorder
from floor.store import Store
from simulators.event_shoe import EventShoe, parse_faults

TABLE = "TCP-07"


def _play(t: Table, rounds: int, seed: int) -> None:
    """Autoplay until ``rounds`` are settled (autoplay opens the next round at once)."""
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(seed, parse_faults("misread=0.2,duplicate=0.15")), rounds)


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("recorder") / "journal.sqlite3"
    t = Table(path, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), snapshot_every=4,
                                table_id=TABLE))
    _play(t, 8, 11)
    # a round dealt by hand; once it is settled, a card the shoe reads in burn mode before
    # the next round joins its deal, so its record changes after it ended
    t.process([PlaceBet(seat=s, bet="ante", amount=100) for s in (1, 2)] + [NoMoreBets()]
              + [CardRead(card=c, code=c) for c in "Ah Kh 2c Qd Qs 5d 9c 3s 8h".split()]
              + [Decide(seat=1, decision="play"), Decide(seat=2, decision="play"), Reveal(),
                 Settle(), CardRead(card="7d", code="7d", burn=True), NextRound()])
    _play(t, 16, 12)
    t.close()
    return path


def _messages(journal: Path, **kw) -> list:
    return feed_messages(journal, TABLE, **kw)


def _events(journal: Path) -> list:
    """Every ``event`` message of the journal (delivered where rounds are the subject)."""
    return [m.body for m in _messages(journal) if m.name == "event"]


def _resent(whole: list, start: int) -> list:
    """What a resend from round ``start`` sends of a whole feed: the rounds from it, and
    the events after the round before it first ended."""
    before_end = min((m.seq for m in whole if m.name == "round"
                      and m.body.round_id == start - 1), default=0)
    return [m for m in whole if m.name == "round" and m.body.round_id >= start
            or m.name == "event" and m.seq > before_end]


def test_the_follower_sends_each_round_as_recall_shows_it_chained_to_the_one_before(journal):
    rounds = [m.body for m in _messages(journal) if m.name == "round"]
    newest = {m.round_id: m for m in rounds}  # the later version of a round wins
    want = finished(journal)
    assert [rc.as_recalled(newest[r["round_id"]].record.to_dict(), "") for r in want] == want
    assert sorted(newest) == list(range(1, len(want) + 1))
    # exactly one round was sent twice: first when it ended, again when the burn joined it
    twice = [rid for rid in newest if sum(m.round_id == rid for m in rounds) == 2]
    assert len(twice) == 1
    first, second = [m for m in rounds if m.round_id == twice[0]]
    assert second.seq > first.seq and len(second.record.deal) == len(first.record.deal) + 1
    # each round names the last event of the round before (its newest version), and that
    # event is really where the journal holds it
    assert newest[1].prev_seq == 0 and newest[1].prev_hash == "0" * 64
    for rid in range(2, len(newest) + 1):
        assert (newest[rid].prev_seq, newest[rid].prev_hash) == (newest[rid - 1].seq,
                                                                  newest[rid - 1].hash)
    from controller.journal import Journal

    j = Journal(journal, readonly=True)
    try:
        assert all(j.event_hash(m.seq) == m.hash for m in rounds)
        assert {m.journal for m in rounds} == {j.event_hash(1)}
    finally:
        j.close()


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_feed_resumed_at_any_cursor_sends_what_a_whole_feed_sends_after_it(journal, data):
    # the follower rebuilds from a sealed snapshot of an earlier round (snapshots every 4
    # rounds here), so each round still names the previous round's last event
    whole = [m for m in _messages(journal) if m.name in ("round", "event")]
    head = whole[-1].seq
    cursor = data.draw(st.integers(0, head), label="cursor")
    resumed = [m for m in _messages(journal, after=cursor) if m.name in ("round", "event")]
    assert resumed == [m for m in whole if m.seq > cursor]
    start = data.draw(st.integers(1, max(m.body.round_id for m in whole
                                         if m.name == "round")), label="resend from")
    assert _messages(journal, rounds_from=start, until=head) == _resent(whole, start)


def _online(rec: Recorder, sample) -> None:
    _deliver(rec, [StatusMessage(table=TABLE, journal=sample.journal, status="online")])


def _expected_contiguous(latest: dict[int, RoundMessage]) -> int:
    k = 0
    while k + 1 in latest:
        nxt = latest[k + 1]
        prev = (latest[k].seq, latest[k].hash) if k else (0, "0" * 64)
        if (nxt.prev_seq, nxt.prev_hash) != prev:
            break
        k += 1
    return k


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_whatever_the_broker_delivers_the_recorder_ends_equal_to_the_journal(journal, data):
    msgs = _messages(journal)
    rounds = [m.body for m in msgs if m.name == "round"]
    states = [m.body for m in msgs if m.name == "state"]
    kept = data.draw(st.lists(st.sampled_from(rounds), max_size=3 * len(rounds)),
                     label="delivered (lost, doubled, any order)")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "floor.sqlite3")
        asked = []
        clock = Clock()
        rec = Recorder(store, lambda table, req: asked.append((table, req)), clock)
        _deliver(rec, kept)
        # the store holds, per round, the newest version delivered, and nothing else
        latest: dict[int, RoundMessage] = {}
        for m in kept:
            if m.round_id not in latest or latest[m.round_id].seq < m.seq:
                latest[m.round_id] = m
        genesis = rounds[0].journal
        assert {r["round_id"]: r for r in store.rounds(TABLE, genesis)} == {
            rid: rc.as_recalled(m.record.to_dict(), "") for rid, m in latest.items()}
        series = rec.series.get((TABLE, genesis))
        assert (series.contiguous if series else 0) == _expected_contiguous(latest)

        # the table is online and its retained state names its newest round
        _online(rec, rounds[0])
        _deliver(rec, [states[-1]])
        rec.check()
        assert asked == []  # not before the grace period: messages may be on their way
        newest = {m.round_id: max(x.seq for x in rounds if x.round_id == m.round_id)
                  for m in rounds}
        lacking = [r for r in sorted(newest) if r not in latest or latest[r].seq < newest[r]]
        answered = 0
        for _ in range(4):  # the table answers each request from its journal
            clock.now += RETRY_S + GRACE_S
            rec.check()
            for _table, req in asked[answered:]:
                assert req.journal == genesis
                _deliver(rec, [m.body for m in _messages(journal, rounds_from=req.from_round,
                                                          until=states[-1].seq)])
            answered = len(asked)
        # no event message was delivered: a round (or the state) that counts events is
        # short of them, and asked for from that round (or the one after the newest)
        short = sorted(r for r, m in latest.items() if m.events)
        if states[-1].events:
            short.append(states[-1].last_round + 1)
        if not lacking and not short:
            assert asked == []
        else:
            # the first round lacking, or the one after it when only an older record of
            # it came (its successor, once here, disowns it: asked for next), or the first
            # round short of its events
            firsts = {*(lacking[:1]), *(r + 1 for r in lacking[:1]), *(short[:1])}
            assert asked[0][1].from_round in firsts
            assert 1 <= len(asked) <= 3
        assert store.rounds(TABLE, genesis) == finished(journal)
        assert rec.series[TABLE, genesis].contiguous == len(newest)
        store.close()


@pytest.mark.parametrize("name, payload, why", [
    ("round", b"not json", "malformed"),
    ("round", b'{"table": "TCP-07"}', "missing required field"),
    ("state", b'{"table": "TCP-07", "journal": "00", "seq": 1}', "journal"),
    ("status", b'{"table": "TCP-07", "journal": "' + b"a" * 64 + b'", "status": "maybe"}',
     "status"),
    ("round", None, "names table 'TCP-08'"),
    ("round", {"round_id": 0}, "round_id"),
    # numbers SQLite cannot hold (it stops at 2**63 - 1), and a send time past 2100
    ("round", {"seq": 2**63}, "seq"),
    ("round", {"prev_seq": 2**64}, "prev_seq"),
    ("round", {"round_id": 2**63}, "round_id"),
    ("round", {"sent_us": 2**63}, "sent_us"),
    ("round", {"sent_us": 4_102_444_800_000_001}, "sent_us"),
    # a record no journal holds
    ("round", {"record": {"round_id": 81}}, "its record is of round 81, not 1"),
    ("round", {"record": {"status": "weird"}}, "record status 'weird'"),
    ("round", {"record": {"status": "in_progress"}}, "record status 'in_progress'"),
    ("round", {"record": {"ended_utc": "yesterday"}}, "ended_utc must be an ISO 8601"),
    ("round", {"record": {"ended_utc": None}}, "ended_utc must be an ISO 8601"),
    ("round", {"record": {"started_utc": "2026-01-01T10:00:00"}}, "with its offset"),
    ("round", {"record": {"started_utc": "2026-01-01T10:00:00+02:00"}}, "UTC"),
    ("round", {"record": {"dealer_cards": ["Zz", None, "1x"]}}, "not a card: 'Zz'"),
    ("round", {"record": {"deal": [["AS", "dealer", False]]}}, "not a card: 'AS'"),
    ("round", {"prev_seq": 3}, "round 1 ends at event"),
    # fields no payload declares, and more than a table ever sends
    ("status", b'{"table": "TCP-07", "journal": "' + b"a" * 64 + b'", "status": "online", '
     b'"note": "hi"}', "unknown field `note`"),
    ("round", {"extra": 1}, "unknown field `extra`"),
    ("round", {"record": {"extra": 1}}, "unknown field 'extra' in the record"),
    ("round", {"pad": "x" * 200_000}, "more than the 196608 a table sends"),
])
def test_a_payload_that_fails_its_declaration_is_refused_and_nothing_is_stored(
        journal, tmp_path, caplog, name, payload, why):
    sample = next(m.body for m in _messages(journal) if m.name == "round")
    if payload is None:  # a table publishing as another (the ACL forbids it too)
        payload = encode(msgspec.structs.replace(sample, table="TCP-08"))
    elif isinstance(payload, dict):
        raw = msgspec.to_builtins(sample)
        record = {**raw["record"], **payload.pop("record", {})}
        payload = json.dumps({**raw, **payload, "record": record}).encode()
    store = Store(tmp_path / "floor.sqlite3")
    rec = Recorder(store, lambda *_: None)
    rec.on_message(TABLE, name, payload)
    assert rec.counts["refused"] == 1 and rec.counts["stored"] == 0
    assert store.tables() == [] and store.series() == []
    assert why in caplog.text
    store.close()


def test_a_round_lost_at_the_end_of_a_shift_is_asked_for_from_the_state(journal, tmp_path):
    msgs = _messages(journal)
    rounds = [m.body for m in msgs if m.name == "round"]
    last = rounds[-1].round_id
    store = Store(tmp_path / "floor.sqlite3")
    asked = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    # the last round never came; every event did
    _deliver(rec, [m.body for m in msgs if m.name == "event" or m.name == "round"
                   and m.body.round_id < last])
    _online(rec, rounds[0])
    _deliver(rec, [m.body for m in msgs if m.name == "state"][-1:])
    rec.check()
    assert asked == []  # the grace period first: the round may be on its way
    clock.now += GRACE_S
    rec.check()
    assert asked == [last]
    store.close()


def test_a_stored_round_its_successor_disowns_is_asked_again_then_marked_broken(
        journal, tmp_path):
    rounds = {m.body.round_id: m.body for m in _messages(journal) if m.name == "round"}
    forged = msgspec.structs.replace(rounds[3], prev_hash="f" * 64)  # not round 2's end
    store = Store(tmp_path / "floor.sqlite3")
    asked = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _online(rec, rounds[1])
    for _ in range(MAX_ASKS + 1):
        _deliver(rec, [rounds[1], rounds[2], forged, rounds[4]])  # the "resend" again
        rec.check()
        clock.now += RETRY_S + GRACE_S
        rec.check()
    assert asked == [2] * MAX_ASKS
    s = rec.series[TABLE, rounds[1].journal]
    assert s.contiguous == 2 and "does not follow round 2" in s.broken
    assert "round 3 does not follow round 2" in store.series()[0][5]
    store.close()


def _second_journal(tmp_path: Path) -> Path:
    """Another journal of the same table: 3 rounds."""
    other = tmp_path / "second.sqlite3"
    t = Table(other, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    _play(t, 3, 99)
    t.close()
    return other


def _rounds_json(store_path: Path, *extra: str) -> list:
    """``threecard floor rounds --json`` of the table."""
    import contextlib
    import io

    from controller.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["floor", "rounds", "--store", str(store_path), "--table", TABLE,
                     "--json", *extra]) == 0
    return json.loads(out.getvalue())


def test_a_new_journal_is_a_new_series_and_rounds_shows_the_newest(journal, tmp_path):
    other = _second_journal(tmp_path)
    store_path = tmp_path / "floor.sqlite3"
    store = Store(store_path)
    rec = Recorder(store, lambda *_: None)
    first = [m.body for m in _messages(journal) if m.name == "round"]
    second = [m.body for m in _messages(other) if m.name == "round"]
    _deliver(rec, first)
    _deliver(rec, [msgspec.structs.replace(m, sent_us=m.sent_us + 10**15) for m in second])
    assert [s[0:2] for s in store.series()] == [(TABLE, first[0].journal),
                                                (TABLE, second[0].journal)]
    store.close()
    assert _rounds_json(store_path) == finished(other)
    assert _rounds_json(store_path, "--journal", first[0].journal[:12]) == finished(journal)
    assert _rounds_json(store_path, "--journal", first[0].journal[:12], "--last", "2") == \
        finished(journal)[:2]


def test_a_state_with_a_newer_end_for_a_stored_round_gets_that_round_again(journal, tmp_path):
    rounds = [m.body for m in _messages(journal) if m.name == "round"]
    twice = [m for m in rounds if sum(x.round_id == m.round_id for x in rounds) == 2]
    old, new = twice
    upto = [m for m in rounds if m.round_id < old.round_id] + [old]
    store = Store(tmp_path / "floor.sqlite3")
    asked = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _deliver(rec, _events(journal) + upto)
    _online(rec, old)
    state = StateMessage(table=TABLE, journal=old.journal, seq=new.seq,
                         last_round=new.round_id, last_round_seq=new.seq,
                         last_round_hash=new.hash, round_in_play=new.round_id + 1,
                         round_state="betting")
    _deliver(rec, [state])
    rec.check()
    clock.now += GRACE_S
    rec.check()
    assert asked == [old.round_id]
    _deliver(rec, [new])
    clock.now += RETRY_S + GRACE_S
    rec.check()
    assert asked == [old.round_id]
    assert store.rounds(TABLE, old.journal, last=1) == [rc.as_recalled(new.record.to_dict(), "")]
    store.close()


def _newest_versions(journal: Path) -> dict[int, RoundMessage]:
    out: dict[int, RoundMessage] = {}
    for m in _messages(journal):
        if m.name == "round":
            out[m.body.round_id] = m.body
    return out


def _forged(m: RoundMessage) -> RoundMessage:
    """Round ``m`` as a client with the table's credentials could send it: its end a
    million events later, another hash, and the first seat's net changed."""
    seat = msgspec.structs.replace(m.record.seats[0], net=(m.record.seats[0].net or 0) + 5000)
    return msgspec.structs.replace(
        m, seq=m.seq + 1_000_000, hash="b" * 64,
        record=msgspec.structs.replace(m.record, seats=[seat, *m.record.seats[1:]]))


def test_a_round_forged_under_the_tables_name_gives_way_to_the_journals(journal, tmp_path):
    from floor.anchors import compare

    rounds = _newest_versions(journal)
    state = [m.body for m in _messages(journal) if m.name == "state"][-1]
    last = max(rounds)
    store_path = tmp_path / "floor.sqlite3"
    store = Store(store_path)
    asked = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _online(rec, rounds[1])
    _deliver(rec, _events(journal))
    # a round in the middle: the round after it names the journal's end of it
    _deliver(rec, [rounds[r] for r in range(1, last)] + [_forged(rounds[5])])
    assert store.link(TABLE, rounds[1].journal, 5).seq == rounds[5].seq
    # the newest round, forged before the table's own: nothing names either yet, the
    # later end is kept, until the table's state names the journal's end
    _deliver(rec, [_forged(rounds[last]), rounds[last]])
    assert store.link(TABLE, rounds[1].journal, last).hash == "b" * 64
    _deliver(rec, [state])
    store.close()
    # meanwhile verify-journal does not accuse the table: the floor's record is disowned
    verdict = compare(journal, store_path)
    assert verdict.ok, verdict.problems
    assert f"record of round {last} is disowned" in " ".join(verdict.notes)
    store = rec.store = Store(store_path)
    rec.check()
    clock.now += GRACE_S
    rec.check()
    assert asked == [last]
    _deliver(rec, [m.body for m in _messages(journal, rounds_from=last, until=state.seq)])
    assert store.rounds(TABLE, rounds[1].journal) == finished(journal)
    assert rec.series[TABLE, rounds[1].journal].contiguous == last
    clock.now += RETRY_S + GRACE_S
    rec.check()
    assert asked == [last]
    store.close()
    assert compare(journal, store_path).notes == ()


def test_a_state_announcing_rounds_no_journal_holds_is_forgotten_at_the_next(journal, tmp_path):
    rounds = _newest_versions(journal)
    state = [m.body for m in _messages(journal) if m.name == "state"][-1]
    store = Store(tmp_path / "floor.sqlite3")
    asked = []
    clock = Clock()
    rec = Recorder(store, lambda _t, req: asked.append(req.from_round), clock)
    _online(rec, rounds[1])
    _deliver(rec, _events(journal) + list(rounds.values()))
    claim = msgspec.structs.replace(state, last_round=1_000_000, round_in_play=1_000_001,
                                    last_round_seq=state.seq + 5, seq=state.seq + 5)
    _deliver(rec, [claim])
    rec.check()
    clock.now += GRACE_S
    rec.check()
    assert asked == [max(rounds) + 1]  # the table is asked once, and sends nothing more
    _deliver(rec, [state])  # the table's next state
    for _ in range(3):
        clock.now += RETRY_S + GRACE_S
        rec.check()
    assert asked == [max(rounds) + 1]
    from floor.report import floor_status

    (row,) = floor_status(store, datetime.now(UTC))
    assert row.lacking is None and row.last_round == max(rounds)
    store.close()


def test_a_status_under_another_journal_leaves_the_tables_own(journal, tmp_path):
    from floor.messages import SENT_US_MAX
    from floor.report import floor_status

    rounds = _newest_versions(journal)
    store = Store(tmp_path / "floor.sqlite3")
    rec = Recorder(store, lambda *_: None)
    _online(rec, rounds[1])
    _deliver(rec, [StatusMessage(table=TABLE, journal="c" * 64, status="offline",
                                 sent_us=SENT_US_MAX)])
    _deliver(rec, [rounds[1], rounds[2]])  # the table goes on with its journal
    (row,) = floor_status(store, datetime.now(UTC))
    assert (row.status, row.journal, row.last_round) == ("online", rounds[1].journal, 2)
    store.close()


def test_rounds_and_status_agree_on_the_current_journal_and_older_gaps_show(journal, tmp_path):
    from floor.report import floor_status

    other = _second_journal(tmp_path)
    store_path = tmp_path / "floor.sqlite3"
    store = Store(store_path)
    rec = Recorder(store, lambda *_: None)
    first = [m.body for m in _messages(journal) if m.name in ("round", "state")]
    second = [m.body for m in _messages(other) if m.name == "round"]
    newest = max(m.round_id for m in first if m.name == "round")
    _deliver(rec, [m for m in first if getattr(m, "round_id", 0) != 3])  # round 3 lost
    _deliver(rec, second)
    rec.check()  # the recorder sees the gaps; once its grace period is over they show
    later = datetime.now(UTC) + timedelta(seconds=GRACE_S + 1)
    (row,) = floor_status(store, later)
    assert row.journal == second[0].journal and _rounds_json(store_path) == finished(other)
    assert row.older_lacking == [
        f"journal {first[0].journal[:16]}: rounds 3 to {newest} (or part of them)"]
    # the table runs on its first journal again: both name that one now
    _deliver(rec, [m for m in first if m.name == "state"][-1:])
    (row,) = floor_status(store, later)
    assert row.journal == first[0].journal
    assert [r["round_id"] for r in _rounds_json(store_path)] == [
        r for r in range(newest, 0, -1) if r != 3]
    assert row.lacking == f"rounds 3 to {newest} (or part of them)"
    assert row.older_lacking == []
    store.close()


def test_a_table_replays_for_the_floor_once_at_a_time_and_not_more_often_than_it_may(journal):
    from floor.messages import ResendRequest
    from floor.resend import RESEND_EVERY_S, Resends

    whole = [m for m in _messages(journal) if m.name in ("round", "event")]
    genesis, head = whole[0].body.journal, whole[-1].seq
    clock = Clock()
    r = Resends(str(journal), TABLE, clock)

    def drained() -> list:
        out = []
        while (msgs := r.poll(100)) is not None:
            out += msgs
        return out

    r.ask(ResendRequest(journal="e" * 64, from_round=1), genesis, head)  # not this journal
    assert r.poll(100) is None
    r.ask(ResendRequest(journal=genesis, from_round=3), genesis, head)
    r.ask(ResendRequest(journal=genesis, from_round=1), genesis, head)  # the lowest counts
    assert drained() == _resent(whole, 1)
    # asked again at once (a recorder asking every few seconds): it waits its turn
    r.ask(ResendRequest(journal=genesis, from_round=2), genesis, head)
    assert r.poll(100) is None
    clock.now += RESEND_EVERY_S
    assert drained() == _resent(whole, 2)
