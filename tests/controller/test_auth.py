"""Roles and PIN lockouts: a dealer PIN identifies the dealer and authorises nothing more;
a lockout lasts its period of elapsed time, whatever the wall clock does and across
restarts, and the journal replays to the same lockout."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
from journal_edit import events
from step_clock import HandClock

from controller.game import recall as rc
from controller.game.auth import (
    DEMO_PINS,
    PinChecker,
    PinLockout,
    demo_pin_hashes,
    demo_pin_salt,
    hash_pin,
)
from controller.game.config import TableConfig
from controller.game.engine import Game
from controller.game.events import CardRead, LinkState, LinkStatus, Misread
from controller.game.inputs import (
    ConfigChange,
    ManualCard,
    NoMoreBets,
    PlaceBet,
    UnblockDeck,
    VoidRound,
)
from controller.game.replay import rebuild
from controller.game.table import Table
from controller.journal import Journal

SUP, TECH = DEMO_PINS["supervisor"], DEMO_PINS["technician"]
DEALER = "5555"
SECOND = 1_000_000_000
TRUE_NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SIX_MONTHS = timedelta(days=182)


def pins(**extra: str) -> dict[str, str]:
    return {**demo_pin_hashes(), **extra}


@pytest.fixture
def make_table(tmp_path):
    made = []

    def make(clock, path=None, **config):
        config.setdefault("pin_hashes", pins())
        t = Table(path or tmp_path / "journal.sqlite", TableConfig(seats=3, **config),
                  clock=clock)
        t.process([LinkStatus(state=LinkState.ONLINE)])
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def verdict(table, command) -> str:
    """``ok``, or the reason the command was rejected."""
    (v,) = table.process([command])
    return "ok" if v.accepted else v.reason


def supervisor_try(table, value: int = 1) -> str:
    return verdict(table, ConfigChange(key="burn_cards", value=value, pin=SUP))


def locked_out(make_table, clock):
    """A table locking PIN entry for 300 s after 5 wrong PINs, just locked by 5."""
    table = make_table(clock, lockout_after=5, lockout_seconds=300)
    for _ in range(5):
        assert verdict(table, UnblockDeck(pin="0000")) == "wrong PIN"
    assert table.game.counters["pin_lockouts"] == 1
    return table


def ends_after(table, clock, seconds: int) -> None:
    """PIN entry is still locked ``seconds`` - 1 from now and open at ``seconds``; the
    journal replays to the same lockout."""
    clock.run(seconds - 1)
    assert "locked" in supervisor_try(table)
    clock.run(1)
    assert supervisor_try(table) == "ok"
    replays_to_the_same_lockout(table)


def restarted(make_table, table, clock):
    """The table's process ends; a new one starts on the same journal and clock."""
    table.close()
    return make_table(clock, path=table.journal.path, lockout_after=5, lockout_seconds=300)


def replays_to_the_same_lockout(table) -> None:
    table.process([], flush=True)
    assert rebuild(table.journal).lockout == table.game.lockout
    assert rebuild(table.journal, use_snapshots=False).lockout == table.game.lockout
    report = rc.verify(table.journal.path)
    assert report.ok, report.problems


def test_the_written_out_demo_hashes_are_the_demo_pins_hashed_with_their_salts():
    assert set(demo_pin_hashes()) == set(DEMO_PINS)
    for role, pin in DEMO_PINS.items():
        assert demo_pin_hashes()[role] == hash_pin(pin, demo_pin_salt(role))


# ------------------------------------------------------------------ dealer PIN (R12)
def test_the_pin_checker_knows_all_three_roles():
    hashes = pins(dealer=hash_pin(DEALER))
    checker = PinChecker(shared=False)
    assert checker.roles_for(DEALER, hashes) == ("dealer",)
    assert checker.roles_for(SUP, hashes) == ("supervisor",)
    assert checker.roles_for(TECH, hashes) == ("technician",)
    assert checker.roles_for("0000", hashes) == ()
    # one PIN set for two roles (salted apart) matches both
    assert checker.roles_for(SUP, {**hashes, "dealer": hash_pin(SUP)}) == (
        "supervisor", "dealer")


def test_a_dealer_pin_identifies_the_dealer_and_authorises_no_supervisor_action(make_table):
    t = make_table(HandClock(TRUE_NOW, uptime_s=30), pin_hashes=pins(dealer=hash_pin(DEALER)))
    assert verdict(t, PlaceBet(seat=1, bet="ante", amount=100, pin=DEALER)) == "ok"
    for command in (ConfigChange(key="burn_cards", value=1, pin=DEALER),
                    UnblockDeck(pin=DEALER)):
        assert "needs a supervisor or technician PIN" in verdict(t, command)
    assert verdict(t, NoMoreBets(pin=DEALER)) == "ok"
    t.process([CardRead(card="As", code="As"), Misread()])   # paused on a misread
    assert "needs a supervisor or technician PIN" in verdict(t, ManualCard(card="Kd",
                                                                           pin=DEALER))
    assert "needs a supervisor or technician PIN" in verdict(
        t, VoidRound(reason="dealer error", pin=DEALER))
    # never a wrong PIN: the dealer's PIN typed many times never locks anyone out
    for _ in range(7):
        assert "wrong PIN" not in verdict(t, UnblockDeck(pin=DEALER))
    assert t.game.counters.get("pin_failures", 0) == 0
    assert verdict(t, VoidRound(reason="dealer error", pin=SUP)) == "ok"
    actors = [e[4] for e in events(t.journal.path)
              if e[3] in ("place_bet", "void", "unblock_deck")]
    assert actors[0] == "dealer" and actors[-1] == "supervisor" and "dealer!" not in actors


def test_without_a_dealer_pin_configured_the_dealers_pin_is_a_wrong_pin(make_table):
    t = make_table(HandClock(TRUE_NOW, uptime_s=30))
    assert verdict(t, UnblockDeck(pin=DEALER)) == "wrong PIN"


# ------------------------------------------------------------------ lockouts in elapsed time
def test_a_lockout_taken_six_months_ahead_ends_after_its_period_once_the_clock_is_corrected(
        make_table):
    clock = HandClock(TRUE_NOW + SIX_MONTHS, uptime_s=30)     # no RTC: the clock runs ahead
    t = locked_out(make_table, clock)
    clock.run(1)
    clock.step(-SIX_MONTHS)                                # NTP corrects the clock
    assert "locked" in supervisor_try(t)
    assert "locked" in verdict(t, UnblockDeck(pin=TECH))   # technician too
    ends_after(t, clock, 299)                              # 300 s after the lockout


def test_a_step_of_the_clock_forward_does_not_end_a_lockout_early(make_table):
    clock = HandClock(TRUE_NOW - SIX_MONTHS, uptime_s=30)     # no RTC: the clock runs behind
    t = locked_out(make_table, clock)
    clock.run(10)
    clock.step(SIX_MONTHS)                                 # NTP: six months forward
    assert "locked" in supervisor_try(t)
    clock.step(timedelta(days=365))                        # and a year more
    ends_after(t, clock, 290)                              # 300 s after the lockout


def test_a_restart_in_the_same_boot_keeps_the_lockout_to_its_end(make_table):
    clock = HandClock(TRUE_NOW, uptime_s=5000)
    t = locked_out(make_table, clock)
    clock.run(100)
    t = restarted(make_table, t, clock)                    # the service restarts
    ends_after(t, clock, 200)


def test_after_a_new_boot_a_lockout_lasts_at_most_its_period_from_the_restart(make_table):
    clock = HandClock(TRUE_NOW, uptime_s=5000)
    t = locked_out(make_table, clock)
    clock.reboot(down_s=10, uptime_s=20)                   # monotonic time starts again
    t = restarted(make_table, t, clock)
    ends_after(t, clock, 300)                              # 300 s after the restart


def test_a_lockout_seen_over_before_a_new_boot_does_not_come_back(make_table):
    clock = HandClock(TRUE_NOW, uptime_s=5000)
    t = locked_out(make_table, clock)
    clock.run(400)
    t.process([LinkStatus(state=LinkState.SILENT)])        # any event after its end
    clock.reboot(down_s=10, uptime_s=20)
    t = restarted(make_table, t, clock)
    assert supervisor_try(t) == "ok"
    replays_to_the_same_lockout(t)


def test_a_right_pin_starts_the_count_again_and_wrong_pins_while_locked_do_not_extend(
        make_table):
    clock = HandClock(TRUE_NOW, uptime_s=30)
    t = make_table(clock, lockout_after=3, lockout_seconds=60)
    for _ in range(2):
        assert verdict(t, UnblockDeck(pin="0000")) == "wrong PIN"
    assert supervisor_try(t) == "ok"
    for _ in range(2):
        assert verdict(t, UnblockDeck(pin="0000")) == "wrong PIN"
    assert supervisor_try(t, 0) == "ok"                    # never three in a row
    for _ in range(3):
        assert verdict(t, UnblockDeck(pin="0000")) == "wrong PIN"
    clock.run(30)
    assert "locked" in verdict(t, UnblockDeck(pin="0000"))
    clock.run(30)
    assert supervisor_try(t) == "ok"
    assert t.game.counters["pin_failures"] == 7 and t.game.counters["pin_lockouts"] == 1
    replays_to_the_same_lockout(t)


def test_the_power_up_rule_on_its_own():
    period = 300 * SECOND
    lock = PinLockout()
    assert lock.wrong_pin(1000 * SECOND, "", after=1, seconds=300)
    assert lock.until_ns == 1300 * SECOND and lock.period_ns == period
    lock.power_up(1100 * SECOND, "", monotonic=True, seconds=300)     # same boot: kept
    assert lock.until_ns == 1300 * SECOND
    lock.power_up(50 * SECOND, "", monotonic=True, seconds=300)       # a new boot
    assert lock.until_ns == 350 * SECOND
    assert lock.locked(349 * SECOND, "") and not lock.locked(350 * SECOND, "")
    lock.power_up(400 * SECOND, "", monotonic=True, seconds=300)      # past its end: over
    assert lock.until_ns is None


# ------------------------------------------------------------------ journals written before
def _old_journal(path) -> None:
    """A journal as a table kept it before: configuration version 1 (old names), the
    lockout timed on the wall clock. The monotonic times run ten times faster than the
    wall clock, so the two rules disagree on every PIN after the lockout."""
    config = {"table_id": "table-1", "rules": "live", "seats": 3,
              "deal_pattern": "round_robin", "burn_cards": 0, "exposed_card_policy": "burn",
              "pin_hashes": demo_pin_hashes(), "max_pin_failures": 3, "lockout_seconds": 600,
              "recall_depth": 10, "deck_per_round": True, "snapshot_every": 200,
              "chip_values": [100, 500, 2500, 10000]}
    j = Journal(path)
    g = Game()  # what the table kept beside the events: the derived rows, one commit late
    t0 = datetime(2026, 1, 1, tzinfo=UTC)

    def at(seconds: int, kind: str, actor: str, body: dict) -> None:
        utc, mono = (t0 + timedelta(seconds=seconds)).isoformat(), seconds * 10 * SECOND
        (seq,) = j.append(utc, mono, [(kind, actor, json.dumps(body))], g.take_derived())
        g.apply(seq, utc, kind, body, actor, mono_ns=mono)

    at(1, "startup", "system", {"config": config})
    for s in (2, 3, 4):
        at(s, "unblock_deck", "dealer!", {"reason": ""})
    change = {"key": "exposed_card_policy", "value": "void", "old": "burn"}
    at(100, "config_change", "supervisor", change)          # wall: locked (mono: not)
    at(700, "config_change", "supervisor", change)          # wall: free
    j.write_derived(g.take_derived())
    j.close()


def test_a_journal_written_before_replays_its_lockout_on_the_wall_clock(tmp_path):
    path = tmp_path / "old.sqlite"
    _old_journal(path)
    j = Journal(path, readonly=True)
    try:
        g = rebuild(j)
    finally:
        j.close()
    assert [reason for _seq, reason in g.derived.rejections] == [
        "wrong PIN", "wrong PIN", "wrong PIN",
        "PIN entry is locked after repeated wrong PINs; try later"]
    assert g.config.exposed_card == "void" and g.config.lockout_after == 3
    assert g.lockout.clock == "utc"


def test_a_table_opened_on_a_journal_written_before_times_lockouts_on_the_monotonic_clock(
        tmp_path):
    path = tmp_path / "old.sqlite"
    _old_journal(path)
    clock = HandClock(TRUE_NOW, uptime_s=30)
    t = Table(path, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), lockout_after=3,
                                lockout_seconds=600), clock=clock)
    try:
        assert t.locked is None
        assert t.game.lockout.clock == "monotonic"
        assert t.game.config.exposed_card == "burn"        # the file's setting again
        for _ in range(3):
            assert verdict(t, UnblockDeck(pin="0000")) == "wrong PIN"
        clock.step(timedelta(days=-30))
        clock.run(599)
        assert "locked" in supervisor_try(t)
        clock.run(1)
        assert supervisor_try(t) == "ok"
        replays_to_the_same_lockout(t)
    finally:
        t.close()


def test_a_pin_set_for_two_roles_is_refused_naming_them_in_the_log(make_table, caplog):
    """Salted hashes hide one PIN set for two roles when they are loaded: typed at the
    table, it is refused (a PIN must name one role), nothing is journaled, and the log
    says which roles share it."""
    shared = pins(dealer=hash_pin(SUP))                   # the supervisor's PIN, salted anew
    assert shared["dealer"] != shared["supervisor"]
    t = make_table(HandClock(TRUE_NOW, uptime_s=30), pin_hashes=shared)
    head = t.journal.last_seq
    with caplog.at_level(logging.WARNING, logger="threecard"):
        (v,) = t.process([PlaceBet(seat=1, bet="ante", amount=100, pin=SUP)])
    assert not v.accepted and v.refusal.code == "pin_shared"
    assert "a PIN must name one role" in v.reason
    assert t.journal.last_seq == head
    (line,) = [r.getMessage() for r in caplog.records if "PIN" in r.getMessage()]
    assert "supervisor and dealer" in line and SUP not in line
    assert t.game.counters.get("pin_failures", 0) == 0
    assert verdict(t, PlaceBet(seat=1, bet="ante", amount=100, pin=TECH)) == "ok"
