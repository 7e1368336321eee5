"""The compact journal (format 2) against the format every earlier version wrote (format 1).

Both hold the same logical journal: the same events, times, bodies and chain hashes (the
hash is taken over the event, not over how it is stored), the same game recall and meters.
A journal of an earlier version (``data/format1.journal``, written by the last version
that wrote format 1, with what it said of it then) still replays, verifies and takes
new rounds in its own format. Every stored value comes back byte for byte, whatever its
body or time (property-based). And a settled 7-seat round costs at most 2,000 bytes of
journal file.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journal_edit import events
from step_clock import StepClock

from controller.autoplay import AutoPlayer
from controller.game import events as ev
from controller.game import inputs
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.replay import round_records
from controller.game.table import Table
from controller.journal import Journal, codec
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe, parse_faults

DATA = Path(__file__).resolve().parent / "data"
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=8)
FIELDS = st.sampled_from([*codec.KEYS, "reason", "config", "x", "s", "0"])
KINDS = st.sampled_from([*codec.KINDS, "not_a_kind", "x y"])


def play(path: Path, fmt: int, rounds: int = 12, seats: int = 3) -> None:
    """A shift with misreads, duplicates (voids, manual cards), a rejection and snapshots."""
    config = TableConfig(seats=seats, pin_hashes=demo_pin_hashes(), snapshot_every=4)
    t = Table(Journal(path, fmt=fmt), config, clock=StepClock(timedelta(milliseconds=1250)))
    t.process([inputs.Reveal()])
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(7, parse_faults("misread=0.2,duplicate=0.1")), rounds)
    t.close()


def test_both_formats_hold_the_same_journal_and_the_compact_one_is_smaller(tmp_path):
    one, two = tmp_path / "one.sqlite3", tmp_path / "two.sqlite3"
    play(one, 1)
    play(two, 2)
    assert events(one) == events(two)                       # seq, times, bodies, hashes
    assert rc.recall(one, 50) == rc.recall(two, 50)
    m1, m2 = rc.meters(one), rc.meters(two)
    assert m1.reconciled and m2.reconciled and (m1.rows, m1.counters) == (m2.rows, m2.counters)
    assert rc.verify(one).ok and rc.verify(two).ok
    j = Journal(two, readonly=True)
    try:
        assert j.format == 2 and j.snapshot_seqs() and j.rejections()
        db = sqlite3.connect(two)
        stored = db.execute("SELECT seq, typeof(h), length(h) FROM events").fetchall()
        assert db.execute("SELECT typeof(b) FROM events WHERE seq = 3").fetchone() == ("blob",)
        db.close()
        assert len(stored) > 2 * codec.CHECKPOINT
        kept = set(j.snapshot_seqs())                       # the events snapshots follow
        for seq, kind, size in stored:                      # the hash as 32 bytes, at the
            assert (kind, size) == (("null", None) if seq % codec.CHECKPOINT  # checkpoints
                                    and seq not in kept else ("blob", 32)), seq
    finally:
        j.close()
    assert os.path.getsize(two) * 2 < os.path.getsize(one)  # (a page a table, whatever its rows)


@pytest.fixture(scope="module")
def twins(tmp_path_factory) -> tuple[Path, Path]:
    """One shift written in format 1 and in format 2."""
    base = tmp_path_factory.mktemp("twins")
    one, two = base / "one.sqlite3", base / "two.sqlite3"
    play(one, 1)
    play(two, 2)
    return one, two


def read_both(twins: tuple[Path, Path], read) -> tuple:
    """``read(journal)`` of each twin."""
    out = []
    for path in twins:
        j = Journal(path, readonly=True)
        try:
            out.append(read(j))
        finally:
            j.close()
    return tuple(out)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.integers(1, 10_000), span=st.integers(0, 150))
def test_an_event_read_from_anywhere_carries_the_hash_format_1_stores(twins, first, span):
    """Format 2 stores a hash every 32nd event and derives the others from the one stored
    before: read from any event, for any span, each row and each event's hash is what
    format 1 stores for the same event."""
    last_seq = read_both(twins, lambda j: j.last_seq)[0]
    first = 1 + (first - 1) % last_seq
    last = min(first + span, last_seq)
    one, two = read_both(twins, lambda j: (list(j.rows(first, last)), j.event_hash(last),
                                          j.event_hash(first)))
    assert two == one and len(one[0]) == last - first + 1


def test_a_checkpoint_without_its_hash_still_reads_and_is_named_by_the_check(twins, tmp_path):
    """Readers derive past it (from the hash stored before); the check names it."""
    one, two = twins
    copy = tmp_path / "copy.sqlite3"
    shutil.copyfile(two, copy)
    db = sqlite3.connect(copy)
    db.execute("UPDATE events SET h = NULL WHERE seq IN (?, ?)", (64, 96))
    db.commit()
    db.close()
    stored, edited = read_both((one, copy), lambda j: (list(j.rows(60)), j.event_hash(100),
                                                       j.last_hash))
    assert edited == stored and len(stored[0]) > 40
    report = read_both((copy,), lambda j: j.verify())[0]
    assert not report.ok and report.bad_seq == 64 and "checkpoint" in report.message


def test_a_journal_of_format_1_replays_verifies_and_goes_on_in_its_format(tmp_path):
    """``data/format1.journal`` and what the version that wrote it said of it."""
    saved = json.loads((DATA / "format1.json").read_text())
    path = tmp_path / "j.sqlite3"
    shutil.copyfile(DATA / "format1.journal", path)
    shutil.copyfile(DATA / "format1.journal.anchor", f"{path}.anchor")
    verdict = rc.verify(path)
    assert verdict.ok and verdict.anchor_seq == verdict.events > 0, verdict.summary()
    assert verdict.snapshots_checked == 3 and verdict.rounds_checked == 11
    assert rc.recall(path, 50) == saved["recall"]
    meters = rc.meters(path)
    assert meters.reconciled and meters.rows == saved["rows"]
    assert meters.counters == saved["counters"]
    j = Journal(path, readonly=True)
    try:
        assert j.format == 1
        assert [r["round_id"] for r in round_records(j)] == [r["round_id"] for r in
                                                             saved["recall"]]
    finally:
        j.close()
    t = Table(path, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=3))
    assert t.locked is None
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]), EventShoe(3, {}),
             14)
    t.close()
    assert Journal(path, readonly=True).format == 1          # went on in its own format
    assert rc.verify(path).ok and rc.meters(path).reconciled
    assert rc.recall(path, 50)[-11:] == saved["recall"][-11:]


@settings(max_examples=300, deadline=None)
@given(kind=KINDS, body=st.dictionaries(FIELDS, JSON_VALUES, max_size=5))
def test_every_body_comes_back_byte_for_byte(kind, body):
    try:
        text = inputs.encode_body(body)
    except inputs.InputError:                                    # JSON cannot hold it
        return
    stored = codec.encode_body(kind, text)
    assert codec.decode_body(kind, stored) == text
    for raw in (text.replace(",", ", "), text + " "):      # not canonical: kept as text
        assert codec.decode_body(kind, codec.encode_body(kind, raw)) == raw


@settings(max_examples=300, deadline=None)
@given(card=st.sampled_from([*codec.CARD_TEXTS, "10h", "XX", None]),
       code=st.sampled_from(["", "10H", "same"]), burn=st.booleans(),
       seq=st.none() | st.integers(-5, 2**63 - 1), rule=st.sampled_from([None, 1, 2]))
def test_every_card_comes_back_byte_for_byte(card, code, burn, seq, rule):
    """The card reads (most of a round's events), whatever the shoe said."""
    body = {"card": card, "code": card if code == "same" else code, "burn": burn, "seq": seq}
    if rule is not None:
        body["burn_rule"] = rule
    text = inputs.encode_body(body)
    assert codec.decode_body("card", codec.encode_body("card", text)) == text


def test_the_bodies_the_table_writes_are_compact():
    """Every input the table journals has a code and a compact body (not its text)."""
    samples = [
        ("card", ev.CardRead(card="Qh", code="Qh", seq=700)),
        ("card", ev.CardRead(card="Td", code="10D", burn=True)),
        ("card", ev.CardRead(card=None, code="XX")),
        ("decide", inputs.Decide(seat=7, decision="fold")),
        ("place_bet", inputs.PlaceBet(seat=3, bet="six_card_bonus", amount=2500)),
        ("rebet", inputs.Rebet()),
        ("link", ev.LinkStatus(state=ev.LinkState.ONLINE, detail="simulated shoe")),
    ]
    for kind, item in samples:
        k, record = inputs.journal_record(item)
        body = inputs.record_body(record)
        text = inputs.encode_body(body)
        stored = codec.encode_body(k, text)
        assert k == kind and isinstance(codec.encode_kind(k, "shoe"), int)
        assert isinstance(stored, bytes) and len(stored) < len(text), (text, stored)
        if kind in ("card", "decide", "rebet") and not body.get("burn"):  # most of a round
            assert len(stored) <= 8, (text, stored)
        assert codec.decode_body(k, stored) == text
    assert set(inputs.BODY_TYPES) <= set(codec.KINDS)
    assert codec.encode_body("next_round", "{}") is None       # nothing at all


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.tuples(st.integers(0, 10**10), st.integers(-10**6, 10**11),
                                st.booleans()), min_size=1, max_size=150),
       start=st.integers(1, 200))
def test_every_time_comes_back_from_any_event_on(steps, start):
    """Deltas, keyframes every 64 events, a clock stepped back, times as odd text."""
    base, mono = datetime(2026, 5, 1, tzinfo=UTC), 3_000_000_000
    rows, us = [], 0
    for i, (dus, dmono, odd) in enumerate(steps):
        us += dus
        mono += dmono
        t = base + timedelta(microseconds=us)
        utc = t.strftime("%Y-%m-%dT%H:%M:%SZ") if odd else t.isoformat()
        rows.append((start + i, utc, mono))
    writer = codec.Times()
    stored = [(s, *writer.encode(s, utc, m)) for s, utc, m in rows]
    for first in range(len(rows)):                          # a reader starting anywhere
        if first and (rows[first][0] % codec.KEYFRAME != 1):
            continue                                        # (it starts at a keyframe)
        reader = codec.Times()
        assert [reader.decode(*x) for x in stored[first:]] == [(u, m) for _, u, m in
                                                                rows[first:]]


def test_a_settled_7_seat_round_costs_at_most_2000_bytes_of_journal(tmp_path):
    """The journal's growth over 150 rounds of seven seats, three bets each, a file on disk."""
    path = tmp_path / "j.sqlite3"
    config = TableConfig(seats=7, pin_hashes=demo_pin_hashes())
    player = AutoPlayer(bets={"ante": 100, "pair_plus": 100, "six_card_bonus": 100},
                        pin=DEMO_PINS["supervisor"])
    sizes = []
    for rounds in (50, 200):
        t = Table(path, config)
        simulate(t, player, EventShoe(rounds), rounds)
        t.close()
        sizes.append(os.path.getsize(path))
    per_round = (sizes[1] - sizes[0]) / 150
    assert per_round <= 2000, per_round


def test_the_code_tables_of_format_2_never_change():
    """Stored codes are read with these tables for ever: a kind, an actor, a key or a value
    is only appended (a new one at the end), never moved or renamed."""
    assert codec.KINDS[:33] == (
        "card", "decide", "place_bet", "rebet", "no_more_bets", "reveal", "settle",
        "next_round", "mark_bet", "clear_bets", "void", "manual_card", "unblock_deck",
        "resume", "new_deck", "exposed_card", "config_change", "change_pin", "startup",
        "misread", "retract", "link", "seq_gap", "hello", "alarm", "lid", "cut", "empty",
        "warning", "frame_error", "no_frame", "remove_chip", "undo_decision")
    assert codec.ACTORS[:6] == ("shoe", "dealer", "system", "supervisor", "technician",
                                "dealer!")
    assert list(codec.KEYS.items())[:11] == [
        ("seat", 0), ("bet", 1), ("amount", 2), ("decision", 3), ("card", 4), ("code", 5),
        ("seq", 6), ("burn", 7), ("burn_rule", 8), ("on", 9), ("rule", 10)]
    assert codec.VALUES["bet"][:3] == ("ante", "pair_plus", "six_card_bonus")
    assert codec.VALUES["decision"][:2] == ("play", "fold")
    assert codec.VALUES["card"] == tuple(r + s for r in "23456789TJQKA" for s in "cdhs")
    assert codec.KEYFRAME == 64 and codec.CHECKPOINT == 32 and codec.FORMAT == 2


@pytest.mark.parametrize("bad", [b"\x81\xa1x", b"\xc1", b"\x81\x63\x01", b"\x92\x01\x02",
                                 b"\x81\x04\x7f", 5])
def test_a_stored_body_that_is_not_format_2_is_refused_never_guessed(bad):
    """Torn MessagePack, a key no field has, not a map, a card index past the deck."""
    with pytest.raises(codec.FormatError):
        codec.decode_body("card", bad)
    assert codec.decode_body("card", "[not json") == "[not json"  # text: the body verbatim
