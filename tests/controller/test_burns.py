"""Burn cards, read like a dealer's shift: a card read in burn mode is never a hand card
and never an irregularity, and a burn the shoe flags counts toward ``burn_cards``.

The shoe is a Bee-Tek: its bytes go through the real ``beetek`` decoder into the real
table on a journal file. Seats 1 and 2 bet 100 on the Ante; the deal is round robin
(seat 1, seat 2, dealer, three passes). With every burn below, the hands must be these:
seat 1 Ah Qd 9c (ace high), seat 2 Kh Qs 3s (king high), dealer 2c 5d 8h (does not
qualify), so both seats win the Ante and push the Play: +100 each.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from step_clock import StepClock

from controller.cli import main
from controller.game import recall as rc
from controller.game.auth import demo_pin_hashes
from controller.game.cards import DECK
from controller.game.engine import Game, TableConfig
from controller.game.events import Alarm, CardRead, LinkState, LinkStatus, Misread
from controller.game.inputs import (
    ConfigChange,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Resume,
    UnblockDeck,
)
from controller.game.table import Table
from controller.game.table_views import ViewBuilder
from controller.journal import Journal
from drivers.dialects import make_decoder

HANDS = {1: ["Ah", "Qd", "9c"], 2: ["Kh", "Qs", "3s"], 0: ["2c", "5d", "8h"]}
ORDER = "Ah Kh 2c Qd Qs 5d 9c 3s 8h"
DEAL = [("Ah", "seat 1", False), ("Kh", "seat 2", False), ("2c", "dealer", False),
        ("Qd", "seat 1", False), ("Qs", "seat 2", False), ("5d", "dealer", False),
        ("9c", "seat 1", False), ("3s", "seat 2", False), ("8h", "dealer", False)]
UNREADABLE_BURN = b"[Manual Burn Cards]<Game>\r\n"
DATA = Path(__file__).resolve().parent / "data"


def game_tokens(text: str) -> bytes:
    """``[Game]<Card:AH>`` tokens, as the shoe writes cards read in game mode."""
    return b"".join(b"[Game]<Card:%s>\r\n" % _code(c) for c in text.split())


def burn_tokens(text: str) -> bytes:
    """``[Manual Burn Cards]<Card:9S>`` tokens: cards read in burn mode."""
    return b"".join(b"[Manual Burn Cards]<Card:%s>\r\n" % _code(c) for c in text.split())


def _code(card: str) -> bytes:
    rank = "10" if card[0] == "T" else card[0]
    return (rank + card[1].upper()).encode()


class Shoe:
    """The Bee-Tek decoder between the shoe's bytes and the table."""

    def __init__(self, shift) -> None:
        self.shift = shift
        self.decoder = make_decoder("beetek")

    def send(self, data: bytes, *, watch=None) -> list:
        """Decode ``data`` and feed the events one by one; every one must be accepted.

        ``watch`` is called with the dealer view after each event (to prove no pause or
        void ever shows). Returns the events decoded.
        """
        events = self.decoder.feed(data)
        assert events and not any(e.type == "frame_error" for e in events), events
        for ev in events:
            self.shift.ok(ev)
            if watch is not None:
                watch(self.shift.view)
        return events


@pytest.fixture
def betting(make_shift):
    """Make a shift (``make_shift(**config)``) with a beetek shoe on it, seats 1 and 2's
    antes placed and no more bets called; returns the shift and the shoe."""
    def make(**config):
        s = make_shift(**config)
        shoe = Shoe(s)
        s.bets()
        return s, shoe
    return make


def never_paused_nor_void(view) -> None:
    assert view.state not in ("paused", "void"), (view.state, view.banners)
    assert view.pause_reason is None and view.void_reason is None
    assert not {b.kind for b in view.banners} & {"misread", "void", "extra_card"}


def assert_right_hands(shift) -> None:
    """The seats and the dealer hold exactly the cards of HANDS."""
    g = shift.game
    assert {s: sr.cards for s, sr in g.seats.items()} == {1: HANDS[1], 2: HANDS[2]}
    assert g.deal.dealer_cards == HANDS[0]


def settle_and_recall(shift) -> dict:
    assert shift.view.state == "deciding"
    assert_right_hands(shift)
    shift.play_out("play", "play")
    r = shift.recall()[0]
    assert r["status"] == "settled" and r["void_reason"] is None
    assert shift.nets(r) == {1: 100, 2: 100}
    assert {s["seat"]: s["cards"] for s in r["seats"]} == {1: HANDS[1], 2: HANDS[2]}
    assert r["dealer_cards"] == HANDS[0]
    return r


def test_a_burn_flagged_by_the_shoe_fills_the_configured_burn(betting):
    s, shoe = betting(burn_cards=1)
    assert s.view.next_card == (-1, 1)                     # the screen asks for the burn
    (ev,) = shoe.send(burn_tokens("9s"))
    assert ev == CardRead(card="9s", code="9S", burn=True)
    assert s.view.state == "dealing" and s.view.next_card == (1, 1)
    shoe.send(game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [("9s", "burn", False), *DEAL]
    (shown,) = [rr for rr in s.view.recall if rr.round_id == 1]   # the dealer's recall
    assert shown.deal == (("9s", "burn", False), *DEAL)


def test_an_unreadable_burn_fills_the_configured_burn_without_a_pause(betting, capsys):
    s, shoe = betting(burn_cards=1)
    (ev,) = shoe.send(UNREADABLE_BURN, watch=never_paused_nor_void)
    assert ev == Misread(burn=True)
    assert s.view.next_card == (1, 1) and s.view.cards_due == 9
    shoe.send(game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [(None, "burn", False), *DEAL]
    assert s.game.counters.get("unreadable_burns") == 1
    assert "misreads" not in s.game.counters
    assert main(["recall", "--journal", str(s.path), "--last", "1"]) == 0
    printed = capsys.readouterr().out
    assert "deal: unreadable->burn  Ah->seat 1  Kh->seat 2  2c->dealer  Qd->seat 1" in printed


def test_an_unreadable_burn_while_betting_is_recorded_and_voids_nothing(shift):
    shoe = Shoe(shift)
    shift.ok(PlaceBet(seat=1, bet="ante", amount=100))
    shoe.send(UNREADABLE_BURN, watch=never_paused_nor_void)
    assert shift.view.state == "betting"
    shoe.send(burn_tokens("Jh"), watch=never_paused_nor_void)  # and a readable one
    assert shift.view.state == "betting"
    shift.bets(seats=(2,))                                  # seat 2 bets; no more bets
    assert shift.view.next_card == (1, 1)
    shoe.send(game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(shift)
    assert shift.deal_of(r) == [(None, "burn", False), ("Jh", "burn", False), *DEAL]


def test_a_burn_flagged_while_betting_does_not_count_toward_the_configured_burn(make_shift):
    s = make_shift(burn_cards=1)
    shoe = Shoe(s)
    shoe.send(UNREADABLE_BURN)                              # no round is dealing yet
    s.bets()
    assert s.view.next_card == (-1, 1)                      # the configured burn is due
    shoe.send(burn_tokens("Jh") + game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [(None, "burn", False), ("Jh", "burn", False), *DEAL]


def test_burns_flagged_mid_deal_are_set_aside_and_never_pause(shift):
    shoe = Shoe(shift)
    shift.bets()
    shoe.send(game_tokens("Ah Kh 2c") + UNREADABLE_BURN + game_tokens("Qd Qs")
              + burn_tokens("Jh") + game_tokens("5d 9c 3s 8h"), watch=never_paused_nor_void)
    r = settle_and_recall(shift)
    assert shift.deal_of(r) == [*DEAL[:3], (None, "burn", False), *DEAL[3:5],
                                ("Jh", "burn", False), *DEAL[5:]]


def test_a_flagged_burn_after_the_configured_burns_is_set_aside(betting):
    s, shoe = betting(burn_cards=1)
    shoe.send(burn_tokens("9s") + UNREADABLE_BURN + game_tokens(ORDER),
              watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [("9s", "burn", False), (None, "burn", False), *DEAL]


def test_a_game_mode_card_while_the_burn_is_due_is_the_burn(betting):
    s, shoe = betting(burn_cards=1)
    shoe.send(game_tokens("9s " + ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [("9s", "burn", False), *DEAL]


def test_flagged_and_unflagged_burns_together_fill_the_configured_burns(betting):
    s, shoe = betting(burn_cards=3)
    shoe.send(UNREADABLE_BURN + game_tokens("Td") + burn_tokens("9s"),
              watch=never_paused_nor_void)
    assert s.view.next_card == (1, 1)
    shoe.send(game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [(None, "burn", False), ("Td", "burn", False),
                            ("9s", "burn", False), *DEAL]


def test_by_hand_deal_with_a_flagged_burn(betting):
    s, shoe = betting(burn_cards=1, deal_pattern="by_hand")
    by_hand = " ".join(HANDS[1] + HANDS[2] + HANDS[0])
    shoe.send(burn_tokens("9s") + game_tokens(by_hand), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r)[:2] == [("9s", "burn", False), ("Ah", "seat 1", False)]


def test_a_burn_between_rounds_is_added_to_the_finished_rounds_record(betting):
    s, shoe = betting(burn_cards=1)
    shoe.send(burn_tokens("9s") + game_tokens(ORDER))
    r1 = settle_and_recall(s)
    shoe.send(burn_tokens("Jh") + UNREADABLE_BURN)          # the round is settled
    assert s.view.state == "settled"
    (after,) = s.recall()
    assert after == {**r1, "deal": [*r1["deal"], ["Jh", "burn", False],
                                    [None, "burn", False]]}
    (shown,) = [rr for rr in s.view.recall if rr.round_id == 1]   # on the dealer's screen
    assert shown.deal[-2:] == (("Jh", "burn", False), (None, "burn", False))
    s.ok(NextRound())
    s.bets()
    assert s.view.next_card == (-1, 1)                      # this round's burn is still due
    shoe.send(burn_tokens("Jh") + game_tokens(ORDER),       # a new deck: Jh again is no
              watch=never_paused_nor_void)                  # duplicate
    r2 = settle_and_recall(s)
    assert s.deal_of(r2) == [("Jh", "burn", False), *DEAL]
    assert s.recall()[1] == after
    replay_matches(s)


def test_a_misread_at_the_burn_position_is_resolved_by_the_burn_read_again(betting):
    s, shoe = betting(burn_cards=1)
    shoe.send(b"[Game]<Game>\r\n")                          # the dealer forgot burn mode
    assert s.view.state == "paused" and s.view.pause_reason == "misread"
    shoe.send(burn_tokens("9s"))                            # re-presented, in burn mode
    assert s.view.state == "dealing" and s.view.next_card == (1, 1)
    assert "misread" not in {b.kind for b in s.view.banners}
    shoe.send(game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [("9s", "burn", False), *DEAL]


def test_a_misread_at_a_hand_position_is_not_resolved_by_a_burn(betting):
    s, shoe = betting(burn_cards=1)
    shoe.send(burn_tokens("9s") + b"[Game]<Game>\r\n")      # seat 1's first card misread
    assert s.view.pause_reason == "misread"
    shoe.send(UNREADABLE_BURN + burn_tokens("Jh"))
    assert s.view.pause_reason == "misread" and s.view.next_card == (1, 1)
    shoe.send(game_tokens(ORDER))                           # Ah read again: the deal goes on
    r = settle_and_recall(s)
    assert s.deal_of(r) == [("9s", "burn", False), (None, "burn", False),
                            ("Jh", "burn", False), *DEAL]


def test_a_burn_flagged_while_paused_at_the_burn_fills_it_and_the_pause_stays(betting):
    s, shoe = betting(burn_cards=1)
    (alarm,) = shoe.send(b"[GameAlarm]<Alarm:E3 Card Not Read>\r\n")
    assert alarm == Alarm(code="E3", text="Card Not Read")
    assert s.view.pause_reason == "alarm"
    (ev,) = shoe.send(UNREADABLE_BURN)
    assert s.view.state == "paused" and s.view.pause_reason == "alarm"
    s.ok(Resume())
    assert s.view.state == "dealing" and s.view.next_card == (1, 1)
    shoe.send(game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert s.deal_of(r) == [(None, "burn", False), *DEAL]
    assert ev == Misread(burn=True)


def test_a_burned_card_dealt_again_is_a_duplicate(betting):
    s, shoe = betting(burn_cards=1)
    shoe.send(burn_tokens("Ah") + game_tokens("Ah"))        # the burn is out of the deck
    v = s.view
    assert v.state == "void" and v.deck_blocked and v.void_reason == "duplicate_card"
    (r,) = s.recall()
    assert s.deal_of(r) == [("Ah", "burn", False), ("Ah", "rejected", False)]
    s.ok(UnblockDeck(reason="deck checked", pin=s.SUP))


def test_a_burn_flagged_twice_is_a_duplicate_too(shift):
    shoe = Shoe(shift)
    shift.bets()
    shoe.send(game_tokens("Ah") + burn_tokens("Ah"))
    assert shift.view.void_reason == "duplicate_card" and shift.view.deck_blocked


def replay_matches(shift, views: bool = True) -> None:
    """Replaying the journal gives the live state and the same screens (in full; from the
    newest snapshot, the same state); the journal's own check passes.

    A snapshot's JSON has sorted keys, so a game rebuilt from one lists a finished round's
    bets in another order on screen: screens are compared only between two games that
    replayed every event (``views`` False when the live table itself started from one).
    """
    shift.table.process([])                                 # the derived tables written
    live = shift.game.to_dict()
    for full in (True, False):
        j = Journal(shift.path, readonly=True)
        try:
            g = rc.replay(j, full=full)
        finally:
            j.close()
        assert g.to_dict() == live
        if full and views:
            assert ViewBuilder().build(g, 7) == ViewBuilder().build(shift.game, 7)
    report = rc.verify(shift.path)
    assert report.ok, report.problems


def test_replaying_the_journal_gives_the_same_state_and_views(betting):
    s, shoe = betting(burn_cards=2, snapshot_every=1)
    shoe.send(UNREADABLE_BURN + burn_tokens("9s") + game_tokens(ORDER))
    settle_and_recall(s)
    shoe.send(burn_tokens("Jh"))                            # between rounds
    replay_matches(s)
    s.ok(NextRound(), ConfigChange(key="burn_cards", value=1, pin=s.SUP))
    s.bets()
    shoe.send(UNREADABLE_BURN + game_tokens("Ah Kh 2c"))    # mid-deal: cut by a power loss
    replay_matches(s)

    s.restart()                                             # the power comes back
    assert s.view.state == "paused" and s.view.pause_reason == "interrupted"
    s.ok(Resume(pin=s.SUP))
    assert s.view.next_card == (1, 2)
    shoe.send(game_tokens("Qd Qs 5d 9c 3s 8h"), watch=never_paused_nor_void)
    r2 = settle_and_recall(s)
    assert s.deal_of(r2) == [(None, "burn", False), *DEAL]
    assert s.deal_of(s.recall()[1])[-1] == ("Jh", "burn", False)
    replay_matches(s, views=False)                          # the table restarted from one


@pytest.fixture
def burns_before(journal_from_before):
    """A copy of a journal of flagged burns written when they were always set aside."""
    return journal_from_before("burns_before")


def test_a_journal_written_before_replays_to_the_state_it_had(burns_before):
    # the state as saved then, read as this version reads a saved state (the names of
    # its configuration and its PIN lockout have changed since)
    before = Game.from_dict(json.loads((DATA / "burns_before.state.json").read_text()))
    before = before.to_dict()
    assert before["lockout"]["clock"] == "utc"               # timed as it was then
    j = Journal(burns_before, readonly=True)
    try:
        assert rc.replay(j, full=True).to_dict() == before
        assert rc.replay(j).to_dict() == before              # from its newest snapshot
    finally:
        j.close()
    report = rc.verify(burns_before)
    assert report.ok and report.snapshots_checked == 3, report.problems
    r1 = rc.recall(burns_before)[-1]
    # then, the flagged 9s was set aside and the next game card, Td, taken as the burn
    assert [tuple(d) for d in r1["deal"][:3]] == [("9s", "burn", False), ("Td", "burn", False),
                                                  ("Ah", "seat 1", False)]


def test_a_table_opened_on_a_journal_written_before_counts_flagged_burns(burns_before,
                                                                        make_shift):
    s = make_shift(path=burns_before, burn_cards=1)
    shoe = Shoe(s)
    s.ok(NextRound())
    s.bets()
    shoe.send(burn_tokens("9s") + game_tokens(ORDER), watch=never_paused_nor_void)
    r = settle_and_recall(s)
    assert r["round_id"] == 5 and s.deal_of(r) == [("9s", "burn", False), *DEAL]
    replay_matches(s, views=False)


BURN_KINDS = st.sampled_from(["flagged", "unreadable", "game"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations([str(c) for c in DECK]), burns=st.lists(BURN_KINDS, max_size=3),
       seats=st.sets(st.integers(1, 3), min_size=1),
       pattern=st.sampled_from(["round_robin", "by_hand"]),
       early=st.lists(st.booleans(), max_size=2),
       extras=st.lists(st.tuples(st.integers(0, 12), st.booleans()), max_size=4))
def test_any_burns_leave_every_hand_as_dealt(order, burns, seats, pattern, early, extras):
    """The configured burns, flagged or not, then the hands; burns flagged while betting,
    mid-deal or after the deal anywhere: every hand gets the cards dealt to it, nothing
    pauses or voids, and the deal lists every card in the order read."""
    cards = iter(order)
    t = Table(":memory:", TableConfig(seats=3, burn_cards=len(burns), deal_pattern=pattern,
                                      pin_hashes=demo_pin_hashes()), clock=StepClock())
    t.process([LinkStatus(state=LinkState.ONLINE)])

    def flagged(readable: bool):
        card = next(cards) if readable else None
        ev = CardRead(card=card, code=card, burn=True) if readable else Misread(burn=True)
        return ev, [card, "burn", False]

    events, want = [], []
    for readable in early:                                  # while betting
        ev, rec = flagged(readable)
        events.append(ev)
        want.append(rec)
    events += [PlaceBet(seat=s, bet="ante", amount=100) for s in sorted(seats)]
    events.append(NoMoreBets())
    for kind in burns:                                      # the configured burns
        if kind == "game":
            card = next(cards)
            events.append(CardRead(card=card, code=card))
            want.append([card, "burn", False])
        else:
            ev, rec = flagged(kind == "flagged")
            events.append(ev)
            want.append(rec)
    holders = [*sorted(seats), 0]
    positions = ([(s, n) for n in (1, 2, 3) for s in holders] if pattern == "round_robin"
                 else [(s, n) for s in holders for n in (1, 2, 3)])
    hands: dict[int, list[str]] = {s: [] for s in holders}
    at = {}
    for i, readable in sorted(extras):
        at.setdefault(i, []).append(readable)
    for i in range(len(positions) + 1):
        for readable in at.get(i, ()):                      # flagged mid-deal or after it
            ev, rec = flagged(readable)
            events.append(ev)
            want.append(rec)
        if i < len(positions):
            seat = positions[i][0]
            card = next(cards)
            events.append(CardRead(card=card, code=card))
            want.append([card, "dealer" if seat == 0 else f"seat {seat}", False])
            hands[seat].append(card)
    for ev in events:
        (v,) = t.process([ev])
        assert v.accepted, (ev, v.reason)
        assert t.game.state.value not in ("paused", "void"), ev
    g = t.game
    assert g.state.value == "deciding"
    assert {s: sr.cards for s, sr in g.seats.items()} == {s: hands[s] for s in seats}
    assert g.deal.dealer_cards == hands[0]
    assert [d.line() for d in g.deal.entries] == want
    assert json.loads(rc.replay(t.journal, full=True).dumps()) == json.loads(g.dumps())
    t.close()
