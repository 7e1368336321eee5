"""The recorder verifies every round it stores, and keeps every series whole.

The messages are the ones a real sealed journal makes (:class:`floor.follower.Follower`
over a table's journal: voids, misreads, a round whose record changed after it ended
because a burn card was read before the next round): each round's message carries the
journal's rows since the previous round's seal and the seals closing them. The recorder
recomputes the chain, checks each seal with the key it expects, derives the records from
the rows by the game's own replay, and stores nothing else: the store equals the
journal's game recall. Messages lost, doubled and out of order (a broker killed without
persistence, a publisher sending again after a reconnect) are asked for again; messages a
table's credentials can make without its key (rows edited with every link right, seals
signed by another key, a seal altered, another copy of the journal) are refused, counted
as forged, and never replace what is stored.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import astuple
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from floor_feed import Clock, feed_messages, finished, forge, head_at, verification_key
from floor_feed import deliver as _deliver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journal_edit import copy_journal

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import CardRead
from controller.game.inputs import (
    Decide,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Reveal,
    Settle,
    VoidRound,
)
from controller.game.table import Table
from controller.journal import Journal
from controller.journal import seal as sealing
from controller.simulate_cli import simulate
from floor.messages import StatusMessage
from floor.recorder import GRACE_S, RETRY_S, Recorder
from floor.report import floor_status
from floor.store import ENROLLED, FIRST_USE, Store
from simulators.event_shoe import EventShoe, parse_faults

TABLE = "TCP-07"


def _play(t: Table, rounds: int, seed: int) -> None:
    """Autoplay until ``rounds`` are settled (autoplay opens the next round at once)."""
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(seed, parse_faults("misread=0.2,duplicate=0.15")), rounds)


def _table(path: Path) -> Table:
    return Table(path, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), snapshot_every=4,
                                   table_id=TABLE))


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("recorder") / "journal.sqlite3"
    t = _table(path)
    _play(t, 8, 11)
    # a round dealt by hand; once it is settled, a card the shoe reads in burn mode before
    # the next round joins its deal, so its record changes after it ended
    t.process([PlaceBet(seat=s, bet="ante", amount=100) for s in (1, 2)] + [NoMoreBets()]
              + [CardRead(card=c, code=c) for c in "Ah Kh 2c Qd Qs 5d 9c 3s 8h".split()]
              + [Decide(seat=1, decision="play"), Decide(seat=2, decision="play"), Reveal(),
                 Settle(), CardRead(card="7d", code="7d", burn=True), NextRound()])
    # a round voided by a supervisor
    t.process([PlaceBet(seat=1, bet="ante", amount=100), NoMoreBets(),
               VoidRound(reason="dealer error", pin=DEMO_PINS["supervisor"]), NextRound()])
    _play(t, 16, 12)
    t.close()
    return path


def _messages(journal: Path, **kw) -> list:
    return feed_messages(journal, TABLE, **kw)


def _bodies(journal: Path, name: str) -> list:
    return [m.body for m in _messages(journal) if m.name == name]


def _events(journal: Path) -> list:
    """Every ``event`` message of the journal (delivered where rounds are the subject)."""
    return _bodies(journal, "event")


def _resent(whole: list, start: int) -> list:
    """What a resend from round ``start`` sends of a whole feed: the rounds from it, and
    the events after the round before it first ended."""
    before_end = min((m.seq for m in whole if m.name == "round"
                      and m.body.round_id == start - 1), default=0)
    return [m for m in whole if m.name == "round" and m.body.round_id >= start
            or m.name == "event" and m.seq > before_end]


def _recorder(path: Path, clock: Clock | None = None) -> tuple[Store, Recorder, list]:
    """A store, its recorder, and the rounds it asks for."""
    store = Store(path)
    asked: list[int] = []
    return store, Recorder(store, lambda _t, req: asked.append(req.from_round),
                           clock or Clock()), asked


def _stored_events(store: Store) -> set[tuple[int, str]]:
    return set(store.db.execute("SELECT seq, kind FROM events WHERE table_id = ?", (TABLE,)))


def test_each_round_carries_the_journal_since_the_last_seal_and_the_floor_derives_recall(
        journal, tmp_path, store_at):
    rounds = _bodies(journal, "round")
    j = Journal(journal, readonly=True)
    try:
        seals, chains, head = sealing.seals(j.db), sealing.chains(j.db), j.last_seq
        records = {r.seq: r for r in j.records()}
    finally:
        j.close()
    # every event from the first, once, in order, each message after the seal before it
    sent = [r for m in rounds for r in m.rows]
    assert [r.seq for r in sent] == list(range(1, sent[-1].seq + 1))
    assert all(msgspec.structs.astuple(r) == astuple(records[r.seq]) for r in sent)
    assert [m.after for m in rounds] == [0] + [m.rows[-1].seq for m in rounds[:-1]]
    # the journal's seals, each once: the last of each message closes its last row
    got = [s for m in rounds for s in m.seals]
    assert [(s.epoch, s.seq, s.head, s.signature) for s in got] == [
        (s.epoch, s.seq, s.head, s.signature.hex()) for s in seals[:len(got)]]
    assert all(m.seals[-1].seq == m.rows[-1].seq for m in rounds)
    assert rounds[0].chains[0].key == chains[0].key.hex() == verification_key(journal)
    assert all(not m.chains for m in rounds[1:]) and sent[-1].seq <= head
    # each round made one message (the burn that changed a round after it ended rides in
    # the next round's rows), and the floor's replay of the rows is game recall
    want = finished(journal)
    assert [m.round_id for m in rounds] == list(range(1, len(want) + 1))
    store, rec, _ = _recorder(store_at)
    _deliver(rec, _events(journal) + rounds)
    genesis = rounds[0].journal
    assert store.rounds(TABLE, genesis) == want
    assert [r["status"] for r in want].count("void") >= 1
    assert _stored_events(store) == {(e.seq, e.kind) for e in _events(journal)}
    assert rec.counts["forged"] == 0 and rec.series[TABLE, genesis].contiguous == len(want)
    store.close()


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_feed_resumed_at_any_cursor_sends_what_a_whole_feed_sends_after_it(journal, data):
    # the follower rebuilds from a sealed snapshot of an earlier round (snapshots every 4
    # rounds here), so each round's rows still start at the seal that closed the one before
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
        clock = Clock()
        store, rec, asked = _recorder(Path(tmp) / "floor.sqlite3", clock)
        _deliver(rec, kept)
        # the store holds the rounds of the messages that join the journal's chain from
        # its first event, those held ahead of it checked once it reaches them
        upto, ahead = 0, {}
        for m in kept:
            if m.after > upto:
                ahead[m.after] = m
            elif m.after == upto:
                upto = m.rows[-1].seq
                while upto in ahead:
                    upto = ahead.pop(upto).rows[-1].seq
        genesis = rounds[0].journal
        done = [m.round_id for m in rounds if m.rows[-1].seq <= upto]
        assert [r["round_id"] for r in store.rounds(TABLE, genesis)][::-1] == done
        assert rec.counts["forged"] == 0

        # the table is online and its retained state names its newest round
        _online(rec, rounds[0])
        _deliver(rec, [states[-1]])
        rec.check()
        assert asked == []  # not before the grace period: messages may be on their way
        answered = 0
        for _ in range(4):  # the table answers each request from its journal
            clock.now += RETRY_S + GRACE_S
            rec.check()
            for from_round in asked[answered:]:
                _deliver(rec, [m.body for m in _messages(journal, rounds_from=from_round,
                                                          until=states[-1].seq)])
            answered = len(asked)
        assert asked == ([] if len(done) == len(rounds) else [len(done) + 1])
        assert store.rounds(TABLE, genesis) == finished(journal)
        assert rec.series[TABLE, genesis].contiguous == len(rounds)
        store.close()


def _sample(journal: Path) -> dict:
    return msgspec.to_builtins(_bodies(journal, "round")[1])


@pytest.mark.parametrize("name, change, why", [
    ("round", b"not json", "malformed"),
    ("round", b'{"table": "TCP-07"}', "missing required field"),
    ("state", b'{"table": "TCP-07", "journal": "00", "seq": 1}', "journal"),
    ("status", b'{"table": "TCP-07", "journal": "' + b"a" * 64 + b'", "status": "maybe"}',
     "status"),
    ("round", {"table": "TCP-08"}, "names table 'TCP-08'"),
    ("round", {"round_id": 0}, "round_id"),
    # numbers SQLite cannot hold (it stops at 2**63 - 1), and a send time past 2100
    ("round", {"after": 2**63}, "after"),
    ("round", {"sent_us": 2**63}, "sent_us"),
    ("round", {"sent_us": 4_102_444_800_000_001}, "sent_us"),
    # rows and seals no journal makes
    ("round", {"rows": []}, "rows"),
    ("round", {"after": 3}, "its rows are not the events after event 3"),
    ("round", {"rows": "drop-first"}, "its rows are not the events after event"),
    ("round", {"seals": "epoch+1"}, "its seals are not of epochs one after the other"),
    ("round", {"seals": "seq-1"}, "its seals do not close its rows"),
    ("round", {"seals": "short-signature"}, "signature"),
    ("round", {"after": 0}, "the journal's first events come without the chain's start"),
    # fields no payload declares, and more than a table ever sends
    ("status", b'{"table": "TCP-07", "journal": "' + b"a" * 64 + b'", "status": "online", '
     b'"note": "hi"}', "unknown field `note`"),
    ("round", {"extra": 1}, "unknown field `extra`"),
    ("round", {"pad": "x" * 200_000}, "more than the 196608 a table sends"),
])
def test_a_payload_that_fails_its_declaration_is_refused_and_nothing_is_stored(
        journal, tmp_path, caplog, name, change, why):
    payload = change
    if isinstance(change, dict):
        raw = _sample(journal)
        for key, value in change.items():
            if value == "drop-first":
                raw["rows"] = raw["rows"][1:]
            elif value == "epoch+1":
                raw["seals"] = raw["seals"] + [{**raw["seals"][-1],
                                                "epoch": raw["seals"][-1]["epoch"] + 2}]
            elif value == "seq-1":
                raw["seals"][-1]["seq"] -= 1
            elif value == "short-signature":
                raw["seals"][-1]["signature"] = raw["seals"][-1]["signature"][:-2]
            elif key == "after" and value == 0:
                raw["rows"] = [[i + 1, *r[1:]] for i, r in enumerate(raw["rows"])]
                raw["seals"][-1]["seq"] = len(raw["rows"])
                raw["after"] = 0
            else:
                raw[key] = value
        payload = json.dumps(raw).encode()
    store, rec, _ = _recorder(tmp_path / "floor.sqlite3")
    rec.on_message(TABLE, name, payload)
    assert rec.counts["refused"] == 1 and rec.counts["stored"] == 0
    assert store.tables() == [] and store.series() == []
    assert why in caplog.text
    store.close()


def _other_copy(tmp_path: Path) -> tuple[Path, Path]:
    """A journal of 5 rounds, and another: its copy after round 3, with its key, played
    otherwise, and longer (a third copy, ``older.sqlite3``, stays at round 3)."""
    early = tmp_path / "early.sqlite3"
    t = _table(early)
    _play(t, 3, 11)
    t.close()
    copy_journal(early, tmp_path / "older.sqlite3")
    other = copy_journal(early, tmp_path / "other.sqlite3")
    t = _table(early)
    _play(t, 5, 40)
    t.close()
    t = _table(other)
    _play(t, 8, 41)  # past the first one's epochs
    t.close()
    return early, other


def test_rounds_not_sealed_by_the_tables_key_are_refused_counted_and_never_stored(
        journal, tmp_path, store_at):
    rounds = _bodies(journal, "round")
    genesis = rounds[0].journal
    clock = Clock()
    store, rec, _ = _recorder(store_at, clock)
    _deliver(rec, rounds[:3])
    assert [k.how for k in store.keys(TABLE)] == [FIRST_USE]
    held = store.rounds(TABLE, genesis)
    r4 = rounds[3]

    def rich(row):  # a bet of 100 made one of 5,000,000, the player's cards an ace
        body = row.body.replace('"amount":100', '"amount":5000000')
        if row.kind == "card":
            body = json.dumps({**json.loads(body), "card": "As", "code": "As"},
                              sort_keys=True, separators=(",", ":"))
        return msgspec.structs.replace(row, body=body)

    flip = r4.seals[-1].signature[:-1] + ("0" if r4.seals[-1].signature[-1] != "0" else "1")
    forgeries = {
        "rows edited, every link right, signed by another key":
            forge(r4, head_at(rounds, r4.after), rich),
        "the table's own rows, signed by another key": forge(r4, head_at(rounds, r4.after)),
        "a signature altered": msgspec.structs.replace(r4, seals=[
            *r4.seals[:-1], msgspec.structs.replace(r4.seals[-1], signature=flip)]),
        "a row edited under the table's seals": msgspec.structs.replace(
            r4, rows=[rich(r) for r in r4.rows]),
        "another journal id": msgspec.structs.replace(r4, journal_id="c" * 64),
        "no seal at all": msgspec.structs.replace(r4, seals=[]),
        "a made-up series from the start": forge(rounds[0], head_at(rounds, 0), rich),
    }
    for what, m in forgeries.items():
        before = rec.counts["forged"]
        _deliver(rec, [m])
        assert rec.counts["forged"] == before + 1, what
        assert store.rounds(TABLE, genesis) == held, what
    assert rec.counts["stored"] == 3 and rec.series[TABLE, genesis].contiguous == 3
    # the table's own round 4 is stored, and its witness names the newest seal
    published = []
    rec.publish_witness = lambda _t, w: published.append(w)
    _deliver(rec, [r4])
    assert [r["round_id"] for r in store.rounds(TABLE, genesis)][0] == 4
    (w,) = published
    assert (w.journals[0].epoch, w.journals[0].seq, w.journals[0].round_id) == (
        r4.seals[-1].epoch, r4.seals[-1].seq, 4)
    (row,) = floor_status(store, datetime.now(UTC))
    assert row.forged == len(forgeries) and row.key_pinned == FIRST_USE
    assert row.verify_key == verification_key(journal)
    assert f"FORGED {len(forgeries)}: round 1 of journal" in row.line()
    store.close()


def test_another_copy_of_the_journal_is_a_conflict_and_the_series_is_broken(tmp_path, store_at):
    early, other = _other_copy(tmp_path)
    mine = _bodies(early, "round")
    theirs = _bodies(other, "round")
    assert theirs[2] == mine[2] and theirs[3] != mine[3]  # one journal up to round 3
    store, rec, _ = _recorder(store_at)
    _deliver(rec, mine)
    held = store.rounds(TABLE, mine[0].journal)
    _deliver(rec, theirs)  # the same key signed its round 4: another history
    # refused, or held ahead of the floor's record (never to join it)
    assert rec.counts["forged"] >= 1 and rec.counts["duplicate"] == 3
    assert rec.counts["forged"] + rec.counts["ahead"] == len(theirs) - 3
    assert store.rounds(TABLE, mine[0].journal) == held == finished(early)
    s = rec.series[TABLE, mine[0].journal]
    assert "the journal at the table is not the one the floor recorded" in s.broken
    assert "signed with the journal's key" in s.broken
    store.close()


def test_events_are_provisional_until_their_round_is_sealed_and_none_displaces_a_real_one(
        journal, tmp_path, store_at):
    msgs = [m.body for m in _messages(journal) if m.name in ("round", "event")]
    rounds = [m for m in msgs if m.name == "round"]
    void = next(m for m in msgs if m.name == "event" and m.kind == "void")
    closing = next(m for m in rounds if m.after < void.seq <= m.rows[-1].seq)
    store, rec, _ = _recorder(store_at)
    _deliver(rec, [m for m in rounds if m.rows[-1].seq <= closing.after])
    # made-up voids over the whole round, one at the real void's event, before it comes
    fakes = [msgspec.structs.replace(void, seq=seq, message="made up", params={})
             for seq in range(closing.after + 1, closing.rows[-1].seq + 1)]
    _deliver(rec, fakes + [void] + fakes)
    assert rec.counts["forged"] == 0  # provisional: nothing says yet which are made up
    _deliver(rec, [closing])
    held = store.db.execute("SELECT seq, kind, body FROM events WHERE kind = 'void'").fetchall()
    assert [(seq, kind) for seq, kind, _ in held] == [(void.seq, "void")]
    assert json.loads(held[0][2])["message"] == void.message
    assert rec.counts["forged"] == len(fakes)
    # once sealed, an event the rows do not make is refused at once; the real one again
    # is a duplicate
    dup = rec.counts["duplicate"]
    _deliver(rec, fakes[:3] + [void])
    assert rec.counts["forged"] == len(fakes) + 3 and rec.counts["duplicate"] == dup + 1
    assert store.db.execute("SELECT COUNT(*) FROM pending_events").fetchone()[0] == 0
    store.close()


def test_a_key_enrolled_is_the_only_one_taken_and_replaces_one_pinned_on_first_use(
        journal, tmp_path, store_at):
    rounds = _bodies(journal, "round")
    genesis = rounds[0].journal
    store, rec, _ = _recorder(store_at)
    # a forger first on a floor with no key enrolled: its key is pinned on first use
    made_up = forge(rounds[0], head_at(rounds, 0))
    _deliver(rec, [made_up])
    assert [(k.key, k.how) for k in store.keys(TABLE)] == [(made_up.chains[0].key,
                                                            FIRST_USE)]
    _deliver(rec, rounds[:2])  # the table's own rounds are then refused
    assert rec.counts["forged"] == 2
    # the technician enrols the table's key: the pin is replaced, the journal verified
    # again from its start, the table's rounds taken, the made-up ones refused
    store.pin_key(TABLE, verification_key(journal), ENROLLED, 1)
    assert [(k.key, k.how) for k in store.keys(TABLE)] == [(verification_key(journal),
                                                            ENROLLED)]
    _deliver(rec, rounds[:2] + [made_up])
    assert store.rounds(TABLE, genesis) == finished(journal)[-2:]
    assert rec.counts["forged"] == 3
    assert [s.signature for s, _ in store.seals(TABLE, genesis)] == [
        s.signature for m in rounds[:2] for s in m.seals]
    store.close()


def test_a_round_lost_at_the_end_of_a_shift_is_asked_for_from_the_state(journal, tmp_path):
    msgs = _messages(journal)
    rounds = [m.body for m in msgs if m.name == "round"]
    last = rounds[-1].round_id
    clock = Clock()
    store, rec, asked = _recorder(tmp_path / "floor.sqlite3", clock)
    # the last round never came; every event did
    _deliver(rec, [m.body for m in msgs if m.name == "event"] + rounds[:-1])
    _online(rec, rounds[0])
    _deliver(rec, [m.body for m in msgs if m.name == "state"][-1:])
    rec.check()
    assert asked == []  # the grace period first: the round may be on its way
    clock.now += GRACE_S
    rec.check()
    assert asked == [last]
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


def _enrol(store: Store, *journals: Path) -> None:
    for j in journals:
        store.pin_key(TABLE, verification_key(j), ENROLLED, 1)


def test_a_new_journal_is_a_new_series_and_rounds_shows_the_newest(journal, tmp_path, store_at):
    other = _second_journal(tmp_path)
    store_path = store_at
    store, rec, _ = _recorder(store_path)
    _enrol(store, journal, other)  # each journal has a key of its own: both enrolled
    first = _bodies(journal, "round")
    second = _bodies(other, "round")
    _deliver(rec, first)
    _deliver(rec, [msgspec.structs.replace(m, sent_us=m.sent_us + 10**15) for m in second])
    assert [s[0:2] for s in store.series()] == [(TABLE, first[0].journal),
                                                (TABLE, second[0].journal)]
    assert rec.counts["forged"] == 0
    store.close()
    assert _rounds_json(store_path) == finished(other)
    assert _rounds_json(store_path, "--journal", first[0].journal[:12]) == finished(journal)
    assert _rounds_json(store_path, "--journal", first[0].journal[:12], "--last", "2") == \
        finished(journal)[:2]


def test_a_state_announcing_rounds_no_journal_holds_is_forgotten_at_the_next(journal, tmp_path):
    rounds = _bodies(journal, "round")
    state = _bodies(journal, "state")[-1]
    clock = Clock()
    store, rec, asked = _recorder(tmp_path / "floor.sqlite3", clock)
    _online(rec, rounds[0])
    _deliver(rec, _events(journal) + rounds)
    claim = msgspec.structs.replace(state, last_round=1_000_000, round_in_play=1_000_001,
                                    last_round_seq=state.seq + 5, seq=state.seq + 5)
    _deliver(rec, [claim])
    rec.check()
    clock.now += GRACE_S
    rec.check()
    assert asked == [len(rounds) + 1]  # the table is asked once, and sends nothing more
    _deliver(rec, [state])  # the table's next state
    for _ in range(3):
        clock.now += RETRY_S + GRACE_S
        rec.check()
    assert asked == [len(rounds) + 1]
    (row,) = floor_status(store, datetime.now(UTC))
    assert row.lacking is None and row.last_round == len(rounds)
    store.close()


def test_a_status_under_another_journal_leaves_the_tables_own(journal, tmp_path):
    from floor.messages import SENT_US_MAX

    rounds = _bodies(journal, "round")
    store, rec, _ = _recorder(tmp_path / "floor.sqlite3")
    _online(rec, rounds[0])
    _deliver(rec, [StatusMessage(table=TABLE, journal="c" * 64, status="offline",
                                 sent_us=SENT_US_MAX)])
    _deliver(rec, rounds[:2])  # the table goes on with its journal
    (row,) = floor_status(store, datetime.now(UTC))
    assert (row.status, row.journal, row.last_round) == ("online", rounds[0].journal, 2)
    store.close()


def test_rounds_and_status_agree_on_the_current_journal_and_older_gaps_show(journal, tmp_path,
                                                                          store_at):
    other = _second_journal(tmp_path)
    store_path = store_at
    store, rec, _ = _recorder(store_path)
    _enrol(store, journal, other)
    first = [m for m in _bodies(journal, "round") if m.round_id != 3]  # round 3 lost
    state = _bodies(journal, "state")[-1]
    _deliver(rec, first + [state])
    _deliver(rec, _bodies(other, "round"))
    rec.check()  # the recorder sees the gaps; once its grace period is over they show
    later = datetime.now(UTC) + timedelta(seconds=GRACE_S + 1)
    (row,) = floor_status(store, later)
    assert row.journal != state.journal and _rounds_json(store_path) == finished(other)
    assert row.older_lacking == [
        f"journal {state.journal[:16]}: rounds 3 to {state.last_round} (or part of them)"]
    # the table runs on its first journal again: both name that one now
    _deliver(rec, [state])
    (row,) = floor_status(store, later)
    assert row.journal == state.journal
    assert [r["round_id"] for r in _rounds_json(store_path)] == [2, 1]
    assert row.lacking == f"rounds 3 to {state.last_round} (or part of them)"
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


def test_a_round_sealed_in_between_comes_whole_or_in_parts_cut_at_its_seals(
        tmp_path, monkeypatch):
    import floor.follower

    path = tmp_path / "journal.sqlite3"
    t = _table(path)
    _play(t, 2, 5)
    # a round whose epochs are sealed in between (every 15 minutes, or as the table
    # stops), and a round after it
    t.process([PlaceBet(seat=s, bet="ante", amount=100) for s in (1, 2)] + [NoMoreBets()])
    t.journal.seal()
    t.process([CardRead(card=c, code=c) for c in "Ah Kh 2c Qd Qs 5d".split()])
    t.journal.seal()
    t.process([CardRead(card=c, code=c) for c in "9c 3s 8h".split()]
              + [Decide(seat=1, decision="play"), Decide(seat=2, decision="fold"), Reveal(),
                 Settle(), NextRound()])
    _play(t, 4, 6)
    t.close()
    whole = _bodies(path, "round")
    third = next(m for m in whole if len(m.seals) > 1)  # the round dealt by hand
    assert len(third.seals) == 3 and third.seals[-1].seq == third.rows[-1].seq
    before = [m for m in whole if m.round_id < third.round_id]
    monkeypatch.setattr(floor.follower, "PART_BYTES", 1500)  # a small message's worth
    parts = [m.body for m in _messages(path, after=third.after) if m.name == "round"]
    cut = [m for m in parts if m.round_id == third.round_id]
    assert len(cut) > 1 and [m.after for m in cut[1:]] == [m.seals[-1].seq for m in cut[:-1]]
    assert [r for m in cut for r in m.rows] == third.rows
    upto = [r for r in finished(path) if r["round_id"] <= third.round_id]
    for msgs, want in ((whole, finished(path)), (before + cut, upto)):
        store, rec, _ = _recorder(tmp_path / f"floor-{len(msgs)}.sqlite3")
        _deliver(rec, msgs)
        assert store.rounds(TABLE, whole[0].journal) == want
        assert rec.counts["forged"] == 0 and rec.counts["stored"] == len(msgs)
        store.close()


def test_the_witness_tells_a_journal_behind_the_floor_or_disagreeing_with_it(tmp_path):
    from floor.follower import Follower

    early, other = _other_copy(tmp_path)
    store, rec, _ = _recorder(tmp_path / "floor.sqlite3")
    published = []
    rec.publish_witness = lambda _t, w: published.append(w)
    rounds = _bodies(early, "round")
    _deliver(rec, rounds)
    (w,) = published[-1:]
    last = rounds[-1].seals[-1]
    newest = finished(early)[0]["round_id"]
    kept = finished(tmp_path / "older.sqlite3")[0]["round_id"]
    assert [(e.journal, e.epoch, e.seq, e.round_id, e.signature) for e in w.journals] == [
        (rounds[0].journal, last.epoch, last.seq, newest, last.signature)]
    store.close()
    said = {}
    for name in ("early", "other", "older"):
        f = Follower(tmp_path / f"{name}.sqlite3", TABLE)
        try:
            said[name] = f.check_witness(w).problem
        finally:
            f.close()
    assert said["early"] is None
    assert said["other"].startswith(
        f"the journal disagrees with the floor: the floor holds round {newest} sealed in "
        f"epoch {last.epoch} at event {last.seq}, the journal another seal of that epoch")
    assert said["older"] == (f"journal rolled back: the floor holds round {newest}, the "
                             f"journal ends at round {kept} (put back to an older copy)")
