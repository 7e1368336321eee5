"""Clock steps: the rule (2 s + 0.05 % of the time elapsed), their journaling, and readers.

A hand clock drives a real table: the wall clock is set back two days and forward again
while the monotonic clock only runs. The steps are journaled as facts; recall, the shift
report's period and verify-journal read them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from step_clock import HandClock

from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.clock_steps import (
    CLOCK_STEP,
    ClockStep,
    find_step,
    step_ns,
    to_ms,
)
from controller.game.clock_times import Corrections, JournaledStep
from controller.game.engine import Game, TableConfig
from controller.game.inputs import NextRound, NoMoreBets, PlaceBet, VoidRound, decode_body
from controller.game.shift import shift
from controller.game.table import Table
from controller.journal import Journal

S = 1_000_000_000
"""A second, in ns."""
DAY = 86_400 * S
HOUR = 3_600 * S


# ------------------------------------------------------------------ the rule
@pytest.mark.parametrize(("elapsed", "allowed"), [
    (0, 2 * S),                       # 2 s however short the time
    (HOUR, 2 * S + 1_800_000_000),    # 0.05 % of an hour is 1.8 s
    (DAY, 2 * S + 43_200 * S // 1000),  # of a day 43.2 s
])
def test_a_step_is_a_difference_over_2_s_plus_a_twentieth_of_a_percent(elapsed, allowed):
    for sign in (1, -1):
        assert step_ns(elapsed + sign * allowed, elapsed) is None
        assert step_ns(elapsed + sign * (allowed + 1_000_000), elapsed) == sign * (
            allowed + 1_000_000)


@given(elapsed=st.integers(0, 400 * DAY), ppm=st.integers(-499, 499),
       jitter=st.integers(-2 * S + 1, 2 * S - 1))
def test_clocks_that_drift_or_slew_within_the_rule_never_step(elapsed, ppm, jitter):
    # a quartz's drift and NTP's slewing: under 0.05 % of the time, and under 2 s of noise
    assert step_ns(elapsed + elapsed * ppm // 1_000_000 + jitter, elapsed) is None


@given(elapsed=st.integers(0, 200 * DAY), size=st.integers(3 * S, 20 * DAY),
       back=st.booleans())
def test_a_step_is_seen_with_its_sign_and_size_when_it_outgrows_the_rule(elapsed, size, back):
    step = -size if back else size
    found = step_ns(elapsed + step, elapsed)
    if size > 2 * S + elapsed // 2000:
        assert found == step
    else:
        assert found is None
    # a larger step of the same sign over the same time is a step too
    if found is not None:
        assert step_ns(elapsed + 2 * step, elapsed) == 2 * step


def test_sizes_are_whole_milliseconds_rounded_half_away_from_zero():
    assert [to_ms(n) for n in (1_499_999, 1_500_000, -1_500_000, -1_499_999, 0)] == [
        1, 2, -2, -1, 0]


def test_across_a_restart_only_a_clock_set_back_is_a_step():
    before = ("2026-03-01T12:00:00+00:00", 900 * S)  # the monotonic clock of another boot
    back = find_step(before, ("2026-03-01T11:59:57+00:00", 5 * S), restart=True)
    assert back == ClockStep(ms=-3000, wall_before=before[0],
                             wall_after="2026-03-01T11:59:57+00:00", mono_before_ns=900 * S,
                             mono_after_ns=5 * S, restart=True)
    assert find_step(before, ("2026-03-01T11:59:59+00:00", 5 * S), restart=True) is None
    assert find_step(before, ("2026-03-09T12:00:00+00:00", 5 * S), restart=True) is None
    assert find_step(before, ("not a time", 5 * S)) is None


# ------------------------------------------------------------------ a table on a hand clock
def _void_round(t: Table, clock: HandClock, minutes: int = 5) -> None:
    """A round of ``minutes``: bet, no more bets, voided by a supervisor, next round."""
    for item in (PlaceBet(seat=1, bet="ante", amount=100), NoMoreBets(),
                 VoidRound(reason="test", pin=DEMO_PINS["supervisor"]), NextRound()):
        clock.run(minutes * 60 // 4)
        (v,) = t.process([item])  # one verdict an input: a step's record is not one
        assert v.accepted, v


@pytest.fixture(scope="module")
def stepped(tmp_path_factory):
    """Rounds 1-3 at 20:00, the clock set back 2 days in round 4 (the clock set forward
    again in round 6), round 7 after; then a restart with the clock 3 hours behind."""
    path = tmp_path_factory.mktemp("clock") / "journal.sqlite3"
    clock = HandClock(datetime(2026, 3, 1, 20, 0, tzinfo=UTC), uptime_s=50)
    config = TableConfig(seats=3, pin_hashes=demo_pin_hashes())
    t = Table(path, config, clock=clock, keys=False)
    for rid in range(1, 8):
        if rid == 4:
            (v,) = t.process([PlaceBet(seat=1, bet="ante", amount=100)])
            clock.wall -= timedelta(days=2)
            for item in (NoMoreBets(), VoidRound(reason="test", pin=DEMO_PINS["supervisor"]),
                         NextRound()):
                clock.run(60)
                (v,) = t.process([item])
                assert v.accepted
            continue
        if rid == 6:
            clock.wall += timedelta(days=2)
        _void_round(t, clock)
    t.close()
    clock.wall -= timedelta(hours=3)
    clock.mono = 7 * S  # a new boot
    Table(path, config, clock=clock, keys=False).close()
    return path


def _steps(path) -> list[tuple[int, dict]]:
    j = Journal(path, readonly=True)
    try:
        return [(r.seq, json.loads(r.body)) for r in j.records() if r.kind == CLOCK_STEP]
    finally:
        j.close()


def test_steps_are_journaled_with_their_sign_size_and_readings(stepped):
    (s1, back), (s2, fwd), (s3, restart) = _steps(stepped)
    assert back["ms"] == -2 * 86_400_000 and fwd["ms"] == 2 * 86_400_000
    assert restart["ms"] == -3 * 3_600_000 and restart["restart"] is True
    assert (back["mono_after_ns"] - back["mono_before_ns"]) == 60 * S
    assert back["wall_after"] < back["wall_before"]  # the readings as the clocks gave them
    for body in (back, fwd, restart):
        decode_body(CLOCK_STEP, body)  # the declaration replays it
    j = Journal(stepped, readonly=True)
    try:
        kinds = {r.seq: r.kind for r in j.records()}
    finally:
        j.close()
    assert kinds[s1 + 1] == NoMoreBets.name  # journaled first, in the batch it was seen at
    assert kinds[s3 + 1] == "startup"


def test_verify_journal_lists_the_steps_and_passes(stepped):
    v = rc.verify(stepped)
    assert v.ok, v.summary()
    notes = [n for n in v.notes if getattr(n, "key", "") == "clock_step"]
    assert [n.params["ms"] for n in notes] == [-172_800_000, 172_800_000, -10_800_000]
    assert "clock set back 2 d 00:00:00.000 at event" in v.summary()


def test_recall_keeps_the_journal_order_and_no_round_ends_before_it_started(stepped):
    rounds = rc.recall(stepped, 10)
    assert [r["round_id"] for r in rounds] == [7, 6, 5, 4, 3, 2, 1]
    finished = [r for r in rounds if r["ended_utc"]]
    for r in finished:
        assert r["started_utc"] <= r["ended_utc"], r
    ends = [r["ended_utc"] for r in reversed(finished)]
    assert ends == sorted(ends)  # in the journal's order, on one clock
    (r4,) = [r for r in rounds if r["round_id"] == 4]
    assert [s["ms"] for s in r4["clock_steps"]] == [-172_800_000]
    assert r4["recorded_ended_utc"] < r4["recorded_started_utc"]  # as journaled


def test_the_shift_period_counts_rounds_by_corrected_time(stepped):
    j = Journal(stepped, readonly=True)
    try:
        newest = next(j.records(j.last_seq - 1)).utc
    finally:
        j.close()
    end = datetime.fromisoformat(newest)
    # every round was dealt within the last hour and a half of the corrected clock
    sh = shift(stepped, end - timedelta(hours=1, minutes=30), end)
    assert sh.voided == 7
    assert [s.ms for s in sh.clock_steps] == [-172_800_000, 172_800_000, -10_800_000]
    whole = shift(stepped)
    assert whole.period_from <= whole.period_to
    assert sh.voided == whole.voided


def test_corrections_add_the_steps_journaled_after_an_event():
    fix = Corrections([JournaledStep(10, "2026-03-01T00:00:00+00:00", -2000, "x"),
                       JournaledStep(20, "2026-03-01T00:00:00+00:00", 5000, "x")])
    assert [fix.ms_after(s) for s in (0, 9, 10, 19, 20, 99)] == [3000, 3000, 5000, 5000, 0, 0]
    # an earlier time moves as the clock moved after it: 5 s forward here
    assert fix.text(15, "2026-03-01T00:00:10+00:00") == "2026-03-01T00:00:15+00:00"
    assert fix.text(5, "2026-03-01T00:00:10+00:00") == "2026-03-01T00:00:13+00:00"
    assert fix.text(25, "2026-03-01T00:00:10+00:00") == "2026-03-01T00:00:10+00:00"


def test_the_floor_replays_a_journal_with_clock_steps(stepped):
    from controller.journal import Record
    from floor.derive import Replay

    j = Journal(stepped, readonly=True)
    try:
        rows = [(Record(*row[:6]), row[7]) for row in j.rows()]
    finally:
        j.close()
    _, done = Replay("TABLE-1", Game()).apply_all(rows)
    assert [f.round_id for f in done] == [1, 2, 3, 4, 5, 6, 7]
    assert all(f.record["status"] == "void" for f in done)
