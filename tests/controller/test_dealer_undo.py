"""The dealer's undo: a chip taken off, a decision taken back, a rebet that fills only.

And what the dealer view tells the screen so that it offers only what the table will
accept: the commands accepted now, those that need a PIN, the card a paused deal waits
for, the refusal on show, the PIN attempts left and the lockout's time left.
"""

import json

from controller.game.auth import demo_pin_hashes
from controller.game.engine import Game, TableConfig
from controller.game.events import LinkState, LinkStatus, Misread
from controller.game.inputs import (
    ClearBets,
    Decide,
    ManualCard,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    RemoveChip,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    UndoDecision,
    VoidRound,
    journal_record,
    record_body,
)

DECK = "Ah Kh 2c | Qd Qs 5d | 9c 3s 8h"


def bets_of(shift):
    return {s: dict(sr.bets) for s, sr in shift.game.seats.items()}


def test_a_chip_comes_off_its_bet_and_the_rest_stays(shift):
    shift.ok(PlaceBet(seat=1, bet="ante", amount=500), PlaceBet(seat=1, bet="ante", amount=100),
             PlaceBet(seat=1, bet="pair_plus", amount=100))
    shift.ok(RemoveChip(seat=1, bet="ante", amount=100))
    assert bets_of(shift) == {1: {"ante": 500, "pair_plus": 100}}
    shift.ok(RemoveChip(seat=1, bet="pair_plus", amount=100))
    assert bets_of(shift) == {1: {"ante": 500}}  # a wager brought to nothing is gone
    assert "holds 500, less than the 2500" in shift.rejected(
        RemoveChip(seat=1, bet="ante", amount=2500))
    assert "holds 0" in shift.rejected(RemoveChip(seat=2, bet="ante", amount=100))
    shift.ok(RemoveChip(seat=1, bet="ante", amount=500))
    assert bets_of(shift) == {}  # the seat is empty again


def test_no_chip_comes_off_after_no_more_bets(shift):
    shift.bets(seats=(1,))
    assert "not allowed while no_more_bets" in shift.rejected(
        RemoveChip(seat=1, bet="ante", amount=100))


def test_a_decision_is_taken_back_until_the_reveal(shift):
    shift.bets(seats=(1, 2), ante=500)
    shift.ok(shift.cards(DECK), Decide(seat=1, decision="fold"), Decide(seat=2, decision="play"))
    assert "undo_decision" in shift.view.allowed
    shift.ok(UndoDecision(seat=1), UndoDecision(seat=2))
    assert [(sr.decision, sr.bets.get("play")) for sr in shift.game.seats.values()] == [
        (None, None), (None, None)]  # the Play wager goes with the decision
    assert "undo_decision" not in shift.view.allowed  # nothing left to take back
    assert "no decision to take back" in shift.rejected(UndoDecision(seat=1))
    shift.ok(Decide(seat=1, decision="play"), Decide(seat=2, decision="fold"), Reveal())
    assert "not allowed while reveal" in shift.rejected(UndoDecision(seat=1))
    shift.ok(Settle())
    (rec,) = shift.recall()
    assert {s["seat"]: s["decision"] for s in rec["seats"]} == {1: "play", 2: "fold"}


def test_a_rebet_fills_empty_seats_and_never_replaces_a_new_bet(shift):
    shift.bets(seats=(1, 2, 3), ante=500)
    shift.ok(shift.cards("Ah Kh 2c 7d | Qd Qs 5d 7s | 9c 3s 8h 2d"))
    shift.play_out("play", "play", "play")
    shift.ok(NextRound(), PlaceBet(seat=2, bet="ante", amount=2500))
    shift.ok(Rebet(seat=0))
    assert bets_of(shift) == {1: {"ante": 500}, 2: {"ante": 2500}, 3: {"ante": 500}}
    assert "nothing to rebet" in shift.rejected(Rebet(seat=0))
    assert "seat 2 holds a wager" in shift.rejected(Rebet(seat=2))
    assert "rebet" not in shift.view.allowed  # every seat of the last round is filled
    shift.ok(ClearBets(seat=3))
    assert "rebet" in shift.view.allowed
    shift.ok(Rebet(seat=3))
    assert bets_of(shift)[3] == {"ante": 500}


def test_a_rebet_is_journaled_with_its_rule_and_one_journaled_before_replaces():
    kind, record = journal_record(Rebet(seat=0))
    assert (kind, record_body(record)) == ("rebet", {"seat": 0, "rule": 2})
    cfg = TableConfig(seats=3, pin_hashes=demo_pin_hashes())
    g = Game(cfg)
    g.wagers.last = {1: {"ante": 500}, 2: {"ante": 100}}
    g.wagers.place(g.profile, 2, "ante", 2500)
    # a rebet journaled by an earlier version (no rule) replays as it was applied then
    assert g.apply(1, "2026-01-01T00:00:01+00:00", "rebet", {"seat": 0}, "dealer",
                   mono_ns=1) is None
    assert {s: sr.bets for s, sr in g.seats.items()} == {1: {"ante": 500}, 2: {"ante": 100}}


def test_undo_is_journaled_and_replayed_after_a_restart(shift):
    shift.ok(PlaceBet(seat=1, bet="ante", amount=500), PlaceBet(seat=1, bet="ante", amount=100),
             RemoveChip(seat=1, bet="ante", amount=100), PlaceBet(seat=2, bet="ante", amount=100),
             NoMoreBets(), shift.cards(DECK), Decide(seat=1, decision="play"),
             UndoDecision(seat=1))
    before = json.loads(shift.game.dumps())
    shift.restart()
    after = json.loads(shift.game.dumps())
    before.pop("lockout"), after.pop("lockout")
    assert after["seats"] == before["seats"]
    assert after["seats"]["1"]["bets"] == {"ante": 500}
    assert after["seats"]["1"]["decision"] is None
    kinds = [r.kind for r in shift.table.journal.records()]
    assert RemoveChip.name in kinds and UndoDecision.name in kinds


def test_the_view_offers_only_what_the_table_accepts(shift):
    v = shift.view
    assert "no_more_bets" not in v.allowed and "rebet" not in v.allowed  # no wager yet
    assert "unblock_deck" not in v.allowed  # the deck is not blocked
    shift.ok(PlaceBet(seat=1, bet="ante", amount=100), NoMoreBets(), shift.cards("Ah"))
    shift.ok(Misread())
    v = shift.view
    assert v.state == "paused" and v.pause_reason == "misread"
    assert "resume" not in v.allowed and "manual_card" in v.allowed
    assert {"manual_card", "void"} <= v.pin_needed
    assert "re-present the card" in shift.rejected(Resume())  # and the table refuses it
    shift.ok(ManualCard(card="Kh", pin=shift.SUP))
    shift.ok(LinkStatus(state=LinkState.DISCONNECTED, detail="unplugged"))
    v = shift.view
    assert v.state == "paused" and v.pause_reason == "link_lost"
    assert "resume" not in v.allowed and "manual_card" not in v.allowed
    assert v.next_card is None and v.waiting_card == (1, 2)  # seat 1's second card waits
    assert "still down" in shift.rejected(Resume())


def test_an_unacknowledged_void_asks_for_a_pin_on_next_round(shift):
    shift.ok(PlaceBet(seat=1, bet="ante", amount=100), shift.cards("Ah"))
    v = shift.view
    assert v.state == "void" and "next_round" in v.allowed
    assert "next_round" in v.pin_needed and "void" not in v.allowed
    assert "needs a supervisor" in shift.rejected(NextRound())
    shift.ok(NextRound(pin=shift.SUP))
    assert "next_round" not in shift.view.pin_needed


def test_a_refusal_is_named_by_its_event_until_an_accepted_command(shift):
    assert shift.view.refusal_seq is None
    (v,) = shift.do(Reveal())
    assert shift.view.refusal_seq == v.seq
    (w,) = shift.do(Reveal())
    assert shift.view.refusal_seq == w.seq > v.seq  # the same refusal again is a new one
    shift.ok(PlaceBet(seat=1, bet="ante", amount=100))
    assert shift.view.refusal_seq is None


def test_the_view_counts_pin_attempts_and_the_lockout_time_left(make_shift):
    s = make_shift(lockout_after=3, lockout_seconds=120)
    s.ok(PlaceBet(seat=1, bet="ante", amount=100), NoMoreBets())
    assert s.view.pin_attempts_left == 3 and s.view.pin_locked_ms == 0
    assert s.rejected(VoidRound(reason="x", pin="9999")) == "wrong PIN"
    assert s.view.pin_attempts_left == 2
    s.rejected(VoidRound(reason="x", pin="9999"))
    s.rejected(VoidRound(reason="x", pin="9999"))
    v = s.view
    assert v.pin_locked_ms == 120_000 and v.pin_attempts_left == 3  # locked; count anew
    s.rejected(UnblockDeck(reason="x", pin=s.SUP))  # one second later (the fake clock)
    assert s.view.pin_locked_ms == 119_000
